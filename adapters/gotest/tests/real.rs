//! The Go test adapter against the real-runner corpus: for every case, the leaf tests (parents
//! left out) match the truth one for one — same package, same name, a status the truth accepts —
//! every run-level problem kind the file shows is reported and no other, and the producer is
//! `go test`. The `go test -v` text of the standard suite (the input go-junit-report read in the
//! corpus) is checked against the standard case's truth, the same suite run by the same go.

#![allow(clippy::unwrap_used)] // Test code.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_adapter_gotest::{GoTest, JSON_FORMAT, TEXT_FORMAT};
use gapscore_adapter_sdk::{Adapter, ParseOptions, Status, TestRun, parse_to_run};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn cases() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(root().join("real"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    assert_eq!(v.len(), 6);
    v
}

/// Problem kinds the truth lists that cannot be seen in the file: the timeout case's
/// `TestAfterSleep` never started, so the stream never names it (the `timeout` problem is what
/// the file shows of it).
fn not_in_the_file(case: &str, kind: &str) -> bool {
    case == "timeout" && kind == "missing-tests"
}

fn truth_of(dir: &Path) -> Value {
    serde_json::from_slice(&fs::read(dir.join("truth.json")).unwrap()).unwrap()
}

/// Compares a run with a truth; returns what differs.
fn compare(case: &str, run: &TestRun, truth: &Value) -> Vec<String> {
    let mut failures = Vec::new();
    if truth["producer"]["tool"] == "go test" {
        let got = run.producer.as_ref().map(|p| p.name.as_str());
        if got != Some("go test") {
            failures.push(format!("{case}: producer {got:?}"));
        }
    }
    let leaves: Vec<_> = run.tests.iter().filter(|t| !t.parent).collect();
    let want: Vec<&Value> = truth["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["parent"] != Value::Bool(true))
        .collect();
    if leaves.len() != want.len() {
        failures.push(format!(
            "{case}: {} leaf tests, truth has {}",
            leaves.len(),
            want.len()
        ));
    }
    let mut used = vec![false; leaves.len()];
    for w in &want {
        let name = w["name"].as_str().unwrap();
        let suite = w["suite"].as_str();
        let mut ok: Vec<&str> = vec![w["status"].as_str().unwrap()];
        if let Some(a) = w["accept"].as_array() {
            ok.extend(a.iter().filter_map(Value::as_str));
        }
        match leaves
            .iter()
            .enumerate()
            .find(|(i, t)| !used[*i] && t.name == name && t.suite.as_deref() == suite)
        {
            Some((i, t)) => {
                used[i] = true;
                if !ok.contains(&t.status.as_str()) {
                    failures.push(format!(
                        "{case}: `{name}` is {}, truth says {ok:?}",
                        t.status
                    ));
                }
            }
            None => failures.push(format!("{case}: `{suite:?} {name}` not read")),
        }
    }
    // Parents: every truth parent is read as one.
    for w in truth["tests"].as_array().unwrap() {
        if w["parent"] == Value::Bool(true) {
            let name = w["name"].as_str().unwrap();
            if !run.tests.iter().any(|t| t.parent && t.name == name) {
                failures.push(format!("{case}: `{name}` not marked as a parent"));
            }
        }
    }
    let got: Vec<&str> = run.problems.iter().map(|p| p.kind.as_str()).collect();
    let known: Vec<&str> = truth["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["kind"].as_str())
        .collect();
    for kind in &known {
        if !got.contains(kind) && !not_in_the_file(case, kind) {
            failures.push(format!(
                "{case}: problem `{kind}` not reported (got {got:?})"
            ));
        }
    }
    for k in &got {
        if !known.contains(k) {
            failures.push(format!("{case}: unexpected problem `{k}`"));
        }
    }
    failures
}

#[test]
fn every_real_case_matches_its_truth() {
    let adapter = GoTest::new();
    let mut failures = Vec::new();
    for dir in cases() {
        let case = dir.file_name().unwrap().to_string_lossy().into_owned();
        let truth = truth_of(&dir);
        let (file, _) = truth["files"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(_, role)| *role == "report")
            .unwrap();
        let bytes = fs::read(dir.join(file)).unwrap();
        assert!(
            adapter.detect(&bytes, Some(file)) >= 95,
            "{case}: not detected"
        );
        assert_eq!(
            adapter.detect_format(&bytes, Some(file)).as_deref(),
            truth["format"].as_str(),
            "{case}"
        );
        match parse_to_run(&adapter, &bytes, &ParseOptions::default()) {
            Ok(run) => failures.extend(compare(&case, &run, &truth)),
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
    let failures = compare(
        "go-test-v-standard",
        &run,
        &truth_of(&root().join("real/standard")),
    );
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
