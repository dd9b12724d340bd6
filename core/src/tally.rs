//! The scoring consumer. A [`Tally`] is an [`EventSink`] that applies a [`StatusPolicy`] to
//! each test as it arrives and keeps only counts (overall, per status, per category, per suite
//! up to [`SUITE_LIMIT`]) and [`FailureEntry`]s, never the passing tests, so memory does not grow
//! with the suite. Tallies of separate input files merge into one; with a [`Manifest`], tests it
//! does not list are left out and expected tests without a result are counted as failed. Its
//! [`Tally::score`] is the [`Score`] the report is built from.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use crate::categories::CategoryRules;
use crate::duplicates::{DUPLICATE_CHECK_LIMIT, DuplicateTracker};
use crate::failures::{FailureEntry, FailureLog, FailureOrigin, Spill};
use crate::level::Score;
use crate::manifest::Manifest;
use crate::policy::{CountsAs, StatusPolicy};
use gapscore_model::event::EventSink;
use gapscore_model::{Category, Problem, ProblemKind, Producer, Status, TestCase, TestCaseRef};

use crate::counts::add;
pub use crate::counts::{CategoryCounts, StatusCounts, SuiteCounts};

/// A scoring consumer: applies the policy to each test as it arrives and keeps counts, failure
/// entries, problems and warnings, never the passing tests themselves, so memory does not grow
/// with the number of passing tests.
#[derive(Debug, Default)]
pub struct Tally {
    policy: StatusPolicy,
    source: Option<String>,
    /// What the policy counted.
    pub counts: SuiteCounts,
    /// Tests the policy left out (`--skipped exclude`).
    pub excluded: u64,
    /// Every test read, by status, before the policy.
    pub by_status: StatusCounts,
    /// Every counted test, by category.
    pub categories: CategoryCounts,
    /// Counts per suite path (the input file for tests without a suite), for at most
    /// [`SUITE_LIMIT`] suites; the rest are counted together under [`OTHER_SUITES`].
    pub suites: BTreeMap<String, SuiteCounts>,
    suites_merged_away: u64,
    /// Failure entries in input order: tests first as they arrive, problem entries as they arrive.
    /// In memory unless [`Tally::spill_failures`] gave them somewhere to go past a budget.
    pub failures: FailureLog,
    /// Ids of tests that passed only on a retry.
    pub flaky: Vec<String>,
    /// Run-level problems, each also counted as one failure entry.
    pub problems: Vec<Problem>,
    /// Ids that occurred more than once (each entry counted). A tally keeps only fingerprints
    /// of ids, so this is filled by whoever can look at the tests again: see
    /// [`Tally::repeated`].
    pub duplicates: Vec<String>,
    /// Warnings from the inputs.
    pub warnings: crate::warnings::WarningLog,
    /// Producers of the inputs.
    pub producers: Vec<Producer>,
    dups: DuplicateTracker,
    /// Counts of the last few suites tests belonged to, not yet in `suites` (at most
    /// [`RECENT_SUITES`], in first-seen order), and which of them the last test was in: tests
    /// of one suite in a row, or of a few classes in turn (pytest's), cost a string comparison
    /// instead of a map lookup. Flushed by `finish` and `merge`.
    recent_suites: Vec<(String, SuiteCounts)>,
    current_suite: usize,
    failed_parents: Vec<TestCase>,
    parents_with_failed_child: HashSet<String>,
    manifest: Option<Arc<Manifest>>,
    rules: Option<Arc<CategoryRules>>,
    collect_names: bool,
    /// Names of the tests counted, when asked for with [`Tally::collect_names`] (for the
    /// overlap ratio, which compares sealed and open names).
    pub names: Vec<String>,
    /// Manifest positions of the expected tests read.
    manifest_seen: Vec<u32>,
    /// With a manifest: ids of tests read that it does not list (renamed or injected tests)
    /// and that did not fail, in input order. They are not counted: a passing test the seal
    /// record does not list must not stand in for a sealed one.
    pub unexpected: Vec<String>,
    /// With a manifest: ids of failing results it does not list (a hook, a whole test file or a
    /// renamed test that failed under a name no record holds), in input order. A failure is
    /// evidence whatever its name, so each is counted as failed.
    pub unexpected_failed: Vec<String>,
    /// With a manifest, after [`Tally::apply_manifest`]: expected tests that have no result;
    /// each counted as failed.
    pub missing: Vec<String>,
}

impl Tally {
    /// An empty tally with a policy.
    pub fn new(policy: StatusPolicy) -> Self {
        Tally {
            policy,
            dups: DuplicateTracker::bounded(DUPLICATE_CHECK_LIMIT),
            ..Tally::default()
        }
    }

    /// Keeps failure entries past `spill.budget` bytes in a spill file, so that memory does not
    /// grow with the number of failures. Call before any test arrives.
    pub fn spill_failures(&mut self, spill: Spill) {
        self.failures = FailureLog::with_spill(spill);
    }

    /// Keeps the name of every counted test in [`Tally::names`] (memory grows with the suite).
    pub fn collect_names(&mut self, on: bool) {
        self.collect_names = on;
    }

    /// Applies category rules to every test before counting it.
    pub fn set_rules(&mut self, rules: Option<Arc<CategoryRules>>) {
        self.rules = rules;
    }

    /// An empty tally that checks the tests read against a manifest of expected tests.
    pub fn with_manifest(policy: StatusPolicy, manifest: Arc<Manifest>) -> Self {
        let mut t = Tally::new(policy);
        t.manifest = Some(manifest);
        t
    }

    /// The number of expected tests, when the tally has a manifest.
    pub fn manifest_len(&self) -> Option<u64> {
        self.manifest.as_ref().map(|m| m.len() as u64)
    }

    /// With a manifest: counts every expected test that has no result as failed (message
    /// `sealed test did not run`). Call once, on the tally every input was merged into.
    pub fn apply_manifest(&mut self) {
        let Some(manifest) = self.manifest.clone() else {
            return;
        };
        self.missing = manifest.missing(&self.manifest_seen);
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
            });
        }
        self.flush_suite();
    }

    /// Names the file the next events come from (used to label problems without a suite).
    pub fn set_source(&mut self, source: Option<String>) {
        self.source = source;
    }

    /// The policy in force.
    pub fn policy(&self) -> StatusPolicy {
        self.policy
    }

    /// Ends the input: a parent test that failed while none of its children did is counted
    /// here, so its failure is never lost (a Go test failing in cleanup after passing subtests).
    pub fn finish(&mut self) {
        for mut parent in std::mem::take(&mut self.failed_parents) {
            if !self.parents_with_failed_child.contains(&parent.id) {
                self.count(&mut parent);
            }
        }
        self.flush_suite();
        self.failures.flush();
    }

    /// Fingerprints of the ids recorded more than once, in this tally and every tally merged
    /// into it. Names for them come from reading the inputs again into an
    /// [`IdFinder`](crate::IdFinder), which only happens when there are repeats.
    pub fn repeated(&mut self) -> Vec<u64> {
        self.dups.repeated()
    }

    /// When the duplicate-id check stopped to bound memory: after how many tests.
    pub fn duplicate_check_stopped_after(&self) -> Option<u64> {
        self.dups.stopped_after()
    }

    /// Adds a tally of another input file (already [`Tally::finish`]ed) to this one, keeping
    /// input order. Ids seen in both are counted in both and found by [`Tally::repeated`].
    pub fn merge(&mut self, mut other: Tally) {
        self.flush_suite();
        other.flush_suite();
        add(&mut self.counts.total, other.counts.total);
        add(&mut self.counts.passed, other.counts.passed);
        add(&mut self.counts.failed, other.counts.failed);
        add(&mut self.excluded, other.excluded);
        self.by_status.absorb(&other.by_status);
        self.categories.absorb(&other.categories);
        if self.suites.is_empty() && other.suites.len() < SUITE_LIMIT {
            // Into an empty tally (the engine's sum of one input): the same map, not rebuilt.
            self.suites = other.suites;
        } else {
            for (suite, c) in other.suites {
                self.add_suite_counts(&suite, c);
            }
        }
        add(&mut self.suites_merged_away, other.suites_merged_away);
        self.failures.append(other.failures);
        self.flaky.extend(other.flaky);
        self.problems.extend(other.problems);
        self.duplicates.extend(other.duplicates);
        self.warnings.append(other.warnings);
        for p in other.producers {
            if !self.producers.contains(&p) {
                self.producers.push(p);
            }
        }
        self.failed_parents.extend(other.failed_parents);
        self.manifest_seen.extend(other.manifest_seen);
        self.names.extend(other.names);
        self.unexpected.extend(other.unexpected);
        self.unexpected_failed.extend(other.unexpected_failed);
        self.parents_with_failed_child
            .extend(other.parents_with_failed_child);
        self.dups.merge(other.dups);
    }

    /// Whether [`Tally::merge`] of `later`, a tally of the rest of the same input that neither
    /// was [`Tally::finish`]ed, gives exactly the tally one pass would: no suite counted under
    /// [`OTHER_SUITES`] (which suites are kept apart depends on arrival order) and the
    /// duplicate-id check short of its bound in the sum, and the warning kinds short of theirs.
    pub fn can_append(&self, later: &Tally) -> bool {
        self.can_append_all(&[later])
    }

    /// Whether the tallies of the parts of an input of about `tests` tests could be appended
    /// at all ([`Tally::can_append_all`] refuses past the duplicate check's bound between
    /// them): when not, the input is better read in one pass than in parts read and dropped.
    pub fn parts_may_append(tests: u64) -> bool {
        tests <= DUPLICATE_CHECK_LIMIT
    }

    /// [`Tally::can_append`] for several later parts of the same input, merged in order.
    pub fn can_append_all(&self, later: &[&Tally]) -> bool {
        let suites = |t: &Tally| (t.suites.len() + t.recent_suites.len()) as u64;
        let ids = |t: &Tally| Status::ALL.iter().map(|s| t.by_status.get(*s)).sum::<u64>();
        let all = || std::iter::once(self).chain(later.iter().copied());
        all().all(|t| {
            t.suites_merged_away == 0
                && t.dups.stopped_after().is_none()
                && t.manifest.is_none() == self.manifest.is_none()
        }) && all().map(suites).sum::<u64>() + 1 < SUITE_LIMIT as u64
            && all().map(ids).sum::<u64>() <= DUPLICATE_CHECK_LIMIT
            && all().map(|t| t.warnings.counts().len()).sum::<usize>()
                < crate::warnings::LOGGED_KINDS
    }

    /// The score over what was counted.
    pub fn score(&self) -> Score {
        Score::new(self.counts.failed, self.counts.total)
    }

    /// Counts a test. By reference: moving the ~300-byte test into here was a copy per test; a
    /// failure takes the strings it keeps.
    fn count(&mut self, test: &mut TestCase) {
        let outcome = self.policy.outcome(test);
        if outcome == CountsAs::Excluded {
            add(&mut self.excluded, 1);
            return;
        }
        add(&mut self.counts.total, 1);
        self.categories
            .add(test.category.unwrap_or(Category::Unknown));
        if self.collect_names {
            self.names.push(test.name.clone());
        }
        if test.is_flaky() {
            self.flaky.push(test.id.clone());
        }
        self.bump_suite(test.suite.as_deref(), outcome == CountsAs::Fail);
        match outcome {
            CountsAs::Pass => add(&mut self.counts.passed, 1),
            CountsAs::Fail => {
                add(&mut self.counts.failed, 1);
                self.failures.push(failure_of(test));
            }
            CountsAs::Excluded => {}
        }
    }

    /// Adds one counted test to its suite's counts. Nothing is allocated per test: a suite not
    /// among the recent ones takes the buffer of the one it pushes out.
    fn bump_suite(&mut self, suite: Option<&str>, failed: bool) {
        let c = self.suite_counts(suite);
        add(&mut c.total, 1);
        if failed {
            add(&mut c.failed, 1);
        } else {
            add(&mut c.passed, 1);
        }
    }

    /// The pending counts of a suite, made the current one.
    fn suite_counts(&mut self, suite: Option<&str>) -> &mut SuiteCounts {
        let key = self.suite_key(suite);
        let at = match self.recent_suites.get(self.current_suite) {
            Some((k, _)) if same_suite(k, key) => Some(self.current_suite),
            _ => self
                .recent_suites
                .iter()
                .position(|(k, _)| same_suite(k, key)),
        };
        let at = match at {
            Some(i) => i,
            None => {
                // Near the limit, every pending suite goes into the map first, so that which
                // suites are kept apart is decided in the order they came, as with one pending.
                let full = self.suites.len() + self.recent_suites.len() + 1 >= SUITE_LIMIT;
                let mut buf = if full {
                    self.flush_suite_keeping_buffer()
                } else if self.recent_suites.len() >= RECENT_SUITES {
                    let (k, c) = self.recent_suites.remove(0);
                    self.add_suite_counts(&k, c);
                    Some(k)
                } else {
                    None
                }
                .unwrap_or_default();
                buf.clear();
                buf.push_str(self.suite_key(suite));
                self.recent_suites.push((buf, SuiteCounts::default()));
                self.recent_suites.len() - 1
            }
        };
        self.current_suite = at;
        &mut self.recent_suites[at].1
    }

    fn flush_suite(&mut self) {
        self.flush_suite_keeping_buffer();
    }

    /// Moves every pending suite's counts into the map, in first-seen order; hands back a key
    /// buffer for reuse.
    fn flush_suite_keeping_buffer(&mut self) -> Option<String> {
        let mut spare = None;
        for (k, c) in std::mem::take(&mut self.recent_suites) {
            self.add_suite_counts(&k, c);
            spare = Some(k);
        }
        self.current_suite = 0;
        spare
    }

    /// Adds counts to a suite's. Past [`SUITE_LIMIT`] suites, a new suite's counts go to
    /// [`OTHER_SUITES`] instead: the per-suite breakdown is information, and a file with a
    /// million classes must not make it grow without bound (the totals are exact regardless).
    fn add_suite_counts(&mut self, key: &str, c: SuiteCounts) {
        let add = |mine: &mut SuiteCounts| {
            add(&mut mine.total, c.total);
            add(&mut mine.passed, c.passed);
            add(&mut mine.failed, c.failed);
        };
        if let Some(mine) = self.suites.get_mut(key) {
            add(mine);
            return;
        }
        let key = if self.suites.len() >= SUITE_LIMIT {
            if key != OTHER_SUITES {
                self.suites_merged_away += 1;
            }
            OTHER_SUITES
        } else {
            key
        };
        add(self.suites.entry(key.to_owned()).or_default());
    }

    /// How many suites past [`SUITE_LIMIT`] were counted under [`OTHER_SUITES`].
    pub fn suites_merged_away(&self) -> u64 {
        self.suites_merged_away
    }

    /// Where a test or problem belongs: its suite, else the input file, else `run`.
    fn suite_key<'a>(&'a self, suite: Option<&'a str>) -> &'a str {
        suite.or(self.source.as_deref()).unwrap_or("run")
    }
}

/// `a == b`, their ends compared first: names of suites in turn (a module's classes, a
/// package's files) share long beginnings and differ near the end.
fn same_suite(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if let (Some(x), Some(y)) = (a.last_chunk::<8>(), b.last_chunk::<8>())
        && x != y
    {
        return false;
    }
    a == b
}

/// Suites a tally keeps apart in its per-suite counts (about 2 MiB of them).
pub const SUITE_LIMIT: usize = 1 << 14;

/// Suites whose counts a tally keeps pending before the map (see `Tally::recent_suites`).
const RECENT_SUITES: usize = 8;

/// Where the suites past [`SUITE_LIMIT`] are counted.
pub const OTHER_SUITES: &str = "(other suites)";

/// The suite that expected tests without a result are counted under.
pub const MISSING_SUITE: &str = "(sealed tests that did not run)";

fn failure_of(test: &mut TestCase) -> FailureEntry {
    let test_name = test.display_name();
    let message = match test.status {
        Status::Skipped | Status::Todo | Status::Xfailed if test.message.is_none() => {
            Some(format!("sealed test not verified: {}", test.status))
        }
        Status::Passed | Status::Xpassed => {
            // Only reachable under `--flaky fail`.
            let failed_attempts = test
                .attempts
                .iter()
                .filter(|a| matches!(a.status, Status::Failed | Status::Errored))
                .count();
            Some(format!(
                "flaky: failed {failed_attempts} time(s) before passing on a retry{}",
                test.attempts
                    .iter()
                    .rev()
                    .find_map(|a| a.message.as_deref())
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default()
            ))
        }
        _ => test.message.take(),
    };
    FailureEntry {
        test_name,
        category: test.category.unwrap_or(Category::Unknown),
        expected: test.expected.take(),
        actual: test.actual.take(),
        message,
        origin: FailureOrigin::Test(test.status),
    }
}

impl EventSink for Tally {
    fn producer(&mut self, producer: Producer) {
        if !self.producers.contains(&producer) {
            self.producers.push(producer);
        }
    }

    fn test_finished(&mut self, mut test: TestCase) {
        if let Some(r) = &self.rules {
            r.apply(&mut test);
        }
        self.by_status.add(test.status);
        self.dups.record(&test.id);
        // With a manifest, only the tests it lists are sealed tests. Parents are represented
        // by their children, which are what the manifest lists.
        if let Some(m) = &self.manifest
            && !test.parent
        {
            match m.position(&test.id) {
                Some(i) => self.manifest_seen.push(i),
                None if self.policy.outcome(&test) == CountsAs::Fail => {
                    self.unexpected_failed.push(test.id.clone());
                }
                None => {
                    self.unexpected.push(test.id);
                    return;
                }
            }
        }
        let outcome = self.policy.outcome(&test);
        if outcome == CountsAs::Fail
            && let Some(pid) = &test.parent_id
        {
            self.parents_with_failed_child.insert(pid.clone());
        }
        if test.parent {
            // Parents are represented by their children; keep a failing one until the end to
            // see whether a child carries its failure.
            if outcome == CountsAs::Fail {
                // Its output is never reported (a failure entry has none): do not keep it.
                test.output = None;
                self.failed_parents.push(test);
            }
            return;
        }
        self.count(&mut test);
    }

    /// The fast path: a test that counts as passed (or is left out) is counted from the borrowed
    /// strings, with no owned copy; anything the tally keeps (a failure entry, a failing
    /// parent) goes through [`Tally::test_finished`] with the owned test. Both paths count the
    /// same (a test in `tests` below checks it field by field).
    fn test_finished_ref(&mut self, test: TestCaseRef<'_>) {
        let outcome = self.policy.outcome_for(test.status, || test.is_flaky());
        if outcome == CountsAs::Fail || test.parent {
            self.test_finished(test.to_test_case());
            return;
        }
        let category = self
            .rules
            .as_ref()
            .and_then(|r| r.category_for(test.suite, test.name, test.file))
            .or(test.category);
        self.by_status.add(test.status);
        self.dups.record(test.id);
        if let Some(m) = &self.manifest {
            match m.position(test.id) {
                Some(i) => self.manifest_seen.push(i),
                None => {
                    self.unexpected.push(test.id.to_owned());
                    return;
                }
            }
        }
        if outcome == CountsAs::Excluded {
            add(&mut self.excluded, 1);
            return;
        }
        add(&mut self.counts.total, 1);
        self.categories.add(category.unwrap_or(Category::Unknown));
        if self.collect_names {
            self.names.push(test.name.to_owned());
        }
        if test.is_flaky() {
            self.flaky.push(test.id.to_owned());
        }
        self.bump_suite(test.suite, false);
        add(&mut self.counts.passed, 1);
    }

    fn problem(&mut self, problem: Problem) {
        let place = self.suite_key(problem.suite.as_deref()).to_owned();
        let detail = problem.detail.trim();
        // A problem standing for n tests (declared and not held) counts n failures: a file that
        // promised 50 tests and holds 11 must not score better than one that holds all 50.
        let n = problem.weight();
        // A claim worse than the records (`declared-counts`, ...) stands for tests already read:
        // that many passes of its suite become failures, and only what they do not cover is
        // added, so that the per-suite counts still add up to the totals.
        let within_read = problem.kind.counts_within_read();
        let c = self.suite_counts(Some(&place));
        let within = if within_read { n.min(c.passed) } else { 0 };
        c.passed -= within;
        add(&mut c.total, n - within);
        add(&mut c.failed, n);
        self.counts.passed -= within;
        add(&mut self.counts.total, n - within);
        add(&mut self.counts.failed, n);
        self.failures.push(FailureEntry {
            test_name: match problem.count {
                Some(n) if n > 1 => format!("[{}] {place} ({n} tests)", problem.kind),
                _ => format!("[{}] {place}", problem.kind),
            },
            category: Category::Unknown,
            expected: Some("the sealed suite runs and reports every result".to_owned()),
            actual: (!detail.is_empty()).then(|| detail.to_owned()),
            message: Some(format!(
                "suite failed to run: {} in {place}",
                problem.kind.phrase()
            )),
            origin: FailureOrigin::Problem(problem.kind),
        });
        self.problems.push(problem);
    }

    fn warning(&mut self, message: String) {
        self.coded_warning(gapscore_model::Code::AdapterWarning, message);
    }

    fn coded_warning(&mut self, code: gapscore_model::Code, message: String) {
        let message = match &self.source {
            Some(src) => format!("{src}: {message}"),
            None => message,
        };
        self.warnings.push(code, message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{FlakyPolicy, SkippedPolicy, XfailPolicy};
    use gapscore_model::Attempt;

    fn t(name: &str, status: Status) -> TestCase {
        TestCase::new(None, name, status)
    }

    #[test]
    fn default_policy_counts_everything_unverified_as_failed() {
        let mut tally = Tally::new(StatusPolicy::default());
        for (n, s) in [
            ("a", Status::Passed),
            ("b", Status::Xpassed),
            ("c", Status::Failed),
            ("d", Status::Errored),
            ("e", Status::Skipped),
            ("f", Status::Xfailed),
            ("g", Status::Todo),
        ] {
            tally.test_finished(t(n, s));
        }
        tally.finish();
        assert_eq!(
            tally.counts,
            SuiteCounts {
                total: 7,
                passed: 2,
                failed: 5
            }
        );
        assert_eq!(tally.failures.len(), 5);
        assert_eq!(
            tally.failures.to_vec()[2].message.as_deref(),
            Some("sealed test not verified: skipped")
        );
    }

    #[test]
    fn skipped_exclude_and_xfail_pass() {
        let policy =
            StatusPolicy::new(SkippedPolicy::Exclude, XfailPolicy::Pass, FlakyPolicy::Pass);
        let mut tally = Tally::new(policy);
        tally.test_finished(t("a", Status::Skipped));
        tally.test_finished(t("b", Status::Todo));
        tally.test_finished(t("c", Status::Xfailed));
        tally.test_finished(t("d", Status::Passed));
        assert_eq!(tally.counts.total, 2);
        assert_eq!(tally.counts.failed, 0);
        assert_eq!(tally.excluded, 2);
    }

    #[test]
    fn flaky_passes_by_default_and_fails_on_request() {
        let mut flaky = t("f", Status::Passed);
        flaky.attempts.push(Attempt::new(Status::Failed));
        let mut tally = Tally::new(StatusPolicy::default());
        tally.test_finished(flaky.clone());
        assert_eq!(tally.counts.failed, 0);
        assert_eq!(tally.flaky, vec!["f".to_owned()]);

        let mut strict = Tally::new(StatusPolicy::new(
            SkippedPolicy::Fail,
            XfailPolicy::Fail,
            FlakyPolicy::Fail,
        ));
        strict.test_finished(flaky);
        assert_eq!(strict.counts.failed, 1);
        assert!(
            strict.failures.to_vec()[0]
                .message
                .as_deref()
                .unwrap()
                .starts_with("flaky")
        );
    }

    #[test]
    fn a_manifest_fails_missing_tests_and_ignores_injected_ones() {
        let m = Arc::new(Manifest::new(
            ["a", "b", "c"].iter().map(|s| (*s).to_owned()),
        ));
        let mut first = Tally::with_manifest(StatusPolicy::default(), m.clone());
        first.test_finished(t("a", Status::Passed));
        first.test_finished(t("injected", Status::Passed));
        let mut second = Tally::with_manifest(StatusPolicy::default(), m.clone());
        second.test_finished(t("b", Status::Failed));
        first.finish();
        second.finish();
        let mut all = Tally::with_manifest(StatusPolicy::default(), m);
        all.merge(first);
        all.merge(second);
        all.finish();
        all.apply_manifest();
        assert_eq!(all.missing, ["c"]);
        assert_eq!(all.unexpected, ["injected"]);
        // a passed, b failed, c did not run: 2 of 3, the injected pass not counted.
        assert_eq!((all.counts.failed, all.counts.total), (2, 3));
        let last = all.failures.to_vec().last().unwrap().clone();
        assert_eq!(last.test_name, "c");
        assert_eq!(last.message.as_deref(), Some("sealed test did not run"));
        assert_eq!(all.suites[MISSING_SUITE].failed, 1);
    }

    /// A failure under a name the record does not list (a file-level `not ok`, a failing
    /// hook) is counted, through either finishing path; a pass under such a name is not (found
    /// by an attack on the build: an after-hook failure read as a perfect score).
    #[test]
    fn a_manifest_counts_failures_it_does_not_list() {
        let m = Arc::new(Manifest::new(["a", "b"].iter().map(|s| (*s).to_owned())));
        let mut tally = Tally::with_manifest(StatusPolicy::default(), m);
        tally.test_finished(t("a", Status::Passed));
        tally.test_finished(t("b", Status::Passed));
        tally.test_finished(t("/tmp/ws/a.test.js", Status::Failed));
        tally.test_finished(t("after all hook", Status::Errored));
        tally.test_finished(t("injected", Status::Passed));
        tally.finish();
        tally.apply_manifest();
        assert_eq!(tally.unexpected, ["injected"]);
        assert_eq!(
            tally.unexpected_failed,
            ["/tmp/ws/a.test.js", "after all hook"]
        );
        assert_eq!((tally.counts.failed, tally.counts.total), (2, 4));
        let names: Vec<String> = tally
            .failures
            .to_vec()
            .into_iter()
            .map(|f| f.test_name)
            .collect();
        assert_eq!(names, ["/tmp/ws/a.test.js", "after all hook"]);
    }

    #[test]
    fn duplicates_each_count() {
        let mut tally = Tally::new(StatusPolicy::default());
        tally.test_finished(t("x", Status::Failed));
        tally.test_finished(t("x", Status::Passed));
        assert_eq!(tally.counts.total, 2);
        assert_eq!(tally.counts.failed, 1);
        let repeated = tally.repeated();
        assert_eq!(repeated, vec![crate::id_fingerprint("x")]);
        let mut finder = crate::IdFinder::new(&repeated);
        for id in ["x", "y", "x"] {
            finder.see(id);
        }
        assert_eq!(finder.into_repeated(), vec![("x".to_owned(), 2)]);
    }

    #[test]
    fn merging_per_file_tallies_equals_one_tally() {
        let tests = [
            ("a", Status::Passed),
            ("b", Status::Failed),
            ("c", Status::Skipped),
            ("a", Status::Failed),
        ];
        let mut one = Tally::new(StatusPolicy::default());
        for (n, s) in tests {
            one.test_finished(t(n, s));
        }
        one.finish();
        let mut first = Tally::new(StatusPolicy::default());
        let mut second = Tally::new(StatusPolicy::default());
        second.set_source(Some("second.json".into()));
        for (i, (n, s)) in tests.iter().enumerate() {
            if i < 2 { &mut first } else { &mut second }.test_finished(t(n, *s));
        }
        first.finish();
        second.finish();
        first.merge(second);
        assert_eq!(first.counts, one.counts);
        assert_eq!(first.failures.to_vec(), one.failures.to_vec());
        assert_eq!(first.by_status, one.by_status);
        // A repeat across the two files is found after the merge, as in one tally.
        assert_eq!(first.repeated(), one.repeated());
        assert_eq!(first.repeated(), [crate::id_fingerprint("a")]);
    }

    #[test]
    fn problems_add_failure_entries() {
        let mut tally = Tally::new(StatusPolicy::default());
        tally.set_source(Some("go.jsonl".into()));
        tally.test_finished(t("ok", Status::Passed));
        tally.problem(Problem::new(ProblemKind::BuildFailure, "undefined: x").with_suite("pkg/x"));
        assert_eq!(tally.score(), Score::new(1, 2));
        let f = &tally.failures.to_vec()[0];
        assert_eq!(f.test_name, "[build-failure] pkg/x");
        assert_eq!(
            f.message.as_deref(),
            Some("suite failed to run: build failure in pkg/x")
        );
        tally.problem(Problem::new(ProblemKind::Truncated, ""));
        let all = tally.failures.to_vec();
        assert_eq!(all[1].test_name, "[truncated] go.jsonl");
        assert_eq!(all[1].actual, None);
    }

    #[test]
    fn a_problem_standing_for_many_tests_counts_each_as_failed() {
        // A TAP plan of 50 with 11 results: the 39 missing tests are 39 failures, not one.
        let mut tally = Tally::new(StatusPolicy::default());
        for i in 0..11 {
            tally.test_finished(t(&format!("t{i}"), Status::Passed));
        }
        tally.problem(
            Problem::new(ProblemKind::MissingTests, "plan 1..50, 11 results").with_count(39),
        );
        tally.finish();
        assert_eq!(tally.score(), Score::new(39, 50));
        let entries = tally.failures.to_vec();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].test_name, "[missing-tests] run (39 tests)");
        let run = &tally.suites["run"];
        assert_eq!((run.total, run.failed), (50, 39));
    }

    #[test]
    fn parents_count_only_when_no_child_carries_the_failure() {
        let mut tally = Tally::new(StatusPolicy::default());
        let mut child = TestCase::new(Some("p".into()), "T/a", Status::Failed);
        child.parent_id = Some("p::T".into());
        let mut parent = TestCase::new(Some("p".into()), "T", Status::Failed);
        parent.parent = true;
        tally.test_finished(child);
        tally.test_finished(parent);
        // A parent failing after passing children (cleanup failure) is still counted.
        let mut child2 = TestCase::new(Some("p".into()), "U/a", Status::Passed);
        child2.parent_id = Some("p::U".into());
        let mut parent2 = TestCase::new(Some("p".into()), "U", Status::Failed);
        parent2.parent = true;
        let mut parent3 = TestCase::new(Some("p".into()), "V", Status::Passed);
        parent3.parent = true;
        tally.test_finished(child2);
        tally.test_finished(parent2);
        tally.test_finished(parent3);
        tally.finish();
        assert_eq!(
            tally.counts,
            SuiteCounts {
                total: 3,
                passed: 1,
                failed: 2
            }
        );
        assert_eq!(tally.failures.to_vec()[1].test_name, "p::U");
    }
}
