//! Every recipe of docs/run-recipes.md whose runner installs here, run for real (issue 32):
//! a tiny project (`cli/tests/recipes/`) is sealed with `seal --expect-run` against its stub,
//! then the recipe's exact command runs through `gapscore run` against an honest implementation
//! (100%, the `--threshold 15` gate passes) and a broken one (1 of 4 sealed tests fails: 25%,
//! the gate fails). The ids `run` reads must be the ones the seal recorded, wherever the copy workspace
//! is: a missing or unexpected id would show in the manifest.
//!
//! A runner that is missing is a skip with a note, unless `GAPSCORE_REQUIRE_RUNNERS` is set
//! (`.ci/run` sets it, after installing pytest from PyPI and jest and vitest from npm): then
//! it is a failure.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::common::{BIN, code, json_of, repo_path, stderr};

/// One recipe: its fixture folder, the directory it seals, where its results are, its command.
struct Recipe {
    /// The folder under `cli/tests/recipes/`.
    name: &'static str,
    /// The sealed directory, relative to the project.
    sealed: &'static str,
    /// `--results`.
    results: &'static str,
    /// The command after `--`, as docs/run-recipes.md gives it.
    command: &'static [&'static str],
    /// A command that succeeds when the runner is installed.
    probe: &'static [&'static str],
    /// Jest or Vitest, installed by `.ci/run` into the npm cache directory.
    from_npm: bool,
    /// The ids the seal records, sorted: relative to the project, whatever directory the run
    /// happened in.
    ids: &'static [&'static str],
    /// `--env` names the recipe passes on (the command gets only an allowlisted environment):
    /// rustup's and cargo's homes for the cargo recipe.
    env: &'static [&'static str],
}

/// Where `.ci/run` installs jest and vitest: `GAPSCORE_NODE_RUNNERS` (a `node_modules/.bin`
/// directory), else `$HOME/.cache/gapscore-ci/node_modules/.bin`.
fn npm_bin() -> PathBuf {
    match std::env::var_os("GAPSCORE_NODE_RUNNERS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
            .join(".cache/gapscore-ci/node_modules/.bin"),
    }
}

/// `PATH` with the npm cache's binaries first, for the jest and vitest recipes.
fn path_for(recipe: &Recipe) -> Option<std::ffi::OsString> {
    if !recipe.from_npm {
        return None;
    }
    let mut dirs = vec![npm_bin()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    Some(std::env::join_paths(dirs).unwrap())
}

/// Whether the recipe's runner is installed; when it is not, a note (or, under
/// `GAPSCORE_REQUIRE_RUNNERS`, a failure).
fn available(recipe: &Recipe) -> bool {
    let mut probe = Command::new(recipe.probe[0]);
    probe.args(&recipe.probe[1..]);
    if let Some(path) = path_for(recipe) {
        probe.env("PATH", path);
    }
    let ok = probe.output().is_ok_and(|o| o.status.success());
    if !ok {
        let why = format!(
            "`{}` failed: the {} recipe cannot run",
            recipe.probe.join(" "),
            recipe.name
        );
        assert!(
            std::env::var_os("GAPSCORE_REQUIRE_RUNNERS").is_none(),
            "{why} (GAPSCORE_REQUIRE_RUNNERS is set: .ci/run installs it)"
        );
        #[allow(clippy::print_stderr)] // The skip note, as the other real-runner tests print it.
        {
            eprintln!("note: {why}; skipped");
        }
    }
    ok
}

/// Copies every file under `from` into `to`, replacing what is there.
fn overlay(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            fs::create_dir_all(&target).unwrap();
            overlay(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `gapscore ARGS` in `dir`, with the recipe's `PATH` and its `--env` names given before `--`
/// (rustup's and cargo's homes set from `HOME` where the environment does not name them).
fn gapscore(recipe: &Recipe, dir: &Path, args: &[&str]) -> Output {
    let split = args.iter().position(|a| *a == "--").unwrap_or(args.len());
    let mut full: Vec<&str> = args[..split].to_vec();
    for name in recipe.env {
        full.extend(["--env", name]);
    }
    full.extend_from_slice(&args[split..]);
    let mut c = Command::new(BIN);
    let home = PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    for (name, default) in [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")] {
        if std::env::var_os(name).is_none() {
            c.env(name, home.join(default));
        }
    }
    c.args(&full)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1700000000");
    if let Some(path) = path_for(recipe) {
        c.env("PATH", path);
    }
    c.output().unwrap()
}

/// The project with the stub in a temporary directory: (the directory holding it, the project).
fn project(recipe: &Recipe) -> (tempfile::TempDir, PathBuf) {
    let fixture = repo_path("cli/tests/recipes").join(recipe.name);
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("project");
    fs::create_dir(&p).unwrap();
    overlay(&fixture.join("project"), &p);
    overlay(&fixture.join("stub"), &p);
    (tmp, p)
}

/// Runs the recipe through `gapscore run` with the implementation `which` in place; the exit
/// code and the report.
fn run_with(recipe: &Recipe, p: &Path, seal: &Path, which: &str) -> (i32, Value) {
    overlay(
        &repo_path("cli/tests/recipes").join(recipe.name).join(which),
        p,
    );
    let seal = seal.to_str().unwrap();
    let mut args = vec![
        "run",
        "--seal",
        seal,
        "--sealed-dir",
        recipe.sealed,
        "--results",
        recipe.results,
        "--threshold",
        "15",
        "--",
    ];
    args.extend_from_slice(recipe.command);
    let o = gapscore(recipe, p, &args);
    assert!(
        matches!(code(&o), 0 | 1),
        "{}: {which}: {}",
        recipe.name,
        stderr(&o)
    );
    (code(&o), json_of(&o))
}

/// Against the seal at `seal`: the honest implementation passes every sealed test (a Gap Score
/// of 0) and the broken one fails one of four (25, above the gate's 15).
fn honest_and_broken(recipe: &Recipe, p: &Path, seal: &Path) {
    let (exit, r) = run_with(recipe, p, seal, "honest");
    let manifest = json!({"expected": 4, "missing": [], "unexpected": []});
    assert_eq!(
        r["sealed_tests"],
        json!({"total": 4, "passed": 4, "failed": 0}),
        "{}: {r}",
        recipe.name
    );
    assert_eq!(r["gapscore"]["manifest"], manifest, "{}: {r}", recipe.name);
    assert_eq!(r["report"]["shadow_score"], 0.0, "{}: {r}", recipe.name);
    assert_eq!(exit, 0, "{}: {r}", recipe.name);

    let (exit, r) = run_with(recipe, p, seal, "broken");
    assert_eq!(
        r["sealed_tests"],
        json!({"total": 4, "passed": 3, "failed": 1}),
        "{}: {r}",
        recipe.name
    );
    assert_eq!(r["gapscore"]["manifest"], manifest, "{}: {r}", recipe.name);
    assert_eq!(r["report"]["shadow_score"], 25.0, "{}: {r}", recipe.name);
    assert_eq!(exit, 1, "{}: {r}", recipe.name);
}

/// Seals the stub's run with `seal --expect-run`, checks the ids, then runs both
/// implementations.
fn check(recipe: &Recipe) {
    if !available(recipe) {
        return;
    }
    let (tmp, p) = project(recipe);
    let seal = tmp.path().join("seal.json");
    let mut args = vec![
        "seal",
        recipe.sealed,
        "--expect-run",
        "--results",
        recipe.results,
        "-o",
        seal.to_str().unwrap(),
        "--",
    ];
    args.extend_from_slice(recipe.command);
    let o = gapscore(recipe, &p, &args);
    assert_eq!(code(&o), 0, "{}: {}", recipe.name, stderr(&o));
    let record: Value = serde_json::from_str(&fs::read_to_string(&seal).unwrap()).unwrap();
    assert_eq!(
        record["expected_tests"],
        json!(recipe.ids),
        "{}: {}",
        recipe.name,
        stderr(&o)
    );
    honest_and_broken(recipe, &p, &seal);
}

const PYTEST: Recipe = Recipe {
    name: "pytest",
    sealed: "tests/sealed",
    results: "sealed.xml",
    command: &["pytest", "tests/sealed", "--junitxml=sealed.xml"],
    probe: &["pytest", "--version"],
    from_npm: false,
    // The sealed directory has its own pytest.ini, so pytest names the tests from there.
    ids: &[
        "test_calc.TestSub::test_sub",
        "test_calc.TestSub::test_sub_zero",
        "test_calc::test_add",
        "test_calc::test_add_negative",
    ],
    env: &[],
};

#[test]
fn pytest_recipe() {
    check(&PYTEST);
}

/// The seal recorded by hand as docs/sealed-envelope.md says (`pytest tests/sealed
/// --junitxml=expect.xml` against the stub, then `seal --expect`) matches `run`'s ids: `run`
/// used to add `--rootdir=<sealed>`, which renamed every test, so a correct implementation read
/// as failing every sealed test.
#[test]
fn pytest_seal_recorded_by_hand_matches_run() {
    if !available(&PYTEST) {
        return;
    }
    let (tmp, p) = project(&PYTEST);
    // Without bytecode, so nothing the seal does not hash is left beside the sealed tests.
    let stub = Command::new("pytest")
        .args([
            "tests/sealed",
            "--junitxml=expect.xml",
            "-p",
            "no:cacheprovider",
        ])
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(&p)
        .output()
        .unwrap();
    assert_eq!(stub.status.code(), Some(1), "{stub:?}");
    let seal = tmp.path().join("seal.json");
    let o = gapscore(
        &PYTEST,
        &p,
        &[
            "seal",
            "tests/sealed",
            "--expect",
            "expect.xml",
            "-o",
            seal.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let record: Value = serde_json::from_str(&fs::read_to_string(&seal).unwrap()).unwrap();
    assert_eq!(record["expected_tests"], json!(PYTEST.ids));
    honest_and_broken(&PYTEST, &p, &seal);
}

#[test]
fn prove_recipe() {
    check(&Recipe {
        name: "prove",
        sealed: "t/sealed",
        results: "-",
        command: &["prove", "-v", "t/sealed"],
        probe: &["prove", "--version"],
        from_npm: false,
        ids: &[
            "t/sealed/calc.t::adds",
            "t/sealed/calc.t::adds negatives",
            "t/sealed/calc.t::subtracts",
            "t/sealed/calc.t::subtracts zero",
        ],
        env: &[],
    });
}

#[test]
fn node_test_recipe() {
    check(&Recipe {
        name: "node-test",
        sealed: "test/sealed",
        results: "-",
        command: &["node", "--test", "test/sealed"],
        probe: &["node", "--version"],
        from_npm: false,
        ids: &["adds", "adds negatives", "subtracts", "subtracts zero"],
        env: &[],
    });
}

#[test]
fn jest_recipe() {
    check(&Recipe {
        name: "jest",
        sealed: "sealed",
        results: "sealed.json",
        command: &[
            "jest",
            "--config",
            "sealed/jest.config.json",
            "--rootDir",
            ".",
            "sealed",
            "--json",
            "--outputFile=sealed.json",
        ],
        probe: &["jest", "--version"],
        from_npm: true,
        // Jest writes absolute paths; read relative to the workspace.
        ids: &[
            "sealed/calc.test.js > add::adds",
            "sealed/calc.test.js > add::adds negatives",
            "sealed/calc.test.js > sub::subtracts",
            "sealed/calc.test.js > sub::subtracts zero",
        ],
        env: &[],
    });
}

#[test]
fn vitest_recipe() {
    check(&Recipe {
        name: "vitest",
        sealed: "sealed",
        results: "sealed.xml",
        command: &[
            "vitest",
            "run",
            "--configLoader",
            "runner",
            "--config",
            "sealed/vitest.config.mjs",
            "--root",
            ".",
            "sealed",
            "--reporter=junit",
            "--outputFile=sealed.xml",
        ],
        probe: &["vitest", "--version"],
        from_npm: true,
        ids: &[
            "sealed/calc.test.js::add > adds",
            "sealed/calc.test.js::add > adds negatives",
            "sealed/calc.test.js::sub > subtracts",
            "sealed/calc.test.js::sub > subtracts zero",
        ],
        env: &[],
    });
}

#[test]
fn cargo_test_recipe() {
    check(&Recipe {
        name: "cargo",
        sealed: "tests/sealed",
        results: "-",
        command: &[
            "env",
            "RUSTC_BOOTSTRAP=1",
            "cargo",
            "test",
            "--no-fail-fast",
            "--",
            "-Z",
            "unstable-options",
            "--format",
            "json",
            "--report-time",
        ],
        probe: &["cargo", "--version"],
        from_npm: false,
        ids: &["adds", "adds_negatives", "subtracts", "subtracts_zero"],
        env: &["RUSTUP_HOME", "CARGO_HOME"],
    });
}

/// A stub run whose results are missing, or left from an earlier run, gives no list: exit 2 and
/// no seal written (a seal expecting nothing would let every result read as unexpected).
#[test]
fn expect_run_refuses_a_run_without_fresh_results() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    fs::create_dir(p.join("sealed")).unwrap();
    fs::write(p.join("sealed/t.sh"), "true\n").unwrap();
    // An earlier run's JUnit file, which the command never rewrites.
    fs::write(
        p.join("old.xml"),
        r#"<testsuite name="s" tests="1"><testcase classname="s" name="a"/></testsuite>"#,
    )
    .unwrap();
    for results in ["missing.xml", "old.xml", "-"] {
        let o = crate::common::run_in(
            p,
            &[
                "seal",
                "sealed",
                "--expect-run",
                "--results",
                results,
                "-o",
                "seal.json",
                "--",
                "sh",
                "-c",
                "exit 1",
            ],
        );
        assert_eq!(code(&o), 2, "{results}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("no seal written"),
            "{results}: {}",
            stderr(&o)
        );
        assert!(!p.join("seal.json").exists(), "{results}");
        assert!(
            !p.join("sealed").read_dir().unwrap().any(|e| e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains("canary"))
        );
    }
    // The same command writing fresh results is recorded, relative to where it ran.
    let o = crate::common::run_in(
        p,
        &[
            "seal",
            "sealed",
            "--expect-run",
            "--results",
            "new.xml",
            "-o",
            "seal.json",
            "--",
            "sh",
            "-c",
            "printf '<testsuite name=\"s\" tests=\"1\"><testcase classname=\"s\" name=\"a\"><failure message=\"stub\"/></testcase></testsuite>' > new.xml; exit 1",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let record: Value =
        serde_json::from_str(&fs::read_to_string(p.join("seal.json")).unwrap()).unwrap();
    assert_eq!(record["expected_tests"], json!(["s::a"]));
    // The command ran in a copy: the project has no new.xml.
    assert!(!p.join("new.xml").exists());
}
