//! Issue 18: contradictory evidence is never a pass, declared tests the file does not hold count
//! as failed one by one, and a reporter's `success: false` beside a clean run is not a failure
//! (while every other `success: false` still is). Fixtures named `issue18-*`; where they come
//! from is in tests/fixtures/README.md.

use gapscore_adapter_jest::Jest;
use gapscore_adapter_sdk::{ParseOptions, ProblemKind, Status, parse_to_run};

use crate::fixtures::{kinds, read, test};

#[test]
fn passed_with_failure_records_is_failed_with_a_warning() {
    let run = read("issue18-passed-with-failure-messages.json");
    let t = test(&run, "adds negative numbers");
    assert_eq!(t.status, Status::Failed);
    assert!(t.message.as_deref().unwrap().contains("toBe"));
    assert_eq!(test(&run, "adds two numbers").status, Status::Passed);
    assert!(run.problems.is_empty(), "{:?}", run.problems);
    // The contradiction, and `numFailedTests: 0` beside the failure it reads (issue 31: the
    // records count, the better claim is a warning).
    assert_eq!(run.warnings.len(), 2, "{:?}", run.warnings);
    assert!(run.warnings[0].contains("contradictory, counted as failed"));
    assert!(run.warnings[1].contains("declares 0 failed and 1 are recorded"));
}

#[test]
fn failure_details_alone_contradict_a_pass() {
    let doc = r#"{"numTotalTests":1,"testResults":[{"name":"/p/a.test.js","status":"passed",
      "assertionResults":[{"title":"t","status":"passed","failureMessages":[],"failureDetails":[{}]}]}]}"#;
    let run = parse_to_run(&Jest::new(), doc.as_bytes(), &ParseOptions::default()).unwrap();
    assert_eq!(run.tests[0].status, Status::Failed);
    assert!(
        run.warnings[0].contains("`failureDetails`"),
        "{:?}",
        run.warnings
    );
}

#[test]
fn the_real_runs_read_as_they_ran() {
    let run = read("issue18-real-pass-fail.json");
    let statuses: Vec<Status> = run.tests.iter().map(|t| t.status).collect();
    // `test.failing` that fails as expected: passed in Jest, with no failure records.
    assert_eq!(
        statuses,
        [Status::Passed, Status::Failed, Status::Xfailed],
        "{:?}",
        run.tests
    );
    assert!(run.problems.is_empty() && run.warnings.is_empty());

    let run = read("issue18-real-all-pass.json");
    assert!(run.tests.iter().all(|t| t.status == Status::Passed));
    assert!(run.problems.is_empty() && run.warnings.is_empty());

    let run = read("issue18-real-file-fails-to-run.json");
    assert_eq!(kinds(&run), [ProblemKind::SuiteError]);
    assert!(
        run.problems[0]
            .suite
            .as_deref()
            .unwrap()
            .ends_with("broken.test.js")
    );
}

#[test]
fn declared_tests_not_held_count_each() {
    let run = read("issue18-declares-more-tests.json");
    assert_eq!(kinds(&run), [ProblemKind::MissingTests]);
    assert_eq!(run.problems[0].count, Some(48));
    assert_eq!(run.problems[0].weight(), 48);
}

#[test]
fn a_failed_test_the_file_holds_as_passed_is_counted() {
    // The counts say one test failed; the file holds the same number of tests, all passed.
    let doc = r#"{"numTotalTests":2,"numFailedTests":1,"numPassedTests":1,"testResults":[{"name":"/p/a.test.js","status":"failed",
      "assertionResults":[{"title":"a","status":"passed"},{"title":"b","status":"passed"}]}]}"#;
    let run = parse_to_run(&Jest::new(), doc.as_bytes(), &ParseOptions::default()).unwrap();
    // Issue 31: the declared failure is counted among the tests read (`summary-counts`).
    let counted: Vec<_> = run
        .problems
        .iter()
        .filter(|p| p.kind == ProblemKind::SummaryCounts)
        .collect();
    assert_eq!(counted.len(), 1, "{:?}", run.problems);
    assert_eq!(counted[0].count, Some(1));
}

#[test]
fn a_reporters_success_false_beside_a_clean_run_is_not_a_failure() {
    let run = read("issue18-wild-reporter-success-false.json");
    assert_eq!(run.tests.len(), 6);
    assert!(run.tests.iter().all(|t| t.status == Status::Passed));
    assert!(run.problems.is_empty(), "{:?}", run.problems);
    assert_eq!(run.warnings.len(), 1);
    assert!(run.warnings[0].contains("written by a reporter"));
}

#[test]
fn every_other_success_false_still_fails() {
    // A failed test file declared.
    assert_eq!(
        kinds(&read("issue18-success-false-suite-failed.json")),
        [ProblemKind::SuiteError]
    );
    // A snapshot check that failed.
    assert_eq!(
        kinds(&read("success-false-all-passing.json")),
        [ProblemKind::SuiteError]
    );
    // No tests; a skipped test; a file whose status is not `passed`; no suite counts at all.
    let base = |total: &str, file_status: &str, status: &str, counts: &str| {
        format!(
            r#"{{"success":false,{counts}"numTotalTests":{total},"testResults":[{{"name":"/p/a.test.js","status":"{file_status}",
              "assertionResults":[{{"title":"a","status":"{status}"}}]}}]}}"#
        )
    };
    let counts = r#""numFailedTestSuites":0,"numRuntimeErrorTestSuites":0,"#;
    for doc in [
        base("1", "passed", "pending", counts),
        base("1", "failed", "passed", counts),
        base("1", "passed", "passed", ""),
        format!(r#"{{"success":false,{counts}"numTotalTests":0,"testResults":[]}}"#),
    ] {
        let run = parse_to_run(&Jest::new(), doc.as_bytes(), &ParseOptions::default()).unwrap();
        assert!(
            run.problems
                .iter()
                .any(|p| p.kind == ProblemKind::SuiteError),
            "{doc}: {:?}",
            run.problems
        );
    }
    // The same clean document is not a failure.
    let run = parse_to_run(
        &Jest::new(),
        base("1", "passed", "passed", counts).as_bytes(),
        &ParseOptions::default(),
    )
    .unwrap();
    assert!(run.problems.is_empty(), "{:?}", run.problems);
}
