//! The attack on issue 36's build, fix F1: lines the implementation under test prints (into a
//! JUnit `<failure>`, pytest's captured output, a prove or go `-v` log) must not choose the
//! format a results file is read as. The format a runner declares on the file's head wins over
//! evidence found deeper (the host's head rule, `adapters/host/src/head.rs`). One test per
//! class of hijack; each file holds 3 tests, of which the runner reported the failures asserted.
//! Data: `cli/tests/data/attack36/` (see its README for the runners and commands).

use serde_json::Value;

use crate::common::{json_of, repo_path, run_in, stderr};

/// `score --sealed FILE` of one attack file: the report, after checking it was read as `format`
/// with `failed` of its 3 tests failing (the runner's own count).
fn scored_as(file: &str, format: &str, failed: u64) -> Value {
    let dir = repo_path("cli/tests/data/attack36");
    let o = run_in(&dir, &["score", "--sealed", file]);
    let r = json_of(&o);
    assert_eq!(
        r["gapscore"]["inputs"][0]["format"],
        format,
        "{file}: {}",
        stderr(&o)
    );
    assert_eq!(r["sealed_tests"]["total"], 3, "{file}: {r}");
    assert_eq!(r["sealed_tests"]["failed"], failed, "{file}: {r}");
    r
}

/// pytest's `--junitxml` with libtest or test2json lines from the implementation's source in
/// a `<failure>`: the XML declaration and `<testsuites>` on line 1 decide.
#[test]
fn f1_junit_with_printed_json_lines_is_read_as_junit() {
    scored_as("pytest-junit-libtest.xml", "junit-xml", 1);
    scored_as("pytest-junit-gotest.xml", "junit-xml", 1);
}

/// `pytest -v` console text with TAP, go `-v` or libtest lines in a failing test's captured
/// stdout: pytest's banner decides.
#[test]
fn f1_pytest_console_with_printed_lines_is_read_as_pytest_text() {
    for file in [
        "pytest-v-tap.txt",
        "pytest-v-gotext.txt",
        "pytest-v-libtest.txt",
    ] {
        scored_as(file, "pytest-text", 1);
    }
}

/// `prove -v` with libtest lines printed by the module under test: prove's `t/x.t ..` header and
/// plan decide.
#[test]
fn f1_prove_log_with_printed_lines_is_read_as_tap() {
    scored_as("prove-v-libtest.txt", "tap", 1);
}

/// `go test -v` with libtest lines printed by the code under test during a test: go's `=== RUN`
/// decides.
#[test]
fn f1_go_v_log_with_printed_lines_is_read_as_go_text() {
    scored_as("go-v-libtest.txt", "go-test-text", 2);
}

/// `gapscore adapters --explain` says when the head rule decided.
#[test]
fn f1_explain_names_the_head_rule() {
    let dir = repo_path("cli/tests/data/attack36");
    let o = run_in(&dir, &["adapters", "--explain", "pytest-junit-libtest.xml"]);
    let out = crate::common::stdout(&o);
    assert!(out.contains("head rule"), "{out}");
}
