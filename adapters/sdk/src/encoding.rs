//! Result files that are not UTF-8: [`sniff`] tells the encoding from a file's first bytes, and
//! [`Utf16Reader`] and [`Latin1Reader`] turn UTF-16 and an XML document declared ISO-8859-1 or
//! windows-1252 into UTF-8 as they stream, so every adapter keeps reading UTF-8.
//!
//! UTF-16 is common on Windows: PowerShell 5's `>` and `Out-File` write UTF-16LE with a
//! byte-order mark, so `go test -json > out.jsonl` or `pytest > log.txt` there gives a UTF-16
//! file. Every format gapscore reads starts with an ASCII character, which is how UTF-16 and
//! UTF-32 without a byte-order mark are recognised too (the NUL pattern of RFC 4627 §3).

use std::borrow::Cow;
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
    /// An XML document whose declaration names ISO-8859-1, windows-1252 or US-ASCII (one
    /// encoding, as browsers treat them); [`Latin1Reader`] decodes it.
    Latin1,
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
            Encoding::Latin1 => "windows-1252",
        }
    }
}

/// Judges the encoding from a file's first bytes: a UTF-16 or UTF-32 byte-order mark, or
/// without one, the NULs that ASCII text has in those encodings; then an XML declaration's
/// `encoding` naming ISO-8859-1 or windows-1252. Anything else is [`Encoding::Utf8`]; a UTF-8
/// file never has a NUL in its first four bytes.
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
        _ if declares_latin1(prefix) => Encoding::Latin1,
        _ => Encoding::Utf8,
    }
}

/// The UTF-8 byte order mark (`EF BB BF`).
pub const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a leading UTF-8 byte order mark. The host passes a UTF-8 file's mark on to
/// the adapter as it is (only UTF-16 and Latin-1 files are decoded, and their mark dropped), so
/// a reader that looks at the first byte calls this first.
///
/// ```
/// use gapscore_adapter_sdk::encoding::strip_bom;
/// assert_eq!(strip_bom(b"\xEF\xBB\xBF{}"), b"{}");
/// assert_eq!(strip_bom(b"{}"), b"{}");
/// ```
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes)
}

/// Consumes a UTF-8 byte order mark at the start of `reader`, if there is one, and says
/// whether it did: the streaming twin of [`strip_bom`]. Only a whole mark is consumed; a
/// stream that starts with part of one is left as it was. A file offset counted after this
/// call is 3 short when it returns `true`.
///
/// ```
/// use gapscore_adapter_sdk::encoding::skip_bom;
/// use std::io::BufRead;
/// let mut r = &b"\xEF\xBB\xBF{}"[..];
/// assert!(skip_bom(&mut r)?);
/// assert_eq!(r.fill_buf()?, b"{}");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn skip_bom(reader: &mut dyn io::BufRead) -> io::Result<bool> {
    let mut have = 0;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return if have == 0 {
                Ok(false)
            } else {
                Err(part_of_a_mark())
            };
        }
        // A reader may hand over fewer than 3 bytes per call: the mark is consumed as it
        // agrees, byte by byte.
        let take = (3 - have).min(buf.len());
        if buf[..take] != UTF8_BOM[have..have + take] {
            // Nothing consumed yet: the stream is as it was. After a consumed `EF` (or `EF BB`)
            // the bytes cannot be given back, and they are not UTF-8 anyway: refused, never
            // dropped unseen.
            return if have == 0 {
                Ok(false)
            } else {
                Err(part_of_a_mark())
            };
        }
        reader.consume(take);
        have += take;
        if have == 3 {
            return Ok(true);
        }
    }
}

fn part_of_a_mark() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "invalid UTF-8 at byte 0: the input starts with part of a byte order mark (EF BB BF)",
    )
}

/// The labels that name windows-1252 in the WHATWG Encoding Standard, which treats ISO-8859-1
/// and US-ASCII as windows-1252 too.
const LATIN1_LABELS: &[&str] = &[
    "ansi_x3.4-1968",
    "ascii",
    "cp1252",
    "cp819",
    "csisolatin1",
    "ibm819",
    "iso-8859-1",
    "iso-ir-100",
    "iso8859-1",
    "iso88591",
    "iso_8859-1",
    "iso_8859-1:1987",
    "l1",
    "latin1",
    "us-ascii",
    "windows-1252",
    "x-cp1252",
];

/// Whether the text starts with an XML declaration whose `encoding` is one of
/// [`LATIN1_LABELS`].
fn declares_latin1(prefix: &[u8]) -> bool {
    let p = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
    let Some(rest) = p.strip_prefix(b"<?xml") else {
        return false;
    };
    let Some(end) = rest.iter().take(512).position(|b| *b == b'>') else {
        return false;
    };
    let decl = &rest[..end];
    let Some(at) = decl.windows(8).position(|w| w == b"encoding") else {
        return false;
    };
    let after = decl[at + 8..].trim_ascii_start();
    let Some(after) = after.strip_prefix(b"=") else {
        return false;
    };
    let after = after.trim_ascii_start();
    let Some((&quote, value)) = after.split_first() else {
        return false;
    };
    if quote != b'"' && quote != b'\'' {
        return false;
    }
    let Some(len) = value.iter().position(|b| *b == quote) else {
        return false;
    };
    let label = value[..len].trim_ascii().to_ascii_lowercase();
    LATIN1_LABELS.iter().any(|l| l.as_bytes() == label)
}

/// Raw bytes read from the source per refill.
const RAW_CHUNK: usize = 32 * 1024;

/// One encoding's conversion of raw bytes to UTF-8, for [`Transcoder`].
trait Decode {
    /// Decodes a prefix of `raw` into `out` and returns how many bytes it used; the rest (the
    /// start of a character the next read completes) is offered again with more after it. At
    /// `eof` every byte must be used.
    fn decode(&mut self, raw: &[u8], eof: bool, out: &mut Vec<u8>) -> io::Result<usize>;
}

/// The streaming shared by the decoders: read a chunk, decode it, hand the UTF-8 out.
#[derive(Debug)]
struct Transcoder<R, D> {
    inner: R,
    decoder: D,
    /// Raw bytes not decoded yet.
    raw: Vec<u8>,
    /// Decoded bytes not yet handed out: `out[out_pos..]`.
    out: Vec<u8>,
    out_pos: usize,
    done: bool,
}

impl<R: Read, D: Decode> Transcoder<R, D> {
    fn new(inner: R, decoder: D) -> Self {
        Transcoder {
            inner,
            decoder,
            raw: Vec::with_capacity(RAW_CHUNK + 4),
            out: Vec::with_capacity(RAW_CHUNK * 3 + 4),
            out_pos: 0,
            done: false,
        }
    }

    /// Reads more of the source and decodes it into `out`; sets `done` at the end.
    fn refill(&mut self) -> io::Result<()> {
        self.out.clear();
        self.out_pos = 0;
        let kept = self.raw.len();
        self.raw.resize(kept + RAW_CHUNK, 0);
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
        let eof = n == 0;
        let used = self.decoder.decode(&self.raw, eof, &mut self.out)?;
        self.raw.drain(..used);
        self.done = eof;
        Ok(())
    }
}

impl<R: Read, D: Decode> Read for Transcoder<R, D> {
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

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// Decodes a UTF-16 stream into UTF-8 as it is read, in memory that does not grow with the
/// input. A leading byte-order mark is dropped. An unpaired surrogate inside the text is an
/// [`io::ErrorKind::InvalidData`] error naming its byte offset in the UTF-16 file; a file that
/// ends inside a character (an odd byte, or half a surrogate pair: the file was cut) ends in
/// U+FFFD, so the adapter's own truncation checks see the cut.
#[derive(Debug)]
pub struct Utf16Reader<R>(Transcoder<R, Utf16>);

#[derive(Debug)]
struct Utf16 {
    big_endian: bool,
    /// A high surrogate waiting for its low half, and the offset it was read at.
    high: Option<(u16, u64)>,
    /// Bytes of the UTF-16 source decoded so far.
    offset: u64,
    started: bool,
}

impl<R: Read> Utf16Reader<R> {
    /// A decoder over `inner`, which starts at the beginning of the file (a byte-order mark, if
    /// any, included).
    pub fn new(inner: R, big_endian: bool) -> Self {
        let decoder = Utf16 {
            big_endian,
            high: None,
            offset: 0,
            started: false,
        };
        Utf16Reader(Transcoder::new(inner, decoder))
    }
}

impl<R: Read> Read for Utf16Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

fn invalid_utf16(at: u64, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("invalid UTF-16 at byte {at}: {what}"),
    )
}

impl Decode for Utf16 {
    fn decode(&mut self, raw: &[u8], eof: bool, out: &mut Vec<u8>) -> io::Result<usize> {
        if eof {
            // A file cut inside a character: it ends in U+FFFD, as a UTF-8 file cut there would
            // end in a broken character, and the adapter sees the cut and reports it as it
            // would for UTF-8 (a truncated document or stream) rather than losing the file.
            if self.high.take().is_some() || !raw.is_empty() {
                push_char(out, '\u{FFFD}');
            }
            return Ok(raw.len());
        }
        let whole = raw.len() & !1;
        for (i, pair) in raw[..whole].chunks_exact(2).enumerate() {
            let at = self.offset + 2 * i as u64;
            let unit = if self.big_endian {
                u16::from_be_bytes([pair[0], pair[1]])
            } else {
                u16::from_le_bytes([pair[0], pair[1]])
            };
            // ASCII, nearly all of a result file: one byte out, nothing else to decide.
            if unit < 0x80 && self.high.is_none() && self.started {
                out.push(unit as u8);
                continue;
            }
            let c = match (self.high.take(), unit) {
                (None, 0xD800..=0xDBFF) => {
                    self.high = Some((unit, at));
                    continue;
                }
                (Some((h, _)), 0xDC00..=0xDFFF) => {
                    let v = 0x10000 + ((u32::from(h) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                    char::from_u32(v).ok_or_else(|| invalid_utf16(at, "bad surrogate pair"))?
                }
                (Some((_, hat)), _) => {
                    return Err(invalid_utf16(hat, "a high surrogate without its low half"));
                }
                (None, 0xDC00..=0xDFFF) => {
                    return Err(invalid_utf16(at, "a low surrogate without its high half"));
                }
                (None, u) => char::from_u32(u32::from(u))
                    .ok_or_else(|| invalid_utf16(at, "not a character"))?,
            };
            if !self.started {
                self.started = true;
                if c == '\u{FEFF}' {
                    continue;
                }
            }
            push_char(out, c);
        }
        self.offset += whole as u64;
        Ok(whole)
    }
}

/// windows-1252's characters for the bytes 0x80–0x9F (the rest of 0x80–0xFF are U+0080–U+00FF).
const CP1252_HIGH: [char; 32] = [
    '\u{20AC}', '\u{0081}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{008D}', '\u{017D}', '\u{008F}',
    '\u{0090}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}', '\u{0153}', '\u{009D}', '\u{017E}', '\u{0178}',
];

/// Decodes windows-1252 (and so ISO-8859-1 and US-ASCII) into UTF-8 as it is read, in memory
/// that does not grow with the input. Tools that declare ISO-8859-1 often write UTF-8 anyway,
/// so a valid UTF-8 sequence is kept as it is; every other byte is a windows-1252 character.
/// (Real Latin-1 text almost never forms valid UTF-8 sequences: `Ã©` would have to be meant.)
/// Every byte becomes a character, so this never fails but on an I/O error.
#[derive(Debug)]
pub struct Latin1Reader<R>(Transcoder<R, Latin1>);

#[derive(Debug)]
struct Latin1;

impl<R: Read> Latin1Reader<R> {
    /// A decoder over `inner`.
    pub fn new(inner: R) -> Self {
        Latin1Reader(Transcoder::new(inner, Latin1))
    }
}

impl<R: Read> Read for Latin1Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl Decode for Latin1 {
    fn decode(&mut self, raw: &[u8], eof: bool, out: &mut Vec<u8>) -> io::Result<usize> {
        let mut i = 0;
        while i < raw.len() {
            let b = raw[i];
            if b < 0x80 {
                out.push(b);
                i += 1;
                continue;
            }
            let len = match b {
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF4 => 4,
                _ => 1,
            };
            if len > 1 && i + len > raw.len() && !eof {
                // Perhaps a UTF-8 sequence that the next read completes.
                break;
            }
            match raw.get(i..i + len).map(std::str::from_utf8) {
                Some(Ok(_)) if len > 1 => {
                    out.extend_from_slice(&raw[i..i + len]);
                    i += len;
                }
                _ => {
                    let c = if (0x80..0xA0).contains(&b) {
                        CP1252_HIGH[usize::from(b - 0x80)]
                    } else {
                        char::from(b)
                    };
                    push_char(out, c);
                    i += 1;
                }
            }
        }
        Ok(i)
    }
}

/// A whole text file decoded as the readers decode a result file: UTF-16 (either byte order,
/// with or without a byte-order mark, as [`sniff`] tells it) through [`Utf16Reader`], UTF-32
/// likewise, UTF-8 without its byte-order mark, and bytes that are not valid UTF-8 through
/// [`Latin1Reader`] (valid UTF-8 sequences kept, every other byte a windows-1252 character).
/// Never fails: a UTF-16 or UTF-32 text with a broken character gets U+FFFD in its place.
/// Line ends are left as they are; see [`crate::text::split_lines`].
pub fn decode_text(bytes: &[u8]) -> Cow<'_, str> {
    match sniff(bytes) {
        Encoding::Utf16 { big_endian } => {
            let mut out = String::new();
            if Utf16Reader::new(bytes, big_endian)
                .read_to_string(&mut out)
                .is_ok()
            {
                return Cow::Owned(out);
            }
            // An unpaired surrogate: the rest of the text still counts.
            let units = bytes.chunks_exact(2).map(|p| {
                if big_endian {
                    u16::from_be_bytes([p[0], p[1]])
                } else {
                    u16::from_le_bytes([p[0], p[1]])
                }
            });
            let text: String = char::decode_utf16(units)
                .map(|c| c.unwrap_or('\u{FFFD}'))
                .collect();
            Cow::Owned(text.trim_start_matches('\u{FEFF}').to_owned())
        }
        Encoding::Utf32 { big_endian } => Cow::Owned(
            bytes
                .chunks_exact(4)
                .map(|q| {
                    let v = if big_endian {
                        u32::from_be_bytes([q[0], q[1], q[2], q[3]])
                    } else {
                        u32::from_le_bytes([q[0], q[1], q[2], q[3]])
                    };
                    char::from_u32(v).unwrap_or('\u{FFFD}')
                })
                .skip_while(|c| *c == '\u{FEFF}')
                .collect(),
        ),
        Encoding::Utf8 | Encoding::Latin1 => {
            let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            match std::str::from_utf8(bytes) {
                Ok(text) => Cow::Borrowed(text),
                Err(_) => {
                    let mut out = String::new();
                    // Reading from a slice fails only on bad input, which Latin-1 has none of.
                    let _ = Latin1Reader::new(bytes).read_to_string(&mut out);
                    Cow::Owned(out)
                }
            }
        }
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

    fn latin1(bytes: &[u8], step: usize) -> String {
        let mut s = String::new();
        Latin1Reader::new(Trickle(bytes, step))
            .read_to_string(&mut s)
            .unwrap();
        s
    }

    #[test]
    fn xml_declarations_naming_latin1_are_recognised() {
        let decl = |d: &str| sniff(format!("{d}\n<testsuite/>").as_bytes());
        assert_eq!(
            decl(r#"<?xml version="1.0" encoding="ISO-8859-1"?>"#),
            Encoding::Latin1
        );
        assert_eq!(
            decl("<?xml version='1.0' encoding = 'windows-1252' ?>"),
            Encoding::Latin1
        );
        assert_eq!(
            decl(r#"<?xml version="1.0" encoding="latin1"?>"#),
            Encoding::Latin1
        );
        assert_eq!(
            decl("\u{FEFF}<?xml encoding=\"US-ASCII\"?>"),
            Encoding::Latin1
        );
        assert_eq!(
            decl(r#"<?xml version="1.0" encoding="UTF-8"?>"#),
            Encoding::Utf8
        );
        assert_eq!(
            decl(r#"<?xml version="1.0" encoding="ISO-8859-15"?>"#),
            Encoding::Utf8
        );
        assert_eq!(decl(r#"<?xml version="1.0"?>"#), Encoding::Utf8);
        assert_eq!(decl(r#"<testsuite encoding="latin1">"#), Encoding::Utf8);
        assert_eq!(sniff(b"<?xml encoding=\"latin1"), Encoding::Utf8);
    }

    #[test]
    fn latin1_and_windows_1252_bytes_become_their_characters() {
        for step in [1, 2, 5, 4096] {
            assert_eq!(
                latin1(b"M\xFCller \xE9t\xE9 \x80 \x93q\x94", step),
                "Müller été € “q”"
            );
            assert_eq!(latin1(b"plain", step), "plain");
        }
    }

    #[test]
    fn utf8_in_a_file_declared_latin1_is_kept_across_reads() {
        for step in [1, 2, 3, 4096] {
            assert_eq!(
                latin1("caf\u{e9} \u{1F600} \u{4E2D}".as_bytes(), step),
                "café 😀 中"
            );
            // A UTF-8 lead byte that nothing completes is a windows-1252 character.
            assert_eq!(latin1(b"a\xC3", step), "a\u{C3}");
            assert_eq!(latin1(b"a\xC3b", step), "a\u{C3}b");
            assert_eq!(latin1(b"\xF0\x9F\x98", step), "\u{F0}\u{178}\u{2DC}");
        }
    }

    #[test]
    fn empty_input_is_empty() {
        assert_eq!(decode(b"", false, 1).unwrap(), "");
        assert_eq!(decode(b"\xFF\xFE", false, 1).unwrap(), "");
    }

    #[test]
    fn whole_texts_decode_as_the_readers_decode_them() {
        let text = "assert greet(\"Wörld\") == 1\r\n";
        assert_eq!(decode_text(text.as_bytes()), text);
        let bom: Vec<u8> = [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat();
        assert_eq!(decode_text(&bom), text);
        for (be, mark) in [(false, true), (true, true), (false, false), (true, false)] {
            assert_eq!(decode_text(&encode(text, be, mark)), text, "{be} {mark}");
        }
        // Not UTF-8: windows-1252, a valid UTF-8 sequence kept.
        assert_eq!(
            decode_text(b"assert greet(\"W\xF6rld\") == \x93\xE2\x82\xAC"),
            "assert greet(\"Wörld\") == \u{201C}€"
        );
        // An unpaired surrogate loses only itself.
        let mut broken = encode("ab", false, true);
        broken.extend_from_slice(&[0x00, 0xD8, b'c', 0]);
        assert_eq!(decode_text(&broken), "ab\u{FFFD}c");
    }
}
