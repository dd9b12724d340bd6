//! `gapscore check`'s text: what bears on the verdict by default and everything under
//! `--verbose`; findings located as `line:col` beside their JSON pointer; enum errors listing
//! every allowed value; no "attested" verdict beside an error about the same field; gapscore's
//! own Markdown report recognised as gapscore's.

use std::fs;

use crate::common::{code, repo_path, run_in, stderr, stdout};

/// A v1 report with a level outside the enum (line 7) and a malformed sealed hash (line 8).
const REPORT: &str = r#"{
  "shadow_score_spec_version": "1.0.0",
  "report": {
    "id": "run-1",
    "timestamp": "2026-03-01T12:00:00Z",
    "specification": "PRD.md",
    "shadow_score": 6.2, "level": "tiny",
    "sealed_hash": "sha256:nothex"
  },
  "sealed_tests": { "total": 16, "passed": 15, "failed": 1 },
  "failures": [{
    "test_name": "test_login",
    "category": "security",
    "expected": "exit code 0",
    "actual": "exit code 1",
    "message": "login rejected"
  }]
}
"#;

#[test]
fn default_text_is_the_verdict_and_verbose_is_everything() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("r.json"), REPORT).unwrap();
    let o = run_in(tmp.path(), &["check", "r.json", "--level", "2"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = stdout(&o);
    // The enum error, every allowed value, located.
    assert!(
        text.contains(
            r#"at /report/level (7:26): shadow-v1: "tiny" is not one of "perfect", "minor", "moderate", "significant" or "critical""#
        ),
        "{text}"
    );
    assert!(!text.contains("other candidates"), "{text}");
    // Only failed requirements and errors; the rest counted.
    assert!(!text.contains("verified"), "{text}");
    assert!(text.contains("not shown: "), "{text}");
    assert!(text.contains("--verbose lists them"), "{text}");
    let verbose = stdout(&run_in(
        tmp.path(),
        &["check", "r.json", "--level", "2", "-v"],
    ));
    assert!(verbose.contains("verified"), "{verbose}");
    assert!(!verbose.contains("not shown: "), "{verbose}");
    assert!(verbose.len() > text.len());
    // An error at /report/sealed_hash: no "attested" verdict on the hash beside it.
    assert!(
        verbose.contains("at /report/sealed_hash (8:5)"),
        "{verbose}"
    );
    assert!(
        !verbose
            .lines()
            .any(|l| l.contains("attested") && l.contains("sealed hash")),
        "{verbose}"
    );
    // JSON carries the location too.
    let o = run_in(tmp.path(), &["check", "r.json", "--format", "json"]);
    let out: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let level = out["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["pointer"] == "/report/level")
        .unwrap();
    assert_eq!(
        (level["line"].clone(), level["column"].clone()),
        (7.into(), 26.into())
    );
    assert!(gapscore_check::validate_output(&out).unwrap().is_empty());
}

#[test]
fn gapscores_own_markdown_is_named_as_gapscores() {
    let tmp = tempfile::tempdir().unwrap();
    let sealed = repo_path("conformance-tests/upstream/examples/02-minor-gaps/sealed-results.json");
    let o = run_in(
        tmp.path(),
        &[
            "score",
            "--sealed",
            sealed.to_str().unwrap(),
            "--format",
            "markdown",
            "-o",
            "r.md",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run_in(tmp.path(), &["check", "r.md"]);
    assert_eq!(code(&o), 1);
    let text = stdout(&o);
    assert!(
        text.contains("not a Gap Report: Markdown report (gapscore)"),
        "{text}"
    );
    assert!(text.contains("--format json"), "{text}");
    assert!(!text.contains("Dark Factory"), "{text}");
}
