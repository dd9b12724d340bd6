//! The duplicate-key scan of a JSON text held in memory: [`find_duplicate_key`] and
//! [`check_unique_keys`]. The streaming reader (`json::stream`) checks the same rule as it reads.

use std::borrow::Cow;
use std::collections::HashSet;

use gapscore_model::{InputError, Location};

/// A key given a second time in one JSON object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The key, decoded.
    pub key: String,
    /// Byte offset of the second occurrence's opening quote.
    pub offset: usize,
    /// Byte offset of the first occurrence's opening quote.
    pub first_offset: usize,
}

impl DuplicateKey {
    /// The input error at the second occurrence: line and column (1-based, the column in bytes
    /// as serde_json counts it) within `input`, `line_offset` lines further on (for a line of a
    /// JSON-lines stream, its line number less one).
    pub fn to_input_error(&self, input: &[u8], line_offset: usize) -> InputError {
        let (line, column) = line_col(input, self.offset);
        let (first_line, first_column) = line_col(input, self.first_offset);
        duplicate_key_error(
            &self.key,
            (line + line_offset, column),
            (first_line + line_offset, first_column),
        )
    }
}

/// The one error for a key given twice, at the second key's line and column, naming the
/// first's: shared by the scan of a text in memory and the streaming reader.
pub(crate) fn duplicate_key_error(
    key: &str,
    (line, column): (usize, usize),
    (first_line, first_column): (usize, usize),
) -> InputError {
    InputError::Content {
        location: Location::LineCol { line, column },
        message: format!(
            "duplicate key `{key}` in one object (first at {first_line}:{first_column}): the file gives two values for one field, and gapscore reads neither"
        ),
    }
}

/// Line and column (1-based) of a byte offset.
fn line_col(input: &[u8], offset: usize) -> (usize, usize) {
    let before = input.get(..offset).unwrap_or(input);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    (line, offset - start + 1)
}

/// Refuses a JSON text holding a key twice in one object, with the second key's place; see
/// [`find_duplicate_key`]. Text that is not JSON passes: the reader's parser judges it.
pub fn check_unique_keys(input: &[u8]) -> Result<(), InputError> {
    match find_duplicate_key(input) {
        Some(d) => Err(d.to_input_error(input, 0)),
        None => Ok(()),
    }
}

/// Objects with more keys than this are checked through a hash set rather than a scan.
pub(crate) const SCAN_KEYS: usize = 16;

/// One open object: where its keys start in the shared list, and its set once it is large.
struct Frame<'a> {
    object: bool,
    /// The next string in this object is a key (after `{` or `,`).
    want_key: bool,
    base: usize,
    set: Option<HashSet<Cow<'a, [u8]>>>,
}

/// The first key that occurs twice in one object of `input` (a JSON text, or several in a row,
/// or a prefix of one cut short), or `None`. Stops at the first byte that cannot be JSON.
pub fn find_duplicate_key(input: &[u8]) -> Option<DuplicateKey> {
    let mut stack: Vec<Frame<'_>> = Vec::new();
    // The keys of every open object, innermost last: (decoded key, offset of its quote).
    let mut keys: Vec<(Cow<'_, [u8]>, usize)> = Vec::new();
    let mut i = 0;
    let n = input.len();
    while i < n {
        let b = input[i];
        match b {
            b' ' | b'\t' | b'\r' | b'\n' | b':' => i += 1,
            b'{' | b'[' => {
                stack.push(Frame {
                    object: b == b'{',
                    want_key: b == b'{',
                    base: keys.len(),
                    set: None,
                });
                i += 1;
            }
            b'}' | b']' => {
                let frame = stack.pop()?;
                if frame.object != (b == b'}') {
                    return None;
                }
                keys.truncate(frame.base);
                i += 1;
            }
            b',' => {
                if let Some(f) = stack.last_mut() {
                    f.want_key = f.object;
                }
                i += 1;
            }
            b'"' => {
                let (end, escaped) = string_end(input, i)?;
                let frame = stack.last_mut().filter(|f| f.want_key);
                if let Some(frame) = frame {
                    frame.want_key = false;
                    let raw = &input[i + 1..end];
                    let key: Cow<'_, [u8]> = if escaped {
                        Cow::Owned(unescape(raw)?.into_bytes())
                    } else {
                        Cow::Borrowed(raw)
                    };
                    let held = &keys[frame.base..];
                    let first = match &mut frame.set {
                        Some(set) => {
                            if set.contains(&key) {
                                held.iter().find(|(k, _)| *k == key).map(|(_, at)| *at)
                            } else {
                                set.insert(key.clone());
                                None
                            }
                        }
                        None => {
                            let first = held.iter().find(|(k, _)| *k == key).map(|(_, at)| *at);
                            if first.is_none() && held.len() >= SCAN_KEYS {
                                let mut set: HashSet<Cow<'_, [u8]>> =
                                    held.iter().map(|(k, _)| k.clone()).collect();
                                set.insert(key.clone());
                                frame.set = Some(set);
                            }
                            first
                        }
                    };
                    if let Some(first_offset) = first {
                        return Some(DuplicateKey {
                            key: String::from_utf8_lossy(&key).into_owned(),
                            offset: i,
                            first_offset,
                        });
                    }
                    keys.push((key, i));
                }
                i = end + 1;
            }
            // Numbers, true, false, null: skipped to the next structural byte.
            b'-' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'.' | b'+' => {
                while i < n
                    && !matches!(input[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n')
                {
                    if matches!(input[i], b'"' | b'{' | b'[' | b':') {
                        return None;
                    }
                    i += 1;
                }
            }
            _ => return None,
        }
    }
    None
}

/// The index of the closing quote of the string opening at `at`, and whether it holds escapes;
/// `None` when the input ends first.
#[inline]
fn string_end(input: &[u8], at: usize) -> Option<(usize, bool)> {
    let mut i = at + 1;
    let mut escaped = false;
    loop {
        let rest = input.get(i..)?;
        let p = rest.iter().position(|&c| c == b'"' || c == b'\\')?;
        i += p;
        if input[i] == b'"' {
            return Some((i, escaped));
        }
        escaped = true;
        // The escaped character cannot end the string.
        i += 2;
    }
}

/// The text of a key with escapes; `None` for an escape JSON does not allow.
pub(crate) fn unescape(raw: &[u8]) -> Option<String> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let e = *raw.get(i + 1)?;
        i += 2;
        let ch = match e {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = hex4(raw.get(i..i + 4)?)?;
                i += 4;
                if (0xD800..0xDC00).contains(&hi) {
                    // A surrogate pair: `\uD83D\uDE00`.
                    if raw.get(i..i + 2) != Some(b"\\u") {
                        return None;
                    }
                    let lo = hex4(raw.get(i + 2..i + 6)?)?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return None;
                    }
                    i += 6;
                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                } else {
                    char::from_u32(hi)?
                }
            }
            _ => return None,
        };
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
    }
    String::from_utf8(out).ok()
}

fn hex4(h: &[u8]) -> Option<u32> {
    std::str::from_utf8(h)
        .ok()
        .and_then(|s| u32::from_str_radix(s, 16).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dup(s: &str) -> Option<(String, usize, usize)> {
        find_duplicate_key(s.as_bytes()).map(|d| (d.key, d.offset, d.first_offset))
    }

    #[test]
    fn finds_a_key_given_twice_at_any_depth() {
        assert_eq!(
            dup(r#"{"status":"failed","status":"passed"}"#),
            Some(("status".into(), 19, 1))
        );
        assert_eq!(
            dup(r#"{"a":[{"b":{"c":1,"d":{"x":1},"c":2}}]}"#),
            Some(("c".into(), 30, 12))
        );
        // The same text spelled with an escape is the same key.
        assert_eq!(
            dup(r#"{"ab":1,"\u0061b":2}"#).map(|d| d.0),
            Some("ab".into())
        );
        assert_eq!(
            dup(r#"{"😀":1,"\ud83d\ude00":2}"#).map(|d| d.0),
            Some("😀".into())
        );
    }

    #[test]
    fn keys_of_other_objects_and_values_are_not_duplicates() {
        assert_eq!(dup(r#"{"a":{"a":1},"b":[{"a":1},{"a":2}],"c":"a"}"#), None);
        assert_eq!(dup(r#"{"a":"\"a\":","b":"x\\","a\\":1}"#), None);
        assert_eq!(dup(r#"[{"a":1},{"a":1}]"#), None);
        assert_eq!(dup(r#"{"a":1}{"a":1}"#), None);
        assert_eq!(dup(r#"{"x":true,"y":null,"z":-1.5e3}"#), None);
    }

    #[test]
    fn large_objects_use_a_set() {
        let mut s = String::from("{");
        for k in 0..100 {
            s.push_str(&format!("\"k{k}\":{k},"));
        }
        s.push_str("\"k42\":0}");
        assert_eq!(dup(&s).map(|d| d.0), Some("k42".into()));
        let ok = s.replace("\"k42\":0}", "\"k100\":0}");
        assert_eq!(dup(&ok), None);
    }

    #[test]
    fn what_is_not_json_is_left_to_the_parser() {
        assert_eq!(dup(r#"{"a":1,"a"#), None);
        assert_eq!(dup(r#"{"a":1]"#), None);
        assert_eq!(dup(r#"{"a":1,"#), None);
        assert_eq!(dup("\u{1}"), None);
        // A duplicate before a cut is still one.
        assert_eq!(dup(r#"{"a":1,"a":2,"b":"#).map(|d| d.0), Some("a".into()));
    }

    #[test]
    fn the_error_names_both_places() {
        let text = "{\n  \"status\": \"failed\",\n  \"status\": \"passed\"\n}";
        let e = check_unique_keys(text.as_bytes()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "3:3: duplicate key `status` in one object (first at 2:3): the file gives two values for one field, and gapscore reads neither"
        );
        assert!(check_unique_keys(b"{\"a\":1}").is_ok());
    }
}
