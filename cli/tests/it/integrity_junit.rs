//! Score integrity with JUnit XML (issue 18): each trick below passed a `--threshold` gate
//! before (the exit code given in each test is the pre-issue binary's, built from 5feb96b and
//! run on these files: 0 for every trick) and
//! fails it now, for the reason the report states; complete real runs stay clean. The files are
//! real pytest 9.2.0 output and hand-edited copies of real producers' files
//! (`adapters/junit/tests/fixtures/issue18/`, how each was made in its README), and files of
//! the wild corpus (`adapters/junit/tests/fixtures/wild/`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::gate::{advisory, problems, score_gate, sealed};
use crate::common::{code, run_in};

fn fixtures(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("adapters/junit/tests/fixtures")
        .join(sub)
}

/// `score --sealed FILE --format json --threshold T` in `fixtures(sub)`.
fn score_in(sub: &str, file: &str, threshold: &str) -> (i32, Value) {
    score_gate(&fixtures(sub), file, threshold, false)
}

fn score(file: &str, threshold: &str) -> (i32, Value) {
    score_in("issue18", file, threshold)
}

/// Item 1: a Surefire suite declares tests="5" and holds 2 passing testcases. Before: 2 of 2
/// passed, score 0, exit 0 with `--threshold 50`. Now the 3 missing count as failed: 60, exit 1.
#[test]
fn a_suite_declaring_more_tests_than_it_holds_counts_the_missing() {
    let (c, r) = score("issue18-declared-more.xml", "50");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (5, 3));
    assert_eq!(problems(&r), ["missing-tests x3"]);
    assert!(advisory(&r));
}

/// Item 2: real pytest output of a run stopped by KeyboardInterrupt and by `pytest.exit()`:
/// a nameless `<testcase/>`. Before: 2 tests passed (the nameless one too), exit 0 with
/// `--threshold 30`. Now: 1 passed and an `interrupted` problem, 50, exit 1.
#[test]
fn a_nameless_pytest_testcase_is_an_interrupted_run() {
    for file in [
        "issue18-interrupted-keyboard.xml",
        "issue18-interrupted-exit.xml",
    ] {
        let (c, r) = score(file, "30");
        assert_eq!(c, 1, "{file}: {r}");
        assert_eq!(sealed(&r), (2, 1), "{file}");
        assert_eq!(problems(&r), ["interrupted"], "{file}");
        assert!(advisory(&r));
    }
}

/// Item 4: an `@AfterClass` error written directly under `<testsuite>` (Ant's shape). Before:
/// dropped, 2 of 2 passed, exit 0 with `--threshold 20`. Now a counted `suite-error`: 1 of 3
/// failed, exit 1.
#[test]
fn a_suite_level_error_is_a_counted_suite_error() {
    let (c, r) = score("issue18-suite-error.xml", "20");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (3, 1));
    assert_eq!(problems(&r), ["suite-error"]);
    assert!(advisory(&r));
}

/// The wild corpus's true positive: a class that did not load (`tests="1" errors="1"`, a
/// suite-level `<error>`, no testcase). Before: 0 tests, no problem (exit 1 alone only because
/// zero sealed tests make an advisory report; next to a passing file it read perfect).
#[test]
fn the_wild_class_that_did_not_load_is_a_failure() {
    let (c, r) = score_in(
        "wild",
        "ant-junit-suite-error__jenkinsci_junit-plugin__junit-report-6700.xml",
        "50",
    );
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (1, 1));
    assert_eq!(problems(&r), ["suite-error"]);
}

/// Item 4: tst's `status="disabled"` (3 of 5). Before: read as passed, score 0, exit 0 with
/// `--threshold 50`. Now skipped, which a sealed test does not pass: 60, exit 1.
#[test]
fn tst_disabled_tests_are_skipped() {
    let (c, r) = score("issue18-tst-disabled.xml", "50");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (5, 3));
    assert!(problems(&r).is_empty());
}

/// Item 4: googletest's `status="notrun" result="suppressed"` and `result="skipped"` without a
/// child element (2 of 4). Before: passed, exit 0 with `--threshold 40`. Now skipped: 50, exit 1.
#[test]
fn googletest_notrun_and_skipped_results_are_skipped() {
    let (c, r) = score("issue18-googletest-notrun.xml", "40");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (4, 2));
}

/// Item 4: go-junit-report puts a package's output in the suite's `<system-out>`; a panic there
/// killed the test binary. Before: 2 of 2 passed, exit 0 with `--threshold 20`. Now a `crash`:
/// 1 of 3 failed, exit 1.
#[test]
fn a_go_panic_in_the_suite_output_is_a_crash() {
    let (c, r) = score("issue18-go-panic.xml", "20");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (3, 1));
    assert_eq!(problems(&r), ["crash"]);
}

/// Item 3: jest-junit tests `routes GET /api` and `routes GET /api/users`, both failing, and 2
/// passing. Before: `GET /api` was taken for a Go parent of `GET /api/users` and left out: 1 of
/// 3 failed, 33.3, exit 0 with `--threshold 40`. Now each is its own test: 2 of 4, 50, exit 1.
#[test]
fn a_slash_in_a_non_go_test_name_is_not_a_subtest() {
    let (c, r) = score("issue18-slash-names.xml", "40");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (4, 2));
    let names: Vec<&str> = r["failures"]
        .as_array()
        .map(|fs| fs.iter().filter_map(|f| f["test_name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        names,
        [
            "api.test.js::routes GET /api",
            "api.test.js::routes GET /api/users"
        ],
        "{r}"
    );
}

/// Item 4: `seal --expect` records leaves by the reader's rule: the jest-junit `GET /api` test
/// is expected as itself (before, it was taken for a Go parent and left out of the record, so
/// a run without it still read complete), while a Go producer's `TestSquare` is a parent of
/// `TestSquare/one` and `TestSquare/two` and only they are recorded.
#[test]
fn seal_expect_records_leaves_by_the_same_rule() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::create_dir(root.join("sealed")).unwrap();
    std::fs::write(
        root.join("sealed/api.test.js"),
        "test('GET /api', () => {});\n",
    )
    .unwrap();
    let record = |expect: &Path| -> Vec<String> {
        let o = run_in(
            root,
            &[
                "seal",
                "sealed",
                "--expect",
                expect.to_str().unwrap(),
                "-o",
                "rec.json",
            ],
        );
        assert_eq!(code(&o), 0, "{}", crate::common::stderr(&o));
        let rec: Value =
            serde_json::from_slice(&std::fs::read(root.join("rec.json")).unwrap()).unwrap();
        rec["expected_tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };
    let jest = record(&fixtures("issue18").join("issue18-slash-names.xml"));
    assert_eq!(jest.len(), 4, "{jest:?}");
    assert!(
        jest.contains(&"api.test.js::routes GET /api".to_owned()),
        "{jest:?}"
    );
    let go = record(&fixtures("valid").join("go-parents-before-children.xml"));
    assert!(
        go.contains(&"example.com/calc::TestSquare/one".to_owned()),
        "{go:?}"
    );
    assert!(
        !go.contains(&"example.com/calc::TestSquare".to_owned()),
        "{go:?}"
    );
    assert!(
        !go.contains(&"example.com/calc::TestOuter/Inner".to_owned()),
        "{go:?}"
    );
}

/// No false alarm: a complete real pytest run (with `GET /api` and `GET /api/users` parameter
/// ids), and wild files whose declared counts legitimately differ from their testcases
/// (Surefire 3 reruns, pytest subtests, tap2junit's summary suite, gotestsum reruns, PHPUnit's
/// nested suites, NUnit via XSLT) have no problem and are not advisory (but for a test that
/// passed only on a retry, which is advisory as before). Files trimmed by their repositories
/// are not complete runs: since issue 31 their declared totals (the root's too) are evidence,
/// and nothing in a file tells a trimmed fixture from lost tests, so they read as missing tests.
#[test]
fn complete_runs_stay_clean() {
    let (c, r) = score("issue18-complete.xml", "0");
    assert_eq!(c, 0, "{r}");
    assert_eq!(sealed(&r), (3, 0));
    assert!(problems(&r).is_empty());
    assert!(!advisory(&r));
    for file in [
        "maven-surefire3-rerun__jenkinsci_junit-plugin__TEST-io.olamy.FlakyTest.xml",
        "maven-surefire3-rerun__jenkinsci_junit-plugin__TEST-io.olamy.AlwaysFailTest.xml",
        "pytest__dorny_test-reporter__python-xunit-pytest.xml",
        "perl-tap2junit__jenkinsci_junit-plugin__junit-report-1472.xml",
        "gotestsum__mikepenz_action-junit-report__report.xml",
        "phpunit-nested__EnricoMi_publish-unit-test-result-action__testsuite-in-testsuite.xml",
        "nunit3-xslt-junit__EnricoMi_publish-unit-test-result-action__NUnit-correct2.junit-xml",
        "go-junit-report__jstemmer_go-junit-report__012-report.xml",
    ] {
        let (_, r) = score_in("wild", file, "100");
        assert!(problems(&r).is_empty(), "{file}: {:?}", problems(&r));
        // Advisory only for a test that passed on a retry, never for declared counts.
        let reason = r["report"]["advisory_reason"].as_str().unwrap_or("");
        assert!(
            !advisory(&r) || reason.contains("flaky"),
            "{file}: {reason}"
        );
    }
    for (file, missing) in [
        (
            "xunitnet-junit__EnricoMi_publish-unit-test-result-action__xunit.xml",
            171,
        ),
        (
            "container-structure-test__mikepenz_action-junit-report__test.xml",
            5,
        ),
        ("ginkgo__dorny_test-reporter__ginkgo-junit-report.xml", 1),
    ] {
        let (_, r) = score_in("wild", file, "100");
        assert_eq!(
            problems(&r),
            [format!("missing-tests x{missing}")],
            "{file}"
        );
        assert!(advisory(&r), "{file}");
    }
}
