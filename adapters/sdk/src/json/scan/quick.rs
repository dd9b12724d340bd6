//! The scanner's quick pass over an element a reader parses with serde_json anyway
//! ([`Visitor::parses_elements`](crate::json::stream::Visitor::parses_elements)): it finds the
//! element's end by its structure alone (brackets, and strings crossed to their quote, 8
//! bytes at a time) and checks the duplicate-key rule, leaving syntax, escapes and numbers
//! to the serde_json parse that reads the element. Checking them here too is what made the
//! stream slower than reading the file whole (the full check cost as much as the parse). It
//! gives up, to the full check, on anything it cannot follow: the input ending, brackets that
//! do not match, a key given twice, a key with an escape, an object of more than 32 keys.
//! Lines are counted once the end is found, in bulk.

use std::io::BufRead;

use super::{MAX_NESTING, Scan, Scanner, key_tag};

/// Keys per object the quick pass compares one by one; an object with more is left to the
/// full check (its hash map).
const QUICK_KEYS: usize = 32;

/// The keys of the objects open in the element being crossed: each key's [`key_tag`] and
/// where it is from the pin (the element's first byte), not a copy.
#[derive(Default)]
pub(crate) struct QuickKeys {
    keys: Vec<(u64, usize, usize)>,
    /// Where each open object's keys start in `keys`.
    frames: Vec<usize>,
}

impl QuickKeys {
    /// Adds the key `held[from..from + len]` to the innermost object; `false` when that object
    /// holds it already, or holds too many keys to compare.
    #[inline]
    fn add(&mut self, held: &[u8], from: usize, len: usize) -> bool {
        let Some(&first) = self.frames.last() else {
            return false;
        };
        let key = &held[from..from + len];
        let tag = key_tag(key);
        let open = &self.keys[first..];
        if open.len() >= QUICK_KEYS
            || open
                .iter()
                .any(|&(t, f, l)| t == tag && &held[f..f + l] == key)
        {
            return false;
        }
        self.keys.push((tag, from, len));
        true
    }
}

/// What a byte is to the quick pass.
const PLAIN: u8 = 0;
const OPEN_OBJECT: u8 = 1;
const OPEN_ARRAY: u8 = 2;
const CLOSE_OBJECT: u8 = 3;
const CLOSE_ARRAY: u8 = 4;
const COMMA: u8 = 5;
const QUOTE: u8 = 6;

static CLASS: [u8; 256] = {
    let mut t = [PLAIN; 256];
    t[b'{' as usize] = OPEN_OBJECT;
    t[b'[' as usize] = OPEN_ARRAY;
    t[b'}' as usize] = CLOSE_OBJECT;
    t[b']' as usize] = CLOSE_ARRAY;
    t[b',' as usize] = COMMA;
    t[b'"' as usize] = QUOTE;
    t
};

/// The scanner's state before a quick pass, to go back to when it gives up.
pub(crate) struct Mark {
    line: usize,
    line_start: u64,
    nest: usize,
}

/// A string being crossed: where its opening quote is (from the pin, which a refill moves)
/// and whether it holds an escape so far.
struct Open {
    from_pin: usize,
    escaped: bool,
}

impl<R: BufRead + ?Sized> Scanner<'_, R> {
    /// The state to [`Self::rewind`] to; the value must start at `pos`, pinned there.
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            line: self.line,
            line_start: self.line_start,
            nest: self.nest.len(),
        }
    }

    /// Back to the pinned start of the value, as [`Self::mark`] left it.
    pub(crate) fn rewind(&mut self, mark: &Mark) {
        self.pos = self.pin.unwrap_or(0);
        self.line = mark.line;
        self.line_start = mark.line_start;
        self.nest.truncate(mark.nest);
    }

    /// Crosses the object or array at `pos` (pinned there) by its structure, checking its keys
    /// for duplicates: `true` with `pos` just past it and lines counted, `false` when the pass
    /// gave up (then [`Self::rewind`] and check it in full). Only a read error is an error.
    /// `depth` is the number of arrays and objects around the value.
    pub(crate) fn cross_structure(&mut self, depth: usize) -> Scan<bool> {
        let base = self.nest.len();
        let start = self.pos;
        let crossed = self.cross(depth, base)?;
        if !crossed {
            return Ok(false);
        }
        // Valid JSON has newlines only between tokens, as the full check counts them; an
        // element that is not JSON is checked in full again when its parse fails.
        let start = self.pin.unwrap_or(start);
        let text = &self.buf[start..self.pos];
        if let Some(last) = memchr::memrchr(b'\n', text) {
            self.line += text[..=last].iter().filter(|&&b| b == b'\n').count();
            self.line_start = self.base + (start + last) as u64 + 1;
        }
        Ok(true)
    }

    fn cross(&mut self, depth: usize, base: usize) -> Scan<bool> {
        self.quick_keys.keys.clear();
        self.quick_keys.frames.clear();
        let mut want_key = false;
        let mut open: Option<Open> = None;
        loop {
            let end = self.end;
            let mut i = self.pos;
            'bytes: loop {
                if let Some(s) = &mut open {
                    // Inside a string: to its closing quote, past each escaped byte.
                    loop {
                        let Some(k) = quote_or_backslash(&self.buf[..end], i) else {
                            i = i.max(end);
                            break 'bytes;
                        };
                        i = k;
                        if self.buf[i] == b'\\' {
                            s.escaped = true;
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    let from_pin = s.from_pin + 1;
                    let escaped = s.escaped;
                    open = None;
                    if want_key {
                        want_key = false;
                        // A key with an escape (rare) is compared decoded by the full check.
                        let pin = self.pin.unwrap_or(0);
                        let len = i - pin - from_pin;
                        if escaped || !self.quick_keys.add(&self.buf[pin..], from_pin, len) {
                            return Ok(false);
                        }
                    }
                    i += 1;
                }
                loop {
                    i = structural(&self.buf[..end], i);
                    let Some(&b) = self.buf[..end].get(i) else {
                        break;
                    };
                    match CLASS[usize::from(b)] {
                        QUOTE => {
                            open = Some(Open {
                                from_pin: i - self.pin.unwrap_or(0),
                                escaped: false,
                            });
                            i += 1;
                            continue 'bytes;
                        }
                        COMMA => {
                            want_key = self.nest.len() > base && self.nest.last() == Some(&true);
                            i += 1;
                        }
                        OPEN_OBJECT | OPEN_ARRAY => {
                            if depth + self.nest.len() - base >= MAX_NESTING {
                                return Ok(false);
                            }
                            let object = b == b'{';
                            self.nest.push(object);
                            if object {
                                self.quick_keys.frames.push(self.quick_keys.keys.len());
                            }
                            want_key = object;
                            i += 1;
                        }
                        CLOSE_OBJECT | CLOSE_ARRAY => {
                            let object = b == b'}';
                            if self.nest.len() <= base || self.nest.last() != Some(&object) {
                                return Ok(false);
                            }
                            self.nest.pop();
                            if object && let Some(first) = self.quick_keys.frames.pop() {
                                self.quick_keys.keys.truncate(first);
                            }
                            want_key = false;
                            i += 1;
                            if self.nest.len() == base {
                                self.pos = i;
                                return Ok(true);
                            }
                        }
                        _ => i += 1,
                    }
                }
                break;
            }
            self.pos = i;
            if !self.fill()? {
                return Ok(false);
            }
        }
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// The high bit of each zero byte of `v`, and maybe of bytes above the first zero byte: the
/// lowest bit set is exactly the first zero byte's.
#[inline(always)]
fn zero_bytes(v: u64) -> u64 {
    v.wrapping_sub(ONES) & !v & (ONES * 0x80)
}

/// The 8 bytes at `i`, as a little-endian word.
#[inline(always)]
fn word(bytes: &[u8], i: usize) -> Option<u64> {
    let eight: [u8; 8] = bytes.get(i..i + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(eight))
}

/// The first bracket, comma or quote at or after `i`, or the length: 8 bytes at a time
/// (numbers, literals, whitespace and colons are crossed; serde_json reads them).
#[inline]
fn structural(bytes: &[u8], mut i: usize) -> usize {
    while let Some(v) = word(bytes, i) {
        // `[` and `{` differ in one bit (0x20), as do `]` and `}`.
        let folded = v | (ONES * 0x20);
        let hits = zero_bytes(folded ^ (ONES * u64::from(b'{')))
            | zero_bytes(folded ^ (ONES * u64::from(b'}')))
            | zero_bytes(v ^ (ONES * u64::from(b',')))
            | zero_bytes(v ^ (ONES * u64::from(b'"')));
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if CLASS[usize::from(b)] != PLAIN {
            break;
        }
        i += 1;
    }
    i
}

/// The first quote or backslash at or after `i`: 8 bytes at a time for a short string,
/// `memchr2` past the first 64 bytes of a long one.
#[inline]
fn quote_or_backslash(bytes: &[u8], mut i: usize) -> Option<usize> {
    let start = i;
    while let Some(v) = word(bytes, i) {
        let hits =
            zero_bytes(v ^ (ONES * u64::from(b'"'))) | zero_bytes(v ^ (ONES * u64::from(b'\\')));
        if hits != 0 {
            return Some(i + (hits.trailing_zeros() / 8) as usize);
        }
        i += 8;
        if i - start >= 64 {
            break;
        }
    }
    memchr::memchr2(b'"', b'\\', bytes.get(i..)?).map(|k| i + k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_searches_find_what_a_byte_loop_finds() {
        let text = br#"{"a": [1.5e-3, true], "b\"c": {"d": "x"}, "e": null, "long": "0123456789012345678901234567890123456789012345678901234567890123456789\\"}"#.repeat(3);
        for i in 0..text.len() {
            let naive = text[i..]
                .iter()
                .position(|&b| CLASS[usize::from(b)] != PLAIN);
            assert_eq!(
                structural(&text, i),
                naive.map_or(text.len(), |k| i + k),
                "{i}"
            );
            let naive = text[i..].iter().position(|&b| b == b'"' || b == b'\\');
            assert_eq!(quote_or_backslash(&text, i), naive.map(|k| i + k), "{i}");
        }
        // Bytes one bit away from the structural ones, and bytes above 127, pass.
        let near = b"zy|~;+\x5a\xdb\xfb\x7a\x0b\xa2\x02\x3c\x2d\x23\x21";
        assert_eq!(structural(near, 0), near.len());
        assert_eq!(quote_or_backslash(near, 0), None);
    }
}
