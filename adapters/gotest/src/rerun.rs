//! gotestsum `--rerun-fails` merged into attempts. gotestsum reruns a failed test in a new
//! `go test` run of its package, after that package's final event, and its `--jsonfile` holds
//! every run's events one after the other. A test id that reports again after its package ended
//! is a new attempt of the same test, not a second test: the earlier runs become its `attempts`
//! and the last one its status (flaky when it passed in the end, see `TestCase::is_flaky`).
//!
//! Only a failed or errored test can be rerun, so only those wait here, until the stream ends
//! (a later rerun may still come) or their next attempt arrives; passing tests go out at once.
//! A test reported twice within one run of its package (`go test -count=2`) is not a rerun: both
//! runs stay separate entries, as go wrote them.
//!
//! The JSON reader (json.rs) feeds this module; it imports nothing from the reader.

use std::collections::HashMap;

use gapscore_adapter_sdk::{Attempt, EventSink, Status, TestCase};

/// Failed tests held for a rerun beyond this many are sent at once (and not merged).
const HOLD_CAP: usize = 100_000;

#[derive(Debug)]
struct Held {
    test: TestCase,
    pkg: String,
    /// The package's run that produced it has ended: a later result is a rerun.
    ended: bool,
}

/// Failed tests waiting for a possible rerun, in the order they finished.
#[derive(Debug, Default)]
pub(crate) struct Reruns {
    held: Vec<Option<Held>>,
    index: HashMap<String, usize>,
    live: usize,
}

impl Reruns {
    /// A finished test of package `pkg`: merged with its earlier attempts, then held (failed or
    /// errored, it may be rerun) or sent.
    pub(crate) fn finished(&mut self, sink: &mut dyn EventSink, pkg: &str, mut test: TestCase) {
        if let Some(i) = self.index.remove(&test.id)
            && let Some(earlier) = self.held.get_mut(i).and_then(Option::take)
        {
            self.live -= 1;
            if earlier.ended {
                let prior = earlier.test;
                let mut attempts = prior.attempts;
                let mut attempt = Attempt::new(prior.status);
                attempt.message = prior.message;
                attempt.duration = prior.duration;
                attempts.push(attempt);
                attempts.append(&mut test.attempts);
                test.attempts = attempts;
            } else {
                // The same run reported it again (`-count`): two entries, as written.
                sink.test_finished(earlier.test);
            }
        }
        if matches!(test.status, Status::Failed | Status::Errored) && self.live < HOLD_CAP {
            self.index.insert(test.id.clone(), self.held.len());
            self.held.push(Some(Held {
                test,
                pkg: pkg.to_owned(),
                ended: false,
            }));
            self.live += 1;
        } else {
            sink.test_finished(test);
        }
    }

    /// The final event of a run of `pkg`: its held tests may now be rerun.
    pub(crate) fn package_ended(&mut self, pkg: &str) {
        for h in self.held.iter_mut().flatten() {
            if h.pkg == pkg {
                h.ended = true;
            }
        }
    }

    /// The end of the stream: every held test is sent, in the order it finished.
    pub(crate) fn finish(&mut self, sink: &mut dyn EventSink) {
        for h in std::mem::take(&mut self.held).into_iter().flatten() {
            sink.test_finished(h.test);
        }
        self.index.clear();
        self.live = 0;
    }
}
