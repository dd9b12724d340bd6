//! Places and errors of the streaming reader ([`super::stream`]): a [`Position`] in the input,
//! [`StreamError`], and [`locate`] for a reader that also holds a text in memory. Apart from the
//! scanner and the walk over it, so that both name them without depending on each other.

use std::io;

use gapscore_model::{InputError, Location};

use super::keys::duplicate_key_error;

/// A place in the input: byte offset from the start of the file (a byte order mark counts),
/// 1-based line, and 1-based column in bytes (as serde_json counts columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// Bytes before this place.
    pub offset: u64,
    /// Line, from 1.
    pub line: usize,
    /// Column in bytes, from 1 (0 only for the end of input just after a newline, as
    /// serde_json says it).
    pub column: usize,
}

impl Position {
    /// A serde_json error met parsing a [`Value::text`](super::stream::Value::text) that starts here, as an input error at
    /// its place in the file (the same place and message serde_json gives reading the whole
    /// file): a wrong value or shape is a content error, anything else a syntax error.
    pub fn json_error(self, e: &serde_json::Error) -> InputError {
        // serde_json counts a column from 0 before a line's first byte; the text's first line
        // starts part way into the file's line.
        let line = e.line().max(1);
        let column = if line == 1 {
            self.column - 1 + e.column()
        } else {
            e.column()
        };
        let location = Location::LineCol {
            line: self.line + line - 1,
            column: column.max(1),
        };
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
        match e.classify() {
            serde_json::error::Category::Data => InputError::Content { location, message },
            _ => InputError::Syntax { location, message },
        }
    }
}

/// Why a document could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// Reading failed; the I/O error is the source.
    #[error("cannot read: {0}")]
    Io(#[source] io::Error),
    /// Not JSON: serde_json's words for what is wrong, at the byte it is wrong at.
    #[error("{}:{}: {message}", at.line, at.column)]
    Syntax {
        /// Where.
        at: Position,
        /// What, as serde_json says it.
        message: &'static str,
    },
    /// A byte that is not UTF-8.
    #[error("byte {}: invalid UTF-8", at.offset)]
    InvalidUtf8 {
        /// The first bad byte.
        at: Position,
    },
    /// A key given twice in one object.
    #[error("{}:{}: duplicate key `{key}`", at.line, at.column)]
    DuplicateKey {
        /// The key, decoded.
        key: String,
        /// The second occurrence's opening quote.
        at: Position,
        /// The first occurrence's.
        first: Position,
    },
    /// The input ends before the document starts (empty, or whitespace only).
    #[error("the input holds no JSON document")]
    Empty,
    /// A reader's own refusal, from a [`Visitor`](super::stream::Visitor) callback.
    #[error(transparent)]
    Input(#[from] InputError),
}

impl StreamError {
    /// The error as an input error, for an [`AdapterError`](crate::AdapterError): syntax and
    /// duplicate keys at their line and column, invalid UTF-8 at its byte offset (which the
    /// host turns into a line and column; [`locate`] does it for a text in memory), the message
    /// the in-memory readers give. `None` for [`StreamError::Io`] and [`StreamError::Empty`],
    /// which a reader words itself.
    pub fn to_input_error(&self) -> Option<InputError> {
        Some(match self {
            StreamError::Syntax { at, message } => InputError::Syntax {
                location: Location::LineCol {
                    line: at.line,
                    column: at.column,
                },
                message: (*message).to_owned(),
            },
            StreamError::InvalidUtf8 { at } => InputError::Syntax {
                location: Location::Offset(at.offset),
                message: format!("invalid UTF-8 at byte {}", at.offset),
            },
            StreamError::DuplicateKey { key, at, first } => {
                duplicate_key_error(key, (at.line, at.column), (first.line, first.column))
            }
            StreamError::Input(e) => e.clone(),
            StreamError::Io(_) | StreamError::Empty => return None,
        })
    }
}

impl From<StreamError> for crate::AdapterError {
    /// Read errors keep their I/O error; an empty input is [`InputError::Empty`].
    fn from(e: StreamError) -> Self {
        match e {
            StreamError::Io(io) => crate::AdapterError::io(io),
            StreamError::Empty => {
                InputError::Empty("empty file: expected a JSON document".into()).into()
            }
            other => match other.to_input_error() {
                Some(input) => input.into(),
                None => crate::AdapterError::Read(other.to_string()),
            },
        }
    }
}

/// Reads a text in memory with a streaming reader (`read`, given the text as a `BufRead`), its
/// input error at a byte offset placed at a line and column in `input` ([`locate`]): what a
/// reader's `parse(&[u8])` is when its `parse_reader` streams. A slice cannot fail to read, so
/// any other error keeps its words, without a place.
pub fn read_slice(
    input: &[u8],
    read: impl FnOnce(&mut &[u8]) -> Result<(), crate::AdapterError>,
) -> Result<(), InputError> {
    match read(&mut &input[..]) {
        Ok(()) => Ok(()),
        Err(crate::AdapterError::Input(e)) => Err(locate(input, e)),
        Err(e) => Err(InputError::Unlocated(e.to_string())),
    }
}

/// An input error at a byte offset placed at its line and column in `input` (the column in
/// characters), as the host places a streaming reader's error in a file: for a reader that
/// also reads a whole text in memory. Any other error is returned as it is.
pub fn locate(input: &[u8], e: InputError) -> InputError {
    let InputError::Syntax {
        location: Location::Offset(offset),
        message,
    } = e
    else {
        return e;
    };
    let before = input
        .get(..usize::try_from(offset).unwrap_or(usize::MAX))
        .unwrap_or(input);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    InputError::Syntax {
        location: Location::LineCol { line, column },
        message,
    }
}
