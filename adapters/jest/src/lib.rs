//! gapscore adapter for Jest's `--json` output and Vitest's Jest-compatible JSON
//! (`--reporter=json`).
//!
//! [`Jest`] implements [`Adapter`]; [`reader::parse_reader`] reads one document as a stream,
//! one test file (`testResults[]` entry) at a time with typed, borrowed serde structs, pushing
//! the file's `assertionResults` into the sink as soon as that file's object is complete, so
//! memory holds the largest test file entry, not the document. Statuses map onto the canonical ones (pending/skipped/disabled → skipped,
//! todo → todo, `test.failing` → xfailed/xpassed), `retryReasons` become failed attempts, a file
//! that failed to run (no failing test, a `message`, a `testExecError`) is a `suite-error`
//! problem, a run the runner calls unsuccessful or interrupted is never clean, declared counts
//! are checked against what was read, and a cut document keeps every test read before the cut
//! and reports `truncated`. [`message`] holds the failure-text helpers (ANSI, expected/actual).
//!
//! Reading a small `--json` document:
//!
//! ```
//! use gapscore_adapter_sdk::{parse_to_run, ParseOptions, Status};
//! use gapscore_adapter_jest::Jest;
//!
//! let doc = br#"{"success": false, "numTotalTests": 2, "testResults": [{"name": "/p/math.test.js",
//!     "status": "failed", "assertionResults": [
//!     {"ancestorTitles": ["math"], "title": "adds", "status": "passed"},
//!     {"ancestorTitles": ["math"], "title": "divides", "status": "failed"}]}]}"#;
//! let run = parse_to_run(&Jest::new(), doc, &ParseOptions::default())?;
//! assert_eq!(run.tests.len(), 2);
//! assert_eq!(run.tests[1].status, Status::Failed);
//! # Ok::<(), gapscore_adapter_sdk::AdapterError>(())
//! ```

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

mod assertion;
mod declared;
pub mod message;
pub mod reader;
mod state;

use gapscore_adapter_sdk::detect::{Detection, Why};
use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

/// The format id.
pub const FORMAT_ID: &str = "jest-json";

/// The Jest/Vitest JSON adapter.
#[derive(Debug)]
pub struct Jest {
    info: AdapterInfo,
}

impl Jest {
    /// The adapter.
    pub fn new() -> Self {
        Jest {
            info: AdapterInfo::new("jest", env!("CARGO_PKG_VERSION"), &[FORMAT_ID]),
        }
    }
}

impl Default for Jest {
    fn default() -> Self {
        Jest::new()
    }
}

impl Adapter for Jest {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    /// 98 for a JSON object whose prefix has both a `"testResults"` and a `"numTotalTests"` key
    /// (Jest and Vitest write both near the top); 85 for `"numTotalTests"` with Jest's other
    /// counters but no `"testResults"` yet (a huge `snapshot` block pushed it out of the
    /// prefix); 0 otherwise. Neither document has a `"tests"` key, so the simple adapter does
    /// not compete.
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

    /// Streams: memory holds one `testResults[]` entry at a time ([`reader::parse_reader`]).
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

/// [`Jest::detect`]'s rule, recording its checks in `why` (`explain_detect`).
fn detection(prefix: &[u8], why: &mut Why) -> u8 {
    let p = gapscore_adapter_sdk::encoding::strip_bom(prefix);
    let first = p.iter().position(|b| !b.is_ascii_whitespace());
    if !why.check(
        "the document opens with `{`",
        first.is_some_and(|i| p[i] == b'{'),
    ) {
        return 0;
    }
    let total = why.check("a \"numTotalTests\" key", has_key(p, b"\"numTotalTests\""));
    if total && why.check("a \"testResults\" key (98)", has_key(p, b"\"testResults\"")) {
        98
    } else if total
        && why.check(
            "a \"numFailedTests\" key",
            has_key(p, b"\"numFailedTests\""),
        )
        && why.check(
            "a \"numPassedTests\" key (85)",
            has_key(p, b"\"numPassedTests\""),
        )
    {
        85
    } else {
        0
    }
}

gapscore_adapter_sdk::export_adapter!("jest" as gapscore_adapter_jest => Jest, Jest::new());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        let j = Jest::new();
        assert_eq!(
            j.detect(br#"{"numTotalTests":1,"testResults":[]}"#, None),
            98
        );
        assert_eq!(
            j.detect(
                b"\xEF\xBB\xBF {\"numFailedTests\":0,\"numPassedTests\":1,\"numTotalTests\":1,",
                None
            ),
            85
        );
        for other in [
            &br#"{"tests":[{"name":"a","status":"passed"}]}"#[..],
            br#"{"testResults":[]}"#,
            br#"["numTotalTests", "testResults"]"#,
            br#"{"message":"\"numTotalTests\": 1, \"testResults\": []"}"#,
            b"<testsuites/>",
            b"",
        ] {
            assert_eq!(
                j.detect(other, None),
                0,
                "{}",
                String::from_utf8_lossy(other)
            );
        }
    }
}
