//! What Mocha's document says beside `tests`: the `pending`, `failures` and `passes` arrays and
//! the `stats` counts. Each is held against the tests read, the worst reading winning: the
//! reader keeps a fingerprint of each failed and pending test only (passing tests, the bulk,
//! are counted), so memory grows with failures, never with passes.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use gapscore_adapter_sdk::{
    Declared, DeclaredCount, Evidence, EvidenceSource, Problem, ProblemKind, ReadCounts,
};

/// A test's identity in the document: its file and full title.
pub(crate) fn key(file: Option<&str>, full_title: &str) -> u64 {
    let mut h = DefaultHasher::new();
    file.hash(&mut h);
    full_title.hash(&mut h);
    h.finish()
}

/// Which of the side arrays an entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum List {
    Pending,
    Failures,
    Passes,
}

impl List {
    pub(crate) fn from_key(k: &str) -> Option<List> {
        match k {
            "pending" => Some(List::Pending),
            "failures" => Some(List::Failures),
            "passes" => Some(List::Passes),
            _ => None,
        }
    }
}

/// `stats` as declared.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    pub(crate) tests: Option<DeclaredCount>,
    pub(crate) passes: Option<DeclaredCount>,
    pub(crate) pending: Option<DeclaredCount>,
    pub(crate) failures: Option<DeclaredCount>,
}

/// The tests read from `tests`, and the side arrays' entries.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    pub(crate) passed: u64,
    pub(crate) failed: u64,
    pub(crate) pending: u64,
    failed_keys: HashSet<u64>,
    pending_keys: HashSet<u64>,
    /// Entries of `failures` that are not hooks, and of `pending`, by fingerprint.
    listed_failed: Vec<u64>,
    listed_pending: Vec<u64>,
    pub(crate) listed: [u64; 3],
    /// Failing hooks (reported as `suite-error` problems as they are read).
    pub(crate) hooks: u64,
}

impl Ledger {
    pub(crate) fn total(&self) -> u64 {
        self.passed + self.failed + self.pending
    }

    pub(crate) fn read_failed(&mut self, k: u64) {
        self.failed += 1;
        self.failed_keys.insert(k);
    }

    pub(crate) fn read_pending(&mut self, k: u64) {
        self.pending += 1;
        self.pending_keys.insert(k);
    }

    pub(crate) fn is_failed_test(&self, k: u64) -> bool {
        self.failed_keys.contains(&k)
    }

    /// An entry of a side array (a failing hook is counted by the caller, not here).
    pub(crate) fn listed(&mut self, list: List, k: u64) {
        self.listed[list as usize] += 1;
        match list {
            List::Failures => self.listed_failed.push(k),
            List::Pending => self.listed_pending.push(k),
            List::Passes => {}
        }
    }

    /// The problems and evidence of the whole document, once every array is read. The side
    /// arrays' disagreements with `tests` are one problem counting the largest of them (one
    /// forged entry shows in several arrays: counted once), and `stats` is then held against
    /// that worse reading, so no disagreement is counted twice.
    pub(crate) fn judge(&self, stats: Stats) -> (Vec<Problem>, Vec<Evidence>, Vec<String>) {
        let mut problems = Vec::new();
        let mut warnings = Vec::new();
        let mut reasons = Vec::new();
        // The tests the side arrays say did not pass: as failures, as pending.
        let mut as_failed = 0u64;
        // A failure `tests` does not hold as failed: the worse reading is `failures`'.
        let unheld = self
            .listed_failed
            .iter()
            .filter(|k| !self.failed_keys.contains(k))
            .count() as u64;
        if unheld > 0 {
            reasons.push(format!(
                "`failures` lists {unheld} failure(s) that `tests` does not hold as failed"
            ));
            as_failed = as_failed.max(unheld);
        }
        // A pending entry `tests` holds as passed: never a pass (a failed one already counts).
        let unheld_pending = self
            .listed_pending
            .iter()
            .filter(|k| !self.pending_keys.contains(k) && !self.failed_keys.contains(k))
            .count() as u64;
        if unheld_pending > 0 {
            reasons.push(format!(
                "`pending` lists {unheld_pending} test(s) that `tests` does not hold as pending or failed"
            ));
        }
        // Fewer passes listed than read: those beyond them did not demonstrably pass.
        let passes = self.listed[List::Passes as usize];
        if passes < self.passed {
            reasons.push(format!(
                "`passes` lists {passes} test(s) while `tests` holds {} as passed",
                self.passed
            ));
            as_failed = as_failed.max(self.passed - passes);
        } else if passes > self.passed {
            warnings.push(format!(
                "`passes` lists {passes} test(s) while `tests` holds {} as passed; the tests' own records are scored",
                self.passed
            ));
        }
        let worst = as_failed.max(unheld_pending);
        if worst > 0 {
            problems.push(
                Problem::new(ProblemKind::SummaryCounts, reasons.join("; ")).with_count(worst),
            );
        }
        let mut evidence = Vec::new();
        let mut declared = Declared::new();
        let mut said = Vec::new();
        for (name, count, set) in [
            (
                "tests",
                stats.tests,
                Declared::tests as fn(Declared, DeclaredCount) -> Declared,
            ),
            ("failures", stats.failures, Declared::failed),
            ("pending", stats.pending, Declared::skipped),
            ("passes", stats.passes, Declared::passed),
        ] {
            if let Some(c) = count {
                said.push(name);
                declared = set(declared, c);
            }
        }
        if !said.is_empty() {
            // Mocha counts a failing hook in `stats.failures`, never in `stats.tests`.
            let read = ReadCounts::new(
                self.total(),
                self.failed + self.hooks + as_failed,
                self.pending + unheld_pending,
            )
            .with_passed(self.passed.saturating_sub(worst))
            .with_problems(self.hooks);
            evidence.push(
                Evidence::new(
                    EvidenceSource::SummaryObject,
                    format!("`stats.{}`", said.join("`, `stats.")),
                )
                .declaring(declared)
                .reading(read),
            );
        }
        (problems, evidence, warnings)
    }
}
