//! The registry of stable codes: everything a user can see go wrong (a run-level problem, a
//! warning a reader or the engine raises, an error, a refused score) has one [`Code`], with a
//! one-line title and what to do about it. Code decides; message text only informs.
//!
//! Codes are grouped by their letter: `P` a run-level [`ProblemKind`](crate::ProblemKind)
//! (each kind has one, [`ProblemKind::code`](crate::ProblemKind::code)), `W0` the seam's own
//! warnings, `W1` a reader's, `W2` the engine's, `E` an error that stops one input or the
//! command, `A` a reason a report is advisory, `R` a score the engine refuses. A code, once published, keeps its meaning; a code
//! that is no longer raised stays in the table.
//!
//! A plugin reports warnings with any of these codes through
//! [`EventSink::coded_warning`](crate::EventSink::coded_warning). A code the host does not know
//! (a plugin built against a newer model) is read as [`Code::AdapterWarning`], the message kept:
//! a foreign name is never trusted to mean one of ours.
//!
//! ```
//! use gapscore_model::codes::Code;
//!
//! let c: Code = "W101".parse().unwrap();
//! assert_eq!(c, Code::DeclaredCountMismatch);
//! assert_eq!(c.as_str(), "W101");
//! assert!(!c.title().is_empty() && !c.what_to_do().is_empty());
//! assert_eq!(Code::lenient("X999"), Code::AdapterWarning);
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One entry of the registry, for `gapscore explain` and the generated docs/codes.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The code.
    pub code: Code,
    /// Who raises it (a reader, the engine, the seal check).
    pub source: &'static str,
    /// What went wrong, in one line.
    pub title: &'static str,
    /// What to do about it.
    pub what_to_do: &'static str,
}

macro_rules! codes {
    ($($name:ident = $code:literal, $source:literal, $title:literal, $todo:literal;)+) => {
        /// A stable code for something a user can see go wrong (see the module documentation).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code {
            $(
                #[doc = $title]
                $name,
            )+
        }

        /// Every entry, in code order.
        pub const REGISTRY: &[Entry] = &[
            $(Entry { code: Code::$name, source: $source, title: $title, what_to_do: $todo },)+
        ];

        impl Code {
            /// The code as written (`W101`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$name => $code,)+
                }
            }
        }
    };
}

codes! {
    BuildFailure = "P001", "readers",
        "the code under test (or the test code) did not compile",
        "fix the build; no test of the failed unit ran, and each problem counts as a failure";
    CollectionError = "P002", "readers",
        "the runner could not collect or import a test module",
        "fix the import or collection error the detail names; the module's tests never ran";
    SuiteError = "P003", "readers",
        "a whole suite or test file failed to run",
        "fix what stopped the suite (its setup, a crash at load); its tests have no results";
    Aborted = "P004", "readers",
        "the run was aborted before it finished",
        "rerun to completion; the tests after the abort never ran";
    Crash = "P005", "readers",
        "the runner or the code under test crashed (panic, segfault)",
        "fix the crash the detail names, then rerun";
    Timeout = "P006", "readers",
        "the run or a test hit a time limit",
        "make the test finish in time or raise the limit, then rerun";
    Killed = "P007", "readers",
        "the runner was killed (signal, out of memory)",
        "find what killed it (memory, a CI limit) and rerun";
    Truncated = "P008", "readers",
        "the result file ends before its structure is complete",
        "rerun and keep the whole result file; a cut file cannot show what it lost";
    BailOut = "P009", "tap",
        "a TAP stream bailed out",
        "fix what the `Bail out!` reason names; the tests after it never ran";
    PlanMismatch = "P010", "tap",
        "a TAP plan disagrees with the number of results",
        "find the tests the plan promised that have no result (a crash, an early exit)";
    NoPlan = "P011", "tap",
        "a TAP stream has no plan, so completeness cannot be checked",
        "make the producer print a plan (`1..N`)";
    MissingTests = "P012", "readers",
        "tests that should have run have no record at all",
        "find why the declared or expected tests did not run; each counts as failed";
    MissingResults = "P013", "readers",
        "tests that started have no result",
        "the run was cut while tests ran: rerun to completion and keep the whole output";
    Interrupted = "P014", "pytest",
        "the run was interrupted on purpose (KeyboardInterrupt, pytest.exit())",
        "rerun without the interruption; the tests after it never ran";
    RunnerFailed = "P015", "readers, run",
        "the runner exited with a failure status while its results show no failure",
        "read the runner's output: what failed (a package build, a test file load) never reached the results";
    DeclaredCounts = "P016", "readers",
        "a file's declared counts (failures=, errors=, skipped=) say more tests failed or were skipped than its records",
        "the records were edited or lost: rerun and keep the runner's file as written; that many passes count as failed";
    SummaryCounts = "P017", "readers",
        "a summary object (pytest-json-report summary, Jest numFailedTests, CTRF summary) says worse than the records",
        "rerun and keep the runner's file as written; that many passes count as failed";
    ExitStatus = "P018", "readers",
        "a recorded exit status or success flag says the run failed while its records show no failure",
        "read the runner's output for what failed outside the records (a hook, a load error, an edited file)";
    SummaryLine = "P019", "readers, run",
        "a footer or console summary line (`# fail 3`, `<!-- fail 3 -->`, `2 failed`) says worse than the records",
        "rerun and keep the whole output; that many passes count as failed";
    UnreadableCount = "P020", "readers",
        "a declared count is not a non-negative integer in range (`10.0`, `-9`, empty), so it cannot be checked",
        "keep the runner's file as written: a producer writes plain integers";
    UnattributedResults = "P021", "readers",
        "console text counts results it does not name, so which tests they were is unknown",
        "give the runner's structured output (JUnit XML, JSON) or a verbose run (`-v`, `-rA`)";
    MissingSummary = "P023", "run",
        "the runner's console summary, printed at the end of every complete run, is absent beside its result files",
        "let the runner print its summary (no `-qq`, a console reporter besides the file one: vitest `--reporter=default`); a run whose output was silenced or cut before it cannot be compared";
    ForeignContent = "P024", "readers",
        "a result file holds what its runner never writes (a key outside Mocha's JSON document, lines that are not TAP in a TAP stream on the command's output): something else wrote into it",
        "have the runner write its results to a file (`--reporter-option output=FILE`, `--test-reporter-destination=FILE`) and read that file, not the command's output the implementation can print to";
    DottedTwin = "P025", "run",
        "a Python module outside the sealed directory has a sealed test module's dotted path (`tests.sealed/test_calc.py` and `tests/sealed/test_calc.py`), so pytest's JUnit XML names their tests alike",
        "remove or rename the module outside the sealed directory, or read pytest's JSON report (its node ids keep the file)";
    SurplusResults = "P022", "engine",
        "an expected test has more results than the seal lists it (twins under a sealed id, a suite appended twice)",
        "run each sealed test as often as the seal records it (`seal --expect` with the same command); the surplus passes are not counted";

    AdapterWarning = "W001", "plugins",
        "a warning from a reader that gave no code (or a code this gapscore does not know)",
        "read the message; the reader's author can give it a code with `EventSink::coded_warning`";
    TextsCut = "W002", "seam",
        "texts longer than the cap were cut (messages, outputs, problem details)",
        "nothing is lost from the counts; read the full text in the result file";
    DuplicateTestId = "W003", "seam, engine",
        "a test id occurs more than once; every entry is counted",
        "give each test a unique name (parametrised tests need distinct ids)";

    DeclaredCountMismatch = "W101", "readers",
        "a file's own totals (summary, tests=, declared counts) disagree with the results it holds",
        "check the producer: the file may be trimmed, merged or written by a converter that miscounts";
    ContradictoryStatus = "W102", "readers",
        "a test's fields contradict each other; the stricter reading is used",
        "fix the producer so that a test's status and its details agree";
    UnknownValueIgnored = "W103", "readers",
        "a value the reader does not know (a category, an event, an action) was ignored",
        "check the spelling, or upgrade gapscore if the producer is newer";
    UnreadLines = "W104", "readers",
        "lines that are not in the format were kept as output or ignored",
        "keep the result file free of other output (write it to its own file)";
    ResultsNotListed = "W105", "readers",
        "the output does not list every test's result",
        "make the runner list each test (go test -v, a structured reporter)";
    OutputUnattributed = "W106", "readers",
        "output or tests could not be placed in their package or suite",
        "keep each package's output whole (no interleaving, no trimmed headers)";
    CollectionSkipped = "W107", "pytest",
        "collecting a module was skipped, so its tests are not listed (no longer raised: since issue 31 such a module is a `suite-error`, P003)",
        "remove the module-level skip if its tests should count";
    SlowTest = "W108", "libtest",
        "a test has run for over 60 seconds",
        "nothing to do unless it hangs; a test that never finishes becomes a problem";
    MalformedStructure = "W109", "tap",
        "the stream's structure is off (a YAML block not closed, a subtest not closed or not run, a number out of sequence)",
        "fix the producer; the results are read as far as the structure allows";
    AfterBailOut = "W110", "tap",
        "test points after `Bail out!` were not counted",
        "fix the bail-out; nothing after it is trusted";
    LineCut = "W111", "readers",
        "a line longer than the cap was read up to the cut",
        "keep result lines short (large outputs belong in attachments)";
    InvalidUtf8 = "W112", "readers",
        "invalid UTF-8 was replaced with U+FFFD",
        "write the result file in UTF-8 (or declare its encoding)";
    ReaderWarningsCapped = "W113", "readers",
        "a reader raised more warnings than it shows",
        "fix the first warnings shown; the rest are likely the same";
    ExitStatusMismatch = "W114", "readers",
        "the runner's overall verdict (exit status, success flag) disagrees with the results read",
        "look for what failed outside the tests (a crash after the run, a plugin error) in the runner's output";
    LenientPolicyRefused = "W115", "engine",
        "a skip or xfail was counted as failed despite a lenient policy: it was not decided inside the sealed directory",
        "only the sealed tests may skip: a skip raised by the implementation (or one whose place the format does not record) counts as failed; name the sealed directory (`--sealed-dir`), or accept unlocated skips with `--trust-unlocated-skips`";

    InputLeftOut = "W201", "engine",
        "a file found in a directory was not read (not a result file)",
        "name the result files, or a glob of them, to leave other files out quietly";
    ConsoleBesideStructured = "W202", "engine",
        "console text beside structured results was not read as a second copy",
        "name the console file explicitly to read it";
    DuplicateCheckStopped = "W203", "engine",
        "the duplicate-id check stopped to keep memory bounded",
        "nothing to do: every entry is still counted; later repeats are not named";
    SpillUnavailable = "W204", "engine",
        "failure entries could not be written to a temporary file and are kept in memory",
        "check the temporary directory (space, permissions)";
    IdsSharedAcrossFiles = "W205", "engine",
        "more than one file holds the same test ids",
        "read each run once: a copy of a result file counts its tests twice";
    WarningsNotKept = "W206", "engine",
        "more warnings were raised than are kept; the report counts every one by code",
        "fix the first warnings shown; `gapscore.warning_counts` counts all";
    NoSealedTests = "W207", "engine",
        "no sealed tests were counted; a score over zero tests proves nothing",
        "make sure the sealed suite ran and its results were given; `--strict` refuses instead";
    ExpectedTestsMissing = "W208", "engine",
        "expected sealed tests (from the seal record) did not run",
        "find why they did not run; each counts as failed";
    UnexpectedSealedResults = "W209", "engine",
        "sealed results for tests the seal record does not list: passes are not counted, failures each count as failed",
        "a renamed or injected test, or a failure outside any listed test (a hook, a whole file): reseal if a rename is intended";
    HistoryNote = "W210", "engine",
        "the hardening history holds something worth knowing",
        "read the message; the history file is named in it";
    NoHardeningCycles = "W211", "engine",
        "the hardening history has no cycles yet, so the report has no `hardening` object",
        "record a cycle first (see docs/hardening.md)";
    AdvisoryReport = "W212", "engine",
        "the report is advisory: its score is not authoritative",
        "resolve the reasons given (a problem, a broken seal, zero tests) and score again";
    HardeningEscalation = "W213", "engine",
        "the hardening history asks for escalation",
        "see docs/hardening.md for what the escalation means";
    InputCut = "W214", "engine",
        "an input file was cut off; each cut counts as a failed test",
        "rerun and keep the whole result file";
    SealPolicy = "W215", "seal",
        "the sealed directory's mount or policy weakens the seal",
        "read the message; seal on a filesystem the implementer cannot write";
    SealRecordInside = "W216", "seal",
        "the seal record lies inside the sealed directory and is left out of the seal",
        "write the record outside the sealed directory";
    UnhashedFiles = "W217", "seal",
        "files were left out of the spec hash, as the reference pipeline leaves them out",
        "rename files whose names hold blanks, quotes or backslashes";
    EmptySealedDir = "W218", "seal",
        "the sealed directory holds no files: the seal protects nothing",
        "seal the directory that holds the sealed tests";
    SuitesMergedAway = "W219", "engine",
        "more suites than the per-suite counts hold; the rest are counted together",
        "nothing to do: the totals are exact, only the per-suite breakdown is merged";
    SealNotVerified = "W220", "engine",
        "a seal record was used without its sealed directory: its hash and expected tests count, but no directory was checked against it",
        "give the sealed test directory too (`score --sealed-dir`; batch: sealed-tests/ or sealed_dir), so that the tests that ran are shown to be the sealed ones";
    RepoPolicyLoosened = "W221", "batch",
        "a repository's gapscore.toml tried to loosen the operator's policy; the operator's value was kept",
        "a repository may tighten the policy (`skipped = \"fail\"`), never loosen it; remove the key or ask the operator";
    RunEnded = "W222", "run",
        "how the test command `gapscore run` started ended (a note, not a warning)",
        "nothing to do: the report's `gapscore.runner` holds the same";
    SealUncovered = "W223", "seal",
        "files under the directory a combined seal is verified against lie in none of its suites: neither hashed nor scanned for sealed source",
        "give the directory that holds the sealed suites only, or seal and combine every suite in it";
    IdsDoNotMatch = "W224", "engine",
        "none of the sealed results is a test the seal record lists: the record's expected tests name tests another way (another format, or another directory) than these results",
        "seal with `seal --expect` on results in the format you score, from the same directory (or score the format the record was made from); pytest's JUnit XML and its node ids (pytest-json, reportlog) match each other, Jest's and Vitest's JSON (absolute file paths) and JUnit (paths from the project root) match each other when gapscore runs in the project root the JSON's paths start with, other formats' ids do not, and two absolute file paths match only when equal";
    ListedIdsCollide = "W225", "engine",
        "two tests the seal record lists have one JUnit name (pytest names `a/b.py::c::d` and `a/b/c.py::d` both `a.b.c.d`): a JUnit result for either is not matched to either",
        "score the format the record was made from (pytest-json or reportlog, which keep node ids), or rename one of the tests";
    ResultMatchesTwoListed = "W226", "engine",
        "a Jest or Vitest result could be two listed tests (the record lists one test in two forms, `a.test.js::d > t` and `a.test.js > d::t`): it is matched to neither, so the listed tests did not run",
        "seal with `seal --expect` on results in the format you score, so ids match exactly (Jest's and Vitest's JSON name files by absolute paths, their JUnit reporters by paths from the project root)";

    ExpectOutsideDir = "W227", "seal",
        "a `seal --expect-run` stub run reported tests whose files lie outside the sealed directory: they are not listed as sealed tests",
        "run the stub's command on the sealed directory only (`pytest tests/sealed`), or move the tests into it if they are sealed tests";
    ExpectPlaceUnknown = "W228", "seal",
        "a `seal --expect-run` stub run reported tests whose results name no file (node --test ids, Go packages): they are listed, but nothing checks they lie in the sealed directory",
        "run the stub's command on the sealed directory only, so no test from elsewhere is recorded as sealed";

    InputUnreadable = "E001", "engine",
        "an input file could not be read or parsed",
        "fix the file at the place the message names; no report is written while an input is bad";
    InputNotResults = "E002", "engine",
        "a file found in a directory is not a result file the readers know",
        "name the result files, or a glob of them, to leave other files out";
    ExpectIncomplete = "E003", "seal",
        "an `--expect` run reports problems, so its test list may be incomplete",
        "fix the stub run until it reports no problem, then seal again";
    ExpectModuleSkipped = "E004", "seal",
        "an `--expect` run skips a whole module, so its tests are not listed",
        "run the stub without the module-level skip";
    ExpectUnusable = "E005", "seal",
        "`--expect` inputs could not be used; no seal was written",
        "fix the inputs the earlier errors name";
    GateFailed = "E006", "engine",
        "the score does not meet the `--threshold` gate",
        "fix the failing sealed tests, or review the threshold";
    SealRecordProblem = "E007", "seal",
        "a combined seal's records do not hold together",
        "reseal; a record must list the suites it combines as they are";
    FileIo = "E008", "engine",
        "a file or directory could not be read or written",
        "check the path and its permissions; the operating system's error is named after it";
    UsageError = "E009", "engine",
        "options that cannot be honoured together, or a value out of range",
        "fix the option the message names (`gapscore help` lists them)";
    BadInputFile = "E010", "engine",
        "a rules file or history is not what it must be",
        "fix the file at the place the message names";
    BadExcludeGlob = "E011", "engine",
        "an `--exclude` glob does not compile",
        "fix the glob's syntax (`*`, `?`, `[...]`, `**`)";
    BadHash = "E012", "engine",
        "a hash given is not a SHA-256",
        "give 64 hexadecimal digits (with or without `sha256:`)";
    RunNotComplete = "E013", "engine",
        "`gapscore run` exits 1 without `--threshold`: its report is advisory (the sealed suite did not fully run: the runner failed, timed out or was killed, results are missing; or an input was cut), so its score is not a measurement",
        "fix what the report's advisory reason names and run again; or pass `--allow-advisory` to exit 0 on an advisory report (under `--threshold` the gate then judges the score alone)";
    ExpectNoneInside = "E014", "seal",
        "every test a `seal --expect-run` stub run reported lies outside the sealed directory; no seal was written",
        "run the stub's command so that it runs the sealed directory's tests";
    RunnerInWorkspace = "E040", "runner",
        "`gapscore run` refused to start: the runner or a module of its framework would be loaded from the workspace, which the implementer writes",
        "install the runner outside the project (a global or CI-provided tool, `python -m pytest` from an interpreter outside it) and remove the planted module the message names; or pass `--trust-workspace-runner`, and the report records what was trusted";
    RunnerBehindShell = "E041", "runner",
        "`gapscore run` refused to start: the command is a shell given a script (`sh -c 'a; b'`), behind which the runner cannot be identified, so the per-runner recipes and the E040 check would not apply",
        "give the runner's command directly after `--` (a shell given one simple command, `sh -c 'python3 -m pytest sealed'`, is run as its words); put set-up steps before `gapscore run`; or pass `--trust-workspace-runner`, and the report records it";

    SuiteDidNotRun = "A001", "report",
        "advisory: the sealed suite did not fully run (it has run-level problems)",
        "fix the problems the report lists (`gapscore.problems`) and run the suite again";
    ZeroSealedTests = "A002", "report",
        "advisory: no sealed tests were counted",
        "make sure the sealed suite ran and its results were given";
    FlakyPasses = "A003", "report",
        "advisory: sealed tests passed only on a retry",
        "make the flaky tests deterministic, or score with `--flaky fail`";
    ExcludedFilesPresent = "A004", "report",
        "advisory: files under paths the seal excludes are present in the sealed directory",
        "remove them (`__pycache__`, `node_modules`) before scoring: planted bytecode or packages change what the sealed tests do";
    SealWeakened = "A005", "report",
        "advisory: the seal's protection is weakened (its mount or policy)",
        "seal on a filesystem the implementer cannot write";
    SealBrokenAllowed = "A006", "report",
        "advisory: the sealed tests no longer match their seal (scored with `--allow-broken`)",
        "restore the sealed tests, or reseal deliberately";
    WeakIndependence = "A007", "report",
        "advisory: the implementer's model family is among the seal authors'",
        "have the sealed tests written by a different model family (spec §3.6)";
    SpecTruncated = "A008", "report",
        "advisory: the specification was truncated or summarised on the way",
        "give the seal author and the implementer the whole specification (spec §5.4)";
    ListingUnmatched = "A009", "report",
        "advisory: the seal record's expected tests could not be matched to the results by id (none matched, two listed tests share pytest's JUnit name, or a Jest or Vitest result's path ends in two listed files)",
        "seal with `seal --expect` on results in the format and from the directory you score (`gapscore explain W224`, `W225`, `W226`)";
    ExpectedTestsDidNotRun = "A010", "report",
        "advisory: expected sealed tests of the seal record have no result (the sealed suite did not fully run; each is counted as failed)",
        "find why they did not run (a file that failed to load or exited early, a deselecting plugin, a narrower command than the seal's) and run the whole sealed suite again (`gapscore explain W208`)";

    SealUnreadable = "R001", "engine",
        "the seal record or the sealed directory could not be read",
        "check the paths given with --seal / --sealed-dir";
    BrokenSeal = "R002", "engine",
        "the sealed directory does not match its seal record",
        "restore the sealed tests (or reseal deliberately); `--allow-broken` scores it as advisory";
    RulesUnreadable = "R003", "engine",
        "the category rules could not be read",
        "fix the rules file the message names";
    UsageRefused = "R004", "engine",
        "options that cannot be honoured, or a history that cannot be read",
        "fix the option the message names";
    InputsUnreadable = "R005", "engine",
        "inputs or plugins could not be read, so no report is written",
        "fix the inputs the errors name; scoring the good files alone would drop the bad file's failures";
    NoSealedTestsStrict = "R006", "engine",
        "no sealed test was counted, and `--strict` was given",
        "make sure the sealed suite ran and its results were given";
    RunNotStarted = "R007", "run",
        "`gapscore run` did not start the test command (planted files beside the sealed tests, a workspace that could not be prepared, a program that could not be started)",
        "fix what the message names; nothing was run, and no report is written";
}

impl Code {
    /// Every code, in registry order.
    pub fn all() -> impl Iterator<Item = Code> {
        REGISTRY.iter().map(|e| e.code)
    }

    /// The code's registry entry.
    pub fn entry(self) -> &'static Entry {
        // The table is in declaration order, so the discriminant is the index.
        &REGISTRY[self as usize]
    }

    /// What went wrong, in one line.
    pub fn title(self) -> &'static str {
        self.entry().title
    }

    /// What to do about it.
    pub fn what_to_do(self) -> &'static str {
        self.entry().what_to_do
    }

    /// The code written as given, or [`Code::AdapterWarning`] when it is not one this registry
    /// holds (see the module documentation).
    pub fn lenient(s: &str) -> Code {
        s.parse().unwrap_or(Code::AdapterWarning)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is no code of the registry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown code `{0}`")]
pub struct UnknownCode(pub String);

impl FromStr for Code {
    type Err = UnknownCode;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        Code::all()
            .find(|c| c.as_str().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| UnknownCode(s.to_owned()))
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Code {
    /// Lenient, as [`Code::lenient`]: a result file or plugin from a newer gapscore still reads.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
        Ok(Code::lenient(&s))
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Code {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Code".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A stable code from gapscore's registry (`gapscore explain CODE`).",
            "type": "string",
            "pattern": "^[A-Z][0-9]{3}$"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_are_unique_well_formed_and_in_order() {
        let mut seen = HashSet::new();
        for (i, e) in REGISTRY.iter().enumerate() {
            assert_eq!(e.code as usize, i, "{} is out of place", e.code);
            let s = e.code.as_str();
            assert!(seen.insert(s), "{s} given twice");
            assert_eq!(s.len(), 4, "{s}");
            assert!(
                matches!(s.as_bytes()[0], b'P' | b'W' | b'E' | b'A' | b'R'),
                "{s}"
            );
            assert!(s[1..].bytes().all(|b| b.is_ascii_digit()), "{s}");
            assert!(!e.title.is_empty() && !e.what_to_do.is_empty(), "{s}");
            assert_eq!(s.parse::<Code>(), Ok(e.code));
        }
    }

    #[test]
    fn unknown_codes_read_as_the_generic_one() {
        assert_eq!("w101".parse::<Code>(), Ok(Code::DeclaredCountMismatch));
        assert!("W999".parse::<Code>().is_err());
        let c: Code = serde_json::from_str("\"W999\"").unwrap();
        assert_eq!(c, Code::AdapterWarning);
        assert_eq!(serde_json::to_string(&Code::SlowTest).unwrap(), "\"W108\"");
    }
}
