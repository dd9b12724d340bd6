//! Where the runner resolves (`Workspace::confine_env`): each way a command reaches code the
//! workspace holds is refused, and what is trusted is returned. Static resolution only (no
//! runner needs to be installed), but for the perl check, which asks perl.

#![allow(clippy::unwrap_used)] // A failure is a test failure.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use gapscore_runner::workspace::{ConfineError, Isolation, WorkspaceRunner, prepare};

use crate::common::{cmd, write};

fn executable(root: &Path, rel: &str) {
    write(root, rel, "#!/bin/sh\nexit 0\n");
    let p = root.join(rel);
    let mut perm = std::fs::metadata(&p).unwrap().permissions();
    perm.set_mode(0o755);
    std::fs::set_permissions(&p, perm).unwrap();
}

/// What `words` would load from the project, in a copy workspace, untrusted.
fn found(project: &Path, words: &[&str]) -> Vec<WorkspaceRunner> {
    let command = cmd(words);
    let mut ws = prepare(project, None, Isolation::Copy, &command).unwrap();
    let parent = std::env::vars_os().filter(|(k, _)| k == "PATH");
    match ws.confine_env(project, &command, parent, &[], false) {
        Ok(trusted) => {
            assert!(trusted.is_empty());
            Vec::new()
        }
        Err(ConfineError::RunnerInWorkspace(found)) => found,
        Err(e) => panic!("{e}"),
    }
}

fn names(found: &[WorkspaceRunner], project: &Path) -> Vec<String> {
    let project = std::fs::canonicalize(project).unwrap();
    found
        .iter()
        .map(|w| {
            // Named in the project, not in the copy that is deleted after the run.
            w.path.strip_prefix(&project).unwrap().display().to_string()
        })
        .collect()
}

#[test]
fn node_modules_bin_through_npx_npm_exec_and_directly() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    executable(p, "node_modules/.bin/jest");
    for words in [
        &["npx", "jest", "sealed"][..],
        &["npx", "--yes", "-p", "jest", "jest"],
        &["npm", "exec", "jest"],
        &["./node_modules/.bin/jest"],
        &["node", "node_modules/.bin/jest"],
    ] {
        assert_eq!(
            names(&found(p, words), p),
            ["node_modules/.bin/jest"],
            "{words:?}"
        );
    }
    assert!(found(p, &["npx", "vitest"]).is_empty());
    assert!(found(p, &["node", "--test", "sealed"]).is_empty());
}

#[test]
fn project_scripts_and_tasks_are_the_workspace_s() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    write(p, "package.json", "{}");
    write(p, "Makefile", "test:\n\ttrue\n");
    assert_eq!(names(&found(p, &["npm", "test"]), p), ["package.json"]);
    assert_eq!(names(&found(p, &["yarn", "jest"]), p), ["package.json"]);
    assert_eq!(names(&found(p, &["make", "test"]), p), ["Makefile"]);
    assert!(found(p, &["sh", "-c", "true"]).is_empty());
}

#[test]
fn a_virtual_environment_in_the_project_behind_a_wrapper() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    executable(p, ".venv/bin/pytest");
    assert_eq!(
        names(&found(p, &["uv", "run", "pytest", "sealed"]), p),
        [".venv/bin/pytest"]
    );
    assert_eq!(
        names(&found(p, &[".venv/bin/pytest"]), p),
        [".venv/bin/pytest"]
    );
}

#[test]
fn trusted_runners_are_returned_and_noted() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    executable(p, "node_modules/.bin/jest");
    let command = cmd(&["npx", "jest"]);
    let mut ws = prepare(p, None, Isolation::Inplace, &command).unwrap();
    let trusted = ws
        .confine_env(p, &command, Vec::<(OsString, OsString)>::new(), &[], true)
        .unwrap();
    assert_eq!(names(&trusted, p), ["node_modules/.bin/jest"]);
    assert!(
        ws.notes
            .iter()
            .any(|n| n.starts_with("--trust-workspace-runner: trusted `jest`")),
        "{:?}",
        ws.notes
    );
}

#[test]
fn perl_include_directories_may_not_hide_perl_s_own_modules() {
    let has_test_more = std::process::Command::new("perl")
        .args(["-MTest::More", "-e", "1"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_test_more {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    write(p, "lib/My/Add.pm", "package My::Add;\n1;\n");
    assert!(found(p, &["prove", "-lv", "t"]).is_empty());
    write(p, "lib/Test/More.pm", "package Test::More;\n1;\n");
    write(p, "inc/Test/Builder.pm", "package Test::Builder;\n1;\n");
    for words in [
        &["prove", "-vl", "t"][..],
        &["prove", "--lib", "t"],
        &["perl", "-Ilib", "t/a.t"],
    ] {
        assert_eq!(
            names(&found(p, words), p),
            ["lib/Test/More.pm"],
            "{words:?}"
        );
    }
    assert_eq!(
        names(&found(p, &["prove", "-I", "inc", "t"]), p),
        ["inc/Test/Builder.pm"]
    );
    // Without an include directory in the project, nothing of it is loaded first.
    assert!(found(p, &["prove", "t"]).is_empty());
}

#[test]
fn a_workspace_interpreter_is_refused_without_being_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    let marker = tmp.path().join("ran");
    write(
        p,
        "bin/python3",
        &format!("#!/bin/sh\ntouch {}\n", marker.display()),
    );
    let mut perm = std::fs::metadata(p.join("bin/python3"))
        .unwrap()
        .permissions();
    perm.set_mode(0o755);
    std::fs::set_permissions(p.join("bin/python3"), perm).unwrap();
    let command = cmd(&["python3", "-m", "pytest"]);
    let mut ws = prepare(p, None, Isolation::Inplace, &command).unwrap();
    // A relative PATH entry, as a CI file could set it: found from where the command runs.
    let parent = vec![(OsString::from("PATH"), OsString::from("bin:/usr/bin:/bin"))];
    let Err(ConfineError::RunnerInWorkspace(found)) =
        ws.confine_env(p, &command, parent, &[], false)
    else {
        panic!("not refused");
    };
    assert_eq!(names(&found, p), ["bin/python3"]);
    assert!(!marker.exists(), "the workspace's python3 was run");
}
