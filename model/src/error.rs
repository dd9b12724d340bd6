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
    /// A serde_json error as an input error at its line and column (1-based; serde_json says
    /// column 0 for an error before a line's first character), `line_offset` lines further on
    /// (for a document that starts part way into a file). serde_json's own ` at line L column
    /// C` is taken off the message, since the place is reported apart; a wrong value or shape
    /// is a content error, anything else a syntax error.
    pub fn from_json(e: &serde_json::Error, line_offset: usize) -> Self {
        let location = Location::LineCol {
            line: e.line().max(1) + line_offset,
            column: e.column().max(1),
        };
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
        match e.classify() {
            serde_json::error::Category::Data => InputError::Content { location, message },
            _ => InputError::Syntax { location, message },
        }
    }

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
