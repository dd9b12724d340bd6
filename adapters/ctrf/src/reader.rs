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
//! - `summary` counts that disagree with the tests → a warning.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::writer::ctrf_status;
use gapscore_adapter_sdk::text::{TEXT_CAP, push_capped};
use gapscore_adapter_sdk::{
    Attempt, Category, EventSink, InputError, Problem, ProblemKind, Producer, Status, TestCase,
};

/// Attempts synthesised from a bare `retries` count are capped: the count is a number in the
/// file, not evidence of that many records.
const MAX_SYNTHETIC_ATTEMPTS: usize = 100;

/// The five CTRF statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CtrfStatus {
    Passed = 0,
    Failed = 1,
    Skipped = 2,
    Pending = 3,
    Other = 4,
}

const CTRF_NAMES: [&str; 5] = ["passed", "failed", "skipped", "pending", "other"];

impl CtrfStatus {
    fn name(self) -> &'static str {
        CTRF_NAMES[self as usize]
    }
}

impl<'de> Deserialize<'de> for CtrfStatus {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Cow::<'de, str>::deserialize(d)?;
        Ok(match s.as_ref() {
            "passed" => CtrfStatus::Passed,
            "failed" => CtrfStatus::Failed,
            "skipped" => CtrfStatus::Skipped,
            "pending" => CtrfStatus::Pending,
            "other" => CtrfStatus::Other,
            other => {
                // Case differences are tolerated; any other word is an error, never a guess.
                let lower = other.to_ascii_lowercase();
                match CTRF_NAMES.iter().position(|n| *n == lower) {
                    Some(0) => CtrfStatus::Passed,
                    Some(1) => CtrfStatus::Failed,
                    Some(2) => CtrfStatus::Skipped,
                    Some(3) => CtrfStatus::Pending,
                    Some(_) => CtrfStatus::Other,
                    None => {
                        return Err(de::Error::custom(format!(
                            "unknown status `{other}` (expected one of passed, failed, skipped, pending, other)"
                        )));
                    }
                }
            }
        })
    }
}

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
    let mut state = State {
        sink,
        tests: 0,
        seen: [0; 5],
        place: Place::Root,
        interrupted: 0,
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

#[derive(Deserialize)]
struct Tool<'a> {
    #[serde(default, borrow)]
    name: Option<BStr<'a>>,
    #[serde(default)]
    version: Option<AnyText>,
}

/// The counts of `results.summary` (`totals`/`stats` in early reporters); the rest is ignored.
#[derive(Deserialize)]
struct Summary {
    #[serde(default)]
    tests: Option<f64>,
    #[serde(default)]
    passed: Option<f64>,
    #[serde(default)]
    failed: Option<f64>,
    #[serde(default)]
    skipped: Option<f64>,
    #[serde(default)]
    pending: Option<f64>,
    #[serde(default)]
    other: Option<f64>,
}

/// The keys of `results.extra` that carry run-level trouble.
#[derive(Deserialize)]
struct ResultsExtra {
    /// gapscore's own: the problems of the runs it wrote.
    #[serde(default)]
    gapscore_problems: Option<Vec<ProblemIn>>,
    /// playwright-ctrf-json-reporter's run-level errors (global setup, worker crashes).
    #[serde(default)]
    errors: Option<Value>,
}

#[derive(Deserialize)]
struct ProblemIn {
    kind: ProblemKind,
    #[serde(default)]
    detail: String,
    #[serde(default)]
    suite: Option<String>,
    #[serde(default)]
    source: Option<String>,
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
            self.sink.problem(problem);
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

    fn check_summary(&mut self, s: &Summary) {
        let total: u64 = self.seen.iter().sum();
        let declared = [s.passed, s.failed, s.skipped, s.pending, s.other];
        let mut diffs = Vec::new();
        if let Some(t) = s.tests
            && t != total as f64
        {
            diffs.push(format!("tests {t} (read {total})"));
        }
        for (i, d) in declared.iter().enumerate() {
            if let Some(d) = d
                && *d != self.seen[i] as f64
            {
                diffs.push(format!("{} {d} (read {})", CTRF_NAMES[i], self.seen[i]));
            }
        }
        if !diffs.is_empty() {
            self.sink.warning(format!(
                "results.summary disagrees with results.tests: {}",
                diffs.join(", ")
            ));
        }
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
        while let Some(raw) = seq.next_element::<RawTest<'de>>()? {
            self.st.test(raw);
        }
        Ok(())
    }
}

/// One element of `results.tests`, as read: strings borrowed from the input where they hold no
/// escapes. Read by hand rather than derived so that keys are matched as raw bytes: a derived
/// reader checks every key for UTF-8, a fifth of the reader's time on reporter output with
/// twenty keys per test.
struct RawTest<'a> {
    name: Cow<'a, str>,
    status: CtrfStatus,
    duration: Option<f64>,
    suite: Option<SuitePath>,
    message: Option<Cow<'a, str>>,
    trace: Option<Cow<'a, str>>,
    line: Option<f64>,
    file_path: Option<Cow<'a, str>>,
    raw_status: Option<Cow<'a, str>>,
    tags: Option<TagCategory>,
    retries: Option<f64>,
    flaky: Option<bool>,
    retry_attempts: Option<Vec<RawAttempt<'a>>>,
    stdout: Option<Lines>,
    stderr: Option<Lines>,
    // Boxed: rare outside gapscore's own output, and large; the test is moved a few times.
    extra: Option<Box<TestExtra<'a>>>,
}

/// The keys of a test object that are read; everything else is skipped unparsed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Status,
    Duration,
    Suite,
    Message,
    Trace,
    Line,
    FilePath,
    RawStatus,
    Tags,
    Retries,
    Flaky,
    RetryAttempts,
    Stdout,
    Stderr,
    Extra,
    Ignored,
}

impl Field {
    fn of(key: &[u8]) -> Field {
        match key {
            b"name" => Field::Name,
            b"status" => Field::Status,
            b"duration" => Field::Duration,
            b"suite" => Field::Suite,
            b"message" => Field::Message,
            b"trace" => Field::Trace,
            b"line" => Field::Line,
            b"filePath" => Field::FilePath,
            b"rawStatus" => Field::RawStatus,
            b"tags" => Field::Tags,
            // `retry`, `flake` and `attempts` are the names of early playwright/cypress reporters.
            b"retries" | b"retry" => Field::Retries,
            b"flaky" | b"flake" => Field::Flaky,
            b"retryAttempts" | b"attempts" => Field::RetryAttempts,
            b"stdout" => Field::Stdout,
            b"stderr" => Field::Stderr,
            b"extra" => Field::Extra,
            _ => Field::Ignored,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Status => "status",
            Field::Duration => "duration",
            Field::Suite => "suite",
            Field::Message => "message",
            Field::Trace => "trace",
            Field::Line => "line",
            Field::FilePath => "filePath",
            Field::RawStatus => "rawStatus",
            Field::Tags => "tags",
            Field::Retries => "retries",
            Field::Flaky => "flaky",
            Field::RetryAttempts => "retryAttempts",
            Field::Stdout => "stdout",
            Field::Stderr => "stderr",
            Field::Extra => "extra",
            Field::Ignored => "",
        }
    }
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Field, E> {
                Ok(Field::of(b))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Field, E> {
                Ok(Field::of(s.as_bytes()))
            }
        }
        d.deserialize_bytes(V)
    }
}

impl<'de> Deserialize<'de> for RawTest<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawTest<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a test object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawTest<'de>, A::Error> {
                let mut name = None;
                let mut status = None;
                let mut t = RawTest {
                    name: Cow::Borrowed(""),
                    status: CtrfStatus::Other,
                    duration: None,
                    suite: None,
                    message: None,
                    trace: None,
                    line: None,
                    file_path: None,
                    raw_status: None,
                    tags: None,
                    retries: None,
                    flaky: None,
                    retry_attempts: None,
                    stdout: None,
                    stderr: None,
                    extra: None,
                };
                // Bit per field: a key given twice is an error, as with a derived reader.
                let mut seen = 0u32;
                while let Some(field) = map.next_key::<Field>()? {
                    if field == Field::Ignored {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    }
                    let bit = 1u32 << (field as u32);
                    if seen & bit != 0 {
                        return Err(de::Error::duplicate_field(field.name()));
                    }
                    seen |= bit;
                    match field {
                        Field::Name => name = Some(map.next_value::<BStr<'de>>()?.0),
                        Field::Status => status = Some(map.next_value::<CtrfStatus>()?),
                        Field::Duration => t.duration = map.next_value()?,
                        Field::Suite => t.suite = map.next_value()?,
                        Field::Message => t.message = opt(map.next_value()?),
                        Field::Trace => t.trace = opt(map.next_value()?),
                        Field::Line => t.line = map.next_value()?,
                        Field::FilePath => t.file_path = opt(map.next_value()?),
                        Field::RawStatus => t.raw_status = opt(map.next_value()?),
                        Field::Tags => t.tags = map.next_value()?,
                        Field::Retries => t.retries = map.next_value()?,
                        Field::Flaky => t.flaky = map.next_value()?,
                        Field::RetryAttempts => t.retry_attempts = map.next_value()?,
                        Field::Stdout => t.stdout = map.next_value()?,
                        Field::Stderr => t.stderr = map.next_value()?,
                        Field::Extra => t.extra = map.next_value()?,
                        Field::Ignored => {}
                    }
                }
                t.name = name.ok_or_else(|| de::Error::missing_field("name"))?;
                t.status = status.ok_or_else(|| de::Error::missing_field("status"))?;
                Ok(t)
            }
        }
        d.deserialize_map(V)
    }
}

#[derive(Deserialize)]
struct RawAttempt<'a> {
    status: CtrfStatus,
    #[serde(default)]
    duration: Option<f64>,
    #[serde(default, borrow)]
    message: Option<BStr<'a>>,
    #[serde(default, borrow)]
    trace: Option<BStr<'a>>,
}

/// A test's `extra`: the keys gapscore's writer puts there. Only `gapscore_status` and
/// `gapscore_id` are distinctive; the others are read only next to one of them, since another
/// tool may use `category` or `expected` for something else.
#[derive(Deserialize)]
struct TestExtra<'a> {
    #[serde(default, borrow)]
    gapscore_status: Option<BStr<'a>>,
    #[serde(default, borrow)]
    gapscore_id: Option<BStr<'a>>,
    #[serde(default)]
    duration_unknown: Option<Value>,
    #[serde(default)]
    gapscore_parent: Option<Value>,
    #[serde(default, borrow)]
    gapscore_parent_id: Option<BStr<'a>>,
    #[serde(default)]
    category: Option<Value>,
    #[serde(default)]
    expected: Option<Value>,
    #[serde(default)]
    actual: Option<Value>,
}

impl State<'_> {
    fn test(&mut self, raw: RawTest<'_>) {
        let index = self.tests;
        self.tests += 1;
        self.seen[raw.status as usize] += 1;

        let (mut status, interrupted) = refine(raw.status, raw.raw_status.as_deref());
        let extra = raw.extra.filter(|e| e.gapscore_status.is_some());
        let mut ours = false;
        if let Some(gs) = extra.as_ref().and_then(|e| e.gapscore_status.as_deref()) {
            match Status::ALL.iter().find(|s| s.as_str() == gs) {
                // Restored only when it agrees with the test's CTRF status by the writer's table, so an
                // edited `extra` cannot turn a failure into a pass.
                Some(&s) if ctrf_status(s) == raw.status.name() => {
                    status = s;
                    ours = true;
                }
                Some(_) => self.sink.warning(format!(
                    "results.tests[{index}] `{}`: extra.gapscore_status `{gs}` disagrees with status `{}`; the CTRF status is used",
                    raw.name,
                    raw.status.name()
                )),
                None => self.sink.warning(format!(
                    "results.tests[{index}] `{}`: unknown extra.gapscore_status `{gs}` ignored",
                    raw.name
                )),
            }
        }
        if interrupted && !ours {
            self.interrupted += 1;
        }

        let suite = raw.suite.and_then(|s| s.0);
        let name = raw.name.into_owned();
        let mut test = TestCase::new(suite, name, status);
        if let Some(e) = extra.as_ref()
            && let Some(id) = e.gapscore_id.as_deref().filter(|i| !i.is_empty())
        {
            test.id = id.to_owned();
        }
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
        test.message = join_message(raw.message, raw.trace);
        if status == Status::Errored && !ours && test.message.is_none() {
            // Say why a test CTRF did not call failed counts as errored.
            test.message = Some(match raw.raw_status.as_deref() {
                Some(r) => format!("CTRF status `{}`, rawStatus `{r}`", raw.status.name()),
                None => format!("CTRF status `{}`", raw.status.name()),
            });
        }
        test.file = raw.file_path.filter(|f| !f.is_empty()).map(Cow::into_owned);
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
            .or_else(|| Category::from_title(&test.name));
        if let Some(e) = extra {
            test.parent = e.gapscore_parent == Some(Value::Bool(true));
            test.parent_id = e
                .gapscore_parent_id
                .as_deref()
                .filter(|p| !p.is_empty())
                .map(str::to_owned);
            test.expected = e.expected.and_then(text);
            test.actual = e.actual.and_then(text);
        }
        test.output = match (raw.stdout, raw.stderr) {
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
        test.attempts = attempts(raw.retry_attempts, raw.retries, raw.flaky, test.status);
        self.sink.test_finished(test);
    }
}

/// The canonical status of a CTRF status and the tool's `rawStatus`; true when the test was
/// interrupted (the run stopped).
fn refine(status: CtrfStatus, raw: Option<&str>) -> (Status, bool) {
    let raw = raw.map(str::trim).unwrap_or("");
    let is = |w: &str| raw.eq_ignore_ascii_case(w);
    let timed_out = is("timedOut") || is("timeout") || is("timed_out");
    match status {
        // Playwright writes `passed` for a `test.fail()` test that failed as expected, keeping
        // `failed`/`timedOut` in rawStatus: an expected failure, the requirement still unmet.
        CtrfStatus::Passed if is("failed") || timed_out => (Status::Xfailed, false),
        CtrfStatus::Passed => (Status::Passed, false),
        CtrfStatus::Failed if timed_out => (Status::Errored, false),
        CtrfStatus::Failed if is("interrupted") => (Status::Errored, true),
        CtrfStatus::Failed => (Status::Failed, false),
        CtrfStatus::Skipped | CtrfStatus::Pending if is("todo") => (Status::Todo, false),
        CtrfStatus::Skipped | CtrfStatus::Pending => (Status::Skipped, false),
        // jest-ctrf-json-reporter writes `other` for Jest's todo/disabled/focused.
        CtrfStatus::Other if is("todo") => (Status::Todo, false),
        CtrfStatus::Other if is("disabled") || is("skipped") || is("pending") || is("ignored") => {
            (Status::Skipped, false)
        }
        CtrfStatus::Other if is("interrupted") => (Status::Errored, true),
        // Any other `other` is an outcome the tool could not call passed: never a pass.
        CtrfStatus::Other => (Status::Errored, false),
    }
}

fn attempt_status(s: CtrfStatus) -> Status {
    match s {
        CtrfStatus::Passed => Status::Passed,
        CtrfStatus::Failed => Status::Failed,
        CtrfStatus::Skipped | CtrfStatus::Pending => Status::Skipped,
        CtrfStatus::Other => Status::Errored,
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

/// A string borrowed from the input when it has no escapes. (`Cow<str>`'s own `Deserialize`
/// always copies, and `#[serde(borrow)]` does not reach into an `Option`.)
struct BStr<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for BStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = BStr<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<BStr<'a>, E> {
                Ok(BStr(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<BStr<'a>, E> {
                Ok(BStr(Cow::Owned(s.to_owned())))
            }
        }
        d.deserialize_str(V(std::marker::PhantomData))
    }
}

impl std::ops::Deref for BStr<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

/// An optional borrowed string field, as a `Cow`.
fn opt<'a>(v: Option<BStr<'a>>) -> Option<Cow<'a, str>> {
    v.map(|b| b.0)
}

/// `suite`: an array from the top-level suite down (the schema), or one string (older
/// reporters, already joined with ` > `). Empty means none.
struct SuitePath(Option<String>);

impl<'de> Deserialize<'de> for SuitePath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SuitePath;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`suite` as a string or an array of strings")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<SuitePath, E> {
                Ok(SuitePath(Some(s.to_owned()).filter(|s| !s.is_empty())))
            }
            fn visit_unit<E: de::Error>(self) -> Result<SuitePath, E> {
                Ok(SuitePath(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SuitePath, A::Error> {
                let mut path = String::new();
                while let Some(part) = seq.next_element::<BStr<'de>>()? {
                    if part.is_empty() {
                        continue;
                    }
                    if !path.is_empty() {
                        path.push_str(" > ");
                    }
                    path.push_str(&part);
                }
                Ok(SuitePath(Some(path).filter(|p| !p.is_empty())))
            }
        }
        d.deserialize_any(V)
    }
}

/// `tags`: the first tag naming a spec category (`security`, `@edge_case`, ...), if any.
/// Playwright tags start with `@`.
struct TagCategory(Option<Category>);

impl<'de> Deserialize<'de> for TagCategory {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TagCategory;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`tags` as an array of strings")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TagCategory, A::Error> {
                let mut found = None;
                while let Some(tag) = seq.next_element::<BStr<'de>>()? {
                    if found.is_none() {
                        let t = tag.trim();
                        let t = t.strip_prefix('@').unwrap_or(t);
                        // Every category name starts with e, h or s (`unknown` does not count)
                        // and is short: other tags skip the allocating lenient parse.
                        let maybe = t.len() <= 20
                            && matches!(
                                t.as_bytes().first(),
                                Some(b'e' | b'E' | b'h' | b'H' | b's' | b'S')
                            );
                        if maybe {
                            found = Category::parse_lenient(t).filter(|c| *c != Category::Unknown);
                        }
                    }
                }
                Ok(TagCategory(found))
            }
        }
        d.deserialize_seq(V)
    }
}

/// `stdout`/`stderr`: an array of lines (the schema) or one string, joined and capped.
struct Lines(String);

impl<'de> Deserialize<'de> for Lines {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Lines;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of strings")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Lines, E> {
                let mut out = String::new();
                push_capped(&mut out, s);
                Ok(Lines(out))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Lines, E> {
                Ok(Lines(String::new()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Lines, A::Error> {
                let mut out = String::new();
                while let Some(line) = seq.next_element::<BStr<'de>>()? {
                    if !out.is_empty() && out.len() < TEXT_CAP {
                        out.push('\n');
                    }
                    push_capped(&mut out, &line);
                }
                Ok(Lines(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// A string, or a number/boolean read as its text (a tool `version` written as `1.2`).
struct AnyText(String);

impl<'de> Deserialize<'de> for AnyText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = AnyText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<AnyText, E> {
                Ok(AnyText(s.to_owned()))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<AnyText, E> {
                Ok(AnyText(n.to_string()))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<AnyText, E> {
                Ok(AnyText(n.to_string()))
            }
            fn visit_f64<E: de::Error>(self, n: f64) -> Result<AnyText, E> {
                Ok(AnyText(n.to_string()))
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<AnyText, E> {
                Ok(AnyText(b.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}
