//! The second channel (issue 32): the runners' own console summaries, read in the whole of the
//! command's output by the runner crate (`gapscore_runner::summary`), held against the results
//! read. A console that says more tests failed than the results hold is a counted
//! `summary-line` problem (P019): the result file was rewritten, or lost what failed.
//!
//! What is compared is every record the result files hold, before the expected-test manifest
//! picks the sealed tests out: the console counts every test the command ran, the project's own
//! included, and so do honest result files. A console better than the results is no problem
//! (the records count: a second runner's passing summary, a test file the result file kept and
//! the console left out).
//!
//! Not compared:
//! - summaries on standard output when the results are read from it (`--results -`): they are
//!   the results, and their reader judges its own summary lines;
//! - any summary when a result file was missing or stale (that is a `missing-results` problem
//!   already, and the records read are not the whole run's), or when the command did not exit
//!   by itself (a time limit, a signal, an interruption: its summary may never have been
//!   printed, and the run is a problem already).

use gapscore_core::runner_report::ConsoleSummaryReport;
use gapscore_core::tally::StatusCounts;
use gapscore_model::{
    Declared, DeclaredCount, Evidence, EvidenceSource, Problem, ProblemKind, ReadCounts, Status,
};
use gapscore_runner::summary::ConsoleSummary;

/// What to hold the console summaries against.
#[derive(Debug, Clone, Copy)]
pub struct ConsoleCheck<'a> {
    /// Every record the result files hold, by status (before the manifest).
    pub read: &'a StatusCounts,
    /// The results are read from the command's standard output (`--results -`).
    pub results_on_stdout: bool,
    /// Every result file looked for was there and this run's, and the command exited by itself.
    pub comparable: bool,
    /// The ecosystem whose summary the command's runner prints at the end of every complete
    /// run (`gapscore_runner::summary::expected_ecosystem`), when gapscore knows the runner.
    pub expected: Option<&'static str>,
}

/// The problems the console summaries stand for, and the report's view of each summary.
pub fn judge(
    summaries: &[ConsoleSummary],
    check: ConsoleCheck<'_>,
    place: &str,
) -> (Vec<Problem>, Vec<ConsoleSummaryReport>) {
    let compared =
        |s: &ConsoleSummary| check.comparable && !(check.results_on_stdout && s.stream == "stdout");
    let reports = summaries
        .iter()
        .map(|s| {
            let mut r = ConsoleSummaryReport::new(s.ecosystem, s.stream, s.lines);
            r.quoted.clone_from(&s.quoted);
            r.failed = s.failed;
            r.passed = s.passed;
            r.compared = compared(s);
            r
        })
        .collect();
    let held: Vec<&ConsoleSummary> = summaries.iter().filter(|s| compared(s)).collect();
    // A runner that prints its summary at the end of every complete run printed none: its
    // output was silenced, or the run ended before it (the result files written by someone
    // else). Not judged when the results are the command's standard output (the summary may be
    // among them).
    if let Some(e) = check.expected
        && check.comparable
        && !check.results_on_stdout
        && !summaries.iter().any(|s| s.ecosystem == e)
    {
        let problem = Problem::new(
            ProblemKind::MissingSummary,
            format!(
                "{e} prints its console summary at the end of every complete run, and none was printed: the output was silenced, or the run ended before the runner could print it, so the result files cannot be held against it"
            ),
        )
        .with_suite(place);
        return (vec![problem], reports);
    }
    if held.is_empty() {
        return (Vec::new(), reports);
    }
    // A runner that counts parents among its failures (node) declares no failures here: a
    // failing subtest fails its parent, which the result file records as a suite.
    // A runner with one summary per run is held to its worst line (a line the code under test
    // printed can only make it worse); go and cargo print one per package or binary, summed.
    let failed = held
        .iter()
        .filter(|s| !s.parents_counted)
        .fold(0u64, |n, s| n.saturating_add(s.held_failed()));
    let passed = held
        .iter()
        .try_fold(0u64, |n, s| s.held_passed().map(|p| n.saturating_add(p)));
    let mut declared = Declared::new();
    if held.iter().any(|s| !s.parents_counted) {
        declared = declared.failed(DeclaredCount::Number(failed));
    }
    if let Some(p) = passed {
        declared = declared.passed(DeclaredCount::Number(p));
    }
    let r = check.read;
    let total = Status::ALL
        .iter()
        .fold(0u64, |n, s| n.saturating_add(r.get(*s)));
    let read = ReadCounts::new(
        total,
        r.get(Status::Failed).saturating_add(r.get(Status::Errored)),
        r.get(Status::Skipped),
    )
    // pytest's console counts an xpass among its passes, and its JUnit file records it as one.
    .with_passed(r.get(Status::Passed).saturating_add(r.get(Status::Xpassed)));
    let quoted: Vec<String> = held
        .iter()
        .map(|s| {
            let line = s.quoted.first().map_or("", String::as_str);
            let more = match s.lines {
                0 | 1 => String::new(),
                n => format!(" and {} more line{}", n - 1, if n == 2 { "" } else { "s" }),
            };
            format!("{} on {}: `{line}`{more}", s.ecosystem, s.stream)
        })
        .collect();
    let evidence = Evidence::new(
        EvidenceSource::ConsoleSummary,
        format!(
            "the runner's console summary ({}), beside the {total} results read,",
            quoted.join("; ")
        ),
    )
    .with_scope(place)
    .declaring(declared)
    .reading(read);
    // A console better than the records is no problem: the records count.
    (evidence.judge().problems, reports)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gapscore_runner::summary::SummaryCollector;

    fn summaries(lines: &[(&'static str, &str)]) -> Vec<ConsoleSummary> {
        let mut out = SummaryCollector::new("stdout");
        let mut err = SummaryCollector::new("stderr");
        for (stream, line) in lines {
            if *stream == "stdout" {
                out.line(line);
            } else {
                err.line(line);
            }
        }
        let mut all = out.finish();
        all.extend(err.finish());
        all
    }

    fn read(passed: u64, failed: u64) -> StatusCounts {
        let mut c = StatusCounts::default();
        for _ in 0..passed {
            c.add(Status::Passed);
        }
        for _ in 0..failed {
            c.add(Status::Failed);
        }
        c
    }

    fn check(read: &StatusCounts) -> ConsoleCheck<'_> {
        ConsoleCheck {
            read,
            results_on_stdout: false,
            comparable: true,
            expected: None,
        }
    }

    const PYTEST: (&str, &str) = ("stdout", "===== 2 failed, 3 passed in 0.06s =====");

    #[test]
    fn a_console_with_more_failures_than_the_results_is_counted() {
        // The JUnit file rewritten to all-pass: five passes read.
        let r = read(5, 0);
        let (problems, reports) = judge(&summaries(&[PYTEST]), check(&r), "runner");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].kind, ProblemKind::SummaryLine);
        assert_eq!(problems[0].weight(), 2);
        assert!(
            problems[0].detail.contains("2 failed, 3 passed"),
            "{}",
            problems[0].detail
        );
        assert!(reports[0].compared);
    }

    #[test]
    fn passes_added_to_the_results_are_counted() {
        // Failures kept, and passing records added: more passes read than the console ran.
        let r = read(7, 2);
        let (problems, _) = judge(&summaries(&[PYTEST]), check(&r), "runner");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].weight(), 4);
    }

    #[test]
    fn an_agreeing_or_better_console_is_silent() {
        let r = read(3, 2);
        assert!(
            judge(&summaries(&[PYTEST]), check(&r), "runner")
                .0
                .is_empty()
        );
        // The project's own failing tests run beside the sealed ones: in both channels.
        let r = read(30, 4);
        let lines = [("stdout", "== 4 failed, 30 passed in 1.00s ==")];
        assert!(judge(&summaries(&lines), check(&r), "runner").0.is_empty());
        // A console that says less (a runner that counts fewer) is no problem.
        let r = read(3, 4);
        assert!(
            judge(&summaries(&[PYTEST]), check(&r), "runner")
                .0
                .is_empty()
        );
    }

    #[test]
    fn several_binaries_and_runners_are_summed() {
        let lines = [
            (
                "stdout",
                "test result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.1s",
            ),
            (
                "stdout",
                "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.1s",
            ),
            ("stderr", "Tests:       1 failed, 2 passed, 3 total"),
        ];
        let r = read(6, 4);
        assert!(judge(&summaries(&lines), check(&r), "runner").0.is_empty());
        let r = read(7, 3);
        let (problems, _) = judge(&summaries(&lines), check(&r), "runner");
        assert_eq!(problems[0].weight(), 1);
    }

    #[test]
    fn node_failures_count_parents_so_only_its_passes_are_held() {
        // A test with two subtests, one failing: node says `fail 2` (the parent too) and
        // `pass 1`; its JUnit file records the subtests only.
        let lines = [("stdout", "ℹ pass 1"), ("stdout", "ℹ fail 2")];
        let r = read(1, 1);
        assert!(judge(&summaries(&lines), check(&r), "runner").0.is_empty());
        // The failure rewritten as a pass: more passes recorded than node ran.
        let r = read(2, 0);
        let (problems, _) = judge(&summaries(&lines), check(&r), "runner");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].weight(), 1);
    }

    #[test]
    fn the_results_own_stream_and_incomplete_runs_are_not_compared() {
        let r = read(5, 0);
        let mut c = check(&r);
        c.results_on_stdout = true;
        let (problems, reports) = judge(&summaries(&[PYTEST]), c, "runner");
        assert!(problems.is_empty());
        assert!(!reports[0].compared);
        // On standard error, it is compared still.
        let (problems, _) = judge(&summaries(&[("stderr", PYTEST.1)]), c, "runner");
        assert_eq!(problems.len(), 1);
        let mut c = check(&r);
        c.comparable = false;
        assert!(judge(&summaries(&[PYTEST]), c, "runner").0.is_empty());
    }

    #[test]
    fn a_known_runner_without_its_summary_is_a_problem() {
        let r = read(5, 0);
        let mut c = check(&r);
        c.expected = Some("pytest");
        let (problems, _) = judge(&[], c, "runner");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].kind, ProblemKind::MissingSummary);
        // Its summary there: compared as usual.
        assert!(
            judge(
                &summaries(&[("stdout", "== 5 passed in 0.1s ==")]),
                c,
                "runner"
            )
            .0
            .is_empty()
        );
        // Results on standard output, or a run that did not finish: not judged.
        c.results_on_stdout = true;
        assert!(judge(&[], c, "runner").0.is_empty());
        c.results_on_stdout = false;
        c.comparable = false;
        assert!(judge(&[], c, "runner").0.is_empty());
    }

    #[test]
    fn a_printed_line_claiming_more_passes_does_not_offset_the_runners_own() {
        // The runner's own line says 5 passed; the code under test prints another saying 4:
        // summed they would match the 9 forged passes read.
        let r = read(9, 1);
        let lines = [
            ("stdout", "===== 5 failed, 5 passed in 0.10s ====="),
            ("stdout", "===== 4 passed in 0.01s ====="),
        ];
        let (problems, _) = judge(&summaries(&lines), check(&r), "runner");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].weight() >= 4, "{problems:?}");
    }
}
