//! Evidence beside the per-test records, and the one rule that judges it: **the worst evidence
//! wins**.
//!
//! A result file often says more than its records: a JUnit suite's `failures="3"`, a JSON
//! `summary`, a recorded exit status, a TAP footer `# fail 3`, a console summary line. A reader
//! reports each such claim as an [`Evidence`]: what it declares ([`Declared`]) beside what the
//! records under the same scope read ([`ReadCounts`], counted the way the declaration counts,
//! which is the reader's knowledge of its format). [`Evidence::judge`] turns every place where
//! the claim is worse than the records into a counted [`Problem`] whose kind names the evidence
//! ([`EvidenceSource::problem_kind`]), and a claim that is better than the records into a
//! warning: the records already count the worse reading. A declared count that is not a
//! non-negative integer is itself a problem (`unreadable-count`), never dropped.
//!
//! [`EventSink::evidence`](crate::EventSink::evidence) judges by default, so every sink sees
//! the same problems whichever consumer it is.
//!
//! ```
//! use gapscore_model::{Declared, DeclaredCount, Evidence, EvidenceSource, ProblemKind, ReadCounts};
//!
//! // A suite edited to all-pass that still declares failures="3".
//! let e = Evidence::new(EvidenceSource::DeclaredCounts, "<testsuite name=\"t\">")
//!     .with_scope("t")
//!     .declaring(Declared::new().tests(DeclaredCount::parse("10")).failed(DeclaredCount::Number(3)))
//!     .reading(ReadCounts::new(10, 0, 0));
//! let j = e.judge();
//! assert_eq!(j.problems.len(), 1);
//! assert_eq!(j.problems[0].kind, ProblemKind::DeclaredCounts);
//! assert_eq!(j.problems[0].weight(), 3);
//! ```

use crate::codes::Code;
use crate::run::{Problem, ProblemKind};

/// Where a claim beside the records comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EvidenceSource {
    /// Counts declared as attributes (JUnit `tests=`, `failures=`, `errors=`, `skipped=` on a
    /// suite or the root).
    DeclaredCounts,
    /// A summary object of a JSON format (pytest-json-report `summary`, Jest
    /// `numFailedTests`, CTRF `summary`, libtest's `suite` event).
    SummaryObject,
    /// A recorded exit status or success flag (pytest-json-report `exitcode`, reportlog's
    /// `exitstatus`, Jest `success`).
    ExitStatus,
    /// A footer or comment written after the records (`node --test`'s `# fail 3`, node's JUnit
    /// `<!-- fail 3 -->`).
    Footer,
    /// A console summary line (`== 2 failed, 5 passed ==`, `FAIL`/`ok` package lines).
    ConsoleSummary,
}

impl EvidenceSource {
    /// The problem kind raised when this evidence says worse than the records.
    pub fn problem_kind(self) -> ProblemKind {
        match self {
            EvidenceSource::DeclaredCounts => ProblemKind::DeclaredCounts,
            EvidenceSource::SummaryObject => ProblemKind::SummaryCounts,
            EvidenceSource::ExitStatus => ProblemKind::ExitStatus,
            EvidenceSource::Footer | EvidenceSource::ConsoleSummary => ProblemKind::SummaryLine,
        }
    }
}

/// One declared count: a number, or the text that should have been one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeclaredCount {
    /// A non-negative integer.
    Number(u64),
    /// Text that is not a non-negative integer in range (`10.0`, `1e1`, `0x9`, `-9`, empty,
    /// 2^64): kept as written.
    Unreadable(String),
}

impl DeclaredCount {
    /// Reads a declared count strictly: ASCII digits only (surrounding whitespace allowed), in
    /// range of `u64`. Anything else is [`DeclaredCount::Unreadable`].
    pub fn parse(text: &str) -> DeclaredCount {
        let t = text.trim();
        if !t.is_empty()
            && t.bytes().all(|b| b.is_ascii_digit())
            && let Ok(n) = t.parse::<u64>()
        {
            return DeclaredCount::Number(n);
        }
        DeclaredCount::Unreadable(text.to_owned())
    }

    /// `a + b`, absent if both are, unreadable if either is; a sum past `u64::MAX` is
    /// unreadable too (`x + y`): for counts a format declares as parts of one figure.
    pub fn checked_sum(a: Option<&Self>, b: Option<&Self>) -> Option<Self> {
        match (a, b) {
            (None, None) => None,
            (Some(x), None) | (None, Some(x)) => Some(x.clone()),
            (Some(DeclaredCount::Number(x)), Some(DeclaredCount::Number(y))) => {
                Some(x.checked_add(*y).map_or_else(
                    || DeclaredCount::Unreadable(format!("{x} + {y}")),
                    DeclaredCount::Number,
                ))
            }
            (Some(u @ DeclaredCount::Unreadable(_)), _)
            | (_, Some(u @ DeclaredCount::Unreadable(_))) => Some(u.clone()),
        }
    }

    /// `a + b` as [`DeclaredCount::checked_sum`], but a sum past `u64::MAX` stays `u64::MAX`:
    /// for JSON summaries whose counts are each read in full range.
    pub fn saturating_sum(a: Option<Self>, b: Option<Self>) -> Option<Self> {
        match (a, b) {
            (Some(DeclaredCount::Number(x)), Some(DeclaredCount::Number(y))) => {
                Some(DeclaredCount::Number(x.saturating_add(y)))
            }
            (Some(u @ DeclaredCount::Unreadable(_)), _)
            | (_, Some(u @ DeclaredCount::Unreadable(_))) => Some(u),
            (a, b) => a.or(b),
        }
    }

    fn number(&self) -> Option<u64> {
        match self {
            DeclaredCount::Number(n) => Some(*n),
            DeclaredCount::Unreadable(_) => None,
        }
    }
}

/// What a piece of evidence declares. Absent fields declare nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Declared {
    /// Tests in the scope.
    pub tests: Option<DeclaredCount>,
    /// Tests that failed or errored.
    pub failed: Option<DeclaredCount>,
    /// Tests skipped (or otherwise not run: pending, todo, cancelled).
    pub skipped: Option<DeclaredCount>,
    /// Tests passed: fewer than the records' passes means some records read as passed are not
    /// (judged only when the reader gives [`ReadCounts::passed`]).
    pub passed: Option<DeclaredCount>,
    /// `Some(true)`: the exit status or success flag says the run failed; `Some(false)`: says
    /// it succeeded.
    pub run_failed: Option<bool>,
}

impl Declared {
    /// Declares nothing yet.
    pub fn new() -> Self {
        Declared::default()
    }

    /// Declares the number of tests.
    #[must_use]
    pub fn tests(mut self, n: DeclaredCount) -> Self {
        self.tests = Some(n);
        self
    }

    /// Declares the failed (and errored) tests.
    #[must_use]
    pub fn failed(mut self, n: DeclaredCount) -> Self {
        self.failed = Some(n);
        self
    }

    /// Declares the skipped tests.
    #[must_use]
    pub fn skipped(mut self, n: DeclaredCount) -> Self {
        self.skipped = Some(n);
        self
    }

    /// Declares the passed tests.
    #[must_use]
    pub fn passed(mut self, n: DeclaredCount) -> Self {
        self.passed = Some(n);
        self
    }

    /// Declares whether the run failed (an exit status, a success flag).
    #[must_use]
    pub fn run_failed(mut self, failed: bool) -> Self {
        self.run_failed = Some(failed);
        self
    }
}

/// What the records under an evidence's scope read, counted the way the evidence counts (a
/// reader that knows its producer counts reruns where the producer's declaration does).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadCounts {
    /// Records read.
    pub tests: u64,
    /// Records read as failed or errored.
    pub failed: u64,
    /// Records read as skipped (or not run).
    pub skipped: u64,
    /// Run-level problems the reader already reported in the scope (they explain a failed exit
    /// status).
    pub problems: u64,
    /// Records read as passed, counted as the declaration counts passes; `None`: the declared
    /// passes are not compared.
    pub passed: Option<u64>,
}

impl ReadCounts {
    /// Counts of records read.
    pub fn new(tests: u64, failed: u64, skipped: u64) -> Self {
        ReadCounts {
            tests,
            failed,
            skipped,
            problems: 0,
            passed: None,
        }
    }

    /// With the records read as passed, to hold the declared passes against.
    #[must_use]
    pub fn with_passed(mut self, passed: u64) -> Self {
        self.passed = Some(passed);
        self
    }

    /// With the problems already reported in the scope.
    #[must_use]
    pub fn with_problems(mut self, problems: u64) -> Self {
        self.problems = problems;
        self
    }
}

/// A claim a result file makes beside its records (added in gapscore-model 0.4).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Evidence {
    /// Where the claim comes from.
    pub source: EvidenceSource,
    /// Where it was read, for the user (`<testsuite name="t">`, `summary`, `# fail`).
    pub place: String,
    /// The suite, package or file the claim covers; `None` for the whole input.
    pub scope: Option<String>,
    /// What it declares.
    pub declared: Declared,
    /// What the records under the same scope read.
    pub read: ReadCounts,
}

/// What [`Evidence::judge`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    /// Counted problems: where the claim is worse than the records.
    pub problems: Vec<Problem>,
    /// Warnings: where the claim is better than the records (the records count).
    pub warnings: Vec<(Code, String)>,
}

impl Evidence {
    /// Evidence from `source`, read at `place`, declaring nothing yet.
    pub fn new(source: EvidenceSource, place: impl Into<String>) -> Self {
        Evidence {
            source,
            place: place.into(),
            scope: None,
            declared: Declared::default(),
            read: ReadCounts::default(),
        }
    }

    /// The suite, package or file the claim covers.
    #[must_use]
    pub fn with_scope(mut self, scope: impl Into<String>) -> Self {
        self.scope = Some(scope.into());
        self
    }

    /// What the evidence declares.
    #[must_use]
    pub fn declaring(mut self, declared: Declared) -> Self {
        self.declared = declared;
        self
    }

    /// What the records under the scope read.
    #[must_use]
    pub fn reading(mut self, read: ReadCounts) -> Self {
        self.read = read;
        self
    }

    /// The rule, in one place: every declared figure worse than the records is a counted
    /// problem, and the worst reading wins.
    ///
    /// - a declared count that is not a number: one `unreadable-count` problem naming it;
    /// - more tests declared than read: `missing-tests`, one failure per absent test;
    /// - more failed, or more skipped, declared than read, beyond the absent tests (which
    ///   already count as failed): the source's problem kind, counted among the tests read;
    /// - a failed run while the records show no failure or problem: `exit-status`, counted as
    ///   one failure (what failed is not in the records; a skip never fails a run).
    ///
    /// A figure better than the records is a warning (`W101`, `W114`): the records count.
    pub fn judge(&self) -> Judgement {
        let mut j = Judgement::default();
        let d = &self.declared;
        let r = self.read;
        let problem = |kind: ProblemKind, detail: String, n: u64| {
            let p = Problem::new(kind, detail).with_count(n);
            match &self.scope {
                Some(s) => p.with_suite(s.clone()),
                None => p,
            }
        };
        let unreadable: Vec<String> = [
            ("tests", &d.tests),
            ("failed", &d.failed),
            ("skipped", &d.skipped),
            ("passed", &d.passed),
        ]
        .into_iter()
        .filter_map(|(what, c)| match c {
            Some(DeclaredCount::Unreadable(t)) => Some(format!("{what} `{t}`")),
            _ => None,
        })
        .collect();
        if !unreadable.is_empty() {
            j.problems.push(problem(
                ProblemKind::UnreadableCount,
                format!(
                    "{} declares {} that is not a non-negative integer",
                    self.place,
                    unreadable.join(", ")
                ),
                1,
            ));
        }
        let tests = d.tests.as_ref().and_then(DeclaredCount::number);
        let failed = d.failed.as_ref().and_then(DeclaredCount::number);
        let skipped = d.skipped.as_ref().and_then(DeclaredCount::number);
        let mut absent = 0;
        if let Some(t) = tests {
            if t > r.tests {
                absent = t - r.tests;
                j.problems.push(problem(
                    ProblemKind::MissingTests,
                    format!(
                        "{} declares {t} tests and {} are recorded",
                        self.place, r.tests
                    ),
                    absent,
                ));
            } else if t < r.tests {
                j.warnings.push((
                    Code::DeclaredCountMismatch,
                    format!(
                        "{} declares {t} tests and {} are recorded: every record is counted",
                        self.place, r.tests
                    ),
                ));
            }
        }
        // Absent tests already count as failed: they explain that many declared failures first,
        // then that many declared skips.
        let mut worse = 0;
        let mut said = Vec::new();
        let mut unexplained = absent;
        for (what, declared, read) in [
            ("failed", failed, r.failed),
            ("skipped", skipped, r.skipped),
        ] {
            let Some(n) = declared else { continue };
            if n > read {
                let beyond = n - read;
                let explained = beyond.min(unexplained);
                unexplained -= explained;
                if beyond > explained {
                    worse += beyond - explained;
                    said.push(format!("{n} {what} where {read} are recorded"));
                }
            } else if n < read {
                j.warnings.push((
                    Code::DeclaredCountMismatch,
                    format!(
                        "{} declares {n} {what} and {read} are recorded: every record is counted",
                        self.place
                    ),
                ));
            }
        }
        // Fewer passes declared than records read as passed: that many of those records are
        // not passes, whatever the failed and skipped counts say (they may be gone or wrong).
        // Records beyond the declared total are a better claim (a warning above), not passes
        // that failed.
        let undeclared = tests.map_or(0, |t| r.tests.saturating_sub(t));
        if let (Some(p), Some(rp)) = (d.passed.as_ref().and_then(DeclaredCount::number), r.passed)
            && rp.saturating_sub(p).saturating_sub(undeclared) > worse
        {
            said.push(format!("{p} passed where {rp} are recorded as passed"));
            worse = rp - p - undeclared;
        }
        if worse > 0 {
            j.problems.push(problem(
                self.source.problem_kind(),
                format!("{} declares {}", self.place, said.join(" and ")),
                worse,
            ));
        }
        match d.run_failed {
            Some(true) if r.failed + r.problems == 0 && j.problems.is_empty() => {
                j.problems.push(problem(
                    ProblemKind::ExitStatus,
                    format!(
                        "{} says the run failed while its {} records show no failure",
                        self.place, r.tests
                    ),
                    1,
                ));
            }
            Some(false) if r.failed > 0 || r.problems > 0 => j.warnings.push((
                Code::ExitStatusMismatch,
                format!(
                    "{} says the run succeeded while its records show {} failed: the records count",
                    self.place, r.failed
                ),
            )),
            _ => {}
        }
        j
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DeclaredCount::Number;

    fn ev(d: Declared, r: ReadCounts) -> Judgement {
        Evidence::new(EvidenceSource::DeclaredCounts, "<testsuite>")
            .declaring(d)
            .reading(r)
            .judge()
    }

    #[test]
    fn agreeing_evidence_is_silent() {
        let j = ev(
            Declared::new()
                .tests(Number(5))
                .failed(Number(2))
                .skipped(Number(1)),
            ReadCounts::new(5, 2, 1),
        );
        assert_eq!(j, Judgement::default());
    }

    #[test]
    fn declared_failures_among_passing_records_are_counted() {
        let j = ev(
            Declared::new().tests(Number(10)).failed(Number(3)),
            ReadCounts::new(10, 0, 0),
        );
        assert_eq!(j.problems.len(), 1);
        assert_eq!(j.problems[0].kind, ProblemKind::DeclaredCounts);
        assert_eq!(j.problems[0].weight(), 3);
        assert!(ProblemKind::DeclaredCounts.counts_within_read());
    }

    #[test]
    fn absent_tests_explain_declared_failures_first() {
        // 10 declared, 7 recorded (all passing), 3 declared failures: the 3 absent tests are
        // the 3 failures, counted once.
        let j = ev(
            Declared::new().tests(Number(10)).failed(Number(3)),
            ReadCounts::new(7, 0, 0),
        );
        assert_eq!(j.problems.len(), 1);
        assert_eq!(j.problems[0].kind, ProblemKind::MissingTests);
        assert_eq!(j.problems[0].weight(), 3);
        // 4 declared failures: one more among the records.
        let j = ev(
            Declared::new().tests(Number(10)).failed(Number(4)),
            ReadCounts::new(7, 0, 0),
        );
        let kinds: Vec<_> = j.problems.iter().map(|p| (p.kind, p.weight())).collect();
        assert_eq!(
            kinds,
            [
                (ProblemKind::MissingTests, 3),
                (ProblemKind::DeclaredCounts, 1)
            ]
        );
    }

    #[test]
    fn declared_skips_read_as_passes_are_counted() {
        let j = ev(Declared::new().skipped(Number(2)), ReadCounts::new(4, 0, 0));
        assert_eq!(j.problems[0].kind, ProblemKind::DeclaredCounts);
        assert_eq!(j.problems[0].weight(), 2);
    }

    #[test]
    fn unreadable_counts_are_problems_never_dropped() {
        for text in [
            "10.0",
            "1e1",
            "0x9",
            "-9",
            "",
            "18446744073709551616",
            " 1 0",
        ] {
            assert!(
                matches!(DeclaredCount::parse(text), DeclaredCount::Unreadable(_)),
                "{text:?}"
            );
            let j = ev(
                Declared::new().tests(DeclaredCount::parse(text)),
                ReadCounts::new(3, 0, 0),
            );
            assert_eq!(j.problems[0].kind, ProblemKind::UnreadableCount, "{text:?}");
        }
        assert_eq!(DeclaredCount::parse(" 10 "), Number(10));
    }

    #[test]
    fn sums_of_declared_counts() {
        let u = || DeclaredCount::Unreadable("x".into());
        assert_eq!(
            DeclaredCount::checked_sum(Some(&Number(2)), Some(&Number(1))),
            Some(Number(3))
        );
        assert_eq!(
            DeclaredCount::checked_sum(None, Some(&Number(1))),
            Some(Number(1))
        );
        assert_eq!(DeclaredCount::checked_sum(None, None), None);
        assert_eq!(
            DeclaredCount::checked_sum(Some(&Number(1)), Some(&u())),
            Some(u())
        );
        assert_eq!(
            DeclaredCount::checked_sum(Some(&Number(u64::MAX)), Some(&Number(1))),
            Some(DeclaredCount::Unreadable(format!("{} + 1", u64::MAX)))
        );
        assert_eq!(
            DeclaredCount::saturating_sum(Some(Number(u64::MAX)), Some(Number(1))),
            Some(Number(u64::MAX))
        );
        assert_eq!(
            DeclaredCount::saturating_sum(Some(u()), Some(Number(1))),
            Some(u())
        );
        assert_eq!(
            DeclaredCount::saturating_sum(None, Some(Number(4))),
            Some(Number(4))
        );
    }

    #[test]
    fn a_failed_exit_without_recorded_failure_is_a_problem() {
        let e = Evidence::new(EvidenceSource::ExitStatus, "exitcode 1")
            .declaring(Declared::new().run_failed(true))
            .reading(ReadCounts::new(5, 0, 0));
        let j = e.judge();
        assert_eq!(j.problems[0].kind, ProblemKind::ExitStatus);
        assert!(!ProblemKind::ExitStatus.counts_within_read());
        // A skip does not explain a failed run (no runner fails a run for a skip).
        let skipped = e.clone().reading(ReadCounts::new(5, 0, 2));
        assert_eq!(skipped.judge().problems[0].kind, ProblemKind::ExitStatus);
        // Explained by a recorded failure or problem: nothing to add.
        let e = e.reading(ReadCounts::new(5, 1, 0));
        assert!(e.judge().problems.is_empty());
        let e = e.reading(ReadCounts::new(5, 0, 0).with_problems(1));
        assert!(e.judge().problems.is_empty());
    }

    #[test]
    fn better_claims_are_warnings_and_records_count() {
        let j = ev(
            Declared::new().tests(Number(2)).failed(Number(0)),
            ReadCounts::new(5, 3, 0),
        );
        assert!(j.problems.is_empty());
        assert_eq!(j.warnings.len(), 2);
        assert!(
            j.warnings
                .iter()
                .all(|(c, _)| *c == Code::DeclaredCountMismatch)
        );
    }

    #[test]
    fn fewer_declared_passes_than_recorded_passes_are_counted_once() {
        // Records flipped to passed, the failed count stripped, the passed count kept.
        let j = ev(
            Declared::new().passed(Number(7)),
            ReadCounts::new(10, 0, 0).with_passed(10),
        );
        assert_eq!(j.problems[0].kind, ProblemKind::DeclaredCounts);
        assert_eq!(j.problems[0].weight(), 3);
        // With the failed count kept too: the same three, not six.
        let j = ev(
            Declared::new().failed(Number(3)).passed(Number(7)),
            ReadCounts::new(10, 0, 0).with_passed(10),
        );
        assert_eq!(j.problems.len(), 1);
        assert_eq!(j.problems[0].weight(), 3);
        // Records beyond the declared total are not failed passes.
        let j = ev(
            Declared::new().tests(Number(1)).passed(Number(1)),
            ReadCounts::new(2, 0, 0).with_passed(2),
        );
        assert!(j.problems.is_empty(), "{j:?}");
        // Not compared unless the reader gives its passes.
        assert!(
            ev(Declared::new().passed(Number(7)), ReadCounts::new(10, 0, 0))
                .problems
                .is_empty()
        );
    }

    #[test]
    fn footers_and_console_lines_raise_summary_line() {
        let j = Evidence::new(EvidenceSource::Footer, "# fail 3")
            .declaring(Declared::new().failed(Number(3)))
            .reading(ReadCounts::new(10, 0, 0))
            .judge();
        assert_eq!(j.problems[0].kind, ProblemKind::SummaryLine);
    }
}
