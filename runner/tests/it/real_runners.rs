//! Real runs: the doors a planted file opens, shut by what `prepare` adds.

#![allow(clippy::unwrap_used, clippy::print_stderr)] // Test helpers and skip notes.

use std::fs;
use std::path::Path;
use std::process::Command;

use gapscore_runner::workspace::{Isolation, Workspace, prepare};

use crate::common::{cmd, write};

/// Runs `command` in the workspace, confined (`ws`'s args and environment) or not.
fn run(ws: &Workspace, command: &[&str], confined: bool) -> std::process::Output {
    let mut c = Command::new(command[0]);
    c.args(&command[1..]).current_dir(&ws.dir);
    if confined {
        c.args(&ws.extra_args);
        c.env_clear().envs(ws.env.iter().map(|(k, v)| (k, v)));
    }
    c.output().unwrap()
}

fn available(program: &str, args: &[&str]) -> bool {
    let ok = Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: `{program} {}` failed", args.join(" "));
    }
    ok
}

const REWRITE_TO_PASSED: &str = r#"import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    out = yield
    report = out.get_result()
    report.outcome = "passed"
    report.longrepr = None
"#;

/// The implementer's root `conftest.py`, a `pytest.ini` whose `addopts` loads a plugin, and a
/// planted `*.dist-info` whose `pytest11` entry point is a plugin (found because `python -m`
/// puts the working directory on `sys.path`): each rewrites every report to passed.
fn trapped_project(root: &Path) {
    write(root, "conftest.py", REWRITE_TO_PASSED);
    write(root, "myplugin.py", REWRITE_TO_PASSED);
    write(root, "entplug.py", REWRITE_TO_PASSED);
    write(root, "pytest.ini", "[pytest]\naddopts = -p myplugin\n");
    write(
        root,
        "evil-1.0.dist-info/METADATA",
        "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n",
    );
    write(
        root,
        "evil-1.0.dist-info/entry_points.txt",
        "[pytest11]\nevil = entplug\n",
    );
    write(root, "app.py", "def add(a, b):\n    return a - b\n");
    write(
        root,
        "tests/sealed/test_app.py",
        "from app import add\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\
         def test_zero():\n    assert add(0, 0) == 0\n",
    );
}

fn counts(xml: &Path) -> (String, String) {
    let text = fs::read_to_string(xml).unwrap();
    let attr = |name: &str| {
        let start = text.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        text[start..].split('"').next().unwrap().to_owned()
    };
    (attr("tests"), attr("failures"))
}

/// Every testcase's `classname`, in order.
fn classnames(xml: &Path) -> Vec<String> {
    let text = fs::read_to_string(xml).unwrap();
    text.split("classname=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().to_owned())
        .collect()
}

#[test]
fn planted_conftest_ini_and_entry_point_do_not_turn_a_sealed_failure_into_a_pass() {
    if !available("python3", &["-m", "pytest", "--version"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("app");
    trapped_project(&project);
    let command = ["python3", "-m", "pytest", "tests/sealed", "-q"];
    let mut ws = prepare(
        &project,
        Some(&project.join("tests/sealed")),
        Isolation::Copy,
        &cmd(&command),
    )
    .unwrap();
    ws.confine_env(&project, &cmd(&command), std::env::vars_os(), &[], false)
        .unwrap();
    let xml = tmp.path().join("out.xml");
    let junit = format!("--junitxml={}", xml.display());
    let mut with_xml = command.to_vec();
    with_xml.push(&junit);

    // The trap works: unconfined, the failing sealed test reads passed.
    let out = run(&ws, &with_xml, false);
    assert!(
        xml.exists(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(counts(&xml), ("2".into(), "0".into()), "{out:?}");
    let by_hand = classnames(&xml);

    // Confined, it reads failed, and nothing is left in the sealed directory.
    fs::remove_dir_all(ws.dir.join(".pytest_cache")).ok();
    fs::remove_dir_all(ws.dir.join("tests/sealed/__pycache__")).ok();
    let out = run(&ws, &with_xml, true);
    assert_eq!(counts(&xml), ("2".into(), "1".into()), "{out:?}");
    // And the tests keep the names pytest gives them run by hand from the same directory (the
    // `seal --expect` recipe): the confinement does not move the rootdir.
    assert_eq!(classnames(&xml), by_hand);
    assert_eq!(by_hand, ["tests.sealed.test_app", "tests.sealed.test_app"]);
    let sealed = ws.sealed_dir.clone().unwrap();
    let left: Vec<_> = fs::read_dir(&sealed)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["test_app.py"]);
    assert!(!ws.dir.join(".pytest_cache").exists());
}

#[test]
fn planted_proverc_does_not_apply() {
    if !available("prove", &["--version"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        "t/sealed/a.t",
        "print \"1..1\\nnot ok 1 - fails\\n\";\n",
    );
    // --dry: prove only lists the tests, and exits 0.
    write(tmp.path(), ".proverc", "--dry\n");
    let mut ws = prepare(
        tmp.path(),
        None,
        Isolation::Copy,
        &cmd(&["prove", "t/sealed"]),
    )
    .unwrap();
    ws.confine_env(
        tmp.path(),
        &cmd(&["prove", "t/sealed"]),
        std::env::vars_os(),
        &[],
        false,
    )
    .unwrap();
    assert!(run(&ws, &["prove", "t/sealed"], false).status.success());
    let out = run(&ws, &["prove", "t/sealed"], true);
    assert!(!out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Result: FAIL"),
        "{out:?}"
    );
}
