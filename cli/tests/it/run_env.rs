//! `gapscore run`'s default-deny environment and where the runner resolves (issue 32), with real
//! runners (pytest 9.2 through `python3 -m pytest`, prove, npx): the issue's attacks (a planted
//! `pygments/` under `python3 -m pytest`, `lib/Test/More.pm` under `prove -l`, `npx jest`
//! resolving to the project's `node_modules/.bin`, `PYTHONPATH` + `sitecustomize.py` and
//! `PERL5LIB` in gapscore's environment) are refused or have no effect, and honest runs still
//! score what they deserve.
//!
//! A runner that is not installed skips its test with a note, unless `GAPSCORE_REQUIRE_RUNNERS`
//! is set (`.ci/run` sets it), when it fails.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::gate::sealed;
use crate::common::{BIN, code, json_of, run_in, runner_available as available, stderr};

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// A Python project: `impl.py` at the root and sealed tests importing it, one failing when
/// `failing`; sealed.
fn python_project(failing: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(p, "impl.py", "def add(a, b):\n    return a + b\n");
    let expected = if failing { 3 } else { 2 };
    write(
        p,
        "sealed/test_add.py",
        &format!(
            "import impl\n\ndef test_add():\n    assert impl.add(1, 2) == 3\n\ndef test_twice():\n    assert impl.add(1, 1) == {expected}\n"
        ),
    );
    let o = run_in(p, &["seal", "sealed", "-o", "seal.json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    dir
}

/// `gapscore run --seal seal.json --sealed-dir sealed --results FILE EXTRA -- COMMAND`, with
/// `env` added to gapscore's own environment.
fn run_with(
    dir: &Path,
    results: &str,
    extra: &[&str],
    command: &[&str],
    env: &[(&str, &str)],
) -> Output {
    let mut args = vec![
        "run",
        "--seal",
        "seal.json",
        "--sealed-dir",
        "sealed",
        "--results",
        results,
    ];
    args.extend_from_slice(extra);
    args.push("--");
    args.extend_from_slice(command);
    Command::new(BIN)
        .args(&args)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

const PYTEST: &[&str] = &["python3", "-m", "pytest", "sealed", "--junitxml=junit.xml"];

fn refused(o: &Output, naming: &str) {
    let err = stderr(o);
    assert_eq!(code(o), 2, "{err}");
    assert!(
        err.contains(
            "refusing to run: the runner or its framework would be loaded from the workspace"
        ) && err.contains(naming),
        "{err}"
    );
}

fn notes(r: &Value) -> Vec<String> {
    r["gapscore"]["runner"]["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn an_honest_python_m_pytest_run_imports_the_implementation_and_scores_all() {
    if !available("python3", &["-m", "pytest", "--version"]) {
        return;
    }
    let dir = python_project(false);
    let o = run_with(dir.path(), "junit.xml", &["--threshold", "0"], PYTEST, &[]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(sealed(&r), (2, 0), "{r}");
    let notes = notes(&r);
    assert!(
        notes.iter().any(|n| n.starts_with("PYTHONSAFEPATH=1")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("pytest: -o pythonpath=")),
        "{notes:?}"
    );
    assert!(
        r["gapscore"]["runner"]
            .get("trusted_workspace_runner")
            .is_none(),
        "{r}"
    );
}

#[test]
fn a_planted_pygments_under_python_m_pytest_is_refused_before_it_runs() {
    if !available("python3", &["-c", "import pytest, pygments"]) {
        return;
    }
    let dir = python_project(true);
    let marker = dir.path().join("planted-ran");
    // pytest imports pygments at start-up; this one would exit 0 before any test ran.
    write(
        dir.path(),
        "pygments/__init__.py",
        &format!(
            "open({:?}, 'w').close()\nraise SystemExit(0)\n",
            marker.to_str().unwrap()
        ),
    );
    let o = run_with(dir.path(), "junit.xml", &["--threshold", "0"], PYTEST, &[]);
    refused(&o, "pygments");
    assert!(!marker.exists());
}

#[test]
fn pythonpath_and_sitecustomize_from_the_environment_are_not_passed() {
    if !available("python3", &["-m", "pytest", "--version"]) {
        return;
    }
    let dir = python_project(true);
    let evil = tempfile::tempdir().unwrap();
    let marker = evil.path().join("sitecustomize-ran");
    // A CI file the implementer edits sets PYTHONPATH; its sitecustomize makes every test pass.
    write(
        evil.path(),
        "sitecustomize.py",
        &format!(
            "open({:?}, 'w').close()\nimport impl_patch_does_not_exist\n",
            marker.to_str().unwrap()
        ),
    );
    let pythonpath = evil.path().to_str().unwrap();
    let o = run_with(
        dir.path(),
        "junit.xml",
        &["--threshold", "0"],
        PYTEST,
        &[
            ("PYTHONPATH", pythonpath),
            ("PYTEST_ADDOPTS", "-p no:junitxml"),
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(sealed(&json_of(&o)), (2, 1));
    assert!(!marker.exists(), "the sitecustomize.py of PYTHONPATH ran");
}

#[test]
fn pythonpath_into_the_workspace_given_with_env_is_refused() {
    if !available("python3", &["-m", "pytest", "--version"]) {
        return;
    }
    let dir = python_project(false);
    fs::create_dir(dir.path().join("src")).unwrap();
    let o = run_with(
        dir.path(),
        "junit.xml",
        &["--env", "PYTHONPATH=src"],
        PYTEST,
        &[],
    );
    refused(&o, "sys.path");
}

/// A prove project: a sealed test using Test::More, and the implementation in `lib/`.
fn perl_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(
        p,
        "lib/My/Add.pm",
        "package My::Add;\nsub add { $_[0] + $_[1] }\n1;\n",
    );
    write(
        p,
        "sealed/add.t",
        "use strict;\nuse Test::More tests => 2;\nuse My::Add;\nis(My::Add::add(1, 2), 3, 'adds');\nis(My::Add::add(1, 1), 3, 'adds again');\n",
    );
    let o = run_in(p, &["seal", "sealed", "-o", "seal.json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    dir
}

#[test]
fn prove_l_with_the_implementation_in_lib_runs_but_a_planted_test_more_is_refused() {
    if !available("prove", &["--version"]) {
        return;
    }
    let dir = perl_project();
    let prove = ["prove", "-lv", "sealed"];
    let honest = run_with(
        dir.path(),
        "-",
        &["--input-format", "tap", "--threshold", "0"],
        &prove,
        &[],
    );
    assert_eq!(code(&honest), 1, "{}", stderr(&honest));
    assert_eq!(sealed(&json_of(&honest)), (2, 1));

    write(
        dir.path(),
        "lib/Test/More.pm",
        "package Test::More;\nexit 0;\n1;\n",
    );
    let planted = run_with(
        dir.path(),
        "-",
        &["--input-format", "tap", "--threshold", "0"],
        &prove,
        &[],
    );
    refused(&planted, "Test/More.pm");
}

#[test]
fn perl5lib_from_the_environment_is_not_passed() {
    if !available("prove", &["--version"]) {
        return;
    }
    let dir = perl_project();
    let evil = tempfile::tempdir().unwrap();
    let marker = evil.path().join("planted-ran");
    write(
        evil.path(),
        "Test/More.pm",
        &format!(
            "package Test::More;\nopen(my $f, '>', '{}'); close $f;\nexit 0;\n1;\n",
            marker.to_str().unwrap()
        ),
    );
    let o = run_with(
        dir.path(),
        "-",
        &["--input-format", "tap", "--threshold", "0"],
        &["prove", "-lv", "sealed"],
        &[
            ("PERL5LIB", evil.path().to_str().unwrap()),
            ("PERL5OPT", "-MTest::More"),
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(!marker.exists(), "the Test::More of PERL5LIB ran");
    assert_eq!(sealed(&json_of(&o)), (2, 1));
}

const PASSING: &str =
    r#"{"tests":[{"name":"a","status":"passed"},{"name":"b","status":"passed"}]}"#;

#[test]
fn npx_jest_from_the_project_node_modules_is_refused_unless_trusted() {
    if !available("npx", &["--version"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(p, "sealed/a.test.js", "test('a', () => {});\n");
    assert_eq!(code(&run_in(p, &["seal", "sealed", "-o", "seal.json"])), 0);
    // The project's own "jest": it writes an all-pass result whatever the tests say.
    write(
        p,
        "node_modules/.bin/jest",
        &format!("#!/bin/sh\nprintf '%s' '{PASSING}' > results.json\n"),
    );
    let bin = p.join("node_modules/.bin/jest");
    let mut perm = fs::metadata(&bin).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    fs::set_permissions(&bin, perm).unwrap();

    let npx = ["npx", "jest", "sealed"];
    refused(
        &run_with(p, "results.json", &[], &npx, &[]),
        "node_modules/.bin",
    );
    // Started directly, too.
    refused(
        &run_with(p, "results.json", &[], &["node_modules/.bin/jest"], &[]),
        "the program",
    );

    let trusted = run_with(p, "results.json", &["--trust-workspace-runner"], &npx, &[]);
    let r = json_of(&trusted);
    let what = r["gapscore"]["runner"]["trusted_workspace_runner"].to_string();
    assert!(what.contains("node_modules/.bin/jest"), "{r}");
    assert!(
        notes(&r)
            .iter()
            .any(|n| n.starts_with("--trust-workspace-runner: trusted")),
        "{r}"
    );
}

#[test]
fn an_npm_script_is_the_workspace_s_command() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(p, "sealed/a.test.js", "test('a', () => {});\n");
    write(p, "package.json", r#"{"scripts":{"test":"echo ok"}}"#);
    assert_eq!(code(&run_in(p, &["seal", "sealed", "-o", "seal.json"])), 0);
    refused(
        &run_with(p, "results.json", &[], &["npm", "test"], &[]),
        "package.json",
    );
}

#[test]
fn the_environment_is_default_deny_and_env_passes_more() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(p, "sealed/a.test.js", "test('a', () => {});\n");
    assert_eq!(code(&run_in(p, &["seal", "sealed", "-o", "seal.json"])), 0);
    write(
        p,
        "run.sh",
        &format!("env > env.txt\ncp env.txt \"$KEEP\"\nprintf '%s' '{PASSING}' > results.json\n"),
    );
    let keep = p.join("seen-env.txt");
    let o = run_with(
        p,
        "results.json",
        // No sandbox: the script copies what it saw to $KEEP, outside the workspace, which the
        // sandbox's read-only root would refuse.
        &["--env", "KEEP", "--env", "GIVEN=1", "--sandbox", "none"],
        &["sh", "run.sh"],
        &[
            ("KEEP", keep.to_str().unwrap()),
            ("SECRET_TOKEN", "x"),
            ("NODE_OPTIONS", "--require /evil.js"),
            ("LC_ALL", "C"),
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let seen = fs::read_to_string(&keep).unwrap();
    let names: Vec<&str> = seen
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, _)| k)
        .collect();
    for absent in ["SECRET_TOKEN", "NODE_OPTIONS", "SOURCE_DATE_EPOCH"] {
        assert!(!names.contains(&absent), "{absent} passed: {seen}");
    }
    for present in [
        "PATH",
        "HOME",
        "TMPDIR",
        "LC_ALL",
        "KEEP",
        "GIVEN",
        "PYTHONSAFEPATH",
    ] {
        assert!(names.contains(&present), "{present} missing: {seen}");
    }
    let home = seen.lines().find_map(|l| l.strip_prefix("HOME=")).unwrap();
    assert!(home.contains("gapscore-run-"), "{home}");
    let r = json_of(&o);
    let notes = notes(&r);
    assert!(
        notes
            .iter()
            .any(|n| n == "--env KEEP: passed on (value not shown)"),
        "{notes:?}"
    );
    assert!(
        !notes.iter().any(|n| n.contains(keep.to_str().unwrap())),
        "{notes:?}"
    );
}
