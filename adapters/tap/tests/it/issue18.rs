//! Issue 18 (score integrity): plans are declared counts, nothing after `Bail out!` counts, and
//! mocha's uncaught error counts once. The files in `tests/fixtures/issue18/` are real runners'
//! output (commands in its README).

use std::path::Path;

use gapscore_adapter_sdk::{ParseOptions, ProblemKind, Status, TestRun, parse_to_run};
use gapscore_adapter_tap::Tap;

fn read(name: &str) -> TestRun {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/issue18")
        .join(name);
    let bytes = std::fs::read(&path).unwrap();
    parse_to_run(&Tap::new(), &bytes, &ParseOptions::default()).unwrap()
}

fn text(s: &str) -> TestRun {
    parse_to_run(&Tap::new(), s.as_bytes(), &ParseOptions::default()).unwrap()
}

/// (kind, count) of every problem.
fn problems(run: &TestRun) -> Vec<(ProblemKind, Option<u64>)> {
    run.problems.iter().map(|p| (p.kind, p.count)).collect()
}

#[test]
fn a_plan_of_50_with_11_results_counts_39_missing() {
    for file in ["perl-plan50-exit11.tap", "prove-plan50-exit11.tap"] {
        let run = read(file);
        assert_eq!(run.tests.len(), 11, "{file}");
        assert!(
            run.tests.iter().all(|t| t.status == Status::Passed),
            "{file}"
        );
        assert_eq!(
            problems(&run),
            [(ProblemKind::PlanMismatch, Some(39))],
            "{file}"
        );
        assert_eq!(run.problems[0].weight(), 39);
    }
}

#[test]
fn prove_hides_the_bail_out_line_so_the_plan_counts_the_rest() {
    // prove prints `Bailout called.` on stderr, not the TAP `Bail out!` line: the plan says 7
    // of 10 never ran.
    let run = read("prove-bail-out.tap");
    assert_eq!(run.tests.len(), 3);
    assert_eq!(problems(&run), [(ProblemKind::PlanMismatch, Some(7))]);
}

#[test]
fn a_bail_out_carries_the_planned_tests_that_never_ran() {
    let run = read("perl-bail-out.tap");
    assert_eq!(run.tests.len(), 3);
    assert_eq!(problems(&run), [(ProblemKind::BailOut, Some(7))]);
}

#[test]
fn tests_after_a_bail_out_are_not_counted() {
    let run = text("1..5\nok 1\nok 2\nok 3\nBail out!  stop\nok 4\nok 5\n");
    assert_eq!(run.tests.len(), 3);
    assert_eq!(problems(&run), [(ProblemKind::BailOut, Some(2))]);
    assert!(
        run.warnings
            .iter()
            .any(|w| w.contains("2 test points after `Bail out!` (line 5) not counted")),
        "{:?}",
        run.warnings
    );
    // No plan yet: the bail-out counts one.
    let run = text("ok 1\nBail out!\nok 2\n1..2\n");
    assert_eq!(run.tests.len(), 1);
    assert_eq!(problems(&run), [(ProblemKind::BailOut, None)]);
}

#[test]
fn a_bail_out_inside_a_subtest_counts_each_open_level() {
    // Top plan 3: one done, the subtest in progress, one never ran; the subtest planned 4 and
    // ran 1: 1 + 3 never ran.
    let run = text(
        "TAP version 14\n1..3\nok 1 - a\n# Subtest: b\n    1..4\n    ok 1 - b1\n    Bail out! down\nBail out! down\nok 2 - b\nok 3 - c\n",
    );
    assert_eq!(run.tests.len(), 2);
    assert_eq!(problems(&run), [(ProblemKind::BailOut, Some(4))]);
}

#[test]
fn a_subtest_plan_counts_its_missing_children() {
    let run = text(
        "TAP version 14\n1..1\n# Subtest: s\n    1..5\n    ok 1 - x\n    ok 2 - y\nnot ok 1 - s\n",
    );
    let mismatch: Vec<_> = problems(&run);
    assert_eq!(mismatch, [(ProblemKind::PlanMismatch, Some(3))]);
    assert_eq!(run.problems[0].suite.as_deref(), Some("s"));
}

#[test]
fn more_results_than_planned_stay_one_problem() {
    let run = text("1..2\nok 1\nok 2\nok 3\n");
    assert_eq!(run.tests.len(), 3);
    assert_eq!(problems(&run), [(ProblemKind::PlanMismatch, None)]);
}

#[test]
fn mochas_uncaught_error_counts_once() {
    let run = text(
        "1..2\nnot ok 1 Uncaught error outside test suite\n  Error: listen EADDRINUSE\nok 1 a\nok 2 b\n# tests 3\n# pass 2\n# fail 1\n",
    );
    assert_eq!(run.tests.len(), 3);
    assert_eq!(run.tests[0].status, Status::Failed);
    assert!(problems(&run).is_empty(), "{:?}", run.problems);
    // Not a pass in disguise: a second uncaught error beyond the plan still fails, once each.
    let run = text(
        "1..1\nnot ok 1 Uncaught error outside test suite\nnot ok 1 Uncaught error outside test suite\nok 1 a\n",
    );
    let failed = run
        .tests
        .iter()
        .filter(|t| t.status == Status::Failed)
        .count();
    assert_eq!(failed, 2);
    // A test that never ran is still missing from the plan.
    let run = text("1..2\nnot ok 1 Uncaught error outside test suite\nok 1 a\n");
    assert_eq!(problems(&run), [(ProblemKind::PlanMismatch, Some(1))]);
}

#[test]
fn complete_real_runs_stay_clean() {
    for file in ["prove-complete.tap", "node-complete.tap"] {
        let run = read(file);
        assert_eq!(run.tests.len(), 5, "{file}");
        assert!(run.problems.is_empty(), "{file}: {:?}", run.problems);
    }
    // node's own verdict when the test process exits early with a failure code: the file's
    // tests never ran, a suite error (issue 31), not a test.
    let run = read("node-exits-early.tap");
    assert!(run.tests.is_empty());
    assert_eq!(problems(&run), [(ProblemKind::SuiteError, None)]);
}
