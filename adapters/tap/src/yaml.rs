//! The YAML subset TAP diagnostics blocks use (`  ---` … `  ...`), read without a YAML crate:
//! block mappings and sequences, plain, single- and double-quoted scalars, literal (`|`) and
//! folded (`>`) block scalars with their chomping indicators, and flow collections kept as their
//! text. [`parse`] returns a [`Value`] or an error message; the caller keeps an unreadable block
//! as text, so a bad block never fails a run.

use std::borrow::Cow;

/// A parsed YAML node. Keys and single-line plain scalars borrow from the block's text; only
/// what had to be rewritten (quoted, joined, block scalars) is owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value<'a> {
    /// A scalar (plain, quoted or block), as text; `null` and `~` stay as written.
    Scalar(Cow<'a, str>),
    /// A block mapping, in document order.
    Map(Vec<(Cow<'a, str>, Value<'a>)>),
    /// A block sequence.
    List(Vec<Value<'a>>),
}

impl<'a> Value<'a> {
    /// The value of a key of a mapping.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        match self {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.as_ref() == key)
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a scalar.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Scalar(s) => Some(s.as_ref()),
            _ => None,
        }
    }

    /// The value as text: a scalar as is, a collection re-rendered as block YAML.
    pub fn to_text(&self) -> String {
        if let Value::Scalar(s) = self {
            // What rendering a scalar gives, copied once.
            return s.trim_end_matches('\n').to_owned();
        }
        let mut out = String::new();
        self.render(0, &mut out);
        while out.ends_with('\n') {
            out.pop();
        }
        out
    }

    fn render(&self, indent: usize, out: &mut String) {
        let pad = " ".repeat(indent);
        match self {
            Value::Scalar(s) => out.push_str(s),
            Value::Map(entries) => {
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 || indent > 0 {
                        out.push_str(&pad);
                    }
                    out.push_str(k);
                    out.push(':');
                    match v {
                        Value::Scalar(s) => {
                            out.push(' ');
                            out.push_str(s);
                            out.push('\n');
                        }
                        _ => {
                            out.push('\n');
                            v.render(indent + 2, out);
                        }
                    }
                }
            }
            Value::List(items) => {
                for (i, v) in items.iter().enumerate() {
                    if i > 0 || indent > 0 {
                        out.push_str(&pad);
                    }
                    out.push_str("- ");
                    match v {
                        Value::Scalar(s) => {
                            out.push_str(s);
                            out.push('\n');
                        }
                        _ => {
                            out.push('\n');
                            v.render(indent + 2, out);
                        }
                    }
                }
            }
        }
    }
}

/// Nesting deeper than this is not diagnostics; the block is kept as text instead.
const MAX_DEPTH: usize = 32;

struct Parser<'a> {
    // (indent in bytes, content after the indent); blank lines have content "".
    lines: Vec<(usize, &'a str)>,
    pos: usize,
}

/// Parses a diagnostics block (its lines without the block's own indentation): a flat block of
/// plain `key: value` lines by [`parse_flat`], anything else by [`parse_general`]. Both give the
/// same result on what the fast path takes (a differential test and the fuzz target check it).
pub fn parse(text: &str) -> Result<Value<'_>, String> {
    match parse_flat(text) {
        Some(v) => Ok(v),
        None => parse_general(text),
    }
}

/// Most keys a flat block may have; a longer block is read by the general path.
const FLAT_MAX_KEYS: usize = 16;

/// The fast path for the blocks most producers write: every line `key: value` at the block's
/// indentation, with a plain key (ASCII letters, digits, `_`, `-`, `.`) and a plain one-line
/// value, no key twice. Anything else gives `None` and is left to [`parse_general`]: blank,
/// indented or tabbed lines (nesting, continuations), a `\r`, a `#` anywhere (comments), a
/// value that starts with a YAML indicator (quotes, block scalars, flow collections, anchors,
/// tags, sequences) or with or after whitespace, an empty value, an empty block. One pass over
/// each line; keys and values borrow from `text`.
pub fn parse_flat(text: &str) -> Option<Value<'_>> {
    let mut entries: Vec<(Cow<'_, str>, Value<'_>)> = Vec::with_capacity(8);
    let mut rest = text;
    while !rest.is_empty() {
        let (line, next) = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        rest = next;
        let b = line.as_bytes();
        if !b
            .first()
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            return None;
        }
        let colon = b
            .iter()
            .position(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')))?;
        if b[colon] != b':' || b.get(colon + 1) != Some(&b' ') {
            return None;
        }
        let value = &line[colon + 2..];
        let vb = value.as_bytes();
        let first = *vb.first()?;
        if matches!(
            first,
            b' ' | b'\t'
                | b'-'
                | b'?'
                | b':'
                | b','
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'#'
                | b'&'
                | b'*'
                | b'!'
                | b'|'
                | b'>'
                | b'\''
                | b'"'
                | b'%'
                | b'@'
                | b'`'
        ) || memchr::memchr3(b'#', b'\t', b'\r', vb).is_some()
        {
            return None;
        }
        // What `trim` would take off: Unicode whitespace at either end.
        if (!first.is_ascii() && value.chars().next().is_some_and(char::is_whitespace))
            || value.chars().next_back().is_some_and(char::is_whitespace)
        {
            return None;
        }
        let key = &line[..colon];
        if entries.len() == FLAT_MAX_KEYS || entries.iter().any(|(k, _)| k.as_ref() == key) {
            return None;
        }
        entries.push((Cow::Borrowed(key), Value::Scalar(Cow::Borrowed(value))));
    }
    if entries.is_empty() {
        return None;
    }
    Some(Value::Map(entries))
}

/// The general reader of a diagnostics block, every form this module reads; the reference the
/// fast path [`parse_flat`] must agree with.
pub fn parse_general(text: &str) -> Result<Value<'_>, String> {
    let mut p = Parser {
        lines: block_lines(text),
        pos: 0,
    };
    p.skip_blank();
    if p.pos >= p.lines.len() {
        return Ok(Value::Map(Vec::new()));
    }
    let v = p.node(0, 0)?;
    p.skip_blank();
    if let Some((_, c)) = p.lines.get(p.pos) {
        return Err(format!(
            "unexpected `{}` at block line {}",
            clip(c),
            p.pos + 1
        ));
    }
    Ok(v)
}

/// A block's lines as `(indentation in spaces, the rest)`: the lines `str::lines` gives, each
/// without one more trailing `\r`.
fn block_lines(text: &str) -> Vec<(usize, &str)> {
    // Sized once: a block is a handful of lines, and growing the vector cost more than reading.
    let b = text.as_bytes();
    let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', b).count() + 1);
    // The lines `str::lines` gives (a `\r` before each `\n` dropped), each without one more
    // trailing `\r`, split by one byte search and an indentation count per line.
    let mut from = 0;
    while from < b.len() {
        let (mut l, next) = match memchr::memchr(b'\n', &b[from..]) {
            Some(i) => {
                let l = &text[from..from + i];
                (l.strip_suffix('\r').unwrap_or(l), from + i + 1)
            }
            None => (&text[from..], b.len()),
        };
        from = next;
        l = l.strip_suffix('\r').unwrap_or(l);
        let ind = l.bytes().take_while(|&c| c == b' ').count();
        lines.push((ind, &l[ind..]));
    }
    lines
}

fn clip(s: &str) -> &str {
    match s.char_indices().nth(40) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

fn is_blank_or_comment(c: &str) -> bool {
    // Most lines start with a visible ASCII character: no need to trim them to know.
    if c.as_bytes()
        .first()
        .is_some_and(|b| b.is_ascii_graphic() && *b != b'#')
    {
        return false;
    }
    let t = c.trim();
    t.is_empty() || t.starts_with('#')
}

/// Whether a line is `key: value`, without building the key.
fn is_key(c: &str) -> bool {
    key_split(c).is_some()
}

/// Where `key: value` splits: the first `:` followed by a space or the end of the line, outside
/// quotes. The key is borrowed unless it is quoted.
fn key_split(c: &str) -> Option<(Cow<'_, str>, &str)> {
    let b = c.as_bytes();
    let (key, rest_at) = match b.first() {
        Some(&q @ (b'\'' | b'"')) => {
            let (s, used) = quoted(c, q)?;
            (Cow::Owned(s), used)
        }
        _ => {
            let mut i = 0;
            loop {
                match b.get(i) {
                    None => return None,
                    Some(b':') if matches!(b.get(i + 1), None | Some(b' ' | b'\t')) => break,
                    Some(_) => i += 1,
                }
            }
            // The `:` found is followed by a blank or the end: what the checks below accept.
            return Some((Cow::Borrowed(c[..i].trim_end()), c[i + 1..].trim()));
        }
    };
    let rest = c[rest_at..].trim_start();
    let rest = rest.strip_prefix(':')?;
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    Some((key, rest.trim()))
}

/// A quoted scalar at the start of `c`: its value and the bytes it used.
fn quoted(c: &str, q: u8) -> Option<(String, usize)> {
    if q == b'\'' {
        return single_quoted(c);
    }
    let mut out = String::new();
    let mut chars = c.char_indices().skip(1);
    while let Some((i, ch)) = chars.next() {
        if q == b'\'' {
            if ch == '\'' {
                if c[i + 1..].starts_with('\'') {
                    out.push('\'');
                    chars.next();
                    continue;
                }
                return Some((out, i + 1));
            }
            out.push(ch);
        } else {
            match ch {
                '"' => return Some((out, i + 1)),
                '\\' => match chars.next() {
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 't')) => out.push('\t'),
                    Some((_, 'r')) => out.push('\r'),
                    Some((_, '0')) => out.push('\0'),
                    Some((j, 'u')) => {
                        let hex = c.get(j + 1..j + 5)?;
                        let ch = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
                        out.push(ch);
                        for _ in 0..4 {
                            chars.next();
                        }
                    }
                    Some((_, other)) => out.push(other),
                    None => return None,
                },
                _ => out.push(ch),
            }
        }
    }
    None
}

/// A single-quoted scalar at the start of `c` (`''` is a quote): copied a run at a time.
fn single_quoted(c: &str) -> Option<(String, usize)> {
    let body = c.get(1..)?;
    let mut out = String::with_capacity(body.len());
    let mut from = 0;
    loop {
        let at = from + memchr::memchr(b'\'', body.as_bytes().get(from..)?)?;
        out.push_str(body.get(from..at)?);
        if body.as_bytes().get(at + 1) == Some(&b'\'') {
            out.push('\'');
            from = at + 2;
        } else {
            // `at` is relative to the text after the opening quote.
            return Some((out, at + 2));
        }
    }
}

impl<'a> Parser<'a> {
    fn skip_blank(&mut self) {
        while self
            .lines
            .get(self.pos)
            .is_some_and(|(_, c)| is_blank_or_comment(c))
        {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<(usize, &'a str)> {
        self.skip_blank();
        self.lines.get(self.pos).copied()
    }

    fn node(&mut self, min_indent: usize, depth: usize) -> Result<Value<'a>, String> {
        if depth > MAX_DEPTH {
            return Err("nested too deeply".into());
        }
        let Some((ind, c)) = self.peek() else {
            return Ok(Value::Scalar(Cow::Borrowed("")));
        };
        if ind < min_indent {
            return Ok(Value::Scalar(Cow::Borrowed("")));
        }
        if c == "-" || c.starts_with("- ") {
            self.list(ind, depth)
        } else if is_key(c) {
            self.map(ind, depth)
        } else {
            // A bare scalar document (rare in diagnostics).
            self.pos += 1;
            self.scalar(c, ind, depth)
        }
    }

    fn map(&mut self, ind: usize, depth: usize) -> Result<Value<'a>, String> {
        // Diagnostics maps have a few keys: start with room for them.
        let mut entries = Vec::with_capacity(8);
        while let Some((i, c)) = self.peek() {
            if i < ind {
                break;
            }
            if i > ind {
                return Err(format!(
                    "unexpected indentation at block line {}",
                    self.pos + 1
                ));
            }
            let Some((key, rest)) = key_split(c) else {
                return Err(format!(
                    "expected `key: value` at block line {}",
                    self.pos + 1
                ));
            };
            self.pos += 1;
            let value = if rest.is_empty() {
                match self.peek() {
                    Some((j, c2)) if j > ind => {
                        let _ = c2;
                        self.node(ind + 1, depth + 1)?
                    }
                    // A sequence may sit at its key's own indentation.
                    Some((j, c2)) if j == ind && (c2 == "-" || c2.starts_with("- ")) => {
                        self.list(ind, depth + 1)?
                    }
                    _ => Value::Scalar(Cow::Borrowed("")),
                }
            } else {
                self.scalar(rest, ind, depth)?
            };
            entries.push((key, value));
        }
        Ok(Value::Map(entries))
    }

    fn list(&mut self, ind: usize, depth: usize) -> Result<Value<'a>, String> {
        let mut items = Vec::new();
        while let Some((i, c)) = self.peek() {
            if i != ind || !(c == "-" || c.starts_with("- ")) {
                if i > ind {
                    return Err(format!(
                        "unexpected indentation at block line {}",
                        self.pos + 1
                    ));
                }
                break;
            }
            let rest = c[1..].trim_start();
            let item_ind = ind + (c.len() - rest.len());
            if rest.is_empty() {
                self.pos += 1;
                match self.peek() {
                    Some((j, _)) if j > ind => items.push(self.node(ind + 1, depth + 1)?),
                    _ => items.push(Value::Scalar(Cow::Borrowed(""))),
                }
            } else if is_key(rest) && !rest.starts_with(['\'', '"', '[', '{']) {
                // `- key: value` opens a mapping at the key's column.
                self.lines[self.pos] = (item_ind, rest);
                items.push(self.map(item_ind, depth + 1)?);
            } else {
                self.pos += 1;
                items.push(self.scalar(rest, ind, depth)?);
            }
        }
        Ok(Value::List(items))
    }

    /// A scalar starting with `first` (already consumed) on a line at `ind`: block scalars and
    /// plain multi-line scalars take the following more-indented lines.
    fn scalar(&mut self, first: &'a str, ind: usize, depth: usize) -> Result<Value<'a>, String> {
        if depth > MAX_DEPTH {
            return Err("nested too deeply".into());
        }
        let b = first.as_bytes();
        match b[0] {
            b'|' | b'>' => {
                let header = &first[1..];
                let header = header.split(" #").next().unwrap_or("").trim();
                if !header.chars().all(|c| matches!(c, '-' | '+' | '1'..='9')) {
                    return Err(format!("bad block scalar header `{}`", clip(first)));
                }
                Ok(Value::Scalar(Cow::Owned(self.block_scalar(
                    ind,
                    b[0] == b'>',
                    header.contains('-'),
                    header.contains('+'),
                ))))
            }
            q @ (b'\'' | b'"') => match quoted(first, q) {
                Some((s, used)) if is_blank_or_comment(&first[used..]) => {
                    Ok(Value::Scalar(Cow::Owned(s)))
                }
                Some(_) => Err(format!("text after a quoted scalar: `{}`", clip(first))),
                None => {
                    // A quoted scalar continued on the next lines: join them, as YAML folds.
                    let mut joined = first.to_owned();
                    while let Some(&(j, c)) = self.lines.get(self.pos) {
                        if j <= ind && !c.is_empty() {
                            break;
                        }
                        self.pos += 1;
                        joined.push(' ');
                        joined.push_str(c.trim());
                        if let Some((s, used)) = quoted(&joined, q) {
                            if is_blank_or_comment(&joined[used..]) {
                                return Ok(Value::Scalar(Cow::Owned(s)));
                            }
                            return Err("text after a quoted scalar".into());
                        }
                    }
                    Err(format!("unclosed quoted scalar `{}`", clip(first)))
                }
            },
            _ => {
                let mut s = Cow::Borrowed(strip_comment(first));
                // Plain scalars continue on more-indented lines that are not keys.
                while let Some(&(j, c)) = self.lines.get(self.pos) {
                    if c.is_empty() || j <= ind {
                        break;
                    }
                    self.pos += 1;
                    let s = s.to_mut();
                    s.push(' ');
                    s.push_str(strip_comment(c));
                }
                Ok(Value::Scalar(s))
            }
        }
    }

    fn block_scalar(&mut self, ind: usize, folded: bool, strip: bool, keep: bool) -> String {
        let start = self.pos;
        let mut end = start;
        let mut body_ind = None;
        while let Some(&(j, c)) = self.lines.get(end) {
            if c.is_empty() {
                end += 1;
                continue;
            }
            if j <= ind {
                break;
            }
            body_ind.get_or_insert(j);
            end += 1;
        }
        // Trailing blank lines after the last content line belong to what follows, unless kept.
        let mut last = end;
        while last > start && self.lines[last - 1].1.is_empty() {
            last -= 1;
        }
        let body_ind = body_ind.unwrap_or(ind + 1);
        // Sized once for the body's lines (written straight into it, no string per line).
        let body_len: usize = self.lines[start..last]
            .iter()
            .map(|&(j, c)| j.saturating_sub(body_ind) + c.len() + 1)
            .sum();
        let mut out = String::with_capacity(body_len + 1);
        let mut prev_blank = true;
        for &(j, c) in &self.lines[start..last] {
            // Lines indented beyond the body keep their extra spaces.
            let extra = if c.is_empty() {
                0
            } else {
                j.saturating_sub(body_ind)
            };
            if folded {
                if c.is_empty() {
                    out.push('\n');
                    prev_blank = true;
                } else {
                    if !prev_blank && !out.is_empty() {
                        out.push(' ');
                    }
                    push_spaces(&mut out, extra);
                    out.push_str(c);
                    prev_blank = false;
                }
            } else {
                push_spaces(&mut out, extra);
                out.push_str(c);
                out.push('\n');
            }
        }
        if folded && !out.is_empty() {
            out.push('\n');
        }
        self.pos = if keep { end } else { last.max(start) };
        if keep {
            for _ in last..end {
                out.push('\n');
            }
        } else if strip {
            while out.ends_with('\n') {
                out.pop();
            }
        } else {
            while out.ends_with("\n\n") {
                out.pop();
            }
        }
        out
    }
}

fn push_spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// A plain scalar without a trailing ` # comment`.
fn strip_comment(s: &str) -> &str {
    // The first ` #`, found by its `#` (a byte search, not a substring searcher per scalar).
    let b = s.as_bytes();
    match memchr::memchr_iter(b'#', b).find(|&j| j > 0 && b[j - 1] == b' ') {
        Some(j) => s[..j - 1].trim_end(),
        None => s.trim_end(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn scalars_quotes_and_nesting() {
        let v = parse(
            "message: 'it''s wrong'\nseverity: fail\ndata:\n  got: \"a\\tb\"\n  expect: 3\nat:\n  file: t/x.t\n  line: 12\nlist:\n- 1\n- k: v\n  k2: w\n",
        )
        .unwrap();
        assert_eq!(v.get("message").unwrap().as_str(), Some("it's wrong"));
        let data = v.get("data").unwrap();
        assert_eq!(data.get("got").unwrap().as_str(), Some("a\tb"));
        assert_eq!(data.get("expect").unwrap().as_str(), Some("3"));
        assert_eq!(
            v.get("at").unwrap().get("line").unwrap().as_str(),
            Some("12")
        );
        let Value::List(items) = v.get("list").unwrap() else {
            panic!("not a list")
        };
        assert_eq!(items.len(), 2);
        assert_eq!(items[1].get("k2").unwrap().as_str(), Some("w"));
    }

    #[test]
    fn block_scalars() {
        let v = parse("error: |-\n  line one\n\n    indented\n  last\ncode: 1\n").unwrap();
        assert_eq!(
            v.get("error").unwrap().as_str(),
            Some("line one\n\n  indented\nlast")
        );
        let v = parse("a: >\n  folded\n  text\n\n  para\nb: |\n  keep\n").unwrap();
        assert_eq!(v.get("a").unwrap().as_str(), Some("folded text\npara\n"));
        assert_eq!(v.get("b").unwrap().as_str(), Some("keep\n"));
    }

    #[test]
    fn block_lines_split_as_str_lines_does() {
        let parts = ["a", "  b", "\r", "\n", "\r\n", " ", "é", ""];
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..20_000 {
            let mut t = String::new();
            for _ in 0..x % 7 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                t.push_str(parts[(x % parts.len() as u64) as usize]);
            }
            let want: Vec<(usize, &str)> = t
                .lines()
                .map(|l| {
                    let l = l.strip_suffix('\r').unwrap_or(l);
                    let ind = l.len() - l.trim_start_matches(' ').len();
                    (ind, &l[ind..])
                })
                .collect();
            assert_eq!(block_lines(&t), want, "{t:?}");
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for bad in [
            "a: 'open",
            "key: value\n   odd: indent",
            "just text\nmore: x",
            "a: |x",
            "\"\\u12",
        ] {
            let _ = parse(bad);
        }
        assert!(parse("a: 'open").is_err());
        assert!(parse("- a\nb: c").is_err());
    }
}
