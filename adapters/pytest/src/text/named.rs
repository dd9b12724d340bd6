//! The tests the console reader has named, in bounded memory (issue 36).
//!
//! A test's lines can be far apart (a teardown `ERROR` after its `PASSED`, the short summary's
//! `FAILED id - message` after every test), so the reader cannot hand a test to the sink when
//! its first line is read. Holding every test until the end made memory follow the output
//! (10 GB on 1 GB of `pytest -v`). Instead:
//!
//! - The last [`WINDOW`] tests named by the run's own lines stay whole in memory, in the order
//!   they were first named. pytest prints a test's teardown line right after its call line
//!   (with xdist, after at most the other workers' lines in between), far inside the window.
//! - A failed or errored test leaving the window is **kept** whole until the end while the kept
//!   tests hold less than [`KEPT_BYTES`]: the short summary gives it its message there.
//! - Any other test leaving the window (passed, skipped, xfailed, xpassed, and failures past the
//!   budget) is **emitted** then; what a later line could still say about it is kept compactly:
//!   an emitted failure's id hash and status (16 bytes a failure), an emitted skip's reason
//!   (distinct reasons, at most [`SKIP_REASONS`]), and counts.
//!
//! A later line naming an emitted test never reads better than holding the test would:
//! a short-summary `FAILED`/`ERROR` for an emitted test that was not a failure is a **late
//! failure**, counted among the tests read as `summary-line` (P019, the test read as failed,
//! exactly as before); an `ERROR` for an emitted failure is bookkept as pytest counts it. What
//! is lost is detail only: the summary's message for an emitted test and its `-rs` place.
//! A summary line of another status for an emitted test changes nothing, as before (the
//! summary only raises a status). A per-test line past the window for an emitted test that was
//! not a failure (a teardown `ERROR` [`WINDOW`] tests after its `PASSED`, which pytest does not
//! print) is read as a second test with that id: both count, and the duplicate-id warning
//! (W003) names it.
//!
//! Only the run's own lines are windowed: tests named first by the short summary (`pytest -rA`
//! without `-v`) are held to the end, so memory follows them, as it did.
//!
//! Emitted failures are remembered by a 64-bit hash of their id, keyed at random for each
//! reading ([`RandomState`], SipHash), so a file cannot be made to collide on purpose. A
//! collision can only make a summary `FAILED` line for an emitted pass read as a re-naming of
//! an emitted failure, so that pass stays a pass: odds of about emitted failures × such lines /
//! 2^64, and a file edited that way gains nothing it could not get by deleting the line (which
//! the counts line judges alike). The window's and kept tests are looked up by their whole id.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, RandomState};

use gapscore_adapter_sdk::{Status, TestCase};

/// Tests held whole in first-named order before the oldest is kept or emitted.
pub(super) const WINDOW: usize = 4096;
/// The budget of failed and errored tests kept whole until the end (about their ids and
/// messages); past it, failures are emitted as they leave the window.
pub(super) const KEPT_BYTES: usize = 4 << 20;
/// Distinct reasons of emitted skips remembered for the `-rs` places; past it, no skip still in
/// memory is given a place (a place must belong to exactly one test).
pub(super) const SKIP_REASONS: usize = 4096;

/// Where a test still in memory is.
enum Slot {
    /// In the window, by its position among all tests named (`Named::left` is the window's first).
    Window(u64),
    /// Among the kept failures.
    Kept(usize),
}

/// What is remembered of the tests already handed to the sink.
#[derive(Default)]
pub(super) struct Emitted {
    /// How many.
    pub(super) total: u64,
    /// How many of each status.
    pub(super) by_status: HashMap<Status, u64>,
    /// Emitted failed or errored tests: id hash → status (a later `ERROR` updates it).
    failures: HashMap<u64, Status>,
    /// Emitted skips' reasons → how many; `None` once past [`SKIP_REASONS`].
    pub(super) skip_reasons: Option<HashMap<String, u64>>,
}

/// The tests named so far: see the module's doc.
pub(super) struct Named {
    window: VecDeque<TestCase>,
    /// Tests that have left the window (the position of `window[0]`).
    left: u64,
    index: HashMap<String, Slot>,
    kept: Vec<TestCase>,
    kept_bytes: usize,
    window_cap: usize,
    kept_cap: usize,
    pub(super) emitted: Emitted,
    hasher: RandomState,
}

impl Default for Named {
    fn default() -> Self {
        Named::with_limits(WINDOW, KEPT_BYTES)
    }
}

impl Named {
    /// A window of `window` tests and a kept budget of `kept_bytes` (the tests use small ones).
    pub(super) fn with_limits(window: usize, kept_bytes: usize) -> Self {
        Named {
            window: VecDeque::new(),
            left: 0,
            index: HashMap::new(),
            kept: Vec::new(),
            kept_bytes: 0,
            window_cap: window.max(1),
            kept_cap: kept_bytes,
            emitted: Emitted {
                skip_reasons: Some(HashMap::new()),
                ..Emitted::default()
            },
            hasher: RandomState::new(),
        }
    }

    /// The test named `id`, if it is still in memory.
    pub(super) fn get_mut(&mut self, id: &str) -> Option<&mut TestCase> {
        match self.index.get(id)? {
            Slot::Window(at) => {
                let i = usize::try_from(at - self.left).ok()?;
                self.window.get_mut(i)
            }
            Slot::Kept(i) => self.kept.get_mut(*i),
        }
    }

    /// A newly named test, at the end of the window.
    pub(super) fn push(&mut self, t: TestCase) {
        let at = self.left + self.window.len() as u64;
        self.index.insert(t.id.clone(), Slot::Window(at));
        self.window.push_back(t);
    }

    /// Whether any test has been handed to the sink before the end.
    pub(super) fn any_emitted(&self) -> bool {
        self.emitted.total > 0
    }

    /// The status an emitted failure was given (updated through it), if `id` is one.
    pub(super) fn emitted_failure(&mut self, id: &str) -> Option<&mut Status> {
        if self.emitted.failures.is_empty() {
            return None;
        }
        let h = self.hasher.hash_one(id);
        self.emitted.failures.get_mut(&h)
    }

    /// Tests named in all, in memory or emitted.
    pub(super) fn total(&self) -> u64 {
        self.emitted.total + (self.window.len() + self.kept.len()) as u64
    }

    /// The next test to emit now, if the window is over its size: the oldest test that is not
    /// kept. Call until `None`.
    pub(super) fn next_to_emit(&mut self) -> Option<TestCase> {
        while self.window.len() > self.window_cap {
            let t = self.window.pop_front()?;
            self.left += 1;
            self.index.remove(&t.id);
            let failure = matches!(t.status, Status::Failed | Status::Errored);
            let size =
                size_of::<TestCase>() + 3 * t.id.len() + t.message.as_ref().map_or(0, String::len);
            if failure && self.kept_bytes.saturating_add(size) <= self.kept_cap {
                self.kept_bytes += size;
                self.index.insert(t.id.clone(), Slot::Kept(self.kept.len()));
                self.kept.push(t);
                continue;
            }
            self.record(&t);
            return Some(t);
        }
        None
    }

    fn record(&mut self, t: &TestCase) {
        let e = &mut self.emitted;
        e.total += 1;
        *e.by_status.entry(t.status).or_insert(0) += 1;
        if matches!(t.status, Status::Failed | Status::Errored) {
            e.failures.insert(self.hasher.hash_one(&t.id), t.status);
        }
        if t.status == Status::Skipped
            && let Some(reason) = &t.message
            && let Some(reasons) = &mut e.skip_reasons
        {
            if let Some(n) = reasons.get_mut(reason.as_str()) {
                *n += 1;
            } else if reasons.len() < SKIP_REASONS {
                reasons.insert(reason.clone(), 1);
            } else {
                e.skip_reasons = None;
            }
        }
    }

    /// What is left, in the order first named (kept failures came before the window's tests),
    /// and what was emitted.
    pub(super) fn finish(self) -> (Vec<TestCase>, Emitted) {
        let mut tests = self.kept;
        tests.extend(self.window);
        (tests, self.emitted)
    }
}
