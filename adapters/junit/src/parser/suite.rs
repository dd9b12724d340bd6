//! Suite-level evidence: an `<error>`/`<failure>` directly under a `<testsuite>` (a counted
//! `suite-error`), a Go panic in a suite's `<system-out>` (a `crash`), and the root's declared
//! total (a warning only).

use gapscore_adapter_sdk::Code;
use gapscore_adapter_sdk::{EventSink, Problem, ProblemKind, Producer};

use super::{Ending, Reading, Target, case};

impl<K: EventSink + ?Sized> Reading<'_, K> {
    /// The end of an `<error>`/`<failure>` directly under a `<testsuite>`: a `suite-error`.
    pub(super) fn end_suite_error(&mut self) {
        self.target = Target::Ignore;
        let Some(o) = self.suite_error.take() else {
            return;
        };
        let suite = self.suite_path().unwrap_or_default();
        if let Some(s) = self.suites.last_mut() {
            s.held.suite_errors += 1;
            s.seen[2] += 1;
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
    /// The root `<testsuites tests="N">`: a warning only when it disagrees, never counted:
    /// converters and trimmed files write root totals that their suites do not hold (an
    /// xUnit.net conversion declares 173 and holds 2, container-structure-test 8 and 3).
    /// Then the producer.
    pub(super) fn close<K: EventSink + ?Sized>(&self, sink: &mut K) {
        if let Some(d) = self.root_declared {
            let held = self.root_held;
            let surplus_expected = self.any_pseudo || self.producer == Some("gotestsum");
            if d > held || (d < held && !surplus_expected) {
                sink.coded_warning(Code::DeclaredCountMismatch, format!(
                    "testsuites declares tests=\"{d}\" but the file holds {held} (the root's total \
                     is not counted: trimmed and converted files disagree with it)"
                ));
            }
        }
        if let Some(p) = self.producer {
            sink.producer(Producer::new(p));
        }
    }
}
