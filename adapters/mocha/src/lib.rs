//! gapscore adapter for Mocha's JSON reporter (`mocha --reporter json`, optionally with
//! `--reporter-option output=FILE`).
//!
//! [`Mocha`] implements [`Adapter`] for one format id, [`FORMAT`]. The document is
//! `{stats, tests, pending, failures, passes}`; [`reader::parse_reader`] reads it as a stream,
//! one array entry at a time over borrowed strings, and sends each entry of `tests` to the sink
//! as soon as it is read, so memory does not grow with the file (it holds one entry, and a
//! fingerprint of each failed and pending test for the cross-checks). A test is `failed` when its `err` holds
//! anything, `passed` when it has a duration, `skipped` otherwise (Mocha's pending tests:
//! `it.skip` and `it` without a function). A test that passed after `this.retries` is flaky
//! (its `currentRetry` earlier attempts failed). The other three arrays and `stats` are
//! evidence held against `tests` (private module `lists`): a failing hook (`"before each" hook
//! for "x"`) is listed in `failures` and not in `tests`, and is a `suite-error` problem for its
//! suite (the tests it stopped are not listed: a sealed manifest counts them as not run); a
//! test `failures` or `pending` lists that `tests` holds as passed, and `stats` counting worse
//! than the arrays, are counted problems. `reader` imports `lists`.
//!
//! Reading a small document:
//!
//! ```
//! use gapscore_adapter_sdk::{parse_to_run, ParseOptions, Status};
//! use gapscore_adapter_mocha::Mocha;
//!
//! let doc = br#"{"stats": {"tests": 2, "passes": 1, "pending": 0, "failures": 1},
//!   "tests": [
//!     {"title": "adds", "fullTitle": "calc adds", "file": "/p/test/calc.js", "duration": 1, "err": {}},
//!     {"title": "divides", "fullTitle": "calc divides", "file": "/p/test/calc.js", "duration": 2,
//!      "err": {"message": "Expected values to be strictly equal", "expected": "3", "actual": "2"}}],
//!   "pending": [],
//!   "failures": [{"title": "divides", "fullTitle": "calc divides", "file": "/p/test/calc.js", "err": {"message": "x"}}],
//!   "passes": [{"title": "adds", "fullTitle": "calc adds", "file": "/p/test/calc.js", "err": {}}]}"#;
//! let run = parse_to_run(&Mocha::new(), doc, &ParseOptions::default())?;
//! assert_eq!(run.tests.len(), 2);
//! assert_eq!(run.tests[1].status, Status::Failed);
//! assert_eq!(run.tests[1].id, "/p/test/calc.js > calc::divides");
//! assert_eq!(run.tests[1].expected.as_deref(), Some("3"));
//! assert!(run.problems.is_empty());
//! # Ok::<(), gapscore_adapter_sdk::AdapterError>(())
//! ```

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

mod foreign;
mod lists;
pub mod reader;

use gapscore_adapter_sdk::detect::{Detection, Why};
use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

/// The format id.
pub const FORMAT: &str = "mocha-json";

/// The Mocha JSON adapter.
#[derive(Debug)]
pub struct Mocha {
    info: AdapterInfo,
}

impl Mocha {
    /// The adapter.
    pub fn new() -> Self {
        Mocha {
            info: AdapterInfo::new("mocha", env!("CARGO_PKG_VERSION"), &[FORMAT]),
        }
    }
}

impl Default for Mocha {
    fn default() -> Self {
        Mocha::new()
    }
}

/// [`Mocha::detect`]'s rule, recording its checks in `why` (`explain_detect`).
fn detection(prefix: &[u8], why: &mut Why) -> u8 {
    let p = gapscore_adapter_sdk::encoding::strip_bom(prefix);
    let first = p.iter().position(|b| !b.is_ascii_whitespace());
    if !why.check(
        "the document opens with `{`",
        first.is_some_and(|i| p[i] == b'{'),
    ) {
        return 0;
    }
    let mocha = [
        ("a \"stats\" key", &b"\"stats\""[..]),
        ("a \"tests\" key", b"\"tests\""),
        ("a \"passes\" key", b"\"passes\""),
        ("a \"pending\" key (all four: 96)", b"\"pending\""),
    ]
    .iter()
    .all(|(what, k)| why.check(what, has_key(p, k)));
    if mocha { 96 } else { 0 }
}

impl Adapter for Mocha {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    /// 96 for a JSON object whose prefix has Mocha's `"stats"` and `"tests"` keys and the
    /// counters `"passes"` and `"pending"` (in `stats`, or the arrays of those names); 0
    /// otherwise. Jest's document has no `"stats"`; the simple format's tests have no `title`.
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
        reader::parse(input, sink).map_err(AdapterError::from)
    }

    /// Streams: memory holds one test entry at a time ([`reader::parse_reader`]).
    fn parse_reader(
        &self,
        reader: &mut dyn std::io::BufRead,
        _opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        reader::parse_reader(reader, sink)
    }
}

use gapscore_adapter_sdk::json_has_key as has_key;

gapscore_adapter_sdk::export_adapter!("mocha" as gapscore_adapter_mocha => Mocha, Mocha::new());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        let m = Mocha::new();
        assert_eq!(
            m.detect(
                b"\xEF\xBB\xBF{\n  \"stats\": {\"suites\": 1, \"tests\": 1, \"passes\": 1, \"pending\": 0},\n  \"tests\": [",
                None
            ),
            96
        );
        for other in [
            &br#"{"tests":[{"name":"a","status":"passed"}]}"#[..],
            br#"{"numTotalTests":1,"testResults":[]}"#,
            br#"["stats", "tests", "passes", "pending"]"#,
            br#"{"message":"\"stats\": 1, \"tests\": [], \"passes\": [], \"pending\": []"}"#,
            b"<testsuites/>",
            b"",
        ] {
            assert_eq!(
                m.detect(other, None),
                0,
                "{}",
                String::from_utf8_lossy(other)
            );
        }
    }
}
