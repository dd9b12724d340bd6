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
        let ws = prepare(tmp.path(), None, isolation, &cmd(&["node", "--test"])).unwrap();
        assert_eq!(env(&ws, "PYTHONDONTWRITEBYTECODE").unwrap(), "1");
        let prefix = env(&ws, "PYTHONPYCACHEPREFIX").unwrap();
        assert!(std::path::Path::new(&prefix).starts_with(ws.temp_root()));
        assert!(std::path::Path::new(&prefix).is_dir());
        assert_eq!(env(&ws, "npm_config_node_options").unwrap(), " ");
        for name in [
            "PYTEST_ADDOPTS",
            "PYTEST_PLUGINS",
            "NODE_OPTIONS",
            "PERL5OPT",
            "HARNESS_PERL_SWITCHES",
            "GOFLAGS",
        ] {
            assert!(ws.env_remove.iter().any(|n| n == name), "{name}");
        }
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
    let sealed = fs::canonicalize(&sealed).unwrap();
    let own = sealed.join("pytest.ini");
    assert_eq!(args(&ws)[4..], ["-c".to_owned(), own.display().to_string()]);
    // pytest finds the sealed `pytest.ini` first from `pytest tests/sealed`, and its directory
    // is then the rootdir that names the tests: gapscore passes the same one.
    assert_eq!(args(&ws)[3], format!("--rootdir={}", sealed.display()));
}

#[test]
fn pytest_without_a_sealed_directory_gets_no_confinement_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = prepare(tmp.path(), None, Isolation::Inplace, &cmd(&["pytest"])).unwrap();
    assert_eq!(args(&ws), ["-p", "no:cacheprovider"]);
    assert!(
        ws.notes.iter().any(|n| n.contains("not confined")),
        "{:?}",
        ws.notes
    );
}

#[test]
fn python_m_pytest_is_refused_when_the_working_directory_shadows_pytest() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "pytest.py", "print('fake')\n");
    for isolation in [Isolation::Inplace, Isolation::Copy] {
        let err = prepare(
            tmp.path(),
            None,
            isolation,
            &cmd(&["python3", "-m", "pytest"]),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("instead of pytest's own `pytest`"),
            "{err}"
        );
        prepare(tmp.path(), None, isolation, &cmd(&["pytest"])).unwrap();
    }
    fs::remove_file(tmp.path().join("pytest.py")).unwrap();
    write(tmp.path(), "_pytest/__init__.py", "\n");
    assert!(
        prepare(
            tmp.path(),
            None,
            Isolation::Copy,
            &cmd(&["python", "-m", "pytest"])
        )
        .is_err()
    );
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
