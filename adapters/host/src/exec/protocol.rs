//! The executable adapter protocol's messages: the info document a program prints for
//! `--gapscore-info`, and the NDJSON event lines it writes while parsing, each checked and turned
//! into an [`EventSink`] call. docs/abi.md ("Executable adapters") is the contract.

use std::borrow::Cow;

use gapscore_adapter_sdk::detect::Why;
use gapscore_adapter_sdk::text::{TEXT_CAP, push_capped};
use gapscore_adapter_sdk::{
    Attempt, Category, EventSink, Problem, Producer, Status, TestCase, TestCaseRef,
};
use serde::Deserialize;

/// The protocol version this host speaks (`"gapscore_exec_adapter": 1` in the info document).
pub const EXEC_PROTOCOL_VERSION: u64 = 1;

/// What `CMD --gapscore-info` prints: one JSON object.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Info {
    pub gapscore_exec_adapter: u64,
    pub name: String,
    pub version: String,
    pub formats: Vec<String>,
    #[serde(default)]
    pub detect: Vec<DetectRule>,
}

/// A detection rule as written in the info document: it matches when every condition it
/// names holds; the adapter's confidence for a file is the highest of its matching rules, 0
/// when none matches. Compiled into a [`Rule`] at load.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DetectRule {
    pub confidence: u8,
    /// The file name ends with this.
    #[serde(default)]
    pub file_suffix: Option<String>,
    /// The first 64 KiB of the file contain this string, or every string of this array (as
    /// UTF-8).
    #[serde(default)]
    pub prefix_contains: Option<OneOrMany>,
    /// The first 64 KiB of the file match this regular expression (the `regex` crate's
    /// syntax, on bytes; compiled once, at load, with a size limit).
    #[serde(default)]
    pub prefix_regex: Option<String>,
}

/// `prefix_contains`: one string, or several that must all occur.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(super) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// The largest compiled program a `prefix_regex` may become (the `regex` crate's size limits):
/// the pattern is the adapter author's, but a huge one must not cost every file's detection.
pub const REGEX_SIZE_LIMIT: usize = 1024 * 1024;

/// A detection rule, checked and compiled.
#[derive(Debug, Clone)]
pub(super) struct Rule {
    pub confidence: u8,
    file_suffix: Option<String>,
    prefix_contains: Vec<String>,
    prefix_regex: Option<regex::bytes::Regex>,
}

impl Rule {
    /// Checks and compiles `detect[index]`; the error is the reason, naming the rule.
    fn compile(index: usize, r: &DetectRule) -> Result<Rule, String> {
        if r.confidence > 100 {
            return Err(format!(
                "detect[{index}].confidence is {} (0 to 100)",
                r.confidence
            ));
        }
        let contains: Vec<String> = match &r.prefix_contains {
            None => Vec::new(),
            Some(OneOrMany::One(s)) => vec![s.clone()]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect(),
            Some(OneOrMany::Many(v)) => {
                if v.is_empty() || v.iter().any(String::is_empty) {
                    return Err(format!(
                        "detect[{index}].prefix_contains is an empty array or holds an empty string"
                    ));
                }
                v.clone()
            }
        };
        let regex = match r.prefix_regex.as_deref() {
            None | Some("") => None,
            Some(pattern) => Some(
                regex::bytes::RegexBuilder::new(pattern)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .dfa_size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map_err(|e| {
                        format!(
                            "detect[{index}].prefix_regex is not a valid regular expression: {}",
                            e.to_string().replace('\n', "\n    ")
                        )
                    })?,
            ),
        };
        let suffix = r.file_suffix.clone().filter(|s| !s.is_empty());
        if suffix.is_none() && contains.is_empty() && regex.is_none() {
            return Err(format!(
                "detect[{index}] names no condition (file_suffix, prefix_contains or prefix_regex)"
            ));
        }
        Ok(Rule {
            confidence: r.confidence,
            file_suffix: suffix,
            prefix_contains: contains,
            prefix_regex: regex,
        })
    }

    /// Whether every condition holds (checked in order, stopping at the first that fails),
    /// recording each one checked in `why`.
    pub fn matches(
        &self,
        index: usize,
        prefix: &[u8],
        file_name: Option<&str>,
        why: &mut Why,
    ) -> bool {
        let suffix_ok = self.file_suffix.as_deref().is_none_or(|s| {
            why.check_with(
                || format!("detect[{index}]: the file name ends with {s:?}"),
                file_name.is_some_and(|n| n.ends_with(s)),
            )
        });
        suffix_ok
            && self.prefix_contains.iter().all(|p| {
                why.check_with(
                    || format!("detect[{index}]: the first 64 KiB contain {p:?}"),
                    memchr::memmem::find(prefix, p.as_bytes()).is_some(),
                )
            })
            && self.prefix_regex.as_ref().is_none_or(|re| {
                why.check_with(
                    || format!("detect[{index}]: the first 64 KiB match /{}/", re.as_str()),
                    re.is_match(prefix),
                )
            })
    }
}

impl Info {
    /// Checks what the host relies on; the error is the reason, for a message naming the command.
    pub fn check(&self) -> Result<(), String> {
        if self.gapscore_exec_adapter != EXEC_PROTOCOL_VERSION {
            return Err(format!(
                "speaks executable adapter protocol v{} (this gapscore speaks v{EXEC_PROTOCOL_VERSION})",
                self.gapscore_exec_adapter
            ));
        }
        if !gapscore_adapter_sdk::abi::is_valid_name(&self.name) {
            return Err(format!(
                "invalid adapter name `{}` (expected [a-z0-9][a-z0-9_-]*, at most 64 bytes)",
                self.name
            ));
        }
        if self.version.is_empty() || self.version.len() > 256 {
            return Err("version must be 1 to 256 bytes".to_owned());
        }
        if self.formats.is_empty() || self.formats.len() > 64 {
            return Err(format!(
                "{} format ids (expected 1 to 64)",
                self.formats.len()
            ));
        }
        for (i, f) in self.formats.iter().enumerate() {
            if f.is_empty() || f.len() > 64 || f.chars().any(char::is_whitespace) {
                return Err(format!(
                    "invalid format id `{f}` (1 to 64 bytes, no whitespace)"
                ));
            }
            if self.formats[..i].contains(f) {
                return Err(format!("format id `{f}` is listed twice"));
            }
        }
        Ok(())
    }

    /// The detection rules, checked and compiled; the error names the first bad rule.
    pub fn rules(&self) -> Result<Vec<Rule>, String> {
        self.detect
            .iter()
            .enumerate()
            .map(|(i, r)| Rule::compile(i, r))
            .collect()
    }
}

/// A string of an event line: borrowed from the line when it has no escapes, so a passing
/// test's id, suite and name cost no allocation on their way to the sink.
#[derive(Debug, Default)]
struct Text<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// A `test_finished` event's test as written on the line: the members, defaults and types of
/// [`TestCase`]'s serde form (the protocol's contract), its strings [`Text`]s.
#[derive(Debug, Deserialize)]
struct WireTest<'a> {
    /// A `String` in [`TestCase`]: when present, a string (`null` is refused there too).
    #[serde(default, borrow)]
    id: Text<'a>,
    #[serde(default, borrow)]
    suite: Option<Text<'a>>,
    #[serde(borrow)]
    name: Text<'a>,
    status: Status,
    #[serde(default)]
    duration: Option<f64>,
    #[serde(default, borrow)]
    message: Option<Text<'a>>,
    #[serde(default, borrow)]
    expected: Option<Text<'a>>,
    #[serde(default, borrow)]
    actual: Option<Text<'a>>,
    #[serde(default)]
    category: Option<Category>,
    #[serde(default, borrow)]
    file: Option<Text<'a>>,
    #[serde(default)]
    line: Option<u32>,
    /// Read since protocol 1 was first published (an older host ignored it, as any unknown
    /// member): an isolated v2 plugin's tests carry it.
    #[serde(default, borrow)]
    decided_at: Option<Text<'a>>,
    #[serde(default, borrow)]
    output: Option<Text<'a>>,
    #[serde(default)]
    attempts: Vec<Attempt>,
    #[serde(default)]
    parent: bool,
    #[serde(default, borrow)]
    parent_id: Option<Text<'a>>,
}

fn text<'a>(t: &'a Option<Text<'_>>) -> Option<&'a str> {
    t.as_ref().map(|t| &*t.0)
}

/// A text as the sink sees it: the line's string when it fits the cap, otherwise a copy cut
/// at the cap, kept in `slot`.
fn capped_ref<'a>(t: &'a Option<Text<'_>>, slot: &'a mut Option<String>) -> Option<&'a str> {
    match text(t) {
        Some(s) if s.len() > TEXT_CAP => {
            let mut c = String::new();
            push_capped(&mut c, s);
            *slot = Some(c);
            slot.as_deref()
        }
        other => other,
    }
}

/// One event line.
// One lives at a time, on the stack, per line read: boxing the large variant would add an
// allocation to every test.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum Event<'a> {
    Producer {
        name: String,
        #[serde(default)]
        version: Option<String>,
    },
    TestStarted {
        #[serde(default)]
        suite: Option<String>,
        name: String,
        #[serde(default)]
        id: Option<String>,
    },
    TestFinished {
        #[serde(borrow)]
        test: WireTest<'a>,
    },
    Problem {
        problem: Problem,
    },
    Warning {
        message: String,
        /// The warning's registry code; absent, or one this gapscore does not know, is
        /// `W001` (`Code::lenient`).
        #[serde(default)]
        code: Option<String>,
    },
    Error {
        message: String,
        #[serde(default)]
        line: Option<u64>,
        #[serde(default)]
        column: Option<u64>,
        #[serde(default)]
        offset: Option<u64>,
    },
    End {
        tests: u64,
    },
}

/// The input error an adapter reported with an `error` event.
#[derive(Debug, Clone)]
pub(super) struct ReportedError {
    pub message: String,
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub offset: Option<u64>,
}

/// The state of one event stream.
#[derive(Debug, Default)]
pub(super) struct Stream {
    /// Lines read so far (the number of the line being handled, once it is).
    pub line: u64,
    /// `test_finished` events so far.
    pub tests: u64,
    /// The `end` event's count, once seen.
    pub ended: Option<u64>,
    /// The `error` event, once seen.
    pub error: Option<ReportedError>,
}

fn capped(s: Option<String>) -> Option<String> {
    s.map(|s| {
        if s.len() <= TEXT_CAP {
            s
        } else {
            let mut t = String::new();
            push_capped(&mut t, &s);
            t
        }
    })
}

impl Stream {
    /// Handles one line (without its `\n`): `Err` is the reason it is rejected.
    pub fn handle(&mut self, line: &[u8], sink: &mut dyn EventSink) -> Result<(), String> {
        self.line += 1;
        if self.ended.is_some() {
            return Err("output after the `end` event".to_owned());
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let event: Event =
            serde_json::from_slice(line).map_err(|e| format!("invalid event: {e}"))?;
        match event {
            Event::Producer { name, version } => {
                let mut p = Producer::new(name);
                p.version = version;
                sink.producer(p);
            }
            Event::TestStarted { suite, name, id } => {
                let id = id
                    .filter(|i| !i.is_empty())
                    .unwrap_or_else(|| TestCase::make_id(suite.as_deref(), &name));
                sink.test_started(suite.as_deref(), &name, &id);
            }
            Event::TestFinished { test } => {
                if let Some(d) = test.duration
                    && !(d.is_finite() && d >= 0.0)
                {
                    return Err(format!("duration {d} is not a number of seconds ≥ 0"));
                }
                let (suite, name) = (text(&test.suite), &*test.name.0);
                let derived;
                let id = match &*test.id.0 {
                    "" => {
                        derived = TestCase::make_id(suite, name);
                        &derived
                    }
                    id => id,
                };
                let mut cut: [Option<String>; 4] = Default::default();
                let [message, expected, actual, output] = &mut cut;
                let mut t = TestCaseRef::new(suite, name, id, test.status);
                t.duration = test.duration;
                t.message = capped_ref(&test.message, message);
                t.expected = capped_ref(&test.expected, expected);
                t.actual = capped_ref(&test.actual, actual);
                t.output = capped_ref(&test.output, output);
                t.category = test.category;
                t.file = text(&test.file);
                t.line = test.line;
                t.decided_at = text(&test.decided_at);
                t.attempts = &test.attempts;
                t.parent = test.parent;
                t.parent_id = text(&test.parent_id);
                self.tests += 1;
                // Borrowed: only a sink that keeps the test copies it.
                sink.test_finished_ref(t);
            }
            Event::Problem { mut problem } => {
                problem.detail =
                    capped(Some(std::mem::take(&mut problem.detail))).unwrap_or_default();
                if problem.count == Some(0) {
                    problem.count = Some(1);
                }
                sink.problem(problem);
            }
            Event::Warning { message, code } => sink.coded_warning(
                code.as_deref().map_or(
                    gapscore_adapter_sdk::Code::AdapterWarning,
                    gapscore_adapter_sdk::Code::lenient,
                ),
                capped(Some(message)).unwrap_or_default(),
            ),
            Event::Error {
                message,
                line,
                column,
                offset,
            } => {
                self.error = Some(ReportedError {
                    message: capped(Some(message)).unwrap_or_default(),
                    line,
                    column,
                    offset,
                });
            }
            Event::End { tests } => {
                if tests != self.tests {
                    return Err(format!(
                        "the `end` event counts {tests} tests, but {} `test_finished` events came before it",
                        self.tests
                    ));
                }
                self.ended = Some(tests);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gapscore_adapter_sdk::{Normalizer, RunCollector, Status};

    #[test]
    fn events_reach_the_sink_and_end_counts_them() {
        let mut sink = Normalizer::new(RunCollector::new("x".to_owned(), None));
        let mut s = Stream::default();
        for line in [
            r#"{"event":"producer","name":"tool"}"#,
            r#"{"event":"test_started","name":"a"}"#,
            r#"{"event":"test_finished","test":{"name":"a","status":"failed","message":"m"}}"#,
            r#"{"event":"problem","problem":{"kind":"crash","detail":"d"}}"#,
            r#"{"event":"warning","message":"w"}"#,
            r#"{"event":"warning","message":"v","code":"W108"}"#,
            r#"{"event":"warning","message":"u","code":"X999"}"#,
            r#"{"event":"end","tests":1}"#,
        ] {
            s.handle(line.as_bytes(), &mut sink).unwrap();
        }
        let run = sink.finish().into_run();
        // Without a code, or with one this gapscore does not know: the generic code.
        use gapscore_adapter_sdk::Code;
        let codes: Vec<Code> = run.coded_warnings().map(|(c, _)| c).collect();
        assert_eq!(
            codes,
            [Code::AdapterWarning, Code::SlowTest, Code::AdapterWarning]
        );
        assert_eq!(run.tests[0].status, Status::Failed);
        assert_eq!(run.tests[0].id, "a");
        assert_eq!(run.problems.len(), 1);
        assert_eq!(s.ended, Some(1));
        assert_eq!(
            s.handle(b"{}", &mut RunCollector::new("x".to_owned(), None)),
            Err("output after the `end` event".to_owned())
        );
    }

    #[test]
    fn bad_events_are_refused() {
        let mut sink = RunCollector::new("x".to_owned(), None);
        let mut s = Stream::default();
        let err = |s: &mut Stream, l: &str, sink: &mut RunCollector| {
            s.handle(l.as_bytes(), sink).unwrap_err()
        };
        assert!(
            err(
                &mut s,
                r#"{"event":"test_finished","test":{"name":"a","status":"great"}}"#,
                &mut sink
            )
            .starts_with("invalid event: unknown variant `great`")
        );
        assert!(
            err(&mut s, r#"{"event":"tests_finished"}"#, &mut sink)
                .starts_with("invalid event: unknown variant `tests_finished`")
        );
        assert!(err(&mut s, "not json", &mut sink).starts_with("invalid event:"));
        assert_eq!(
            err(&mut s, r#"{"event":"end","tests":2}"#, &mut sink),
            "the `end` event counts 2 tests, but 0 `test_finished` events came before it"
        );
        assert_eq!(s.line, 4);
    }

    #[test]
    fn a_finished_test_reads_as_its_test_case_would_and_borrows_what_it_can() {
        let objects = [
            r#"{"name":"a","status":"passed"}"#,
            r#"{"suite":"s\"q","name":"n\u00e9","status":"failed","message":"m\nx","id":""}"#,
            r#"{"id":"own","suite":"s","name":"n","status":"xpassed","duration":0.5,
                "message":"m","expected":"e","actual":"a","category":"security","file":"f.py",
                "line":7,"output":"o","attempts":[{"status":"failed","message":"first"}],
                "parent":true,"parent_id":"p","extra":[1,{"x":null}]}"#,
            r#"{"suite":null,"name":"n","status":"skipped","message":null,"line":null}"#,
        ];
        for object in objects {
            let line = format!(r#"{{"event":"test_finished","test":{object}}}"#);
            let mut sink = RunCollector::new("x".to_owned(), None);
            Stream::default()
                .handle(line.as_bytes(), &mut sink)
                .unwrap();
            let mut expected: TestCase = serde_json::from_str(object).unwrap();
            if expected.id.is_empty() {
                expected.id = TestCase::make_id(expected.suite.as_deref(), &expected.name);
            }
            assert_eq!(sink.into_run().tests, vec![expected], "{object}");
        }
        // What a TestCase refuses, the event refuses.
        for object in [
            r#"{"id":null,"name":"a","status":"passed"}"#,
            r#"{"status":"passed"}"#,
            r#"{"name":"a","status":"fine"}"#,
            r#"{"name":"a","status":"passed","line":-1}"#,
            r#"{"name":7,"status":"passed"}"#,
        ] {
            assert!(
                serde_json::from_str::<TestCase>(object).is_err(),
                "{object}"
            );
            let line = format!(r#"{{"event":"test_finished","test":{object}}}"#);
            let mut sink = RunCollector::new("x".to_owned(), None);
            let err = Stream::default().handle(line.as_bytes(), &mut sink);
            assert!(err.unwrap_err().starts_with("invalid event:"), "{object}");
        }
        // Without escapes the strings are the line's own; with one, a copy.
        let line =
            r#"{"event":"test_finished","test":{"suite":"s","name":"n\t","status":"passed"}}"#;
        let Event::TestFinished { test } = serde_json::from_str(line).unwrap() else {
            panic!("not a test_finished event");
        };
        assert!(matches!(test.suite.map(|t| t.0), Some(Cow::Borrowed("s"))));
        assert!(matches!(test.name.0, Cow::Owned(n) if n == "n\t"));
    }

    #[test]
    fn an_over_long_text_is_cut_at_the_cap() {
        let long = "y".repeat(TEXT_CAP + 10);
        let line = format!(
            r#"{{"event":"test_finished","test":{{"name":"a","status":"failed","output":"{long}"}}}}"#
        );
        let mut sink = RunCollector::new("x".to_owned(), None);
        Stream::default()
            .handle(line.as_bytes(), &mut sink)
            .unwrap();
        let mut cut = String::new();
        push_capped(&mut cut, &long);
        assert_eq!(sink.into_run().tests[0].output, Some(cut));
    }
}
