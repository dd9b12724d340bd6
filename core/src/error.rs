//! Error types of the core: [`InputError`] for unreadable result files.

use std::fmt;

/// A place in an input: line and column (1-based), or a structural path (an XML path, a JSON
/// pointer) when the format has no useful line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Location {
    /// 1-based line and column.
    LineCol {
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
    },
    /// A byte offset, for binary or line-less input.
    Offset(u64),
    /// A structural path.
    Path(String),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::LineCol { line, column } => write!(f, "{line}:{column}"),
            Location::Offset(o) => write!(f, "byte {o}"),
            Location::Path(p) => f.write_str(p),
        }
    }
}

/// A result file that could not be read as its format. Carries the place so the CLI can print
/// `file:line:col: message`; the library never sees the file name, the caller adds it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// The bytes are not valid syntax for the format.
    #[error("{location}: {message}")]
    Syntax {
        /// Where.
        location: Location,
        /// What.
        message: String,
    },
    /// The syntax is fine but the content is not what the format requires.
    #[error("{location}: {message}")]
    Content {
        /// Where.
        location: Location,
        /// What.
        message: String,
    },
    /// Nothing usable at all (an empty file).
    #[error("{0}")]
    Empty(String),
    /// An error the reader could not place (a plugin's message without a line).
    #[error("{0}")]
    Unlocated(String),
}

impl InputError {
    /// The place the error points at, when it has one.
    pub fn location(&self) -> Option<&Location> {
        match self {
            InputError::Syntax { location, .. } | InputError::Content { location, .. } => {
                Some(location)
            }
            InputError::Empty(_) | InputError::Unlocated(_) => None,
        }
    }
}
