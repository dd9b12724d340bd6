//! Texts longer than the cap (64 KiB) are cut by every reader, and the cut is told: one warning
//! per input file, naming the file, how many tests had a text cut and the first of them, on standard
//! error and in the report's `gapscore.warnings` (documented in docs/score.md).

use std::path::Path;

use serde_json::Value;

use crate::common::{json_of, run_in, stderr};

/// Well past the 64 KiB cap.
const BIG: usize = 200 * 1024;

/// Scores `file` in `dir` as JSON; the stderr lines that speak of a cut, and the report's.
fn cut_warnings(dir: &Path, file: &str) -> (Vec<String>, Vec<String>) {
    let out = run_in(dir, &["score", "--sealed", file, "--format", "json"]);
    let err = stderr(&out);
    let shown: Vec<String> = err
        .lines()
        .filter(|l| l.contains("cut"))
        .map(str::to_owned)
        .collect();
    let report: Value = json_of(&out);
    let kept: Vec<String> = report["gapscore"]["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("no warnings in the report; stderr: {err}"))
        .iter()
        .filter_map(Value::as_str)
        .filter(|w| w.contains("cut"))
        .map(str::to_owned)
        .collect();
    (shown, kept)
}

#[test]
fn go_test_json_with_a_huge_output_line_warns_once() {
    let dir = tempfile::tempdir().unwrap();
    let event = |action: &str, test: &str, output: Option<&str>| {
        let mut e =
            serde_json::json!({"Action": action, "Package": "example.com/pkg", "Test": test});
        if let Some(o) = output {
            e["Output"] = Value::from(o);
        }
        e.to_string()
    };
    let huge = format!("{}\n", "x".repeat(BIG));
    let lines = [
        event("run", "TestBig", None),
        event("output", "TestBig", Some(&huge)),
        event("output", "TestBig", Some("more after the cut\n")),
        event("fail", "TestBig", None),
        event("run", "TestHuge", None),
        event("output", "TestHuge", Some(&huge)),
        event("fail", "TestHuge", None),
        event("run", "TestSmall", None),
        event("output", "TestSmall", Some("small\n")),
        event("pass", "TestSmall", None),
        r#"{"Action":"fail","Package":"example.com/pkg"}"#.to_owned(),
    ];
    std::fs::write(dir.path().join("big.jsonl"), lines.join("\n") + "\n").unwrap();
    let (shown, kept) = cut_warnings(dir.path(), "big.jsonl");
    let want = "big.jsonl: 2 tests had text longer than 64 KiB, which was cut \
                (the first: test `example.com/pkg::TestBig` message and output)";
    assert_eq!(shown, [format!("warning: {want}")]);
    assert_eq!(kept, [want]);
}

#[test]
fn junit_with_a_huge_failure_body_warns_once() {
    let dir = tempfile::tempdir().unwrap();
    let xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="suite" tests="2" failures="1">
    <testcase classname="suite" name="big"><failure message="boom">{}</failure></testcase>
    <testcase classname="suite" name="fine"/>
  </testsuite>
</testsuites>
"#,
        "y".repeat(BIG)
    );
    std::fs::write(dir.path().join("huge.xml"), xml).unwrap();
    let (shown, kept) = cut_warnings(dir.path(), "huge.xml");
    let want = "huge.xml: 1 test had text longer than 64 KiB, which was cut \
                (test `suite::big` message)";
    assert_eq!(shown, [format!("warning: {want}")]);
    assert_eq!(kept, [want]);
}
