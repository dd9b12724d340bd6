//! The pytest-json-report reader (`pytest --json-report`): one JSON document with `exitcode`,
//! `summary`, `collectors[]` and `tests[]`, each test with its `setup`, `call` and `teardown`
//! phases.
//!
//! The document is read with typed, borrowed deserialisation and the `tests` array is streamed
//! element by element into the sink, so no test list is built. A document cut off part way keeps
//! every complete test and reports `truncated`.

use gapscore_adapter_sdk::Code;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::io::BufRead;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

use gapscore_adapter_sdk::json::stream::{self, StreamError, Want};
use gapscore_adapter_sdk::text::push_capped;
use gapscore_adapter_sdk::{
    AdapterError, Category, Declared, DeclaredCount, EventSink, Evidence, EvidenceSource,
    InputError, Location, Problem, ProblemKind, Producer, ReadCounts, Status,
};

use crate::common::{
    NodeId, error_headline, exit_evidence, exit_problem, module_skipped, skip_location_repr,
    skip_reason, skipped_collector,
};

mod entry;

use entry::{RawTest, fold};

/// Reads a pytest-json-report document and pushes what it holds into `sink`.
pub fn parse(input: &[u8], sink: &mut dyn EventSink) -> Result<(), InputError> {
    match parse_reader(&mut &input[..], sink) {
        Ok(()) => Ok(()),
        // Invalid UTF-8 stays at its byte offset, which the host places.
        Err(AdapterError::Input(e)) => Err(e),
        // A slice cannot fail to read.
        Err(e) => Err(InputError::Unlocated(e.to_string())),
    }
}

/// Reads a pytest-json-report document from a stream (`json::stream`): the session's keys
/// whole, each `collectors` and `tests` entry on its own, so memory holds the largest entry,
/// never the document. A document cut off part way keeps every complete test and reports
/// `truncated`; invalid UTF-8 is placed by its byte offset, which the host (or [`parse`])
/// turns into a line and a column.
pub fn parse_reader<R: BufRead + ?Sized>(
    reader: &mut R,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    let mut state = State::default();
    let mut root = Root {
        sink: &mut *sink,
        state: &mut state,
        refused: None,
    };
    let outcome = stream::visit(reader, Want::Descend, &mut root);
    let refused = root.refused.take();
    match outcome {
        Ok(outcome) => {
            if let (Some(message), Some(end)) = (refused, outcome.truncated_at()) {
                // Refused after the last entry before the cut: placed at the end, as reading
                // the whole document placed it.
                return Err(at(end.line, end.column, message).into());
            }
            let cut_at = outcome.truncated_at().map(|end| end.offset);
            finish(&state, sink, cut_at);
            Ok(())
        }
        Err(StreamError::Empty) => Err(InputError::Empty(
            "empty file: expected a pytest-json-report JSON object".into(),
        )
        .into()),
        Err(StreamError::InvalidUtf8 { at }) => Err(InputError::Syntax {
            location: Location::Offset(at.offset),
            message: "invalid UTF-8".into(),
        }
        .into()),
        Err(e) => Err(e.into()),
    }
}

/// A value's typed parse, placed in the file on error. The value the input was cut in gives
/// `None` when its parse met the cut (the cut is reported as `truncated`), as reading the
/// whole document stopped there.
fn parsed<'t, T: Deserialize<'t>>(value: &stream::Value<'t>) -> Result<Option<T>, StreamError> {
    match serde_json::from_str(value.text) {
        Ok(t) => Ok(Some(t)),
        Err(e) if !value.complete && e.is_eof() => Ok(None),
        Err(e) => Err(value.json_error(&e).into()),
    }
}

/// An entry refused for what it says (an unknown outcome), at `line:column`.
fn at(line: usize, column: usize, message: String) -> InputError {
    InputError::Content {
        location: Location::LineCol {
            line,
            column: column.max(1),
        },
        message,
    }
}

/// A value of the wrong shape, refused in the typed reader's words (`expected ...`); a cut
/// one is `truncated`, as reading the whole document found it.
fn refused<'t, S: DeserializeSeed<'t>>(
    value: &stream::Value<'t>,
    seed: S,
) -> Result<(), StreamError> {
    let mut de = serde_json::Deserializer::from_str(value.text);
    match seed.deserialize(&mut de) {
        Err(e) if !e.is_eof() || value.complete => Err(value.json_error(&e).into()),
        _ => Ok(()),
    }
}

/// What the document said outside its tests, and what was counted while reading them.
#[derive(Default)]
struct State {
    exitcode: Option<i64>,
    summary: Option<Summary>,
    pytest_version: Option<String>,
    /// Tests read, by the document's own `outcome` spelling (what `summary` counts).
    outcomes: HashMap<String, u64>,
    tests: u64,
    saw_tests: bool,
    failed_collectors: u64,
    /// Tests the folding made errored or failed though their own outcome says otherwise (a
    /// teardown error, a failed call or a call that never ran on a test whose outcome is
    /// `passed`).
    folded_errors: u64,
    /// Entries of the collectors' `result`s that are items (not collectors) and not marked
    /// deselected: the tests the collectors list to run.
    collected_items: u64,
    /// Tests with a setup phase and neither a call nor a teardown: the run stopped inside them
    /// (KeyboardInterrupt, `pytest.exit()`).
    stopped_in: Vec<String>,
    /// The current test's captured output, gathered here and kept for the next test.
    output: String,
}

fn finish(state: &State, sink: &mut dyn EventSink, cut_at: Option<u64>) {
    let mut producer = Producer::new("pytest");
    producer.version.clone_from(&state.pytest_version);
    sink.producer(producer);
    if let Some(at) = cut_at {
        let declared = state
            .summary
            .as_ref()
            .and_then(|s| match s.count("total") {
                Some(DeclaredCount::Number(n)) => Some(n),
                _ => None,
            })
            .map(|n| format!(" (its summary declares {n})"))
            .unwrap_or_default();
        sink.problem(Problem::new(
            ProblemKind::Truncated,
            format!(
                "the JSON report ends at byte {at} before the document is complete: pytest was killed while writing it or the file was cut; {} complete tests kept{declared}",
                state.tests
            ),
        ));
    }
    // A cut document's summary describes a file that is not all here: the cut is the problem,
    // and comparing the summary with the tests kept would count it twice.
    let summary = state
        .summary
        .as_ref()
        .filter(|_| cut_at.is_none())
        .map(|s| summary_evidence(s, state));
    let mut problems = state.failed_collectors;
    if let Some(e) = &summary {
        // What the summary finds explains a failed exit status as a recorded failure would.
        problems += e.judge().problems.len() as u64;
    }
    if cut_at.is_none() && !state.saw_tests {
        sink.coded_warning(
            Code::ResultsNotListed,
            "the report has no `tests` array (written with --json-report-omit or --json-report-summary?): no test results in it; what its summary declares counts".into(),
        );
    }
    let items = state.collected_items;
    let declared = summary
        .as_ref()
        .and_then(|e| match e.declared.tests {
            Some(DeclaredCount::Number(n)) => Some(n),
            _ => None,
        })
        .unwrap_or(0);
    if cut_at.is_none() && items > state.tests && items > declared {
        // The collectors' items are weaker evidence than the summary (a conftest that drops
        // items without deselecting them leaves them listed): a warning, not a problem.
        sink.coded_warning(
            Code::DeclaredCountMismatch,
            format!(
                "the report's collectors list {items} items to run but it holds results for {}",
                state.tests
            ),
        );
    }
    if let Some(e) = summary {
        sink.evidence(e);
    }
    let interrupted = !state.stopped_in.is_empty();
    if interrupted {
        problems += 1;
        let code = state
            .exitcode
            .map(|c| format!(" (exit status {c})"))
            .unwrap_or_default();
        sink.problem(Problem::new(
            ProblemKind::Interrupted,
            format!(
                "pytest was interrupted{code} inside {}: KeyboardInterrupt or pytest.exit() stopped the run after the test's setup, so its call phase never ran and the tests after it did not run",
                names(&state.stopped_in)
            ),
        ));
    }
    // The interruption already stands for exit status 2 (interrupted).
    if let Some(p) = state
        .exitcode
        .filter(|&c| !(interrupted && c == 2))
        .and_then(exit_problem)
    {
        problems += 1;
        sink.problem(p);
    }
    if cut_at.is_none()
        && let Some(code) = state.exitcode
    {
        let n = |k: &str| state.outcomes.get(k).copied().unwrap_or(0);
        let failed = n("failed") + n("error") + state.failed_collectors + state.folded_errors;
        sink.evidence(exit_evidence(code, state.tests, failed, problems));
    }
}

/// Node ids as a list for a message: `a`, `b` (the first five, then how many more).
fn names(ids: &[String]) -> String {
    let mut s: Vec<String> = ids.iter().take(5).map(|id| format!("`{id}`")).collect();
    if ids.len() > 5 {
        s.push(format!("and {} more", ids.len() - 5));
    }
    s.join(", ")
}

/// The report's `summary` as evidence beside its tests, counted the way pytest-json-report
/// counts. It writes `collected` (every collected item, deselected ones included),
/// `deselected` (`-k`, `-m`, `--deselect`, `--lf`) and `total` (the tests it has results for):
/// the tests to run are the larger of `collected - deselected` and `total`. Its `failed` and
/// `error` count tests by their own `outcome` (a teardown error of a passing test is counted
/// as the report's outcome says, so the folded status is not compared); some versions count
/// failed collectors among the errors, so those are read as errors when the summary does.
fn summary_evidence(summary: &Summary, state: &State) -> Evidence {
    let n = |k: &str| state.outcomes.get(k).copied().unwrap_or(0);
    let collected = summary.count("collected");
    let deselected = summary.count("deselected");
    let total = summary.count("total");
    let unreadable = [&collected, &deselected, &total]
        .into_iter()
        .flatten()
        .find(|c| matches!(c, DeclaredCount::Unreadable(_)))
        .cloned();
    let number = |c: &Option<DeclaredCount>| match c {
        Some(DeclaredCount::Number(n)) => Some(*n),
        _ => None,
    };
    let to_run = number(&collected).map(|c| c.saturating_sub(number(&deselected).unwrap_or(0)));
    let tests = unreadable.or_else(|| {
        to_run
            .into_iter()
            .chain(number(&total))
            .max()
            .map(DeclaredCount::Number)
    });
    let error = summary.count("error");
    let collectors_as_errors = state.failed_collectors > 0
        && number(&error).is_some_and(|e| e >= n("error") + state.failed_collectors);
    let read_failed = n("failed")
        + n("error")
        + if collectors_as_errors {
            state.failed_collectors
        } else {
            0
        };
    let mut declared = Declared::new();
    if let Some(t) = tests {
        declared = declared.tests(t);
    }
    if let Some(f) = DeclaredCount::saturating_sum(summary.count("failed"), error) {
        declared = declared.failed(f);
    }
    if let Some(k) = summary.count("skipped") {
        declared = declared.skipped(k);
    }
    if let Some(p) = summary.count("passed") {
        declared = declared.passed(p);
    }
    let said: Vec<String> = [
        ("collected", &collected),
        ("deselected", &deselected),
        ("total", &total),
    ]
    .into_iter()
    .filter_map(|(k, c)| match c {
        Some(DeclaredCount::Number(n)) => Some(format!("{k} {n}")),
        Some(DeclaredCount::Unreadable(t)) => Some(format!("{k} {t}")),
        None => None,
    })
    .collect();
    let place = if said.is_empty() {
        "the report's `summary`".to_owned()
    } else {
        format!("the report's `summary` ({})", said.join(", "))
    };
    Evidence::new(EvidenceSource::SummaryObject, place)
        .declaring(declared)
        .reading(
            ReadCounts::new(state.tests, read_failed, n("skipped"))
                .with_problems(state.failed_collectors)
                .with_passed(n("passed")),
        )
}

/// The report's `summary` object: its counts by key. A key written twice is an input error
/// (which of two counts is the report's?).
struct Summary(HashMap<String, serde_json::Value>);

impl Summary {
    /// A count the summary declares; a value that is not a non-negative integer is kept as
    /// its JSON text (`3.0`, `"3"`, `-1`), never dropped.
    fn count(&self, key: &str) -> Option<DeclaredCount> {
        self.0.get(key).map(|v| match v.as_u64() {
            Some(n) => DeclaredCount::Number(n),
            None => DeclaredCount::Unreadable(v.to_string()),
        })
    }
}

impl<'de> Deserialize<'de> for Summary {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Summary;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`summary` to be an object of counts")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Summary, A::Error> {
                let mut out = HashMap::new();
                while let Some(k) = map.next_key::<String>()? {
                    let v = map.next_value::<serde_json::Value>()?;
                    if out.contains_key(&k) {
                        return Err(de::Error::custom(format!(
                            "duplicate key `{k}` in `summary`"
                        )));
                    }
                    out.insert(k, v);
                }
                Ok(Summary(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The root object: what each member is wanted for. A key given twice is refused by the
/// stream before its second value.
struct Root<'a> {
    sink: &'a mut dyn EventSink,
    state: &'a mut State,
    /// An entry refused for what it says, reported where serde_json reported it reading the
    /// whole document: once the array goes on (the byte before the next entry) or closes
    /// (its `]`), or the input ends.
    refused: Option<String>,
}

impl stream::Visitor for Root<'_> {
    // `element` parses each element whole with serde_json, which judges its syntax.
    fn parses_elements(&self) -> bool {
        true
    }

    fn member(&mut self, path: &[String], key: &str) -> Want {
        if !path.is_empty() {
            return Want::Skip;
        }
        match key {
            "exitcode" | "summary" | "environment" => Want::Whole,
            "collectors" => Want::Elements,
            "tests" => {
                self.state.saw_tests = true;
                Want::Elements
            }
            _ => Want::Skip,
        }
    }

    fn element(&mut self, path: &[String], element: stream::Value<'_>) -> Result<(), StreamError> {
        if let Some(message) = self.refused.take() {
            let e = at(element.at.line, element.at.column - 1, message);
            return Err(e.into());
        }
        self.refused = match path.first().map(String::as_str) {
            Some("collectors") => parsed::<Collector<'_>>(&element)?
                .and_then(|c| collector(c, self.state, self.sink).err()),
            _ => parsed::<RawTest<'_>>(&element)?
                .and_then(|raw| test(&raw, self.state, self.sink).err()),
        };
        Ok(())
    }

    fn array_end(&mut self, _path: &[String], end: stream::Position) -> Result<(), StreamError> {
        match self.refused.take() {
            Some(message) => Err(at(end.line, end.column, message).into()),
            None => Ok(()),
        }
    }

    fn whole(&mut self, path: &[String], value: stream::Value<'_>) -> Result<(), StreamError> {
        match path.first().map(String::as_str) {
            None => refused(&value, RootShape),
            Some("collectors") => refused(
                &value,
                Shape("`collectors` to be an array of collector objects"),
            ),
            Some("tests") => refused(&value, Shape("`tests` to be an array of test objects")),
            Some("exitcode") => {
                self.state.exitcode = parsed::<Option<i64>>(&value)?.flatten();
                Ok(())
            }
            Some("summary") => {
                self.state.summary = parsed::<Option<Summary>>(&value)?.flatten();
                Ok(())
            }
            _ => {
                let env = parsed::<Option<Environment>>(&value)?.flatten();
                self.state.pytest_version = env
                    .and_then(|e| e.packages)
                    .and_then(|mut p| p.remove("pytest"))
                    .and_then(|v| v.as_str().map(str::to_owned));
                Ok(())
            }
        }
    }
}

/// The root as the typed reader expects it, for a root that is not an object.
struct RootShape;

impl<'de> DeserializeSeed<'de> for RootShape {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RootShape {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a pytest-json-report JSON object")
    }
}

/// An array as the typed reader expects it, for a `collectors` or `tests` that is not one.
struct Shape(&'static str);

impl<'de> DeserializeSeed<'de> for Shape {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Shape {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

#[derive(Deserialize)]
struct Environment {
    #[serde(default, rename = "Packages")]
    packages: Option<HashMap<String, serde_json::Value>>,
}

/// One `collectors` entry: its items counted, a failed or skipped collector reported.
fn collector(c: Collector<'_>, state: &mut State, sink: &mut dyn EventSink) -> Result<(), String> {
    state.collected_items += c.result.iter().filter(|item| item.is_test()).count() as u64;
    match c.outcome.as_ref() {
        "passed" => {}
        "failed" | "error" => {
            state.failed_collectors += 1;
            let text = c.longrepr.as_deref().unwrap_or("");
            let head = error_headline(text);
            let mut detail = format!("collecting `{}` failed: {head}", c.nodeid);
            if !text.is_empty() && text.trim() != head {
                detail.push_str("\n\n");
                detail.push_str(text);
            }
            sink.problem(
                Problem::new(ProblemKind::CollectionError, detail)
                    .with_suite(c.nodeid.into_owned()),
            );
        }
        "skipped" => {
            let reason = skip_reason(c.longrepr.as_deref().unwrap_or("no reason given"));
            sink.problem(module_skipped(&c.nodeid, reason));
            sink.test_finished(skipped_collector(&c.nodeid, reason));
        }
        other => {
            return Err(format!(
                "unknown collector outcome `{other}` for `{}`",
                c.nodeid
            ));
        }
    }
    Ok(())
}

#[derive(Deserialize)]
struct Collector<'a> {
    #[serde(borrow)]
    nodeid: Cow<'a, str>,
    #[serde(borrow)]
    outcome: Cow<'a, str>,
    #[serde(default)]
    longrepr: Option<String>,
    #[serde(default, borrow)]
    result: Vec<CollectItem<'a>>,
}

/// One entry of a collector's `result`: a collector or an item it collected.
#[derive(Deserialize)]
struct CollectItem<'a> {
    #[serde(borrow)]
    nodeid: Cow<'a, str>,
    /// The node's class (`Function`, `Module`, `Class`, …).
    #[serde(default, rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    /// `true` when `-k`, `-m`, `--deselect` or `--lf` deselected the item.
    #[serde(default)]
    deselected: Option<bool>,
}

impl CollectItem<'_> {
    /// An item to run: not a collector (by its `type`; an entry without one is an item when
    /// its node id names something inside a file, `::`), not deselected.
    fn is_test(&self) -> bool {
        let collector = match self.kind.as_deref() {
            Some(kind) => matches!(
                kind,
                "Session"
                    | "Dir"
                    | "Directory"
                    | "Package"
                    | "Module"
                    | "Class"
                    | "Instance"
                    | "UnitTestCase"
                    | "DoctestModule"
                    | "DoctestTextfile"
            ),
            None => !self.nodeid.contains("::"),
        };
        !collector && self.deselected != Some(true)
    }
}

/// One `tests` entry: counted, folded and handed to the sink.
fn test(raw: &RawTest<'_>, state: &mut State, sink: &mut dyn EventSink) -> Result<(), String> {
    count_outcome(state, &raw.outcome);
    let (status, message) = fold(raw)?;
    if raw.setup.is_some() && raw.call.is_none() && raw.teardown.is_none() {
        state.stopped_in.push(raw.nodeid.clone().into_owned());
    }
    if matches!(status, Status::Errored | Status::Failed)
        && !matches!(raw.outcome.as_ref(), "error" | "failed")
    {
        state.folded_errors += 1;
    }
    state.tests += 1;
    send(raw, status, message.as_deref(), &mut state.output, sink);
    Ok(())
}

/// Hands one folded test to the sink, borrowed: its id, suite, name and file are slices of the
/// node id, its message borrows the phase's text unless the folding wrote one, and its output
/// is gathered in a buffer kept for the next test. A passing test costs no allocation.
fn send(
    raw: &RawTest<'_>,
    status: Status,
    message: Option<&str>,
    output: &mut String,
    sink: &mut dyn EventSink,
) {
    let nodeid: &str = &raw.nodeid;
    let parts = NodeId::split(nodeid);
    let mut test = parts.test_ref(nodeid, status);
    test.message = message;
    // pytest's line numbers are 0-based; the model's are 1-based.
    test.line = raw.lineno.and_then(|l| l.checked_add(1));
    // Where the skip was decided: the skipping phase's `(path, line, reason)`.
    let decided_at = (status == Status::Skipped)
        .then(|| {
            [&raw.call, &raw.setup]
                .into_iter()
                .flatten()
                .filter(|p| p.outcome == "skipped")
                .find_map(|p| p.longrepr.as_deref().and_then(skip_location_repr))
        })
        .flatten();
    test.decided_at = decided_at.as_deref();
    output.clear();
    let mut has_output = false;
    let mut duration = None;
    for phase in [&raw.setup, &raw.call, &raw.teardown].into_iter().flatten() {
        if let Some(d) = phase.duration.filter(|d| d.is_finite() && *d >= 0.0) {
            *duration.get_or_insert(0.0) += d;
        }
        for text in [&phase.stdout, &phase.stderr].into_iter().flatten() {
            // As `push_output`: an empty text adds nothing, not even an empty output.
            if !text.is_empty() {
                push_capped(output, text);
                has_output = true;
            }
        }
    }
    test.duration = duration;
    test.output = has_output.then_some(output.as_str());
    test.category = raw
        .keywords
        .category(nodeid)
        .or_else(|| Category::from_title(parts.name));
    sink.test_finished_ref(test);
}

/// Counts the document's own outcome of a test, for the summary check: kept apart from the
/// folded status so a teardown error (errored here, `passed` or `failed` in some versions'
/// summaries) does not make a consistent document look inconsistent.
fn count_outcome(state: &mut State, outcome: &str) {
    match state.outcomes.get_mut(outcome) {
        Some(n) => *n += 1,
        None => {
            state.outcomes.insert(outcome.to_owned(), 1);
        }
    }
}
