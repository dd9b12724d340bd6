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

use std::io::BufRead;

use gapscore_model::InputError;

pub use super::place::{Position, StreamError, locate, read_slice};
use super::scan::{Scanner, Stop};
pub use super::tail::Tail;

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

    /// `true` when [`Visitor::element`] parses every complete element it is handed with
    /// serde_json, whole (`from_str`, or a `Deserializer::from_str` read to the element's
    /// end), and fails with serde_json's error when the parse does. The stream then finds an
    /// element's end by its structure and checks its keys, and leaves its syntax to that parse
    /// (checking it twice cost as much as the parse); when `element` fails, the element is
    /// checked in full and a syntax or UTF-8 error found there is returned instead, so the
    /// error is the one a full check first would give. `false` (the default): every element is
    /// checked before it is handed over.
    fn parses_elements(&self) -> bool {
        false
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
        let first = self.scan.skip_ws_some()?;
        let at = self.scan.position(self.scan.pos);
        self.scan.pin(self.scan.pos);
        if matches!(hand, Hand::Element)
            && matches!(first, b'{' | b'[')
            && v.parses_elements()
            && let Some(r) = self.quick(depth, v, at)
        {
            self.scan.unpin();
            return r;
        }
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

impl<R: BufRead + ?Sized> Driver<'_, R> {
    /// An element crossed by its structure and handed to a visitor that parses it (see
    /// [`Visitor::parses_elements`]); `None` when the quick pass gave up, the scanner back at
    /// the element's start (pinned) to check it in full.
    fn quick(
        &mut self,
        depth: usize,
        v: &mut dyn Visitor,
        at: Position,
    ) -> Option<Result<(), Stop>> {
        let mark = self.scan.mark();
        match self.scan.cross_structure(depth) {
            Ok(true) => {}
            Ok(false) => {
                self.scan.rewind(&mark);
                return None;
            }
            Err(e) => return Some(Err(e)),
        }
        let start = self.scan.pinned().unwrap_or(0);
        let Ok(text) = std::str::from_utf8(&self.scan.buf[start..self.scan.pos]) else {
            self.scan.rewind(&mark);
            return None;
        };
        let value = Value {
            text,
            at,
            complete: true,
        };
        let Err(refused) = v.element(&self.path, value) else {
            return Some(Ok(()));
        };
        // The element may not be JSON: what the full check finds comes first, as when it ran
        // before the element was handed over.
        self.scan.rewind(&mark);
        Some(match self.scan.skip_value(depth) {
            Err(Stop::Error(e)) => Err(Stop::Error(e)),
            _ => Err(Stop::from(refused)),
        })
    }
}

#[derive(Clone, Copy)]
enum Hand {
    Element,
    Whole,
}
