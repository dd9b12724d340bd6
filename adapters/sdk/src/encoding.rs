//! Result files that are not UTF-8: [`sniff`] tells the encoding from a file's first bytes and
//! [`Utf16Reader`] turns UTF-16 into UTF-8 as it streams, so every adapter keeps reading UTF-8.
//!
//! UTF-16 is common on Windows: PowerShell 5's `>` and `Out-File` write UTF-16LE with a
//! byte-order mark, so `go test -json > out.jsonl` or `pytest > log.txt` there gives a UTF-16
//! file. Every format gapscore reads starts with an ASCII character, which is how UTF-16 and
//! UTF-32 without a byte-order mark are recognised too (the NUL pattern of RFC 4627 §3).

use std::io::{self, Read};

/// A result file's encoding, as [`sniff`] judges it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Encoding {
    /// UTF-8 (with or without a byte-order mark), or bytes that are not recognisably anything
    /// else: the adapter reads them as they are.
    Utf8,
    /// UTF-16; [`Utf16Reader`] decodes it.
    Utf16 {
        /// Big-endian (`FE FF`) rather than little-endian (`FF FE`).
        big_endian: bool,
    },
    /// UTF-32, which gapscore does not read (no test runner writes it).
    Utf32 {
        /// Big-endian.
        big_endian: bool,
    },
}

impl Encoding {
    /// The encoding's name, as `iconv -f` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF-8",
            Encoding::Utf16 { big_endian: false } => "UTF-16LE",
            Encoding::Utf16 { big_endian: true } => "UTF-16BE",
            Encoding::Utf32 { big_endian: false } => "UTF-32LE",
            Encoding::Utf32 { big_endian: true } => "UTF-32BE",
        }
    }
}

/// Judges the encoding from a file's first bytes: a UTF-16 or UTF-32 byte-order mark, or
/// without one, the NULs that ASCII text has in those encodings. Anything else is
/// [`Encoding::Utf8`]; a UTF-8 file never has a NUL in its first four bytes.
pub fn sniff(prefix: &[u8]) -> Encoding {
    match prefix {
        [0x00, 0x00, 0xFE, 0xFF, ..] => Encoding::Utf32 { big_endian: true },
        [0xFF, 0xFE, 0x00, 0x00, ..] => Encoding::Utf32 { big_endian: false },
        [0xFE, 0xFF, ..] => Encoding::Utf16 { big_endian: true },
        [0xFF, 0xFE, ..] => Encoding::Utf16 { big_endian: false },
        [0, 0, 0, a, ..] if *a != 0 => Encoding::Utf32 { big_endian: true },
        [a, 0, 0, 0, ..] if *a != 0 => Encoding::Utf32 { big_endian: false },
        [0, a, 0, b, ..] if *a != 0 && *b != 0 => Encoding::Utf16 { big_endian: true },
        [a, 0, b, 0, ..] if *a != 0 && *b != 0 => Encoding::Utf16 { big_endian: false },
        _ => Encoding::Utf8,
    }
}

/// Raw bytes read from the source per refill.
const RAW_CHUNK: usize = 32 * 1024;

/// Decodes a UTF-16 stream into UTF-8 as it is read, in memory that does not grow with the
/// input. A leading byte-order mark is dropped. An unpaired surrogate inside the text is an
/// [`io::ErrorKind::InvalidData`] error naming its byte offset in the UTF-16 file; a file that
/// ends inside a character (an odd byte, or half a surrogate pair: the file was cut) ends in
/// U+FFFD, so the adapter's own truncation checks see the cut.
#[derive(Debug)]
pub struct Utf16Reader<R> {
    inner: R,
    big_endian: bool,
    raw: Vec<u8>,
    /// Decoded bytes not yet handed out: `out[out_pos..]`.
    out: Vec<u8>,
    out_pos: usize,
    /// A high surrogate waiting for its low half, and the offset it was read at.
    high: Option<(u16, u64)>,
    /// Bytes of the UTF-16 source decoded so far (the offset of `raw[0]`).
    offset: u64,
    started: bool,
    done: bool,
}

impl<R: Read> Utf16Reader<R> {
    /// A decoder over `inner`, which starts at the beginning of the file (a byte-order mark, if
    /// any, included).
    pub fn new(inner: R, big_endian: bool) -> Self {
        Utf16Reader {
            inner,
            big_endian,
            raw: Vec::with_capacity(RAW_CHUNK + 1),
            out: Vec::with_capacity(RAW_CHUNK * 3 / 2 + 4),
            out_pos: 0,
            high: None,
            offset: 0,
            started: false,
            done: false,
        }
    }

    fn invalid(at: u64, what: &str) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("invalid UTF-16 at byte {at}: {what}"),
        )
    }

    /// Reads more of the source and decodes it into `out`; leaves `done` set at the end.
    fn refill(&mut self) -> io::Result<()> {
        self.out.clear();
        self.out_pos = 0;
        // `raw` may hold one odd byte from the last read.
        let kept = self.raw.len();
        self.raw.resize(RAW_CHUNK, 0);
        let n = loop {
            match self.inner.read(&mut self.raw[kept..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.raw.truncate(kept);
                    return Err(e);
                }
            }
        };
        self.raw.truncate(kept + n);
        if n == 0 {
            self.done = true;
            // A file cut inside a character: it ends in U+FFFD, as a UTF-8 file cut there would
            // end in a broken character, and the adapter sees the cut and reports it as it
            // would for UTF-8 (a truncated document or stream) rather than losing the file.
            if self.high.take().is_some() || !self.raw.is_empty() {
                self.raw.clear();
                self.out.extend_from_slice("\u{FFFD}".as_bytes());
            }
            return Ok(());
        }
        let whole = self.raw.len() & !1;
        for (i, pair) in self.raw[..whole].chunks_exact(2).enumerate() {
            let at = self.offset + 2 * i as u64;
            let unit = if self.big_endian {
                u16::from_be_bytes([pair[0], pair[1]])
            } else {
                u16::from_le_bytes([pair[0], pair[1]])
            };
            let c = match (self.high.take(), unit) {
                (None, 0xD800..=0xDBFF) => {
                    self.high = Some((unit, at));
                    continue;
                }
                (Some((h, _)), 0xDC00..=0xDFFF) => {
                    let v = 0x10000 + ((u32::from(h) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                    char::from_u32(v).ok_or_else(|| Self::invalid(at, "bad surrogate pair"))?
                }
                (Some((_, hat)), _) => {
                    return Err(Self::invalid(hat, "a high surrogate without its low half"));
                }
                (None, 0xDC00..=0xDFFF) => {
                    return Err(Self::invalid(at, "a low surrogate without its high half"));
                }
                (None, u) => char::from_u32(u32::from(u))
                    .ok_or_else(|| Self::invalid(at, "not a character"))?,
            };
            if !self.started {
                self.started = true;
                if c == '\u{FEFF}' {
                    continue;
                }
            }
            let mut buf = [0u8; 4];
            self.out
                .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        self.offset += whole as u64;
        self.raw.drain(..whole);
        Ok(())
    }
}

impl<R: Read> Read for Utf16Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.out_pos == self.out.len() {
            if self.done || buf.is_empty() {
                return Ok(0);
            }
            self.refill()?;
        }
        let n = buf.len().min(self.out.len() - self.out_pos);
        buf[..n].copy_from_slice(&self.out[self.out_pos..self.out_pos + n]);
        self.out_pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(s: &str, be: bool, bom: bool) -> Vec<u8> {
        let mut units: Vec<u16> = Vec::new();
        if bom {
            units.push(0xFEFF);
        }
        units.extend(s.encode_utf16());
        units
            .iter()
            .flat_map(|u| if be { u.to_be_bytes() } else { u.to_le_bytes() })
            .collect()
    }

    /// Reads through a source that hands out `step` bytes at a time, so pairs and surrogates
    /// fall across reads.
    struct Trickle<'a>(&'a [u8], usize);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn decode(bytes: &[u8], be: bool, step: usize) -> io::Result<String> {
        let mut s = String::new();
        Utf16Reader::new(Trickle(bytes, step), be).read_to_string(&mut s)?;
        Ok(s)
    }

    #[test]
    fn sniffs_marks_and_nul_patterns() {
        assert_eq!(sniff(b"\xFF\xFE{\0"), Encoding::Utf16 { big_endian: false });
        assert_eq!(sniff(b"\xFE\xFF\0{"), Encoding::Utf16 { big_endian: true });
        assert_eq!(sniff(b"{\0\"\0"), Encoding::Utf16 { big_endian: false });
        assert_eq!(sniff(b"\0<\0?"), Encoding::Utf16 { big_endian: true });
        assert_eq!(
            sniff(b"\xFF\xFE\0\0"),
            Encoding::Utf32 { big_endian: false }
        );
        assert_eq!(sniff(b"\0\0\xFE\xFF"), Encoding::Utf32 { big_endian: true });
        assert_eq!(sniff(b"{\0\0\0"), Encoding::Utf32 { big_endian: false });
        assert_eq!(sniff(b"\xEF\xBB\xBF{"), Encoding::Utf8);
        assert_eq!(sniff(b"{\"tests\""), Encoding::Utf8);
        assert_eq!(sniff(b""), Encoding::Utf8);
        assert_eq!(sniff(b"\0\0\0\0"), Encoding::Utf8);
    }

    #[test]
    fn decodes_both_byte_orders_across_any_read_boundary() {
        let text = "{\"tests\":[{\"name\":\"caf\u{e9} \u{1F600} \u{4E2D}\"}]}\r\n";
        for be in [false, true] {
            for bom in [false, true] {
                let bytes = encode(text, be, bom);
                for step in [1, 2, 3, 7, 4096] {
                    assert_eq!(decode(&bytes, be, step).unwrap(), text, "be={be} bom={bom}");
                }
            }
        }
    }

    #[test]
    fn decodes_more_than_one_chunk() {
        let text = "ok 1 - \u{1F600}\n".repeat(10_000);
        assert_eq!(
            decode(&encode(&text, false, true), false, 5000).unwrap(),
            text
        );
    }

    #[test]
    fn only_a_leading_mark_is_dropped() {
        let text = "a\u{FEFF}b";
        assert_eq!(decode(&encode(text, false, true), false, 1).unwrap(), text);
    }

    #[test]
    fn a_file_cut_inside_a_character_ends_in_a_replacement_character() {
        for step in [1, 3, 4096] {
            assert_eq!(decode(b"a\0b", false, step).unwrap(), "a\u{FFFD}");
            assert_eq!(decode(b"a\0\x3D\xD8", false, step).unwrap(), "a\u{FFFD}");
            assert_eq!(
                decode(b"a\0\x3D\xD8\x00", false, step).unwrap(),
                "a\u{FFFD}"
            );
        }
    }

    #[test]
    fn an_unpaired_surrogate_inside_the_text_is_an_error_with_its_offset() {
        let e = |bytes: &[u8]| decode(bytes, false, 3).unwrap_err().to_string();
        assert_eq!(
            e(b"a\0\x3D\xD8b\0"),
            "invalid UTF-16 at byte 2: a high surrogate without its low half"
        );
        assert_eq!(
            e(b"a\0\x00\xDC"),
            "invalid UTF-16 at byte 2: a low surrogate without its high half"
        );
    }

    #[test]
    fn empty_input_is_empty() {
        assert_eq!(decode(b"", false, 1).unwrap(), "");
        assert_eq!(decode(b"\xFF\xFE", false, 1).unwrap(), "");
    }
}
