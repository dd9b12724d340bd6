//! Issue 18, the JSON readers, through the CLI with `--threshold`: contradictory evidence is never
//! a pass (Jest `passed` with failure records; a key given twice in one object, in every JSON
//! reader), declared tests a file does not hold count as failed one by one (CTRF `summary`, Jest
//! `numTotalTests`), and a Jest reporter's `success: false` beside a clean run is not a failure.
//! Each document here passed the gate before issue 18 (or, for the reporter's file, failed it).

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{code, json_of, run_in, stderr};

/// Scores `file` (written into `dir` first) with `--threshold 10`, JSON report.
fn score(dir: &Path, name: &str, text: &str, extra: &[&str]) -> std::process::Output {
    fs::write(dir.join(name), text).unwrap();
    let mut args = vec![
        "score",
        "--sealed",
        name,
        "--threshold",
        "10",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    run_in(dir, &args)
}

/// `report.advisory` (absent when the report is not advisory).
fn advisory(report: &Value) -> bool {
    report["report"]["advisory"].as_bool().unwrap_or(false)
}

fn sealed(report: &Value) -> (u64, u64, u64) {
    let s = &report["sealed_tests"];
    (
        s["total"].as_u64().unwrap(),
        s["passed"].as_u64().unwrap(),
        s["failed"].as_u64().unwrap(),
    )
}

#[test]
fn jest_passed_with_failure_messages_is_failed() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = r#"{"numTotalTests":2,"testResults":[{"name":"/p/calc.test.js","status":"passed","assertionResults":[
      {"title":"adds","status":"passed","failureMessages":[]},
      {"title":"subtracts","status":"passed","failureMessages":["Error: expect(received).toBe(expected)\n\nExpected: 1\nReceived: 3"]}]}]}"#;
    let out = score(tmp.path(), "jest.json", doc, &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let r = json_of(&out);
    assert_eq!(sealed(&r), (2, 1, 1));
    assert_eq!(r["report"]["shadow_score"], 50.0);
    assert!(!advisory(&r));
    assert!(stderr(&out).contains("contradictory, counted as failed"));
}

#[test]
fn jest_failure_details_alone_contradict_a_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = r#"{"numTotalTests":1,"testResults":[{"name":"/p/calc.test.js","status":"passed","assertionResults":[
      {"title":"adds","status":"passed","failureMessages":[],"failureDetails":[{"matcherResult":{"pass":false}}]}]}]}"#;
    let out = score(tmp.path(), "jest.json", doc, &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(sealed(&json_of(&out)), (1, 0, 1));
}

/// Every JSON reader: the document is refused at the second key (exit 2, file:line:col).
#[test]
fn a_key_given_twice_is_an_input_error_in_every_json_reader() {
    let cases: [(&str, &str, &str); 5] = [
        (
            "jest.json",
            r#"{"numTotalTests":1,"testResults":[{"name":"/p/a.test.js","status":"passed","assertionResults":[
{"title":"adds","status":"failed","status":"passed"}]}]}"#,
            "jest.json:2:35: duplicate key `status`",
        ),
        (
            "ctrf.json",
            r#"{"results":{"tool":{"name":"jest"},"tests":[{"name":"adds","status":"passed","duration":1}],
"extra":{"errors":[{"message":"global setup failed","message":""}]}}}"#,
            "ctrf.json:2:53: duplicate key `message`",
        ),
        (
            "results.json",
            r#"{"tests":[{"name":"adds","status":"passed","expected":{"sum":3,"sum":4}}]}"#,
            "results.json:1:64: duplicate key `sum`",
        ),
        (
            "go.jsonl",
            "{\"Action\":\"start\",\"Package\":\"p\"}\n{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"TestAdd\"}\n{\"Time\":\"2024-05-01T10:00:00Z\",\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"TestAdd\",\"Elapsed\":0,\"Time\":\"2024-05-01T10:00:01Z\"}\n{\"Action\":\"pass\",\"Package\":\"p\",\"Elapsed\":0.1}\n",
            "go.jsonl:3:91: duplicate key `Time`",
        ),
        (
            "report.json",
            r#"{"exitcode":0,"summary":{"passed":1,"total":1,"failed":1,"failed":0},"tests":[{"nodeid":"test_a.py::test_one","outcome":"passed",
"setup":{"outcome":"passed"},"call":{"outcome":"passed"},"teardown":{"outcome":"passed"}}]}"#,
            "report.json:1:58: duplicate key `failed`",
        ),
    ];
    let tmp = tempfile::tempdir().unwrap();
    for (name, doc, want) in cases {
        let out = score(tmp.path(), name, doc, &["--allow-advisory"]);
        assert_eq!(code(&out), 2, "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains(want), "{name}: {}", stderr(&out));
    }
}

#[test]
fn ctrf_summary_declaring_more_tests_counts_each_missing_one() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = r#"{"results":{"tool":{"name":"jest"},
      "summary":{"tests":10,"passed":10,"failed":0,"pending":0,"skipped":0,"other":0,"start":0,"stop":1},
      "tests":[{"name":"adds","status":"passed","duration":1},{"name":"subtracts","status":"passed","duration":1}]}}"#;
    // Even with the advisory allowed, the 8 missing tests fail the gate.
    let out = score(tmp.path(), "ctrf.json", doc, &["--allow-advisory"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let r = json_of(&out);
    assert_eq!(sealed(&r), (10, 2, 8));
    assert_eq!(r["report"]["shadow_score"], 80.0);
    assert!(advisory(&r));
    let p = &r["gapscore"]["problems"][0];
    assert_eq!(p["kind"], "missing-tests");
    assert_eq!(p["count"], 8);
}

#[test]
fn jest_declared_tests_not_held_count_each() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = r#"{"numTotalTests":10,"numPassedTests":10,"numFailedTests":0,"testResults":[{"name":"/p/a.test.js","status":"passed",
      "assertionResults":[{"title":"adds","status":"passed"}]}]}"#;
    let out = score(tmp.path(), "jest.json", doc, &["--allow-advisory"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let r = json_of(&out);
    assert_eq!(sealed(&r), (10, 1, 9));
    assert!(advisory(&r));
    assert_eq!(r["gapscore"]["problems"][0]["count"], 9);
}

/// The real file a reporter wrote (tests/fixtures of the jest adapter, from a public
/// repository): before issue 18 a suite error failed the gate; now 6/6 and not advisory.
#[test]
fn a_jest_reporters_success_false_beside_a_clean_run_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let file =
        root.join("adapters/jest/tests/fixtures/valid/issue18-wild-reporter-success-false.json");
    let tmp = tempfile::tempdir().unwrap();
    let out = score(
        tmp.path(),
        "jest.json",
        &fs::read_to_string(&file).unwrap(),
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let r = json_of(&out);
    assert_eq!(sealed(&r), (6, 6, 0));
    assert!(!advisory(&r));
    assert!(stderr(&out).contains("written by a reporter"));
    // The same file with a failed test file declared still fails.
    let bad =
        root.join("adapters/jest/tests/fixtures/valid/issue18-success-false-suite-failed.json");
    let out = score(
        tmp.path(),
        "bad.json",
        &fs::read_to_string(&bad).unwrap(),
        &[],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(advisory(&json_of(&out)));
}

/// A CTRF summary declaring `u64::MAX` tests and failures (found by the `ctrf` fuzz target):
/// the missing tests and the failures beyond them are two weighted problems whose counts added
/// up past `u64::MAX`. The release build wrapped the totals round to `Sealed: 1/0 passed`, a
/// score of 0.0 that `--allow-advisory` let through the gate; the debug build panicked. Counts
/// now saturate: every missing test still counts as failed.
#[test]
fn declared_counts_near_u64_max_do_not_wrap_the_totals() {
    let dir = tempfile::tempdir().unwrap();
    let max = u64::MAX;
    let doc = format!(
        r#"{{"reportFormat":"CTRF","specVersion":"0.0.0","results":{{"tool":{{"name":"x"}},"summary":{{"tests":{max},"passed":1,"failed":{max},"pending":0,"skipped":0,"other":0,"start":0,"stop":1}},"tests":[{{"name":"a","status":"passed","duration":1}}]}}}}"#
    );
    let o = score(dir.path(), "huge.json", &doc, &["--allow-advisory"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json_of(&o);
    let (total, passed, failed) = sealed(&r);
    // Issue 31: the declared failure beyond the missing tests is counted among the one test
    // read (`summary-counts`), so no pass is left; the total saturated at u64::MAX stays there.
    assert_eq!((total, failed, passed), (max, max, 0), "{r}");
    assert!(advisory(&r));
    assert_eq!(r["report"]["shadow_score"], 100.0, "{r}");
}
