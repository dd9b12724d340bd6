//! Data-driven test of the libtest adapter on hand-written fixtures, one scenario each: every
//! `valid/` file is detected, read, and its canonical run snapshotted; every `invalid/` file
//! must fail with the snapshotted place and message. Targeted assertions below pin the
//! integrity rules the snapshots show.

use std::path::Path;

use gapscore_adapter_libtest::{FORMAT, Libtest};
use gapscore_adapter_sdk::{Adapter, ParseOptions, ProblemKind, TestRun, parse_to_run};
use gapscore_adapter_testing::{each_fixture, fixture_stem};

fn valid(name: &str) -> TestRun {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/valid")
        .join(name);
    let bytes = std::fs::read(&path).unwrap();
    parse_to_run(&Libtest::new(), &bytes, &ParseOptions::default()).unwrap()
}

/// (kind, weight) of each problem.
fn problems(run: &TestRun) -> Vec<(ProblemKind, u64)> {
    run.problems.iter().map(|p| (p.kind, p.weight())).collect()
}

#[test]
fn valid_fixtures() {
    let adapter = Libtest::new();
    let n = each_fixture(env!("CARGO_MANIFEST_DIR"), "valid", |path, bytes| {
        assert_eq!(adapter.detect(bytes, None), 97, "not detected");
        let stem = fixture_stem(path);
        let run = parse_to_run(&adapter, bytes, &ParseOptions::with_source(stem.clone()))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.format, FORMAT);
        insta::assert_json_snapshot!(format!("valid__{stem}"), run);
    });
    assert!(n >= 10);
}

#[test]
fn invalid_fixtures() {
    let adapter = Libtest::new();
    each_fixture(env!("CARGO_MANIFEST_DIR"), "invalid", |path, bytes| {
        let err = match parse_to_run(&adapter, bytes, &ParseOptions::default()) {
            Ok(run) => panic!("was accepted: {run:?}"),
            Err(e) => e,
        };
        insta::assert_snapshot!(format!("invalid__{}", fixture_stem(path)), err.to_string());
    });
}

#[test]
fn a_cut_stream_is_never_complete() {
    // Cut after one result of three, mid-line.
    let run = valid("cut-mid-line.jsonl");
    assert_eq!(
        problems(&run),
        vec![
            (ProblemKind::Truncated, 1),
            (ProblemKind::MissingTests, 1),
            (ProblemKind::MissingResults, 1),
        ]
    );
}

#[test]
fn a_binary_that_dies_is_a_crash_and_its_unstarted_tests_are_missing() {
    let run = valid("binary-dies-next-follows.jsonl");
    assert_eq!(
        problems(&run),
        vec![
            (ProblemKind::Crash, 1),
            (ProblemKind::MissingTests, 2),
            (ProblemKind::MissingResults, 1),
        ]
    );
}

#[test]
fn a_summary_that_counts_more_is_evidence() {
    // The file holds 2 results; `test_count` and the summary say 4, one more of them failed.
    let run = valid("summary-counts-more.jsonl");
    assert_eq!(problems(&run), vec![(ProblemKind::MissingTests, 2)]);
    // Issue 31: a failure the summary counts among results read as passed is counted there.
    let run = valid("summary-hides-a-failure.jsonl");
    assert_eq!(problems(&run), vec![(ProblemKind::SummaryCounts, 1)]);
}

#[test]
fn a_failed_suite_with_only_passes_is_a_contradiction() {
    let run = valid("suite-failed-all-passed.jsonl");
    assert_eq!(problems(&run), vec![(ProblemKind::SuiteError, 1)]);
}

#[test]
fn a_build_failure_in_merged_output_is_a_problem() {
    let run = valid("build-failure-merged.txt");
    assert_eq!(problems(&run), vec![(ProblemKind::BuildFailure, 1)]);
}

#[test]
fn nextest_plus_counts_per_binary() {
    // One binary declares 3 tests over two suites and reports 2.
    let run = valid("nextest-plus-missing.jsonl");
    assert_eq!(problems(&run), vec![(ProblemKind::MissingTests, 1)]);
    assert_eq!(run.problems[0].suite.as_deref(), Some("demo::api"));
}

#[test]
fn results_beyond_the_declared_count_are_not_passes() {
    // Two event lines written by something other than libtest (code under test printing to the
    // real stdout): they cannot raise the score.
    let run = valid("more-results-than-declared.jsonl");
    assert_eq!(problems(&run), vec![(ProblemKind::SuiteError, 2)]);
}

/// The place of the error reading `input`.
fn error_place(input: &[u8]) -> (gapscore_adapter_sdk::Location, String) {
    match parse_to_run(&Libtest::new(), input, &ParseOptions::default()) {
        Err(gapscore_adapter_sdk::AdapterError::Input(e)) => {
            (e.location().cloned().expect("a place"), e.to_string())
        }
        other => panic!("not an input error: {other:?}"),
    }
}

#[test]
fn error_columns_count_a_byte_order_mark() {
    use gapscore_adapter_sdk::Location::LineCol;
    // The second `"type"` is the line's 20th byte; the mark before it makes it the file's 23rd.
    let dup = br#"{ "type": "suite", "type": "test", "event": "started", "test_count": 1 }"#;
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend_from_slice(dup);
    let (at, message) = error_place(dup);
    assert_eq!(
        at,
        LineCol {
            line: 1,
            column: 20
        }
    );
    assert!(message.contains("(first at 1:3)"), "{message}");
    let (at, message) = error_place(&with_bom);
    assert_eq!(
        at,
        LineCol {
            line: 1,
            column: 23
        }
    );
    assert!(message.contains("(first at 1:6)"), "{message}");
    // serde_json's own errors likewise: the event's `test_count` is not a number.
    let bad = br#"{ "type": "suite", "event": "started", "test_count": "x" }
"#;
    let (plain, _) = error_place(bad);
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend_from_slice(bad);
    let (
        LineCol { line, column },
        LineCol {
            column: bom_column, ..
        },
    ) = (plain, error_place(&with_bom).0)
    else {
        panic!("not line and column");
    };
    assert_eq!((line, bom_column), (1, column + 3));
}
