//! Suite-level evidence: an `<error>`/`<failure>` directly under a `<testsuite>` (a counted
//! `suite-error`), a Go panic in a suite's `<system-out>` (a `crash`), and the evidence of the
//! whole file: the root's declared counts and node's footer comments.

use gapscore_adapter_sdk::{EventSink, Problem, ProblemKind, Producer};

use super::{Ending, Reading, Target, case, declared};

impl<K: EventSink + ?Sized> Reading<'_, K> {
    /// The end of an `<error>`/`<failure>` directly under a `<testsuite>`: a `suite-error`.
    pub(super) fn end_suite_error(&mut self) {
        self.target = Target::Ignore;
        let Some(o) = self.suite_error.take() else {
            return;
        };
        let suite = self.suite_path().unwrap_or_default();
        // Ant counts a class that failed to load as a test, in `tests=` and `errors=`.
        let one = declared::Held {
            tests: 1,
            failed: 1,
            ..declared::Held::default()
        };
        self.file_held.add(one);
        if let Some(s) = self.suites.last_mut() {
            s.held.add(one);
            s.own.add(one);
        }
        let what = o
            .message
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_owned)
            .or_else(|| o.kind.clone().filter(|k| !k.is_empty()))
            .unwrap_or_else(|| case::first_line(&o.body));
        let kind = o
            .kind
            .as_deref()
            .filter(|k| !k.is_empty() && !what.contains(*k));
        let detail = match kind {
            Some(k) => format!("the suite failed outside any test ({k}: {what})"),
            None => format!("the suite failed outside any test ({what})"),
        };
        self.sink
            .problem(Problem::new(ProblemKind::SuiteError, detail).with_suite(suite));
    }

    /// The end of a Go producer's suite-level `<system-out>`: a panic there killed the binary.
    pub(super) fn end_suite_out(&mut self) {
        let found = self.suites.last_mut().and_then(|s| {
            let scan = s.out.finish()?;
            let reported = std::mem::replace(&mut s.crash_reported, true);
            Some((scan, s.name.clone(), reported))
        });
        if let Some((scan, name, reported)) = found {
            self.report_panic(&scan, name, reported);
        }
    }

    pub(super) fn report_panic(&mut self, panic_line: &str, suite: Option<String>, reported: bool) {
        if reported {
            return;
        }
        self.sink.problem(
            Problem::new(
                ProblemKind::Crash,
                format!(
                    "{panic_line} in the suite's output: the test binary died, the tests after it \
                     did not run"
                ),
            )
            .with_suite(suite.unwrap_or_default()),
        );
    }
}

impl Ending {
    /// The root `<testsuites>`'s declared counts and node's footer comments, judged against
    /// the whole file; then the producer. Repositories trim fixture files and keep the root's
    /// original totals (an xUnit.net conversion declares 173 and holds 2, mocha-junit-reporter
    /// 15515 and 1): those read as lost tests, since nothing in the file tells them apart.
    pub(super) fn close<K: EventSink + ?Sized>(&self, sink: &mut K) {
        let conv = declared::Convention {
            surplus_expected: self.any_pseudo || self.producer == Some("gotestsum"),
            tests_count_reports: self.producer == Some("pytest"),
        };
        let mut held = self.root_held;
        held.failed += self.counted_twice;
        let (root, _) = declared::judge(
            "testsuites".into(),
            None,
            &self.root_declared,
            held,
            held,
            conv,
        );
        if let Some(e) = root {
            sink.evidence(e);
        }
        if let Some(e) = self.footer.evidence(self.file_held, self.file_suites) {
            sink.evidence(e);
        }
        if let Some(p) = self.producer {
            sink.producer(Producer::new(p));
        }
    }
}
