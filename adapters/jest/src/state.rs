//! What the Jest reader keeps while it reads: the counts and flags of the document so far, the
//! test file being read ([`FileAcc`]), and how each test and file becomes events ([`State`]).
//! The reader ([`crate::reader`]) parses; this module decides.

use std::borrow::Cow;

use gapscore_adapter_sdk::json::stream::Position;
use gapscore_adapter_sdk::{
    Attempt, Category, Code, DeclaredCount, EventSink, Problem, ProblemKind, Producer, Status,
    TestCase, TestCaseRef,
};

use crate::assertion::{Extra, RawAssertion, RawStatus, Str};
use crate::declared::{self, RootCounts};
use crate::message::{expected_actual, first_line, strip_ansi};

/// Counts by the runner's own statuses, to compare with the declared `num*Tests`.
#[derive(Debug, Default)]
pub(crate) struct Counts {
    total: u64,
    passed: u64,
    failed: u64,
    /// pending, skipped and disabled.
    pending: u64,
    todo: u64,
}

/// The root's declared numbers and flags.
#[derive(Debug, Default)]
pub(crate) struct Header {
    pub(crate) counts: RootCounts,
    pub(crate) failed_suites: Option<u64>,
    pub(crate) runtime_error_suites: Option<u64>,
    pub(crate) success: Option<bool>,
    pub(crate) interrupted: Option<bool>,
    pub(crate) snapshot_failure: Option<bool>,
}

/// The test file (`testResults[]` entry) being read.
#[derive(Default)]
pub(crate) struct FileAcc<'de> {
    pub(crate) name: Option<Cow<'de, str>>,
    pub(crate) status: Option<Cow<'de, str>>,
    pub(crate) message: Option<Cow<'de, str>>,
    pub(crate) exec_error: Option<String>,
    /// `numFailingTests` of the raw (unformatted) result shape, which has no `status`.
    pub(crate) num_failing: Option<DeclaredCount>,
    pub(crate) assertions: Vec<RawAssertion<'de>>,
    /// The `ancestorTitles` of every test in `assertions`, one after the other.
    pub(crate) titles: Vec<Str<'de>>,
}

pub(crate) struct State<'s> {
    sink: &'s mut dyn EventSink,
    pub(crate) header: Header,
    read: Counts,
    /// Keys only Jest writes (`numRuntimeErrorTestSuites`, `openHandles`, `wasInterrupted`).
    pub(crate) jest_keys: bool,
    /// A test with Vitest's `meta` key.
    vitest_meta: bool,
    files: u64,
    /// Complete files whose `status` is `passed`.
    files_passed: u64,
    /// Files with a `testExecError`.
    exec_errors: u64,
    /// Tests whose `passed` status their failure records contradict.
    contradicted: u64,
    suite_errors: u64,
    problems: u64,
    /// The input ended inside a test file: its tests were kept without their file name,
    /// which comes after them.
    cut_unnamed: bool,
    /// The current test's suite path and id, written here and kept for the next test.
    suite_buf: String,
    id_buf: String,
}

impl<'s> State<'s> {
    pub(crate) fn new(sink: &'s mut dyn EventSink) -> Self {
        State {
            sink,
            header: Header::default(),
            read: Counts::default(),
            jest_keys: false,
            vitest_meta: false,
            files: 0,
            files_passed: 0,
            exec_errors: 0,
            contradicted: 0,
            suite_errors: 0,
            problems: 0,
            cut_unnamed: false,
            suite_buf: String::new(),
            id_buf: String::new(),
        }
    }

    fn problem(&mut self, p: Problem) {
        self.problems += 1;
        self.sink.problem(p);
    }

    /// Sends the tests of the file just read, then its problem if it failed to run. A file
    /// the input ended in (`complete` false) gives its tests read before the cut, nothing else.
    pub(crate) fn close_file(&mut self, file: &mut FileAcc<'_>, complete: bool) {
        if !complete {
            self.cut_unnamed = file.name.is_none() && !file.assertions.is_empty();
        }
        let mut assertions = std::mem::take(&mut file.assertions);
        let titles = std::mem::take(&mut file.titles);
        let name = file.name.take().filter(|n| !n.is_empty());
        let mut failed_here = 0u64;
        let tests_here = assertions.len() as u64;
        let contradicted_before = self.contradicted;
        for a in assertions.drain(..) {
            if a.status == RawStatus::Failed {
                failed_here += 1;
            }
            let ancestors = titles.get(a.ancestors.clone()).unwrap_or_default();
            self.send_test(name.as_deref(), ancestors, a);
        }
        let status = file.status.take();
        let message = file.message.take();
        let exec_error = file.exec_error.take();
        let num_failing = file.num_failing.take();
        if !complete {
            return;
        }
        self.files += 1;
        if let Some(n) = num_failing.clone() {
            let failed = failed_here + self.contradicted - contradicted_before;
            let e = declared::file(name.as_deref(), n, tests_here, failed);
            self.problems += e.judge().problems.len() as u64;
            self.sink.evidence(e);
        }
        // Jest's own rule for a file's status, applied to the raw shape that has none.
        let passed = match status.as_deref() {
            Some(s) => s == "passed",
            None => {
                num_failing == Some(DeclaredCount::Number(0))
                    && exec_error.is_none()
                    && message.is_none()
            }
        };
        if passed {
            self.files_passed += 1;
        }
        if exec_error.is_some() {
            self.exec_errors += 1;
        }
        let failed_file = status.as_deref() == Some("failed");
        let detail = if let Some(err) = exec_error {
            Some(format!("test file failed to run: {}", first_line(&err)))
        } else if failed_file && failed_here == 0 {
            let text = message.as_deref().map(strip_ansi).unwrap_or_default();
            let line = first_line(&text);
            Some(if line.is_empty() {
                "test file failed but no test in it failed, and it gives no message".to_owned()
            } else {
                format!("test file failed to run: {line}")
            })
        } else {
            None
        };
        if let Some(detail) = detail {
            self.suite_errors += 1;
            let mut p = Problem::new(ProblemKind::SuiteError, detail);
            p.suite = name.map(Cow::into_owned);
            self.problem(p);
        }
    }

    /// Counts one test and hands it to the sink: borrowed when it has nothing but its name,
    /// suite, status, place and time (most tests), owned otherwise.
    fn send_test(&mut self, file: Option<&str>, ancestors: &[Str<'_>], a: RawAssertion<'_>) {
        self.read.total += 1;
        match a.status {
            RawStatus::Passed => self.read.passed += 1,
            RawStatus::Failed => self.read.failed += 1,
            RawStatus::Pending | RawStatus::Skipped | RawStatus::Disabled => {
                self.read.pending += 1;
            }
            RawStatus::Todo => self.read.todo += 1,
            RawStatus::Focused => {}
        }
        if a.meta {
            self.vitest_meta = true;
        }
        let failing = a.failing;
        // `passed` beside the runner's own failure records says two things: never a pass.
        let contradicted = a.status == RawStatus::Passed
            && a.extra
                .as_ref()
                .is_some_and(|e| !e.failure_messages.is_empty() || e.has_details);
        let status = match a.status {
            RawStatus::Passed if contradicted => Status::Failed,
            RawStatus::Passed if failing => Status::Xfailed,
            RawStatus::Passed => Status::Passed,
            RawStatus::Failed if failing => Status::Xpassed,
            RawStatus::Failed => Status::Failed,
            RawStatus::Pending | RawStatus::Skipped | RawStatus::Disabled => Status::Skipped,
            RawStatus::Todo => Status::Todo,
            // A status that says the test was focused and nothing about its outcome.
            RawStatus::Focused => Status::Errored,
        };
        // The suite path: the file, then the describe blocks, joined by ` > `.
        self.suite_buf.clear();
        if let Some(f) = file {
            self.suite_buf.push_str(f);
        }
        for t in ancestors {
            if !self.suite_buf.is_empty() {
                self.suite_buf.push_str(" > ");
            }
            self.suite_buf.push_str(&t.0);
        }
        let title = if a.title.0.is_empty() {
            a.full_name.map(|f| f.0).unwrap_or_default()
        } else {
            a.title.0
        };
        let category = Category::from_title(&title).or_else(|| {
            ancestors
                .iter()
                .rev()
                .find_map(|t| Category::from_title(&t.0))
        });
        let duration = a
            .duration
            .filter(|d| d.is_finite() && *d >= 0.0)
            .map(|ms| ms / 1000.0);
        // The common test (no failure text, retries or `focused`; a contradicted `passed` has
        // failure records) goes out borrowed: its suite and id are written into buffers kept
        // for the next test, its name and file borrow from the input.
        if a.extra.is_none() && a.invocations <= 1 && a.status != RawStatus::Focused {
            let suite = (!self.suite_buf.is_empty()).then_some(self.suite_buf.as_str());
            TestCase::make_id_into(&mut self.id_buf, suite, &title);
            let mut test = TestCaseRef::new(suite, &title, &self.id_buf, status);
            test.category = category;
            test.file = file;
            test.line = a.line;
            test.duration = duration;
            self.sink.test_finished_ref(test);
            return;
        }
        let suite = (!self.suite_buf.is_empty()).then(|| self.suite_buf.clone());
        if contradicted {
            self.contradicted += 1;
            let (messages, details) = a
                .extra
                .as_ref()
                .map_or((0, false), |e| (e.failure_messages.len(), e.has_details));
            let what = match (messages, details) {
                (0, _) => "entries in `failureDetails`".to_owned(),
                (n, false) => format!("{n} `failureMessages`"),
                (n, true) => format!("{n} `failureMessages` and `failureDetails`"),
            };
            self.sink.coded_warning(
                Code::ContradictoryStatus,
                format!(
                    "`{}` in {}: status `passed` with {what}: contradictory, counted as failed",
                    title,
                    file.unwrap_or("(unnamed file)")
                ),
            );
        }
        let mut test = TestCase::new(suite, title.into_owned(), status);
        test.category = category;
        test.file = file.map(str::to_owned);
        test.line = a.line;
        test.duration = duration;
        let Some(extra) = a.extra else {
            if a.invocations > 1 {
                add_attempts(&mut test, a.invocations, &[]);
            }
            if a.status == RawStatus::Focused {
                test.message = Some(FOCUSED.to_owned());
            }
            self.sink.test_finished(test);
            return;
        };
        let Extra {
            failure_messages,
            details,
            retry_reasons,
            retry_messages,
            has_details: _,
        } = *extra;
        let message = join_messages(&failure_messages);
        if status == Status::Failed {
            let (mut expected, mut actual) =
                details.map_or((None, None), |m| (m.expected, m.actual));
            if (expected.is_none() || actual.is_none())
                && let Some(m) = &message
            {
                let (e, r) = expected_actual(m);
                expected = expected.or(e);
                actual = actual.or(r);
            }
            test.expected = expected;
            test.actual = actual;
        }
        test.message = match (message, a.status) {
            (None, RawStatus::Focused) => Some(FOCUSED.to_owned()),
            (m, _) => m,
        };
        let reasons = if retry_reasons.is_empty() {
            retry_messages
        } else {
            retry_reasons
        };
        add_attempts(&mut test, a.invocations, &reasons);
        self.sink.test_finished(test);
    }

    /// After a complete document: the producer, the declared numbers, the run's own verdict.
    pub(crate) fn finish_complete(&mut self) {
        let producer = self.producer();
        let vitest = producer == Some("vitest");
        if let Some(p) = producer {
            self.sink.producer(Producer::new(p));
        }
        let mut h = std::mem::take(&mut self.header);
        let read = declared::Read {
            total: self.read.total,
            failed: self.read.failed + self.contradicted,
            not_run: self.read.pending + self.read.todo,
            files: self.files,
            suite_errors: self.suite_errors,
        };
        for e in declared::root(std::mem::take(&mut h.counts), read, vitest) {
            self.problems += e.judge().problems.len() as u64;
            self.sink.evidence(e);
        }
        if let Some(n) = h.runtime_error_suites
            && n > self.suite_errors
        {
            self.problem(Problem::new(
                ProblemKind::SuiteError,
                format!(
                    "`numRuntimeErrorTestSuites` says {n} test file(s) failed to run; the file shows {}",
                    self.suite_errors
                ),
            ));
        }
        if h.interrupted == Some(true) {
            self.problem(Problem::new(
                ProblemKind::Aborted,
                "the run was interrupted (`wasInterrupted: true`): not every test ran",
            ));
        }
        if h.success == Some(false) && self.read.failed == 0 && self.problems == 0 {
            self.success_false(&h);
        }
    }

    /// `success: false` though no test failed and nothing else is wrong. A reporter's copy of
    /// the results has it whenever every test passed: Jest sets `success` only after its
    /// reporters ran. It is not a failure only when everything else agrees: every test passed,
    /// no test file failed or errored (`numFailedTestSuites` and `numRuntimeErrorTestSuites`
    /// say 0, every file's status is `passed`, none has a `testExecError`) and no snapshot
    /// check failed. Anything else stays a `suite-error`.
    fn success_false(&mut self, h: &Header) {
        let all_passed =
            self.read.total > 0 && self.read.passed == self.read.total && self.contradicted == 0;
        let files_fine = h.failed_suites == Some(0)
            && h.runtime_error_suites == Some(0)
            && self.files > 0
            && self.files_passed == self.files
            && self.exec_errors == 0;
        if all_passed && files_fine && h.snapshot_failure != Some(true) {
            self.sink.coded_warning(Code::ExitStatusMismatch, format!(
                "the file says `success: false` though all {} tests passed and no test file failed (`numFailedTestSuites` and `numRuntimeErrorTestSuites` are 0): written by a reporter before Jest set `success`; not counted as a failure",
                self.read.total
            ));
            return;
        }
        let why = if h.snapshot_failure == Some(true) {
            " (its snapshot check failed)"
        } else {
            ""
        };
        let detail = if self.read.total == 0 {
            format!(
                "the runner reports `success: false`{why} and the file holds no test results (no tests found, or an error before any ran)"
            )
        } else {
            format!(
                "the runner reports `success: false`{why} though no test in the file failed: an error outside the tests"
            )
        };
        self.problem(Problem::new(ProblemKind::SuiteError, detail));
    }

    /// After a document that ends early (at `end`): what was read is kept, the cut is a
    /// problem.
    pub(crate) fn finish_truncated(&mut self, end: Position) {
        if let Some(p) = self.producer() {
            self.sink.producer(Producer::new(p));
        }
        let mut detail = format!(
            "the document ends at line {} column {} before it is complete (the runner was killed or the file was cut): {} tests read before the cut are kept",
            end.line, end.column, self.read.total
        );
        if let Some(DeclaredCount::Number(t)) = self.header.counts.total {
            detail.push_str(&format!(", the document declares {t}"));
        }
        if self.cut_unnamed {
            detail.push_str("; the tests of the last test file are kept without their file name, which comes after them");
        }
        self.problem(Problem::new(ProblemKind::Truncated, detail));
    }

    fn producer(&self) -> Option<&'static str> {
        if self.jest_keys {
            Some("jest")
        } else if self.vitest_meta {
            Some("vitest")
        } else {
            None
        }
    }
}

const FOCUSED: &str =
    "the runner's status is `focused`, which records no outcome: not counted as a pass";

/// Earlier runs of a retried test (`jest.retryTimes`): each failed, or it would not have been
/// retried. `invocations` counts every run, the reasons only those that kept one.
fn add_attempts(test: &mut TestCase, invocations: u64, reasons: &[Str<'_>]) {
    let earlier = usize::try_from(invocations.saturating_sub(1))
        .unwrap_or(usize::MAX)
        .max(reasons.len());
    if earlier == 0 {
        return;
    }
    // Bounded: a made-up `invocations` must not allocate without end.
    let unnamed = (earlier - reasons.len()).min(1000);
    test.attempts.reserve(unnamed + reasons.len());
    for _ in 0..unnamed {
        test.attempts.push(Attempt::new(Status::Failed));
    }
    for r in reasons {
        let mut at = Attempt::new(Status::Failed);
        let text = strip_ansi(&r.0);
        at.message = (!text.trim().is_empty()).then(|| text.into_owned());
        test.attempts.push(at);
    }
}

/// Joins failure messages (ANSI codes out) with a blank line; `None` when there is no text.
fn join_messages(messages: &[Str<'_>]) -> Option<String> {
    let mut out = String::new();
    for m in messages {
        let text = strip_ansi(&m.0);
        let text = text.trim_end();
        if text.trim().is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(text);
    }
    (!out.is_empty()).then_some(out)
}
