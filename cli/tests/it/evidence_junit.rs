//! Issue 31, JUnit XML: every piece of evidence a JUnit file carries beside its records is read,
//! and the worst wins. Each file below passed a `--threshold 15` gate before this issue (what
//! the pre-issue binary read, from the text and the wild3 README, is in each test's
//! comment) and fails it now with a problem whose code names the disagreeing evidence. The files
//! are real pytest 9.2.0 and node 20 output and hand-edited copies
//! (`adapters/junit/tests/fixtures/issue31/`, how each was made in its README), and files of the
//! third wild corpus (`adapters/junit/tests/fixtures/wild/`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::gate::{advisory, problems, score_gate, sealed};

fn fixtures(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("adapters/junit/tests/fixtures")
        .join(sub)
}

fn gate(sub: &str, file: &str) -> (i32, Value) {
    score_gate(&fixtures(sub), file, "15", false)
}

/// A real pytest JUnit file edited to all-pass that still says `failures="3"` on its
/// `<testsuite>`. Before: 10 of 10 passed, a warning only, 0%, exit 0. Now the 3 declared
/// failures count among the 10 tests read: 30%, `declared-counts`.
#[test]
fn an_all_pass_edit_keeping_failures_3_fails_the_gate() {
    let (c, r) = gate("issue31", "pytest-all-pass-failures-3.xml");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (10, 3));
    assert_eq!(problems(&r), ["declared-counts x3"]);
    assert!(advisory(&r));
}

/// The same run with the 3 failing testcases deleted and `failures="0"`: every count that is
/// not a non-negative integer (`10.0`, `1e1`, `0x9`, `-9`, empty, 2^64) is `unreadable-count`.
/// Before: those were dropped silently, 7 of 7 passed, exit 0. (`tests="10"` itself is no
/// problem in a pytest file: pytest counts reports in `tests=`, and pytest-subtests adds one per
/// subtest, so its shortfall is not lost tests; any other producer's is, as the wild3 Ant file
/// below shows.)
#[test]
fn an_unreadable_declared_count_is_a_problem_not_dropped() {
    let base = std::fs::read_to_string(fixtures("issue31").join("pytest-tests-10.0.xml")).unwrap();
    assert!(base.contains("tests=\"10.0\""));
    let dir = tempfile::tempdir().unwrap();
    for (text, want) in [
        ("10.0", "unreadable-count x1"),
        ("1e1", "unreadable-count x1"),
        ("0x9", "unreadable-count x1"),
        ("-9", "unreadable-count x1"),
        ("", "unreadable-count x1"),
        ("18446744073709551616", "unreadable-count x1"),
    ] {
        let edited = base.replace("tests=\"10.0\"", &format!("tests=\"{text}\""));
        std::fs::write(dir.path().join("r.xml"), edited).unwrap();
        let (c, r) = score_gate(dir.path(), "r.xml", "15", false);
        assert_eq!(c, 1, "tests={text:?}: {r}");
        assert_eq!(problems(&r), [want], "tests={text:?}");
        assert!(advisory(&r), "tests={text:?}");
    }
}

/// node's JUnit reporter with the `<failure>` children removed but the `failure="…"`
/// attributes and the `<!-- fail 3 -->` comment kept. Before: 10 of 10 passed, exit 0. Now the
/// attribute fails each record (the worst of a record's signals wins) and the footer agrees.
#[test]
fn node_failure_attributes_fail_their_records() {
    let (c, r) = gate("issue31", "node-junit-failure-attrs-kept.xml");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (10, 3));
    assert!(problems(&r).is_empty(), "{r}");
    // The real file reads the same.
    let (c, r) = gate("issue31", "node-junit-real.xml");
    assert_eq!((c, sealed(&r)), (1, (10, 3)));
}

/// The same with the attributes removed too: only the footer comments say `fail 3`. Before:
/// 10 of 10 passed, exit 0. Now `summary-line` counts 3 among the 10 read.
#[test]
fn node_footer_comments_are_evidence() {
    let (c, r) = gate("issue31", "node-junit-footer-only.xml");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (10, 3));
    assert_eq!(problems(&r), ["summary-line x3"]);
    assert!(advisory(&r));
}

/// The root `<testsuites failures="1">` left while the suites were edited to agree with
/// all-pass records. Before: root `failures=` was ignored silently, 3 of 3 passed, exit 0.
#[test]
fn root_declared_failures_are_evidence() {
    let (c, r) = gate("issue31", "googletest-root-failures-1.xml");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (3, 1));
    assert_eq!(problems(&r), ["declared-counts x1"]);
    assert!(advisory(&r));
}

/// wild3: go-junit-report v2's `Failure`/`Runtime error` pseudo-testcase stands for a package
/// whose TestMain failed. Before: read as an errored test, 3/1, not advisory. Now a suite error.
#[test]
fn go_junit_report_runtime_error_is_a_suite_error() {
    let (c, r) = gate(
        "wild",
        "go-junit-report-testmain__jstemmer_go-junit-report__106-report.xml",
    );
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (3, 1));
    assert_eq!(problems(&r), ["suite-error"]);
    assert!(advisory(&r));
}

/// wild3: an Ant file cut after the 6th of 9 testcases, whose opening tag declared
/// `tests="9"`. Before: 7/4 (6 tests and the cut). Now the 3 declared tests never written are
/// missing too: 10/7.
#[test]
fn a_cut_file_keeps_its_opening_tags_total() {
    let (c, r) = gate(
        "wild",
        "ant-junit-truncated__JetBrains_teamcity-xml-tests-reporting__nineCasesBreakAfterSixth.xml",
    );
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (10, 7));
    let mut p = problems(&r);
    p.sort();
    assert_eq!(p, ["missing-tests x3", "truncated"]);
    assert!(advisory(&r));
}

/// wild3: googletest-shaped `status="ignored"` with no child is a test that did not run.
/// Before: read as passed, 3/1. Now 3/2.
#[test]
fn a_not_run_status_is_not_a_pass() {
    let (c, r) = gate(
        "wild",
        "googletest__JetBrains_teamcity-xml-tests-reporting__twoCasesFirstSuccessSecondSkipped_gtest.xml",
    );
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (3, 2));
}

/// Honest real runs stay clean: the real pytest and node files raise no problem.
#[test]
fn honest_real_runs_raise_no_problem() {
    for file in [
        "pytest-10-3-failed.xml",
        "node-junit-real.xml",
        "pytest-skip-in-helper.xml",
    ] {
        let (_, r) = gate("issue31", file);
        assert!(problems(&r).is_empty(), "{file}: {r}");
        assert!(!advisory(&r), "{file}: {r}");
    }
}

/// node counts a test with subtests among its tests and writes it as a `<testsuite>`: honest
/// runs with subtests (and `describe` blocks, which its footer counts as suites) read clean,
/// with no lost tests (issue 32; before, each parent read as a missing test).
#[test]
fn node_subtests_are_not_missing_tests() {
    let (c, r) = gate("issue32", "node-subtests-pass.xml");
    assert_eq!(c, 0, "{r}");
    assert_eq!(sealed(&r), (5, 0));
    assert!(problems(&r).is_empty(), "{r}");
    let (c, r) = gate("issue32", "node-subtests-fail.xml");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (3, 1));
    assert!(problems(&r).is_empty(), "{r}");
    assert!(!advisory(&r));
}

/// The failing subtest edited to pass while node's footer still says `fail 2`: the footer's
/// failures count among the tests read.
#[test]
fn a_node_subtest_edited_to_pass_is_caught_by_the_footer() {
    let (c, r) = gate("issue32", "node-subtests-all-pass-edit.xml");
    assert_eq!(c, 1, "{r}");
    assert_eq!(problems(&r), ["summary-line x2"]);
    assert!(advisory(&r));
}
