//! The command's environment, default-deny (issue 32): the command gets an allowlist of
//! gapscore's own variables, never the whole environment gapscore was started with, which a CI
//! file or `.envrc` the implementer edits can fill (`PYTHONPATH` with a `sitecustomize.py`,
//! `PERL5LIB`, `NODE_PATH`).
//!
//! Passed on from gapscore's environment: `PATH`, `LANG`, `LC_*`, `TZ`, `TERM`, and each name
//! given with `--env NAME`. Set: `HOME` and `TMPDIR` in the run's temporary directory (so no
//! `~/.proverc`, `~/.npmrc`, user site-packages or cache outside the run is read), the values of
//! `--env NAME=VALUE`, and interpreters' isolated modes: `PYTHONSAFEPATH=1` (Python's `-P`: the
//! working directory or script directory is not put first on `sys.path`) and
//! `PYTHONNOUSERSITE=1`. Everything else is absent, which subsumes the old removal list
//! (`PYTEST_ADDOPTS`, `NODE_OPTIONS`, `PERL5OPT`, ...): those are only present when `--env` names
//! them.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::path::Path;
use std::str::FromStr;

/// Names passed on from gapscore's environment to every command (with every `LC_*`).
pub const PASSED: &[&str] = &["PATH", "LANG", "TZ", "TERM"];

/// Interpreters' isolated modes, set for every command (gapscore's values win over `--env`).
pub const ISOLATED_MODES: &[(&str, &str)] = &[("PYTHONSAFEPATH", "1"), ("PYTHONNOUSERSITE", "1")];

/// The `PATH` a command gets when gapscore's own environment has none.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// One `--env` argument: a name passed on from gapscore's environment, or a name and value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvPass {
    /// `--env NAME`: passed on when gapscore's environment has it.
    Inherit(OsString),
    /// `--env NAME=VALUE`.
    Set(OsString, OsString),
}

impl EnvPass {
    /// The variable's name.
    pub fn name(&self) -> &OsStr {
        match self {
            EnvPass::Inherit(n) | EnvPass::Set(n, _) => n,
        }
    }
}

impl FromStr for EnvPass {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (name, value) = match s.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (s, None),
        };
        if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) {
            return Err(format!(
                "`{name}` is not a variable name (letters, digits and `_`)"
            ));
        }
        Ok(match value {
            Some(v) => EnvPass::Set(name.into(), v.into()),
            None => EnvPass::Inherit(name.into()),
        })
    }
}

/// The command's whole environment, and one note for the report per decision.
#[derive(Debug, Clone, Default)]
pub struct RunEnv {
    /// Every variable the command gets (it gets nothing else).
    pub vars: Vec<(OsString, OsString)>,
    /// What was passed and set, names only for values that came from gapscore's environment.
    pub notes: Vec<String>,
}

impl RunEnv {
    /// The value the command gets for `name`.
    pub fn get(&self, name: &str) -> Option<&OsStr> {
        self.vars
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_os_str())
    }

    fn set(&mut self, name: impl Into<OsString>, value: impl Into<OsString>) {
        let name = name.into();
        self.vars.retain(|(k, _)| *k != name);
        self.vars.push((name, value.into()));
    }
}

fn is_passed(name: &OsStr) -> bool {
    name.to_str()
        .is_some_and(|n| PASSED.contains(&n) || n.starts_with("LC_"))
}

/// Builds the command's environment from `parent` (gapscore's own), `pass` (the `--env`
/// arguments) and `gapscore_set` (gapscore's neutralisation, which wins over everything), with
/// `HOME` and `TMPDIR` made as directories under `scratch`.
pub fn build(
    parent: impl IntoIterator<Item = (OsString, OsString)>,
    scratch: &Path,
    pass: &[EnvPass],
    gapscore_set: &[(OsString, OsString)],
) -> io::Result<RunEnv> {
    let parent: Vec<(OsString, OsString)> = parent.into_iter().collect();
    let mut env = RunEnv::default();
    let mut passed: Vec<String> = Vec::new();
    for (k, v) in &parent {
        if is_passed(k) {
            passed.push(k.to_string_lossy().into_owned());
            env.set(k.clone(), v.clone());
        }
    }
    if env.get("PATH").is_none() {
        env.set("PATH", DEFAULT_PATH);
        env.notes.push(format!(
            "PATH={DEFAULT_PATH} (gapscore's environment has none)"
        ));
    }
    passed.sort();
    env.notes.push(format!(
        "environment: default-deny; passed on from gapscore's: {}",
        passed.join(", ")
    ));
    for (name, dir) in [("HOME", "home"), ("TMPDIR", "tmp")] {
        let path = scratch.join(dir);
        fs::create_dir_all(&path)?;
        env.notes.push(format!(
            "{name}={} (empty, deleted after the run)",
            path.display()
        ));
        env.set(name, path.into_os_string());
    }
    for p in pass {
        let shown = p.name().to_string_lossy().into_owned();
        match p {
            EnvPass::Inherit(name) => match parent.iter().rev().find(|(k, _)| k == name) {
                Some((_, v)) => {
                    env.set(name.clone(), v.clone());
                    env.notes
                        .push(format!("--env {shown}: passed on (value not shown)"));
                }
                None => env.notes.push(format!(
                    "--env {shown}: not set in gapscore's environment, so not passed"
                )),
            },
            EnvPass::Set(name, value) => {
                env.set(name.clone(), value.clone());
                env.notes
                    .push(format!("--env {shown}=…: set (value not shown)"));
            }
        }
    }
    let own = ISOLATED_MODES
        .iter()
        .map(|(k, v)| (OsString::from(k), OsString::from(v)))
        .chain(gapscore_set.iter().cloned());
    for (k, v) in own {
        if pass.iter().any(|p| p.name() == k) {
            env.notes.push(format!(
                "--env {}: gapscore sets it itself, so its own value is kept",
                k.to_string_lossy()
            ));
        }
        env.set(k, v);
    }
    env.notes.push(
        "PYTHONSAFEPATH=1, PYTHONNOUSERSITE=1 (Python puts neither the working directory nor the \
         user site on sys.path)"
            .to_owned(),
    );
    Ok(env)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    }

    #[test]
    fn only_the_allowlist_and_what_env_names_pass() {
        let dir = tempfile::tempdir().unwrap();
        let parent = vars(&[
            ("PATH", "/bin"),
            ("LC_ALL", "C"),
            ("PYTHONPATH", "/evil"),
            ("PERL5LIB", "/evil"),
            ("NODE_OPTIONS", "--require /evil.js"),
            ("CI", "true"),
            ("HOME", "/root"),
        ]);
        let pass = ["CI".parse().unwrap(), "X=1".parse().unwrap()];
        let env = build(
            parent,
            dir.path(),
            &pass,
            &vars(&[("PYTHONDONTWRITEBYTECODE", "1")]),
        )
        .unwrap();
        let mut names: Vec<_> = env.vars.iter().map(|(k, _)| k.to_str().unwrap()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "CI",
                "HOME",
                "LC_ALL",
                "PATH",
                "PYTHONDONTWRITEBYTECODE",
                "PYTHONNOUSERSITE",
                "PYTHONSAFEPATH",
                "TMPDIR",
                "X"
            ]
        );
        assert_eq!(
            env.get("HOME").unwrap(),
            dir.path().join("home").as_os_str()
        );
        assert!(dir.path().join("tmp").is_dir());
        assert!(
            env.notes
                .iter()
                .any(|n| n == "--env CI: passed on (value not shown)")
        );
    }

    #[test]
    fn gapscore_values_win_over_env() {
        let dir = tempfile::tempdir().unwrap();
        let pass = ["PYTHONSAFEPATH=0".parse().unwrap()];
        let env = build(Vec::new(), dir.path(), &pass, &[]).unwrap();
        assert_eq!(env.get("PYTHONSAFEPATH").unwrap(), "1");
        assert_eq!(env.get("PATH").unwrap(), DEFAULT_PATH);
    }

    #[test]
    fn env_arguments_are_names() {
        assert!("A-B".parse::<EnvPass>().is_err());
        assert!("=1".parse::<EnvPass>().is_err());
        assert_eq!(
            "A=b=c".parse::<EnvPass>().unwrap(),
            EnvPass::Set("A".into(), "b=c".into())
        );
    }
}
