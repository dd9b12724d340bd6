//! Attack round 35A's findings against `run` and `seal --expect-run` (fixer B): each test runs
//! the real runner on a project from cli/tests/data/attack35/ (README there).

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{code, copy_dir, repo_path, run_in, runner_available, stderr};

fn project(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo_path(&format!("cli/tests/data/attack35/{name}")),
        dir.path(),
    );
    dir
}

fn expected_tests(seal: &Path) -> Vec<String> {
    let v: Value = serde_json::from_str(&fs::read_to_string(seal).unwrap()).unwrap();
    v["expected_tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

fn pytest_available() -> bool {
    runner_available("python3", &["-m", "pytest", "--version"])
}

/// Finding 6: `seal --expect-run` on a command that collects the whole project lists only the
/// sealed directory's tests, whether pytest writes JUnit XML (dotted classnames) or its JSON
/// report (node ids with the file), and says which it left out.
#[test]
fn f6_expect_run_lists_only_tests_inside_the_sealed_dir() {
    if !pytest_available() {
        return;
    }
    let runs: [(&str, &[&str]); 2] = [
        (
            "j.xml",
            &[
                "python3",
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "--junitxml=j.xml",
            ],
        ),
        (
            "r.json",
            &[
                "python3",
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-p",
                "pytest_jsonreport",
                "--json-report",
                "--json-report-file=r.json",
            ],
        ),
    ];
    for (results, command) in runs {
        let dir = project("f6");
        let mut args = vec![
            "seal",
            "tests/sealed",
            "--expect-run",
            "--results",
            results,
            "-o",
            "s.json",
            "--",
        ];
        args.extend_from_slice(command);
        let out = run_in(dir.path(), &args);
        let err = stderr(&out);
        assert_eq!(code(&out), 0, "{err}");
        let ids = expected_tests(&dir.path().join("s.json"));
        assert_eq!(ids.len(), 6, "{results}: {ids:?}");
        assert!(
            ids.iter().all(|i| i.contains("sealed")),
            "{results}: {ids:?}"
        );
        assert!(
            err.contains("4 tests the stub run reported lie outside the sealed directory"),
            "{results}: {err}"
        );
        assert!(err.contains("open"), "{results}: {err}");
    }
}

/// Finding 6: a stub command that runs no sealed test at all gives no seal.
#[test]
fn f6_expect_run_with_no_test_inside_the_sealed_dir_is_refused() {
    if !pytest_available() {
        return;
    }
    let dir = project("f6");
    let out = run_in(
        dir.path(),
        &[
            "seal",
            "tests/sealed",
            "--expect-run",
            "--results",
            "j.xml",
            "-o",
            "s.json",
            "--",
            "python3",
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--junitxml=j.xml",
            "open",
        ],
    );
    let err = stderr(&out);
    assert_eq!(code(&out), 2, "{err}");
    assert!(
        err.contains("no test the stub run reported lies inside the sealed directory"),
        "{err}"
    );
    assert!(!dir.path().join("s.json").exists());
}

/// `run --results - --format json -- cat OUT` on a recorded Mocha output: its exit code, the
/// report and standard error.
fn run_replayed(out_file: &str) -> (i32, Value, String) {
    let dir = project("f2");
    let out = run_in(
        dir.path(),
        &[
            "run",
            "--results",
            "-",
            "--format",
            "json",
            "--",
            "cat",
            out_file,
        ],
    );
    let report: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    (code(&out), report, stderr(&out))
}

fn problem_kinds(report: &Value) -> Vec<String> {
    report["gapscore"]["problems"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|p| p["kind"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Finding 2b: a forged Mocha document that makes Mocha's own (with the failure) the value of
/// a key Mocha never writes is a counted problem: the report is advisory, not 0.0 perfect.
#[test]
fn f2_mocha_document_with_an_unknown_top_level_key_is_foreign_content() {
    let (status, report, err) = run_replayed("wrapped.out");
    // An advisory `run` exits 1 (I15).
    assert_eq!(status, 1, "{err}");
    assert!(
        problem_kinds(&report).contains(&"foreign-content".to_owned()),
        "{report}"
    );
    assert_eq!(report["report"]["advisory"], true, "{report}");
    // The problem names the key.
    assert!(
        report["gapscore"]["problems"][0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("`log`")),
        "{report}"
    );
}

/// Finding 2a: TAP lines printed before Mocha's JSON on the command's standard output make the
/// stream read as TAP; its lines that are not TAP make the report advisory, not only a warning.
#[test]
fn f2_lines_not_tap_in_a_tap_stream_on_stdout_make_the_report_advisory() {
    let (status, report, err) = run_replayed("tap-prefix.out");
    // An advisory `run` exits 1 (I15).
    assert_eq!(status, 1, "{err}");
    assert!(
        problem_kinds(&report).contains(&"foreign-content".to_owned()),
        "{report}"
    );
    assert_eq!(report["report"]["advisory"], true, "{report}");
}

/// Finding 1: `tests.sealed/test_calc.py` outside the sealed directory has the sealed module's
/// dotted path, so pytest's JUnit names its passing tests as the sealed ones (which never ran:
/// `calc.py` skips the sealed module). The twin is a counted problem naming both files: the
/// report is advisory and `run` exits 1, instead of 25.0 with the sealed tests counted passed.
#[test]
fn f1_a_python_module_with_a_sealed_modules_dotted_path_is_a_problem() {
    if !pytest_available() {
        return;
    }
    let dir = project("f1");
    let out = run_in(
        dir.path(),
        &[
            "run",
            "--seal",
            "p1j.seal.json",
            "--sealed-dir",
            "tests/sealed",
            "--results",
            "j.xml",
            "--format",
            "json",
            "--",
            "python3",
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--junitxml=j.xml",
        ],
    );
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{err}");
    let report: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert_eq!(report["report"]["advisory"], true, "{report}");
    let twin = report["gapscore"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "dotted-twin")
        .unwrap_or_else(|| panic!("{report}"));
    let detail = twin["detail"].as_str().unwrap();
    assert!(detail.contains("tests.sealed/test_calc.py"), "{detail}");
    assert!(detail.contains("tests/sealed/test_calc.py"), "{detail}");
}
