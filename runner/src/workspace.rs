//! The disposable verification workspace (spec v2 §4.3) and the environment for a run.
//!
//! [`prepare`] always neutralises caches and configuration doors the implementer could use to
//! change what the sealed tests do (see `docs/run-recipes.md`):
//!
//! - Python bytecode: `PYTHONDONTWRITEBYTECODE=1`, and `PYTHONPYCACHEPREFIX` pointing into a
//!   scratch directory the [`Workspace`] owns, so Python neither writes `__pycache__` beside the
//!   tests nor reads planted bytecode from one.
//! - The environment variables in which options or modules for a runner hide are removed
//!   ([`Workspace::env_remove`]), and npm's `node-options` setting (which a planted `.npmrc` can
//!   set) is overridden with a blank value.
//! - pytest (when recognised): `-p no:cacheprovider`; with a sealed directory also
//!   `--confcutdir` at it (no `conftest.py` above it loads), `--rootdir` where pytest itself
//!   would put it for the same command (so test ids match a run without gapscore), and `-c` with the
//!   sealed directory's `pytest.ini` or an empty one of gapscore's (no `pytest.ini`,
//!   `pyproject.toml`, `tox.ini` or `setup.cfg` of the project applies); plugin autoloading off
//!   (`PYTEST_DISABLE_PLUGIN_AUTOLOAD=1`: a planted `*.dist-info` with a `pytest11` entry point
//!   is a plugin). A `python -m pytest` run is refused when the working directory holds a module
//!   named like pytest's own, which `python -m` would import instead.
//! - prove (when recognised): `--norc` (no `.proverc`).
//!
//! With [`Isolation::Copy`] the project is copied (see `copy.rs` for the rules: `.gitignore`
//! obeyed, `.git` left out, links kept only when they stay inside) into a temporary directory,
//! and the verified sealed directory is placed in the copy: at its own relative place when it is
//! inside the project, else at `sealed/`. Whatever the copy had there is replaced, never merged.
//! Everything is deleted when the [`Workspace`] is dropped.

mod copy;
mod runners;

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use gapscore_model::PathRoot;
use runners::Runner;

use crate::exec::ExecOptions;

/// Where the command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Isolation {
    /// In the project directory itself.
    Inplace,
    /// In a temporary copy of the project, deleted afterwards.
    Copy,
}

/// A prepared place to run in: the directory, extra environment and arguments, and the
/// temporary directory (the project copy, the bytecode cache, gapscore's empty pytest
/// configuration) that is deleted when this is dropped.
#[derive(Debug)]
pub struct Workspace {
    /// How the run is isolated.
    pub isolation: Isolation,
    /// The directory the command runs in.
    pub dir: PathBuf,
    /// The sealed directory as seen from inside the workspace (absolute).
    pub sealed_dir: Option<PathBuf>,
    /// Environment variables to set for the command (cache neutralisation and the like).
    pub env: Vec<(OsString, OsString)>,
    /// Environment variables to remove for the command (options and modules for runners).
    pub env_remove: Vec<OsString>,
    /// Arguments to add after the command's own, for runners where gapscore knows how to confine
    /// configuration to the sealed directory (pytest `--confcutdir`, `-c`).
    pub extra_args: Vec<OsString>,
    /// What gapscore did to isolate the run, one line each, for the report.
    pub notes: Vec<String>,
    /// Owns every temporary file; dropping it deletes them.
    temp: tempfile::TempDir,
}

impl Workspace {
    /// The temporary directory this workspace deletes when dropped (it holds the project copy,
    /// if any, and gapscore's scratch files).
    pub fn temp_root(&self) -> &Path {
        self.temp.path()
    }

    /// How to run `command` here: in [`Workspace::dir`], with the arguments and environment
    /// this workspace adds. `gapscore run` and `gapscore seal --expect-run` both start their
    /// command through it, so the two see the same runner and name tests the same way.
    pub fn exec_options(&self, command: &[OsString]) -> ExecOptions {
        let mut full = command.to_vec();
        full.extend(self.extra_args.iter().cloned());
        let mut exec = ExecOptions::new(full, &self.dir);
        exec.env.clone_from(&self.env);
        exec.env_remove.clone_from(&self.env_remove);
        exec
    }

    /// Where the command runs, as a runner that names tests by absolute path (Jest, Vitest)
    /// writes it: the real path of [`Workspace::dir`]. The results of a run are read relative to
    /// it, so their ids do not depend on where the workspace was (a copy is a new temporary
    /// directory each time). `None` when the path is not UTF-8.
    pub fn paths_root(&self) -> Option<PathRoot> {
        let real = fs::canonicalize(&self.dir).unwrap_or_else(|_| self.dir.clone());
        PathRoot::new(real.to_str()?)
    }
}

/// The scratch directory's name inside the temporary directory.
const SCRATCH: &str = "gapscore-scratch";
/// Where a sealed directory from outside the project is placed in the copy.
const OUTSIDE_SEALED_PLACE: &str = "sealed";

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// Prepares the workspace for `command` run from `project`, with the sealed tests in `sealed_dir`.
///
/// `sealed_dir` is the directory whose seal was verified; in a copy it is copied from there. It
/// must not be the project directory or hold it.
pub fn prepare(
    project: &Path,
    sealed_dir: Option<&Path>,
    isolation: Isolation,
    command: &[OsString],
) -> io::Result<Workspace> {
    let project = fs::canonicalize(project)?;
    let sealed = sealed_dir.map(fs::canonicalize).transpose()?;
    if let Some(sealed) = &sealed
        && project.starts_with(sealed)
    {
        return Err(invalid(format!(
            "the sealed directory {} holds the project {}: the sealed tests must be a directory \
             of their own",
            sealed.display(),
            project.display()
        )));
    }
    let temp = tempfile::Builder::new().prefix("gapscore-run-").tempdir()?;
    let scratch = temp.path().join(SCRATCH);
    fs::create_dir(&scratch)?;
    let mut notes = Vec::new();

    let (dir, sealed_in_ws) = match isolation {
        Isolation::Inplace => {
            notes.push(format!(
                "workspace inplace: the command runs in the project directory {}",
                project.display()
            ));
            (project.clone(), sealed.clone())
        }
        Isolation::Copy => copy_workspace(&project, sealed.as_deref(), temp.path(), &mut notes)?,
    };

    let mut ws = Workspace {
        isolation,
        dir,
        sealed_dir: sealed_in_ws,
        env: Vec::new(),
        env_remove: Vec::new(),
        extra_args: Vec::new(),
        notes,
        temp,
    };
    neutralise_env(&mut ws, &scratch)?;
    match runners::recognise(command) {
        Runner::Pytest { via_python_m } => confine_pytest(&mut ws, &scratch, via_python_m)?,
        Runner::Prove => {
            ws.extra_args.push("--norc".into());
            ws.notes
                .push("prove: --norc (no .proverc is read)".to_owned());
        }
        Runner::Other => ws.notes.push(
            "command not recognised as pytest or prove: no runner-specific confinement (see \
             docs/run-recipes.md)"
                .to_owned(),
        ),
    }
    Ok(ws)
}

/// Copies the project into `root` and places the sealed tests; returns the run directory and
/// the sealed directory's place in the copy.
fn copy_workspace(
    project: &Path,
    sealed: Option<&Path>,
    root: &Path,
    notes: &mut Vec<String>,
) -> io::Result<(PathBuf, Option<PathBuf>)> {
    let name = project
        .file_name()
        .filter(|n| *n != SCRATCH)
        .unwrap_or_else(|| "project".as_ref());
    let dir = root.join(name);
    fs::create_dir(&dir)?;
    let place = sealed.map(|s| match s.strip_prefix(project) {
        Ok(rel) => rel.to_owned(),
        Err(_) => PathBuf::from(OUTSIDE_SEALED_PLACE),
    });
    let skip = place.as_ref().map(|rel| project.join(rel));
    let report = copy::copy_project(project, &dir, skip.as_deref())?;
    notes.push(format!(
        "workspace copy: {} copied to {} ({} files; .gitignore obeyed, .git left out), deleted \
         after the run",
        project.display(),
        dir.display(),
        report.files
    ));
    for (link, target) in &report.outside_links {
        notes.push(format!(
            "left out of the copy: link {} -> {} (it could point out of the project)",
            link.display(),
            target.display()
        ));
    }
    for path in &report.special {
        notes.push(format!(
            "left out of the copy: {} (not a file, directory or link)",
            path.display()
        ));
    }
    let sealed_in_ws = match (sealed, place) {
        (Some(sealed), Some(rel)) => {
            let files = copy::place_sealed(sealed, &dir, &rel)?;
            notes.push(format!(
                "sealed tests: {} ({files} files) placed at {} in the copy, replacing whatever \
                 the project had there",
                sealed.display(),
                rel.display()
            ));
            Some(dir.join(rel))
        }
        _ => None,
    };
    Ok((dir, sealed_in_ws))
}

/// The environment every command gets.
fn neutralise_env(ws: &mut Workspace, scratch: &Path) -> io::Result<()> {
    let pycache = scratch.join("pycache");
    fs::create_dir(&pycache)?;
    ws.env.push(("PYTHONDONTWRITEBYTECODE".into(), "1".into()));
    ws.notes
        .push("PYTHONDONTWRITEBYTECODE=1 (Python writes no __pycache__)".to_owned());
    ws.notes.push(format!(
        "PYTHONPYCACHEPREFIX={} (Python reads no bytecode from __pycache__ directories)",
        pycache.display()
    ));
    ws.env
        .push(("PYTHONPYCACHEPREFIX".into(), pycache.into_os_string()));
    ws.env.push(("npm_config_node_options".into(), " ".into()));
    ws.notes.push(
        "npm_config_node_options=\" \" (npm ignores a node-options setting in .npmrc)".to_owned(),
    );
    ws.env_remove
        .extend(runners::ENV_REMOVE.iter().map(OsString::from));
    ws.notes.push(format!(
        "removed from the environment: {}",
        runners::ENV_REMOVE.join(", ")
    ));
    Ok(())
}

/// pytest's arguments and environment.
fn confine_pytest(ws: &mut Workspace, scratch: &Path, via_python_m: bool) -> io::Result<()> {
    if via_python_m {
        for name in runners::PYTEST_SHADOWS {
            for planted in [ws.dir.join(format!("{name}.py")), ws.dir.join(name)] {
                if fs::symlink_metadata(&planted).is_ok() {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "{} would be imported instead of pytest's own `{name}` by \
                             `python -m pytest` (the working directory comes first on sys.path): \
                             remove it, or run the `pytest` script",
                            planted.display()
                        ),
                    ));
                }
            }
        }
    }
    ws.extra_args
        .extend(["-p".into(), "no:cacheprovider".into()]);
    ws.notes
        .push("pytest: -p no:cacheprovider (no .pytest_cache)".to_owned());
    ws.env
        .push(("PYTEST_DISABLE_PLUGIN_AUTOLOAD".into(), "1".into()));
    ws.notes.push(
        "pytest: PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 (no installed or planted plugin loads unless the \
         command names it with -p)"
            .to_owned(),
    );
    let Some(sealed) = ws.sealed_dir.clone() else {
        ws.notes.push(
            "pytest: no sealed directory, so conftest.py files and configuration are not confined"
                .to_owned(),
        );
        return Ok(());
    };
    let sealed_ini = runners::SEALED_PYTEST_INI
        .iter()
        .map(|name| sealed.join(name))
        .find(|path| path.is_file());
    // The rootdir names every test (JUnit classnames, node ids), so it is the one pytest picks
    // for the documented `seal --expect` run of the same command: the sealed directory when it
    // holds its own `pytest.ini` (pytest finds it first, from the paths given), else the
    // directory the command runs in. Which conftest files load is `--confcutdir`'s business.
    let rootdir_path = sealed_ini
        .as_ref()
        .map_or_else(|| ws.dir.clone(), |_| sealed.clone());
    let mut confcut = OsString::from("--confcutdir=");
    confcut.push(&sealed);
    let mut rootdir = OsString::from("--rootdir=");
    rootdir.push(&rootdir_path);
    ws.extra_args.extend([confcut, rootdir]);
    ws.notes.push(format!(
        "pytest: --confcutdir {} (no conftest.py outside the sealed directory loads)",
        sealed.display()
    ));
    ws.notes.push(format!(
        "pytest: --rootdir {} (test ids as pytest names them when run there without gapscore)",
        rootdir_path.display()
    ));
    let ini = match sealed_ini {
        Some(own) => own,
        None => {
            let empty = scratch.join("pytest.ini");
            fs::write(&empty, "[pytest]\n")?;
            empty
        }
    };
    ws.notes.push(format!(
        "pytest: -c {} (no pytest.ini, pyproject.toml, tox.ini or setup.cfg of the project applies)",
        ini.display()
    ));
    ws.extra_args.extend(["-c".into(), ini.into_os_string()]);
    Ok(())
}
