//! The Go test adapter against the real-runner corpus: for every case, the leaf tests (parents
//! left out) match the truth one for one — same package, same name, a status the truth accepts —
//! every run-level problem kind the file shows is reported and no other, and the producer is
//! `go test`. The `go test -v` text of the standard suite (the input go-junit-report read in the
//! corpus) is checked against the standard case's truth, the same suite run by the same go.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_adapter_gotest::{GoTest, JSON_FORMAT, TEXT_FORMAT};
use gapscore_adapter_sdk::{Adapter, ParseOptions, Status, TestRun, parse_to_run};
use gapscore_adapter_testing::{Truth, compare_leaves, compare_problems, real_cases};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Problem kinds the truth lists that cannot be seen in the file: the timeout case's
/// `TestAfterSleep` never started, so the stream never names it (the `timeout` problem is what
/// the file shows of it).
const NOT_IN_THE_FILE: &[(&str, &str)] = &[("timeout", "missing-tests")];

/// Compares a run with a truth; returns what differs.
fn compare(run: &TestRun, truth: &Truth) -> Vec<String> {
    let case = &truth.case;
    let mut failures = Vec::new();
    if truth.producer_tool() == "go test" {
        let got = run.producer.as_ref().map(|p| p.name.as_str());
        if got != Some("go test") {
            failures.push(format!("{case}: producer {got:?}"));
        }
    }
    failures.extend(compare_leaves(run, truth, |t, w| {
        w["name"].as_str() == Some(t.name.as_str()) && t.suite.as_deref() == w["suite"].as_str()
    }));
    // Parents: every truth parent is read as one.
    for w in truth.parents() {
        let name = w["name"].as_str().unwrap();
        if !run.tests.iter().any(|t| t.parent && t.name == name) {
            failures.push(format!("{case}: `{name}` not marked as a parent"));
        }
    }
    failures.extend(compare_problems(run, truth, NOT_IN_THE_FILE));
    failures
}

#[test]
fn every_real_case_matches_its_truth() {
    let adapter = GoTest::new();
    let mut failures = Vec::new();
    let cases = real_cases(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(cases.len(), 6);
    for dir in cases {
        let truth = Truth::load(&dir);
        let case = &truth.case;
        let (file, bytes) = truth.report();
        assert!(
            adapter.detect(&bytes, Some(&file)) >= 95,
            "{case}: not detected"
        );
        assert_eq!(
            adapter.detect_format(&bytes, Some(&file)).as_deref(),
            truth.format(),
            "{case}"
        );
        match parse_to_run(&adapter, &bytes, &ParseOptions::default()) {
            Ok(run) => failures.extend(compare(&run, &truth)),
            Err(e) => failures.push(format!("{case}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_standard_suite_as_go_test_v_text_matches_the_same_truth() {
    let adapter = GoTest::new();
    let bytes = fs::read(root().join("real-text/go-test-v-standard/go-test-v.txt")).unwrap();
    assert_eq!(adapter.detect(&bytes, None), 65);
    assert_eq!(
        adapter.detect_format(&bytes, None).as_deref(),
        Some(TEXT_FORMAT)
    );
    let run = parse_to_run(&adapter, &bytes, &ParseOptions::default()).unwrap();
    let mut truth = Truth::load(&root().join("real/standard"));
    truth.case = "go-test-v-standard".to_owned();
    let failures = compare(&run, &truth);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The semantics the truth files only imply, checked directly.
#[test]
fn details_of_the_real_cases() {
    let adapter = GoTest::new();
    let read = |case: &str| {
        let bytes = fs::read(root().join("real").join(case).join("go-test.jsonl")).unwrap();
        let mut opts = ParseOptions::default();
        opts.format_id = Some(JSON_FORMAT.into());
        parse_to_run(&adapter, &bytes, &opts).unwrap()
    };
    let run = read("standard");
    let t = run
        .tests
        .iter()
        .find(|t| t.name == "TestAddWrongExpectation")
        .unwrap();
    assert_eq!(t.status, Status::Failed);
    assert_eq!(t.message.as_deref(), Some("Add(1, 2) = 3; want 2"));
    assert_eq!(
        (t.file.as_deref(), t.line),
        (Some("calc_test.go"), Some(16))
    );
    assert_eq!(
        (t.expected.as_deref(), t.actual.as_deref()),
        (Some("2"), Some("3"))
    );
    let skip = run
        .tests
        .iter()
        .find(|t| t.name == "TestFetchRemote")
        .unwrap();
    assert_eq!(skip.message.as_deref(), Some("requires network access"));
    let deep = run
        .tests
        .iter()
        .find(|t| t.name == "TestOuter/Inner/deep_works")
        .unwrap();
    assert_eq!(
        deep.parent_id.as_deref(),
        Some("example.com/calc::TestOuter/Inner")
    );
    assert_eq!(deep.id, "example.com/calc::TestOuter/Inner/deep_works");

    let run = read("timeout");
    let t = run.tests.iter().find(|t| t.name == "TestSleeps").unwrap();
    assert_eq!(t.status, Status::Errored);
    assert!(t.message.as_deref().unwrap().contains("timed out"));
    assert_eq!(run.problems.len(), 1);
    assert!(
        run.problems[0]
            .detail
            .contains("panic: test timed out after 1s")
    );

    let run = read("build-failure");
    assert_eq!(run.problems.len(), 1);
    assert_eq!(
        run.problems[0].suite.as_deref(),
        Some("example.com/buildfail/broken")
    );

    let run = read("big-5000");
    assert_eq!(run.tests.iter().filter(|t| !t.parent).count(), 5000);
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
}
