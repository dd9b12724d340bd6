//! Declared counts are evidence (issues 18 and 31): every `tests=`, `failures=`, `errors=`,
//! `skipped=` and `disabled=` of a `<testsuite>` and of the root `<testsuites>`, and node's
//! footer comments, are reported as [`Evidence`] beside what the records read; the model's one
//! rule ([`Evidence::judge`]) decides what a disagreement costs. This module holds only the
//! reader's knowledge of how each producer counts, expressed in the [`ReadCounts`] it passes.
//!
//! What a suite holds is counted in `<testcase>` elements (not scored leaves: Go parents and
//! pseudo-testcases count, since their producers count them), its inner suites included
//! (PHPUnit's outer suite sums its inner ones), plus each suite-level `<error>`/`<failure>`
//! (Ant counts a class that failed to load as a test).

use gapscore_adapter_sdk::{Declared, DeclaredCount, Evidence, EvidenceSource, ReadCounts};

/// What a suite, the root or the whole file holds, counted the way JUnit producers declare.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Held {
    /// `<testcase>` elements and suite-level `<error>`/`<failure>` elements.
    pub tests: u64,
    /// `<failure>` and `<error>` elements (a testcase with both counts twice, as pytest
    /// declares it), testcases failed by an attribute only, suite-level errors.
    pub failed: u64,
    /// `<skipped>` elements (pytest's xfail among them) and not-run statuses.
    pub skipped: u64,
    /// Surefire's `rerunFailure`/`rerunError`/`flakyFailure`/`flakyError` elements: Surefire 3
    /// counts each in `tests=` and `failures=`, Surefire 2 and Marathon do not.
    pub attempts: u64,
}

impl Held {
    pub(super) fn add(&mut self, o: Held) {
        self.tests += o.tests;
        self.failed += o.failed;
        self.skipped += o.skipped;
        self.attempts += o.attempts;
    }
}

/// The counts an element declares, as written.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Counts {
    pub tests: Option<DeclaredCount>,
    pub failures: Option<DeclaredCount>,
    pub errors: Option<DeclaredCount>,
    pub skipped: Option<DeclaredCount>,
    /// tst and ctest count disabled tests apart from `skipped=`.
    pub disabled: Option<DeclaredCount>,
}

fn number(c: &Option<DeclaredCount>) -> Option<u64> {
    match c {
        Some(DeclaredCount::Number(n)) => Some(*n),
        _ => None,
    }
}

impl Counts {
    /// Reads the five attributes strictly ([`DeclaredCount::parse`]).
    pub(super) fn parse(values: [Option<String>; 5]) -> Counts {
        let [tests, failures, errors, skipped, disabled] =
            values.map(|v| v.as_deref().map(DeclaredCount::parse));
        Counts {
            tests,
            failures,
            errors,
            skipped,
            disabled,
        }
    }

    fn is_empty(&self) -> bool {
        *self == Counts::default()
    }

    /// Failures and errors together: Nette Tester writes failures in `errors=`, and a test's
    /// status is failed either way.
    fn failed(&self) -> Option<DeclaredCount> {
        DeclaredCount::checked_sum(self.failures.as_ref(), self.errors.as_ref())
    }

    fn not_run(&self) -> Option<DeclaredCount> {
        DeclaredCount::checked_sum(self.skipped.as_ref(), self.disabled.as_ref())
    }

    fn declared(&self) -> Declared {
        let mut d = Declared::new();
        if let Some(t) = &self.tests {
            d = d.tests(t.clone());
        }
        if let Some(f) = self.failed() {
            d = d.failed(f);
        }
        if let Some(s) = self.not_run() {
            d = d.skipped(s);
        }
        d
    }
}

/// How a producer's declaration counts, beside its records.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Convention {
    /// More records than declared is the producer's way (gotestsum writes each rerun as a
    /// testcase and leaves its `TestMain` pseudo-testcase out of `tests=`; jest-junit's and
    /// go-junit-report's pseudo-testcases): the records are counted, without a warning.
    pub surplus_expected: bool,
    /// `tests=` counts more than the testcases written: pytest counts reports, and
    /// pytest-subtests adds one per subtest (`tests="15"` over 10 testcases in a real file),
    /// so a `tests=` shortfall is not lost tests. Its `failures=`, `errors=` and `skipped=`
    /// are still judged.
    pub tests_count_reports: bool,
}

/// `declared` within `lo..=hi` reads as `declared` (the producer may count the attempts or
/// not); above it reads `hi`; below it reads `lo`, or `declared` when a surplus is the
/// producer's way. A better-than-declared reading only ever turns a warning off.
fn read_as(declared: Option<u64>, lo: u64, hi: u64, surplus_expected: bool) -> u64 {
    match declared {
        Some(d) if d > hi => hi,
        Some(d) if d >= lo => d,
        Some(d) if surplus_expected => d,
        _ => lo,
    }
}

/// The evidence of one element's declared counts (`None` when it declares none), and what it
/// settles for the element around it: the worse of declared and read per count, so a count
/// already judged here is not judged again by an outer suite or the root that sums it.
///
/// `own` is what the suite holds outside its inner suites: CUTE declares a suite's own
/// testcases only (`tests="0"` on suites that only nest others).
pub(super) fn judge(
    place: String,
    scope: Option<&str>,
    counts: &Counts,
    held: Held,
    own: Held,
    conv: Convention,
) -> (Option<Evidence>, Held) {
    let d_tests = number(&counts.tests);
    let base = if d_tests == Some(own.tests) && own.tests != held.tests {
        own
    } else {
        held
    };
    let surplus = conv.surplus_expected;
    let hi_tests = base.tests + base.attempts;
    let mut tests = read_as(d_tests, base.tests, hi_tests, surplus);
    if conv.tests_count_reports {
        tests = tests.max(d_tests.unwrap_or(0));
    }
    let d_failed = number(&counts.failed());
    let failed = read_as(d_failed, base.failed, base.failed + base.attempts, surplus);
    let d_skipped = number(&counts.not_run());
    let skipped = read_as(d_skipped, base.skipped, base.skipped, surplus);
    // The records count in full for the element around (gotestsum leaves its `TestMain`
    // pseudo-testcase out of the package's suite and counts it in the root).
    let settled = Held {
        tests: base.tests.max(tests).max(d_tests.unwrap_or(0)),
        failed: base.failed.max(failed).max(d_failed.unwrap_or(0)),
        skipped: base.skipped.max(skipped).max(d_skipped.unwrap_or(0)),
        attempts: if counts.tests.is_some() {
            0
        } else {
            base.attempts
        },
    };
    if counts.is_empty() {
        return (None, held);
    }
    let mut e = Evidence::new(EvidenceSource::DeclaredCounts, place)
        .declaring(counts.declared())
        .reading(ReadCounts::new(tests, failed, skipped));
    if let Some(s) = scope {
        e = e.with_scope(s);
    }
    (Some(e), settled)
}

/// The suites of a file, for node's footer: how many, and how many hold a failing record.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Suites {
    all: u64,
    failing: u64,
}

impl Suites {
    /// Counts one suite whose records (its inner suites' included) read as `held`.
    pub(super) fn count(&mut self, held: Held) {
        self.all += 1;
        if held.failed > 0 {
            self.failing += 1;
        }
    }

    /// Adds another part's suites.
    pub(super) fn add(&mut self, o: Suites) {
        self.all += o.all;
        self.failing += o.failing;
    }
}

/// node `--test`'s JUnit reporter ends the file with its run's summary as comments
/// (`<!-- tests 10 -->`, `<!-- pass 7 -->`, `<!-- fail 3 -->`, `<!-- cancelled 0 -->`,
/// `<!-- skipped 0 -->`, `<!-- todo 0 -->`): each test is counted once among pass, fail,
/// cancelled, skipped and todo.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Footer {
    tests: Option<DeclaredCount>,
    suites: Option<DeclaredCount>,
    fail: Option<DeclaredCount>,
    cancelled: Option<DeclaredCount>,
    skipped: Option<DeclaredCount>,
    todo: Option<DeclaredCount>,
}

impl Footer {
    /// Takes one comment's text; true if it was a footer line.
    pub(super) fn read(&mut self, comment: &str) -> bool {
        let Some((key, value)) = comment.trim().split_once(' ') else {
            return false;
        };
        let slot = match key {
            "tests" => &mut self.tests,
            "fail" => &mut self.fail,
            "cancelled" => &mut self.cancelled,
            "skipped" => &mut self.skipped,
            "todo" => &mut self.todo,
            "suites" => &mut self.suites,
            // Read only to know the footer: what passed is what did not fail or skip.
            "pass" | "duration_ms" => return true,
            _ => return false,
        };
        *slot = Some(DeclaredCount::parse(value));
        true
    }

    /// The footer's evidence against the whole file's records.
    ///
    /// node counts a test with subtests among its tests (and as failed when a subtest fails),
    /// and its JUnit reporter writes that test as a `<testsuite>`; its `suites` count is the
    /// `describe` blocks only. So the suites beyond `suites` are tests the footer counts: each
    /// is read as a test, failed when a failing record is inside it (at most as many as the
    /// suites that hold one).
    pub(super) fn evidence(&self, file: Held, suites: Suites) -> Option<Evidence> {
        if *self == Footer::default() {
            return None;
        }
        let mut d = Declared::new();
        if let Some(t) = &self.tests {
            d = d.tests(t.clone());
        }
        if let Some(f) = DeclaredCount::checked_sum(self.fail.as_ref(), self.cancelled.as_ref()) {
            d = d.failed(f);
        }
        if let Some(s) = DeclaredCount::checked_sum(self.skipped.as_ref(), self.todo.as_ref()) {
            d = d.skipped(s);
        }
        let describes = match &self.suites {
            Some(DeclaredCount::Number(n)) => *n,
            _ => 0,
        };
        let parents = suites.all.saturating_sub(describes);
        let failing_parents = parents.min(suites.failing);
        Some(
            Evidence::new(EvidenceSource::Footer, "node's footer comments")
                .declaring(d)
                .reading(ReadCounts::new(
                    file.tests.saturating_add(parents),
                    file.failed.saturating_add(failing_parents),
                    file.skipped,
                )),
        )
    }
}

/// Whether a suite's declared counts are the producer's summary rather than tests: Perl
/// tap2junit's pseudo-suite `…Test_Summary_Report` (`tests="1" failures="1"`, no testcase).
pub(super) fn is_summary_suite(name: Option<&str>) -> bool {
    name.is_some_and(|n| n.ends_with("Test_Summary_Report") || n == "Test Summary Report")
}

#[cfg(test)]
mod tests {
    use super::*;
    use gapscore_adapter_sdk::ProblemKind;

    fn counts(tests: &str, failures: &str) -> Counts {
        Counts::parse([Some(tests.into()), Some(failures.into()), None, None, None])
    }

    fn held(tests: u64, failed: u64, attempts: u64) -> Held {
        Held {
            tests,
            failed,
            skipped: 0,
            attempts,
        }
    }

    fn kinds(c: &Counts, h: Held, conv: Convention) -> Vec<(ProblemKind, u64)> {
        let (e, _) = judge("s".into(), Some("s"), c, h, h, conv);
        e.map(|e| e.judge().problems)
            .unwrap_or_default()
            .iter()
            .map(|p| (p.kind, p.weight()))
            .collect()
    }

    #[test]
    fn shortfalls_and_hidden_failures_are_problems() {
        let c = Convention::default();
        assert_eq!(
            kinds(&counts("5", "0"), held(3, 0, 0), c),
            [(ProblemKind::MissingTests, 2)]
        );
        assert_eq!(
            kinds(&counts("5", "3"), held(5, 0, 0), c),
            [(ProblemKind::DeclaredCounts, 3)]
        );
        assert_eq!(
            kinds(&counts("10.0", "0"), held(5, 0, 0), c),
            [(ProblemKind::UnreadableCount, 1)]
        );
    }

    #[test]
    fn producers_conventions_raise_nothing() {
        let c = Convention::default();
        // Surefire 3: tests="4" failures="4" for one testcase with three rerunFailure elements.
        assert!(kinds(&counts("4", "4"), held(1, 1, 3), c).is_empty());
        // Surefire 2 / Marathon: the same file declaring tests="1" failures="1".
        assert!(kinds(&counts("1", "1"), held(1, 1, 3), c).is_empty());
        // pytest-subtests: tests="15" over 10 testcases.
        let pytest = Convention {
            tests_count_reports: true,
            ..c
        };
        assert!(kinds(&counts("15", "0"), held(10, 0, 0), pytest).is_empty());
        // ... but its failures= is still judged.
        assert_eq!(
            kinds(&counts("15", "2"), held(10, 0, 0), pytest),
            [(ProblemKind::DeclaredCounts, 2)]
        );
    }

    #[test]
    fn a_judged_inner_suite_settles_its_counts_for_the_outer() {
        let (_, settled) = judge(
            "s".into(),
            None,
            &counts("9", "3"),
            held(6, 0, 0),
            held(6, 0, 0),
            Convention::default(),
        );
        assert_eq!((settled.tests, settled.failed), (9, 3));
    }

    #[test]
    fn footer_comments_are_read() {
        let mut f = Footer::default();
        for c in [" tests 10 ", " pass 10 ", " fail 3 ", " duration_ms 1.5 "] {
            assert!(f.read(c));
        }
        assert!(!f.read(" a remark "));
        let j = f
            .evidence(held(10, 0, 0), Suites::default())
            .unwrap()
            .judge();
        assert_eq!(j.problems[0].kind, ProblemKind::SummaryLine);
        assert_eq!(j.problems[0].weight(), 3);
    }
}
