//! `gapscore parse` and `gapscore adapters`, end to end.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gapscore_schema::{SchemaId, validate};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_gapscore");

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters/simple/tests/fixtures")
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("GAPSCORE_PLUGIN_PATH")
        .output()
        .unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn parse_prints_canonical_runs_that_match_the_results_schema() {
    let a = fixtures().join("valid/all-statuses.json");
    let b = fixtures().join("valid/problems.json");
    // problems.json declares a truncated input: allowed here; that exit code is tested below.
    let o = run(&["parse", s(&a), s(&b), "--allow-truncated"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let runs: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["format"], "simple");
    assert_eq!(runs[0]["source"], s(&a));
    assert_eq!(runs[0]["tests"][3]["suite"], Value::Null);
    assert_eq!(runs[0]["tests"][3]["name"], "skips");
    assert_eq!(runs[0]["tests"][3]["status"], "skipped");
    assert_eq!(runs[1]["problems"][0]["kind"], "build-failure");
    assert!(runs[1]["problems"][0]["detail"].is_string());
    for r in &runs {
        assert_eq!(validate(SchemaId::Results, r).unwrap(), vec![]);
    }
}

#[test]
fn parse_reports_bad_files_and_still_prints_the_good_ones() {
    let good = fixtures().join("valid/reference-example.json");
    let bad = fixtures().join("invalid/unknown-status.json");
    let o = run(&["parse", s(&good), s(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    let runs: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(runs.len(), 1);
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains(&format!("error: {}:3:35: unknown status `broken`", s(&bad))),
        "{err}"
    );
}

#[test]
fn parse_writes_ctrf() {
    let a = fixtures().join("valid/all-statuses.json");
    let o = run(&["parse", s(&a), "--format", "ctrf"]);
    assert_eq!(o.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["reportFormat"], "CTRF");
    let summary = &doc["results"]["summary"];
    assert_eq!(summary["tests"], 7);
    assert_eq!(summary["failed"], 2);
    assert_eq!(summary["pending"], 1);
    assert_eq!(summary["other"], 1);
    assert_eq!(
        doc["results"]["tests"][2]["extra"]["gapscore_status"],
        "errored"
    );
}

#[test]
fn a_thousand_files_give_identical_output_with_one_or_two_jobs() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..1000 {
        let tests: Vec<String> = (0..(i % 9))
            .map(|k| {
                let status = ["passed", "failed", "skipped"][(i + k) % 3];
                format!(r#"{{"name":"t{i}_{k}","status":"{status}","message":"m{k}"}}"#)
            })
            .collect();
        fs::write(
            dir.path().join(format!("r{i:04}.json")),
            format!(r#"{{"tests":[{}]}}"#, tests.join(",")),
        )
        .unwrap();
    }
    let one = run(&["parse", s(dir.path()), "--jobs", "1"]);
    let two = run(&["parse", s(dir.path()), "--jobs", "2"]);
    assert_eq!(one.status.code(), Some(0));
    assert_eq!(two.status.code(), Some(0));
    assert_eq!(
        one.stdout, two.stdout,
        "output differs between --jobs 1 and --jobs 2"
    );
    let runs: Vec<Value> = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(runs.len(), 1000);
    assert!(
        runs[999]["source"]
            .as_str()
            .unwrap()
            .ends_with("r0999.json")
    );

    // Scoring the same directory is identical across thread counts too.
    let score = |jobs: &str| {
        Command::new(BIN)
            .args([
                "score",
                "--sealed",
                s(dir.path()),
                "--jobs",
                jobs,
                "--format",
                "json",
            ])
            .env("SOURCE_DATE_EPOCH", "0")
            .output()
            .unwrap()
    };
    let (a, b) = (score("1"), score("2"));
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(a.stdout, b.stdout);
    let report: Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(report["sealed_tests"]["total"], 3996);
}

#[test]
fn jobs_must_be_positive() {
    let a = fixtures().join("valid/all-statuses.json");
    assert_eq!(run(&["parse", s(&a), "--jobs", "0"]).status.code(), Some(2));
}

#[test]
fn adapters_lists_the_built_ins() {
    let o = run(&["adapters"]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("NAME"), "{text}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("simple ") && l.contains("simple") && l.ends_with("built-in")),
        "{text}"
    );
}

#[test]
fn a_broken_plugin_is_reported_and_the_rest_still_works() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join(format!(
        "{}gapscore_adapter_fake{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    fs::write(&fake, "garbage").unwrap();
    let o = run(&["adapters", "--plugin-dir", s(dir.path())]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains(&format!("error: plugin `{}`: cannot load:", s(&fake))),
        "{err}"
    );
    assert!(String::from_utf8(o.stdout).unwrap().contains("simple"));

    // Through the environment as well, set on the child process only.
    let o = Command::new(BIN)
        .args(["parse", s(&fixtures().join("valid/bom.json"))])
        .env("GAPSCORE_PLUGIN_PATH", dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let runs: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        runs.len(),
        1,
        "the file is still read by the built-in adapter"
    );
}

fn junit(kind: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../adapters/junit/tests/fixtures")
        .join(kind)
        .join(name)
}

#[test]
fn streamed_junit_errors_still_name_line_and_column() {
    let bad = junit("invalid", "mismatched-end-tag.xml");
    let o = run(&["parse", s(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains(&format!("error: {}:4:3: ill-formed document", s(&bad))),
        "{err}"
    );
}

#[test]
fn a_truncated_junit_file_keeps_its_complete_tests_and_is_never_clean() {
    let cut = junit("valid", "truncated-mid-testcase.xml");
    // The report is written and is advisory; the cut file is named. `--allow-truncated` is
    // retired for `score` (accepted with a warning, same report).
    let o = Command::new(BIN)
        .args(["score", "--sealed", s(&cut)])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stderr).contains(s(&cut)));
    let plain: Value = serde_json::from_slice(&o.stdout).unwrap();
    let o = Command::new(BIN)
        .args(["score", "--sealed", s(&cut), "--threshold", "100"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "an advisory report fails the gate"
    );
    let o = Command::new(BIN)
        .args(["score", "--sealed", s(&cut), "--allow-truncated"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--allow-truncated is retired"));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(plain["sealed_tests"], r["sealed_tests"]);
    let p = run(&["parse", s(&cut)]);
    assert_eq!(p.status.code(), Some(2));
    assert_eq!(
        run(&["parse", s(&cut), "--allow-truncated"]).status.code(),
        Some(0)
    );
    // Two complete testcases (one failing) plus one entry for the cut.
    assert_eq!(r["sealed_tests"]["total"], 3);
    assert_eq!(r["sealed_tests"]["failed"], 2);
    assert_eq!(r["report"]["advisory"], true);
    assert_eq!(r["failures"][1]["problem"], "truncated");
}
