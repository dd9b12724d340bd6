//! The seal crate's error: what stops sealing, a verification or a plurality check before it
//! has an answer. The engine maps each variant onto its own error of the same name
//! (`gapscore_engine::Error`), so a command that seals or verifies reports and exits as for any
//! engine error; I/O errors keep the operating system's error as their source (print them with
//! [`crate::sealed_dir::chain`]).

use crate::digest::HashFormatError;
use crate::excludes::ExcludeError;
use crate::sealed_dir::FsError;

/// Why sealing or a seal check could not be done.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read or written.
    #[error(transparent)]
    Fs(#[from] FsError),
    /// Options that cannot be honoured together, or an argument that is not what it must be.
    #[error("{0}")]
    Usage(String),
    /// An input (a record, a contradictions file, a canary) that is not what it must be; the
    /// message names it.
    #[error("{0}")]
    Input(String),
    /// An `--exclude` glob that does not compile.
    #[error(transparent)]
    Exclude(#[from] ExcludeError),
    /// A hash that is not a SHA-256.
    #[error(transparent)]
    Hash(#[from] HashFormatError),
}
