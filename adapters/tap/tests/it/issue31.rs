//! Issue 31 (evidence beside the points): footers, Test::More's and prove's verdicts and an
//! `ok` point's YAML error are held against the points, node's numbering faults are not plan
//! mismatches when its footer counts, and a file that ran none of its tests is not a pass. Small
//! streams in each producer's form; the real runs are in `tests/fixtures/issue31/` and scored
//! by `cli/tests/it/evidence_tap.rs`.

use gapscore_adapter_sdk::{ParseOptions, ProblemKind, Status, TestRun, parse_to_run};
use gapscore_adapter_tap::Tap;

fn text(s: &str) -> TestRun {
    parse_to_run(&Tap::new(), s.as_bytes(), &ParseOptions::default()).unwrap()
}

/// (kind, count) of every problem.
fn problems(run: &TestRun) -> Vec<(ProblemKind, Option<u64>)> {
    run.problems.iter().map(|p| (p.kind, p.count)).collect()
}

#[test]
fn a_footer_agreeing_with_the_points_is_silent() {
    let run = text(
        "TAP version 13\nok 1 - a\nnot ok 2 - b\nok 3 - c # SKIP x\n1..3\n# tests 3\n# pass 1\n# fail 1\n# skip 1\n",
    );
    assert!(run.problems.is_empty(), "{:?}", run.problems);
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
}

#[test]
fn a_footer_declaring_more_failures_is_a_summary_line_problem() {
    let run = text("TAP version 13\nok 1 - a\nok 2 - b\nok 3 - c\n1..3\n# tests 3\n# fail 2\n");
    assert_eq!(problems(&run), [(ProblemKind::SummaryLine, Some(2))]);
    // A nested stream's footer in the middle of a log is not the file's.
    let run = text("ok 1 - a\n# tests 9\n# fail 9\nok 2 - b\n1..2\n# tests 2\n# fail 0\n");
    assert!(run.problems.is_empty(), "{:?}", run.problems);
}

#[test]
fn footer_counts_that_are_not_numbers_are_problems() {
    for bad in ["10.0", "0x9", "-9", "18446744073709551616"] {
        let run = text(&format!("ok 1 - a\n1..1\n# tests {bad}\n"));
        assert_eq!(
            problems(&run),
            [(ProblemKind::UnreadableCount, Some(1))],
            "{bad}"
        );
    }
}

#[test]
fn an_ok_point_whose_yaml_holds_an_error_counts_as_one_failure() {
    for key in [
        "error: 'boom'",
        "failureType: 'testCodeFailure'",
        "code: 'ERR_TEST_FAILURE'",
        "stack: |-\n    at x (a.js:1:1)",
    ] {
        let run = text(&format!(
            "TAP version 13\nok 1 - a\n  ---\n  duration_ms: 1\n  {key}\n  ...\nok 2 - b\n1..2\n"
        ));
        assert_eq!(
            problems(&run),
            [(ProblemKind::SummaryLine, Some(1))],
            "{key}"
        );
    }
    // A parent's error stands for its children's failures: they are points of their own.
    let run = text(
        "TAP version 13\n# Subtest: s\n    not ok 1 - a\n    1..1\nok 1 - s\n  ---\n  type: 'suite'\n  error: '1 subtest failed'\n  ...\n1..1\n",
    );
    assert!(run.problems.is_empty(), "{:?}", run.problems);
    assert_eq!(run.tests[0].status, Status::Failed);
}

#[test]
fn node_numbering_faults_are_warnings_when_its_footer_counts() {
    let stream = "TAP version 13\nok 1 - a\nok 3 - b\nok 3 - c\n1..3\n";
    // node's fault: 3 twice, no 2. Without node's footer: a plan mismatch.
    assert_eq!(
        problems(&text(stream)),
        [(ProblemKind::PlanMismatch, Some(1))]
    );
    let node = format!("{stream}# tests 3\n# suites 0\n# pass 3\n# fail 0\n");
    assert!(text(&node).problems.is_empty());
    // The footer still counts: a point missing from it is missing.
    let node = format!("{stream}# tests 4\n# suites 0\n# pass 4\n# fail 0\n");
    assert_eq!(
        problems(&text(&node)),
        [(ProblemKind::MissingTests, Some(1))]
    );
}

#[test]
fn tests_a_plan_mismatch_counts_are_not_counted_again_by_the_footer() {
    let run = text("ok 1 - a\nok 2 - b\n1..3\n# tests 3\n# pass 2\n# fail 1\n");
    assert_eq!(problems(&run), [(ProblemKind::PlanMismatch, Some(1))]);
}

#[test]
fn test_more_and_prove_verdicts_are_held_against_the_top_level_points() {
    let run = text("1..2\nok 1 - a\nok 2 - b\n# Looks like you failed 1 test of 2.\n");
    assert_eq!(problems(&run), [(ProblemKind::SummaryLine, Some(1))]);
    let run =
        text("t/a.t .. \n1..2\nok 1 - a\nok 2 - b\nFailed 1/2 subtests \n\nTest Summary Report\n");
    assert_eq!(problems(&run), [(ProblemKind::SummaryLine, Some(1))]);
    // prove counts the planned tests that never ran as failed subtests: the plan has them.
    let run = text("t/a.t .. \n1..3\nok 1 - a\nnot ok 2 - b\nFailed 2/3 subtests \n");
    assert_eq!(problems(&run), [(ProblemKind::PlanMismatch, Some(1))]);
}

#[test]
fn proves_result_line_is_judged_against_the_whole_stream() {
    let body = "t/a.t .. \n1..2\nok 1 - a\nok 2 - b\nok\nFiles=1, Tests=2,  0 wallclock secs\n";
    let run = text(&format!("{body}Result: FAIL\n"));
    assert_eq!(problems(&run), [(ProblemKind::ExitStatus, Some(1))]);
    assert!(text(&format!("{body}Result: PASS\n")).problems.is_empty());
    // A failure or a problem in the stream explains it.
    let run = text(
        "t/a.t .. \n1..2\nok 1 - a\nnot ok 2 - b\nFailed 1/2 subtests\nFiles=1, Tests=2\nResult: FAIL\n",
    );
    assert!(run.problems.is_empty(), "{:?}", run.problems);
}

#[test]
fn a_subtest_that_ran_none_of_its_tests_is_skipped() {
    let run = text(
        "TAP version 14\n# Subtest: test/db.js\n    1..0 # SKIP no database\nok 1 - test/db.js\n1..1\n",
    );
    assert_eq!(run.tests.len(), 1);
    assert_eq!(run.tests[0].status, Status::Skipped);
    assert_eq!(run.tests[0].message.as_deref(), Some("no database"));
}

#[test]
fn node_file_process_failure_is_a_suite_error() {
    let run = text(
        "TAP version 13\nnot ok 1 - test\n  ---\n  type: 'test'\n  failureType: 'testCodeFailure'\n  exitCode: 1\n  error: 'test failed'\n  ...\nok 2 - a\n1..2\n# tests 2\n# suites 0\n# pass 1\n# fail 1\n",
    );
    assert_eq!(run.tests.len(), 1);
    assert_eq!(problems(&run), [(ProblemKind::SuiteError, None)]);
}

#[test]
fn a_node_tap_runner_log_is_refused_naming_it() {
    let doc = "\n> x@1 test\n> tap ./tests\n\nok tests/a.js ...... 3/3\nnot ok tests/b.js .... 1/2\ntotal ........ 4/5\n";
    let e = parse_to_run(&Tap::new(), doc.as_bytes(), &ParseOptions::default()).unwrap_err();
    assert!(e.to_string().contains("node-tap 0.x's runner"), "{e}");
    assert!(gapscore_adapter_tap::detect_confidence(doc.as_bytes()) > 0);
}
