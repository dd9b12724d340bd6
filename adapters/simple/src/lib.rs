//! gapscore adapter for the spec's simple results format: `{"tests": [{"name", "status",
//! "category", "expected", "actual", "message"}]}`, the input of the Shadow/Gap Score reference
//! validators, plus an optional root `problems` array in the canonical run's shape.
//!
//! [`Simple`] implements [`Adapter`]; [`parse`] is the streaming reader. Built into the
//! `gapscore` binary and also built as the plugin `libgapscore_adapter_simple.so`, the reference
//! for every adapter crate's shape (rlib + cdylib, fixtures under `tests/fixtures/{valid,invalid}`,
//! one data-driven snapshot test).
//!
//! Reading a small document:
//!
//! ```
//! use gapscore_adapter_sdk::{parse_to_run, ParseOptions, Status};
//! use gapscore_adapter_simple::Simple;
//!
//! let doc = br#"{"tests": [{"name": "adds", "status": "passed"},
//!     {"name": "divides", "status": "failed"}]}"#;
//! let run = parse_to_run(&Simple::new(), doc, &ParseOptions::default())?;
//! assert_eq!(run.tests.len(), 2);
//! assert_eq!(run.tests[1].status, Status::Failed);
//! # Ok::<(), gapscore_adapter_sdk::AdapterError>(())
//! ```

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

mod reader;

use gapscore_adapter_sdk::detect::{Detection, Why};
use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

pub use reader::{SimpleOptions, parse, parse_reader};

/// The format id.
pub const FORMAT_ID: &str = "simple";

/// The simple-format adapter.
#[derive(Debug)]
pub struct Simple {
    info: AdapterInfo,
}

impl Simple {
    /// The adapter.
    pub fn new() -> Self {
        Simple {
            info: AdapterInfo::new("simple", env!("CARGO_PKG_VERSION"), &[FORMAT_ID]),
        }
    }
}

impl Default for Simple {
    fn default() -> Self {
        Simple::new()
    }
}

/// [`Simple::detect`]'s rule, recording its checks in `why` (`explain_detect`).
fn detection(prefix: &[u8], why: &mut Why) -> u8 {
    let p = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
    let first = p.iter().position(|b| !b.is_ascii_whitespace());
    let Some(first) = first.filter(|&i| p[i] == b'{') else {
        why.check("the document opens with `{`", false);
        return 0;
    };
    why.check("the document opens with `{`", true);
    let only_own_keys = || {
        top_level_keys(&p[first..])
            .iter()
            .all(|k| matches!(k.as_slice(), b"tests" | b"problems"))
    };
    // The format's own shape: a `tests` array whose first entry is an object with a
    // `name`. Another format's `tests` (Mocha's entries have a `title`, beside `stats`) is
    // not claimed, so it reaches its own reader or the "no adapter recognises this file"
    // error, never a parse error of this one. A document with nothing but the format's
    // own keys is still claimed, weakly, so a broken simple file gets the reader's error
    // at its line and column.
    if !why.check(
        "no sign \"tests\" is another format's (its first entry, if any, is an object with a \"name\")",
        first_test_has_name(&p[first..]),
    ) {
        return if why.check("a \"tests\" key", has_key(p, b"\"tests\""))
            && why.check(
                "no top-level keys but \"tests\" and \"problems\" (10: a broken simple file gets this reader's error)",
                only_own_keys(),
            ) {
            10
        } else {
            0
        };
    }
    let tests = why.check("a \"tests\" key", has_key(p, b"\"tests\""));
    // A `.json` name alone is no evidence: claiming every JSON file would make an
    // unrelated file found in a directory (a package.json) fail the run.
    if !tests {
        return 0;
    }
    let sure = if why.check(
        "a \"status\" key (90; 80 without)",
        has_key(p, b"\"status\""),
    ) {
        90
    } else {
        80
    };
    // A document that holds more than the format's `tests` and `problems` (a corpus case's
    // truth.json, a summary with a copy of the results) is read only as a guess: found in a
    // directory beside the real result file, it must not count the same tests twice.
    if !why.check(
        "no top-level keys but \"tests\" and \"problems\" (20 otherwise: read only as a guess)",
        only_own_keys(),
    ) {
        return 20;
    }
    sure
}

impl Adapter for Simple {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    /// A JSON object whose prefix has a `"tests"` key: 80, 90 when a `"status"` key is there too
    /// (formats with their own adapter, such as pytest-json-report, score higher there).
    fn detect(&self, prefix: &[u8], _file_name: Option<&str>) -> u8 {
        detection(prefix, &mut Why::silent())
    }

    fn explain_detect(&self, prefix: &[u8], _file_name: Option<&str>) -> Detection {
        let mut why = Why::recording();
        let score = detection(prefix, &mut why);
        why.finish(score)
    }

    fn parse(
        &self,
        input: &[u8],
        _opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        parse(input, &SimpleOptions::default(), sink).map_err(AdapterError::from)
    }

    /// Streams: memory holds one `tests` entry at a time ([`reader::parse_reader`]).
    fn parse_reader(
        &self,
        reader: &mut dyn std::io::BufRead,
        _opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        parse_reader(reader, &SimpleOptions::default(), sink)
    }
}

use gapscore_adapter_sdk::json_has_key as has_key;

/// False when the outermost object's `tests` value, as far as `text` goes, is not an array, or
/// its first entry is not an object, or that object ends without a `name` key. True for an
/// empty array, and when the prefix ends before the first entry does (nothing to refuse on).
fn first_test_has_name(text: &[u8]) -> bool {
    let Some(at) = top_level_value(text, b"tests") else {
        // No `tests` at the top: the key check below decides.
        return true;
    };
    let rest = text.get(at..).unwrap_or_default();
    let mut it = rest
        .iter()
        .enumerate()
        .filter(|(_, b)| !b.is_ascii_whitespace());
    match it.next() {
        Some((_, b'[')) => {}
        None => return true,
        Some(_) => return false,
    }
    match it.next() {
        Some((_, b']')) | None => true,
        Some((i, b'{')) => {
            let entry = rest.get(i..).unwrap_or_default();
            let closed = object_closes(entry);
            !closed || top_level_keys(entry).iter().any(|k| k == b"name")
        }
        Some(_) => false,
    }
}

/// Whether the object `text` starts with ends within `text`.
fn object_closes(text: &[u8]) -> bool {
    let mut depth = 0usize;
    let mut in_str = false;
    let mut escaped = false;
    for &b in text {
        if in_str {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// The offset in `text` (which starts at the outermost `{`) just after the `:` of the top-level
/// key `key`.
fn top_level_value(text: &[u8], key: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = text.get(i) {
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return None;
                }
            }
            b'"' => {
                let start = i + 1;
                i += 1;
                while let Some(&c) = text.get(i) {
                    match c {
                        b'\\' => i += 1,
                        b'"' => break,
                        _ => {}
                    }
                    i += 1;
                }
                let name = text.get(start..i).unwrap_or_default();
                let after = i + 1;
                let colon = text
                    .get(after..)
                    .unwrap_or_default()
                    .iter()
                    .position(|c| !c.is_ascii_whitespace());
                if depth == 1
                    && name == key
                    && let Some(off) = colon
                    && text.get(after + off) == Some(&b':')
                {
                    return Some(after + off + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The keys of the outermost JSON object in `text` (which starts at its `{`), as far as the
/// text goes: a cheap scan for detection, not a parser (escapes inside strings are honoured;
/// a key is a string at depth 1 followed by `:`).
fn top_level_keys(text: &[u8]) -> Vec<Vec<u8>> {
    let mut keys = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = text.get(i) {
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            b'"' => {
                let start = i + 1;
                i += 1;
                while let Some(&c) = text.get(i) {
                    match c {
                        b'\\' => i += 1,
                        b'"' => break,
                        _ => {}
                    }
                    i += 1;
                }
                let after = text.get(i + 1..).unwrap_or_default();
                let colon = after.iter().find(|c| !c.is_ascii_whitespace()) == Some(&b':');
                if depth == 1 && colon {
                    keys.push(text.get(start..i).unwrap_or_default().to_vec());
                }
            }
            _ => {}
        }
        i += 1;
    }
    keys
}

gapscore_adapter_sdk::export_adapter!("simple" as gapscore_adapter_simple => Simple, Simple::new());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_tests_and_problems_at_the_top_are_claimed_with_confidence() {
        let simple = Simple::new();
        let plain =
            br#"{"tests": [{"name": "a", "status": "passed", "suite": {"x": 1}}], "problems": []}"#;
        assert_eq!(simple.detect(plain, None), 90);
        // A corpus case's truth.json: results plus metadata.
        let truth = br#"{"format": "junit-xml", "case": "x", "tests": [{"name": "a", "status": "passed"}]}"#;
        assert_eq!(simple.detect(truth, None), 20);
        // Keys inside strings and nested objects do not count; escapes are honoured.
        let nested = br#"{"tests": [{"name": "say \"case\": hi", "status": "passed", "meta": {"case": 1}}]}"#;
        assert_eq!(simple.detect(nested, None), 90);
        // Another format's `tests` (Mocha's entries have a `title`) beside other keys.
        for other in [
            &br#"{"stats": {"tests": 1}, "tests": [{"title": "a", "fullTitle": "b a", "err": {}}], "passes": []}"#[..],
            br#"{"tests": [{"title": "a", "status": "passed"}], "meta": 1}"#,
        ] {
            assert_eq!(simple.detect(other, None), 0, "{}", String::from_utf8_lossy(other));
        }
        // Nothing but the format's own keys, broken inside: claimed weakly, for the reader's
        // precise error.
        for broken in [
            &br#"{"tests": [{"title": "a", "status": "passed"}]}"#[..],
            br#"{"tests": ["a"]}"#,
            br#"{"tests": 3, "problems": []}"#,
        ] {
            assert_eq!(
                simple.detect(broken, None),
                10,
                "{}",
                String::from_utf8_lossy(broken)
            );
        }
        // An empty list, and a first entry cut by the prefix, are still the format's.
        assert_eq!(simple.detect(br#"{"tests": []}"#, None), 80);
        assert_eq!(
            simple.detect(br#"{"tests": [{"status": "passed", "na"#, None),
            90
        );
        assert_eq!(
            top_level_keys(br#"{"a": {"b": 1}, "c": [{"d": 2}], "e": "f:"}"#),
            [b"a".to_vec(), b"c".to_vec(), b"e".to_vec()]
        );
    }
}
