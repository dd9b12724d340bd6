//! The canonical test-result model every adapter produces: [`TestRun`] with its [`TestCase`]s and
//! run-level [`Problem`]s.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The outcome of one test, in the canonical vocabulary shared by every adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The test ran and its assertions held.
    Passed,
    /// The test ran and an assertion failed.
    Failed,
    /// The test could not complete: an unexpected exception, a setup or teardown error.
    Errored,
    /// The test was not run (skip marker, filter, missing precondition).
    Skipped,
    /// An expected failure that did fail (pytest `xfail`): the requirement is still unmet.
    Xfailed,
    /// An expected failure that passed (pytest `xpass`, a passing TAP `TODO`).
    Xpassed,
    /// A test declared but not implemented yet (Jest/node `todo`, a failing TAP `TODO`).
    Todo,
}

impl Status {
    /// Every status, in the order reports list them.
    pub const ALL: [Status; 7] = [
        Status::Passed,
        Status::Failed,
        Status::Errored,
        Status::Skipped,
        Status::Xfailed,
        Status::Xpassed,
        Status::Todo,
    ];

    /// The canonical spelling (`passed`, `failed`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Errored => "errored",
            Status::Skipped => "skipped",
            Status::Xfailed => "xfailed",
            Status::Xpassed => "xpassed",
            Status::Todo => "todo",
        }
    }

    /// Reads a status spelling case-insensitively. Besides the canonical names this accepts the
    /// spellings runners commonly write (`pass`, `fail`, `failure`, `error`, `skip`, `pending`,
    /// `xfail`, `xpass`). Anything else is `None`: an unknown status is an input error, never a
    /// silent pass.
    pub fn parse_lenient(s: &str) -> Option<Status> {
        let lower = s.to_ascii_lowercase();
        Some(match lower.as_str() {
            "passed" | "pass" => Status::Passed,
            "failed" | "fail" | "failure" => Status::Failed,
            "errored" | "error" => Status::Errored,
            "skipped" | "skip" | "pending" => Status::Skipped,
            "xfailed" | "xfail" => Status::Xfailed,
            "xpassed" | "xpass" => Status::Xpassed,
            "todo" => Status::Todo,
            _ => return None,
        })
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error returned when a status spelling is not recognised.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown status `{0}` (expected one of passed, failed, errored, skipped, xfailed, xpassed, todo)"
)]
pub struct UnknownStatus(pub String);

impl FromStr for Status {
    type Err = UnknownStatus;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Status::parse_lenient(s).ok_or_else(|| UnknownStatus(s.to_owned()))
    }
}

/// The §5.3 failure categories, plus `unknown` for tests nobody categorised (counted, never dropped).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Standard expected-input to expected-output scenarios.
    HappyPath,
    /// Boundary conditions, empty inputs, maximum values, unicode.
    EdgeCase,
    /// Invalid inputs, missing data, malformed requests.
    ErrorHandling,
    /// Injection, overflow, unauthorised access, data leakage.
    Security,
    /// No category was given or recognised.
    Unknown,
}

impl Category {
    /// Every category: the spec's four, then `Unknown`. Codes are indexes into it (the C ABI's
    /// category byte, less one; the failure spill file's), so the order never changes.
    pub const ALL: [Category; 5] = [
        Category::HappyPath,
        Category::EdgeCase,
        Category::ErrorHandling,
        Category::Security,
        Category::Unknown,
    ];

    /// The four categories of spec §5.3, in the order reports list them.
    pub const SPEC: [Category; 4] = [
        Category::HappyPath,
        Category::EdgeCase,
        Category::ErrorHandling,
        Category::Security,
    ];

    /// The canonical snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::HappyPath => "happy_path",
            Category::EdgeCase => "edge_case",
            Category::ErrorHandling => "error_handling",
            Category::Security => "security",
            Category::Unknown => "unknown",
        }
    }

    /// Reads a category name case-insensitively, accepting `-` or space for `_` and the plural
    /// `edge_cases` that the spec's own §5.1 example uses.
    pub fn parse_lenient(s: &str) -> Option<Category> {
        let norm: String = s
            .trim()
            .chars()
            .map(|c| {
                if c == '-' || c == ' ' {
                    '_'
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect();
        Some(match norm.as_str() {
            "happy_path" | "happy_paths" | "happy" => Category::HappyPath,
            "edge_case" | "edge_cases" | "edge" => Category::EdgeCase,
            "error_handling" | "error" | "errors" => Category::ErrorHandling,
            "security" => Category::Security,
            "unknown" => Category::Unknown,
            _ => return None,
        })
    }

    /// The category a test title names with a bracketed tag, the convention of AI build
    /// pipelines: `[security] rejects a forged token`, `parses [edge_case] empty input`. The
    /// first bracket that names one of the four spec categories wins (`[unknown]` and other
    /// brackets, such as a parameter id `[1-2]`, are passed over).
    pub fn from_title(title: &str) -> Option<Category> {
        let mut rest = title;
        while let Some(open) = rest.find('[') {
            let after = &rest[open + 1..];
            let Some(close) = after.find(']') else { break };
            let tag = &after[..close];
            // Tags are short words; a long bracket is text, not a tag.
            if tag.len() <= 20
                && let Some(c) = Category::parse_lenient(tag)
                && c != Category::Unknown
            {
                return Some(c);
            }
            rest = &after[close + 1..];
        }
        None
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Kinds of run-level trouble: evidence that tests did not run, or did not all report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ProblemKind {
    /// The code under test (or the test code) did not compile.
    BuildFailure,
    /// The runner could not collect or import a test module.
    CollectionError,
    /// A whole suite or test file failed to run.
    SuiteError,
    /// The run was aborted before it finished.
    Aborted,
    /// The runner or the code under test crashed (panic, segfault).
    Crash,
    /// The run or a test hit a time limit.
    Timeout,
    /// The runner was killed (signal, out of memory).
    Killed,
    /// The result file ends before its structure is complete.
    Truncated,
    /// A TAP `Bail out!`.
    BailOut,
    /// A TAP plan disagrees with the number of results.
    PlanMismatch,
    /// A TAP stream without any plan, so completeness cannot be checked.
    NoPlan,
    /// Tests that should have run have no record at all.
    MissingTests,
    /// Tests that started have no result.
    MissingResults,
    /// The run was interrupted on purpose (pytest's KeyboardInterrupt or `pytest.exit()`), so
    /// the tests after the interruption never ran.
    Interrupted,
    /// The runner exited with a failure status while its results show no failure: what failed
    /// (a package that did not build, a test file that did not load) never reached the results.
    RunnerFailed,
    /// A file's declared counts (`failures=`, `errors=`, `skipped=` on a suite or its root) say
    /// more tests failed or were skipped than its records show (added in 0.4). Counted among
    /// the tests read: that many of the passes are counted as failed.
    DeclaredCounts,
    /// A summary object (pytest-json-report's `summary`, Jest's `numFailedTests`, CTRF's
    /// `summary`) says more tests failed or were skipped than the records (added in 0.4).
    /// Counted among the tests read.
    SummaryCounts,
    /// A recorded exit status or success flag says the run failed while its records show no
    /// failure and no other problem (added in 0.4).
    ExitStatus,
    /// A footer or console summary line (`# fail 3`, `<!-- fail 3 -->`, `== 2 failed ==`) says
    /// more tests failed or were skipped than the records (added in 0.4). Counted among the
    /// tests read.
    SummaryLine,
    /// A declared count that is not a non-negative integer in range (`tests="10.0"`, `-9`, an
    /// empty value): what it declared cannot be checked, so it is a problem (added in 0.4).
    UnreadableCount,
    /// Console text counts results it does not name (progress dots, a summary line): the
    /// reader cannot tell which tests they were (added in 0.4).
    UnattributedResults,
    /// With a seal's expected tests: more results for an expected test than the seal lists it
    /// (twins registered under a sealed test's id, a suite appended twice). The surplus passes
    /// are not counted, so they cannot dilute the score, and the problem counts as one failure
    /// (added in 0.5).
    SurplusResults,
    /// `gapscore run`: the runner's console summary, which it prints at the end of every
    /// complete run, is absent while its result files are there (the output was silenced, or
    /// the run ended before the runner could print it): the second channel cannot be compared
    /// (added in 0.5).
    MissingSummary,
    /// A result file holds what its runner never writes (a key Mocha's JSON reporter does not
    /// write; lines that are not TAP in a TAP stream read from the command's own output):
    /// something else wrote into it, so what it says cannot be trusted to be the runner's
    /// (added in 0.5).
    ForeignContent,
    /// `gapscore run`: a Python module outside the sealed directory has a sealed test module's
    /// dotted path (`tests.sealed/test_calc.py` beside `tests/sealed/test_calc.py`); pytest's
    /// JUnit XML names both modules' tests alike, so a result under a sealed test's name may be
    /// the twin's (added in 0.5).
    DottedTwin,
}

impl ProblemKind {
    /// Every problem kind.
    pub const ALL: [ProblemKind; 25] = [
        ProblemKind::BuildFailure,
        ProblemKind::CollectionError,
        ProblemKind::SuiteError,
        ProblemKind::Aborted,
        ProblemKind::Crash,
        ProblemKind::Timeout,
        ProblemKind::Killed,
        ProblemKind::Truncated,
        ProblemKind::BailOut,
        ProblemKind::PlanMismatch,
        ProblemKind::NoPlan,
        ProblemKind::MissingTests,
        ProblemKind::MissingResults,
        ProblemKind::Interrupted,
        ProblemKind::RunnerFailed,
        ProblemKind::DeclaredCounts,
        ProblemKind::SummaryCounts,
        ProblemKind::ExitStatus,
        ProblemKind::SummaryLine,
        ProblemKind::UnreadableCount,
        ProblemKind::UnattributedResults,
        ProblemKind::SurplusResults,
        ProblemKind::MissingSummary,
        ProblemKind::ForeignContent,
        ProblemKind::DottedTwin,
    ];

    /// The kebab-case name used in JSON (`build-failure`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::BuildFailure => "build-failure",
            ProblemKind::CollectionError => "collection-error",
            ProblemKind::SuiteError => "suite-error",
            ProblemKind::Aborted => "aborted",
            ProblemKind::Crash => "crash",
            ProblemKind::Timeout => "timeout",
            ProblemKind::Killed => "killed",
            ProblemKind::Truncated => "truncated",
            ProblemKind::BailOut => "bail-out",
            ProblemKind::PlanMismatch => "plan-mismatch",
            ProblemKind::NoPlan => "no-plan",
            ProblemKind::MissingTests => "missing-tests",
            ProblemKind::MissingResults => "missing-results",
            ProblemKind::Interrupted => "interrupted",
            ProblemKind::RunnerFailed => "runner-failed",
            ProblemKind::DeclaredCounts => "declared-counts",
            ProblemKind::SummaryCounts => "summary-counts",
            ProblemKind::ExitStatus => "exit-status",
            ProblemKind::SummaryLine => "summary-line",
            ProblemKind::UnreadableCount => "unreadable-count",
            ProblemKind::UnattributedResults => "unattributed-results",
            ProblemKind::SurplusResults => "surplus-results",
            ProblemKind::MissingSummary => "missing-summary",
            ProblemKind::ForeignContent => "foreign-content",
            ProblemKind::DottedTwin => "dotted-twin",
        }
    }

    /// The kind's stable code in the registry ([`crate::codes`]).
    pub fn code(self) -> crate::codes::Code {
        use crate::codes::Code;
        match self {
            ProblemKind::BuildFailure => Code::BuildFailure,
            ProblemKind::CollectionError => Code::CollectionError,
            ProblemKind::SuiteError => Code::SuiteError,
            ProblemKind::Aborted => Code::Aborted,
            ProblemKind::Crash => Code::Crash,
            ProblemKind::Timeout => Code::Timeout,
            ProblemKind::Killed => Code::Killed,
            ProblemKind::Truncated => Code::Truncated,
            ProblemKind::BailOut => Code::BailOut,
            ProblemKind::PlanMismatch => Code::PlanMismatch,
            ProblemKind::NoPlan => Code::NoPlan,
            ProblemKind::MissingTests => Code::MissingTests,
            ProblemKind::MissingResults => Code::MissingResults,
            ProblemKind::Interrupted => Code::Interrupted,
            ProblemKind::RunnerFailed => Code::RunnerFailed,
            ProblemKind::DeclaredCounts => Code::DeclaredCounts,
            ProblemKind::SummaryCounts => Code::SummaryCounts,
            ProblemKind::ExitStatus => Code::ExitStatus,
            ProblemKind::SummaryLine => Code::SummaryLine,
            ProblemKind::UnreadableCount => Code::UnreadableCount,
            ProblemKind::UnattributedResults => Code::UnattributedResults,
            ProblemKind::SurplusResults => Code::SurplusResults,
            ProblemKind::MissingSummary => Code::MissingSummary,
            ProblemKind::ForeignContent => Code::ForeignContent,
            ProblemKind::DottedTwin => Code::DottedTwin,
        }
    }

    /// A short human phrase, used in synthetic failure entries ("build failure").
    pub fn phrase(self) -> &'static str {
        match self {
            ProblemKind::BuildFailure => "build failure",
            ProblemKind::CollectionError => "collection error",
            ProblemKind::SuiteError => "suite error",
            ProblemKind::Aborted => "run aborted",
            ProblemKind::Crash => "crash",
            ProblemKind::Timeout => "timeout",
            ProblemKind::Killed => "runner killed",
            ProblemKind::Truncated => "truncated output",
            ProblemKind::BailOut => "bail out",
            ProblemKind::PlanMismatch => "plan mismatch",
            ProblemKind::NoPlan => "no plan",
            ProblemKind::MissingTests => "missing tests",
            ProblemKind::MissingResults => "missing results",
            ProblemKind::Interrupted => "run interrupted",
            ProblemKind::RunnerFailed => "runner failed",
            ProblemKind::DeclaredCounts => "declared counts say worse",
            ProblemKind::SummaryCounts => "summary says worse",
            ProblemKind::ExitStatus => "exit status says failed",
            ProblemKind::SummaryLine => "summary line says worse",
            ProblemKind::UnreadableCount => "unreadable declared count",
            ProblemKind::UnattributedResults => "results without names",
            ProblemKind::SurplusResults => "more results than the seal lists",
            ProblemKind::MissingSummary => "console summary missing",
            ProblemKind::ForeignContent => "content the runner never writes",
            ProblemKind::DottedTwin => {
                "a module outside the sealed directory with a sealed module's name"
            }
        }
    }

    /// True for the kinds whose count stands for tests already read (a declared failure among
    /// records that read as passed): scoring moves that many passes to failed instead of adding
    /// tests. Every other kind adds its count as failed tests of its own.
    pub fn counts_within_read(self) -> bool {
        matches!(
            self,
            ProblemKind::DeclaredCounts | ProblemKind::SummaryCounts | ProblemKind::SummaryLine
        )
    }
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One run-level problem. Written with its kind's `code` after `kind` (added in 0.3; read
/// back, the code is ignored: the kind decides it).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct Problem {
    /// What went wrong.
    pub kind: ProblemKind,
    /// Details in the producer's words where possible (the build error, the collection error).
    #[serde(default)]
    pub detail: String,
    /// The suite, package or file the problem belongs to, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<String>,
    /// How many tests the problem stands for, each counted as failed: the tests a file declares
    /// and does not hold (`missing-tests`), the tests a plan promised. `None` is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

/// One run-level problem, as written: its fields, with the kind's code after the kind.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "Problem"))]
struct ProblemRecord<'a> {
    /// What went wrong.
    kind: ProblemKind,
    /// The kind's stable code (`gapscore explain CODE`); always written, optional on reading
    /// (the kind decides it).
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<crate::codes::Code>,
    /// Details in the producer's words where possible (the build error, the collection error).
    #[serde(default)]
    detail: &'a str,
    /// The suite, package or file the problem belongs to, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    suite: Option<&'a str>,
    /// How many tests the problem stands for, each counted as failed: the tests a file declares
    /// and does not hold (`missing-tests`), the tests a plan promised. `None` is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    count: Option<u64>,
}

impl Serialize for Problem {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ProblemRecord {
            kind: self.kind,
            code: Some(self.kind.code()),
            detail: &self.detail,
            suite: self.suite.as_deref(),
            count: self.count,
        }
        .serialize(s)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Problem {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Problem".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        ProblemRecord::json_schema(generator)
    }
}

impl Problem {
    /// A problem with a kind and detail text.
    pub fn new(kind: ProblemKind, detail: impl Into<String>) -> Self {
        Problem {
            kind,
            detail: detail.into(),
            suite: None,
            count: None,
        }
    }

    /// A problem standing for `n` tests, each counted as failed (at least one).
    #[must_use]
    pub fn with_count(mut self, n: u64) -> Self {
        self.count = Some(n.max(1));
        self
    }

    /// How many failures the problem counts as: [`Problem::count`], at least one.
    pub fn weight(&self) -> u64 {
        self.count.unwrap_or(1).max(1)
    }

    /// Sets the suite the problem belongs to.
    #[must_use]
    pub fn with_suite(mut self, suite: impl Into<String>) -> Self {
        self.suite = Some(suite.into());
        self
    }
}

/// One earlier attempt of a test that the format marks as retried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Attempt {
    /// The outcome of this attempt.
    pub status: Status,
    /// The failure message of this attempt, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Duration in seconds, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
}

impl Attempt {
    /// An attempt with the given outcome.
    pub fn new(status: Status) -> Self {
        Attempt {
            status,
            message: None,
            duration: None,
        }
    }
}

/// One test result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct TestCase {
    /// Stable identifier: the suite path and name joined by `::`, unless the format has its own
    /// (a pytest node id). Two entries with the same id are duplicates, never merged silently.
    /// May be left empty (or out) by a plugin: the host then derives it from suite and name.
    #[serde(default)]
    pub id: String,
    /// The enclosing suite path as one string (file, class, package, describe blocks joined
    /// by ` > `); `null` when the test has none.
    #[serde(default)]
    pub suite: Option<String>,
    /// The test's own name.
    pub name: String,
    /// The final outcome (the last attempt's, when the format records retries).
    pub status: Status,
    /// Duration in seconds; absent when unknown (never a fake zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    /// The failure, error or skip message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What the test expected, when the format states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// What the test got, when the format states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// The §5.3 category, when the input names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<Category>,
    /// Source file of the test, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Source line of the test, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Where a skip or xfail was decided (`path:line`, as the format records it: the
    /// `pytest.skip()` call, the skip marker), when the format records it (added in 0.4).
    /// A lenient policy (`--skipped exclude`, `--xfail pass`) applies only when this lies inside
    /// the sealed directory: a skip the implementation raised is not the sealed tests' decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<String>,
    /// Captured stdout/stderr, when the format keeps it (cut at 64 KiB, with a note).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Earlier attempts, when the format marks this test as retried; the final attempt is the
    /// test's own status.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<Attempt>,
    /// True when this entry has children that are results of their own (a Go test with
    /// subtests, a TAP subtest point). Scoring counts the children, and the parent only when it
    /// failed while none of its children did.
    #[serde(default, skip_serializing_if = "is_false")]
    pub parent: bool,
    /// The id of the enclosing test that is itself a result, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl TestCase {
    /// A test with a suite path, name and status; the id is derived with [`TestCase::make_id`].
    pub fn new(suite: Option<String>, name: impl Into<String>, status: Status) -> Self {
        let name = name.into();
        TestCase {
            id: Self::make_id(suite.as_deref(), &name),
            suite,
            name,
            status,
            duration: None,
            message: None,
            expected: None,
            actual: None,
            category: None,
            file: None,
            line: None,
            decided_at: None,
            output: None,
            attempts: Vec::new(),
            parent: false,
            parent_id: None,
        }
    }

    /// The default id: `suite::name`, or the name alone without a suite.
    pub fn make_id(suite: Option<&str>, name: &str) -> String {
        let mut id = String::with_capacity(suite.map_or(0, |s| s.len() + 2) + name.len());
        Self::make_id_into(&mut id, suite, name);
        id
    }

    /// [`TestCase::make_id`] written into a buffer (cleared first), for an adapter that reuses
    /// one buffer for every test's id. (Added in gapscore-model 0.2.)
    pub fn make_id_into(id: &mut String, suite: Option<&str>, name: &str) {
        id.clear();
        if let Some(s) = suite.filter(|s| !s.is_empty()) {
            id.push_str(s);
            id.push_str("::");
        }
        id.push_str(name);
    }

    /// True when an earlier attempt failed or errored and the final one passed: a flaky test.
    pub fn is_flaky(&self) -> bool {
        matches!(self.status, Status::Passed | Status::Xpassed)
            && self
                .attempts
                .iter()
                .any(|a| matches!(a.status, Status::Failed | Status::Errored))
    }

    /// The name shown in reports: `suite::name`, or the name alone.
    pub fn display_name(&self) -> String {
        Self::make_id(self.suite.as_deref(), &self.name)
    }
}

/// What produced a result file, when the adapter can tell.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Producer {
    /// The tool (`pytest`, `jest-junit`, `go test`, ...).
    pub name: String,
    /// Its version, when the file records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

impl Producer {
    /// A producer with a name and no version.
    pub fn new(name: impl Into<String>) -> Self {
        Producer {
            name: name.into(),
            version: None,
        }
    }
}

/// Everything read from one result file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct TestRun {
    /// The file the run was read from, as the user gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The format id of the adapter that read it (`simple`, `junit-xml`, ...).
    pub format: String,
    /// The producing tool, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub producer: Option<Producer>,
    /// Every test result, in input order.
    pub tests: Vec<TestCase>,
    /// Run-level problems: evidence that tests did not run or did not all report.
    #[serde(default)]
    pub problems: Vec<Problem>,
    /// Things worth knowing that are not problems (duplicate names, disagreeing declared counts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The code of each of [`TestRun::warnings`], in the same order (added in 0.3; a run
    /// written without them reads each warning as [`Code::AdapterWarning`](crate::codes::Code)).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warning_codes: Vec<crate::codes::Code>,
}

impl TestRun {
    /// Adds a warning with its code.
    pub fn push_warning(&mut self, code: crate::codes::Code, message: String) {
        self.fill_warning_codes();
        self.warnings.push(message);
        self.warning_codes.push(code);
    }

    /// The warnings with their codes; a warning without one (a run written before 0.3, or one
    /// whose `warnings` was pushed to directly) has [`Code::AdapterWarning`](crate::codes::Code).
    pub fn coded_warnings(&self) -> impl Iterator<Item = (crate::codes::Code, &str)> {
        self.warnings.iter().enumerate().map(|(i, w)| {
            let code = self
                .warning_codes
                .get(i)
                .copied()
                .unwrap_or(crate::codes::Code::AdapterWarning);
            (code, w.as_str())
        })
    }

    // Codes for warnings pushed without one, so that the two lists stay in step.
    fn fill_warning_codes(&mut self) {
        let n = self.warnings.len();
        if self.warning_codes.len() < n {
            self.warning_codes
                .resize(n, crate::codes::Code::AdapterWarning);
        }
    }

    /// An empty run of the given format.
    pub fn new(format: impl Into<String>) -> Self {
        TestRun {
            format: format.into(),
            ..TestRun::default()
        }
    }
}

#[cfg(test)]
mod tests;
