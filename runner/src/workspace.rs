//! The disposable verification workspace (spec v2 §4.3) and the environment for a run.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Where the command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Isolation {
    /// In the project directory itself.
    Inplace,
    /// In a temporary copy of the project, deleted afterwards.
    Copy,
}

/// A prepared place to run in: the directory, extra environment and arguments, and (for a copy)
/// the temporary directory that is deleted when this is dropped.
#[derive(Debug)]
pub struct Workspace {
    /// How the run is isolated.
    pub isolation: Isolation,
    /// The directory the command runs in.
    pub dir: PathBuf,
    /// The sealed directory as seen from inside the workspace.
    pub sealed_dir: Option<PathBuf>,
    /// Environment variables to set for the command (cache neutralisation and the like).
    pub env: Vec<(OsString, OsString)>,
    /// Arguments to add after the command's own, for runners where gapscore knows how to confine
    /// configuration to the sealed directory (pytest `--confcutdir`/`--rootdir`).
    pub extra_args: Vec<OsString>,
    /// What gapscore did to isolate the run, one line each, for the report.
    pub notes: Vec<String>,
}

/// Prepares the workspace for `command` run from `project`, with the sealed tests in `sealed_dir`.
pub fn prepare(
    project: &Path,
    sealed_dir: Option<&Path>,
    isolation: Isolation,
    command: &[OsString],
) -> std::io::Result<Workspace> {
    let _ = command;
    Ok(Workspace {
        isolation,
        dir: project.to_owned(),
        sealed_dir: sealed_dir.map(Path::to_owned),
        env: Vec::new(),
        extra_args: Vec::new(),
        notes: Vec::new(),
    })
}
