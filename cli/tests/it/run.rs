//! `gapscore run` through the real binary (issue 19), with scripted stand-in runners: small `sh`
//! scripts written into a temporary directory that write a result file and exit with a chosen
//! status, sleep, kill themselves, write nothing or edit the sealed tests; and real runners where
//! installed (pytest, `node --test`). The assertions rest only on the exit status, signal,
//! time limit and freshness rules, never on which failure lines the recognisers know.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{code, json_of, run_in, stderr};

const PASSING: &str =
    r#"{"tests":[{"name":"a","status":"passed"},{"name":"b","status":"passed"}]}"#;

/// A project with a sealed directory, its seal record and a script `run.sh`.
fn project(script: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::create_dir(p.join("sealed")).unwrap();
    fs::write(
        p.join("sealed/test_a.py"),
        "def test_a():\n    assert 1 + 1 == 2\n",
    )
    .unwrap();
    let o = run_in(p, &["seal", "sealed", "-o", "seal.json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    fs::write(p.join("run.sh"), script).unwrap();
    dir
}

/// `gapscore run --seal seal.json --sealed-dir sealed EXTRA -- sh run.sh`.
fn run(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["run", "--seal", "seal.json", "--sealed-dir", "sealed"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "sh", "run.sh"]);
    run_in(dir, &args)
}

fn problems(report: &Value) -> Vec<String> {
    report["gapscore"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap().to_owned())
        .collect()
}

fn problem_detail(report: &Value, kind: &str) -> String {
    report["gapscore"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == kind)
        .map(|p| p["detail"].as_str().unwrap().to_owned())
        .unwrap_or_else(|| panic!("no {kind} problem in {report}"))
}

#[test]
fn a_build_failure_absent_from_the_results_is_caught_by_the_exit_status() {
    // gotestsum's JUnit leaves out a package that failed to build: the file says all passed.
    let dir = project(&format!(
        "echo '{PASSING}' > results.json\necho '# example.com/pkg/parser' >&2\necho 'parser.go:3:5: undefined: tokenize' >&2\nexit 2\n"
    ));
    let o = run(dir.path(), &["--results", "results.json"]);
    // Advisory: a run that did not fully run exits 1 without --threshold too (issue 35).
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json_of(&o);
    assert!(problems(&r).contains(&"runner-failed".to_owned()), "{r}");
    let detail = problem_detail(&r, "runner-failed");
    assert!(detail.contains("exited with status 2"), "{detail}");
    assert!(detail.contains("undefined: tokenize"), "{detail}");
    assert_eq!(r["report"]["advisory"], true);
    assert_eq!(r["gapscore"]["runner"]["exit_code"], 2);
    assert!(r["sealed_tests"]["failed"].as_u64().unwrap() >= 1);
    // Under a threshold the advisory report fails the gate, whatever its score.
    let o = run(
        dir.path(),
        &["--results", "results.json", "--threshold", "50"],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
}

#[test]
fn failing_results_with_a_failing_status_are_not_a_runner_problem() {
    let dir = project(
        "echo '{\"tests\":[{\"name\":\"a\",\"status\":\"passed\"},{\"name\":\"b\",\"status\":\"failed\"}]}' > results.json\nexit 1\n",
    );
    let r = json_of(&run(dir.path(), &["--results", "results.json"]));
    assert!(!problems(&r).contains(&"runner-failed".to_owned()), "{r}");
    assert_eq!(r["report"]["shadow_score"], 50.0);
}

#[test]
fn a_killed_runner_is_a_killed_problem() {
    let dir = project(&format!("echo '{PASSING}' > results.json\nkill -9 $$\n"));
    let o = run(dir.path(), &["--results", "results.json"]);
    let r = json_of(&o);
    assert!(problems(&r).contains(&"killed".to_owned()), "{r}");
    assert!(problem_detail(&r, "killed").contains("SIGKILL"));
    assert_eq!(r["gapscore"]["runner"]["signal"], "SIGKILL");
    assert!(r["gapscore"]["runner"].get("exit_code").is_none());
    assert!(
        stderr(&o).contains("was killed by SIGKILL"),
        "{}",
        stderr(&o)
    );
}

/// Whether any process still has `marker` on its command line.
fn any_process_with(marker: &str) -> bool {
    let out = Command::new("ps").args(["-eo", "args"]).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l.contains(marker) && !l.contains("ps -eo"))
}

#[test]
fn a_timeout_ends_the_whole_process_group() {
    // A child in the background and one in the foreground, both in the command's group.
    let dir = project(&format!(
        "echo '{PASSING}' > results.json\nsleep 30.5 &\nsleep 30\n"
    ));
    let started = std::time::Instant::now();
    let o = run(dir.path(), &["--results", "results.json", "--timeout", "1"]);
    assert!(started.elapsed().as_secs() < 15, "{:?}", started.elapsed());
    let r = json_of(&o);
    assert!(problems(&r).contains(&"timeout".to_owned()), "{r}");
    assert_eq!(r["gapscore"]["runner"]["timed_out"], true);
    assert!(
        !any_process_with("sleep 30.5"),
        "a sleep of the group survived"
    );
}

#[test]
fn stale_results_are_a_problem_and_not_scored() {
    let dir = project("exit 0\n");
    let p = dir.path();
    // An earlier run's file, with one failure; this run writes nothing.
    fs::write(
        p.join("results.json"),
        r#"{"tests":[{"name":"old","status":"failed"}]}"#,
    )
    .unwrap();
    let t = Command::new("touch")
        .args(["-t", "202001010000", "results.json"])
        .current_dir(p)
        .status()
        .unwrap();
    assert!(t.success());
    let o = run(p, &["--results", "results.json"]);
    let r = json_of(&o);
    assert_eq!(problems(&r), ["missing-results"], "{r}");
    // Stale by its 2020 mtime, or (the copy's mtime is the copy's, after the run's start
    // stamp) by being the very file that was there before the run.
    assert!(problem_detail(&r, "missing-results").contains("an earlier run's results"));
    assert_eq!(r["gapscore"]["runner"]["results"][0]["freshness"], "stale");
    assert!(
        r["gapscore"]["inputs"].as_array().unwrap().is_empty(),
        "{r}"
    );
    // The old file's failing test is not this run's.
    assert!(!r.to_string().contains("\"old\""), "{r}");
    assert!(
        stderr(&o).contains("an earlier run's results"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn missing_results_are_a_problem() {
    let dir = project("exit 0\n");
    let o = run(
        dir.path(),
        &["--results", "results.json", "--threshold", "100"],
    );
    assert_eq!(code(&o), 1, "advisory fails the gate: {}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(problems(&r), ["missing-results"], "{r}");
    assert_eq!(
        r["gapscore"]["runner"]["results"][0]["freshness"],
        "missing"
    );
    assert_eq!(r["report"]["shadow_score"], 100.0);
}

#[test]
fn a_sealed_file_changed_during_the_run_breaks_the_seal() {
    let dir = project(&format!(
        "echo '{PASSING}' > results.json\nchmod u+w sealed/test_a.py\necho 'def test_a(): pass' > sealed/test_a.py\n"
    ));
    // Without a sandbox (under one the sealed tests cannot be written: run_sandbox.rs).
    let o = run(
        dir.path(),
        &["--results", "results.json", "--sandbox", "none"],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert!(
        err.contains("the sealed tests changed during the run"),
        "{err}"
    );
    assert!(
        err.contains("refusing to score against a broken seal"),
        "{err}"
    );
}

#[test]
fn a_broken_seal_or_unhashed_files_refuse_the_start() {
    let dir = project("touch ran\n");
    let p = dir.path();
    fs::write(p.join("sealed/test_a.py"), "def test_a(): pass\n").unwrap();
    let o = run(p, &["--results", "x.json"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("refusing to run against a broken seal"));
    assert!(!p.join("ran").exists(), "the command ran");

    let dir = project("touch ran\n");
    let p = dir.path();
    fs::create_dir(p.join("sealed/__pycache__")).unwrap();
    fs::write(
        p.join("sealed/__pycache__/test_a.cpython-312.pyc"),
        "planted",
    )
    .unwrap();
    let sealed = run_in(
        p,
        &[
            "seal",
            "sealed",
            "--exclude",
            "__pycache__",
            "-o",
            "seal.json",
        ],
    );
    assert_eq!(code(&sealed), 0);
    let o = run(p, &["--results", "x.json"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("refusing to start"), "{}", stderr(&o));
    assert!(!p.join("ran").exists(), "the command ran");
}

/// The report without `gapscore.runner` and with its timestamp fixed.
fn without_runner(mut r: Value) -> Value {
    r["gapscore"].as_object_mut().unwrap().remove("runner");
    r
}

#[test]
fn a_clean_passing_run_reports_as_score_does() {
    let dir = project(&format!("echo '{PASSING}' > results.json\n"));
    let p = dir.path();
    // The default workspace is a copy, deleted afterwards: the result file is read there.
    let copied = run(p, &["--results", "results.json", "--threshold", "0"]);
    assert_eq!(code(&copied), 0, "{}", stderr(&copied));
    assert!(!p.join("results.json").exists(), "the copy's output leaked");
    assert_eq!(json_of(&copied)["gapscore"]["runner"]["isolation"], "copy");
    // In place, the result file stays for `score` to read.
    let ran = run(
        p,
        &[
            "--workspace",
            "inplace",
            "--results",
            "results.json",
            "--threshold",
            "0",
        ],
    );
    assert_eq!(code(&ran), 0, "{}", stderr(&ran));
    assert_eq!(
        without_runner(json_of(&copied)),
        without_runner(json_of(&ran))
    );
    let scored = run_in(
        p,
        &[
            "score",
            "--seal",
            "seal.json",
            "--sealed-dir",
            "sealed",
            "--sealed",
            "results.json",
            "--threshold",
            "0",
        ],
    );
    assert_eq!(code(&scored), 0, "{}", stderr(&scored));
    let r = json_of(&ran);
    assert_eq!(r["gapscore"]["runner"]["results"][0]["freshness"], "fresh");
    assert_eq!(r["gapscore"]["runner"]["exit_code"], 0);
    assert_eq!(without_runner(r.clone()), json_of(&scored));
    assert!(r["report"].get("advisory").is_none(), "{r}");

    // And it passes `gapscore check` at its level.
    fs::write(p.join("report.json"), serde_json::to_string(&r).unwrap()).unwrap();
    let c = run_in(
        p,
        &[
            "check",
            "--level",
            "2",
            "--seal",
            "seal.json",
            "--sealed-dir",
            "sealed",
            "report.json",
        ],
    );
    assert_eq!(code(&c), 0, "{}", crate::common::stdout(&c));
}

#[test]
fn an_unstartable_command_is_an_error() {
    let dir = project("");
    let o = run_in(
        dir.path(),
        &["run", "--results", "r.json", "--", "/nonexistent/runner"],
    );
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("cannot run `/nonexistent/runner`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn node_test_tap_on_standard_output() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("note: node is not installed; skipping the node --test run");
        return;
    }
    let dir = project("");
    let p = dir.path();
    fs::write(
        p.join("math.test.js"),
        "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => assert.strictEqual(1 + 1, 2));\ntest('subtracts', () => assert.strictEqual(2 - 1, 0));\n",
    )
    .unwrap();
    let o = run_in(
        p,
        &[
            "run",
            "--seal",
            "seal.json",
            "--sealed-dir",
            "sealed",
            "--results",
            "-",
            "--",
            "node",
            "--test",
            "--test-reporter=tap",
            "math.test.js",
        ],
    );
    let r = json_of(&o);
    assert_eq!(r["sealed_tests"]["total"], 2, "{r}");
    assert_eq!(r["sealed_tests"]["failed"], 1, "{r}");
    // node exits 1 and the TAP shows the failure: no runner-failed.
    assert!(!problems(&r).contains(&"runner-failed".to_owned()), "{r}");
    assert_eq!(r["gapscore"]["runner"]["results"][0]["path"], "-");
    assert_eq!(r["gapscore"]["inputs"][0]["path"], "-");
}

/// A failing `after` hook fails its file under the file's own name, which no seal record
/// lists: under an expected-tests seal it is counted as failed, never dropped as an unlisted
/// result (a real node run; found by an attack on the build, issue 30).
#[test]
fn a_failure_under_a_name_the_seal_does_not_list_is_counted() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("note: node is not installed; skipping the node --test run");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::create_dir(p.join("sealed")).unwrap();
    fs::write(
        p.join("sealed/a.test.js"),
        "const { test, after } = require('node:test');\nconst assert = require('node:assert');\nconst impl = require('../impl.js');\nafter(() => assert.strictEqual(impl.leaks(), 0, 'leaked'));\ntest('t1', () => assert.strictEqual(impl.add(1, 2), 3));\ntest('t2', () => assert.strictEqual(impl.add(2, 2), 4));\n",
    )
    .unwrap();
    fs::write(
        p.join("stub.tap"),
        "TAP version 13\nok 1 - t1\nok 2 - t2\n1..2\n",
    )
    .unwrap();
    let o = run_in(
        p,
        &["seal", "sealed", "--expect", "stub.tap", "-o", "seal.json"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    fs::write(
        p.join("impl.js"),
        "module.exports = { add: (a, b) => a + b, leaks: () => 3 };\n",
    )
    .unwrap();
    let o = run_in(
        p,
        &[
            "run",
            "--seal",
            "seal.json",
            "--sealed-dir",
            "sealed",
            "--results",
            "-",
            "--threshold",
            "15",
            "--",
            "node",
            "--test",
            "--test-reporter=tap",
            "sealed",
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json_of(&o);
    // The hook's failure is counted, and since a result the seal does not list never explains
    // a failing exit status (issue 32: forged results could), node's exit 1 is a
    // `runner-failed` problem too: 2 of 4.
    assert_eq!(r["sealed_tests"]["total"], 4, "{r}");
    assert_eq!(r["sealed_tests"]["failed"], 2, "{r}");
    let kinds: Vec<&str> = r["gapscore"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["runner-failed"], "{r}");
    let unlisted = r["gapscore"]["manifest"]["unexpected_failed"]
        .as_array()
        .unwrap();
    assert!(
        unlisted.len() == 1 && unlisted[0].as_str().unwrap().ends_with("a.test.js"),
        "{r}"
    );
}

#[test]
fn pytest_junit_with_a_collection_error() {
    let ok = Command::new("python3")
        .args(["-m", "pytest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("note: python3 -m pytest is not available; skipping the pytest run");
        return;
    }
    let dir = project("");
    let p = dir.path();
    fs::write(p.join("sealed/test_b.py"), "import nonexistent_module\n").unwrap();
    // Python writes bytecode beside the tests it imports: the seal leaves it out.
    let sealed = run_in(
        p,
        &[
            "seal",
            "sealed",
            "--exclude",
            "__pycache__",
            "-o",
            "seal.json",
        ],
    );
    assert_eq!(code(&sealed), 0);
    let o = run_in(
        p,
        &[
            "run",
            "--seal",
            "seal.json",
            "--sealed-dir",
            "sealed",
            "--workspace",
            "inplace",
            "--results",
            "junit.xml",
            "--",
            "python3",
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--junitxml=junit.xml",
            "sealed",
        ],
    );
    let r = json_of(&o);
    assert!(r["sealed_tests"]["failed"].as_u64().unwrap() >= 1, "{r}");
    assert_eq!(r["gapscore"]["runner"]["exit_code"], 2, "{r}");
}

#[test]
fn ctrl_c_is_passed_on_and_reported_as_interrupted() {
    let dir = project(&format!("echo '{PASSING}' > results.json\nsleep 30\n"));
    let child = Command::new(crate::common::BIN)
        .args(["run", "--results", "results.json", "--", "sh", "run.sh"])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let k = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(k.success());
    let o = child.wait_with_output().unwrap();
    let r = json_of(&o);
    assert!(problems(&r).contains(&"interrupted".to_owned()), "{r}");
    assert_eq!(r["gapscore"]["runner"]["interrupted"], true);
}

/// The real stderr of `jest --ci --reporters=jest-junit` on a project whose `broken.test.js`
/// has a syntax error (runner/tests/fixtures/recognise/jest/, provenance in its README); the
/// stand-in prints its first 12 lines, which end with the code frame quoting the sealed test.
const JEST_SYNTAX_STDERR: &str =
    include_str!("../../../runner/tests/fixtures/recognise/jest/junit-syntaxerror.stderr.txt");

/// jest-junit with its defaults leaves out a test file that failed to run: the XML holds only
/// the passing tests. The runner's own line ("● Test suite failed to run") is a `suite-error`,
/// and the sealed test source Jest quotes beside it never reaches the report.
#[test]
fn the_silent_jest_junit_suite_is_caught_and_its_quoted_source_scrubbed() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::create_dir(p.join("sealed")).unwrap();
    // The sealed test Jest quotes in its error (line 4 of broken.test.js).
    fs::write(
        p.join("sealed/broken.test.js"),
        "const { add } = require('../add');\n\ntest('never collected', () => {\n  expect(add(1, 1)).toBe(2;\n});\n",
    )
    .unwrap();
    assert_eq!(code(&run_in(p, &["seal", "sealed", "-o", "seal.json"])), 0);
    fs::write(p.join("stderr.txt"), JEST_SYNTAX_STDERR).unwrap();
    fs::write(
        p.join("run.sh"),
        "cat > junit.xml <<'X'\n<testsuites name=\"jest tests\" tests=\"1\" failures=\"0\" errors=\"0\"><testsuite name=\"add\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\"><testcase classname=\"add adds\" name=\"add adds\" time=\"0.001\"/></testsuite></testsuites>\nX\nhead -n 12 stderr.txt >&2\nexit 1\n",
    )
    .unwrap();
    let o = run(p, &["--results", "junit.xml", "--threshold", "50"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json_of(&o);
    assert!(problems(&r).contains(&"suite-error".to_owned()), "{r}");
    assert!(
        problem_detail(&r, "suite-error").contains("Test suite failed to run"),
        "{r}"
    );
    assert_eq!(r["report"]["advisory"], true);
    let text = serde_json::to_string(&r).unwrap();
    assert!(
        !text.contains("toBe(2;"),
        "sealed source in the report: {text}"
    );
}

/// An implementer's `conftest.py` in the project root that rewrites every report to passed: run
/// by hand, the failing sealed test reads passed; through `gapscore run` (in place and in the
/// copy) pytest is confined to the sealed directory's own configuration and the test fails.
#[test]
fn a_root_conftest_that_rewrites_reports_is_neutralised() {
    let ok = Command::new("python3")
        .args(["-m", "pytest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("note: python3 -m pytest is not available; skipping the pytest run");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::create_dir(p.join("sealed")).unwrap();
    fs::write(
        p.join("sealed/test_spec.py"),
        "def test_adds():\n    assert 1 + 1 == 3\n\ndef test_holds():\n    assert True\n",
    )
    .unwrap();
    fs::write(
        p.join("conftest.py"),
        "import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    report = outcome.get_result()\n    report.outcome = 'passed'\n    report.longrepr = None\n",
    )
    .unwrap();
    assert_eq!(code(&run_in(p, &["seal", "sealed", "-o", "seal.json"])), 0);
    let pytest = ["python3", "-m", "pytest", "sealed", "--junitxml=junit.xml"];
    // The door is real: run by hand, with bytecode off so the seal still holds.
    let by_hand = Command::new(pytest[0])
        .args(&pytest[1..])
        .args(["-p", "no:cacheprovider"])
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(p)
        .output()
        .unwrap();
    assert!(by_hand.status.success(), "{by_hand:?}");
    let scored = run_in(p, &["score", "--sealed", "junit.xml"]);
    assert_eq!(json_of(&scored)["sealed_tests"]["failed"], 0);
    fs::remove_file(p.join("junit.xml")).unwrap();

    for workspace in ["inplace", "copy"] {
        let mut args = vec![
            "run",
            "--seal",
            "seal.json",
            "--sealed-dir",
            "sealed",
            "--workspace",
            workspace,
            "--results",
            "junit.xml",
            "--",
        ];
        args.extend_from_slice(&pytest);
        let o = run_in(p, &args);
        let r = json_of(&o);
        assert_eq!(
            r["sealed_tests"],
            serde_json::json!({"total": 2, "passed": 1, "failed": 1}),
            "{workspace}: {r}\n{}",
            stderr(&o)
        );
        assert_eq!(r["gapscore"]["runner"]["exit_code"], 1, "{workspace}: {r}");
    }
}
