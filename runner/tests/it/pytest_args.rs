//! The arguments and environment `prepare` gives each recognised runner.

use std::ffi::OsString;
use std::fs;

use gapscore_runner::workspace::{Isolation, Workspace, prepare};

use crate::common::{cmd, write};

fn env(ws: &Workspace, name: &str) -> Option<OsString> {
    ws.env
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

fn args(ws: &Workspace) -> Vec<String> {
    ws.extra_args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn every_command_gets_the_cache_and_env_neutralisation() {
    let tmp = tempfile::tempdir().unwrap();
    for isolation in [Isolation::Inplace, Isolation::Copy] {
        let mut ws = prepare(tmp.path(), None, isolation, &cmd(&["node", "--test"])).unwrap();
        assert_eq!(env(&ws, "PYTHONDONTWRITEBYTECODE").unwrap(), "1");
        let prefix = env(&ws, "PYTHONPYCACHEPREFIX").unwrap();
        assert!(std::path::Path::new(&prefix).starts_with(ws.temp_root()));
        assert!(std::path::Path::new(&prefix).is_dir());
        assert_eq!(env(&ws, "npm_config_node_options").unwrap(), " ");
        // The environment is default-deny: the doors are absent whatever gapscore's holds.
        let doors = [
            "PYTEST_ADDOPTS",
            "PYTEST_PLUGINS",
            "NODE_OPTIONS",
            "PERL5OPT",
            "HARNESS_PERL_SWITCHES",
            "GOFLAGS",
            "PYTHONPATH",
            "PERL5LIB",
        ];
        let parent = doors
            .iter()
            .chain(&["PATH"])
            .map(|n| (OsString::from(n), OsString::from("/x")));
        let trusted = ws
            .confine_env(tmp.path(), &cmd(&["node", "--test"]), parent, &[], false)
            .unwrap();
        assert!(trusted.is_empty());
        for name in doors {
            assert!(env(&ws, name).is_none(), "{name}");
        }
        assert_eq!(env(&ws, "PATH").unwrap(), "/x");
        assert_eq!(env(&ws, "PYTHONDONTWRITEBYTECODE").unwrap(), "1");
        assert_eq!(env(&ws, "PYTHONSAFEPATH").unwrap(), "1");
        assert!(ws.extra_args.is_empty(), "{:?}", ws.extra_args);
        assert!(env(&ws, "PYTEST_DISABLE_PLUGIN_AUTOLOAD").is_none());
        assert!(
            ws.notes
                .iter()
                .any(|n| n.starts_with("command not recognised"))
        );
    }
}

#[test]
fn pytest_is_confined_to_the_sealed_directory() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "tests/sealed/test_a.py", "def test_a(): pass\n");
    let sealed = tmp.path().join("tests/sealed");
    for command in [
        &["pytest", "tests/sealed"][..],
        &["/venv/bin/py.test"],
        &["python3", "-m", "pytest"],
        &["python", "-B", "-mpytest", "-q"],
        &["python3.12", "-m", "pytest"],
        &["uv", "run", "pytest"],
        &["poetry", "run", "python", "-m", "pytest"],
    ] {
        let ws = prepare(tmp.path(), Some(&sealed), Isolation::Copy, &cmd(command)).unwrap();
        let s = ws.sealed_dir.clone().unwrap();
        assert!(s.starts_with(ws.temp_root()));
        let ini = ws.temp_root().join("gapscore-scratch/pytest.ini");
        assert_eq!(
            args(&ws),
            [
                "-p".to_owned(),
                "no:cacheprovider".to_owned(),
                "-o".to_owned(),
                format!("pythonpath='{}'", ws.dir.display()),
                format!("--confcutdir={}", s.display()),
                // The working directory, as pytest picks it for the same command run there.
                format!("--rootdir={}", ws.dir.display()),
                "-c".to_owned(),
                ini.display().to_string(),
            ],
            "{command:?}"
        );
        assert_eq!(fs::read_to_string(&ini).unwrap(), "[pytest]\n");
        assert_eq!(env(&ws, "PYTEST_DISABLE_PLUGIN_AUTOLOAD").unwrap(), "1");
        assert!(
            ws.notes
                .iter()
                .any(|n| n.starts_with("pytest: --confcutdir")),
            "{:?}",
            ws.notes
        );
    }
}

#[test]
fn not_pytest_when_it_cannot_be_recognised_reliably() {
    let tmp = tempfile::tempdir().unwrap();
    for command in [
        &["env", "X=1", "pytest"][..],
        &["sh", "-c", "pytest"],
        &["python3", "-X", "dev", "-m", "pytest"],
        &["uv", "run", "--with", "pytest", "pytest"],
        &["python3", "pytest"],
        &["pythonista", "-m", "pytest"],
        &[],
    ] {
        let ws = prepare(tmp.path(), None, Isolation::Inplace, &cmd(command)).unwrap();
        assert!(ws.extra_args.is_empty(), "{command:?}");
    }
}

#[test]
fn the_sealed_directorys_own_pytest_ini_is_the_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        "tests/sealed/pytest.ini",
        "[pytest]\nmarkers = slow\n",
    );
    write(tmp.path(), "pytest.ini", "[pytest]\naddopts = -p planted\n");
    let sealed = tmp.path().join("tests/sealed");
    let ws = prepare(
        tmp.path(),
        Some(&sealed),
        Isolation::Inplace,
        &cmd(&["pytest"]),
    )
    .unwrap();
    let sealed_real = fs::canonicalize(&sealed).unwrap();
    let own = sealed_real.join("pytest.ini");
    assert_eq!(args(&ws)[6..], ["-c".to_owned(), own.display().to_string()]);
    // pytest finds the sealed `pytest.ini` first from `pytest tests/sealed`, and its directory
    // is then the rootdir that names the tests: gapscore passes the same one.
    assert_eq!(args(&ws)[5], format!("--rootdir={}", sealed_real.display()));
}

#[test]
fn the_sealed_pytest_ini_keeps_its_own_pythonpath_and_a_quote_is_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("it's here");
    write(
        &project,
        "tests/sealed/pytest.ini",
        "[pytest]\npythonpath = ../..\n",
    );
    let sealed = project.join("tests/sealed");
    let ws = prepare(
        &project,
        Some(&sealed),
        Isolation::Inplace,
        &cmd(&["pytest"]),
    )
    .unwrap();
    assert!(
        !args(&ws).iter().any(|a| a.starts_with("pythonpath")),
        "{:?}",
        args(&ws)
    );
    fs::remove_file(sealed.join("pytest.ini")).unwrap();
    let ws = prepare(
        &project,
        Some(&sealed),
        Isolation::Inplace,
        &cmd(&["pytest"]),
    )
    .unwrap();
    // pytest splits the value like a shell: 'a'\''b' is a'b.
    let quoted = ws.dir.display().to_string().replace('\'', "'\\''");
    assert_eq!(args(&ws)[3], format!("pythonpath='{quoted}'"));
}

#[test]
fn pytest_without_a_sealed_directory_gets_no_confinement_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = prepare(tmp.path(), None, Isolation::Inplace, &cmd(&["pytest"])).unwrap();
    let pythonpath = format!("pythonpath='{}'", ws.dir.display());
    assert_eq!(args(&ws), ["-p", "no:cacheprovider", "-o", &pythonpath]);
    assert!(
        ws.notes.iter().any(|n| n.contains("not confined")),
        "{:?}",
        ws.notes
    );
}

#[test]
fn python_m_pytest_is_refused_when_the_workspace_shadows_pytest() {
    let has_pytest = std::process::Command::new("python3")
        .args(["-m", "pytest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pytest {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "pytest.py", "print('fake')\n");
    for isolation in [Isolation::Inplace, Isolation::Copy] {
        let command = cmd(&["python3", "-m", "pytest"]);
        let mut ws = prepare(tmp.path(), None, isolation, &command).unwrap();
        let err = ws
            .confine_env(tmp.path(), &command, std::env::vars_os(), &[], false)
            .unwrap_err();
        assert_eq!(err.code().as_str(), "E040");
        assert!(
            err.to_string().contains("`pytest` in the workspace"),
            "{err}"
        );
        // Trusted, it runs, and what was trusted is returned for the report.
        let mut ws = prepare(tmp.path(), None, isolation, &command).unwrap();
        let trusted = ws
            .confine_env(tmp.path(), &command, std::env::vars_os(), &[], true)
            .unwrap();
        assert!(trusted[0].path.ends_with("pytest.py"), "{trusted:?}");
    }
}

#[test]
fn prove_reads_no_proverc() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = prepare(
        tmp.path(),
        None,
        Isolation::Inplace,
        &cmd(&["prove", "-v", "t"]),
    )
    .unwrap();
    assert_eq!(args(&ws), ["--norc"]);
    let ws = prepare(
        tmp.path(),
        None,
        Isolation::Inplace,
        &cmd(&["/usr/bin/prove", "t"]),
    )
    .unwrap();
    assert_eq!(args(&ws), ["--norc"]);
}

#[test]
fn every_kind_of_sealed_pytest_configuration_is_passed_and_read() {
    let has_pytest = std::process::Command::new("python3")
        .args(["-m", "pytest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    for (name, text) in [
        ("pytest.toml", "[pytest]\npython_files = [\"check_*.py\"]\n"),
        (
            "pyproject.toml",
            "[project]\nname = \"x\"\n\n[tool.pytest.ini_options]\npython_files = [\"check_*.py\"]\n",
        ),
        (
            "tox.ini",
            "[tox]\nenvlist = py\n\n[pytest]\npython_files = check_*.py\n",
        ),
        (
            "setup.cfg",
            "[metadata]\nname = x\n\n[tool:pytest]\npython_files = check_*.py\n",
        ),
        (".pytest.ini", "[pytest]\npython_files = check_*.py\n"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), &format!("tests/sealed/{name}"), text);
        write(
            tmp.path(),
            "tests/sealed/check_a.py",
            "def test_a():\n    assert True\n",
        );
        let sealed = tmp.path().join("tests/sealed");
        let command = cmd(&["python3", "-m", "pytest", "tests/sealed"]);
        let ws = prepare(tmp.path(), Some(&sealed), Isolation::Inplace, &command).unwrap();
        let own = fs::canonicalize(&sealed).unwrap().join(name);
        let a = args(&ws);
        assert_eq!(
            a[a.len() - 2..],
            ["-c".to_owned(), own.display().to_string()],
            "{name}"
        );
        if has_pytest {
            // pytest 9 reads each kind given with -c: check_a.py is collected only through it.
            let out = std::process::Command::new("python3")
                .args(["-m", "pytest", "tests/sealed"])
                .args(&ws.extra_args)
                .current_dir(&ws.dir)
                .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    }
    // A pyproject.toml without pytest's section is not pytest's configuration.
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        "tests/sealed/pyproject.toml",
        "[project]\nname = \"x\"\n",
    );
    let sealed = tmp.path().join("tests/sealed");
    let ws = prepare(
        tmp.path(),
        Some(&sealed),
        Isolation::Inplace,
        &cmd(&["pytest"]),
    )
    .unwrap();
    assert!(
        args(&ws)
            .last()
            .unwrap()
            .ends_with("gapscore-scratch/pytest.ini")
    );
}
