//! What a finished `<testcase>` becomes: a producer's pseudo-testcase turned into a problem,
//! or a test with its status and messages; Go parent tests and gotestsum's reruns.

use gapscore_adapter_sdk::{Attempt, EventSink, Problem, ProblemKind, Status, TestCase};

use super::{Case, Outcome, Reading, producer};

impl<K: EventSink + ?Sized> Reading<'_, K> {
    /// Producers write run-level trouble as fake testcases; those become problems, not tests.
    pub(super) fn pseudo_case(&mut self, case: &Case) -> bool {
        // pytest: KeyboardInterrupt or `pytest.exit()` leaves a `<testcase>` without a name
        // (and without a classname): the run stopped there, the tests after it never ran.
        if self.producer == Some("pytest")
            && case.name.trim().is_empty()
            && case.classname.trim().is_empty()
        {
            self.sink.problem(
                Problem::new(
                    ProblemKind::Interrupted,
                    "a <testcase> without a name: pytest was interrupted (KeyboardInterrupt or \
                     pytest.exit()) and the tests after it never ran",
                )
                .with_suite(self.suite_path().unwrap_or_default()),
            );
            return true;
        }
        // go-junit-report: a package that does not build.
        if case.name == "[build failed]" || case.name == "[setup failed]" {
            let detail = case
                .error
                .as_ref()
                .or(case.failure.as_ref())
                .map(|o| o.body.trim().to_owned())
                .unwrap_or_default();
            let owner = if case.classname.is_empty() {
                self.suite_path().unwrap_or_default()
            } else {
                case.classname.clone()
            };
            self.sink
                .problem(Problem::new(ProblemKind::BuildFailure, detail).with_suite(owner));
            if self.producer.is_none() {
                self.producer = Some("go-junit-report");
            }
            return true;
        }
        // go-junit-report v2: a package that failed outside any test (a failing `TestMain`, a
        // panic before the tests) is a pseudo-testcase `Failure` with `<error message="Runtime
        // error">`: the package's tests never ran.
        if producer::is_go(self.producer)
            && case.name == "Failure"
            && let Some(err) = &case.error
            && err.message.as_deref() == Some("Runtime error")
        {
            self.sink.problem(
                Problem::new(
                    ProblemKind::SuiteError,
                    format!(
                        "the package's test binary failed outside any test: {}",
                        first_line(&err.body)
                    ),
                )
                .with_suite(self.suite_path().unwrap_or_default()),
            );
            return true;
        }
        // gotestsum: a package whose test binary failed outside any test (its `TestMain`, or a
        // main that exited) gets a `TestMain` testcase without a classname, left out of the
        // suite's `tests=` and counted in the root's `errors=`: the package's tests never ran.
        if self.producer == Some("gotestsum")
            && case.name == "TestMain"
            && case.classname.is_empty()
            && (case.failure.is_some() || case.error.is_some())
        {
            let detail = case
                .failure
                .as_ref()
                .or(case.error.as_ref())
                .map(|o| first_line(&o.body))
                .unwrap_or_default();
            self.sink.problem(
                Problem::new(
                    ProblemKind::SuiteError,
                    format!("the package's test binary failed outside any test: {detail}"),
                )
                .with_suite(self.suite_path().unwrap_or_default()),
            );
            self.counted_twice += 1;
            return true;
        }
        // jest-junit: a test file that did not compile or load (an <error> and a <failure> twin).
        if case.classname == "Test suite failed to run" {
            if self.reported_suite_errors.insert(case.name.clone()) {
                let detail = case
                    .error
                    .as_ref()
                    .or(case.failure.as_ref())
                    .map(|o| {
                        o.message
                            .clone()
                            .unwrap_or_else(|| o.body.trim().to_owned())
                    })
                    .unwrap_or_default();
                self.sink.problem(
                    Problem::new(ProblemKind::SuiteError, first_line(&detail))
                        .with_suite(case.name.clone()),
                );
            }
            return true;
        }
        // pytest: a module that could not be imported or compiled.
        if let Some(err) = &case.error
            && err.message.as_deref() == Some("collection failure")
        {
            let reason = err
                .body
                .lines()
                .rev()
                .find(|l| l.starts_with("E "))
                .map_or_else(|| first_line(&err.body), |l| l[1..].trim().to_owned());
            self.sink.problem(
                Problem::new(ProblemKind::CollectionError, reason).with_suite(case.name.clone()),
            );
            return true;
        }
        false
    }

    pub(super) fn finish_case(&mut self, case: &Case) -> Box<TestCase> {
        let status = match (&case.skipped, &case.error, &case.failure) {
            (Some(s), _, _) if s.kind.as_deref() == Some("pytest.xfail") => Status::Xfailed,
            // node's todo: a todo whose body passed is TAP's `ok # TODO` (xpassed), one with a
            // failure is TAP's `not ok # TODO` (todo), so one run reads the same from either.
            (Some(s), None, None)
                if s.kind.as_deref() == Some("todo") && case.flagged.is_none() =>
            {
                Status::Xpassed
            }
            (Some(s), _, _) if s.kind.as_deref() == Some("todo") => Status::Todo,
            (_, Some(_), _) => Status::Errored,
            (_, None, Some(_)) => Status::Failed,
            // A failure attribute or failing status: the worst of the record's signals wins.
            _ if case.flagged.is_some() => Status::Failed,
            (Some(_), None, None) => Status::Skipped,
            // tst's `status="disabled"`, googletest's `notrun`/`suppressed`/`skipped`.
            (None, None, None) if case.not_run.is_some() => Status::Skipped,
            (None, None, None) => Status::Passed,
        };
        let mut test = self.test_for(case, status);
        let outcome = match status {
            Status::Errored => case.error.as_ref(),
            Status::Failed => case.failure.as_ref(),
            Status::Skipped | Status::Xfailed | Status::Todo => case.skipped.as_ref(),
            _ => None,
        };
        // A todo or xfail keeps the failure's text when its own element has none.
        test.message = outcome
            .and_then(|o| message_of(o))
            .or_else(|| case.failure.as_ref().and_then(|o| message_of(o)))
            .or_else(|| case.error.as_ref().and_then(|o| message_of(o)))
            .or_else(|| case.flagged.clone())
            .or_else(|| {
                (status == Status::Skipped)
                    .then(|| case.not_run.map(|w| format!("status: {w}")))
                    .flatten()
            });
        // node --test prints the whole inspected error: keep its assertion's message, the frame
        // where it failed and its expected/actual values, not the test runner's own frames.
        if self.producer == Some("node")
            && matches!(status, Status::Failed | Status::Errored)
            && let Some(n) = test.message.as_deref().and_then(super::node::read)
        {
            test.message = Some(n.message);
            if test.expected.is_none() && test.actual.is_none() {
                test.expected = n.expected;
                test.actual = n.actual;
            }
        }
        // pytest writes where a skip was decided as the skip's text: `path:line: reason`.
        if status == Status::Skipped
            && let Some(s) = &case.skipped
            && s.kind.as_deref() == Some("pytest.skip")
        {
            test.decided_at = decided_at(&s.body);
        }
        test.attempts.extend(case.attempts.iter().map(|(s, o)| {
            let mut a = Attempt::new(*s);
            a.message = message_of(o);
            a
        }));
        if case.negative_time && self.producer == Some("gotestsum") {
            self.sink.problem(
                Problem::new(
                    ProblemKind::MissingResults,
                    format!("test `{}` never finished (time=\"-0.000000\")", test.name),
                )
                .with_suite(test.suite.clone().unwrap_or_default()),
            );
        }
        // A Go panic kills the test binary: the tests after it never ran and are absent.
        if let Some(f) = &case.failure
            && f.body.contains("\npanic: ")
            && f.body.contains("goroutine ")
        {
            let crashed = self.suites.last_mut().is_some_and(|s| {
                let first = !s.crash_reported;
                s.crash_reported = true;
                first
            });
            if crashed || self.suites.is_empty() {
                let line = f
                    .body
                    .lines()
                    .find(|l| l.starts_with("panic: "))
                    .unwrap_or("panic");
                self.sink.problem(
                    Problem::new(
                        ProblemKind::Crash,
                        format!("{line} in {}; tests after it did not run", test.name),
                    )
                    .with_suite(test.suite.clone().unwrap_or_default()),
                );
            }
        }
        test
    }

    /// Go parent tests: `TestA` is a parent when a `TestA/...` subtest comes before it (gotestsum)
    /// or right after it (go-junit-report). One finished testcase is held back to see the next.
    pub(super) fn emit(&mut self, mut test: Box<TestCase>) {
        // Only Go producers name subtests `TestA/b`; elsewhere (`GET /api/users`) a slash is
        // part of the test's own name.
        let go = producer::is_go(self.producer);
        if go && let Some(pos) = test.name.rfind('/') {
            let parent = &test.name[..pos];
            test.parent_id = Some(TestCase::make_id(test.suite.as_deref(), parent));
            if let Some(s) = self.suites.last_mut() {
                let mut p = test.name.as_str();
                while let Some(i) = p.rfind('/') {
                    p = &p[..i];
                    s.prefixes.insert(p.to_owned());
                }
            }
        }
        if go
            && self
                .suites
                .last()
                .is_some_and(|s| !s.prefixes.is_empty() && s.prefixes.contains(&test.name))
        {
            test.parent = true;
        }
        if let Some(mut held) = self.pending.take() {
            let child_of_held = test
                .name
                .strip_prefix(held.name.as_str())
                .is_some_and(|rest| rest.starts_with('/'));
            if go && child_of_held && test.suite == held.suite {
                held.parent = true;
            }
            self.deliver(held);
        }
        self.pending = Some(test);
    }

    /// Hands a finished test to the sink, merging gotestsum reruns into attempts.
    fn deliver(&mut self, test: Box<TestCase>) {
        if self.producer != Some("gotestsum") {
            // Borrowed: the sink copies it only if it keeps it; its buffers serve the next test.
            self.sink.test_finished_ref(test.borrowed());
            self.spare_test = Some(test);
            return;
        }
        let mut test = *test;
        if let Some(i) = self.reruns.iter().position(|t| t.id == test.id) {
            let earlier = self.reruns.remove(i);
            let mut attempts = earlier.attempts.clone();
            let mut attempt = Attempt::new(earlier.status);
            attempt.message = earlier.message.clone();
            attempt.duration = earlier.duration;
            attempts.push(attempt);
            attempts.append(&mut test.attempts);
            test.attempts = attempts;
        }
        if matches!(test.status, Status::Failed | Status::Errored) {
            self.reruns.push(test);
        } else {
            self.sink.test_finished(test);
        }
    }

    pub(super) fn flush(&mut self) {
        if let Some(held) = self.pending.take() {
            self.deliver(held);
        }
        for t in std::mem::take(&mut self.reruns) {
            self.sink.test_finished(t);
        }
    }
}

/// `path:line` from pytest's skip text `path:line: reason`.
fn decided_at(body: &str) -> Option<String> {
    let head = body.trim_start();
    let colon = head.find(": ")?;
    let place = &head[..colon];
    let (path, line) = place.rsplit_once(':')?;
    let numeric = !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit());
    (numeric && !path.is_empty() && !path.contains('\n')).then(|| place.to_owned())
}

pub(super) fn first_line(s: &str) -> String {
    s.trim().lines().next().unwrap_or("").trim().to_owned()
}

fn message_of(o: &Outcome) -> Option<String> {
    let body = o.body.trim();
    match (
        o.message
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty()),
        body.is_empty(),
    ) {
        (Some(m), true) => Some(m.to_owned()),
        (Some(m), false) if body.starts_with(m) => Some(body.to_owned()),
        // One allocation of the right size (`format!` grows its buffer as it writes).
        (Some(m), false) => Some([m, "\n", body].concat()),
        (None, false) => Some(body.to_owned()),
        // `<error type="ZeroDivisionError"/>`: the type is all there is to say.
        (None, true) => o
            .kind
            .as_deref()
            .filter(|k| !k.is_empty())
            .map(str::to_owned),
    }
}
