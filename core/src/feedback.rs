//! Hardening-loop feedback (spec §4.4): what the implementer may see of the failed sealed tests —
//! name, category, expected, actual, message — mechanically scrubbed of the sealed tests' source.
//!
//! [`SealedSource`] ([`crate::sealed_source`], shared with `gapscore check`'s leak scan) holds
//! the lines and file names of the sealed directory (the caller reads the files); [`scrub`] removes ANSI codes, drops stack frames and `file:line` locations that
//! point into the sealed files, and replaces every line that contains a line of sealed source;
//! [`build_feedback`] applies a [`Reveal`] level to failure entries; [`render_feedback_text`]
//! writes the text form pipelines already consume (`SEALED TEST FAILURES:` ...).

use std::fmt;

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use gapscore_adapter_sdk::text::strip_ansi;
use gapscore_model::Category;

pub use crate::sealed_source::{DEFAULT_MIN_LINE_LEN, SealedSource, SourceMatch};

/// How much of each failure the implementer sees; each level includes the ones before it.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Reveal {
    /// Only how many sealed tests failed.
    Count,
    /// Plus each failed test's name.
    Name,
    /// Plus its category.
    Category,
    /// Plus its failure message (scrubbed).
    Message,
    /// Plus what it expected and what it got (scrubbed): spec v2 §4.4.1 `failure_messages`, the
    /// default.
    #[default]
    Assertion,
    /// Plus the assertion lines of its failure output (pytest's `E ...` lines, Jest's
    /// `expect(...)`/`Expected`/`Received` lines, Go's `got`/`want` lines), scrubbed: spec v2
    /// §4.4.1 `assertions`, for the final cycle.
    Assertions,
}

/// The disclosure levels of spec v2 §4.4.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Disclosure {
    /// Test name, expected, actual, message (the default; v1.0.0's behaviour).
    FailureMessages,
    /// The above plus the text of the failing assertion.
    Assertions,
}

impl Disclosure {
    /// The §4.4.1 name.
    pub fn as_str(self) -> &'static str {
        match self {
            Disclosure::FailureMessages => "failure_messages",
            Disclosure::Assertions => "assertions",
        }
    }

    /// The gapscore level that discloses exactly this.
    pub fn reveal(self) -> Reveal {
        match self {
            Disclosure::FailureMessages => Reveal::Assertion,
            Disclosure::Assertions => Reveal::Assertions,
        }
    }
}

impl Reveal {
    /// The name used on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Reveal::Count => "count",
            Reveal::Name => "name",
            Reveal::Category => "category",
            Reveal::Message => "message",
            Reveal::Assertion => "assertion",
            Reveal::Assertions => "assertions",
        }
    }

    /// The §4.4.1 level this one amounts to: `count` to `assertion` disclose at most
    /// `failure_messages` (the lower ones a part of it), `assertions` is `assertions`.
    pub fn disclosure(self) -> Disclosure {
        if self == Reveal::Assertions {
            Disclosure::Assertions
        } else {
            Disclosure::FailureMessages
        }
    }

    /// The value of the v2 report schema's `hardening.max_reveal` (enum `count`, `name`,
    /// `category`, `message`, `assertion`): the schema's `message` is §4.4.1's
    /// `failure_messages` (name, expected, actual, message), so gapscore's `assertion` is
    /// `message` there, and the schema's `assertion` is §4.4.1's `assertions`.
    pub fn v2_max_reveal(self) -> &'static str {
        match self {
            Reveal::Count => "count",
            Reveal::Name => "name",
            Reveal::Category => "category",
            Reveal::Message | Reveal::Assertion => "message",
            Reveal::Assertions => "assertion",
        }
    }

    /// Reads a v2 schema `max_reveal` value or a §4.4.1 level name. A v2 `message` may have
    /// included expected and actual values, so it reads as the level that does (`assertion`).
    pub fn from_v2(name: &str) -> Option<Reveal> {
        Some(match name {
            "count" => Reveal::Count,
            "name" => Reveal::Name,
            "category" => Reveal::Category,
            "message" | "failure_messages" => Reveal::Assertion,
            "assertion" | "assertions" => Reveal::Assertions,
            _ => return None,
        })
    }

    /// The level written to a v2.0.0 report's `max_reveal`, whose serialised name is the v2
    /// schema's value ([`Reveal::v2_max_reveal`]): gapscore's `assertion` is written as `message`,
    /// `assertions` as `assertion`.
    pub fn v2_report_level(self) -> Reveal {
        match self {
            Reveal::Assertion => Reveal::Message,
            Reveal::Assertions => Reveal::Assertion,
            other => other,
        }
    }

    /// The level written to a v1.0.0 report's `max_reveal`, whose values are gapscore's first
    /// five levels: `assertions` is written as the highest of them, `assertion`.
    pub fn v1_max_reveal(self) -> Reveal {
        self.min(Reveal::Assertion)
    }
}

impl fmt::Display for Reveal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A scrubbed text and what was taken out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scrubbed {
    /// The text.
    pub text: String,
    /// Lines replaced because they contain sealed source.
    pub redacted: usize,
    /// Stack frames dropped and locations replaced because they point into sealed files.
    pub locations: usize,
}

const MARKERS: [&str; 3] = ["[redacted: sealed source]", "[redacted]", "[…]"];

/// Scrubs one text for the implementer. Without a [`SealedSource`], only ANSI codes go.
pub fn scrub(text: &str, source: Option<&mut SealedSource>) -> Scrubbed {
    let plain = strip_ansi(text).into_owned();
    let Some(source) = source else {
        return Scrubbed {
            text: plain,
            ..Scrubbed::default()
        };
    };
    source.prepare();
    let source = &*source;
    // The marker itself must not contain a line of sealed source.
    let marker = MARKERS
        .iter()
        .find(|m| !source.contains_source(m))
        .copied()
        .unwrap_or("");
    let mut out = Scrubbed::default();
    let mut lines = Vec::new();
    for line in plain.lines() {
        // Source first: a stack frame or a location can carry a line of source with it
        // (`at test_calc.py:5 assert add(1, 2) == 2`), and must not hide it from the count.
        if source.contains_source(line) {
            out.redacted += 1;
            let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
            lines.push(format!("{indent}{marker}"));
            continue;
        }
        let mut line = line.to_owned();
        if let Some(loc) = source.location()
            && loc.is_match(&line)
        {
            let t = line.trim_start();
            // A whole stack frame into a sealed file goes; elsewhere only the location does.
            if t.starts_with("at ") || t.starts_with("File \"") || t.starts_with("File '") {
                out.locations += 1;
                continue;
            }
            out.locations += loc.find_iter(&line).count();
            line = loc.replace_all(&line, "[sealed test]").into_owned();
        }
        // The same decision as `gapscore check`'s scan: encoded source (escaped in a repr,
        // base64) goes as well.
        if source.source_in_decoded(&line).is_some() {
            out.redacted += 1;
            let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
            lines.push(format!("{indent}{marker}"));
        } else {
            lines.push(line);
        }
    }
    out.text = lines.join("\n");
    // What no one line holds the whole text may (a line broken over several, a wrapped
    // encoding): then the whole text goes, so what the scrubber keeps the scan accepts.
    if source.source_in_decoded(&out.text).is_some() {
        out.redacted += 1;
        out.text = marker.to_owned();
    }
    out
}

/// One failed sealed test as the report lists it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FailureInput {
    /// Its name.
    pub name: String,
    /// Its category.
    pub category: Option<Category>,
    /// What it expected.
    pub expected: Option<String>,
    /// What it got.
    pub actual: Option<String>,
    /// Its message.
    pub message: Option<String>,
}

/// One failure as the implementer sees it: only the fields the reveal level allows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FeedbackItem {
    /// The test's name (from `name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its category (from `category`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<Category>,
    /// Its failure message, scrubbed (from `message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What it expected, scrubbed (at `assertion`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// What it got, scrubbed (at `assertion`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// The assertion lines of its failure output, scrubbed (at `assertions`; see
    /// [`assertion_lines`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertion: Option<String>,
}

/// The assertion lines of a failure output, in order: pytest's `E   ...` lines, Jest's
/// `expect(...)`, `Expected:`/`Received:` and `- Expected`/`+ Received` diff lines, Go's
/// `got`/`want` lines, Rust's `assertion ... failed` with its `left:`/`right:` lines, and any
/// line reading `AssertionError`, `assert ...`, `expected ...` or `actual ...`. Everything else
/// (tracebacks, source excerpts, logs) is left out.
pub fn assertion_lines(text: &str) -> Vec<&str> {
    static RULES: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let re = RULES.get_or_init(|| {
        Regex::new(concat!(
            r"^(?:",
            r"E(?:\s|$)",                             // pytest
            r"|(?:\w*Error:\s+)?expect[(.]",          // Jest matcher line
            r"|(?:Expected|Received)(?:\s+\w+)*\s*:", // Jest values
            r"|[-+]\s+(?:Expected|Received)\b",       // Jest diff header
            r"|(?:Difference|Number of calls)\b",
            r"|assertion\b.*\bfailed", // Rust
            r"|(?:left|right)\s*:",
            r"|(?:\w+Error|AssertionError|assert)\b",
            r"|(?:expected|actual|got|want)\b",
            r")|\b(?:got|want|wanted)\b\s*[:=]?\s*\S", // Go's `...; want 3`
        ))
        .expect("the assertion-line pattern compiles")
    });
    let mut out = Vec::new();
    let mut in_diff = false;
    for line in text.lines() {
        let t = line.trim_start();
        // Jest prints the two sides of a diff after `- Expected` / `+ Received`.
        if in_diff && (t.starts_with("- ") || t.starts_with("+ ") || t.starts_with("  ")) {
            out.push(line);
            continue;
        }
        in_diff = false;
        if re.is_match(t) {
            if t.starts_with("+ Received") || t.starts_with("- Expected") {
                in_diff = true;
            }
            out.push(line);
        }
    }
    out
}

/// The feedback payload.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Feedback {
    /// The reveal level applied.
    pub reveal: Reveal,
    /// Failed sealed tests (failure entries, run-level problems included).
    pub failed: u64,
    /// Sealed tests counted.
    pub total: u64,
    /// One entry per failure (empty at `count`).
    pub failures: Vec<FeedbackItem>,
    /// Lines replaced because they contained sealed source.
    pub redacted_lines: usize,
    /// Stack frames and locations into sealed files removed.
    pub removed_locations: usize,
    /// False when no sealed source was given: nothing could be checked for leaks.
    pub source_checked: bool,
}

/// Applies a reveal level and scrubs every field shown.
pub fn build_feedback(
    failures: &[FailureInput],
    total: u64,
    reveal: Reveal,
    mut source: Option<&mut SealedSource>,
) -> Feedback {
    let mut fb = Feedback {
        reveal,
        failed: failures.len() as u64,
        total,
        source_checked: source.is_some(),
        ..Feedback::default()
    };
    if reveal == Reveal::Count {
        return fb;
    }
    for f in failures {
        let mut clean = |text: &Option<String>| -> Option<String> {
            let t = text.as_deref()?;
            let s = scrub(t, source.as_deref_mut());
            fb.redacted_lines += s.redacted;
            fb.removed_locations += s.locations;
            Some(s.text).filter(|t| !t.trim().is_empty())
        };
        let mut item = FeedbackItem {
            name: clean(&Some(f.name.clone())),
            ..FeedbackItem::default()
        };
        if reveal >= Reveal::Category {
            // `unknown` says nothing the implementer could use.
            item.category = f.category.filter(|c| *c != Category::Unknown);
        }
        if reveal >= Reveal::Message {
            item.message = clean(&f.message);
        }
        if reveal >= Reveal::Assertion {
            item.expected = clean(&f.expected);
            item.actual = clean(&f.actual);
        }
        if reveal >= Reveal::Assertions {
            let lines = f
                .message
                .as_deref()
                .map(assertion_lines)
                .unwrap_or_default();
            item.assertion = clean(&(!lines.is_empty()).then(|| lines.join("\n")));
        }
        fb.failures.push(item);
    }
    fb
}

/// The text form: `SEALED TEST FAILURES: N of T sealed tests failed`, then one `- name: expected
/// X, got Y` entry per failure with its message indented below.
pub fn render_feedback_text(fb: &Feedback) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "SEALED TEST FAILURES: {} of {} sealed test{} failed",
        fb.failed,
        fb.total,
        if fb.total == 1 { "" } else { "s" }
    );
    for f in &fb.failures {
        let mut head = format!("- {}", f.name.as_deref().unwrap_or("(unnamed)"));
        if let Some(c) = f.category {
            let _ = write!(head, " [{c}]");
        }
        match (&f.expected, &f.actual) {
            (Some(e), Some(a)) => {
                let _ = write!(head, ": expected {}, got {}", one_line(e), one_line(a));
            }
            (Some(e), None) => {
                let _ = write!(head, ": expected {}", one_line(e));
            }
            (None, Some(a)) => {
                let _ = write!(head, ": got {}", one_line(a));
            }
            (None, None) => {}
        }
        let _ = writeln!(out, "{head}");
        if let Some(m) = &f.message {
            for line in m.lines() {
                let _ = writeln!(out, "    {line}");
            }
        }
        if let Some(a) = &f.assertion {
            let _ = writeln!(out, "    assertion:");
            for line in a.lines() {
                let _ = writeln!(out, "      {line}");
            }
        }
    }
    if fb.redacted_lines > 0 || fb.removed_locations > 0 {
        let _ = writeln!(
            out,
            "({} line{} of sealed source redacted, {} location{} in sealed files removed)",
            fb.redacted_lines,
            if fb.redacted_lines == 1 { "" } else { "s" },
            fb.removed_locations,
            if fb.removed_locations == 1 { "" } else { "s" }
        );
    }
    // The text quotes the implementation's messages: made inert to GitHub's runner.
    crate::runner_commands::inert_plain_owned(out)
}

fn one_line(s: &str) -> String {
    let mut lines = s.lines();
    let first = lines.next().unwrap_or("").trim().to_owned();
    if lines.next().is_some() {
        format!("{first} …")
    } else {
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEALED: &str = "import pytest\nfrom app import greet\n\ndef test_greet():\n    assert greet(\"World\") == \"Hello, World!\"\n";

    fn source() -> SealedSource {
        let mut s = SealedSource::new(DEFAULT_MIN_LINE_LEN);
        s.add_file("tests/test_greet.py", SEALED.as_bytes());
        s
    }

    /// Issue 33 (attack B11): what the scrubber keeps, `gapscore check`'s scan accepts. A
    /// pytest repr escapes a sealed line (`It\'s a "fine" day`), an output is base64: both
    /// were kept, and the honest report that carried them was rejected.
    #[test]
    fn encoded_sealed_lines_go_as_the_check_would_find_them() {
        let mut src = SealedSource::new(DEFAULT_MIN_LINE_LEN);
        src.add_file(
            "test_banner.py",
            b"EXPECTED = \"\"\"\nIt's a \"fine\" day\nAttack at dawn, bring snacks\n\"\"\"\n",
        );
        let repr = "E       AssertionError: assert 'Welcome!\\n' == '\\nIt\\'s a \"fine\" day\\n'";
        let b64 = "got QXR0YWNrIGF0IGRhd24sIGJyaW5nIHNuYWNrcwo= instead";
        let wrapped = "QXR0YWNrIGF0IGRh\nd24sIGJyaW5nIHNuYWNrcwo=";
        for message in [repr, b64, wrapped] {
            assert!(src.source_in_decoded(message).is_some(), "{message}");
            let s = scrub(message, Some(&mut src));
            assert!(s.redacted > 0, "{message}");
            assert_eq!(src.source_in_decoded(&s.text), None, "{}", s.text);
        }
        let plain = "E       AssertionError: assert 'Welcome!' == 'Goodbye'";
        assert_eq!(scrub(plain, Some(&mut src)).text, plain);
    }

    #[test]
    fn a_pytest_traceback_loses_its_source_lines_and_locations() {
        let message = "def test_greet():\n>       assert greet(\"World\") == \"Hello, World!\"\nE       AssertionError: assert 'hello, world' == 'Hello, World!'\n\ntests/test_greet.py:5: AssertionError";
        let mut src = source();
        let s = scrub(message, Some(&mut src));
        assert!(!s.text.contains("assert greet(\"World\")"), "{}", s.text);
        assert!(!s.text.contains("def test_greet():"), "{}", s.text);
        assert!(
            s.text
                .contains("E       AssertionError: assert 'hello, world' == 'Hello, World!'")
        );
        assert!(
            s.text.contains("[sealed test]: AssertionError"),
            "{}",
            s.text
        );
        assert_eq!((s.redacted, s.locations), (2, 1));
    }

    #[test]
    fn stack_frames_into_sealed_files_are_dropped() {
        let mut src = SealedSource::new(DEFAULT_MIN_LINE_LEN);
        src.add_file(
            "greet.test.js",
            b"expect(greet('World')).toBe('Hello, World!');\n",
        );
        let message = "Error: expect(received).toBe(expected)\n    at Object.<anonymous> (/work/sealed/greet.test.js:3:27)\n    at processTicksAndRejections (node:internal/process/task_queues:95:5)";
        let s = scrub(message, Some(&mut src));
        assert_eq!(
            s.text,
            "Error: expect(received).toBe(expected)\n    at processTicksAndRejections (node:internal/process/task_queues:95:5)"
        );
        assert_eq!(s.locations, 1);
    }

    #[test]
    fn a_frame_or_location_carrying_source_is_redacted_as_source() {
        for message in [
            "    at test_greet.py:5 assert greet(\"World\") == \"Hello, World!\"",
            "  File \"tests/test_greet.py\", line 5, in test_greet: assert greet(\"World\") == \"Hello, World!\"",
            "assert greet(\"World\") == \"Hello, World!\"tests/test_greet.py:5",
            "ASSERT  greet(\"Wоrld\")==\"Hello,\u{a0}World!\"",
        ] {
            let mut src = source();
            let s = scrub(message, Some(&mut src));
            assert_eq!(s.redacted, 1, "{message:?} -> {:?}", s.text);
            assert!(s.text.trim() == "[redacted: sealed source]", "{:?}", s.text);
        }
    }

    #[test]
    fn reveal_levels_show_only_their_fields() {
        let failures = [FailureInput {
            name: "test_greet".into(),
            category: Some(Category::HappyPath),
            expected: Some("Hello, World!".into()),
            actual: Some("hello, world".into()),
            message: Some("assert greet(\"World\") == \"Hello, World!\"".into()),
        }];
        let mut src = source();
        let count = build_feedback(&failures, 10, Reveal::Count, Some(&mut src));
        assert!(count.failures.is_empty());
        let name = build_feedback(&failures, 10, Reveal::Name, Some(&mut src));
        assert_eq!(name.failures[0].category, None);
        let msg = build_feedback(&failures, 10, Reveal::Message, Some(&mut src));
        assert_eq!(
            msg.failures[0].message.as_deref(),
            Some("[redacted: sealed source]")
        );
        assert_eq!(msg.failures[0].expected, None);
        let all = build_feedback(&failures, 10, Reveal::Assertion, Some(&mut src));
        let text = render_feedback_text(&all);
        assert!(text.starts_with("SEALED TEST FAILURES: 1 of 10 sealed tests failed\n- test_greet [happy_path]: expected Hello, World!, got hello, world\n"), "{text}");
        assert!(text.contains("1 line of sealed source redacted"), "{text}");
    }

    #[test]
    fn assertion_lines_are_those_of_the_runners() {
        let pytest = "def test_greet():\n>       assert greet(\"World\") == \"Hello, World!\"\nE       AssertionError: assert 'hello, world' == 'Hello, World!'\nE         - Hello, World!\n\ntests/test_greet.py:5: AssertionError";
        assert_eq!(
            assertion_lines(pytest),
            [
                "E       AssertionError: assert 'hello, world' == 'Hello, World!'",
                "E         - Hello, World!"
            ]
        );
        let jest = "Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: \"Hello, World!\"\nReceived: \"hello\"\n    at Object.<anonymous> (greet.test.js:3:27)";
        assert_eq!(
            assertion_lines(jest),
            [
                "Error: expect(received).toBe(expected) // Object.is equality",
                "Expected: \"Hello, World!\"",
                "Received: \"hello\""
            ]
        );
        let go = "=== RUN   TestAdd\n    add_test.go:12: Add(1, 2) = 4; want 3\n--- FAIL: TestAdd (0.00s)";
        assert_eq!(
            assertion_lines(go),
            ["    add_test.go:12: Add(1, 2) = 4; want 3"]
        );
        // At `assertions` the lines come scrubbed, with the level's other fields.
        let failures = [FailureInput {
            name: "test_greet".into(),
            message: Some(pytest.into()),
            ..FailureInput::default()
        }];
        let mut src = source();
        let fb = build_feedback(&failures, 3, Reveal::Assertions, Some(&mut src));
        assert_eq!(
            fb.failures[0].assertion.as_deref(),
            Some(
                "E       AssertionError: assert 'hello, world' == 'Hello, World!'\nE         - Hello, World!"
            )
        );
        assert_eq!(Reveal::Assertions.v2_max_reveal(), "assertion");
        assert_eq!(Reveal::Assertion.v2_max_reveal(), "message");
        for r in [
            Reveal::Count,
            Reveal::Name,
            Reveal::Category,
            Reveal::Message,
            Reveal::Assertion,
            Reveal::Assertions,
        ] {
            assert_eq!(r.v2_report_level().as_str(), r.v2_max_reveal(), "{r:?}");
        }
        assert_eq!(Reveal::from_v2("message"), Some(Reveal::Assertion));
        assert_eq!(Reveal::from_v2("assertions"), Some(Reveal::Assertions));
        assert_eq!(Reveal::Name.disclosure(), Disclosure::FailureMessages);
        assert_eq!(Disclosure::Assertions.reveal(), Reveal::Assertions);
    }

    #[test]
    fn the_marker_never_repeats_a_sealed_line() {
        let mut src = SealedSource::new(5);
        src.add_file("t.py", b"redacted: sealed source\n");
        let s = scrub("redacted: sealed source", Some(&mut src));
        assert_eq!(s.text, "[redacted]");
    }

    /// Generated sources and messages: no output line ever contains a line of sealed source.
    #[test]
    fn feedback_never_contains_a_sealed_line() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let words = [
            "assert",
            "expect",
            "greet",
            "World",
            "==",
            "(",
            ")",
            "toBe",
            "value",
            "x",
            "[1]",
            "ünï",
            "名前",
            "'q'",
            "\"d\"",
            "\\",
            "  ",
            "redacted:",
            "sealed",
            "source]",
        ];
        for round in 0..200 {
            let mut make_line = |n: usize| -> String {
                (0..n)
                    .map(|_| words[(next() % words.len() as u64) as usize])
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let sealed: Vec<String> = (0..8).map(|i| make_line(2 + i % 5)).collect();
            let mut message_lines: Vec<String> = (0..6).map(|i| make_line(1 + i % 4)).collect();
            for (i, l) in sealed.iter().enumerate().step_by(2) {
                message_lines.insert(i % message_lines.len(), format!(">    {l}  // at line {i}"));
            }
            let min = 4 + round % 8;
            let mut src = SealedSource::new(min);
            src.add_file("sealed_test.py", sealed.join("\n").as_bytes());
            let out = scrub(&message_lines.join("\n"), Some(&mut src));
            for line in out.text.lines() {
                for s in sealed
                    .iter()
                    .map(|s| s.trim())
                    .filter(|s| s.chars().count() >= min)
                {
                    assert!(!line.contains(s), "round {round}: {line:?} contains {s:?}");
                }
            }
        }
    }
}
