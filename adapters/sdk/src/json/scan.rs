//! The byte-level scanner under `json::stream`: one pass over a JSON document read from a
//! [`BufRead`] into one buffer, which keeps only what a caller asked to hold (the value being
//! handed over, the key being read), validating as serde_json does (structure, strings and
//! their escapes, numbers, literals, UTF-8) and checking the duplicate-key rule in every
//! object. Strings are crossed with `memchr` for their quote or backslash; newlines can only
//! stand between tokens in JSON, so lines are counted while skipping whitespace, for free.

use std::collections::HashMap;
use std::io::{self, BufRead};

use super::keys::{SCAN_KEYS, unescape};
use super::place::{Position, StreamError};

/// Bytes taken from the reader per refill, at most.
const CHUNK: usize = 256 * 1024;

/// Objects and arrays nested deeper than this around a value the caller wants (descends into,
/// takes whole) are refused, as serde_json refuses them (its recursion limit): the walk that
/// hands values over recurses once per level.
pub(crate) const MAX_DEPTH: usize = 127;

/// Nesting inside a value that is only checked is not limited by serde_json's skip (gapscore
/// reads 100,000 levels in an unread field: `cli/tests/it/bad_input.rs`); here it is limited
/// at a million levels, far beyond any test report, so that a file of `{"k":{"k":...` cannot
/// hold memory without end (at the limit: about 1 MiB of array levels, or some 50 MiB of open
/// objects' key frames).
pub(crate) const MAX_NESTING: usize = 1 << 20;

/// Why a scan stopped early.
#[derive(Debug)]
pub(crate) enum Stop {
    /// The input ended before the value did.
    Eof,
    /// Bad input, or a read error (boxed: every scan step returns a `Result` with it).
    Error(Box<StreamError>),
}

impl From<StreamError> for Stop {
    fn from(e: StreamError) -> Self {
        Stop::Error(Box::new(e))
    }
}

pub(crate) type Scan<T> = Result<T, Stop>;

mod quick;

/// One key of an open object: its decoded bytes in [`Keys::arena`] and its place.
struct Key {
    start: usize,
    end: usize,
    /// [`key_tag`] of the bytes: the keys of an object nearly always differ in it, and are
    /// told apart without comparing bytes.
    tag: u64,
    at: Position,
}

/// A key's length and first 7 bytes in one word.
#[inline]
fn key_tag(key: &[u8]) -> u64 {
    let mut head = [0u8; 8];
    let n = key.len().min(7);
    head[..n].copy_from_slice(&key[..n]);
    head[7] = key.len().min(255) as u8;
    u64::from_le_bytes(head)
}

/// One open object's keys: where they start in the shared lists, and a map once it is large.
struct Frame {
    first_key: usize,
    first_byte: usize,
    map: Option<HashMap<Box<[u8]>, Position>>,
}

/// The keys of every open object, innermost last, in one arena: memory holds the open
/// objects' keys and nothing else.
#[derive(Default)]
struct Keys {
    arena: Vec<u8>,
    keys: Vec<Key>,
    frames: Vec<Frame>,
}

impl Keys {
    fn open(&mut self) {
        self.frames.push(Frame {
            first_key: self.keys.len(),
            first_byte: self.arena.len(),
            map: None,
        });
    }

    fn close(&mut self) {
        if let Some(f) = self.frames.pop() {
            self.keys.truncate(f.first_key);
            self.arena.truncate(f.first_byte);
        }
    }

    /// Adds a key to the innermost object; the first occurrence's place when it is there.
    fn add(&mut self, key: &[u8], at: Position) -> Option<Position> {
        let frame = self.frames.last_mut()?;
        let held = &self.keys[frame.first_key..];
        let tag = key_tag(key);
        if let Some(map) = &mut frame.map {
            if let Some(first) = map.get(key) {
                return Some(*first);
            }
            map.insert(key.into(), at);
        } else {
            if let Some(k) = held
                .iter()
                .find(|k| k.tag == tag && &self.arena[k.start..k.end] == key)
            {
                return Some(k.at);
            }
            if held.len() >= SCAN_KEYS {
                let mut map: HashMap<Box<[u8]>, Position> = held
                    .iter()
                    .map(|k| (self.arena[k.start..k.end].into(), k.at))
                    .collect();
                map.insert(key.into(), at);
                frame.map = Some(map);
            }
        }
        if frame.map.is_none() {
            let start = self.arena.len();
            self.arena.extend_from_slice(key);
            self.keys.push(Key {
                start,
                end: self.arena.len(),
                tag,
                at,
            });
        }
        None
    }
}

/// The scanner; see the module docs.
pub(crate) struct Scanner<'r, R: BufRead + ?Sized> {
    reader: &'r mut R,
    /// Bytes read and not yet dropped, `buf[..end]`; `buf[0]` is at file offset `base`. The
    /// rest of `buf` is room the next read fills.
    pub(crate) buf: Vec<u8>,
    pub(crate) end: usize,
    /// The next byte to scan.
    pub(crate) pos: usize,
    base: u64,
    /// Bytes from here on are kept across refills (the value being handed over).
    pin: Option<usize>,
    line: usize,
    line_start: u64,
    keys: Keys,
    /// The arrays and objects open inside the value being skipped (`true`: an object).
    nest: Vec<bool>,
    /// The last decoded key, for the caller.
    pub(crate) key: Vec<u8>,
    /// The quick pass's keys ([`quick`]).
    quick_keys: quick::QuickKeys,
}

impl<'r, R: BufRead + ?Sized> Scanner<'r, R> {
    pub(crate) fn new(reader: &'r mut R) -> Self {
        Scanner {
            reader,
            buf: Vec::new(),
            end: 0,
            pos: 0,
            base: 0,
            pin: None,
            line: 1,
            line_start: 0,
            keys: Keys::default(),
            nest: Vec::new(),
            key: Vec::new(),
            quick_keys: quick::QuickKeys::default(),
        }
    }

    /// The place of `buf[index]`.
    pub(crate) fn position(&self, index: usize) -> Position {
        let offset = self.base + index as u64;
        Position {
            offset,
            line: self.line,
            column: usize::try_from(offset - self.line_start).unwrap_or(usize::MAX) + 1,
        }
    }

    /// The place serde_json gives the end of the input: the column of the last byte of the
    /// last line (0 when the input ends with a newline).
    pub(crate) fn end_position(&self) -> Position {
        let mut p = self.position(self.end);
        p.column -= 1;
        p
    }

    /// Keeps the bytes from `buf[index]` on until [`Self::unpin`].
    pub(crate) fn pin(&mut self, index: usize) {
        self.pin = Some(index);
    }

    pub(crate) fn unpin(&mut self) {
        self.pin = None;
    }

    pub(crate) fn pinned(&self) -> Option<usize> {
        self.pin
    }

    /// Reads more bytes; `false` at the end of the input. The bytes before the pin (or all
    /// scanned bytes) are dropped first; the read goes straight into the buffer's room.
    fn fill(&mut self) -> Scan<bool> {
        let keep = self.pin.unwrap_or(self.pos).min(self.pos);
        if keep > 0 {
            self.buf.copy_within(keep..self.end, 0);
            self.end -= keep;
            self.base += keep as u64;
            self.pos -= keep;
            if let Some(p) = &mut self.pin {
                *p -= keep;
            }
        }
        if self.buf.len() - self.end < CHUNK / 2 {
            self.buf.resize(self.end + CHUNK, 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Stop::from(StreamError::Io(e))),
            }
        }
    }

    /// The next byte, unread; `None` at the end of the input.
    #[inline]
    pub(crate) fn peek(&mut self) -> Scan<Option<u8>> {
        loop {
            if self.pos < self.end {
                return Ok(Some(self.buf[self.pos]));
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// The next byte, unread; the input ending here is [`Stop::Eof`].
    #[inline]
    fn peek_some(&mut self) -> Scan<u8> {
        self.peek()?.ok_or(Stop::Eof)
    }

    /// Skips whitespace, counting lines; the next byte, unread.
    #[inline(never)]
    pub(crate) fn skip_ws(&mut self) -> Scan<Option<u8>> {
        loop {
            // Locals, not fields, in the loop: indented JSON is half whitespace.
            let bytes = &self.buf[..self.end];
            let mut i = self.pos;
            let mut newline = None;
            let mut lines = 0;
            // Tests in order of frequency, not a `match`: a jump table a byte is slower.
            while let Some(&b) = bytes.get(i) {
                if b == b' ' {
                    i += 1;
                } else if b == b'\n' {
                    lines += 1;
                    newline = Some(i);
                    i += 1;
                } else if b == b'\t' || b == b'\r' {
                    i += 1;
                } else {
                    break;
                }
            }
            self.pos = i;
            if let Some(n) = newline {
                self.line += lines;
                self.line_start = self.base + n as u64 + 1;
            }
            if let Some(&b) = bytes.get(i) {
                return Ok(Some(b));
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// Skips whitespace; the next byte, unread, which must be there.
    #[inline(always)]
    pub(crate) fn skip_ws_some(&mut self) -> Scan<u8> {
        // Compact JSON has no whitespace between tokens: that case first, without a loop.
        if let Some(&b) = self.buf[..self.end].get(self.pos)
            && b > b' '
        {
            return Ok(b);
        }
        self.skip_ws()?.ok_or(Stop::Eof)
    }

    /// A syntax error at the byte `buf[pos]`, in serde_json's words.
    pub(crate) fn syntax(&self, message: &'static str) -> Stop {
        Stop::from(StreamError::Syntax {
            at: self.position(self.pos),
            message,
        })
    }

    /// Skips one value of any kind, checking it; the value must start at the next
    /// non-whitespace byte. `depth` is the number of arrays and objects around it. A loop
    /// over a stack of the open arrays and objects, not a recursion: serde_json's skip of an
    /// unread value has no nesting limit either, so neither has this one but [`MAX_NESTING`].
    pub(crate) fn skip_value(&mut self, depth: usize) -> Scan<()> {
        // The open containers (`true` for an object) above this call's base, in a stack kept
        // between calls.
        let base = self.nest.len();
        let r = self.skip_nested(depth, base);
        self.nest.truncate(base);
        r
    }

    fn skip_nested(&mut self, depth: usize, base: usize) -> Scan<()> {
        loop {
            // A value starts here.
            match self.skip_ws_some()? {
                b'{' => {
                    self.enter_nested(depth + self.nest.len() - base)?;
                    self.open_object();
                    if self.object_first_key(false)? {
                        self.nest.push(true);
                        continue;
                    }
                }
                b'[' => {
                    self.enter_nested(depth + self.nest.len() - base)?;
                    self.pos += 1;
                    if self.array_first()? {
                        self.nest.push(false);
                        continue;
                    }
                }
                b'"' => self.string()?,
                b'-' | b'0'..=b'9' => self.number()?,
                b't' => self.ident(b"true")?,
                b'f' => self.ident(b"false")?,
                b'n' => self.ident(b"null")?,
                _ => return Err(self.syntax("expected value")),
            }
            // A value ended: close what it ended, until another value is due.
            loop {
                let more = match self.nest.get(base..).and_then(<[bool]>::last) {
                    None => return Ok(()),
                    Some(true) => self.object_next_key(false)?,
                    Some(false) => self.array_next()?,
                };
                if more {
                    break;
                }
                self.nest.pop();
            }
        }
    }

    /// Refuses one level of skipped nesting too many, at its opening bracket.
    fn enter_nested(&self, depth: usize) -> Scan<()> {
        if depth >= MAX_NESTING {
            return Err(self.syntax("recursion limit exceeded"));
        }
        Ok(())
    }

    /// Refuses one level too many, at its opening bracket.
    pub(crate) fn enter(&self, depth: usize) -> Scan<()> {
        if depth >= MAX_DEPTH {
            return Err(self.syntax("recursion limit exceeded"));
        }
        Ok(())
    }

    /// Consumes the `{` at `pos` and opens its key set.
    pub(crate) fn open_object(&mut self) {
        self.pos += 1;
        self.keys.open();
    }

    /// After `{`: `true` with the first key read (into [`Self::key`] when `keep`) and its `:`
    /// consumed, `false` for an empty object (its `}` consumed, its key set closed).
    pub(crate) fn object_first_key(&mut self, keep: bool) -> Scan<bool> {
        match self.skip_ws_some()? {
            b'}' => {
                self.pos += 1;
                self.keys.close();
                Ok(false)
            }
            b'"' => {
                self.object_key(keep)?;
                Ok(true)
            }
            _ => Err(self.syntax("key must be a string")),
        }
    }

    /// After a member's value: `true` with the next key read and its `:` consumed, `false` at
    /// the object's `}` (consumed, its key set closed).
    pub(crate) fn object_next_key(&mut self, keep: bool) -> Scan<bool> {
        match self.skip_ws_some()? {
            b',' => {
                self.pos += 1;
                match self.skip_ws_some()? {
                    b'"' => {
                        self.object_key(keep)?;
                        Ok(true)
                    }
                    b'}' => Err(self.syntax("trailing comma")),
                    _ => Err(self.syntax("key must be a string")),
                }
            }
            b'}' => {
                self.pos += 1;
                self.keys.close();
                Ok(false)
            }
            _ => Err(self.syntax("expected `,` or `}`")),
        }
    }

    /// After `[` (consumed): `true` when an element follows, `false` for an empty array (its
    /// `]` consumed).
    pub(crate) fn array_first(&mut self) -> Scan<bool> {
        if self.skip_ws_some()? == b']' {
            self.pos += 1;
            return Ok(false);
        }
        Ok(true)
    }

    /// After an element: `true` when another follows (the `,` consumed), `false` at the
    /// array's `]` (consumed).
    pub(crate) fn array_next(&mut self) -> Scan<bool> {
        match self.skip_ws_some()? {
            b',' => {
                self.pos += 1;
                if self.skip_ws_some()? == b']' {
                    return Err(self.syntax("trailing comma"));
                }
                Ok(true)
            }
            b']' => {
                self.pos += 1;
                Ok(false)
            }
            _ => Err(self.syntax("expected `,` or `]`")),
        }
    }

    /// Reads a key (the `"` at `pos`), checks it against its object's other keys, and
    /// consumes the `:` after it; `keep` puts the decoded key in [`Self::key`].
    fn object_key(&mut self, keep: bool) -> Scan<()> {
        let start = self.pos;
        let at = self.position(start);
        // The key's bytes are kept while it is read: under the caller's pin, or its own.
        let outer = self.pin;
        let pin = *self.pin.get_or_insert(start);
        let from_pin = start - pin;
        let escaped = self.string_inner()?;
        // A refill moves the bytes, the pin with them.
        let start = self.pin.unwrap_or(0) + from_pin;
        let raw = &self.buf[start + 1..self.pos - 1];
        let decoded;
        let key = if escaped {
            decoded = unescape(raw).ok_or_else(|| {
                Stop::from(StreamError::Syntax {
                    at,
                    message: "lone leading surrogate in hex escape",
                })
            })?;
            decoded.as_bytes()
        } else {
            raw
        };
        let first = self.keys.add(key, at);
        if keep || first.is_some() {
            self.key.clear();
            self.key.extend_from_slice(key);
        }
        if outer.is_none() {
            self.unpin();
        }
        if let Some(first) = first {
            return Err(Stop::from(StreamError::DuplicateKey {
                key: String::from_utf8_lossy(&self.key).into_owned(),
                at,
                first,
            }));
        }
        if self.skip_ws_some()? != b':' {
            return Err(self.syntax("expected `:`"));
        }
        self.pos += 1;
        Ok(())
    }

    /// Skips a string (the `"` at `pos`).
    pub(crate) fn string(&mut self) -> Scan<()> {
        self.string_inner().map(|_| ())
    }

    /// Crosses a string from its opening quote at `pos` to just past its closing quote,
    /// checking its escapes, control characters and UTF-8; whether it holds an escape.
    fn string_inner(&mut self) -> Scan<bool> {
        self.pos += 1;
        let mut escaped = false;
        loop {
            // One pass to the next quote, backslash or control character, noting any byte
            // that is not ASCII (most strings have none, and skip the UTF-8 check).
            let rest = &self.buf[self.pos..self.end];
            let plain = plain_ascii_prefix(rest);
            let mut high = 0u8;
            let stop = rest[plain..]
                .iter()
                .position(|&b| {
                    high |= b;
                    STRING_STOP[usize::from(b)]
                })
                .map(|i| plain + i);
            let span = &rest[..stop.unwrap_or(rest.len())];
            if high & 0x80 != 0 {
                self.check_utf8(span, stop.is_none())?;
            }
            match stop {
                None => {
                    // Keep a character cut by the refill for the next check.
                    let whole = utf8_whole_prefix(span);
                    self.pos += whole;
                    let hold = self.pin.is_none();
                    if hold {
                        self.pin(self.pos);
                    }
                    let more = self.fill()?;
                    if hold {
                        self.unpin();
                    }
                    if !more {
                        return Err(Stop::Eof);
                    }
                }
                Some(i) => {
                    self.pos += i;
                    match self.buf[self.pos] {
                        b'"' => {
                            self.pos += 1;
                            return Ok(escaped);
                        }
                        b'\\' => {
                            escaped = true;
                            self.escape()?;
                        }
                        c => {
                            // serde_json places a control character just after it: its own
                            // column, or column 0 of the next line after a newline.
                            let mut at = self.position(self.pos);
                            if c == b'\n' {
                                at.line += 1;
                                at.column = 0;
                            }
                            return Err(Stop::from(StreamError::Syntax {
                                at,
                                message: "control character (\\u0000-\\u001F) found while parsing a string",
                            }));
                        }
                    }
                }
            }
        }
    }

    /// Refuses invalid UTF-8 in `span`, the string bytes from `pos`; `open` when the span ends
    /// only because the buffer does (a character may be cut there).
    fn check_utf8(&self, span: &[u8], open: bool) -> Scan<()> {
        if let Err(e) = std::str::from_utf8(span)
            && !(open && e.error_len().is_none())
        {
            return Err(Stop::from(StreamError::InvalidUtf8 {
                at: self.position(self.pos + e.valid_up_to()),
            }));
        }
        Ok(())
    }

    /// Checks the escape whose backslash is at `pos` and moves past it.
    fn escape(&mut self) -> Scan<()> {
        self.pos += 1;
        match self.peek_some()? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                self.pos += 1;
                Ok(())
            }
            b'u' => {
                self.pos += 1;
                // serde_json reads all four before it judges them, and places the error
                // after them: at the fourth's column.
                let mut hex = true;
                for _ in 0..4 {
                    hex &= self.peek_some()?.is_ascii_hexdigit();
                    self.pos += 1;
                }
                if !hex {
                    self.pos -= 1;
                    return Err(self.syntax("invalid escape"));
                }
                Ok(())
            }
            _ => Err(self.syntax("invalid escape")),
        }
    }

    /// Checks `true`, `false` or `null` at `pos`.
    fn ident(&mut self, word: &[u8]) -> Scan<()> {
        for &want in word {
            if self.peek_some()? != want {
                return Err(self.syntax("expected ident"));
            }
            self.pos += 1;
        }
        Ok(())
    }

    /// Checks a number at `pos` (JSON's grammar, as serde_json reads it).
    fn number(&mut self) -> Scan<()> {
        if self.peek_some()? == b'-' {
            self.pos += 1;
        }
        match self.peek_some()? {
            b'0' => {
                self.pos += 1;
                if matches!(self.peek()?, Some(b'0'..=b'9')) {
                    return Err(self.syntax("invalid number"));
                }
            }
            b'1'..=b'9' => self.digits()?,
            _ => return Err(self.syntax("invalid number")),
        }
        if self.peek()? == Some(b'.') {
            self.pos += 1;
            if !self.peek_some()?.is_ascii_digit() {
                return Err(self.syntax("invalid number"));
            }
            self.digits()?;
        }
        if matches!(self.peek()?, Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek_some()?, b'+' | b'-') {
                self.pos += 1;
            }
            if !self.peek_some()?.is_ascii_digit() {
                return Err(self.syntax("invalid number"));
            }
            self.digits()?;
        }
        Ok(())
    }

    fn digits(&mut self) -> Scan<()> {
        while matches!(self.peek()?, Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        Ok(())
    }
}

/// How many bytes at the start of `text` are plain string text in ASCII (no quote, backslash,
/// control character or byte above 127), found 8 at a time: most of a string's bytes.
#[inline]
fn plain_ascii_prefix(text: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Whether any byte of `v` is zero, or below `n` (n ≤ 128): exact for "any".
    let below = |v: u64, n: u64| v.wrapping_sub(ONES * n) & !v & HIGH;
    let mut i = 0;
    while let Some(chunk) = text.get(i..i + 8) {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(chunk);
        let v = u64::from_le_bytes(eight);
        let stop = below(v ^ (ONES * u64::from(b'"')), 1)
            | below(v ^ (ONES * u64::from(b'\\')), 1)
            | below(v, 0x20)
            | (v & HIGH);
        if stop != 0 {
            break;
        }
        i += 8;
    }
    i
}

/// The bytes that end a run of plain string text: the quote, the backslash and the control
/// characters (which JSON refuses raw in a string).
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// The length of the longest prefix of `span` that does not end inside a UTF-8 character.
fn utf8_whole_prefix(span: &[u8]) -> usize {
    // A character is at most 4 bytes: look back at most 3 for the start of a cut one.
    let n = span.len();
    for back in 1..=3.min(n) {
        let b = span[n - back];
        if b & 0xC0 != 0x80 {
            let len = match b {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            return if len > back { n - back } else { n };
        }
    }
    n
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
