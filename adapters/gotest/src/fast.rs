//! A fast path for the exact shape of test2json lines: a flat JSON object whose values are
//! strings, numbers, booleans or null, as go's encoding/json writes it. It reads the keys the
//! adapter needs and skips the rest without building anything; strings borrow from the line
//! unless they hold escapes. Anything else (nesting, duplicate keys, a bad escape, trailing
//! text) makes it answer `None`, and the caller hands the line to serde_json, which either reads
//! it or says precisely what is wrong: the fast path never decides that a line is invalid.

use std::borrow::Cow;

use crate::event::Event;

/// Reads one event line (already trimmed), or `None` to ask serde_json.
pub(crate) fn event(line: &str) -> Option<Event<'_>> {
    let b = line.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut ev = Event::default();
    let mut action = None;
    let mut seen = 0u8;
    // The other keys (go writes `Time`): a line repeating one goes to serde_json's path, where
    // the duplicate is refused.
    let mut others: [&str; 4] = [""; 4];
    let mut n_others = 0;
    i = skip_ws(b, i);
    if b.get(i) == Some(&b'}') {
        return None;
    }
    loop {
        i = skip_ws(b, i);
        // The key: go's field names hold no escapes.
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let start = i + 1;
        let end = start
            + b.get(start..)?
                .iter()
                .position(|&c| c == b'"' || c == b'\\')?;
        if b[end] != b'"' {
            return None;
        }
        let key = &line[start..end];
        i = skip_ws(b, end + 1);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, i + 1);
        let bit = match key {
            "Action" => 1,
            "Package" => 2,
            "Test" => 4,
            "Output" => 8,
            "Elapsed" => 16,
            "ImportPath" => 32,
            "FailedBuild" => 64,
            _ => 0,
        };
        if bit != 0 {
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
        } else {
            if others[..n_others].contains(&key) || n_others == others.len() {
                return None;
            }
            others[n_others] = key;
            n_others += 1;
        }
        match b.get(i)? {
            b'"' => {
                let (s, next) = string(line, i)?;
                i = next;
                match bit {
                    1 => action = Some(s),
                    2 => ev.package = Some(s),
                    4 => ev.test = Some(s),
                    8 => ev.output = Some(s),
                    32 => ev.import_path = Some(s),
                    64 => ev.failed_build = Some(s),
                    0 => {}
                    // A string where a number belongs: serde_json says so.
                    _ => return None,
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                match bit {
                    16 => ev.elapsed = Some(line[start..i].parse().ok()?),
                    0 => {}
                    _ => return None,
                }
            }
            b'n' if bit != 1 && line[i..].starts_with("null") => i += 4,
            b't' if bit == 0 && line[i..].starts_with("true") => i += 4,
            b'f' if bit == 0 && line[i..].starts_with("false") => i += 5,
            _ => return None,
        }
        i = skip_ws(b, i);
        match b.get(i)? {
            b',' => i += 1,
            b'}' => {
                i += 1;
                break;
            }
            _ => return None,
        }
    }
    if skip_ws(b, i) != b.len() {
        return None;
    }
    ev.action = action?;
    Some(ev)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    i
}

/// The JSON string starting at the quote at `at`: its value and the index after its closing
/// quote.
fn string(line: &str, at: usize) -> Option<(Cow<'_, str>, usize)> {
    let b = line.as_bytes();
    let start = at + 1;
    // Plain run up to the closing quote, the first escape or a (forbidden) control byte.
    let mut i = special(b, start);
    if *b.get(i)? == b'"' {
        return Some((Cow::Borrowed(&line[start..i]), i + 1));
    }
    let mut out = String::with_capacity(i - start + 16);
    out.push_str(&line[start..i]);
    loop {
        match *b.get(i)? {
            b'"' => return Some((Cow::Owned(out), i + 1)),
            b'\\' => {
                let c = *b.get(i + 1)?;
                i += 2;
                match c {
                    b'"' => out.push('"'),
                    b'\\' => out.push('\\'),
                    b'/' => out.push('/'),
                    b'b' => out.push('\u{8}'),
                    b'f' => out.push('\u{c}'),
                    b'n' => out.push('\n'),
                    b'r' => out.push('\r'),
                    b't' => out.push('\t'),
                    b'u' => {
                        let hi = hex4(b, i)?;
                        i += 4;
                        let code = if (0xD800..0xDC00).contains(&hi) {
                            // A surrogate pair: the low half must follow.
                            if b.get(i) != Some(&b'\\') || b.get(i + 1) != Some(&b'u') {
                                return None;
                            }
                            let lo = hex4(b, i + 2)?;
                            if !(0xDC00..0xE000).contains(&lo) {
                                return None;
                            }
                            i += 6;
                            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                        } else {
                            hi
                        };
                        out.push(char::from_u32(code)?);
                    }
                    _ => return None,
                }
            }
            c if c < 0x20 => return None,
            _ => {
                let run = i;
                i = special(b, i);
                // `run..i` stops at ASCII bytes only, so both ends are char boundaries.
                out.push_str(&line[run..i]);
            }
        }
    }
}

/// The index of the first `"`, `\\` or control byte at or after `from` (or `b.len()`), eight
/// bytes at a time: each test marks a byte's top bit when it matches, and may also mark bytes
/// after a true match (a borrow), never before one, so the byte scan that follows a marked word
/// finds the exact place.
fn special(b: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = from;
    while let Some(chunk) = b.get(i..i + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let w = u64::from_le_bytes(w);
        let quote = w ^ (ONES * u64::from(b'"'));
        let slash = w ^ (ONES * u64::from(b'\\'));
        let hit = (quote.wrapping_sub(ONES) & !quote)
            | (slash.wrapping_sub(ONES) & !slash)
            | (w.wrapping_sub(ONES * 0x20) & !w);
        if hit & HIGH != 0 {
            break;
        }
        i += 8;
    }
    while i < b.len() && b[i] != b'"' && b[i] != b'\\' && b[i] >= 0x20 {
        i += 1;
    }
    i
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let digits = b.get(at..at + 4)?;
    let mut v = 0u32;
    for &d in digits {
        v = v * 16 + (d as char).to_digit(16)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(line: &str) {
        let fast = event(line).unwrap_or_else(|| panic!("fast path refused {line}"));
        let slow: Event = serde_json::from_str(line).unwrap();
        assert_eq!(fast, slow, "{line}");
    }

    #[test]
    fn agrees_with_serde() {
        same(
            r#"{"Time":"2026-11-22T08:46:25.735079972Z","Action":"run","Package":"example.com/calc","Test":"TestA"}"#,
        );
        same(
            r#"{"Action":"output","Package":"p","Test":"TestEscapes/\u003ctag\u003e_\u0026_\"quotes\"_'apos'","Output":"a\tb\\c\n"}"#,
        );
        same(r#"{"Action":"pass","Package":"p","Test":"T","Elapsed":0.01}"#);
        same(r#"{"Action":"pass","Package":"p","Elapsed":-1.5e-3}"#);
        same(r#"{"ImportPath":"p [p.test]","Action":"build-fail"}"#);
        same(
            r#" { "Action" : "output" , "Output" : "\ud83d\ude00 ünï \u00e9" , "X" : null , "Y" : true } "#,
        );
    }

    #[test]
    fn special_bytes_are_found_exactly() {
        let text = "abcdefghijklmnopqrstuvwxyz0123456789ünï名前";
        for at in 0..text.len() {
            if !text.is_char_boundary(at) {
                continue;
            }
            for c in ['"', '\\', '\n', '\u{1}'] {
                let s = format!("{}{c}{}", &text[..at], &text[at..]);
                assert_eq!(special(s.as_bytes(), 0), at, "{s:?}");
                assert_eq!(special(s.as_bytes(), at.min(3)), at, "{s:?}");
            }
        }
        assert_eq!(special(text.as_bytes(), 0), text.len());
    }

    #[test]
    fn declines_what_serde_must_judge() {
        for line in [
            r#"{"Action":"run","Action":"pass"}"#,
            r#"{"Package":"p"}"#,
            r#"{"Action":"run","Extra":{"a":1}}"#,
            r#"{"Action":"run"} trailing"#,
            r#"{"Action":"run","Output":"\ud800"}"#,
            r#"{"Action":"run","Output":"\x"}"#,
            r#"{"Action":"run","Elapsed":"1"}"#,
            r#"{"Action":"run""#,
            "{\"Action\":\"run\",\"Output\":\"a\u{1}\"}",
            "{}",
        ] {
            assert!(event(line).is_none(), "{line}");
        }
    }
}
