//! The sealed tests' source as the leak rules match it (spec §4.4): `gapscore feedback`'s
//! scrubber and `gapscore check`'s leak scan both use [`SealedSource`], so a line one finds the
//! other finds.
//!
//! Each sealed file is decoded as the readers decode a result file
//! ([`gapscore_adapter_sdk::encoding::decode_text`]: byte-order marks, UTF-16, UTF-32, Latin-1
//! for bytes that are not UTF-8) and split at `\n`, `\r\n` and a lone `\r`; each line of
//! [`DEFAULT_MIN_LINE_LEN`] or more characters is kept [`fold`]ed. The folded lines go into one
//! Aho-Corasick automaton, so a text is searched for all of them in one pass: time linear in
//! the text (plus the matches), memory linear in the sealed source.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use aho_corasick::{AhoCorasick, MatchKind};
use gapscore_adapter_sdk::encoding::decode_text;
use gapscore_adapter_sdk::text::split_lines;
use regex::Regex;

use crate::decode::{Encoding, each_decoding};
use crate::fold::fold;

/// Lines shorter than this (after trimming) are too common to identify sealed source.
pub const DEFAULT_MIN_LINE_LEN: usize = 10;

/// Characters that end a line in a language the sealed tests may be written in, besides `\n`
/// and `\r`: U+2028, U+2029 (JavaScript, Python), and Python's vertical tab, form feed, file,
/// group and record separators and NEL.
const LANGUAGE_LINE_ENDS: &[char] = &[
    '\u{2028}', '\u{2029}', '\u{0b}', '\u{0c}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{85}',
];

/// One distinct line of sealed source.
#[derive(Debug, Clone)]
struct SourceLine {
    /// The line as first seen, trimmed.
    text: String,
    /// When the line is nothing but a literal ([`literal_of`]), the literal's folded content.
    literal: Option<String>,
}

/// A line of sealed source found in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceMatch<'a> {
    /// The line as the sealed file has it (trimmed).
    pub line: &'a str,
    /// When the line is only a string or number literal (`"Hello, World!",`), the literal's
    /// content, folded: a value the test compares, which spec v2 §4.4 step 2 shares as the
    /// expected result.
    pub literal: Option<&'a str>,
}

/// The sealed tests' source, as far as scrubbing and the leak scan need it. Lines are matched
/// folded ([`fold`]: without whitespace and invisible characters, lowercased, lookalike letters
/// read as Latin), so a respaced, recased or disguised line of source is found too.
#[derive(Debug, Clone)]
pub struct SealedSource {
    min_len: usize,
    /// Each non-trivial line, folded, with the line as first seen.
    lines: BTreeMap<String, SourceLine>,
    files: BTreeSet<String>,
    /// The automaton over the folded lines, and the folded line of each of its patterns.
    matcher: Option<(AhoCorasick, Vec<String>)>,
    /// The automaton over the distinct literal values of the literal-only lines, and each
    /// pattern's value: which literals a shared value holds is one pass over it.
    literals: Option<(AhoCorasick, Vec<String>)>,
    location: Option<Regex>,
    /// The longest folded line, in bytes.
    longest: usize,
}

impl SealedSource {
    /// An empty source; lines shorter than `min_len` characters (trimmed) are not matched.
    pub fn new(min_len: usize) -> Self {
        SealedSource {
            min_len: min_len.max(1),
            lines: BTreeMap::new(),
            files: BTreeSet::new(),
            matcher: None,
            literals: None,
            location: None,
            longest: 0,
        }
    }

    /// Adds one sealed file: its path relative to the sealed directory and its bytes, in any
    /// encoding and with any line ends the readers accept.
    pub fn add_file(&mut self, rel_path: &str, bytes: &[u8]) {
        let text = decode_text(bytes);
        // The languages' own line terminators end a line too (JavaScript's U+2028 and U+2029,
        // Python's `str.splitlines` set): a sealed file written with them is not one line.
        for line in split_lines(&text).flat_map(|l| l.split(LANGUAGE_LINE_ENDS)) {
            let t = line.trim();
            if t.chars().count() >= self.min_len {
                let key = fold(t);
                if !key.is_empty() {
                    self.longest = self.longest.max(key.len());
                    self.lines.entry(key).or_insert_with(|| SourceLine {
                        text: t.to_owned(),
                        literal: literal_of(t),
                    });
                }
            }
        }
        if let Some(base) = rel_path.rsplit(['/', '\\']).next()
            && !base.is_empty()
        {
            self.files.insert(base.to_owned());
        }
        self.matcher = None;
        self.literals = None;
        self.location = None;
    }

    /// Number of distinct source lines that are matched.
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// The length in bytes of the longest folded line: a line split between two texts lies
    /// within this many bytes of their seam.
    pub fn longest_folded(&self) -> usize {
        self.longest
    }

    /// Builds the matchers (once; [`crate::feedback::scrub`] calls it). The lookups work
    /// without it, slowly.
    pub fn prepare(&mut self) {
        if self.matcher.is_none() && !self.lines.is_empty() {
            let keys: Vec<String> = self.lines.keys().cloned().collect();
            self.matcher = AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(&keys)
                .ok()
                .map(|ac| (ac, keys));
        }
        if self.literals.is_none() {
            let values: BTreeSet<&str> = self
                .lines
                .values()
                .filter_map(|l| l.literal.as_deref())
                .filter(|v| !v.is_empty())
                .collect();
            let values: Vec<String> = values.into_iter().map(str::to_owned).collect();
            if !values.is_empty() {
                self.literals = AhoCorasick::builder()
                    .match_kind(MatchKind::Standard)
                    .build(&values)
                    .ok()
                    .map(|ac| (ac, values));
            }
        }
        if self.location.is_none() && !self.files.is_empty() {
            let names: Vec<String> = self.files.iter().map(|f| regex::escape(f)).collect();
            // `path/to/test_x.py:12:5`, `test_x.py", line 12`, `(x.test.js:3:9)`: any path that
            // ends in a sealed file's name, with a line number.
            let pattern = format!(
                r#"[^\s"'()\[\]]*(?:{})(?::\d+(?::\d+)?|"?,\s*line\s+\d+)"#,
                names.join("|")
            );
            self.location = Regex::new(&pattern).ok();
        }
    }

    /// Whether [`SealedSource::prepare`] has built the matchers since the last file was added.
    pub fn is_prepared(&self) -> bool {
        self.lines.is_empty() || self.matcher.is_some()
    }

    /// Whether `line` holds a line of sealed source anywhere.
    pub fn contains_source(&self, line: &str) -> bool {
        let folded = fold(line);
        match &self.matcher {
            Some((ac, _)) => ac.is_match(&folded),
            // Not prepared: one by one.
            None => self.lines.keys().any(|l| folded.contains(l.as_str())),
        }
    }

    /// The leak decision `gapscore feedback`'s scrubber and `gapscore check`'s scan share: the
    /// encodings ([`crate::decode`]) undone to find sealed source in `text`, none when the text
    /// holds it as written, or `None` when neither it nor any decoding of it holds a line.
    /// The text is folded whole, so a line broken over several lines is found too.
    pub fn source_in_decoded(&self, text: &str) -> Option<Vec<Encoding>> {
        if self.contains_source(text) {
            return Some(Vec::new());
        }
        let mut first = None;
        each_decoding(text, &mut |chain, decoded| {
            if first.is_none() && self.contains_source(decoded) {
                first = Some(chain.to_vec());
            }
        });
        first
    }

    /// The distinct lines of sealed source `text` holds anywhere, as the sealed files have them
    /// (trimmed), in the order found. `text` is folded whole, so a line broken over several
    /// lines of `text` is found too.
    pub fn source_lines_in(&self, text: &str) -> Vec<&str> {
        self.matches_in_folded(&fold(text))
            .into_iter()
            .map(|m| m.line)
            .collect()
    }

    /// The distinct lines of sealed source in a text already [`fold`]ed, in the order found
    /// (each where it ends first); lines inside other lines are found too.
    pub fn matches_in_folded(&self, folded: &str) -> Vec<SourceMatch<'_>> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let mut push = |key: &str| {
            if let Some((k, line)) = self.lines.get_key_value(key)
                && seen.insert(k.as_str())
            {
                out.push(SourceMatch {
                    line: line.text.as_str(),
                    literal: line.literal.as_deref(),
                });
            }
        };
        match &self.matcher {
            Some((ac, keys)) => {
                for found in ac.find_overlapping_iter(folded) {
                    push(&keys[found.pattern().as_usize()]);
                }
            }
            None => {
                for key in self.lines.keys().filter(|k| folded.contains(k.as_str())) {
                    push(key);
                }
            }
        }
        out
    }

    /// The literal values of literal-only lines ([`SourceMatch::literal`]) that a folded text
    /// holds anywhere: one pass over the text, whatever the number of literals, so holding many
    /// texts against one long shared value costs the value's length once.
    pub fn literals_in_folded(&self, folded: &str) -> HashSet<&str> {
        match &self.literals {
            Some((ac, values)) => ac
                .find_overlapping_iter(folded)
                .map(|m| values[m.pattern().as_usize()].as_str())
                .collect(),
            None => self
                .lines
                .values()
                .filter_map(|l| l.literal.as_deref())
                .filter(|v| !v.is_empty() && folded.contains(v))
                .collect(),
        }
    }

    /// How many places in sealed files (`test_x.py:12`, `File "test_x.py", line 12`) `text`
    /// names; needs [`SealedSource::prepare`].
    pub fn locations_in(&self, text: &str) -> usize {
        self.location
            .as_ref()
            .map_or(0, |loc| loc.find_iter(text).count())
    }

    /// The location pattern built by [`SealedSource::prepare`].
    pub(crate) fn location(&self) -> Option<&Regex> {
        self.location.as_ref()
    }
}

/// When a (trimmed) line is nothing but one literal — a quoted string (`"…"`, `'…'`, `` `…` ``,
/// with Python's `r`/`b`/`u`/`f` prefixes) or a number — followed by nothing but closing
/// brackets, commas and semicolons, the literal's content, folded. Such a line is a value the
/// test compares (`toBe(\n  "Hello, World!"\n)`), not the test's logic.
fn literal_of(line: &str) -> Option<String> {
    let t = line.trim_end_matches(|c: char| c.is_whitespace() || ",;)]}".contains(c));
    let digits = t.strip_prefix('-').unwrap_or(t);
    if digits.starts_with(|c: char| c.is_ascii_digit()) {
        let number = match digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
            Some(hex) => hex.chars().all(|c| c.is_ascii_hexdigit() || c == '_'),
            None => digits
                .chars()
                .all(|c| c.is_ascii_digit() || "._eE+-".contains(c)),
        };
        return number.then(|| fold(t));
    }
    let q = t.find(['"', '\'', '`'])?;
    let prefix = &t[..q];
    if prefix.len() > 2 || !prefix.chars().all(|c| "rRbBuUfF".contains(c)) {
        return None;
    }
    let quote = t[q..].chars().next()?;
    let body = t[q + 1..].strip_suffix(quote)?;
    // An f-string or a template literal that interpolates computes its value: it is source,
    // not a value the test compares (`f"{greet(name)}!"`, `` `${add(1, 2)}` ``).
    if (prefix.contains(['f', 'F']) && body.contains('{')) || (quote == '`' && body.contains("${"))
    {
        return None;
    }
    // A quote inside that no backslash escapes ends the literal: `"a" + "b"` is an expression.
    let mut escaped = false;
    for c in body.chars() {
        if c == quote && !escaped {
            return None;
        }
        escaped = c == '\\' && !escaped;
    }
    let folded = fold(body);
    (!folded.is_empty()).then_some(folded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_read_in_any_encoding_and_line_end() {
        let line = "assert greet(\"Wörld\") == \"Hello\"";
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(
                format!("import x\r\n{line}\r\n")
                    .encode_utf16()
                    .flat_map(u16::to_le_bytes),
            )
            .collect();
        let latin1 = b"import x\rassert greet(\"W\xF6rld\") == \"Hello\"\rx = 1\r";
        for bytes in [utf16.as_slice(), latin1.as_slice()] {
            let mut src = SealedSource::new(DEFAULT_MIN_LINE_LEN);
            src.add_file("t.py", bytes);
            src.prepare();
            assert_eq!(src.source_lines_in(&format!("E   {line}")), [line]);
        }
    }

    #[test]
    fn literal_lines_are_recognised() {
        assert_eq!(
            literal_of("\"Hello, World!\","),
            Some(fold("Hello, World!"))
        );
        assert_eq!(
            literal_of("'Hello, World!'));"),
            Some(fold("Hello, World!"))
        );
        assert_eq!(literal_of("r'a\\'b'"), Some(fold("a\\'b")));
        assert_eq!(literal_of("1234567890,"), Some("1234567890".into()));
        // Issue 33 (attack B10): interpolation is source.
        assert_eq!(literal_of("f\"{greet('World')} and more\","), None);
        assert_eq!(literal_of("`${greet('World')} and more`,"), None);
        assert_eq!(
            literal_of("f\"no interpolation\","),
            Some(fold("no interpolation"))
        );
        for source in [
            "assert greet(\"World\") == \"Hello, World!\"",
            "\"a\" + \"b\"",
            "expect(x).toBe(\"Hello, World!\");",
            "name: \"Hello, World!\",",
            "return 'x'",
        ] {
            assert_eq!(literal_of(source), None, "{source}");
        }
    }

    #[test]
    fn lines_inside_lines_are_found_and_marked_literal() {
        let mut src = SealedSource::new(DEFAULT_MIN_LINE_LEN);
        src.add_file(
            "t.js",
            b"expect(greet('World')).toBe(\n  'Hello, World!'\n);\nexpect(greet('World')).toBe(\n",
        );
        src.prepare();
        let found = src.matches_in_folded(&fold("expect(greet('World')).toBe('Hello, World!')"));
        let lines: Vec<_> = found.iter().map(|m| (m.line, m.literal)).collect();
        assert_eq!(
            lines,
            [
                ("expect(greet('World')).toBe(", None),
                ("'Hello, World!'", Some("hello,world!")),
            ]
        );
    }
}
