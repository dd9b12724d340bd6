//! The `<failure>` body of `node --test --test-reporter=junit`: Node prints the whole inspected
//! error, `[Error [ERR_TEST_FAILURE]: …] { …, cause: AssertionError [ERR_ASSERTION]: <message>
//! at <frames> { actual: 2, expected: 3, … } }`. A test keeps what the implementer can act on
//! (and what `feedback` shows): the assertion's message, the one frame where it failed, and the
//! `expected`/`actual` values; the test runner's own frames are dropped.

/// What one Node failure text says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NodeFailure {
    /// The reporter's one-line `message` (`Expected values to be strictly equal:2 !== 3`), or
    /// the cause's message when there is none, then the cause's first stack frame (where the
    /// assertion failed).
    pub(super) message: String,
    /// The inspected `expected` value, when the cause has one.
    pub(super) expected: Option<String>,
    /// The inspected `actual` value, when the cause has one.
    pub(super) actual: Option<String>,
}

/// Reads a Node test-runner failure text (the `message` attribute may come first, on its own
/// line); `None` for any other text.
pub(super) fn read(text: &str) -> Option<NodeFailure> {
    // JUnit readers put the `message` attribute on the line before the body.
    if !text
        .lines()
        .take(2)
        .any(|l| l.trim_start().starts_with("[Error [ERR_TEST_FAILURE]"))
    {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let cause_at = lines
        .iter()
        .position(|l| l.trim_start().starts_with("cause: "))?;
    let cause = lines[cause_at];
    let indent = cause.len() - cause.trim_start().len();
    let mut message = vec![cause.trim_start().trim_start_matches("cause: ").to_owned()];
    let mut frame = None;
    let mut rest = cause_at + 1;
    while let Some(line) = lines.get(rest) {
        rest += 1;
        let t = line.trim_start();
        if t.starts_with("at ") {
            frame = Some(t.trim_end_matches(" {").to_owned());
            break;
        }
        message.push(
            line.get(indent..)
                .unwrap_or(line.trim_start())
                .trim_end()
                .to_owned(),
        );
    }
    while message.last().is_some_and(|l| l.is_empty()) {
        message.pop();
    }
    // The cause's own properties follow its last frame.
    let props = lines.get(rest..).unwrap_or_default();
    let props_from = props
        .iter()
        .position(|l| !l.trim_start().starts_with("at "))
        .unwrap_or(props.len());
    let props = &props[props_from..];
    // The reporter's `message` attribute, when it comes first, is the assertion's message on one
    // line (what a report's one-line summary shows); the cause's own lines otherwise.
    let first = text.lines().next().unwrap_or_default().trim();
    let mut out = if first.starts_with("[Error [ERR_TEST_FAILURE]") {
        message.join("\n")
    } else {
        first.to_owned()
    };
    if let Some(f) = frame {
        out.push('\n');
        out.push_str(&f);
    }
    Some(NodeFailure {
        message: out,
        expected: property(props, "expected"),
        actual: property(props, "actual"),
    })
}

/// `key: value` among the inspected properties; a value that opens a bracket runs to the line
/// that closes it.
fn property(lines: &[&str], key: &str) -> Option<String> {
    let at = lines.iter().position(|l| {
        l.trim_start()
            .strip_prefix(key)
            .is_some_and(|r| r.starts_with(": "))
    })?;
    let first = lines[at].trim_start()[key.len() + 2..].to_owned();
    let mut value = vec![first];
    let mut depth = balance(&value[0]);
    let mut i = at + 1;
    while depth > 0
        && let Some(l) = lines.get(i)
    {
        depth += balance(l);
        value.push(l.trim().to_owned());
        i += 1;
    }
    let joined = value.join("\n");
    let v = joined.trim_end().trim_end_matches(',');
    (!v.is_empty()).then(|| v.to_owned())
}

/// Opening minus closing brackets on a line (strings are not inspected: a heuristic).
fn balance(line: &str) -> i64 {
    line.chars()
        .map(|c| match c {
            '{' | '[' => 1,
            '}' | ']' => -1,
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_assertion_gives_its_message_frame_and_values() {
        let text = "Expected values to be strictly equal:2 !== 3\n[Error [ERR_TEST_FAILURE]: Expected values to be strictly equal:\n\n2 !== 3\n] {\n  code: 'ERR_TEST_FAILURE',\n  failureType: 'testCodeFailure',\n  cause: AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n  \n  2 !== 3\n  \n      at TestContext.<anonymous> (/p/calc.test.js:4:34)\n      at Test.run (node:internal/test_runner/test:796:25) {\n    generatedMessage: true,\n    actual: 2,\n    expected: 3,\n    operator: 'strictEqual'\n  }\n}";
        let f = read(text).unwrap();
        assert_eq!(f.expected.as_deref(), Some("3"));
        assert_eq!(f.actual.as_deref(), Some("2"));
        assert_eq!(
            f.message,
            "Expected values to be strictly equal:2 !== 3\nat TestContext.<anonymous> (/p/calc.test.js:4:34)"
        );
    }

    #[test]
    fn a_plain_error_keeps_its_message_and_first_frame() {
        let text = "[Error [ERR_TEST_FAILURE]: plain error] {\n  code: 'ERR_TEST_FAILURE',\n  failureType: 'testCodeFailure',\n  cause: Error: plain error\n      at TestContext.<anonymous> (/p/a.test.js:6:30)\n      at Test.run (node:internal/test_runner/test:796:25)\n}";
        let f = read(text).unwrap();
        assert_eq!(
            f.message,
            "Error: plain error\nat TestContext.<anonymous> (/p/a.test.js:6:30)"
        );
        assert_eq!((f.expected, f.actual), (None, None));
    }

    #[test]
    fn an_object_value_spans_its_lines() {
        let props = [
            "    actual: {",
            "      a: 1",
            "    },",
            "    expected: { a: 2 },",
        ];
        assert_eq!(property(&props, "actual").as_deref(), Some("{\na: 1\n}"));
        assert_eq!(property(&props, "expected").as_deref(), Some("{ a: 2 }"));
    }

    #[test]
    fn other_texts_are_not_read() {
        assert_eq!(read("AssertionError: expected 3, got 4"), None);
        assert_eq!(read("[Error [ERR_TEST_FAILURE]: x] {\n}"), None);
    }
}
