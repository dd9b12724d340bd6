//! The disposable verification workspace (spec v2 §4.3) and the environment for a run.
//!
//! [`prepare`] always neutralises caches and configuration doors the implementer could use to
//! change what the sealed tests do (see `docs/run-recipes.md`):
//!
//! - Python bytecode: `PYTHONDONTWRITEBYTECODE=1`, and `PYTHONPYCACHEPREFIX` pointing into a
//!   scratch directory the [`Workspace`] owns, so Python neither writes `__pycache__` beside the
//!   tests nor reads planted bytecode from one.
//! - npm's `node-options` setting (which a planted `.npmrc` can set) is overridden with a blank
//!   value.
//! - pytest (when recognised): `-p no:cacheprovider`; with a sealed directory also
//!   `--confcutdir` at it (no `conftest.py` above it loads), `--rootdir` where pytest itself
//!   would put it for the same command (so test ids match a run without gapscore), and `-c` with the
//!   sealed directory's own configuration (`pytest.toml`, `pytest.ini`, `pyproject.toml`,
//!   `tox.ini`, `setup.cfg`) or an empty one of gapscore's (no `pytest.ini`,
//!   `pyproject.toml`, `tox.ini` or `setup.cfg` of the project applies); plugin autoloading off
//!   (`PYTEST_DISABLE_PLUGIN_AUTOLOAD=1`: a planted `*.dist-info` with a `pytest11` entry point
//!   is a plugin); `-o pythonpath=<the workspace directory>` (unless the sealed configuration sets
//!   `pythonpath`), so the implementation imports from the project root once pytest and its
//!   start-up imports are loaded, never before them (`PYTHONSAFEPATH` keeps the working directory
//!   off `sys.path` at start-up).
//! - prove (when recognised): `--norc` (no `.proverc`).
//!
//! [`Workspace::confine_env`] then builds the command's default-deny environment
//! ([`crate::environment`]) and follows the command to the runner and its framework
//! (`resolve.rs`): one that resolves inside the workspace is refused unless trusted.
//!
//! With [`Isolation::Copy`] the project is copied (see `copy.rs` for the rules: `.gitignore`
//! obeyed, `.git` left out, links kept only when they stay inside) into a temporary directory,
//! and the verified sealed directory is placed in the copy: at its own relative place when it is
//! inside the project, else at `sealed/`. Whatever the copy had there is replaced, never merged.
//! Everything is deleted when the [`Workspace`] is dropped.

mod copy;
mod resolve;
mod runners;
mod shell;

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

pub use copy::CopySize;
use gapscore_model::PathRoot;
use resolve::Roots;
pub use resolve::WorkspaceRunner;
use runners::Runner;
pub use runners::plugin_autoload_hint;
pub use shell::{ThroughShell, through_shell};

use crate::environment::{self, EnvPass, RunEnv};
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
    /// gapscore's own environment variables for the command (cache neutralisation and the
    /// like); [`Workspace::confine_env`] builds the whole environment around them.
    pub env: Vec<(OsString, OsString)>,
    /// Arguments to add after the command's own, for runners where gapscore knows how to confine
    /// configuration to the sealed directory (pytest `--confcutdir`, `-c`).
    pub extra_args: Vec<OsString>,
    /// What gapscore did to isolate the run, one line each, for the report.
    pub notes: Vec<String>,
    /// Directories pytest puts on `sys.path` (its `pythonpath`, and the directory it prepends
    /// for each sealed test file): a module in one may not hide one the interpreter has.
    pytest_path_dirs: Vec<PathBuf>,
    /// `__init__.py` files outside the sealed directory that pytest imports because the sealed
    /// tests are a package inside the project's package: the workspace's code, run at import.
    pytest_package_inits: Vec<PathBuf>,
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
        // The whole environment is gapscore's (`confine_env` built it): nothing else passes.
        exec.env.clone_from(&self.env);
        exec.clear_env = true;
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
    prepare_with(project, sealed_dir, isolation, command, &mut |_| {})
}

/// [`prepare`], telling `on_copy` how large the project copy is before it starts (with
/// [`Isolation::Copy`]; never called in place), so the caller can announce a large one.
pub fn prepare_with(
    project: &Path,
    sealed_dir: Option<&Path>,
    isolation: Isolation,
    command: &[OsString],
    on_copy: &mut dyn FnMut(CopySize),
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
        Isolation::Copy => copy_workspace(
            &project,
            sealed.as_deref(),
            temp.path(),
            &mut notes,
            on_copy,
        )?,
    };

    let mut ws = Workspace {
        isolation,
        dir,
        sealed_dir: sealed_in_ws,
        env: Vec::new(),
        extra_args: Vec::new(),
        notes,
        pytest_path_dirs: Vec::new(),
        pytest_package_inits: Vec::new(),
        temp,
    };
    neutralise_env(&mut ws, &scratch)?;
    match runners::recognise(command) {
        Runner::Pytest { .. } => confine_pytest(&mut ws, &scratch)?,
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
    on_copy: &mut dyn FnMut(CopySize),
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
    let report = copy::copy_project(project, &dir, skip.as_deref(), on_copy)?;
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
    Ok(())
}

/// pytest's arguments and environment.
fn confine_pytest(ws: &mut Workspace, scratch: &Path) -> io::Result<()> {
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
    let sealed_ini = ws
        .sealed_dir
        .as_deref()
        .and_then(runners::sealed_pytest_config);
    pytest_pythonpath(ws, sealed_ini.as_deref());
    let Some(sealed) = ws.sealed_dir.clone() else {
        ws.notes.push(
            "pytest: no sealed directory, so conftest.py files and configuration are not confined"
                .to_owned(),
        );
        return Ok(());
    };
    let (prepended, inits) = prepended_dirs(&sealed);
    ws.pytest_path_dirs.extend(prepended);
    ws.pytest_package_inits = inits;
    // The rootdir names every test (JUnit classnames, node ids), so it is the one pytest picks
    // for the documented `seal --expect` run of the same command: the sealed directory when it
    // holds its own configuration (pytest finds it first, from the paths given), else the
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

/// pytest's `pythonpath`, the workspace directory: the honest way for sealed tests to import
/// the implementation from the project root, added by pytest after its own start-up imports.
/// A sealed configuration that sets `pythonpath` keeps its own; its entries are checked like
/// the workspace directory.
fn pytest_pythonpath(ws: &mut Workspace, sealed_ini: Option<&Path>) {
    if let Some(own) = sealed_ini.and_then(runners::config_pythonpath) {
        ws.pytest_path_dirs.extend(own);
        ws.notes
            .push("pytest: the sealed configuration's own pythonpath is used".to_owned());
        return;
    }
    // pytest splits the value like a shell.
    let quoted = ws.dir.to_string_lossy().replace('\'', "'\\''");
    ws.extra_args
        .extend(["-o".into(), format!("pythonpath='{quoted}'").into()]);
    ws.pytest_path_dirs.push(ws.dir.clone());
    ws.notes.push(format!(
        "pytest: -o pythonpath={} (the implementation imports from the workspace once pytest has \
         started; nothing of the workspace is on sys.path before)",
        ws.dir.display()
    ));
}

/// The directories pytest (import mode `prepend`) puts first on `sys.path` for the sealed
/// tests: for each Python file, the first directory upwards without an `__init__.py`. Besides
/// the sealed directory's own, which the seal covers. Also the `__init__.py` files above the
/// sealed directory on the way there: pytest imports each as a package of the sealed tests
/// (in every import mode), so the project's code in them runs.
fn prepended_dirs(sealed: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut inits: Vec<PathBuf> = Vec::new();
    let walk = ignore::WalkBuilder::new(sealed)
        .standard_filters(false)
        .build();
    for entry in walk.filter_map(Result::ok) {
        let p = entry.path();
        if p.extension().is_none_or(|e| e != "py") {
            continue;
        }
        let mut at = p.parent();
        while let Some(d) = at
            && d.join("__init__.py").is_file()
        {
            let init = d.join("__init__.py");
            if !d.starts_with(sealed) && !inits.contains(&init) {
                inits.push(init);
            }
            at = d.parent();
        }
        if let Some(d) = at
            && !d.starts_with(sealed)
            && !dirs.iter().any(|x| x == d)
        {
            dirs.push(d.to_owned());
        }
    }
    (dirs, inits)
}

/// The runner or a module of its framework resolves inside the workspace, and the run was not
/// told to trust it: exit 2, before the command starts.
#[derive(Debug)]
pub enum ConfineError {
    /// The temporary `HOME` or `TMPDIR` could not be made.
    Io(io::Error),
    /// What resolves inside the workspace.
    RunnerInWorkspace(Vec<WorkspaceRunner>),
}

impl std::fmt::Display for ConfineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfineError::Io(e) => write!(f, "cannot make the command's HOME or TMPDIR: {e}"),
            ConfineError::RunnerInWorkspace(found) => {
                write!(
                    f,
                    "refusing to run: the runner or its framework would be loaded from the \
                     workspace, which the implementer writes: "
                )?;
                for (i, w) in found.iter().enumerate() {
                    write!(f, "{}{w}", if i == 0 { "" } else { "; " })?;
                }
                write!(
                    f,
                    " (install the runner outside the project, or pass --trust-workspace-runner \
                     and the report records it)"
                )
            }
        }
    }
}

impl std::error::Error for ConfineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfineError::Io(e) => Some(e),
            ConfineError::RunnerInWorkspace(_) => None,
        }
    }
}

impl ConfineError {
    /// The registry code: [`gapscore_model::codes::Code::RunnerInWorkspace`], or
    /// [`gapscore_model::codes::Code::FileIo`].
    pub fn code(&self) -> gapscore_model::codes::Code {
        match self {
            ConfineError::Io(_) => gapscore_model::codes::Code::FileIo,
            ConfineError::RunnerInWorkspace(_) => gapscore_model::codes::Code::RunnerInWorkspace,
        }
    }
}

impl Workspace {
    /// Builds the command's default-deny environment from `parent` (gapscore's own) and the
    /// `--env` arguments, and follows `command` to its runner and framework. What resolves
    /// inside the workspace or `project` is refused, unless `trust`; then it is returned (for
    /// the report) and named in the notes. The environment is [`Workspace::env`] afterwards.
    pub fn confine_env(
        &mut self,
        project: &Path,
        command: &[OsString],
        parent: impl IntoIterator<Item = (OsString, OsString)>,
        pass: &[EnvPass],
        trust: bool,
    ) -> Result<Vec<WorkspaceRunner>, ConfineError> {
        let scratch = self.temp.path().join(SCRATCH);
        let run_env: RunEnv =
            environment::build(parent, &scratch, pass, &self.env).map_err(ConfineError::Io)?;
        self.notes.extend(run_env.notes.iter().cloned());
        for p in pass {
            if let Some(door) = runners::CODE_LOADING_ENV.iter().find(|d| p.name() == **d) {
                self.notes.push(format!(
                    "--env {door}: passed although it loads code into runners (your choice)"
                ));
            }
        }
        let roots = Roots::new(&[&self.dir, project]);
        let mut found =
            resolve::resolve(command, &self.dir, &run_env, &roots, &self.pytest_path_dirs);
        for init in &self.pytest_package_inits {
            found.found.push(WorkspaceRunner {
                what: "a package `__init__.py` above the sealed tests, which pytest imports as \
                       their package (the project's code, run before any sealed test)"
                    .to_owned(),
                path: init.clone(),
            });
        }
        self.notes.extend(found.notes);
        // Named where the user can look: the copy is deleted after the run.
        if let Ok(project) = fs::canonicalize(project) {
            for w in &mut found.found {
                if let Ok(rel) = w.path.strip_prefix(&self.dir) {
                    w.path = project.join(rel);
                }
            }
        }
        self.env = run_env.vars;
        if found.found.is_empty() {
            self.notes.push(
                "runner: the program and its framework resolve outside the workspace".to_owned(),
            );
            return Ok(Vec::new());
        }
        if !trust {
            return Err(ConfineError::RunnerInWorkspace(found.found));
        }
        for w in &found.found {
            self.notes
                .push(format!("--trust-workspace-runner: trusted {w}"));
        }
        Ok(found.found)
    }
}
