//! One JSON document read from a [`BufRead`] in bounded memory.
//!
//! Most JavaScript, Ruby and .NET result formats are one JSON document whose tests sit in an
//! array (`testResults`, `tests`, `results.tests`). Reading it whole holds the file; this
//! module hands over the array's **elements one at a time**, as raw text with their place in
//! the file, and the reader parses each with `serde_json::from_str` (borrowing, fast; its typed
//! structs and seeds unchanged). The caller says, per member, what it wants ([`Want`]):
//! an array's elements, an object to descend into member by member, a value whole (a small
//! header such as Jest's `numFailedTests`), or nothing (the value is checked and dropped).
//!
//! What the stream checks as it reads, so that no reader has to:
//!
//! - **Syntax**, as serde_json does and in its words (`trailing comma`, `expected value`, ...),
//!   and **UTF-8**, each at its [`Position`] (byte offset, line and column in bytes, as
//!   serde_json counts them; a UTF-8 error is placed by its byte offset, which the host turns
//!   into a line and a column in characters).
//! - **Duplicate keys** in every object at any depth, by the rule of
//!   [`check_unique_keys`](super::check_unique_keys): the second key's place, the first's,
//!   keys compared decoded.
//! - **Truncation**: input that ends inside the document is not an error but
//!   [`Outcome::Truncated`], after every complete element was handed over; the element the cut
//!   fell in is handed over too, with [`Value::complete`] `false`, so a reader can keep what it
//!   had (its tests read before the cut).
//!
//! **Memory** holds the largest single element or whole value, plus the keys of the objects
//! open at one time (one element's objects, and those around the array), never the document.
//! A single element as big as the file (a document that is one huge test) is held whole: the
//! bound is the element, which is why a reader asks for the elements of the innermost array
//! whose elements are small. The reader it reads from should be buffered: the stream takes
//! up to 256 KiB per read from [`BufRead::fill_buf`].
//!
//! ```
//! use gapscore_adapter_sdk::json::stream::{for_each_element, Outcome};
//!
//! let doc = br#"{"numTotalTests": 2, "testResults": [{"title": "adds"}, {"title": "divides"}]}"#;
//! let mut titles = Vec::new();
//! let outcome = for_each_element(&mut &doc[..], &["testResults"], |element| {
//!     let v: serde_json::Value = serde_json::from_str(element.text).expect("checked JSON");
//!     titles.push(v["title"].as_str().unwrap_or_default().to_owned());
//!     Ok(())
//! })?;
//! assert_eq!(titles, ["adds", "divides"]);
//! assert_eq!(outcome, Outcome::Complete);
//!
//! // Cut short: the complete element, then the cut one, then `Truncated`.
//! let cut = br#"{"testResults": [{"title": "adds"}, {"title": "divi"#;
//! let mut seen = Vec::new();
//! let outcome = for_each_element(&mut &cut[..], &["testResults"], |element| {
//!     seen.push((element.text.to_owned(), element.complete));
//!     Ok(())
//! })?;
//! assert_eq!(seen[1], (r#"{"title": "divi"#.to_owned(), false));
//! assert!(matches!(outcome, Outcome::Truncated { .. }));
//! # Ok::<(), gapscore_adapter_sdk::json::stream::StreamError>(())
//! ```

use std::io::{self, BufRead};

use gapscore_model::{InputError, Location};

use super::keys::duplicate_key_error;
use super::scan::{Scanner, Stop};

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
    /// A serde_json error met parsing a [`Value::text`] that starts here, as an input error at
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
    /// A reader's own refusal, from a [`Visitor`] callback.
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

/// What the caller wants of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Want {
    /// An array: each element handed to [`Visitor::element`] on its own.
    Elements,
    /// An object: each member's key offered to [`Visitor::member`], which says what it wants
    /// of the value; [`Visitor::end`] when the object closes.
    Descend,
    /// The value whole, to [`Visitor::whole`].
    Whole,
    /// Nothing: the value is checked and dropped.
    Skip,
}

/// A value handed over: its raw JSON text and where it starts.
#[derive(Debug, Clone, Copy)]
pub struct Value<'a> {
    /// The value's text, from its first byte to its last (UTF-8, checked); for a value the
    /// input cut short, the text up to the cut.
    pub text: &'a str,
    /// Where its first byte is.
    pub at: Position,
    /// `false` for the value the input ended in ([`Outcome::Truncated`] follows).
    pub complete: bool,
}

impl Value<'_> {
    /// A serde_json error met parsing [`Value::text`], placed in the file
    /// ([`Position::json_error`]).
    pub fn json_error(&self, e: &serde_json::Error) -> InputError {
        self.at.json_error(e)
    }
}

/// How a document ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Read to its end, nothing but whitespace after it.
    Complete,
    /// The input ended inside the document, at `end` (the place serde_json gives an input
    /// that ends early: the last byte's line and column).
    Truncated {
        /// Where the input ends.
        end: Position,
    },
}

impl Outcome {
    /// Where the input ends when it ended inside the document; `None` when it is complete.
    pub fn truncated_at(&self) -> Option<Position> {
        match self {
            Outcome::Complete => None,
            Outcome::Truncated { end } => Some(*end),
        }
    }
}

/// The caller's side of [`visit`]: what it wants of each member and what it does with the
/// values handed over. `path` is the keys from the root to the object or array concerned.
pub trait Visitor {
    /// What to do with the value of the member `key` of an object being descended into.
    fn member(&mut self, path: &[String], key: &str) -> Want;

    /// One element of an array wanted as [`Want::Elements`] (`path` is the array's).
    fn element(&mut self, path: &[String], element: Value<'_>) -> Result<(), StreamError>;

    /// A value wanted whole; also a value wanted as [`Want::Elements`] that is not an array
    /// or as [`Want::Descend`] that is not an object, so that the reader's typed parse
    /// refuses it in its own words.
    fn whole(&mut self, path: &[String], value: Value<'_>) -> Result<(), StreamError> {
        let _ = (path, value);
        Ok(())
    }

    /// An object descended into has closed, complete; `at` is its closing brace.
    fn end(&mut self, path: &[String], at: Position) -> Result<(), StreamError> {
        let _ = (path, at);
        Ok(())
    }

    /// An array wanted as [`Want::Elements`] has closed, complete; `at` is its `]` (where
    /// serde_json places an error a sequence visitor raises after its last element).
    fn array_end(&mut self, path: &[String], at: Position) -> Result<(), StreamError> {
        let _ = (path, at);
        Ok(())
    }
}

/// Reads one JSON document from `reader`, wanting `root` of it, and hands `visitor` what it
/// asks for; a UTF-8 byte order mark first is skipped (and counted in offsets). An input with
/// no document at all is [`StreamError::Empty`]; one that ends inside it,
/// [`Outcome::Truncated`].
pub fn visit<R: BufRead + ?Sized>(
    reader: &mut R,
    root: Want,
    visitor: &mut dyn Visitor,
) -> Result<Outcome, StreamError> {
    let mut d = Driver {
        scan: Scanner::new(reader),
        path: Vec::new(),
    };
    // The mark counts in offsets and columns, as an editor shows them.
    if d.scan.peek().map_err(stop)? == Some(0xEF) {
        for &b in crate::encoding::UTF8_BOM {
            match d.scan.peek().map_err(stop)? {
                Some(x) if x == b => d.scan.pos += 1,
                _ => {
                    return Err(StreamError::InvalidUtf8 {
                        at: d.scan.position(d.scan.pos),
                    });
                }
            }
        }
    }
    if d.scan.skip_ws().map_err(stop)?.is_none() {
        return Err(StreamError::Empty);
    }
    match d.value(root, 0, visitor) {
        Ok(()) => {}
        Err(Stop::Eof) => {
            return Ok(Outcome::Truncated {
                end: d.scan.end_position(),
            });
        }
        Err(Stop::Error(e)) => return Err(*e),
    }
    match d.scan.skip_ws().map_err(stop)? {
        None => Ok(Outcome::Complete),
        Some(_) => Err(stop(d.scan.syntax("trailing characters"))),
    }
}

/// Hands each element of the array at `path` (keys from the root object) to `each`, in
/// bounded memory; every other value is checked and dropped. See the [module](self) docs.
pub fn for_each_element<R, F>(
    reader: &mut R,
    path: &[&str],
    each: F,
) -> Result<Outcome, StreamError>
where
    R: BufRead + ?Sized,
    F: FnMut(Value<'_>) -> Result<(), StreamError>,
{
    struct Each<'p, F> {
        path: &'p [&'p str],
        each: F,
    }
    impl<F: FnMut(Value<'_>) -> Result<(), StreamError>> Visitor for Each<'_, F> {
        fn member(&mut self, path: &[String], key: &str) -> Want {
            let on_path = path.len() < self.path.len()
                && path.iter().zip(self.path).all(|(a, b)| a == b)
                && self.path[path.len()] == key;
            match on_path {
                true if path.len() + 1 == self.path.len() => Want::Elements,
                true => Want::Descend,
                false => Want::Skip,
            }
        }
        fn element(&mut self, _: &[String], element: Value<'_>) -> Result<(), StreamError> {
            (self.each)(element)
        }
    }
    let root = if path.is_empty() {
        Want::Elements
    } else {
        Want::Descend
    };
    visit(reader, root, &mut Each { path, each })
}

fn stop(s: Stop) -> StreamError {
    match s {
        Stop::Error(e) => *e,
        // Only a `peek` or whitespace skip, which say the end without stopping.
        Stop::Eof => StreamError::Empty,
    }
}

/// Walks the document, calling the visitor.
struct Driver<'r, R: BufRead + ?Sized> {
    scan: Scanner<'r, R>,
    path: Vec<String>,
}

impl<R: BufRead + ?Sized> Driver<'_, R> {
    /// One value starting at the next non-whitespace byte, `depth` arrays and objects in.
    fn value(&mut self, want: Want, depth: usize, v: &mut dyn Visitor) -> Result<(), Stop> {
        let first = self.scan.skip_ws_some()?;
        match (want, first) {
            (Want::Skip, _) => self.scan.skip_value(depth),
            (Want::Descend, b'{') => self.descend(depth, v),
            (Want::Elements, b'[') => self.elements(depth, v),
            _ => self.held(depth, v, Hand::Whole),
        }
    }

    fn descend(&mut self, depth: usize, v: &mut dyn Visitor) -> Result<(), Stop> {
        self.scan.enter(depth)?;
        self.scan.open_object();
        let mut more = self.scan.object_first_key(true)?;
        while more {
            let key = String::from_utf8_lossy(&self.scan.key).into_owned();
            let want = v.member(&self.path, &key);
            self.path.push(key);
            let r = self.value(want, depth + 1, v);
            self.path.pop();
            r?;
            more = self.scan.object_next_key(true)?;
        }
        // The closing brace, consumed.
        let at = self.scan.position(self.scan.pos - 1);
        v.end(&self.path, at).map_err(Stop::from)
    }

    fn elements(&mut self, depth: usize, v: &mut dyn Visitor) -> Result<(), Stop> {
        self.scan.enter(depth)?;
        self.scan.pos += 1;
        let mut more = self.scan.array_first()?;
        while more {
            self.held(depth + 1, v, Hand::Element)?;
            more = self.scan.array_next()?;
        }
        // The `]` is consumed.
        let at = self.scan.position(self.scan.pos - 1);
        v.array_end(&self.path, at).map_err(Stop::from)
    }

    /// A value kept whole (pinned while it is scanned) and handed over, cut or not.
    fn held(&mut self, depth: usize, v: &mut dyn Visitor, hand: Hand) -> Result<(), Stop> {
        self.scan.skip_ws_some()?;
        let at = self.scan.position(self.scan.pos);
        self.scan.pin(self.scan.pos);
        let r = self.scan.skip_value(depth);
        let start = self.scan.pinned().unwrap_or(0);
        self.scan.unpin();
        let complete = match r {
            Ok(()) => true,
            Err(Stop::Eof) => false,
            Err(e) => return Err(e),
        };
        let end = if complete {
            self.scan.pos
        } else {
            self.scan.end
        };
        let bytes = &self.scan.buf[start..end];
        // Checked as it was scanned; a cut value may end inside a character.
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
        };
        let value = Value { text, at, complete };
        match hand {
            Hand::Element => v.element(&self.path, value),
            Hand::Whole => v.whole(&self.path, value),
        }
        .map_err(Stop::from)?;
        if complete { Ok(()) } else { Err(Stop::Eof) }
    }
}

#[derive(Clone, Copy)]
enum Hand {
    Element,
    Whole,
}
