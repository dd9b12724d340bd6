//! Where a JSON pointer is in the text it was parsed from: one pass over the text, following
//! object keys and array indices as a reader would, records the byte offset of each pointer
//! asked for (an object member's key, an array item's first byte); a second pass turns the
//! offsets into 1-based `line:col`. The text has already been parsed by serde_json, so it is
//! valid JSON no deeper than the checker reads (`depth`), on a stack sized for its depth;
//! anything unexpected stops the scan
//! and leaves the rest unlocated. Time is linear in the text whatever the number of pointers.

use std::collections::{HashMap, HashSet};

use crate::model::Finding;
use crate::numbers::Written;

/// Fills in `line` and `column` of every finding whose pointer names something in `text` (the
/// document's root, `""`, is left without a position).
pub(crate) fn locate_findings(text: &str, findings: &mut [Finding]) {
    let wanted: HashSet<&str> = findings
        .iter()
        .map(|f| f.pointer.as_str())
        .filter(|p| !p.is_empty())
        .collect();
    if wanted.is_empty() {
        return;
    }
    let offsets = offsets(text, &wanted);
    let positions = line_cols(text, offsets.values().copied().collect());
    for f in findings {
        if let Some((line, col)) = offsets.get(&f.pointer).and_then(|o| positions.get(o)) {
            f.line = Some(*line);
            f.column = Some(*col);
        }
    }
}

/// The byte offset of each wanted pointer found in `text`.
pub(crate) fn offsets(text: &str, wanted: &HashSet<&str>) -> HashMap<String, usize> {
    let mut scan = Scan {
        text,
        b: text.as_bytes(),
        i: 0,
        path: String::new(),
        wanted,
        found: HashMap::new(),
        collect: None,
        numbers: HashMap::new(),
    };
    let _ = scan.value();
    scan.found
}

/// Every number in `text` at a pointer `wanted` accepts, as written (`33.30` keeps its two
/// decimals, which the parsed value has lost), in one pass.
pub(crate) fn numbers_as_written(
    text: &str,
    wanted: &dyn Fn(&str) -> bool,
) -> HashMap<String, Written> {
    let none = HashSet::new();
    let mut scan = Scan {
        text,
        b: text.as_bytes(),
        i: 0,
        path: String::new(),
        wanted: &none,
        found: HashMap::new(),
        collect: Some(wanted),
        numbers: HashMap::new(),
    };
    let _ = scan.value();
    scan.numbers
}

/// 1-based line and column (in characters) of each offset, in one pass.
fn line_cols(text: &str, mut offsets: Vec<usize>) -> HashMap<usize, (u64, u64)> {
    offsets.sort_unstable();
    offsets.dedup();
    let mut out = HashMap::with_capacity(offsets.len());
    let (mut line, mut line_start, mut from) = (1u64, 0usize, 0usize);
    for off in offsets {
        let Some(between) = text.get(from..off) else {
            continue;
        };
        for (i, c) in between.char_indices() {
            if c == '\n' {
                line += 1;
                line_start = from + i + 1;
            }
        }
        from = off;
        let col = text.get(line_start..off).map_or(0, |s| s.chars().count());
        out.insert(off, (line, col as u64 + 1));
    }
    out
}

struct Scan<'a, 'w> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    /// The pointer of the value being read.
    path: String,
    wanted: &'w HashSet<&'w str>,
    found: HashMap<String, usize>,
    /// When set, the numbers at the pointers it accepts are collected, as written.
    collect: Option<&'w dyn Fn(&str) -> bool>,
    numbers: HashMap<String, Written>,
}

impl Scan<'_, '_> {
    fn ws(&mut self) {
        while self.b.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn done(&self) -> bool {
        self.collect.is_none() && self.found.len() == self.wanted.len()
    }

    /// Records the current path at `at` when it is wanted.
    fn mark(&mut self, at: usize) {
        if self.wanted.contains(self.path.as_str()) {
            self.found.insert(self.path.clone(), at);
        }
    }

    /// Appends a pointer segment, escaped as RFC 6901 says.
    fn push(&mut self, segment: &str) {
        self.path.push('/');
        for c in segment.chars() {
            match c {
                '~' => self.path.push_str("~0"),
                '/' => self.path.push_str("~1"),
                c => self.path.push(c),
            }
        }
    }

    /// Reads one value; `None` stops the scan.
    fn value(&mut self) -> Option<()> {
        self.ws();
        match *self.b.get(self.i)? {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' => self.string().map(drop),
            _ => {
                let start = self.i;
                while self
                    .b
                    .get(self.i)
                    .is_some_and(|c| !matches!(c, b',' | b']' | b'}') && !c.is_ascii_whitespace())
                {
                    self.i += 1;
                }
                if let Some(wanted) = self.collect
                    && wanted(&self.path)
                    && let Some(w) = self.text.get(start..self.i).and_then(Written::parse)
                {
                    self.numbers.insert(self.path.clone(), w);
                }
                Some(())
            }
        }
    }

    fn object(&mut self) -> Option<()> {
        self.i += 1;
        loop {
            self.ws();
            if *self.b.get(self.i)? == b'}' {
                self.i += 1;
                return Some(());
            }
            let at = self.i;
            let key = self.string()?;
            self.ws();
            (*self.b.get(self.i)? == b':').then_some(())?;
            self.i += 1;
            let len = self.path.len();
            self.push(&key);
            self.mark(at);
            self.value()?;
            self.path.truncate(len);
            if self.done() {
                return None;
            }
            self.ws();
            match *self.b.get(self.i)? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn array(&mut self) -> Option<()> {
        self.i += 1;
        let mut index = 0usize;
        loop {
            self.ws();
            if *self.b.get(self.i)? == b']' {
                self.i += 1;
                return Some(());
            }
            let len = self.path.len();
            self.push(&index.to_string());
            self.mark(self.i);
            self.value()?;
            self.path.truncate(len);
            if self.done() {
                return None;
            }
            index += 1;
            self.ws();
            match *self.b.get(self.i)? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// Reads a string at the cursor, unescaped.
    fn string(&mut self) -> Option<String> {
        let start = self.i;
        (*self.b.get(self.i)? == b'"').then_some(())?;
        self.i += 1;
        let mut escaped = false;
        loop {
            match *self.b.get(self.i)? {
                b'\\' => {
                    escaped = true;
                    self.i += 2;
                }
                b'"' => break,
                _ => self.i += 1,
            }
        }
        self.i += 1;
        let raw = self.text.get(start..self.i)?;
        if escaped {
            serde_json::from_str(raw).ok()
        } else {
            raw.get(1..raw.len() - 1).map(str::to_owned)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, pointer: &str) -> Option<(u64, u64)> {
        let wanted: HashSet<&str> = [pointer].into_iter().collect();
        let offsets = offsets(text, &wanted);
        let o = *offsets.get(pointer)?;
        line_cols(text, vec![o]).get(&o).copied()
    }

    #[test]
    fn keys_items_and_escapes_are_found() {
        let text = "{\n  \"report\": {\"level\": \"x\"},\n  \"failures\": [\n    {\"a\": 1},\n    {\"a/b\": [true, \"é\", 3]}\n  ],\n  \"k\\u00e9y\": null\n}";
        assert_eq!(at(text, "/report"), Some((2, 3)));
        assert_eq!(at(text, "/report/level"), Some((2, 14)));
        assert_eq!(at(text, "/failures/1"), Some((5, 5)));
        assert_eq!(at(text, "/failures/1/a~1b/2"), Some((5, 25)));
        assert_eq!(at(text, "/kéy"), Some((7, 3)));
        assert_eq!(at(text, "/missing"), None);
        assert_eq!(at(text, "/failures/7"), None);
    }

    #[test]
    fn numbers_keep_the_decimals_they_are_written_with() {
        let text =
            r#"{"report": {"shadow_score": 33.30, "n": 2.50}, "h": [1.0e1, {"score": -0.50}]}"#;
        let found = numbers_as_written(text, &|p: &str| p.ends_with("score") || p == "/h/0");
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(found["/report/shadow_score"].to_string(), "33.30");
        assert_eq!(found["/h/0"].to_string(), "10");
        assert_eq!(found["/h/1/score"].to_string(), "-0.50");
    }
}
