//! What the JSON and the text readers share: recognising go test's framing lines, panics and
//! package summary lines, keeping a test's output within a cap, and turning a test's output into
//! a message with its `file_test.go:NN:` location and, when the line states them, expected and
//! actual values.

use std::sync::LazyLock;

use regex::Regex;

/// Captured output and messages beyond this many bytes are cut, with a note (the SDK's cap).
pub use gapscore_adapter_sdk::text::TEXT_CAP;

pub(crate) use gapscore_adapter_sdk::text::push_capped;

/// A result line's verb: `--- PASS:` and friends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Report {
    Pass,
    Fail,
    Skip,
    Bench,
}

/// A `--- PASS: name (0.00s)` line, possibly indented by four spaces per subtest level:
/// (indent level, verb, test name, seconds).
pub(crate) fn report_line(line: &str) -> Option<(usize, Report, &str, Option<f64>)> {
    let mut rest = line;
    let mut indent = 0;
    while let Some(r) = rest.strip_prefix("    ") {
        rest = r;
        indent += 1;
    }
    let rest = rest.strip_prefix("--- ")?;
    let (verb, rest) = if let Some(r) = rest.strip_prefix("PASS: ") {
        (Report::Pass, r)
    } else if let Some(r) = rest.strip_prefix("FAIL: ") {
        (Report::Fail, r)
    } else if let Some(r) = rest.strip_prefix("SKIP: ") {
        (Report::Skip, r)
    } else if let Some(r) = rest.strip_prefix("BENCH: ") {
        (Report::Bench, r)
    } else {
        return None;
    };
    let rest = rest.trim_end();
    // The elapsed time is the last ` (N.NNs)`, or ` (N.NN seconds)` as go 1.4 and earlier
    // wrote it; test names may hold parentheses themselves.
    if let Some(open) = rest.rfind(" (")
        && let Some(secs) = rest[open + 2..]
            .strip_suffix(" seconds)")
            .or_else(|| rest[open + 2..].strip_suffix("s)"))
        && let Ok(v) = secs.parse::<f64>()
    {
        let v = (v.is_finite() && v >= 0.0).then_some(v);
        return Some((indent, verb, &rest[..open], v));
    }
    Some((indent, verb, rest, None))
}

/// A `=== RUN   name` style line: (verb, test name). Verbs: RUN, PAUSE, CONT, NAME (go 1.20+)
/// and go 1.20's `=== PASS`/`FAIL`/`SKIP` repeats.
pub(crate) fn update_line(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("=== ")?;
    let (verb, name) = rest.split_once(' ').unwrap_or((rest, ""));
    match verb {
        "RUN" | "PAUSE" | "CONT" | "NAME" | "PASS" | "FAIL" | "SKIP" => Some((verb, name.trim())),
        _ => None,
    }
}

/// True for go test's own lines around a test's output, which are not part of a message.
pub(crate) fn is_framing(line: &str) -> bool {
    let b = line.as_bytes();
    // Fast path: most output lines start with neither `=` nor `-` nor an indent.
    match b.first() {
        Some(b'=') => update_line(line).is_some(),
        Some(b'-') | Some(b' ') => report_line(line).is_some(),
        _ => false,
    }
}

/// What a panic-like line says about the test binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Death {
    /// `panic: test timed out after 1s`: go test's `-timeout` alarm.
    Timeout,
    /// `panic: ...` or `fatal error: ...`: the test binary died.
    Crash,
}

/// Recognises the first line of a panic or runtime fatal error (at the start of a line).
pub(crate) fn death_line(line: &str) -> Option<Death> {
    if line.starts_with("panic: test timed out after") {
        Some(Death::Timeout)
    } else if line.starts_with("panic: ") || line.starts_with("fatal error: ") {
        Some(Death::Crash)
    } else {
        None
    }
}

/// A goroutine header (`goroutine 5 [running]:`), which follows a real panic; a test that merely
/// prints `panic: ` has none.
pub(crate) fn is_goroutine_header(line: &str) -> bool {
    line.strip_prefix("goroutine ")
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()) && r.contains(" ["))
}

/// A `go test` package summary line: `ok  \tpkg\t0.01s`, `FAIL\tpkg\t0.01s`,
/// `FAIL\tpkg [build failed]`, `?   \tpkg\t[no test files]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Summary<'a> {
    pub package: &'a str,
    pub verb: SummaryVerb,
    /// The rest of the line after the package (`0.01s`, `(cached)`, `[build failed]`).
    pub rest: &'a str,
}

/// The verb of a [`Summary`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SummaryVerb {
    Ok,
    Fail,
    NoTests,
}

/// Reads a package summary line. go writes a tab after the verb's padding (`ok  \t`, `FAIL\t`,
/// `?   \t`); files that went through a terminal, an editor or a hand copy have spaces instead
/// (`FAIL    pkg [setup failed]`), so any run of blanks is taken, but then the rest of the line
/// must be one of go's own endings (a duration, `(cached)`, `[build failed]`, `[no test files]`,
/// a coverage note), so a test's `FAIL something` print is not read as a package line.
pub(crate) fn summary_line(line: &str) -> Option<Summary<'_>> {
    let (verb, rest) = if let Some(r) = line.strip_prefix("ok") {
        (SummaryVerb::Ok, r)
    } else if let Some(r) = line.strip_prefix("FAIL") {
        (SummaryVerb::Fail, r)
    } else if let Some(r) = line.strip_prefix('?') {
        (SummaryVerb::NoTests, r)
    } else {
        return None;
    };
    let tabbed = match verb {
        SummaryVerb::Ok => rest.starts_with("  \t"),
        SummaryVerb::Fail => rest.starts_with('\t'),
        SummaryVerb::NoTests => rest.starts_with("   \t"),
    };
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let padded = rest.trim_start_matches([' ', '\t']);
    let blanks = rest.len() - padded.len();
    let rest = padded.trim_end();
    let end = rest.find(['\t', ' ']).unwrap_or(rest.len());
    let package = &rest[..end];
    if package.is_empty() {
        return None;
    }
    let tail = rest[end..].trim();
    // Untabbed, the line must still look like go's: a padded verb (a tab expands to 4 or more
    // spaces) or one of go's endings after the package.
    if !tabbed
        && !(go_package_path(package) && go_summary_tail(tail) && (blanks >= 2 || !tail.is_empty()))
    {
        return None;
    }
    Some(Summary {
        package,
        verb,
        rest: tail,
    })
}

/// An import path as go prints it: no control characters, not a sentence's word (`FAIL:`).
fn go_package_path(p: &str) -> bool {
    !p.ends_with(':')
        && p.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '~' | '+'))
}

/// What go writes after the package on a summary line: nothing, a duration (`0.003s`),
/// `(cached)`, a bracketed note (`[build failed]`, `[setup failed]`, `[no test files]`,
/// `[no tests to run]`), or a coverage note, in any order.
fn go_summary_tail(tail: &str) -> bool {
    let mut rest = tail;
    while !rest.is_empty() {
        let word_end = if rest.starts_with('[') {
            rest.find(']').map(|i| i + 1)
        } else if rest.starts_with("coverage:") {
            Some(rest.len())
        } else {
            Some(rest.find([' ', '\t']).unwrap_or(rest.len()))
        };
        let Some(end) = word_end else { return false };
        let word = &rest[..end];
        let ok = word.starts_with('[')
            || word.starts_with("coverage:")
            || word == "(cached)"
            || word
                .strip_suffix('s')
                .is_some_and(|n| !n.is_empty() && n.parse::<f64>().is_ok());
        if !ok {
            return false;
        }
        rest = rest[end..].trim_start();
    }
    true
}

/// The package a `# pkg [pkg.test]` build-output header names.
pub(crate) fn build_header(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("# ")?;
    let pkg = rest.split_whitespace().next()?;
    Some(pkg)
}

/// A failure or skip message made from a test's output.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Described {
    pub message: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub expected: Option<String>,
    pub actual: Option<String>,
}

/// `    file_test.go:16: text`: (indent, file, line, text).
fn location(line: &str) -> Option<(usize, &str, u32, &str)> {
    let trimmed = line.trim_start_matches([' ', '\t']);
    let indent = line.len() - trimmed.len();
    let (head, text) = trimmed.split_once(": ").or_else(|| {
        // A call with an empty message prints `file.go:12:` with nothing after.
        trimmed.strip_suffix(':').map(|h| (h, ""))
    })?;
    let (file, num) = head.rsplit_once(':')?;
    if !file.ends_with(".go")
        || file.contains(char::is_whitespace)
        || num.is_empty()
        || !num.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let line_no = num.parse().ok()?;
    Some((indent, file, line_no, text))
}

/// Removes up to `n` leading spaces (tabs are kept: stack traces use them).
fn dedent(line: &str, n: usize) -> &str {
    let mut i = 0;
    let b = line.as_bytes();
    while i < n && i < b.len() && b[i] == b' ' {
        i += 1;
    }
    &line[i..]
}

/// Turns a test's output (framing lines already left out) into a message: `file.go:NN: `
/// prefixes become the location (the first one) and are removed from the text, the indentation
/// go test adds is removed, and trailing blank lines are dropped.
pub(crate) fn describe(output: &str, want_values: bool) -> Described {
    let mut d = Described::default();
    let mut msg = String::new();
    let mut cont = 4;
    // The first `file.go:NN:` line is the assertion's; stray prints may come before it.
    let mut first_located = None;
    for line in output.lines() {
        let text = match location(line) {
            Some((indent, file, no, text)) => {
                if d.file.is_none() {
                    d.file = Some(file.to_owned());
                    d.line = Some(no);
                    first_located = Some(text);
                }
                cont = indent + 4;
                text
            }
            None => dedent(line, cont),
        };
        if !msg.is_empty() {
            msg.push('\n');
        }
        msg.push_str(text);
    }
    let kept = msg.trim_end().len();
    msg.truncate(kept);
    if want_values && let Some((expected, actual)) = values(&msg, first_located) {
        d.expected = Some(expected);
        d.actual = Some(actual);
    }
    if !msg.is_empty() {
        d.message = Some(msg);
    }
    d
}

/// One-line forms, tried in order; each names which group is expected and which actual.
static VALUE_FORMS: LazyLock<Vec<(Regex, usize, usize)>> = LazyLock::new(|| {
    let forms: [(&str, usize, usize); 4] = [
        // `Add(1, 2) = 3; want 2` (the Go idiom) and `got 3, want 2`.
        (r"^.*? = (.+?); want:? (.+)$", 2, 1),
        (
            r"(?i)(?:^|[\s:;,(])got:? (.+?)[,;] *(?:but )?want(?:ed)?:? (.+)$",
            2,
            1,
        ),
        (
            r"(?i)(?:^|[\s:;,(])expected:? (.+?)(?:[,;] *(?:but )?| but )(?:got|actual):? (.+)$",
            1,
            2,
        ),
        (
            r"(?i)(?:^|[\s:;,(])want(?:ed)?:? (.+?)[,;] *(?:but )?got:? (.+)$",
            1,
            2,
        ),
    ];
    forms
        .iter()
        .filter_map(|(re, e, a)| Regex::new(re).ok().map(|r| (r, *e, *a)))
        .collect()
});

/// Expected and actual values, when the message states them in a form that is not ambiguous:
/// testify's `expected: X` / `actual  : Y` lines, or one of the one-line forms above on the
/// assertion's line (the first located one, else the message's first line).
fn values(msg: &str, line: Option<&str>) -> Option<(String, String)> {
    // testify: `expected: 2` then `actual  : 3`, each on its own line (after tab columns).
    let mut expected = None;
    for line in msg.lines() {
        let t = line.trim();
        if let Some(v) = t.strip_prefix("expected:") {
            expected = Some(v.trim());
        } else if let Some(e) = expected
            && let Some(rest) = t.strip_prefix("actual")
            && let Some(v) = rest.trim_start().strip_prefix(':')
        {
            return Some((e.to_owned(), v.trim().to_owned()));
        }
    }
    let first = line.or_else(|| msg.lines().next())?.trim();
    if first.len() > 4096 {
        return None;
    }
    for (re, e, a) in VALUE_FORMS.iter() {
        if let Some(c) = re.captures(first) {
            let ev = c.get(*e)?.as_str().trim();
            let av = c.get(*a)?.as_str().trim();
            if ev.is_empty() || av.is_empty() {
                return None;
            }
            return Some((ev.to_owned(), av.to_owned()));
        }
    }
    None
}

/// `` `A` has ``, `` `A` and `B` have ``, `` `A`, `B`, `C`, and 3 more have ``.
pub(crate) fn list(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().take(3).map(|n| format!("`{n}`")).collect();
    let mut s = match quoted.as_slice() {
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
        [] => String::new(),
    };
    if names.len() > 3 {
        s = format!("{}, and {} more", quoted.join(", "), names.len() - 3);
    }
    s.push_str(if names.len() == 1 { " has" } else { " have" });
    s
}

pub(crate) fn list_plain(names: &[String], one: &str, many: &str) -> String {
    match names {
        [n] => format!("{one} {n}"),
        _ => format!("{many} {}", names.join(", ")),
    }
}

/// The last `n` non-blank lines of a text, joined with ` / `, at most 1 KiB.
pub(crate) fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    let from = lines.len().saturating_sub(n);
    let mut s = lines[from..].join(" / ");
    if s.is_empty() {
        s = "(no output)".to_owned();
    }
    if s.len() > 1024.min(TEXT_CAP) {
        let mut cut = 1024;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_lines() {
        assert_eq!(
            report_line("--- PASS: TestA (0.00s)"),
            Some((0, Report::Pass, "TestA", Some(0.0)))
        );
        assert_eq!(
            report_line("        --- FAIL: TestA/b_(x) (1.50s)\n"),
            Some((2, Report::Fail, "TestA/b_(x)", Some(1.5)))
        );
        assert_eq!(
            report_line("--- SKIP: TestS"),
            Some((0, Report::Skip, "TestS", None))
        );
        assert_eq!(
            report_line("--- PASS: TestA (0.10 seconds)"),
            Some((0, Report::Pass, "TestA", Some(0.1)))
        );
        assert_eq!(report_line("--- PASSED: x"), None);
        assert_eq!(report_line("    hello"), None);
    }

    #[test]
    fn framing() {
        assert!(is_framing("=== RUN   TestA\n"));
        assert!(is_framing("=== CONT  TestA/b\n"));
        assert!(is_framing("    --- PASS: TestA/b (0.00s)\n"));
        assert!(!is_framing("    calc_test.go:16: x\n"));
        assert!(!is_framing("=== something else\n"));
    }

    #[test]
    fn summaries() {
        let s = summary_line("ok  \texample.com/a\t(cached)\n").unwrap();
        assert_eq!(
            (s.package, s.verb, s.rest),
            ("example.com/a", SummaryVerb::Ok, "(cached)")
        );
        let s = summary_line("FAIL\texample.com/b [build failed]").unwrap();
        assert_eq!(
            (s.package, s.verb, s.rest),
            ("example.com/b", SummaryVerb::Fail, "[build failed]")
        );
        let s = summary_line("?   \texample.com/c\t[no test files]").unwrap();
        assert_eq!(s.verb, SummaryVerb::NoTests);
        assert_eq!(summary_line("FAIL"), None);
        // Spaces where go writes a tab (a terminal or hand copy): read when the rest is go's.
        let s = summary_line("FAIL    github.com/x/example [setup failed]").unwrap();
        assert_eq!(
            (s.package, s.verb, s.rest),
            ("github.com/x/example", SummaryVerb::Fail, "[setup failed]")
        );
        let s = summary_line("ok      package/name/passing1 0.100s").unwrap();
        assert_eq!(
            (s.package, s.verb),
            ("package/name/passing1", SummaryVerb::Ok)
        );
        let s = summary_line("FAIL    package/panic  0.003s").unwrap();
        assert_eq!((s.package, s.rest), ("package/panic", "0.003s"));
        assert_eq!(summary_line("FAIL this test broke"), None);
        assert_eq!(summary_line("ok so far"), None);
        assert_eq!(summary_line("FAIL it"), None);
        assert_eq!(summary_line("okay\tx"), None);
    }

    #[test]
    fn messages_keep_location_apart() {
        let d = describe("    calc_test.go:16: Add(1, 2) = 3; want 2\n", true);
        assert_eq!(d.message.as_deref(), Some("Add(1, 2) = 3; want 2"));
        assert_eq!(
            (d.file.as_deref(), d.line),
            (Some("calc_test.go"), Some(16))
        );
        assert_eq!(
            (d.expected.as_deref(), d.actual.as_deref()),
            (Some("2"), Some("3"))
        );
        let d = describe(
            "    x_test.go:9: first\n        second\n    x_test.go:10: third\n",
            true,
        );
        assert_eq!(d.message.as_deref(), Some("first\nsecond\nthird"));
        assert_eq!(d.line, Some(9));
        assert_eq!(d.expected, None);
    }

    #[test]
    fn values_forms() {
        let v = |m: &str| values(m, None);
        assert_eq!(v("got 3, want 2"), Some(("2".into(), "3".into())));
        assert_eq!(v("expected 2, got 3"), Some(("2".into(), "3".into())));
        assert_eq!(
            v("Expected \"a\" but got \"b\""),
            Some(("\"a\"".into(), "\"b\"".into()))
        );
        assert_eq!(v("want 1; got 4"), Some(("1".into(), "4".into())));
        assert_eq!(
            v("Greet(\"World\") = \"hello, world\"; want \"Hello, World!\""),
            Some(("\"Hello, World!\"".into(), "\"hello, world\"".into()))
        );
        assert_eq!(
            v("Error Trace:\tx.go:1\nError:\tNot equal:\n\texpected: 2\n\tactual  : 3"),
            Some(("2".into(), "3".into()))
        );
        assert_eq!(v("unexpected error: boom"), None);
        assert_eq!(v("we got here"), None);
    }

    #[test]
    fn deaths() {
        assert_eq!(
            death_line("panic: test timed out after 1s\n"),
            Some(Death::Timeout)
        );
        assert_eq!(death_line("panic: boom [recovered]\n"), Some(Death::Crash));
        assert_eq!(
            death_line("fatal error: concurrent map writes"),
            Some(Death::Crash)
        );
        assert_eq!(death_line("    panic: nested"), None);
        assert!(is_goroutine_header("goroutine 5 [running]:\n"));
        assert!(!is_goroutine_header("goroutine leak detected"));
    }
}
