//! Declared counts are evidence (issue 18): a `<testsuite tests="N">` that holds fewer than N
//! `<testcase>` elements lost tests, and each missing one counts as failed (one `missing-tests`
//! problem with the count), unless its producer is known to count something else.
//!
//! What a suite holds is counted in `<testcase>` elements (not scored leaves: Go parents and
//! pseudo-testcases count, since their producers count them), its inner suites included (PHPUnit's
//! outer suite sums its inner ones), plus each suite-level `<error>`/`<failure>` (Ant counts a
//! class that failed to load as a test). Surefire 3 counts every rerun in `tests=`, so a suite
//! holding rerun or flaky elements may declare up to that many more.

use gapscore_adapter_sdk::{Problem, ProblemKind};

/// Per-suite tallies for the declared-count check.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Held {
    /// `<testcase>` elements, inner suites included (each inner suite's missing tests too, so
    /// they are not counted twice).
    pub cases: u64,
    /// `<error>`/`<failure>` elements directly under a `<testsuite>`.
    pub suite_errors: u64,
    /// Surefire's `rerunFailure`/`rerunError`/`flakyFailure`/`flakyError` elements.
    pub attempts: u64,
}

/// What a producer's shortfall means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shortfall {
    /// Each missing test counts as failed.
    Count,
    /// A warning only: the producer's `tests=` legitimately counts more than its testcases.
    Warn,
}

/// The rule for a producer (`None`: unknown).
///
/// - `pytest`: `tests=` counts reports, and pytest-subtests adds one per subtest (`tests="15"`
///   over 10 testcases in a real file), so a shortfall is a warning.
/// - `ginkgo`: the only ginkgo file at hand was trimmed by its repository and none shows how
///   ginkgo counts specs it does not write; a warning until one does.
/// - every other producer, and unknown ones: counted.
pub(super) fn shortfall_rule(producer: Option<&str>) -> Shortfall {
    match producer {
        Some("pytest" | "ginkgo") => Shortfall::Warn,
        _ => Shortfall::Count,
    }
}

/// Whether a suite's declared counts are the producer's summary rather than tests: Perl
/// tap2junit's pseudo-suite `…Test_Summary_Report` (`tests="1" failures="1"`, no testcase).
pub(super) fn is_summary_suite(name: Option<&str>) -> bool {
    name.is_some_and(|n| n.ends_with("Test_Summary_Report") || n == "Test Summary Report")
}

/// The outcome of comparing one suite's `tests=` with what it holds.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    Fine,
    /// This many tests declared and absent, to count as failed.
    Missing(u64),
    /// A warning to give.
    Warning(String),
}

/// Compares a suite's declared `tests=` with what it held.
///
/// `lenient_surplus`: more testcases than declared is expected (gotestsum writes each rerun as
/// a testcase and leaves its `TestMain` pseudo-testcase out; jest-junit and go-junit-report's
/// pseudo-testcases).
pub(super) fn verdict(
    suite: &str,
    declared: Option<u64>,
    held: Held,
    rule: Shortfall,
    lenient_surplus: bool,
) -> Verdict {
    let Some(d) = declared else {
        return Verdict::Fine;
    };
    let most = held.cases + held.suite_errors + held.attempts;
    if d > most {
        let n = d - most;
        return match rule {
            Shortfall::Count => Verdict::Missing(n),
            Shortfall::Warn => Verdict::Warning(format!(
                "testsuite `{suite}` declares tests=\"{d}\" but holds {} (not counted as missing: \
                 this producer's tests= counts more than its testcases)",
                held.cases + held.suite_errors
            )),
        };
    }
    if d < held.cases && !lenient_surplus {
        return Verdict::Warning(format!(
            "testsuite `{suite}` declares tests=\"{d}\" but holds {}",
            held.cases + held.suite_errors
        ));
    }
    Verdict::Fine
}

/// The `missing-tests` problem for `n` declared tests a suite does not hold.
pub(super) fn missing_problem(suite: &str, declared: u64, n: u64) -> Problem {
    Problem::new(
        ProblemKind::MissingTests,
        format!(
            "testsuite `{suite}` declares tests=\"{declared}\" but holds {}: {n} declared test{} \
             without a result",
            declared - n,
            if n == 1 { "" } else { "s" }
        ),
    )
    .with_count(n)
    .with_suite(suite.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(cases: u64, suite_errors: u64, attempts: u64) -> Held {
        Held {
            cases,
            suite_errors,
            attempts,
        }
    }

    #[test]
    fn a_shortfall_counts_unless_the_producer_counts_more() {
        assert_eq!(
            verdict("s", Some(5), held(3, 0, 0), Shortfall::Count, false),
            Verdict::Missing(2)
        );
        assert!(matches!(
            verdict("s", Some(5), held(3, 0, 0), Shortfall::Warn, false),
            Verdict::Warning(_)
        ));
    }

    #[test]
    fn reruns_and_suite_errors_are_held() {
        // Surefire 3: tests="4" for one testcase with three rerunFailure elements.
        assert_eq!(
            verdict("s", Some(4), held(1, 0, 3), Shortfall::Count, false),
            Verdict::Fine
        );
        // Ant: tests="1" for a suite-level <error> and no testcase.
        assert_eq!(
            verdict("s", Some(1), held(0, 1, 0), Shortfall::Count, false),
            Verdict::Fine
        );
    }

    #[test]
    fn a_surplus_warns_unless_lenient() {
        assert!(matches!(
            verdict("s", Some(1), held(4, 0, 0), Shortfall::Count, false),
            Verdict::Warning(_)
        ));
        assert_eq!(
            verdict("s", Some(3), held(4, 0, 0), Shortfall::Count, true),
            Verdict::Fine
        );
    }
}
