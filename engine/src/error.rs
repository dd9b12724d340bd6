//! The engine's error: what stops a command before it has an answer. Every variant is exit
//! code 2 ([`ExitCode::Error`]); I/O errors keep the operating system's error as their source
//! (print them with `gapscore_seal::sealed_dir::chain`).

use gapscore_seal::digest::HashFormatError;
use gapscore_seal::excludes::ExcludeError;
use gapscore_seal::sealed_dir::FsError;

use crate::exit::ExitCode;

/// Why a command could not do its job.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read or written.
    #[error(transparent)]
    Fs(#[from] FsError),
    /// Options that cannot be honoured together, or a value out of range.
    #[error("{0}")]
    Usage(String),
    /// An input (a rules file, a history) that is not what it must be; the message names it.
    #[error("{0}")]
    Input(String),
    /// An `--exclude` glob that does not compile.
    #[error(transparent)]
    Exclude(#[from] ExcludeError),
    /// A hash that is not a SHA-256.
    #[error(transparent)]
    Hash(#[from] HashFormatError),
}

impl Error {
    /// The exit code this error ends a command with.
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::Error
    }
}

/// The seal crate's error, variant for variant: a command that seals or verifies reports and
/// exits as it did when sealing lived in the engine.
impl From<gapscore_seal::Error> for Error {
    fn from(e: gapscore_seal::Error) -> Self {
        match e {
            gapscore_seal::Error::Fs(e) => Error::Fs(e),
            gapscore_seal::Error::Usage(m) => Error::Usage(m),
            gapscore_seal::Error::Input(m) => Error::Input(m),
            gapscore_seal::Error::Exclude(e) => Error::Exclude(e),
            gapscore_seal::Error::Hash(e) => Error::Hash(e),
            // `gapscore_seal::Error` is non-exhaustive: a variant added there is a usage error
            // here until the engine names it.
            other => Error::Usage(other.to_string()),
        }
    }
}
