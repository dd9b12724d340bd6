//! The CTRF reader: the document read as a stream (`gapscore_adapter_sdk::json::stream`), each
//! `results.tests` entry parsed on its own with typed serde deserialisation (strings borrowed
//! where the JSON has no escapes) and pushed into the sink, so memory holds one entry.
//!
//! Rules (the crate README has the full tables):
//! - status `passed`/`failed`/`skipped`/`pending`/`other`, refined by `rawStatus` (the tool's own
//!   word) and, for documents gapscore wrote, restored exactly from `extra.gapscore_status`;
//! - `retryAttempts` (or only a `retries` count, or only `flaky: true`) → attempts;
//! - `suite` as an array (spec ≥ 0.0.x) or a ` > `-joined string (older reporters);
//! - `tags` or a `[tag]` in the name naming a spec category set the category;
//! - `results.extra.gapscore_problems` (ours) and `results.extra.errors` (Playwright's run-level
//!   errors) → problems; a document cut short → a `truncated` problem after the complete tests;
//! - `summary` counts → evidence beside the tests, judged by the one rule (worse: a problem).
//!
//! Here: [`parse`] and [`parse_reader`], the visitor that says what each member is wanted for
//! (root, `results`, `results.tests`) and `State`, which turns each test read into events. The typed records it reads and the
//! status mapping are in document.rs, which imports nothing from here.

use gapscore_adapter_sdk::Code;
use std::borrow::Cow;
use std::fmt;
use std::io::BufRead;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, Visitor};
use serde_json::Value;

use crate::document::{
    BStr, RawAttempt, RawTest, RawTestSeed, ResultsExtra, Summary, Tool, attempt_status, opt,
    refine,
};
use crate::writer::ctrf_status;
use gapscore_adapter_sdk::json::stream::{self, Position, StreamError, Want};
use gapscore_adapter_sdk::text::{TEXT_CAP, push_capped};
use gapscore_adapter_sdk::{
    AdapterError, Attempt, Category, Declared, DeclaredCount, EventSink, Evidence, EvidenceSource,
    InputError, Location, Problem, ProblemKind, Producer, ReadCounts, Status, TestCase,
    TestCaseRef,
};

/// Attempts synthesised from a bare `retries` count are capped: the count is a number in the
/// file, not evidence of that many records.
const MAX_SYNTHETIC_ATTEMPTS: usize = 100;

/// Reads a CTRF document and pushes every test, problem and warning into `sink`.
///
/// Errors carry line and column. A document that ends early is not an error: the complete
/// tests before the cut are kept and a `truncated` problem says where it ends. On any other
/// error the sink may already hold the tests before the bad one.
pub fn parse(input: &[u8], sink: &mut dyn EventSink) -> Result<(), InputError> {
    stream::read_slice(input, |r| parse_reader(r, sink))
}

/// Reads a CTRF document from a stream (`json::stream`): `results.tests` one entry at a time,
/// the rest of `results` whole, so memory holds the largest test entry, never the document. See
/// [`parse`]; invalid UTF-8 is placed by its byte offset, which the host (or [`parse`]) turns
/// into a line and a column.
pub fn parse_reader<R: BufRead + ?Sized>(
    reader: &mut R,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    let mut state = State {
        sink,
        tests: 0,
        seen: [0; 5],
        place: Place::Root,
        interrupted: 0,
        suite: String::new(),
        id: String::new(),
    };
    let mut tail = stream::Tail::new(reader);
    let mut root = Root {
        st: &mut state,
        results: false,
        tests: false,
        summaries: Vec::new(),
    };
    let result = stream::visit(&mut tail, Want::Descend, &mut root);
    if state.interrupted > 0 {
        let n = state.interrupted;
        state.sink.problem(Problem::new(
            ProblemKind::Aborted,
            format!(
                "{n} test{} reported `rawStatus: interrupted`: the run was stopped before it finished",
                plural(n)
            ),
        ));
    }
    match result {
        Ok(outcome) => {
            if let Some(end) = outcome.truncated_at() {
                let n = state.tests;
                state.sink.problem(Problem::new(
                    ProblemKind::Truncated,
                    format!(
                        "document ends at byte {} (line {}) inside {} after {n} complete test{}: the rest of the run is missing",
                        tail.content_end(),
                        end.line,
                        state.place.describe(),
                        plural(n as u64),
                    ),
                ));
            }
            Ok(())
        }
        Err(StreamError::Empty) => {
            Err(InputError::Empty("empty file: expected a CTRF JSON document".into()).into())
        }
        // In serde_json's words, as the reader read a text in memory said it.
        Err(StreamError::InvalidUtf8 { at }) => Err(InputError::Syntax {
            location: Location::Offset(at.offset),
            message: "invalid unicode code point".into(),
        }
        .into()),
        Err(e) => Err(e.into()),
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Where the reader is, for the `truncated` problem's detail.
#[derive(Clone, Copy)]
enum Place {
    Root,
    Results,
    Tests,
}

impl Place {
    fn describe(self) -> &'static str {
        match self {
            Place::Root => "the root object",
            Place::Results => "`results`",
            Place::Tests => "`results.tests`",
        }
    }
}

struct State<'s> {
    sink: &'s mut dyn EventSink,
    /// Tests read so far.
    tests: usize,
    /// Tests read per CTRF status, for the summary check.
    seen: [u64; 5],
    place: Place,
    /// Tests whose `rawStatus` is `interrupted`.
    interrupted: u64,
    /// The current test's suite path and derived id, kept for the next test.
    suite: String,
    id: String,
}

/// What each member of the document is wanted for: the root's `results` and
/// `reportFormat`, and in `results` its tests one at a time, `tool`, `summary` and `extra`
/// whole. A key given twice is refused by the stream before its second value.
struct Root<'a, 's> {
    st: &'a mut State<'s>,
    results: bool,
    tests: bool,
    /// Each summary-like member of `results` (`summary`, `totals`, `stats`) by its key: every
    /// one is held against the tests, the worst reading winning.
    summaries: Vec<(String, Summary)>,
}

impl stream::Visitor for Root<'_, '_> {
    // `element` parses each element whole with serde_json, which judges its syntax.
    fn parses_elements(&self) -> bool {
        true
    }

    fn member(&mut self, path: &[String], key: &str) -> Want {
        match (path.len(), key) {
            (0, "results") => {
                self.results = true;
                self.st.place = Place::Results;
                Want::Descend
            }
            (0, "reportFormat") => Want::Whole,
            (1, "tests") => {
                self.tests = true;
                self.st.place = Place::Tests;
                Want::Elements
            }
            (1, "tool" | "summary" | "totals" | "stats" | "extra") => Want::Whole,
            _ => Want::Skip,
        }
    }

    fn element(&mut self, _path: &[String], element: stream::Value<'_>) -> Result<(), StreamError> {
        let mut de = serde_json::Deserializer::from_str(element.text);
        match RawTestSeed(&mut self.st.suite).deserialize(&mut de) {
            Ok(raw) => self.st.test(raw),
            // The entry the input was cut in: the cut is reported as `truncated`.
            Err(e) if !element.complete && e.is_eof() => {}
            Err(e) => return Err(element.json_error(&e).into()),
        }
        Ok(())
    }

    fn array_end(&mut self, _path: &[String], _at: Position) -> Result<(), StreamError> {
        self.st.place = Place::Results;
        Ok(())
    }

    fn whole(&mut self, path: &[String], value: stream::Value<'_>) -> Result<(), StreamError> {
        let key = path.last().map(String::as_str);
        match (path.len(), key) {
            (0, _) => refused(
                &value,
                Shape::Map("a CTRF document: a JSON object with a `results` object"),
            ),
            (1, Some("results")) => refused(
                &value,
                Shape::Map("`results` to be an object with a `tests` array"),
            ),
            (2, Some("tests")) => refused(
                &value,
                Shape::Seq("`results.tests` to be an array of test objects"),
            ),
            (1, _) => {
                if let Some(f) = parsed::<Option<BStr<'_>>>(&value)?.flatten()
                    && &*f != "CTRF"
                {
                    return Err(after(
                        &value,
                        format!("`reportFormat` is `{}`, expected `CTRF`", &*f),
                    ));
                }
                Ok(())
            }
            (_, Some("tool")) => {
                if let Some(tool) = parsed::<Option<Tool<'_>>>(&value)?.flatten()
                    && let Some(name) = tool.name.filter(|n| !n.trim().is_empty())
                {
                    let mut p = Producer::new(name.0.into_owned());
                    p.version = tool.version.map(|v| v.0).filter(|v| !v.is_empty());
                    self.st.sink.producer(p);
                }
                Ok(())
            }
            (_, Some("extra")) => {
                if let Some(extra) = parsed::<Option<ResultsExtra>>(&value)?.flatten() {
                    self.st.run_extra(extra);
                }
                Ok(())
            }
            _ => {
                if let Some(s) = parsed::<Option<Summary>>(&value)?.flatten() {
                    self.summaries
                        .push((key.unwrap_or("summary").to_owned(), s));
                }
                Ok(())
            }
        }
    }

    fn end(&mut self, path: &[String], at: Position) -> Result<(), StreamError> {
        let missing = if path.is_empty() {
            (!self.results).then_some("missing `results` object")
        } else {
            self.st.place = Place::Root;
            (!self.tests).then_some("missing `results.tests` array")
        };
        if let Some(message) = missing {
            // serde_json places a map's own error on its closing brace.
            return Err(InputError::Content {
                location: Location::LineCol {
                    line: at.line,
                    column: at.column,
                },
                message: message.into(),
            }
            .into());
        }
        if !path.is_empty() {
            let summaries = std::mem::take(&mut self.summaries);
            for (key, s) in &summaries {
                self.st.check_summary(key, s);
            }
            self.st.compare_summaries(&summaries);
        }
        Ok(())
    }
}

/// A value's typed parse, placed in the file on error; `None` for the value the input was cut
/// in when its parse met the cut (reported as `truncated`).
fn parsed<'t, T: Deserialize<'t>>(value: &stream::Value<'t>) -> Result<Option<T>, StreamError> {
    match serde_json::from_str(value.text) {
        Ok(t) => Ok(Some(t)),
        Err(e) if !value.complete && e.is_eof() => Ok(None),
        Err(e) => Err(value.json_error(&e).into()),
    }
}

/// `message` placed where serde_json places an error a map visitor raises after reading a
/// member's value: on the value's last byte (column in bytes, as serde_json counts).
fn after(value: &stream::Value<'_>, message: String) -> StreamError {
    let text = value.text.as_bytes();
    let (line, column) = match text.iter().rposition(|&b| b == b'\n') {
        None => (value.at.line, value.at.column + text.len() - 1),
        Some(nl) => (
            value.at.line + text.iter().filter(|&&b| b == b'\n').count(),
            text.len() - nl - 1,
        ),
    };
    InputError::Content {
        location: Location::LineCol {
            line,
            column: column.max(1),
        },
        message,
    }
    .into()
}

/// A value of the wrong shape, refused in the typed reader's words (`expected ...`). A cut
/// one is `truncated`, as reading the whole document found it.
fn refused(value: &stream::Value<'_>, shape: Shape) -> Result<(), StreamError> {
    let mut de = serde_json::Deserializer::from_str(value.text);
    let r = match shape {
        Shape::Map(_) => de.deserialize_map(shape),
        Shape::Seq(_) => de.deserialize_seq(shape),
    };
    match r {
        Err(e) if e.is_eof() && !value.complete => Ok(()),
        Err(e) => Err(value.json_error(&e).into()),
        Ok(()) => Ok(()),
    }
}

/// What the typed reader expected where a value of another shape stands.
#[derive(Clone, Copy)]
enum Shape {
    Map(&'static str),
    Seq(&'static str),
}

impl Visitor<'_> for Shape {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Map(s) | Shape::Seq(s) => f.write_str(s),
        }
    }
}

impl State<'_> {
    fn run_extra(&mut self, extra: ResultsExtra) {
        for p in extra.gapscore_problems.unwrap_or_default() {
            let mut problem = Problem::new(p.kind, p.detail);
            // The writer names the run's source file; it is where the problem belongs.
            problem.suite = p.suite.or(p.source);
            // A problem standing for n tests counts n failures; dropping the count would let
            // a file that ran 2 of 5 planned tests score as if it had planned 2.
            let unreadable = match p.count.as_ref().map(count) {
                Some(DeclaredCount::Number(n)) => {
                    problem.count = Some(n);
                    None
                }
                Some(DeclaredCount::Unreadable(text)) => Some(text),
                None => None,
            };
            let suite = problem.suite.clone();
            self.sink.problem(problem);
            if let Some(text) = unreadable {
                let mut bad = Problem::new(
                    ProblemKind::UnreadableCount,
                    format!(
                        "results.extra.gapscore_problems: `count` {text} is not a whole number of tests"
                    ),
                );
                bad.suite = suite;
                self.sink.problem(bad);
            }
        }
        if let Some(Value::Array(errors)) = extra.errors {
            for e in errors {
                let detail = match &e {
                    Value::String(s) => s.clone(),
                    Value::Object(o) => match o.get("message") {
                        Some(Value::String(m)) => m.clone(),
                        _ => e.to_string(),
                    },
                    other => other.to_string(),
                };
                self.sink.problem(Problem::new(
                    ProblemKind::SuiteError,
                    format!("run-level error (results.extra.errors): {detail}"),
                ));
            }
        }
    }

    /// `results.<key>` (`summary`, or `totals`/`stats` of early reporters) as evidence beside
    /// the tests read, counted the way CTRF counts: by each test's own `status`. `skipped`,
    /// `pending` and `other` are tests that did not pass and did not fail: compared as one sum.
    fn check_summary(&mut self, key: &str, s: &Summary) {
        let total: u64 = self.seen.iter().sum();
        let mut declared = Declared::new();
        if let Some(t) = &s.tests {
            declared = declared.tests(count(t));
        }
        if let Some(f) = &s.failed {
            declared = declared.failed(count(f));
        }
        let not_run = [&s.skipped, &s.pending, &s.other]
            .into_iter()
            .flatten()
            .map(count)
            .fold(None, |acc, c| DeclaredCount::saturating_sum(acc, Some(c)));
        if let Some(k) = not_run {
            declared = declared.skipped(k);
        }
        if let Some(p) = &s.passed {
            declared = declared.passed(count(p));
        }
        self.sink.evidence(
            Evidence::new(EvidenceSource::SummaryObject, format!("results.{key}"))
                .declaring(declared)
                .reading(
                    ReadCounts::new(
                        total,
                        self.seen[1],
                        self.seen[2] + self.seen[3] + self.seen[4],
                    )
                    .with_passed(self.seen[0]),
                ),
        );
    }
}

impl State<'_> {
    /// Two summaries giving one count differently contradict each other: said, beside each
    /// one's own check against the tests (which already counts the worse), so not counted again.
    fn compare_summaries(&mut self, summaries: &[(String, Summary)]) {
        for (i, (a_key, a)) in summaries.iter().enumerate() {
            for (b_key, b) in &summaries[i + 1..] {
                let differ: Vec<&str> = a
                    .counts()
                    .into_iter()
                    .zip(b.counts())
                    .filter_map(|((name, x), (_, y))| match (x, y) {
                        (Some(x), Some(y)) if x != y => Some(name),
                        _ => None,
                    })
                    .collect();
                if !differ.is_empty() {
                    self.sink.coded_warning(
                        Code::DeclaredCountMismatch,
                        format!(
                            "results.{a_key} and results.{b_key} give different counts (`{}`): the document contradicts itself; each is held against the tests read",
                            differ.join("`, `")
                        ),
                    );
                }
            }
        }
    }
}

/// A summary count as JSON gives it: a non-negative integer (exact up to `u64::MAX`), else its
/// text (`10.5`, `-1`, `"3"`).
fn count(v: &Value) -> DeclaredCount {
    match v.as_u64() {
        Some(n) => DeclaredCount::Number(n),
        None => DeclaredCount::Unreadable(v.to_string()),
    }
}

impl State<'_> {
    fn test(&mut self, raw: RawTest<'_>) {
        let index = self.tests;
        self.tests += 1;
        self.seen[raw.status as usize] += 1;

        let (mut status, interrupted) = refine(raw.status, raw.raw_status.as_deref());
        let mut extra = raw.extra.filter(|e| e.gapscore_status.is_some());
        let mut ours = false;
        if let Some(gs) = extra.as_ref().and_then(|e| e.gapscore_status.as_deref()) {
            match Status::ALL.iter().find(|s| s.as_str() == gs) {
                // Restored only when it agrees with the test's CTRF status by the writer's table, so an
                // edited `extra` cannot turn a failure into a pass.
                Some(&s) if ctrf_status(s) == raw.status.name() => {
                    status = s;
                    ours = true;
                }
                Some(_) => self.sink.coded_warning(Code::ContradictoryStatus, format!(
                    "results.tests[{index}] `{}`: extra.gapscore_status `{gs}` disagrees with status `{}`; the CTRF status is used",
                    raw.name,
                    raw.status.name()
                )),
                None => self.sink.coded_warning(Code::UnknownValueIgnored, format!(
                    "results.tests[{index}] `{}`: unknown extra.gapscore_status `{gs}` ignored",
                    raw.name
                )),
            }
        }
        if interrupted && !ours {
            self.interrupted += 1;
        }

        // The test goes out borrowed: name, file and ids from the input, suite and derived id
        // from buffers kept for the next test; what only some tests have (message, output,
        // attempts) is built owned as before and lent.
        let (expected, actual) = extra.as_mut().map_or((None, None), |e| {
            (
                e.expected.take().and_then(text),
                e.actual.take().and_then(text),
            )
        });
        let suite = raw.suite.then_some(self.suite.as_str());
        let name: &str = &raw.name;
        let own_id = extra
            .as_ref()
            .and_then(|e| e.gapscore_id.as_deref())
            .filter(|i| !i.is_empty());
        let id = match own_id {
            Some(id) => id,
            None => {
                TestCase::make_id_into(&mut self.id, suite, name);
                self.id.as_str()
            }
        };
        let mut test = TestCaseRef::new(suite, name, id, status);
        let unknown = extra
            .as_ref()
            .is_some_and(|e| e.duration_unknown == Some(Value::Bool(true)));
        // CTRF requires a duration, so reporters write 0 for tests that never ran (jest writes
        // `duration ?? 0`): for those a 0 is a placeholder, not a measurement.
        let not_run = matches!(status, Status::Skipped | Status::Todo);
        let placeholder = not_run && raw.duration == Some(0.0);
        if !unknown && !placeholder {
            test.duration = millis(raw.duration);
        }
        let mut message = join_message(raw.message, raw.trace);
        if status == Status::Errored && !ours && message.is_none() {
            // Say why a test CTRF did not call failed counts as errored.
            message = Some(match raw.raw_status.as_deref() {
                Some(r) => format!("CTRF status `{}`, rawStatus `{r}`", raw.status.name()),
                None => format!("CTRF status `{}`", raw.status.name()),
            });
        }
        test.message = message.as_deref();
        test.file = raw.file_path.as_deref().filter(|f| !f.is_empty());
        test.line = raw
            .line
            .filter(|l| l.fract() == 0.0 && *l >= 1.0 && *l <= f64::from(u32::MAX))
            .map(|l| l as u32);
        test.category = extra
            .as_ref()
            .and_then(|e| match &e.category {
                Some(Value::String(c)) => Category::parse_lenient(c),
                _ => None,
            })
            .or(raw.tags.and_then(|t| t.0))
            .or_else(|| Category::from_title(name));
        if let Some(e) = extra.as_ref() {
            test.parent = e.gapscore_parent == Some(Value::Bool(true));
            test.parent_id = e.gapscore_parent_id.as_deref().filter(|p| !p.is_empty());
        }
        test.expected = expected.as_deref();
        test.actual = actual.as_deref();
        let output = match (raw.stdout, raw.stderr) {
            (None, None) => None,
            (Some(o), None) | (None, Some(o)) => Some(o.0).filter(|s| !s.is_empty()),
            (Some(o), Some(e)) => {
                let mut out = o.0;
                if !out.is_empty() && !e.0.is_empty() && out.len() < TEXT_CAP {
                    out.push('\n');
                }
                push_capped(&mut out, &e.0);
                Some(out).filter(|s| !s.is_empty())
            }
        };
        test.output = output.as_deref();
        let tries = attempts(raw.retry_attempts, raw.retries, raw.flaky, status);
        test.attempts = &tries;
        self.sink.test_finished_ref(test);
    }
}

/// Earlier attempts: `retryAttempts` when listed; otherwise `retries` failed ones (reporters
/// retry a test only after a failed attempt), or one when only `flaky: true` says a passing
/// test failed first.
fn attempts(
    listed: Option<Vec<RawAttempt<'_>>>,
    retries: Option<f64>,
    flaky: Option<bool>,
    status: Status,
) -> Vec<Attempt> {
    if let Some(list) = listed.filter(|l| !l.is_empty()) {
        return list
            .into_iter()
            .map(|a| {
                let mut at = Attempt::new(attempt_status(a.status));
                at.duration = millis(a.duration);
                at.message = join_message(opt(a.message), opt(a.trace));
                at
            })
            .collect();
    }
    let count = retries
        .filter(|r| r.is_finite() && *r >= 1.0)
        .map_or(0, |r| (r as usize).min(MAX_SYNTHETIC_ATTEMPTS));
    let (count, note) = if count == 0 && flaky == Some(true) && matches!(status, Status::Passed) {
        (
            1,
            "earlier attempt: the document records only that the test was flaky",
        )
    } else {
        (
            count,
            "earlier attempt: the document records only the number of retries",
        )
    };
    (0..count)
        .map(|_| {
            let mut at = Attempt::new(Status::Failed);
            at.message = Some(note.into());
            at
        })
        .collect()
}

/// Milliseconds to seconds; a missing, negative or non-finite duration is unknown.
fn millis(ms: Option<f64>) -> Option<f64> {
    ms.filter(|d| d.is_finite() && *d >= 0.0)
        .map(|d| d / 1000.0)
}

/// The message and the trace as one text: the trace alone when it already holds the message
/// (a stack that starts with the error line), cut at 64 KiB.
fn join_message(message: Option<Cow<'_, str>>, trace: Option<Cow<'_, str>>) -> Option<String> {
    let message = message.filter(|m| !m.trim().is_empty());
    let trace = trace.filter(|t| !t.trim().is_empty());
    let mut out = String::new();
    match (message, trace) {
        (None, None) => return None,
        (Some(m), None) => {
            push_capped(&mut out, &m);
        }
        (None, Some(t)) => {
            push_capped(&mut out, &t);
        }
        (Some(m), Some(t)) if t.contains(m.as_ref()) => {
            push_capped(&mut out, &t);
        }
        (Some(m), Some(t)) => {
            push_capped(&mut out, &m);
            if out.len() < TEXT_CAP {
                out.push('\n');
                push_capped(&mut out, &t);
            }
        }
    }
    Some(out)
}

/// A JSON value as report text: strings as they are, `null` as absent, anything else as
/// compact JSON.
fn text(v: Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}
