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
/// exits as for the engine's own errors.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_error_keeps_its_kind_and_its_message() {
        let usage = gapscore_seal::Error::Usage("`x` is neither a file nor a hash".into());
        let shown = usage.to_string();
        let e = Error::from(usage);
        assert!(matches!(&e, Error::Usage(m) if *m == shown));
        assert!(matches!(
            Error::from(gapscore_seal::Error::Input("bad".into())),
            Error::Input(_)
        ));
        let io = FsError::read(
            std::path::Path::new("missing"),
            std::io::Error::from(std::io::ErrorKind::NotFound),
        );
        let e = Error::from(gapscore_seal::Error::from(io));
        assert!(matches!(&e, Error::Fs(FsError::Io { .. })));
        assert!(
            std::error::Error::source(&e).is_some(),
            "the OS error is kept"
        );
        let glob = gapscore_seal::excludes::Excludes::new(&["[unclosed"]).unwrap_err();
        assert!(matches!(
            Error::from(gapscore_seal::Error::from(glob)),
            Error::Exclude(_)
        ));
        assert_eq!(e.exit_code(), ExitCode::Error);
    }
}
