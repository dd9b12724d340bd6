//! Issue 35, the items of the `mocha` part (see `round2/mod.rs`): Mocha's JSON reporter read
//! as a built-in format and the simple format claiming only its own shape (item 11); feedback
//! for `node --test`'s JUnit and `adapters --format json` (item 12).

use crate::common::{self, code, json_of, repo_path, run_in, stderr, stdout};

fn mocha_fixture(case: &str) -> String {
    repo_path(&format!("adapters/mocha/tests/fixtures/real/{case}.json"))
        .display()
        .to_string()
}

/// Before: `missing field 'name' (simple adapter)`, exit 2. After: read as `mocha-json`, every
/// entry of `tests` a test, a pass after a retry flaky, the failure's expected/actual kept.
#[test]
fn item11_mocha_json_is_read_as_its_own_format() {
    let dir = tempfile::tempdir().unwrap();
    let file = mocha_fixture("basic");
    let o = run_in(dir.path(), &["parse", &file]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let runs = json_of(&o);
    let run = &runs[0];
    assert_eq!(run["format"], "mocha-json", "{run}");
    let tests = run["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 10);
    let sub = tests.iter().find(|t| t["name"] == "subtracts").unwrap();
    assert_eq!(
        (&sub["status"], &sub["expected"], &sub["actual"]),
        (&"failed".into(), &"3".into(), &"2".into())
    );
    let flaky = tests
        .iter()
        .find(|t| t["name"] == "passes on the second try")
        .unwrap();
    assert_eq!(flaky["attempts"][0]["status"], "failed", "{flaky}");

    let o = run_in(
        dir.path(),
        &["score", "--sealed", &file, "--format", "summary"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("simple adapter"), "{}", stderr(&o));
    assert!(stdout(&o).contains("/10 passed"), "{}", stdout(&o));
}

/// A failing `before`/`beforeEach`/`after` hook is listed in `failures` only: a suite error of
/// its describe block (the report advisory), never a test and never dropped.
#[test]
fn item11_mocha_failing_hooks_are_suite_errors() {
    let dir = tempfile::tempdir().unwrap();
    let o = run_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            &mocha_fixture("hooks"),
            "--format",
            "json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let report = json_of(&o);
    let text = report.to_string();
    assert!(text.contains("hooks.spec.js > db"), "{text}");
    assert!(
        text.contains("\"before each\\\" hook for \\\"evicts\\\""),
        "{text}"
    );
    assert_eq!(report["report"]["advisory"], true, "{text}");
}

/// `simple` claims only its own shape: a JSON object with a `tests` array of another shape is
/// "no adapter recognises this file", naming the file, not a parse error of `simple`.
#[test]
fn item11_simple_does_not_claim_another_formats_tests() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("other.json"),
        r#"{"tests": [{"title": "adds", "ok": true}], "meta": {"tool": "x"}}"#,
    )
    .unwrap();
    let o = run_in(dir.path(), &["score", "--sealed", "other.json"]);
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    assert!(err.contains("other.json"), "{err}");
    assert!(err.contains("no adapter recognises this file"), "{err}");
    assert!(!err.contains("simple adapter"), "{err}");
}

/// Before: every line of Node's inspected error, runner frames included. After: `name:
/// expected X, got Y`, the assertion's message and the one frame where it failed.
#[test]
fn item12_feedback_text_of_node_junit_says_expected_and_got() {
    let dir = tempfile::tempdir().unwrap();
    let file = repo_path("cli/tests/data/node-junit-feedback/junit.xml");
    let o = run_in(
        dir.path(),
        &["feedback", "--format", "text", file.to_str().unwrap()],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("subtracts: expected 3, got 2\n"), "{out}");
    assert!(
        out.contains("compares objects: expected { a: 2 }, got { a: 1 }\n"),
        "{out}"
    );
    assert!(out.contains("calc.test.js:4:34"), "{out}");
    assert!(!out.contains("processPendingSubtests"), "{out}");
    assert!(!out.contains("ERR_TEST_FAILURE"), "{out}");
}

/// `adapters --format json`: one object with a version and each adapter's stable fields.
#[test]
fn item12_adapters_lists_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(common::bin())
        .args(["adapters", "--format", "json"])
        .current_dir(dir.path())
        .env_remove("GAPSCORE_PLUGIN_PATH")
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let list = json_of(&o);
    assert_eq!(list["version"], 1);
    let adapters = list["adapters"].as_array().unwrap();
    let junit = adapters.iter().find(|a| a["name"] == "junit").unwrap();
    assert_eq!(junit["formats"], serde_json::json!(["junit-xml"]));
    assert_eq!(junit["origin"], "built-in");
    assert!(junit["path"].is_null());
    assert!(junit["version"].is_string());
    assert!(adapters.iter().any(|a| a["name"] == "mocha"));
}
