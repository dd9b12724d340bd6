//! JSON: a report, pretty with a two-space indent and a trailing newline.
//!
//! Pretty JSON exactly as serde_json's `PrettyFormatter` with a two-space indent writes it, in
//! fewer and cheaper writes. A report lists every failure (14.9 MB of JSON for the bench's
//! 44,561), and serde_json writes a line break and then the indent two bytes per level, each a
//! `write_all` and each of those a `memcpy` call in `BufWriter`: about 70 calls per failure,
//! half the time of rendering the report. Here a line break and its indent are one write, and
//! short writes are copied byte by byte into a buffer of our own.

use std::io;

use serde::Serialize;
use serde_json::ser::Formatter;

use crate::report::GapReport;

pub mod results;

/// Pretty JSON with a trailing newline.
pub fn render_json(report: &GapReport) -> String {
    // Serialising plain data with string keys cannot fail; keep a readable fallback anyway.
    let mut s = serde_json::to_string_pretty(report)
        .unwrap_or_else(|e| format!("{{\"error\": \"cannot serialise report: {e}\"}}"));
    s.push('\n');
    s
}

/// Writes `value` as pretty JSON into `out`, buffered (the caller flushes `out`).
pub(crate) fn to_writer<T: Serialize + ?Sized>(
    out: &mut dyn io::Write,
    value: &T,
) -> io::Result<()> {
    let mut w = Buffer {
        buf: Vec::with_capacity(BUFFER),
        out,
    };
    let mut ser = serde_json::Serializer::with_formatter(&mut w, Pretty::default());
    value.serialize(&mut ser).map_err(io::Error::from)?;
    w.drain()
}

/// The two-space indent: serde_json's `PrettyFormatter::new()`.
#[derive(Debug, Default)]
struct Pretty {
    depth: usize,
    has_value: bool,
}

/// A line break followed by the deepest indent written in one piece; deeper ones take more.
const LINE: &[u8; 2 + 2 * 32] =
    b",\n                                                                ";

impl Pretty {
    /// `,\n` (or `\n` for the first value) and the current indent.
    fn line<W: ?Sized + io::Write>(&self, w: &mut W, comma: bool) -> io::Result<()> {
        let from = usize::from(!comma);
        let spaces = 2 * self.depth;
        if spaces <= LINE.len() - 2 {
            return w.write_all(&LINE[from..2 + spaces]);
        }
        w.write_all(&LINE[from..2])?;
        for _ in 0..self.depth {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    /// `[` or `{`: one level deeper, nothing in it yet.
    fn open<W: ?Sized + io::Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    /// `]` or `}`, on a line of its own unless the container is empty.
    fn close<W: ?Sized + io::Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.line(w, false)?;
        }
        w.write_all(bracket)
    }
}

impl Formatter for Pretty {
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.line(w, !first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.line(w, !first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// What [`Buffer`] holds before it writes to its output.
const BUFFER: usize = 64 << 10;

/// A write buffer whose short writes (quotes, `: `, a one-digit number) are pushed byte by
/// byte, not copied with a `memcpy` call.
struct Buffer<'a> {
    buf: Vec<u8>,
    out: &'a mut dyn io::Write,
}

impl Buffer<'_> {
    /// Writes out what is buffered.
    fn drain(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }
}

impl io::Write for Buffer<'_> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    #[inline]
    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        if self.buf.len() + data.len() > BUFFER {
            self.drain()?;
            if data.len() >= BUFFER {
                return self.out.write_all(data);
            }
        }
        if data.len() <= 4 {
            for &b in data {
                self.buf.push(b);
            }
        } else {
            self.buf.extend_from_slice(data);
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.drain()?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The same bytes as serde_json's own pretty printer, for nesting deeper than the one-piece
    /// indent, empty containers, escapes and every kind of value; and through buffer drains.
    #[test]
    fn writes_what_serde_json_pretty_writes() {
        let mut deep = json!("bottom");
        for i in 0..40 {
            deep = if i % 2 == 0 {
                json!([deep, {}, [], i])
            } else {
                json!({ "k": deep, "e": [], "o": {}, "s": "a\"b\\c\n\u{1}é" })
            };
        }
        let long = "x".repeat(100_000);
        let values = [
            deep,
            json!({}),
            json!([]),
            json!(null),
            json!(1.5),
            json!({ "a": [1, 2, { "b": null, "c": true }], "long": long }),
            json!(
                (0..20_000)
                    .map(|i| json!({ "i": i, "t": "ab" }))
                    .collect::<Vec<_>>()
            ),
        ];
        for v in values {
            let mut mine = Vec::new();
            to_writer(&mut mine, &v).unwrap();
            assert_eq!(
                String::from_utf8(mine).unwrap(),
                serde_json::to_string_pretty(&v).unwrap()
            );
        }
    }
}
