//! The order of judgement in `gapscore run` (issue 32): the seal's manifest is applied before
//! the runner's evidence is weighed, so a result the seal does not list never explains a failing
//! exit status, and results beyond the manifest's multiplicity (twins) do not dilute the score.
//! Scripted stand-in runners write the forged files; one case uses real pytest.

use std::fs;
use std::path::Path;
use std::process::Output;

use crate::common::gate::{problems, sealed};
use crate::common::{code, json_of, run_in, runner_available, stderr};

/// Five sealed tests, sealed with their expected ids from a stub JUnit file.
fn sealed_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::create_dir(p.join("sealed")).unwrap();
    fs::write(
        p.join("sealed/test_spec.py"),
        "from impl import f\n\ndef test_1(): assert f(1) == 1\n",
    )
    .unwrap();
    fs::write(
        p.join("stub.xml"),
        junit(&[
            ("test_1", "pass"),
            ("test_2", "pass"),
            ("test_3", "pass"),
            ("test_4", "pass"),
            ("test_5", "pass"),
        ]),
    )
    .unwrap();
    let o = run_in(
        p,
        &["seal", "sealed", "--expect", "stub.xml", "-o", "seal.json"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    dir
}

/// A JUnit file of `cases` (`pass` or `fail`) in class `sealed.test_spec`.
fn junit(cases: &[(&str, &str)]) -> String {
    let mut out =
        String::from("<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"pytest\">\n");
    for (name, how) in cases {
        let body = if *how == "fail" {
            "<failure message=\"no\"/>"
        } else {
            ""
        };
        out.push_str(&format!(
            "<testcase classname=\"sealed.test_spec\" name=\"{name}\">{body}</testcase>\n"
        ));
    }
    out.push_str("</testsuite></testsuites>\n");
    out
}

/// `gapscore run` of `sh run.sh` writing `results.xml` and exiting with `status`, gated at 15%.
fn run_script(p: &Path, results: &str, status: i32) -> Output {
    fs::write(p.join("forged.xml"), results).unwrap();
    fs::write(
        p.join("run.sh"),
        format!("cp forged.xml results.xml\nexit {status}\n"),
    )
    .unwrap();
    run_in(
        p,
        &[
            "run",
            "--seal",
            "seal.json",
            "--sealed-dir",
            "sealed",
            "--results",
            "results.xml",
            "--threshold",
            "15",
            "--format",
            "json",
            "--",
            "sh",
            "run.sh",
        ],
    )
}

/// The first case: the results rewritten to all-pass plus one failing test the seal
/// does not list, the runner's exit 1 left as it was. The unlisted failure is counted, and it
/// does not explain the exit status: `runner-failed` too.
#[test]
fn a_forged_unlisted_failure_does_not_explain_the_exit_status() {
    let dir = sealed_project();
    let forged = junit(&[
        ("test_1", "pass"),
        ("test_2", "pass"),
        ("test_3", "pass"),
        ("test_4", "pass"),
        ("test_5", "pass"),
        ("test_decoy", "fail"),
    ]);
    let o = run_script(dir.path(), &forged, 1);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(problems(&r), ["runner-failed"], "{r}");
    assert_eq!(sealed(&r), (7, 2), "{r}");
    // The same file with exit 0 has nothing to explain: the decoy alone counts.
    let o = run_script(dir.path(), &forged, 0);
    let r = json_of(&o);
    assert!(problems(&r).is_empty(), "{r}");
    assert_eq!(sealed(&r), (6, 1), "{r}");
}

/// A real failure of a listed test explains the exit status: no `runner-failed`.
#[test]
fn a_listed_failure_explains_the_exit_status() {
    let dir = sealed_project();
    let honest = junit(&[
        ("test_1", "pass"),
        ("test_2", "fail"),
        ("test_3", "pass"),
        ("test_4", "pass"),
        ("test_5", "pass"),
    ]);
    let o = run_script(dir.path(), &honest, 1);
    let r = json_of(&o);
    assert!(problems(&r).is_empty(), "{r}");
    assert_eq!(sealed(&r), (5, 1), "{r}");
}

/// Twins: four passing results registered under each sealed test's id. Three of five sealed
/// tests fail (60%); the twins are not counted, and the surplus is a counted problem.
#[test]
fn passing_twins_do_not_dilute_the_score() {
    let dir = sealed_project();
    let mut cases = Vec::new();
    for (i, name) in ["test_1", "test_2", "test_3", "test_4", "test_5"]
        .iter()
        .enumerate()
    {
        cases.push((*name, if i < 3 { "fail" } else { "pass" }));
        for _ in 0..4 {
            cases.push((*name, "pass"));
        }
    }
    let o = run_script(dir.path(), &junit(&cases), 1);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(problems(&r), ["surplus-results"], "{r}");
    assert_eq!(sealed(&r), (6, 4), "{r}");
}

/// The first case with the real pytest 9.2: the implementation rewrites pytest's JUnit file
/// when the process exits, to all-pass plus a decoy failure the seal does not list.
#[test]
fn pytest_results_rewritten_at_exit_do_not_pass_the_gate() {
    if !runner_available("python3", &["-m", "pytest", "--version"]) {
        return;
    }
    let dir = sealed_project();
    let p = dir.path();
    fs::write(
        p.join("sealed/test_spec.py"),
        "from impl import f\n\n\
         def test_1(): assert f(1) == 1\n\
         def test_2(): assert f(2) == 2\n\
         def test_3(): assert f(3) == 3\n\
         def test_4(): assert f(4) == 4\n\
         def test_5(): assert f(5) == 5\n",
    )
    .unwrap();
    let o = run_in(
        p,
        &["seal", "sealed", "--expect", "stub.xml", "-o", "seal.json"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let forged = junit(&[
        ("test_1", "pass"),
        ("test_2", "pass"),
        ("test_3", "pass"),
        ("test_4", "pass"),
        ("test_5", "pass"),
        ("test_decoy", "fail"),
    ]);
    fs::write(
        p.join("impl.py"),
        format!(
            "import atexit\n\
             FORGED = {forged:?}\n\
             def _forge():\n    open('results.xml', 'w').write(FORGED)\n\
             atexit.register(_forge)\n\
             def f(x):\n    return x if x > 3 else -x\n"
        ),
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
            "results.xml",
            "--threshold",
            "15",
            "--format",
            "json",
            "--",
            "python3",
            "-m",
            "pytest",
            "-q",
            "sealed",
            "--junitxml=results.xml",
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json_of(&o);
    // The decoy explains nothing: pytest's console summary ("3 failed, 2 passed") is held
    // against the forged file and explains the exit status itself (the second channel); without
    // a console summary it would be runner-failed.
    let kinds = problems(&r);
    assert!(
        kinds
            .iter()
            .any(|k| k.starts_with("summary-line") || k == "runner-failed"),
        "{r}"
    );
    let (total, failed) = sealed(&r);
    assert!(failed * 100 > total * 15, "{r}");
}

/// The runner's summary silenced (issue 32 attack, A-F9): the implementation writes an all-pass
/// results file and ends the process during collection, before pytest prints anything. pytest
/// prints its summary at the end of every complete run: its absence is a counted problem.
#[test]
fn a_missing_pytest_summary_fails_the_gate() {
    if !runner_available("python3", &["-m", "pytest", "--version"]) {
        return;
    }
    let dir = sealed_project();
    let p = dir.path();
    let forged = junit(&[
        ("test_1", "pass"),
        ("test_2", "pass"),
        ("test_3", "pass"),
        ("test_4", "pass"),
        ("test_5", "pass"),
    ]);
    fs::write(
        p.join("impl.py"),
        format!(
            "import os\n\
             open('results.xml', 'w').write({forged:?})\n\
             os._exit(0)\n\
             def f(x):\n    return -x\n"
        ),
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
            "results.xml",
            "--threshold",
            "15",
            "--format",
            "json",
            "--",
            "python3",
            "-m",
            "pytest",
            "sealed",
            "--junitxml=results.xml",
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(problems(&r), ["missing-summary"], "{r}");
}
