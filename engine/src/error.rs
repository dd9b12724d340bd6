//! The engine's error: what stops a command before it has an answer. Every variant is exit
//! code 2 ([`ExitCode::Error`]); I/O errors keep the operating system's error as their source
//! (print them with [`crate::fs::chain`]).

use gapscore_core::Code;
use gapscore_core::hash::HashFormatError;
use gapscore_core::seal::ExcludeError;

use crate::exit::ExitCode;
use crate::fs::FsError;

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
    /// The error's stable code (`gapscore explain CODE`).
    pub fn code(&self) -> Code {
        match self {
            Error::Fs(_) => Code::FileIo,
            Error::Usage(_) => Code::UsageError,
            Error::Input(_) => Code::BadInputFile,
            Error::Exclude(_) => Code::BadExcludeGlob,
            Error::Hash(_) => Code::BadHash,
        }
    }

    /// The exit code this error ends a command with.
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::Error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_has_its_own_code() {
        let errors = [
            Error::Usage("x".into()),
            Error::Input("x".into()),
            Error::Fs(FsError::read(
                std::path::Path::new("p"),
                std::io::Error::other("x"),
            )),
        ];
        let codes: Vec<Code> = errors.iter().map(Error::code).collect();
        assert_eq!(codes, [Code::UsageError, Code::BadInputFile, Code::FileIo]);
        assert!(codes.iter().all(|c| c.as_str().starts_with('E')));
    }
}
