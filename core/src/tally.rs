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
use crate::listing::{ListedTest, TestListing};
use crate::manifest::{Manifest, listed_as};
use crate::policy::{CountsAs, StatusPolicy};
use crate::skip_scope::{Refusals, SkipScope, SkipVerdict};
use gapscore_model::event::EventSink;
use gapscore_model::{Category, Problem, Producer, Status, TestCase, TestCaseRef};

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
    skip_scope: Arc<SkipScope>,
    refused: Refusals,
    /// Problems that stand for tests already read (`declared-counts`, ...): their suite and
    /// count, settled by [`Tally::apply_manifest`].
    within_read: Vec<(String, u64)>,
    collect_names: bool,
    /// Names of the tests counted, when asked for with [`Tally::collect_names`] (for the
    /// overlap ratio, which compares sealed and open names).
    pub names: Vec<String>,
    /// The tests counted as passed or left out, one by one, when asked for with
    /// [`Tally::list_tests`] (for an output that lists every test: the failed ones are the
    /// failure entries).
    pub listing: Option<TestListing>,
    /// Manifest positions of the expected tests read.
    manifest_seen: Vec<u32>,
    /// Manifest positions of the expected tests read that counted as passed: the passes an
    /// expected test has beyond its multiplicity are taken back ([`Tally::apply_manifest`]).
    manifest_passed: Vec<u32>,
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

    /// Lists every test counted as passed or left out in [`Tally::listing`], spilling past
    /// `spill`'s budget when one is given. Call before any test arrives.
    pub fn list_tests(&mut self, spill: Option<Spill>) {
        self.listing = Some(TestListing::new(spill));
    }

    /// Limits the lenient policies to skips and xfails decided inside the sealed directories
    /// (the default scope trusts every decision: a tally used outside the engine).
    pub fn set_skip_scope(&mut self, scope: Arc<SkipScope>) {
        self.skip_scope = scope;
    }

    /// Applies category rules to every test before counting it.
    pub fn set_rules(&mut self, rules: Option<Arc<CategoryRules>>) {
        self.rules = rules;
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
                self.count(&mut parent, CountsAs::Fail);
            }
        }
        self.flush_suite();
        self.failures.flush();
        if let Some(w) = self.refused.take_warning() {
            self.coded_warning(gapscore_model::Code::LenientPolicyRefused, w);
        }
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
        self.refused.absorb(other.refused);
        self.within_read.extend(other.within_read);
        self.manifest_seen.extend(other.manifest_seen);
        self.manifest_passed.extend(other.manifest_passed);
        self.names.extend(other.names);
        match (&mut self.listing, other.listing) {
            (Some(mine), Some(theirs)) => mine.append(theirs),
            (None, Some(theirs)) => self.listing = Some(theirs),
            _ => {}
        }
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

    /// What a test counts as: the policy's word, unless it is lenient about a skip or xfail
    /// the sealed tests did not decide (see [`SkipScope`]): then failed, noted for the input's
    /// warning, and said in the test's failure entry.
    fn outcome(&mut self, test: &mut TestCase) -> CountsAs {
        let outcome = self.policy.outcome(test);
        match self.refusal(test.status, test.decided_at.as_deref(), outcome) {
            None => outcome,
            Some(verdict) => {
                self.refused.note(&test.id, &verdict);
                if test.actual.is_none() {
                    test.actual = Some(match &verdict {
                        SkipVerdict::Outside(p) => format!(
                            "{} at {p}, outside the sealed directory: counted as failed",
                            test.status
                        ),
                        _ => format!(
                            "{} where no sealed directory shows it was the sealed test's decision: counted as failed",
                            test.status
                        ),
                    });
                }
                CountsAs::Fail
            }
        }
    }

    /// Why a lenient outcome of a skip or xfail is refused, if it is.
    fn refusal(
        &self,
        status: Status,
        decided_at: Option<&str>,
        outcome: CountsAs,
    ) -> Option<SkipVerdict> {
        if outcome == CountsAs::Fail
            || !matches!(status, Status::Skipped | Status::Todo | Status::Xfailed)
        {
            return None;
        }
        let verdict = self.skip_scope.judge(decided_at);
        (!verdict.allows()).then_some(verdict)
    }

    /// Counts a test. By reference: moving the ~300-byte test into here was a copy per test; a
    /// failure takes the strings it keeps.
    fn count(&mut self, test: &mut TestCase, outcome: CountsAs) {
        if outcome != CountsAs::Fail
            && let Some(l) = &mut self.listing
        {
            l.push(ListedTest::of(
                &test.borrowed(),
                outcome == CountsAs::Excluded,
            ));
        }
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
        file: test.file.take(),
        line: test.line,
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
        let outcome = self.outcome(&mut test);
        // With a manifest, only the tests it lists are sealed tests. Parents are represented
        // by their children, which are what the manifest lists.
        if let Some(m) = &self.manifest
            && !test.parent
        {
            let at = m.position(&test.id).or_else(|| {
                let (at, listed) = m.canonical(&test.id)?;
                listed_as(&mut test, listed);
                Some(at)
            });
            match at {
                Some(i) => {
                    self.manifest_seen.push(i);
                    if outcome == CountsAs::Pass {
                        self.manifest_passed.push(i);
                    }
                }
                None if outcome == CountsAs::Fail => {
                    self.unexpected_failed.push(test.id.clone());
                }
                None => {
                    self.unexpected.push(test.id);
                    return;
                }
            }
        }
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
        self.count(&mut test, outcome);
    }

    /// The fast path: a test that counts as passed (or is left out) is counted from the borrowed
    /// strings, with no owned copy; anything the tally keeps (a failure entry, a failing
    /// parent) goes through [`Tally::test_finished`] with the owned test. Both paths count the
    /// same (a test in `tests` below checks it field by field).
    fn test_finished_ref(&mut self, test: TestCaseRef<'_>) {
        let mut outcome = self.policy.outcome_for(test.status, || test.is_flaky());
        if self
            .refusal(test.status, test.decided_at, outcome)
            .is_some()
        {
            outcome = CountsAs::Fail;
        }
        // A result listed under another id (pytest's JUnit naming, a Jest path) is renamed to
        // that id on the owned path, which counts it: handed over before anything is counted
        // here, so it is counted once.
        let renamed = self
            .manifest
            .as_ref()
            .is_some_and(|m| m.position(test.id).is_none() && m.canonical(test.id).is_some());
        if outcome == CountsAs::Fail || test.parent || renamed {
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
                Some(i) => {
                    self.manifest_seen.push(i);
                    if outcome == CountsAs::Pass {
                        self.manifest_passed.push(i);
                    }
                }
                None => {
                    self.unexpected.push(test.id.to_owned());
                    return;
                }
            }
        }
        if let Some(l) = &mut self.listing {
            l.push(ListedTest::of(&test, outcome == CountsAs::Excluded));
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
        add(&mut self.counts.total, n);
        add(&mut self.counts.failed, n);
        let c = self.suite_counts(Some(&place));
        add(&mut c.total, n);
        add(&mut c.failed, n);
        if problem.kind.counts_within_read() {
            // Settled once every input is in (`apply_manifest`), so that the count does not
            // depend on the order tests and problems arrive in.
            self.within_read.push((place.clone(), n));
        }
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
            file: None,
            line: None,
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

mod settle;
#[cfg(test)]
mod tests;
