//! The encodings a report's string may hide sealed source in, undone before the leak scan
//! matches (issue 33): HTML character references, percent-encoding, base64, hex, backslash
//! escapes and reversed text, each alone and any two in a row (`base64(percent(…))`).
//!
//! JSON's own `\u` escapes need nothing here: the parser has decoded them. Each decoder returns
//! `None` when the text holds nothing it decodes, so a plain text costs one pass per decoder
//! and the reversal; the decoded texts are visited one at a time (depth first), so memory stays
//! a small multiple of the text.

/// One encoding undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// `&lt;`, `&#60;`, `&#x3C;`.
    Html,
    /// `%3C`, `+` kept.
    Percent,
    /// `%3C`, `+` read as a space (form encoding).
    Form,
    /// Base64, standard or URL-safe, padded or not, wrapped or not.
    Base64,
    /// Runs of hex digits read as bytes.
    Hex,
    /// `\"`, `\n`, `\x41`, `\u0041`, `\u{41}`: a string escaped again.
    Backslash,
    /// The text backwards.
    Reversed,
}

impl Encoding {
    const ALL: [Encoding; 7] = [
        Encoding::Html,
        Encoding::Percent,
        Encoding::Form,
        Encoding::Base64,
        Encoding::Hex,
        Encoding::Backslash,
        Encoding::Reversed,
    ];

    /// The name a finding gives.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Html => "HTML character references",
            Encoding::Percent => "percent-encoding",
            Encoding::Form => "form encoding",
            Encoding::Base64 => "base64",
            Encoding::Hex => "hex",
            Encoding::Backslash => "backslash escapes",
            Encoding::Reversed => "reversal",
        }
    }

    fn decode(self, text: &str) -> Option<String> {
        match self {
            Encoding::Html => html(text),
            Encoding::Percent => percent(text, false),
            Encoding::Form => percent(text, true),
            Encoding::Base64 => base64(text),
            Encoding::Hex => hex(text),
            Encoding::Backslash => backslash(text),
            Encoding::Reversed => Some(text.chars().rev().collect()),
        }
    }
}

/// Calls `visit` with every decoding of `text` up to two encodings deep (not the text itself),
/// with the encodings undone, outermost first. A decoding that changes nothing is skipped.
pub fn each_decoding(text: &str, visit: &mut dyn FnMut(&[Encoding], &str)) {
    for first in Encoding::ALL {
        let Some(once) = first.decode(text).filter(|d| d != text) else {
            continue;
        };
        visit(&[first], &once);
        for second in Encoding::ALL {
            // Reversing twice is the text again.
            if first == Encoding::Reversed && second == Encoding::Reversed {
                continue;
            }
            if let Some(twice) = second.decode(&once).filter(|d| *d != once) {
                visit(&[first, second], &twice);
            }
        }
    }
}

/// The HTML named references a source line needs (ASCII punctuation and the spaces).
const NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", '\u{a0}'),
    ("Tab", '\t'),
    ("NewLine", '\n'),
    ("excl", '!'),
    ("num", '#'),
    ("dollar", '$'),
    ("percnt", '%'),
    ("lpar", '('),
    ("rpar", ')'),
    ("ast", '*'),
    ("midast", '*'),
    ("plus", '+'),
    ("comma", ','),
    ("period", '.'),
    ("sol", '/'),
    ("colon", ':'),
    ("semi", ';'),
    ("equals", '='),
    ("quest", '?'),
    ("commat", '@'),
    ("lsqb", '['),
    ("lbrack", '['),
    ("bsol", '\\'),
    ("rsqb", ']'),
    ("rbrack", ']'),
    ("Hat", '^'),
    ("lowbar", '_'),
    ("UnderBar", '_'),
    ("grave", '`'),
    ("DiacriticalGrave", '`'),
    ("lcub", '{'),
    ("lbrace", '{'),
    ("verbar", '|'),
    ("vert", '|'),
    ("VerticalLine", '|'),
    ("rcub", '}'),
    ("rbrace", '}'),
    ("minus", '\u{2212}'),
    ("hyphen", '\u{2010}'),
    ("dash", '\u{2010}'),
];

/// HTML character references: named ([`NAMED`]; `&lt` and the other legacy four without `;`
/// too), decimal and hex, with or without the `;`.
fn html(text: &str) -> Option<String> {
    if !text.contains('&') {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some((c, used)) = reference(after) {
            out.push(c);
            rest = &after[used..];
        } else {
            out.push('&');
            rest = after;
        }
    }
    out.push_str(rest);
    Some(out)
}

/// The character of a reference that follows `&`, and the bytes it takes.
fn reference(after: &str) -> Option<(char, usize)> {
    if let Some(num) = after.strip_prefix('#') {
        let (digits, radix, skip) = match num.strip_prefix(['x', 'X']) {
            Some(h) => (h, 16, 2),
            None => (num, 10, 1),
        };
        let len = digits
            .find(|c: char| !c.is_digit(radix))
            .unwrap_or(digits.len());
        if len == 0 || len > 8 {
            return None;
        }
        let c = char::from_u32(u32::from_str_radix(&digits[..len], radix).ok()?)?;
        let semi = usize::from(digits[len..].starts_with(';'));
        return Some((c, skip + len + semi));
    }
    let len = after
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(after.len());
    let name = &after[..len];
    let (_, c) = NAMED.iter().find(|(n, _)| *n == name)?;
    if after[len..].starts_with(';') {
        Some((*c, len + 1))
    } else {
        matches!(name, "amp" | "lt" | "gt" | "quot").then_some((*c, len))
    }
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// `%XX` as bytes (read as UTF-8, lossily); with `plus`, `+` as a space.
fn percent(text: &str, plus: bool) -> Option<String> {
    if !(text.contains('%') || plus && text.contains('+')) {
        return None;
    }
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => match (hex_value(b[i + 1]), hex_value(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' if plus => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// A base64 run shorter than this is not decoded: 16 characters are 12 bytes, more than the
/// shortest sealed line that counts.
const MIN_BASE64_RUN: usize = 16;

fn base64_value(b: u8) -> Option<u8> {
    match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    }
}

/// Every run of base64 characters (standard and URL-safe alphabets, line breaks inside a run
/// allowed, `=` padding ending a quantum) of [`MIN_BASE64_RUN`] or more, decoded from each of
/// its first four characters (a run glued to a word still decodes), one decoding a line.
fn base64(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    let mut run = Vec::new();
    while i <= b.len() {
        match b.get(i).copied() {
            Some(c) if base64_value(c).is_some() => run.push(base64_value(c).unwrap_or(0)),
            // Line breaks inside a wrapped run; padding ends a quantum, not the run.
            Some(b'\n' | b'\r' | b'=') if !run.is_empty() => {
                if b[i] == b'=' {
                    decode_run(&mut run, &mut out);
                }
            }
            _ => decode_run(&mut run, &mut out),
        }
        i += 1;
    }
    (!out.is_empty()).then_some(out)
}

fn decode_run(run: &mut Vec<u8>, out: &mut String) {
    if run.len() >= MIN_BASE64_RUN {
        for start in 0..4 {
            let mut bytes = Vec::with_capacity(run.len() * 3 / 4);
            for q in run[start..].chunks(4) {
                let v = q
                    .iter()
                    .enumerate()
                    .fold(0u32, |acc, (k, x)| acc | u32::from(*x) << (18 - 6 * k));
                let n = match q.len() {
                    4 => 3,
                    3 => 2,
                    2 => 1,
                    _ => 0,
                };
                bytes.extend_from_slice(&v.to_be_bytes()[1..1 + n]);
            }
            out.push_str(&String::from_utf8_lossy(&bytes));
            out.push('\n');
        }
    }
    run.clear();
}

/// Runs of 20 or more hex digits, read as bytes (from each of the run's first two digits).
fn hex(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut start = 0;
    for i in 0..=b.len() {
        if b.get(i).is_some_and(u8::is_ascii_hexdigit) {
            continue;
        }
        let run = &b[start..i];
        if run.len() >= 20 {
            for skip in 0..2 {
                let bytes: Vec<u8> = run[skip..]
                    .chunks_exact(2)
                    .filter_map(|p| Some(hex_value(p[0])? << 4 | hex_value(p[1])?))
                    .collect();
                out.push_str(&String::from_utf8_lossy(&bytes));
                out.push('\n');
            }
        }
        start = i + 1;
    }
    (!out.is_empty()).then_some(out)
}

/// Backslash escapes as a C, Python, JavaScript or JSON string has them; an unknown escape is
/// the character escaped.
fn backslash(text: &str) -> Option<String> {
    if !text.contains('\\') {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let code = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, n: usize| {
            let mut v = 0u32;
            for _ in 0..n {
                let d = chars.peek()?.to_digit(16)?;
                chars.next();
                v = v * 16 + d;
            }
            char::from_u32(v)
        };
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'x' => out.extend(code(&mut chars, 2)),
            'u' if chars.peek() == Some(&'{') => {
                chars.next();
                let digits: String = chars.by_ref().take_while(|c| *c != '}').collect();
                out.extend(
                    u32::from_str_radix(&digits, 16)
                        .ok()
                        .and_then(char::from_u32),
                );
            }
            'u' => out.extend(code(&mut chars, 4)),
            other => out.push(other),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "assert add(1, 2) == 2";

    fn decodes_to_line(encoded: &str) -> Vec<Vec<Encoding>> {
        let mut found = Vec::new();
        each_decoding(encoded, &mut |chain, text| {
            if text.contains(LINE) {
                found.push(chain.to_vec());
            }
        });
        found
    }

    #[test]
    fn each_encoding_is_undone() {
        use Encoding::*;
        for (encoded, chain) in [
            ("assert add(1, 2) &#61;&#x3D; 2", vec![Html]),
            ("assert add&lpar;1, 2&rpar; &equals;= 2", vec![Html]),
            ("assert%20add%281%2C%202%29%20%3D%3D%202", vec![Percent]),
            ("assert+add(1,+2)+==+2", vec![Form]),
            ("note: YXNzZXJ0IGFkZCgxLCAyKSA9PSAy", vec![Base64]),
            ("xYXNzZXJ0IGFkZCgxLCAyKSA9PSAy", vec![Base64]),
            ("YXNzZXJ0IGFk\nZCgxLCAyKSA9PSAy", vec![Base64]),
            ("\\x61ssert add(1, 2) \\u003d\\u{3d} 2", vec![Backslash]),
            ("2 == )2 ,1(dda tressa", vec![Reversed]),
            (
                "assert%2520add(1,%25202)%2520==%25202",
                vec![Percent, Percent],
            ),
        ] {
            let found = decodes_to_line(encoded);
            assert!(found.contains(&chain), "{encoded}: {found:?}");
        }
        let hexed: String = LINE.bytes().map(|b| format!("{b:02x}")).collect();
        assert!(decodes_to_line(&hexed).contains(&vec![Hex]));
        assert!(decodes_to_line(&format!("z{hexed}")).contains(&vec![Hex]));
        // Two layers: base64 of the percent-encoded line.
        assert!(
            decodes_to_line("YXNzZXJ0JTIwYWRkKDEsJTIwMiklMjA9PSUyMDI=")
                .contains(&vec![Base64, Percent])
        );
    }

    #[test]
    fn plain_text_is_left_alone() {
        let mut n = 0;
        each_decoding("AssertionError: expected 3, got 4", &mut |chain, _| {
            assert_eq!(chain, [Encoding::Reversed]);
            n += 1;
        });
        assert_eq!(n, 1);
    }
}
