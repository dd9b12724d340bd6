//! The reader for Mocha's JSON reporter.
//!
//! The document is read as a stream ([`gapscore_adapter_sdk::json::stream`]): each entry of
//! `tests` and of the side arrays (`pending`, `failures`, `passes`) is handed over on its own
//! and parsed with typed structs whose strings borrow from it (a string is copied only when it
//! has escapes). An entry of `tests` goes to the sink as soon as it is read; of the side arrays'
//! entries and `stats` only what the cross-checks need is kept (a fingerprint of each failed
//! and pending test, counts: private module `lists`), and they are held against the tests at
//! the end. Memory holds one entry and those fingerprints, never the document. A document cut
//! short keeps every test read before the cut and reports `truncated`; see [`parse`].

use std::borrow::Cow;
use std::fmt;

use std::io::BufRead;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use gapscore_adapter_sdk::json::stream::{self, Position, StreamError, Want};
use gapscore_adapter_sdk::{
    AdapterError, Attempt, Category, Code, DeclaredCount, EventSink, InputError, Location, Problem,
    ProblemKind, Producer, Status, TestCase,
};

use crate::foreign::{self, Foreign, OtherKeys};
use crate::lists::{self, Ledger, List, Stats};

/// Reads one Mocha JSON document held in memory and pushes every test, problem and warning
/// into `sink`: [`parse_reader`] on the bytes, with an error at a byte offset (invalid UTF-8)
/// placed at its line and column.
///
/// A document that ends before it is complete is not an error: the tests read before the cut
/// are kept and a `truncated` problem says where the input ends. Any other malformed input is
/// an error with its line and column; the sink may then already hold the tests read before it.
pub fn parse(input: &[u8], sink: &mut dyn EventSink) -> Result<(), InputError> {
    stream::read_slice(input, |r| parse_reader(r, sink))
}

/// Reads one Mocha JSON document from a stream, in memory bounded by its largest test entry
/// (and a fingerprint of each failed and pending test); see [`parse`]. Invalid UTF-8 is placed
/// by its byte offset, which the host turns into a line and column.
pub fn parse_reader<R: BufRead + ?Sized>(
    reader: &mut R,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    let mut st = State {
        sink,
        ledger: Ledger::default(),
        stats: None,
        suite_buf: String::new(),
        id_buf: String::new(),
        producer: false,
    };
    let mut root = Root {
        st: &mut st,
        saw_tests: false,
        foreign: Foreign::default(),
    };
    match stream::visit(reader, Want::Descend, &mut root) {
        Ok(outcome) => {
            match outcome.truncated_at() {
                None => st.finish(),
                Some(end) => {
                    st.producer();
                    let detail = format!(
                        "the document ends at line {} column {} before it is complete (the runner was killed or the file was cut): {} tests read before the cut are kept",
                        end.line,
                        end.column,
                        st.ledger.total()
                    );
                    st.sink
                        .problem(Problem::new(ProblemKind::Truncated, detail));
                }
            }
            Ok(())
        }
        Err(StreamError::Empty) => Err(InputError::Empty(
            "empty file: expected a Mocha JSON document (mocha --reporter json)".into(),
        )
        .into()),
        Err(e) => Err(e.into()),
    }
}

/// One entry of `tests` (and of the side arrays, which repeat it).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawTest<'a> {
    #[serde(borrow)]
    title: Cow<'a, str>,
    #[serde(borrow, default)]
    full_title: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    file: Option<Cow<'a, str>>,
    #[serde(default)]
    duration: Option<f64>,
    #[serde(default)]
    current_retry: Option<u64>,
    #[serde(default)]
    err: RawErr,
    /// Keys Mocha never writes in a test entry (P024).
    #[serde(flatten)]
    other: OtherKeys,
}

impl RawTest<'_> {
    fn full_title(&self) -> &str {
        self.full_title.as_deref().unwrap_or(&self.title)
    }

    /// The describe blocks: the full title without the test's own title at its end.
    fn describes(&self) -> &str {
        let full = self.full_title();
        full.strip_suffix(&*self.title).map_or("", |d| d.trim_end())
    }

    fn key(&self) -> u64 {
        lists::key(self.file.as_deref(), self.full_title())
    }
}

/// A test's `err`: Mocha writes `{}` for a test without one. Only the fields gapscore shows are
/// kept; every key counts as a sign of failure.
#[derive(Default)]
struct RawErr {
    keys: usize,
    message: Option<String>,
    stack: Option<String>,
    expected: Option<String>,
    actual: Option<String>,
}

impl<'de> Deserialize<'de> for RawErr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawErr;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an error object")
            }
            fn visit_unit<E: de::Error>(self) -> Result<RawErr, E> {
                Ok(RawErr::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<RawErr, E> {
                Ok(RawErr::default())
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawErr, E> {
                Ok(RawErr {
                    keys: 1,
                    message: Some(v.to_owned()),
                    ..RawErr::default()
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawErr, A::Error> {
                let mut err = RawErr::default();
                while let Some(k) = map.next_key::<Cow<'de, str>>()? {
                    err.keys += 1;
                    let slot = match &*k {
                        "message" => &mut err.message,
                        "stack" => &mut err.stack,
                        "expected" => &mut err.expected,
                        "actual" => &mut err.actual,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = match map.next_value::<Value>()? {
                        Value::String(s) => Some(s),
                        Value::Null => None,
                        other => Some(other.to_string()),
                    };
                }
                Ok(err)
            }
        }
        d.deserialize_any(V)
    }
}

struct State<'s> {
    sink: &'s mut dyn EventSink,
    ledger: Ledger,
    stats: Option<Stats>,
    suite_buf: String,
    id_buf: String,
    /// The producer was said (before the first test, as the reader has always said it).
    producer: bool,
}

impl State<'_> {
    /// Says the producer, once.
    fn producer(&mut self) {
        if !std::mem::replace(&mut self.producer, true) {
            self.sink.producer(Producer::new("mocha"));
        }
    }

    /// The suite path: the file, then the describe blocks (as one title: Mocha joins them with
    /// spaces, so they cannot be told apart), joined by ` > `.
    fn suite(&mut self, t: &RawTest<'_>) -> Option<String> {
        self.suite_buf.clear();
        if let Some(f) = t.file.as_deref().filter(|f| !f.is_empty()) {
            self.suite_buf.push_str(f);
        }
        let describes = t.describes();
        if !describes.is_empty() {
            if !self.suite_buf.is_empty() {
                self.suite_buf.push_str(" > ");
            }
            self.suite_buf.push_str(describes);
        }
        (!self.suite_buf.is_empty()).then(|| self.suite_buf.clone())
    }

    fn test(&mut self, t: RawTest<'_>) {
        let key = t.key();
        let status = if t.err.keys > 0 {
            self.ledger.read_failed(key);
            Status::Failed
        } else if t.duration.is_some() {
            self.ledger.passed += 1;
            Status::Passed
        } else {
            // Mocha writes no duration for a pending test (`it.skip`, `it` without a function).
            self.ledger.read_pending(key);
            Status::Skipped
        };
        let suite = self.suite(&t);
        let name = if t.title.is_empty() {
            t.full_title().to_owned()
        } else {
            t.title.clone().into_owned()
        };
        TestCase::make_id_into(&mut self.id_buf, suite.as_deref(), &name);
        let mut test = TestCase::new(suite, name, status);
        test.id.clone_from(&self.id_buf);
        test.category =
            Category::from_title(&t.title).or_else(|| Category::from_title(t.describes()));
        test.file = t.file.as_deref().map(str::to_owned);
        test.duration = t
            .duration
            .filter(|d| d.is_finite() && *d >= 0.0)
            .map(|ms| ms / 1000.0);
        if status == Status::Failed {
            let err = t.err;
            test.message = err.message.filter(|m| !m.trim().is_empty()).or_else(|| {
                err.stack
                    .as_deref()
                    .and_then(|s| s.lines().next())
                    .map(str::to_owned)
            });
            test.expected = err.expected;
            test.actual = err.actual;
        }
        // `this.retries(n)`: Mocha reports the last attempt; each earlier one failed (a test
        // is retried only after a failure), so a pass after them is flaky, never a clean pass.
        let retries = t.current_retry.unwrap_or(0).min(1000);
        test.attempts = (0..retries).map(|_| Attempt::new(Status::Failed)).collect();
        self.sink.test_finished(test);
    }

    fn listed(&mut self, list: List, t: RawTest<'_>) {
        let key = t.key();
        if list == List::Failures
            && !self.ledger.is_failed_test(key)
            && let Some(hook) = hook_kind(&t.title)
        {
            self.hook(hook, &t);
            return;
        }
        self.ledger.listed(list, key);
    }

    /// A failing hook: a problem of its suite, not a test.
    fn hook(&mut self, hook: &str, t: &RawTest<'_>) {
        self.ledger.hooks += 1;
        let what = t
            .err
            .message
            .as_deref()
            .and_then(|m| m.lines().find(|l| !l.trim().is_empty()))
            .unwrap_or("no message");
        let consequence = if hook.starts_with("before") {
            "the tests it precedes did not run"
        } else {
            "after its tests ran"
        };
        let detail = format!("{} failed ({consequence}): {what}", t.title);
        let mut p = Problem::new(ProblemKind::SuiteError, detail);
        let describes = t.describes();
        let suite = match (
            t.file.as_deref().filter(|f| !f.is_empty()),
            describes.is_empty(),
        ) {
            (Some(f), false) => Some(format!("{f} > {describes}")),
            (Some(f), true) => Some(f.to_owned()),
            (None, false) => Some(describes.to_owned()),
            (None, true) => None,
        };
        if let Some(s) = suite {
            p = p.with_suite(s);
        }
        self.sink.problem(p);
    }

    fn finish(&mut self) {
        self.producer();
        let stats = self.stats.take().unwrap_or_default();
        let (problems, evidence, warnings) = self.ledger.judge(stats);
        for p in problems {
            self.sink.problem(p);
        }
        for e in evidence {
            self.sink.evidence(e);
        }
        for w in warnings {
            self.sink.coded_warning(Code::DeclaredCountMismatch, w);
        }
    }
}

/// Mocha's hook titles: `"before each" hook for "x"`, `"after all" hook: name in "suite"`.
fn hook_kind(title: &str) -> Option<&'static str> {
    ["before all", "before each", "after all", "after each"]
        .into_iter()
        .find(|h| {
            title
                .strip_prefix('"')
                .and_then(|t| t.strip_prefix(h))
                .is_some_and(|t| t.starts_with("\" hook"))
        })
}

/// `stats` when it is not an object: refused in serde's words.
#[derive(Deserialize)]
struct RawStats {}

/// One count of `stats` as written; one that is not a non-negative integer is kept as text.
fn count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DeclaredCount>, D::Error> {
    let v = Option::<Value>::deserialize(d)?;
    Ok(v.map(|v| match v.as_u64() {
        Some(n) => DeclaredCount::Number(n),
        None => DeclaredCount::Unreadable(v.to_string()),
    }))
}

/// The root object's members: what the reader wants of each.
struct Root<'a, 's> {
    st: &'a mut State<'s>,
    saw_tests: bool,
    /// What Mocha's reporter never writes, wherever it was found.
    foreign: Foreign,
}

impl stream::Visitor for Root<'_, '_> {
    // `element` parses each element whole with serde_json, which judges its syntax.
    fn parses_elements(&self) -> bool {
        true
    }

    fn member(&mut self, path: &[String], key: &str) -> Want {
        // `stats` is read member by member, so that a value Mocha never writes there (a
        // swallowed document) is named and skipped, never held.
        if let [p] = path
            && p == "stats"
        {
            return match key {
                "tests" | "passes" | "pending" | "failures" => Want::Whole,
                k if foreign::STATS_UNREAD.contains(&k) => Want::Skip,
                other => {
                    self.foreign.key(format!("stats.{other}"));
                    Want::Skip
                }
            };
        }
        if !path.is_empty() {
            return Want::Skip;
        }
        match key {
            "stats" => {
                self.st.stats.get_or_insert_default();
                Want::Descend
            }
            "tests" => {
                self.saw_tests = true;
                Want::Elements
            }
            other if List::from_key(other).is_some() => Want::Elements,
            other => {
                self.foreign.key(other.to_owned());
                Want::Skip
            }
        }
    }

    fn element(&mut self, path: &[String], element: stream::Value<'_>) -> Result<(), StreamError> {
        let t = match serde_json::from_str::<RawTest<'_>>(element.text) {
            Ok(t) => t,
            // The entry the input ended in: nothing of it is kept.
            Err(e) if e.is_eof() && !element.complete => return Ok(()),
            Err(e) => return Err(element.json_error(&e).into()),
        };
        self.st.producer();
        let list = path.first().map_or("tests", String::as_str);
        for k in &t.other.0 {
            self.foreign.key(format!("{list}[].{k}"));
        }
        if foreign::nests_a_document(element.text) {
            self.foreign.nested(list);
        }
        match path.first().map(String::as_str).and_then(List::from_key) {
            None => self.st.test(t),
            Some(list) => self.st.listed(list, t),
        }
        Ok(())
    }

    fn whole(&mut self, path: &[String], value: stream::Value<'_>) -> Result<(), StreamError> {
        let mut de = serde_json::Deserializer::from_str(value.text);
        let r = match path {
            // Not an object, or an array of tests that is not an array: refused in the
            // reader's words.
            [] => de.deserialize_map(Shape(
                "a Mocha JSON document (an object with `stats` and `tests`)",
            )),
            [k] if k == "stats" => RawStats::deserialize(&mut de).map(|_| ()),
            [s, k] if s == "stats" => count(&mut de).map(|c| {
                let stats = self.st.stats.get_or_insert_default();
                let slot = match k.as_str() {
                    "tests" => &mut stats.tests,
                    "passes" => &mut stats.passes,
                    "pending" => &mut stats.pending,
                    _ => &mut stats.failures,
                };
                *slot = c;
            }),
            _ => de.deserialize_seq(Shape("an array of tests")),
        };
        match r {
            Ok(()) => Ok(()),
            // A value the input ended in: nothing more to read of it.
            Err(e) if e.is_eof() && !value.complete => Ok(()),
            Err(e) => Err(value.json_error(&e).into()),
        }
    }

    fn end(&mut self, path: &[String], at: Position) -> Result<(), StreamError> {
        if !path.is_empty() {
            return Ok(());
        }
        if !self.saw_tests {
            return Err(InputError::Content {
                location: Location::LineCol {
                    line: at.line,
                    column: at.column,
                },
                message: "missing field `tests`".into(),
            }
            .into());
        }
        // Mocha's reporter writes exactly stats, tests, pending, failures and passes, and a
        // fixed set inside them. Anything else is someone else's writing: a forged document
        // printed before Mocha's own can make Mocha's (with its failures) the value of a key
        // no reader looks at, at any depth.
        if let Some(p) = self.foreign.problem() {
            self.st.sink.problem(p);
        }
        Ok(())
    }
}

/// A value of the wrong shape, refused with what was expected (a value of the right shape is
/// never given to it).
struct Shape(&'static str);

impl<'de> Visitor<'de> for Shape {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Ok(())
    }
}
