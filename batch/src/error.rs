//! Errors that stop a whole batch (a broken repository is an error row, not one of these).

use std::path::PathBuf;

use gapscore_seal::sealed_dir::FsError;

/// Why a batch could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BatchError {
    /// A file or directory the batch needs could not be read, or an output could not be
    /// written (the OS error is the source).
    #[error(transparent)]
    Fs(#[from] FsError),
    /// The manifest is not valid.
    #[error("{}:{line}: {message}", .path.display())]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// 1-based line (the entry's first line for TOML errors without a place).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A manifest path leaves the manifest's directory.
    #[error("repo `{repo}`: `{path}` is outside the manifest root `{}` (pass --allow-outside to allow it)", .root.display())]
    Outside {
        /// The repository entry.
        repo: String,
        /// The path as written.
        path: String,
        /// The manifest root.
        root: PathBuf,
    },
    /// A repository name that cannot name its output files.
    #[error("invalid repository name `{name}`: {reason}")]
    Name {
        /// The name.
        name: String,
        /// Why.
        reason: String,
    },
    /// Two repositories with one name.
    #[error("repository `{name}` is listed twice")]
    Duplicate {
        /// The name.
        name: String,
    },
    /// `--shard` is not `K/N` with 1 ≤ K ≤ N.
    #[error("invalid shard `{0}`: expected K/N with 1 <= K <= N (for example 2/8)")]
    Shard(String),
    /// A shard output directory cannot be merged.
    #[error("cannot merge `{}`: {reason}", .dir.display())]
    Merge {
        /// The shard output directory.
        dir: PathBuf,
        /// Why.
        reason: String,
    },
}
