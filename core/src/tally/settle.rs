//! The manifest's side of a [`Tally`] and the settling once every input is in: expected tests
//! without a result counted as failed, surplus results taken back, problems that stand for tests
//! already read turned into failures among them.

use std::sync::Arc;

use gapscore_model::event::EventSink;
use gapscore_model::{Category, Problem, ProblemKind};

use super::{MISSING_SUITE, SuiteCounts, Tally};
use crate::counts::add;
use crate::failures::{FailureEntry, FailureOrigin};
use crate::manifest::Manifest;
use crate::policy::StatusPolicy;

impl Tally {
    /// An empty tally that checks the tests read against a manifest of expected tests.
    pub fn with_manifest(policy: StatusPolicy, manifest: Arc<Manifest>) -> Self {
        let mut t = Tally::new(policy);
        t.manifest = Some(manifest);
        t
    }

    /// The manifest's distinct ids, when the tally has one.
    pub fn manifest_ids(&self) -> Option<&[String]> {
        self.manifest.as_deref().map(Manifest::ids)
    }

    /// Listed ids that share pytest's JUnit name ([`Manifest::key_collisions`]).
    pub fn manifest_key_collisions(&self) -> &[(String, String)] {
        self.manifest
            .as_deref()
            .map_or(&[], Manifest::key_collisions)
    }

    /// Results matched to no listed test because they could be two or more of them
    /// ([`Manifest::ambiguous`]), each with those listed ids.
    pub fn manifest_ambiguities(&self) -> Vec<(String, Vec<String>)> {
        let Some(m) = self.manifest.as_deref() else {
            return Vec::new();
        };
        (self.unexpected.iter().chain(&self.unexpected_failed))
            .filter_map(|id| {
                let listed = m.ambiguous(id);
                (!listed.is_empty())
                    .then(|| (id.clone(), listed.iter().map(|l| (*l).to_owned()).collect()))
            })
            .collect()
    }

    /// True when the manifest lists tests, results were read, and not one of them is a listed
    /// test: the listing and the results name tests two ways (another format or directory).
    pub fn listing_unmatched(&self) -> bool {
        self.manifest_ids().is_some_and(|ids| !ids.is_empty())
            && self.manifest_seen.is_empty()
            && !(self.unexpected.is_empty() && self.unexpected_failed.is_empty())
    }

    /// The number of expected tests, when the tally has a manifest.
    pub fn manifest_len(&self) -> Option<u64> {
        self.manifest.as_ref().map(|m| m.len() as u64)
    }

    /// Settles the counts once every input is in; call once, on the tally every input was
    /// merged into. A problem that stands for tests already read (a declared failure among
    /// records read as passed) turns that many passes of its suite into failures instead of
    /// adding tests. With a manifest, every expected test that has no result is counted as
    /// failed (message `sealed test did not run`).
    pub fn apply_manifest(&mut self) {
        self.settle_within_read();
        let Some(manifest) = self.manifest.clone() else {
            return;
        };
        self.missing = manifest.missing(&self.manifest_seen);
        self.settle_surplus(&manifest);
        for id in self.missing.clone() {
            add(&mut self.counts.total, 1);
            add(&mut self.counts.failed, 1);
            self.categories.add(Category::Unknown);
            self.bump_suite(Some(MISSING_SUITE), true);
            self.failures.push(FailureEntry {
                test_name: id,
                category: Category::Unknown,
                expected: Some("the sealed test runs and passes".to_owned()),
                actual: Some("no result for it in the sealed results".to_owned()),
                message: Some("sealed test did not run".to_owned()),
                origin: FailureOrigin::Problem(ProblemKind::MissingTests),
                file: None,
                line: None,
            });
        }
        self.flush_suite();
    }

    /// Settles problems that stand for tests already read and arrived after
    /// [`Tally::apply_manifest`] (a runner's console summary, judged once the results are in).
    pub fn settle(&mut self) {
        self.settle_within_read();
    }

    /// Results beyond an expected test's multiplicity (twins registered under a sealed id, a
    /// suite appended twice): its surplus passes are taken out of the counts, so they cannot
    /// dilute the score, and one `surplus-results` problem names the tests. Its failures stay
    /// counted: the worst of a test's results is never taken back.
    fn settle_surplus(&mut self, manifest: &Manifest) {
        let surplus = manifest.surplus(&self.manifest_seen, &self.manifest_passed);
        if surplus.is_empty() {
            return;
        }
        self.manifest_passed = Vec::new();
        let passes: u64 = surplus.iter().map(|(_, n)| n).sum();
        self.flush_suite();
        self.take_passes(passes, None);
        let shown: Vec<String> = surplus
            .iter()
            .take(5)
            .map(|(id, n)| format!("{id} (+{n})"))
            .collect();
        let more = match surplus.len().saturating_sub(shown.len()) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        self.problem(Problem::new(
            ProblemKind::SurplusResults,
            format!(
                "{passes} passing result{} beyond what the seal lists for {} expected test{}, not counted: {}{more}",
                if passes == 1 { "" } else { "s" },
                surplus.len(),
                if surplus.len() == 1 { "" } else { "s" },
                shown.join(", ")
            ),
        ));
    }

    /// Each problem counted among the tests read takes its count out of the passes (and the
    /// totals): its own suite's first, then other suites' in order, as far as there are passes
    /// to take, so that the per-suite counts still add up to the totals.
    fn settle_within_read(&mut self) {
        self.flush_suite();
        for (place, n) in std::mem::take(&mut self.within_read) {
            self.take_passes(n, Some(&place));
        }
    }

    /// Takes up to `n` passes out of the counts (and the totals): out of suite `own`'s first,
    /// then other suites' in order, as far as there are passes to take, so that the per-suite
    /// counts still add up to the totals. Returns how many were taken.
    fn take_passes(&mut self, n: u64, own: Option<&str>) -> u64 {
        let taken = n.min(self.counts.passed);
        let mut left = taken;
        self.counts.passed -= left;
        // A total saturated at `u64::MAX` stays there: it could not grow by the problem's
        // count, so taking the moved passes out of it would leave it below `failed`.
        if self.counts.total != u64::MAX {
            self.counts.total -= left;
        }
        if let Some(c) = own.and_then(|own| self.suites.get_mut(own)) {
            let k = left.min(c.passed);
            take_passes(c, k);
            left -= k;
        }
        for c in self.suites.values_mut() {
            if left == 0 {
                break;
            }
            let k = left.min(c.passed);
            take_passes(c, k);
            left -= k;
        }
        taken
    }
}

/// Turns `k` of a suite's passes into the failures its problem already counted: out of its
/// passes and its total (unless the total saturated at `u64::MAX`, see `settle_within_read`).
fn take_passes(c: &mut SuiteCounts, k: u64) {
    c.passed -= k;
    if c.total != u64::MAX {
        c.total -= k;
    }
}
