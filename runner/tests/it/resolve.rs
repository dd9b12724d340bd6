//! Where the runner resolves (`Workspace::confine_env`): each way a command reaches code the
//! workspace holds is refused, and what is trusted is returned. Static resolution only (no
//! runner needs to be installed), but for the perl check, which asks perl.

#![allow(clippy::unwrap_used)] // A failure is a test failure.

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use gapscore_runner::workspace::{ConfineError, Isolation, WorkspaceRunner, prepare};

use crate::common::{cmd, write};

fn executable(root: &Path, rel: &str) {
    write(root, rel, "#!/bin/sh\nexit 0\n");
    let p = root.join(rel);
    let mut perm = fs::metadata(&p).unwrap().permissions();
    perm.set_mode(0o755);
    fs::set_permissions(&p, perm).unwrap();
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
    let project = fs::canonicalize(project).unwrap();
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
        ["lib/Test/More.pm", "inc/Test/Builder.pm"]
    );
    // A sealed test's own `use lib 'lib'` loads it under plain `prove`: lib/ is checked always.
    assert_eq!(
        names(&found(p, &["prove", "-v", "t"]), p),
        ["lib/Test/More.pm"]
    );
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
    let mut perm = fs::metadata(p.join("bin/python3")).unwrap().permissions();
    perm.set_mode(0o755);
    fs::set_permissions(p.join("bin/python3"), perm).unwrap();
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

fn has_perl_test_more() -> bool {
    std::process::Command::new("perl")
        .args(["-MTest::More", "-e", "1"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn perl_reads_pmc_before_pm_and_through_directory_links() {
    if !has_perl_test_more() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    write(
        p,
        "t/a.t",
        "use lib 'lib';\nuse Test::More;\nok(1);\ndone_testing;\n",
    );
    write(p, "lib/Test/More.pmc", "package Test::More;\n1;\n");
    assert_eq!(names(&found(p, &["prove", "t"]), p), ["lib/Test/More.pmc"]);
    fs::remove_dir_all(p.join("lib")).unwrap();
    write(p, "evil/Test/More.pm", "package Test::More;\n1;\n");
    fs::create_dir(p.join("lib")).unwrap();
    std::os::unix::fs::symlink("../evil/Test", p.join("lib/Test")).unwrap();
    assert_eq!(
        names(&found(p, &["prove", "-l", "t"]), p),
        ["lib/Test/More.pm"]
    );
}

#[test]
fn too_many_perl_files_to_check_is_refused_not_skipped() {
    if !has_perl_test_more() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    for i in 0..20_001 {
        write(p, &format!("lib/M/F{}/X{i}.pm", i % 100), "1;\n");
    }
    let f = found(p, &["prove", "-l", "t"]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].what.contains("cannot check"), "{}", f[0]);
}

/// An executable script outside the project, on a `PATH` of its own.
fn outside_program(dir: &Path, name: &str, text: &str) {
    write(dir, name, text);
    let mut perm = fs::metadata(dir.join(name)).unwrap().permissions();
    perm.set_mode(0o755);
    fs::set_permissions(dir.join(name), perm).unwrap();
}

fn found_with_path(project: &Path, words: &[&str], path: &Path) -> Vec<WorkspaceRunner> {
    let command = cmd(words);
    let mut ws = prepare(project, None, Isolation::Copy, &command).unwrap();
    let system = std::env::var_os("PATH").unwrap_or_default();
    let mut entries = vec![path.to_owned()];
    entries.extend(std::env::split_paths(&system));
    let parent = vec![(
        OsString::from("PATH"),
        std::env::join_paths(entries).unwrap(),
    )];
    match ws.confine_env(project, &command, parent, &[], false) {
        Ok(_) => Vec::new(),
        Err(ConfineError::RunnerInWorkspace(found)) => found,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn a_check_that_cannot_complete_fails_closed() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("project");
    fs::create_dir(&p).unwrap();
    let bin = tmp.path().join("bin");
    // A pyenv-style shim: not a Python script whose interpreter can be read.
    outside_program(
        &bin,
        "pytest",
        "#!/usr/bin/env bash\nexec pyenv exec pytest \"$@\"\n",
    );
    let f = found_with_path(&p, &["pytest", "tests"], &bin);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].what.contains("cannot check"), "{}", f[0]);
    // An interpreter that cannot answer.
    outside_program(&bin, "python3", "#!/bin/sh\nexit 3\n");
    let f = found_with_path(&p, &["python3", "-m", "pytest"], &bin);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].what.contains("cannot check"), "{}", f[0]);
}

#[test]
fn pips_long_path_form_of_a_pytest_script_is_read() {
    let Some(python) = which_python() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("project");
    fs::create_dir(&p).unwrap();
    let bin = tmp.path().join("bin");
    outside_program(
        &bin,
        "pytest",
        &format!(
            "#!/bin/sh\n'''exec' \"{}\" \"$0\" \"$@\"\n' '''\nimport sys\n",
            python.display()
        ),
    );
    assert!(found_with_path(&p, &["pytest", "tests"], &bin).is_empty());
    write(&p, "pdb.py", "");
    assert_eq!(
        names(&found_with_path(&p, &["pytest"], &bin), &p),
        ["pdb.py"]
    );
}

fn which_python() -> Option<std::path::PathBuf> {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().into())
}

fn python_says(code: &str) -> String {
    let out = std::process::Command::new("python3")
        .args(["-c", code])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[test]
fn every_form_python_imports_a_module_from_is_a_shadow() {
    if which_python().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    let words = &["python3", "-m", "pytest", "tests"][..];
    // An honest project, and a namespace directory (never hides a module found later).
    write(p, "calc.py", "");
    write(p, "pdb/notes.txt", "");
    assert!(found(p, words).is_empty());
    let ext = python_says("import importlib.machinery as m; print(m.EXTENSION_SUFFIXES[0])");
    write(p, "pdb.pyc", "");
    write(p, "fractions/__init__.pyc", "");
    write(p, &format!("decimal{ext}"), "");
    let mut got = names(&found(p, words), p);
    got.sort();
    let mut want = vec![
        format!("decimal{ext}"),
        "fractions".to_owned(),
        "pdb.pyc".to_owned(),
    ];
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn thousands_of_modules_are_all_checked() {
    if which_python().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    // 245-byte names: more than fits in an argument list.
    let stem = "m".repeat(240);
    for i in 0..9000 {
        write(p, &format!("{stem}{i:05}.py"), "");
    }
    write(p, "pdb.py", "");
    assert_eq!(
        names(&found(p, &["python3", "-m", "pytest", "tests"]), p),
        ["pdb.py"]
    );
}

/// What `words` would load, with `sealed` (relative to the project) as the sealed directory.
fn found_sealed(project: &Path, sealed: &str, words: &[&str]) -> Vec<WorkspaceRunner> {
    let command = cmd(words);
    let mut ws = prepare(
        project,
        Some(&project.join(sealed)),
        Isolation::Copy,
        &command,
    )
    .unwrap();
    let parent = std::env::vars_os().filter(|(k, _)| k == "PATH");
    match ws.confine_env(project, &command, parent, &[], false) {
        Ok(_) => Vec::new(),
        Err(ConfineError::RunnerInWorkspace(found)) => found,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn directories_pytest_prepends_and_the_sealed_pythonpath_are_checked() {
    if which_python().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    write(p, "calc.py", "");
    write(p, "tests/sealed/__init__.py", "");
    write(
        p,
        "tests/sealed/test_calc.py",
        "from fractions import Fraction\n\ndef test_half():\n    assert Fraction(1, 2)\n",
    );
    let words = &["python3", "-m", "pytest", "tests/sealed"][..];
    assert!(found_sealed(p, "tests/sealed", words).is_empty());
    // pytest puts tests/ (the first directory up without __init__.py) first on sys.path.
    write(p, "tests/fractions.py", "class Fraction:\n    pass\n");
    assert_eq!(
        names(&found_sealed(p, "tests/sealed", words), p),
        ["tests/fractions.py"]
    );
    fs::remove_file(p.join("tests/fractions.py")).unwrap();
    // A sealed configuration's own pythonpath.
    write(
        p,
        "tests/sealed/pytest.ini",
        "[pytest]\npythonpath = ../../src\n",
    );
    assert!(found_sealed(p, "tests/sealed", words).is_empty());
    write(p, "src/fractions.py", "");
    assert_eq!(
        names(&found_sealed(p, "tests/sealed", words), p),
        ["src/fractions.py"]
    );
}

/// A sealed package inside the project's package (issue 32 attack, a/F12): pytest imports
/// `tests/__init__.py` as the sealed tests' package in every import mode, so the project's code
/// in it runs before any sealed test; it is refused like a runner in the workspace.
#[test]
fn a_package_init_above_the_sealed_tests_is_the_workspace_s() {
    if which_python().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    write(p, "tests/sealed/__init__.py", "");
    write(
        p,
        "tests/sealed/test_calc.py",
        "def test_one():\n    assert True\n",
    );
    let words = &["python3", "-m", "pytest", "tests/sealed"][..];
    assert!(found_sealed(p, "tests/sealed", words).is_empty());
    write(p, "tests/__init__.py", "import builtins\n");
    assert_eq!(
        names(&found_sealed(p, "tests/sealed", words), p),
        ["tests/__init__.py"]
    );
    // A sealed directory that is no package stops pytest's walk: nothing above it is imported.
    fs::remove_file(p.join("tests/sealed/__init__.py")).unwrap();
    assert!(found_sealed(p, "tests/sealed", words).is_empty());
}

#[test]
fn cargo_configuration_that_chooses_the_program_is_the_workspace_s() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    let words = &["cargo", "test"][..];
    // Honest: settings that start no program, a toolchain by channel.
    write(
        p,
        ".cargo/config.toml",
        "[build]\njobs = 2\n[net]\nretry = 3\n",
    );
    write(
        p,
        "rust-toolchain.toml",
        "[toolchain]\nchannel = \"1.90\"\n",
    );
    assert!(found(p, words).is_empty());
    write(p, "rust-toolchain.toml", "");
    fs::remove_file(p.join("rust-toolchain.toml")).unwrap();
    write(p, "rust-toolchain", "stable\n");
    assert!(found(p, words).is_empty());
    for config in [
        "[target.x86_64-unknown-linux-gnu]\nrunner = \"./fake\"\n",
        "[target.'cfg(unix)']\nrunner = [\"sh\", \"fake.sh\"]\n",
        "[build]\nrustc-wrapper = \"./w\"\n",
        "[build]\nrustc = \"./rustc\"\n",
        "[build]\nrustc-workspace-wrapper = \"./w\"\n",
        "[env]\nLD_PRELOAD = \"./x.so\"\n",
    ] {
        write(p, ".cargo/config.toml", config);
        assert_eq!(
            names(&found(p, words), p),
            [".cargo/config.toml"],
            "{config}"
        );
    }
    // Behind `env`, as the libtest JSON recipe runs it.
    assert_eq!(
        names(&found(p, &["env", "RUSTC_BOOTSTRAP=1", "cargo", "test"]), p),
        [".cargo/config.toml"]
    );
    fs::remove_file(p.join(".cargo/config.toml")).unwrap();
    write(p, "sub/x", "");
    write(p, ".cargo/config", "[build]\nrustc-wrapper = \"./w\"\n");
    assert_eq!(names(&found(p, words), p), [".cargo/config"]);
    fs::remove_file(p.join(".cargo/config")).unwrap();
    write(p, "rust-toolchain.toml", "[toolchain]\npath = \"./tc\"\n");
    fs::remove_file(p.join("rust-toolchain")).unwrap();
    assert_eq!(names(&found(p, words), p), ["rust-toolchain.toml"]);
}

#[test]
fn a_pyenv_shim_is_asked_which_pytest_it_runs() {
    let Some(python) = which_python() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("project");
    fs::create_dir(&p).unwrap();
    let root = tmp.path().join("pyenv");
    let real = root.join("versions/x/bin");
    outside_program(
        &real,
        "pytest",
        &format!("#!{}\nimport sys\n", python.display()),
    );
    outside_program(
        &root,
        "libexec/pyenv",
        &format!("#!/bin/sh\necho {}\n", real.join("pytest").display()),
    );
    let shims = root.join("shims");
    outside_program(
        &shims,
        "pytest",
        &format!(
            "#!/usr/bin/env bash\nset -e\nprogram=\"${{0##*/}}\"\nexport PYENV_ROOT=\"{}\"\nexec \"{}\" exec \"$program\" \"$@\"\n",
            root.display(),
            root.join("libexec/pyenv").display()
        ),
    );
    assert!(found_with_path(&p, &["pytest", "tests"], &shims).is_empty());
    write(&p, "pdb.py", "");
    assert_eq!(
        names(&found_with_path(&p, &["pytest"], &shims), &p),
        ["pdb.py"]
    );
}
