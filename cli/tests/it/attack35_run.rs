//! Attack round 35A's findings against `run` and `seal --expect-run` (fixer B): each test runs
//! the real runner on a project from cli/tests/data/attack35/ (README there).

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{code, repo_path, run_in, runner_available, stderr};

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            fs::copy(e.path(), target).unwrap();
        }
    }
}

fn project(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo_path(&format!("cli/tests/data/attack35/{name}")), dir.path());
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
        ("j.xml", &["python3", "-m", "pytest", "-p", "no:cacheprovider", "--junitxml=j.xml"]),
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
