//! Issue 18: gotestsum `--rerun-fails` reruns are attempts of one test, not more tests.

use std::path::Path;

use gapscore_adapter_gotest::GoTest;
use gapscore_adapter_sdk::{ParseOptions, Status, TestRun, parse_to_run};

fn read(bytes: &[u8]) -> TestRun {
    parse_to_run(&GoTest::new(), bytes, &ParseOptions::default()).unwrap()
}

#[test]
fn the_gotestsum_rerun_file_reads_six_tests_three_flaky() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "tests/fixtures/wild/go-test-json-rerun__gotestyourself_gotestsum__go-test-json-flaky-rerun.out",
    );
    let run = read(&std::fs::read(path).unwrap());
    assert_eq!(run.tests.len(), 6);
    assert!(run.tests.iter().all(|t| t.status == Status::Passed));
    let attempts = |name: &str| {
        let t = run.tests.iter().find(|t| t.name == name).unwrap();
        (t.attempts.len(), t.is_flaky())
    };
    assert_eq!(attempts("TestAlwaysPasses"), (0, false));
    assert_eq!(attempts("TestFailsRarely"), (1, true));
    assert_eq!(attempts("TestFailsSometimes"), (2, true));
    assert_eq!(attempts("TestFailsOften"), (3, true));
    let often = run
        .tests
        .iter()
        .find(|t| t.name == "TestFailsOften")
        .unwrap();
    assert!(
        often.attempts[0]
            .message
            .as_deref()
            .is_some_and(|m| m.contains("not this time"))
    );
    assert!(run.problems.is_empty(), "{:?}", run.problems);
}

#[test]
fn a_rerun_that_still_fails_is_one_failed_test() {
    let doc = br#"{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"fail","Package":"p","Test":"TestA"}
{"Action":"fail","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"fail","Package":"p","Test":"TestA"}
{"Action":"fail","Package":"p"}
"#;
    let run = read(doc);
    assert_eq!(run.tests.len(), 1);
    assert_eq!(run.tests[0].status, Status::Failed);
    assert_eq!(run.tests[0].attempts.len(), 1);
    assert!(!run.tests[0].is_flaky());
}

#[test]
fn a_repeat_within_one_run_is_not_a_rerun() {
    // `go test -count=2`: both runs belong to one run of the package; two entries, as written.
    let doc = br#"{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"fail","Package":"p","Test":"TestA"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"fail","Package":"p"}
"#;
    let run = read(doc);
    assert_eq!(run.tests.len(), 2);
    assert!(run.tests.iter().all(|t| t.attempts.is_empty()));
    let failed = run
        .tests
        .iter()
        .filter(|t| t.status == Status::Failed)
        .count();
    assert_eq!(failed, 1);
}
