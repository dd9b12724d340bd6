//! The pytest-json-report reader (`pytest --json-report`): one JSON document with `exitcode`,
//! `summary`, `collectors[]` and `tests[]`, each test with its `setup`, `call` and `teardown`
//! phases.
//!
//! The document is read with typed, borrowed deserialisation and the `tests` array is streamed
//! element by element into the sink, so no test list is built. A document cut off part way keeps
//! every complete test and reports `truncated`.

use gapscore_adapter_sdk::Code;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use gapscore_adapter_sdk::text::push_capped;
use gapscore_adapter_sdk::{
    Category, Declared, DeclaredCount, EventSink, Evidence, EvidenceSource, InputError, Location,
    Problem, ProblemKind, Producer, ReadCounts, Status,
};

use crate::common::{
    Markers, NodeId, Str, error_headline, exit_evidence, exit_problem, json_error, module_skipped,
    skip_location_repr, skip_reason, skipped_collector,
};

/// Reads a pytest-json-report document and pushes what it holds into `sink`.
pub fn parse(input: &[u8], sink: &mut dyn EventSink) -> Result<(), InputError> {
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    if input.iter().all(u8::is_ascii_whitespace) {
        return Err(InputError::Empty(
            "empty file: expected a pytest-json-report JSON object".into(),
        ));
    }
    let mut state = State::default();
    // One UTF-8 check of the whole input is cheaper than serde_json's check of each string.
    // An incomplete character at the very end is a cut file: the JSON reader then reports
    // the document as truncated.
    let text = match std::str::from_utf8(input) {
        Ok(t) => t,
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&input[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(e) => {
            return Err(InputError::Syntax {
                location: Location::Offset(e.valid_up_to() as u64),
                message: "invalid UTF-8".into(),
            });
        }
    };
    // A key given twice in one object says two things about one field: refused, at any depth.
    gapscore_adapter_sdk::json::check_unique_keys(input)?;
    let mut de = serde_json::Deserializer::from_str(text);
    let result = RootSeed {
        sink,
        state: &mut state,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    match result {
        Ok(()) => {
            finish(&state, sink, None);
            Ok(())
        }
        Err(e) if e.is_eof() => {
            finish(&state, sink, Some(input.len()));
            Ok(())
        }
        Err(e) => Err(json_error(&e, 0)),
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
    /// Root keys seen, for the duplicate-key check.
    root_keys: HashSet<String>,
    /// The current test's captured output, gathered here and kept for the next test.
    output: String,
}

fn finish(state: &State, sink: &mut dyn EventSink, cut_at: Option<usize>) {
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

struct RootSeed<'a> {
    sink: &'a mut dyn EventSink,
    state: &'a mut State,
}

impl<'de> DeserializeSeed<'de> for RootSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RootSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a pytest-json-report JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if !self.state.root_keys.insert(key.as_ref().to_owned()) {
                return Err(de::Error::custom(format!("duplicate key `{key}`")));
            }
            match key.as_ref() {
                "exitcode" => self.state.exitcode = map.next_value()?,
                "summary" => self.state.summary = map.next_value()?,
                "environment" => {
                    let env: Option<Environment> = map.next_value()?;
                    self.state.pytest_version = env
                        .and_then(|e| e.packages)
                        .and_then(|mut p| p.remove("pytest"))
                        .and_then(|v| v.as_str().map(str::to_owned));
                }
                "collectors" => map.next_value_seed(CollectorsSeed {
                    sink: &mut *self.sink,
                    state: &mut *self.state,
                })?,
                "tests" => {
                    self.state.saw_tests = true;
                    map.next_value_seed(TestsSeed {
                        sink: &mut *self.sink,
                        state: &mut *self.state,
                    })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

#[derive(Deserialize)]
struct Environment {
    #[serde(default, rename = "Packages")]
    packages: Option<HashMap<String, serde_json::Value>>,
}

struct CollectorsSeed<'a> {
    sink: &'a mut dyn EventSink,
    state: &'a mut State,
}

impl<'de> DeserializeSeed<'de> for CollectorsSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for CollectorsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`collectors` to be an array of collector objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(c) = seq.next_element::<Collector<'de>>()? {
            self.state.collected_items +=
                c.result.iter().filter(|item| item.is_test()).count() as u64;
            match c.outcome.as_ref() {
                "passed" => {}
                "failed" | "error" => {
                    self.state.failed_collectors += 1;
                    let text = c.longrepr.as_deref().unwrap_or("");
                    let head = error_headline(text);
                    let mut detail = format!("collecting `{}` failed: {head}", c.nodeid);
                    if !text.is_empty() && text.trim() != head {
                        detail.push_str("\n\n");
                        detail.push_str(text);
                    }
                    self.sink.problem(
                        Problem::new(ProblemKind::CollectionError, detail)
                            .with_suite(c.nodeid.into_owned()),
                    );
                }
                "skipped" => {
                    let reason = skip_reason(c.longrepr.as_deref().unwrap_or("no reason given"));
                    self.sink.problem(module_skipped(&c.nodeid, reason));
                    self.sink
                        .test_finished(skipped_collector(&c.nodeid, reason));
                }
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown collector outcome `{other}` for `{}`",
                        c.nodeid
                    )));
                }
            }
        }
        Ok(())
    }
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

struct TestsSeed<'a> {
    sink: &'a mut dyn EventSink,
    state: &'a mut State,
}

impl<'de> DeserializeSeed<'de> for TestsSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for TestsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`tests` to be an array of test objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(raw) = seq.next_element::<RawTest<'de>>()? {
            count_outcome(self.state, &raw.outcome);
            let (status, message) = fold(&raw).map_err(de::Error::custom)?;
            if raw.setup.is_some() && raw.call.is_none() && raw.teardown.is_none() {
                self.state.stopped_in.push(raw.nodeid.clone().into_owned());
            }
            if matches!(status, Status::Errored | Status::Failed)
                && !matches!(raw.outcome.as_ref(), "error" | "failed")
            {
                self.state.folded_errors += 1;
            }
            self.state.tests += 1;
            send(
                &raw,
                status,
                message.as_deref(),
                &mut self.state.output,
                &mut *self.sink,
            );
        }
        Ok(())
    }
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

#[derive(Deserialize)]
struct RawTest<'a> {
    #[serde(borrow)]
    nodeid: Cow<'a, str>,
    #[serde(default)]
    lineno: Option<u32>,
    #[serde(borrow)]
    outcome: Cow<'a, str>,
    #[serde(default, borrow)]
    keywords: Markers<'a>,
    #[serde(default, borrow)]
    setup: Option<Phase<'a>>,
    #[serde(default, borrow)]
    call: Option<Phase<'a>>,
    #[serde(default, borrow)]
    teardown: Option<Phase<'a>>,
}

#[derive(Deserialize)]
struct Phase<'a> {
    #[serde(default)]
    duration: Option<f64>,
    #[serde(borrow)]
    outcome: Cow<'a, str>,
    #[serde(default, borrow)]
    crash: Option<Crash<'a>>,
    #[serde(default, borrow)]
    longrepr: Option<Str<'a>>,
    #[serde(default, borrow)]
    stdout: Option<Str<'a>>,
    #[serde(default, borrow)]
    stderr: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct Crash<'a> {
    #[serde(default, borrow)]
    message: Option<Str<'a>>,
}

impl Phase<'_> {
    fn failed(&self) -> bool {
        matches!(self.outcome.as_ref(), "failed" | "error")
    }

    /// The phase's failure text: the full `longrepr` (the traceback pytest prints), else the
    /// crash message.
    fn message(&self) -> Option<&str> {
        self.longrepr
            .as_deref()
            .filter(|s| !s.is_empty())
            .or_else(|| self.crash.as_ref().and_then(|c| c.message.as_deref()))
    }
}

/// Folds one test's phases into one status and message. A failed setup or teardown makes the
/// test errored whatever its call did; a failed call followed by a failed teardown keeps both
/// messages. The message borrows the phase's text unless the folding writes one.
fn fold<'r>(raw: &'r RawTest<'_>) -> Result<(Status, Option<Cow<'r, str>>), String> {
    let declared = match raw.outcome.as_ref() {
        "passed" => Status::Passed,
        "failed" => Status::Failed,
        "error" => Status::Errored,
        "skipped" => Status::Skipped,
        "xfailed" => Status::Xfailed,
        "xpassed" => Status::Xpassed,
        other => {
            return Err(format!(
                "unknown outcome `{other}` for `{}` (expected passed, failed, error, skipped, xfailed or xpassed)",
                raw.nodeid
            ));
        }
    };
    let setup_failed = raw.setup.as_ref().is_some_and(Phase::failed);
    let teardown_failed = raw.teardown.as_ref().is_some_and(Phase::failed);
    let (status, message): (Status, Option<Cow<'r, str>>) = if setup_failed {
        (
            Status::Errored,
            raw.setup
                .as_ref()
                .and_then(Phase::message)
                .map(Cow::Borrowed),
        )
    } else if teardown_failed {
        let tear = raw.teardown.as_ref().and_then(Phase::message);
        let call = raw
            .call
            .as_ref()
            .filter(|c| c.failed())
            .and_then(Phase::message);
        let message = match (call, tear) {
            (Some(c), Some(t)) => Some(Cow::Owned(format!("{c}\n\nerror at teardown:\n{t}"))),
            (c, t) => t.or(c).map(Cow::Borrowed),
        };
        (Status::Errored, message)
    } else {
        let message = match declared {
            Status::Skipped => raw
                .call
                .as_ref()
                .or(raw.setup.as_ref())
                .and_then(|p| p.longrepr.as_deref())
                .map(skip_reason),
            Status::Passed => None,
            _ => raw
                .call
                .as_ref()
                .and_then(Phase::message)
                .or_else(|| raw.setup.as_ref().and_then(Phase::message)),
        };
        (declared, message.map(Cow::Borrowed))
    };
    Ok(match status {
        Status::Passed | Status::Xpassed => contradiction(raw)
            .map(|(s, m)| (s, m.map(Cow::Owned)))
            .unwrap_or((status, message)),
        _ => (status, message),
    })
}

/// What a test whose outcome says it passed really did, when its phases say otherwise: a
/// failed call phase, or a `crash` in any phase (pytest-json-report writes one only for a
/// phase that failed), makes it failed (errored for setup or teardown); a setup without
/// a call phase (the run stopped inside the test, or `--setup-only`) makes it errored, since
/// its body never ran. `None` when the phases agree (or the test has none to read).
fn contradiction(raw: &RawTest<'_>) -> Option<(Status, Option<String>)> {
    // Not `longrepr` alone: under pytest-xdist every phase, passed ones too, carries one
    // naming the worker (`[gw0] linux -- Python 3.11.7 ...`).
    let evidence = |p: &Phase<'_>| p.failed() || p.crash.is_some();
    if let Some(call) = raw.call.as_ref().filter(|c| evidence(c)) {
        let said = call.message().unwrap_or_default();
        return Some((
            Status::Failed,
            Some(format!(
                "the report says `{}` but its call phase is `{}` with a failure:\n{said}",
                raw.outcome, call.outcome
            )),
        ));
    }
    for (name, phase) in [("setup", &raw.setup), ("teardown", &raw.teardown)] {
        if let Some(p) = phase.as_ref().filter(|p| evidence(p)) {
            let said = p.message().unwrap_or_default();
            return Some((
                Status::Errored,
                Some(format!(
                    "the report says `{}` but its {name} phase holds a failure:\n{said}",
                    raw.outcome
                )),
            ));
        }
    }
    if raw.setup.is_some() && raw.call.is_none() {
        let why = if raw.teardown.is_none() {
            "the run stopped after its setup (KeyboardInterrupt or pytest.exit())"
        } else {
            "it has setup and teardown phases only (--setup-only or an edited report)"
        };
        return Some((
            Status::Errored,
            Some(format!(
                "the report says `{}` but the test's call phase never ran: {why}",
                raw.outcome
            )),
        ));
    }
    None
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
