//! Reading a line-based result stream (JSON lines, runner text) one line at a time, with the
//! places an error message needs kept true to the file.
//!
//! [`LineReader`] wraps any [`BufRead`] and hands out one [`Line`] at a time from one reused
//! buffer, so memory holds the longest line, not the file, and a line has no length limit.
//! Each line comes without its terminator (`\n` or `\r\n`), with the byte offset of its start
//! in the file, its 1-based number and whether it ended in `\n` (a last line without one may be
//! a stream cut mid-line). A UTF-8 byte order mark at the very start of the file is not part of
//! line 1's bytes, but it is still counted in places: [`Line::column`] and
//! [`Line::file_offset`] turn an index into the line's bytes into the column and offset an
//! editor shows for the file, and [`Line::duplicate_key`] runs the shared duplicate-key check
//! with its error placed the same way.
//!
//! ```
//! use gapscore_adapter_sdk::lines::LineReader;
//!
//! let mut lines = LineReader::new(&b"\xEF\xBB\xBF{\"a\":1}\r\nsecond"[..]);
//! let first = lines.next_line()?.expect("a line");
//! assert_eq!((first.bytes(), first.offset(), first.number()), (&b"{\"a\":1}"[..], 0, 1));
//! assert_eq!(first.column(0), 4, "the brace is the file's 4th byte: the mark takes 3");
//! let second = lines.next_line()?.expect("a line");
//! assert_eq!((second.bytes(), second.offset(), second.complete()), (&b"second"[..], 12, false));
//! assert!(lines.next_line()?.is_none());
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, BufRead};

use crate::json::find_duplicate_key;
use gapscore_model::{InputError, Location};

/// The UTF-8 byte order mark, taken off the start of line 1.
pub use crate::encoding::UTF8_BOM;

/// Reads lines from a [`BufRead`] into one reused buffer; see the [module](self) docs.
#[derive(Debug)]
pub struct LineReader<R> {
    reader: R,
    buf: Vec<u8>,
    /// Offset in the file of the next line's first byte.
    next_offset: u64,
    /// Lines handed out so far.
    count: usize,
}

/// One line of the file, borrowed from the reader's buffer until the next call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    bytes: &'a [u8],
    /// The line as in the file, without its terminator (with line 1's byte order mark).
    raw: &'a [u8],
    offset: u64,
    number: usize,
    complete: bool,
}

impl<R: BufRead> LineReader<R> {
    /// A reader at the start of a file.
    pub fn new(reader: R) -> Self {
        LineReader {
            reader,
            buf: Vec::with_capacity(8 * 1024),
            next_offset: 0,
            count: 0,
        }
    }

    /// The next line, or `None` at the end of the input. An empty input has no line; a file
    /// ending in `\n` has no empty line after it.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.buf.clear();
        let n = self.reader.read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        let offset = self.next_offset;
        self.next_offset += n as u64;
        self.count += 1;
        let complete = self.buf.last() == Some(&b'\n');
        let raw = match self.buf.strip_suffix(b"\n") {
            Some(l) => l.strip_suffix(b"\r").unwrap_or(l),
            None => &self.buf,
        };
        let bytes = match self.count {
            1 => raw.strip_prefix(UTF8_BOM).unwrap_or(raw),
            _ => raw,
        };
        Ok(Some(Line {
            bytes,
            raw,
            offset,
            number: self.count,
            complete,
        }))
    }

    /// Byte offset in the file just past the last line handed out: at the end of the input,
    /// the file's length.
    pub fn offset(&self) -> u64 {
        self.next_offset
    }

    /// The wrapped reader.
    pub fn into_inner(self) -> R {
        self.reader
    }
}

impl<'a> Line<'a> {
    /// The line's bytes: no terminator, and on line 1 no byte order mark.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The line as in the file, without its terminator: on line 1, with its byte order mark.
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// Byte offset in the file of the line's start (line 1 starts at 0, before any mark).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The line's number, from 1.
    pub fn number(&self) -> usize {
        self.number
    }

    /// Whether the line ended in `\n`; `false` only for a last line without one.
    pub fn complete(&self) -> bool {
        self.complete
    }

    /// How many bytes of the file's line come before [`Line::bytes`]: 3 on a line 1 that
    /// starts with a byte order mark, else 0.
    pub fn lead(&self) -> usize {
        self.raw.len() - self.bytes.len()
    }

    /// The 1-based column, in bytes as serde_json and editors' byte columns count, in the
    /// file's line of the byte at `index` in [`Line::bytes`] (an index past the end is the
    /// column after the line).
    pub fn column(&self, index: usize) -> usize {
        self.lead() + index + 1
    }

    /// The file offset of the byte at `index` in [`Line::bytes`].
    pub fn file_offset(&self, index: usize) -> u64 {
        self.offset + (self.lead() + index) as u64
    }

    /// The shared duplicate-key check ([`crate::json::find_duplicate_key`]) on the line: the
    /// error names this line and the second key's column in the file (byte order mark
    /// counted), and where the first one is.
    pub fn duplicate_key(&self) -> Option<InputError> {
        let mut d = find_duplicate_key(self.bytes)?;
        d.offset += self.lead();
        d.first_offset += self.lead();
        Some(d.to_input_error(self.raw, self.number - 1))
    }

    /// serde_json's error for [`Line::bytes`] (or text read from them with the same start),
    /// placed at this line and the file's column (byte order mark counted).
    pub fn json_error(&self, e: &serde_json::Error) -> InputError {
        let mut err = InputError::from_json(e, self.number - 1);
        if let InputError::Syntax { location, .. } | InputError::Content { location, .. } = &mut err
            && let Location::LineCol { line, column } = location
            && *line == self.number
        {
            *column += self.lead();
        }
        err
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line as (bytes, offset, number, complete).
    fn all(input: &[u8]) -> Vec<(Vec<u8>, u64, usize, bool)> {
        let mut r = LineReader::new(input);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push((l.bytes().to_vec(), l.offset(), l.number(), l.complete()));
        }
        assert_eq!(
            r.offset(),
            input.len() as u64,
            "every byte is accounted for"
        );
        out
    }

    fn line(
        bytes: &[u8],
        offset: u64,
        number: usize,
        complete: bool,
    ) -> (Vec<u8>, u64, usize, bool) {
        (bytes.to_vec(), offset, number, complete)
    }

    #[test]
    fn empty_input_has_no_line() {
        assert!(all(b"").is_empty());
    }

    #[test]
    fn lines_offsets_and_numbers() {
        assert_eq!(
            all(b"ab\ncde\n"),
            vec![line(b"ab", 0, 1, true), line(b"cde", 3, 2, true)]
        );
    }

    #[test]
    fn empty_lines_are_lines() {
        assert_eq!(
            all(b"\n\r\nx\n\n"),
            vec![
                line(b"", 0, 1, true),
                line(b"", 1, 2, true),
                line(b"x", 3, 3, true),
                line(b"", 5, 4, true),
            ]
        );
    }

    #[test]
    fn last_line_without_newline_is_incomplete() {
        assert_eq!(
            all(b"a\nbc"),
            vec![line(b"a", 0, 1, true), line(b"bc", 2, 2, false)]
        );
        // A cut right after `\r`: the `\r` is the line's, not a terminator.
        assert_eq!(all(b"a\r"), vec![line(b"a\r", 0, 1, false)]);
    }

    #[test]
    fn crlf_is_one_terminator() {
        assert_eq!(
            all(b"a\r\nb\r\r\nc"),
            vec![
                line(b"a", 0, 1, true),
                line(b"b\r", 3, 2, true),
                line(b"c", 7, 3, false),
            ]
        );
    }

    #[test]
    fn bom_on_line_one_only_and_counted_in_places() {
        let input = b"\xEF\xBB\xBFab\r\n\xEF\xBB\xBFcd\n";
        let mut r = LineReader::new(&input[..]);
        let l = r.next_line().unwrap().unwrap();
        assert_eq!((l.bytes(), l.raw(), l.lead()), (&b"ab"[..], &input[..5], 3));
        assert_eq!(
            (l.offset(), l.column(0), l.column(1), l.file_offset(1)),
            (0, 4, 5, 4)
        );
        let l = r.next_line().unwrap().unwrap();
        // A mark further on is the line's content: only a file starts with one.
        assert_eq!((l.bytes(), l.lead()), (&input[7..12], 0));
        assert_eq!((l.offset(), l.column(0), l.file_offset(3)), (7, 1, 10));
        assert!(r.next_line().unwrap().is_none());
        // A mark alone is an empty line 1.
        assert_eq!(all(UTF8_BOM), vec![line(b"", 0, 1, false)]);
    }

    #[test]
    fn very_long_lines_are_whole() {
        let long = vec![b'x'; 3 * 1024 * 1024 + 7];
        let mut input = long.clone();
        input.extend_from_slice(b"\r\nend");
        // A small buffer under the reader: the line spans many fills.
        let mut r = LineReader::new(io::BufReader::with_capacity(64, &input[..]));
        let l = r.next_line().unwrap().unwrap();
        assert_eq!(l.bytes(), &long[..]);
        let l = r.next_line().unwrap().unwrap();
        assert_eq!(
            (l.bytes(), l.offset()),
            (&b"end"[..], long.len() as u64 + 2)
        );
    }

    #[test]
    fn read_errors_are_returned() {
        struct Failing;
        impl io::Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk gone"))
            }
        }
        let mut r = LineReader::new(io::BufReader::new(Failing));
        assert_eq!(r.next_line().unwrap_err().to_string(), "disk gone");
    }

    fn dup_place(input: &[u8], line_no: usize) -> (Location, String) {
        let mut r = LineReader::new(input);
        let mut l = r.next_line().unwrap().unwrap();
        while l.number() < line_no {
            assert!(l.duplicate_key().is_none());
            l = r.next_line().unwrap().unwrap();
        }
        match l.duplicate_key().expect("a duplicate key") {
            InputError::Content { location, message } => (location, message),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn json_error_columns_are_the_file_s() {
        let place = |input: &[u8]| {
            let mut r = LineReader::new(input);
            let l = r.next_line().unwrap().unwrap();
            let e = serde_json::from_slice::<serde_json::Value>(l.bytes()).unwrap_err();
            l.json_error(&e).location().cloned()
        };
        // serde_json stops at the `}` (byte 5, column 6) of `{"a":}`.
        assert_eq!(
            place(b"{\"a\":}\n"),
            Some(Location::LineCol { line: 1, column: 6 })
        );
        assert_eq!(
            place(b"\xEF\xBB\xBF{\"a\":}\n"),
            Some(Location::LineCol { line: 1, column: 9 })
        );
    }

    #[test]
    fn duplicate_key_columns_are_the_file_s() {
        // `"a"` twice: the second at byte 8 of the line (column 9) without a mark.
        let plain = b"{\"a\":1, \"a\":2}\n";
        let (at, msg) = dup_place(plain, 1);
        assert_eq!(at, Location::LineCol { line: 1, column: 9 });
        assert!(msg.contains("(first at 1:2)"), "{msg}");
        let mut bom = UTF8_BOM.to_vec();
        bom.extend_from_slice(plain);
        let (at, msg) = dup_place(&bom, 1);
        assert_eq!(
            at,
            Location::LineCol {
                line: 1,
                column: 12
            }
        );
        assert!(msg.contains("(first at 1:5)"), "{msg}");
        // Leading space and a later line.
        let (at, _) = dup_place(b"{}\r\n  {\"b\":1,\"b\":2}\r\n", 2);
        assert_eq!(
            at,
            Location::LineCol {
                line: 2,
                column: 10
            }
        );
    }
}
