//! Failure-text helpers: ANSI colour codes out, and the expected and actual values a message
//! states (Jest's `Expected: 2` / `Received: 3` lines, Vitest's and chai's `expected 3 to be 2`).

pub use gapscore_adapter_sdk::text::strip_ansi;

/// The expected and actual values a failure message states, each when present.
///
/// Jest's matchers print `Expected: <value>` and `Received: <value>` lines (also `Expected
/// value:`, `Received string:`, ... for some matchers); Vitest and chai say `expected <actual>
/// to be <expected>` (or `to equal`, `to deeply equal`, `to strictly equal`) on one line. Values
/// are kept as printed (a string keeps its quotes). Anything else states neither: a diff block
/// (`- Expected` / `+ Received`) is not a value and is left alone.
pub fn expected_actual(message: &str) -> (Option<String>, Option<String>) {
    let mut expected = None;
    let mut actual = None;
    for line in message.lines() {
        let t = line.trim();
        if t.starts_with("at ") {
            // The stack trace: the assertion text is above it.
            break;
        }
        if expected.is_none()
            && let Some(v) = labelled(t, "Expected")
        {
            expected = Some(v.to_owned());
            continue;
        }
        if expected.is_some()
            && actual.is_none()
            && let Some(v) = labelled(t, "Received")
        {
            actual = Some(v.to_owned());
            break;
        }
        if expected.is_none()
            && let Some((a, e)) = chai(t)
        {
            return (Some(e.to_owned()), Some(a.to_owned()));
        }
    }
    (expected, actual)
}

/// `Expected: v`, `Expected value: v`, `Received string: v`: the label, at most two lowercase
/// words, a colon, then a non-empty value.
fn labelled<'a>(line: &'a str, label: &str) -> Option<&'a str> {
    let rest = line.strip_prefix(label)?;
    let colon = rest.find(':')?;
    let words = &rest[..colon];
    if words.len() > 20
        || !words.chars().all(|c| c == ' ' || c.is_ascii_lowercase())
        || words.split_whitespace().count() > 2
        || (!words.is_empty() && !words.starts_with(' '))
    {
        return None;
    }
    let value = rest[colon + 1..].trim();
    (!value.is_empty()).then_some(value)
}

/// `[AssertionError: ]expected <actual> to be <expected>[ // Object.is equality]`.
fn chai(line: &str) -> Option<(&str, &str)> {
    const VERBS: [&str; 4] = [
        " to be ",
        " to equal ",
        " to deeply equal ",
        " to strictly equal ",
    ];
    let rest = line
        .strip_prefix("AssertionError: expected ")
        .or_else(|| line.strip_prefix("expected "))?;
    let (at, verb) = VERBS
        .iter()
        .filter_map(|v| rest.find(v).map(|i| (i, *v)))
        .min_by_key(|(i, _)| *i)?;
    let actual = &rest[..at];
    let expected = &rest[at + verb.len()..];
    let expected = expected
        .split_once(" // ")
        .map_or(expected, |(e, _)| e)
        .trim();
    (!actual.is_empty() && !expected.is_empty()).then_some((actual.trim(), expected))
}

/// The first line that says something: blank lines and Jest's `● Test suite failed to run`
/// header are passed over. Empty when there is none.
pub fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('●'))
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn jest_expected_received() {
        let m = "Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 2\nReceived: 3\n    at Object.toBe (calc.test.js:8:21)";
        assert_eq!(expected_actual(m), (Some("2".into()), Some("3".into())));
        let m = "expect(received).toHaveProperty(path, value)\n\nExpected path: \"a\"\nReceived path: []";
        assert_eq!(
            expected_actual(m),
            (Some("\"a\"".into()), Some("[]".into()))
        );
        assert_eq!(
            expected_actual("expect(x).toEqual(y)\n\n- Expected  - 1\n+ Received  + 1\n\n- 2\n+ 3"),
            (None, None)
        );
        assert_eq!(expected_actual("Expected:\nReceived: 3"), (None, None));
        assert_eq!(expected_actual("ExpectedFooBar: 1"), (None, None));
    }

    #[test]
    fn vitest_chai_style() {
        assert_eq!(
            expected_actual(
                "AssertionError: expected 3 to be 2 // Object.is equality\n    at x.test.ts:4:5"
            ),
            (Some("2".into()), Some("3".into()))
        );
        assert_eq!(
            expected_actual(
                "AssertionError: expected 'hello, world' to be 'Hello, World!' // Object.is equality"
            ),
            (
                Some("'Hello, World!'".into()),
                Some("'hello, world'".into())
            )
        );
        assert_eq!(
            expected_actual("AssertionError: expected { a: 1 } to deeply equal { a: 2 }"),
            (Some("{ a: 1 }".replace('1', "2")), Some("{ a: 1 }".into()))
        );
        assert_eq!(expected_actual("TypeError: boom"), (None, None));
    }

    #[test]
    fn ansi_is_stripped_and_borrowed_when_absent() {
        assert!(matches!(strip_ansi("plain"), Cow::Borrowed("plain")));
        assert_eq!(strip_ansi("\u{1b}[31mred\u{1b}[39m"), "red");
    }

    #[test]
    fn first_line_skips_the_header() {
        assert_eq!(
            first_line("  ● Test suite failed to run\n\n    Cannot find module 'x'\n"),
            "Cannot find module 'x'"
        );
        assert_eq!(first_line("\n \n"), "");
    }
}
