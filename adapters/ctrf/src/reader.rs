//! The CTRF reader: typed serde deserialisation over the input slice, strings borrowed where the
//! JSON has no escapes, `results.tests` streamed element by element into the sink.
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
//! Here: [`parse`], the seeds that walk the document (root, `results`, `results.tests`) and
//! `State`, which turns each test read into events. The typed records those seeds read and the
//! status mapping are in document.rs, which imports nothing from here.

use gapscore_adapter_sdk::Code;
use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::document::{
    BStr, RawAttempt, RawTest, RawTestSeed, ResultsExtra, Summary, Tool, attempt_status, opt,
    refine,
};
use crate::writer::ctrf_status;
use gapscore_adapter_sdk::text::{TEXT_CAP, push_capped};
use gapscore_adapter_sdk::{
    Attempt, Category, Declared, DeclaredCount, EventSink, Evidence, EvidenceSource, InputError,
    Problem, ProblemKind, Producer, ReadCounts, Status, TestCase, TestCaseRef,
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
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    if input.iter().all(u8::is_ascii_whitespace) {
        return Err(InputError::Empty(
            "empty file: expected a CTRF JSON document".into(),
        ));
    }
    // A key given twice in one object says two things about one field: refused, at any depth.
    gapscore_adapter_sdk::json::check_unique_keys(input)?;
    let mut state = State {
        sink,
        tests: 0,
        seen: [0; 5],
        place: Place::Root,
        interrupted: 0,
        suite: String::new(),
        id: String::new(),
    };
    let mut de = serde_json::Deserializer::from_slice(input);
    let result = RootSeed { st: &mut state }
        .deserialize(&mut de)
        .and_then(|()| de.end());
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
        Ok(()) => Ok(()),
        Err(e) if e.classify() == serde_json::error::Category::Eof => {
            let trimmed = input
                .iter()
                .rposition(|b| !b.is_ascii_whitespace())
                .map_or(0, |p| p + 1);
            let n = state.tests;
            state.sink.problem(Problem::new(
                ProblemKind::Truncated,
                format!(
                    "document ends at byte {trimmed} (line {}) inside {} after {n} complete test{}: the rest of the run is missing",
                    e.line(),
                    state.place.describe(),
                    plural(n as u64),
                ),
            ));
            Ok(())
        }
        Err(e) => Err(json_error(e)),
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn json_error(e: serde_json::Error) -> InputError {
    InputError::from_json(&e, 0)
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

struct RootSeed<'a, 's> {
    st: &'a mut State<'s>,
}

impl<'de> DeserializeSeed<'de> for RootSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RootSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a CTRF document: a JSON object with a `results` object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = false;
        while let Some(key) = map.next_key::<BStr<'de>>()? {
            match &*key {
                "results" => {
                    if seen {
                        return Err(de::Error::custom("duplicate key `results`"));
                    }
                    seen = true;
                    self.st.place = Place::Results;
                    map.next_value_seed(ResultsSeed { st: &mut *self.st })?;
                    self.st.place = Place::Root;
                }
                "reportFormat" => {
                    let f = map.next_value::<Option<BStr<'de>>>()?;
                    if let Some(f) = f
                        && &*f != "CTRF"
                    {
                        return Err(de::Error::custom(format!(
                            "`reportFormat` is `{}`, expected `CTRF`",
                            &*f
                        )));
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !seen {
            return Err(de::Error::custom("missing `results` object"));
        }
        Ok(())
    }
}

struct ResultsSeed<'a, 's> {
    st: &'a mut State<'s>,
}

impl<'de> DeserializeSeed<'de> for ResultsSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ResultsSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`results` to be an object with a `tests` array")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut tests_seen = false;
        let mut summary: Option<Summary> = None;
        while let Some(key) = map.next_key::<BStr<'de>>()? {
            match &*key {
                "tests" => {
                    if tests_seen {
                        return Err(de::Error::custom("duplicate key `tests`"));
                    }
                    tests_seen = true;
                    self.st.place = Place::Tests;
                    map.next_value_seed(TestsSeed { st: &mut *self.st })?;
                    self.st.place = Place::Results;
                }
                "tool" => {
                    if let Some(tool) = map.next_value::<Option<Tool<'de>>>()?
                        && let Some(name) = tool.name.filter(|n| !n.trim().is_empty())
                    {
                        let mut p = Producer::new(name.0.into_owned());
                        p.version = tool.version.map(|v| v.0).filter(|v| !v.is_empty());
                        self.st.sink.producer(p);
                    }
                }
                "summary" | "totals" | "stats" => {
                    if let Some(s) = map.next_value::<Option<Summary>>()? {
                        summary = Some(s);
                    }
                }
                "extra" => {
                    if let Some(extra) = map.next_value::<Option<ResultsExtra>>()? {
                        self.st.run_extra(extra);
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !tests_seen {
            return Err(de::Error::custom("missing `results.tests` array"));
        }
        if let Some(s) = summary {
            self.st.check_summary(&s);
        }
        Ok(())
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

    /// `results.summary` as evidence beside the tests read, counted the way CTRF counts: by
    /// each test's own `status`. `skipped`, `pending` and `other` are tests that did not pass
    /// and did not fail: compared as one sum.
    fn check_summary(&mut self, s: &Summary) {
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
            Evidence::new(EvidenceSource::SummaryObject, "results.summary")
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

/// A summary count as JSON gives it: a non-negative integer (exact up to `u64::MAX`), else its
/// text (`10.5`, `-1`, `"3"`).
fn count(v: &Value) -> DeclaredCount {
    match v.as_u64() {
        Some(n) => DeclaredCount::Number(n),
        None => DeclaredCount::Unreadable(v.to_string()),
    }
}

struct TestsSeed<'a, 's> {
    st: &'a mut State<'s>,
}

impl<'de> DeserializeSeed<'de> for TestsSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for TestsSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`results.tests` to be an array of test objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(raw) = seq.next_element_seed(RawTestSeed(&mut self.st.suite))? {
            self.st.test(raw);
        }
        Ok(())
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
