//! Issue 20, everyday use: the `--threshold` gate says its verdict (stderr, report, Markdown,
//! summary, batch), warnings of one kind are one line with a count (every one with
//! `--verbose`), and a cut `go test -json` stream is one counted `missing-results` problem.

use std::fs;
use std::path::Path;

use crate::common::{code, json_of, run_in, stderr, stdout};

/// A `go test -json` stream: 3 tests pass, then `running` more start and the stream is cut
/// mid-line.
fn cut_stream(dir: &Path, running: usize) {
    let mut s = String::new();
    for i in 0..3 {
        s.push_str(&format!(
            "{{\"Action\":\"run\",\"Package\":\"example.com/calc\",\"Test\":\"TestDone{i}\"}}\n{{\"Action\":\"pass\",\"Package\":\"example.com/calc\",\"Test\":\"TestDone{i}\",\"Elapsed\":0}}\n"
        ));
    }
    for i in 0..running {
        s.push_str(&format!(
            "{{\"Action\":\"run\",\"Package\":\"example.com/calc\",\"Test\":\"TestSlow{i}\"}}\n"
        ));
    }
    s.push_str("{\"Action\":\"output\",\"Package\":\"exa");
    fs::write(dir.join("cut.jsonl"), s).unwrap();
}

/// A JUnit file of `n` suites, each declaring `failures="0"` and holding one failure.
fn miscounted_junit(dir: &Path, n: usize) {
    let mut s = String::from("<?xml version=\"1.0\"?>\n<testsuites>\n");
    for i in 0..n {
        s.push_str(&format!(
            "<testsuite name=\"s{i}\" tests=\"1\" failures=\"0\"><testcase classname=\"s{i}\" name=\"t\"><failure message=\"boom\"/></testcase></testsuite>\n"
        ));
    }
    s.push_str("</testsuites>\n");
    fs::write(dir.join("many.xml"), s).unwrap();
}

fn simple(dir: &Path, failed: usize, passed: usize) {
    let tests: Vec<String> = (0..failed)
        .map(|i| format!("{{\"name\": \"f{i}\", \"status\": \"failed\"}}"))
        .chain((0..passed).map(|i| format!("{{\"name\": \"p{i}\", \"status\": \"passed\"}}")))
        .collect();
    fs::write(
        dir.join("results.json"),
        format!("{{\"tests\": [{}]}}", tests.join(", ")),
    )
    .unwrap();
}

#[test]
fn the_gate_says_its_verdict_on_stderr_in_the_report_and_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    simple(dir.path(), 8, 9);
    let o = run_in(
        dir.path(),
        &["score", "--sealed", "results.json", "--threshold", "15"],
    );
    assert_eq!(code(&o), 1);
    assert_eq!(
        stderr(&o),
        "error: score 47.1% is above the threshold 15%\n"
    );
    let gate = &json_of(&o)["gapscore"]["gate"];
    assert_eq!(gate["threshold"], 15.0);
    assert_eq!(gate["verdict"], "failed");
    assert_eq!(gate["reason"], "score 47.1% is above the threshold 15%");

    let o = run_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            "results.json",
            "--threshold",
            "50",
            "--format",
            "summary",
        ],
    );
    assert_eq!(code(&o), 0);
    assert_eq!(stderr(&o), "");
    assert!(
        stdout(&o).ends_with("\nGate: passed: score 47.1% is within the threshold 50%\n"),
        "{}",
        stdout(&o)
    );
    let o = run_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            "results.json",
            "--threshold",
            "15",
            "--format",
            "markdown",
        ],
    );
    assert!(stdout(&o).contains("**Gate:** ❌ failed · score 47.1% is above the threshold 15%\n"));

    // An advisory report within the threshold: one line, verdict `advisory`.
    cut_stream(dir.path(), 2);
    let o = run_in(
        dir.path(),
        &["score", "--sealed", "cut.jsonl", "--threshold", "90"],
    );
    assert_eq!(code(&o), 1);
    assert_eq!(json_of(&o)["gapscore"]["gate"]["verdict"], "advisory");
    assert_eq!(stderr(&o).matches("error: ").count(), 1, "{}", stderr(&o));

    // Without a threshold there is no gate.
    let o = run_in(dir.path(), &["score", "--sealed", "results.json"]);
    assert!(json_of(&o)["gapscore"].get("gate").is_none());
}

#[test]
fn batch_records_the_gate_per_repository() {
    let dir = tempfile::tempdir().unwrap();
    for (repo, failed) in [("good", 0), ("bad", 5)] {
        let d = dir.path().join("repos").join(repo).join("sealed");
        fs::create_dir_all(&d).unwrap();
        simple(&d, failed, 5);
    }
    let o = run_in(
        dir.path(),
        &["batch", "repos", "-o", "out", "--threshold", "10"],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let rows = fs::read_to_string(dir.path().join("out/results.ndjson")).unwrap();
    assert!(
        rows.contains("\"name\":\"bad\"") && rows.contains("\"gate\":\"failed\""),
        "{rows}"
    );
    assert!(rows.contains("\"gate\":\"passed\""), "{rows}");
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("out/reports/bad.json")).unwrap())
            .unwrap();
    assert_eq!(
        report["gapscore"]["gate"]["reason"],
        "score 50.0% is above the threshold 10%"
    );
}

#[test]
fn warnings_of_one_kind_are_one_line_and_counted_in_the_report() {
    let dir = tempfile::tempdir().unwrap();
    miscounted_junit(dir.path(), 150);
    let o = run_in(dir.path(), &["score", "--sealed", "many.xml"]);
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(
        "warning: many.xml: testsuite `s0` declares 0 failed and 1 are recorded: every record is counted (and 149 more like it: many.xml `s1`, many.xml `s2`, many.xml `s3`, …; --verbose shows each)"
    ), "{err}");
    let r = json_of(&o);
    assert_eq!(r["gapscore"]["warnings"].as_array().unwrap().len(), 100);
    assert_eq!(
        r["gapscore"]["warning_counts"],
        serde_json::json!([{
            "kind": "<file>: testsuite `…` declares N failed and N are recorded: every record is counted",
            "code": "W101",
            "count": 150
        }])
    );
    let o = run_in(dir.path(), &["score", "--sealed", "many.xml", "--verbose"]);
    assert_eq!(stderr(&o).lines().count(), 150);
}

#[test]
fn a_cut_go_stream_is_one_counted_missing_results_problem() {
    let dir = tempfile::tempdir().unwrap();
    cut_stream(dir.path(), 341);
    let o = run_in(
        dir.path(),
        &["score", "--sealed", "cut.jsonl", "--format", "json"],
    );
    let r = json_of(&o);
    // Scoring is unchanged: each unfinished test is a failure, and the cut one more.
    assert_eq!(r["sealed_tests"]["total"], 345);
    assert_eq!(r["sealed_tests"]["failed"], 342);
    let problems = r["gapscore"]["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 2, "{problems:?}");
    let missing = &problems[1];
    assert_eq!(missing["kind"], "missing-results");
    assert_eq!(missing["count"], 341);
    assert!(
        missing["detail"]
            .as_str()
            .unwrap()
            .starts_with("341 tests started but have no result: `example.com/calc::TestSlow0`")
    );
    let reason = r["report"]["advisory_reason"].as_str().unwrap();
    assert_eq!(
        reason,
        "the sealed suite did not fully run (2 problems: truncated, missing-results in example.com/calc)"
    );
    // The stderr names where the file is cut.
    assert!(
        stderr(&o).contains("(cut.jsonl: the stream is cut mid-line at byte "),
        "{}",
        stderr(&o)
    );
}
