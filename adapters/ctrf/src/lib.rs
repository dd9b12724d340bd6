//! gapscore adapter for CTRF, the Common Test Report Format of ctrf-io: one JSON document
//! `{"reportFormat": "CTRF", "specVersion", "results": {"tool", "summary", "tests": [...],
//! "extra"}}` written by the ctrf-io reporters (jest, playwright, cypress, mocha, go, ...) and by
//! `gapscore parse --output ctrf`. Older documents without `reportFormat`/`specVersion` are read
//! too. The [`writer`] turns canonical runs into a CTRF document ([`to_ctrf`]); the reader reads
//! its output back without loss.
//!
//! [`Ctrf`] implements [`Adapter`]; [`parse`] is the reader (private module `reader`), which
//! streams `results.tests` element by element into the sink (typed, borrowed deserialisation
//! into the records of the private module `document`: no document tree). The status mapping
//! (also in `document`), `rawStatus` refinements and the round trip of gapscore's own CTRF output
//! (`extra.gapscore_status`, `results.extra.gapscore_problems`) are described in the crate
//! README and on [`parse`].
//!
//! Reading a small CTRF document:
//!
//! ```
//! use gapscore_adapter_sdk::{parse_to_run, ParseOptions, Status};
//! use gapscore_adapter_ctrf::Ctrf;
//!
//! let doc = br#"{"reportFormat": "CTRF", "specVersion": "0.0.0",
//!     "results": {"tool": {"name": "jest"}, "summary": {"tests": 2, "passed": 1,
//!     "failed": 1, "pending": 0, "skipped": 0, "other": 0, "start": 0, "stop": 1},
//!     "tests": [{"name": "adds", "status": "passed", "duration": 1},
//!     {"name": "divides", "status": "failed", "duration": 2}]}}"#;
//! let run = parse_to_run(&Ctrf::new(), doc, &ParseOptions::default())?;
//! assert_eq!(run.tests.len(), 2);
//! assert_eq!(run.tests[1].status, Status::Failed);
//! # Ok::<(), gapscore_adapter_sdk::AdapterError>(())
//! ```

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

mod document;
mod reader;
pub mod writer;

use gapscore_adapter_sdk::detect::{Detection, Why};
use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

pub use reader::{parse, parse_reader};
pub use writer::{ctrf_status, to_ctrf};

/// The format id.
pub const FORMAT_ID: &str = "ctrf-json";

/// The CTRF adapter.
#[derive(Debug)]
pub struct Ctrf {
    info: AdapterInfo,
}

impl Ctrf {
    /// The adapter.
    pub fn new() -> Self {
        Ctrf {
            info: AdapterInfo::new("ctrf", env!("CARGO_PKG_VERSION"), &[FORMAT_ID]),
        }
    }
}

impl Default for Ctrf {
    fn default() -> Self {
        Ctrf::new()
    }
}

/// [`Ctrf::detect`]'s rule, recording its checks in `why` (`explain_detect`).
fn detection(prefix: &[u8], why: &mut Why) -> u8 {
    let p = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
    let first = p.iter().position(|b| !b.is_ascii_whitespace());
    if !why.check(
        "the document opens with `{`",
        first.is_some_and(|i| p[i] == b'{'),
    ) || !why.check(
        "a \"results\" key holding an object",
        key_then(p, b"\"results\"", b"{"),
    ) {
        return 0;
    }
    if why.check(
        "\"reportFormat\": \"CTRF\" (98)",
        key_then(p, b"\"reportFormat\"", b"\"CTRF\""),
    ) || why.check("a \"tool\" key (98)", key_then(p, b"\"tool\"", b""))
    {
        98
    } else if why.check("a \"summary\" key", key_then(p, b"\"summary\"", b""))
        && why.check("a \"tests\" key (95)", key_then(p, b"\"tests\"", b""))
    {
        95
    } else {
        0
    }
}

impl Adapter for Ctrf {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    /// A JSON object with a `"results": {` key and either `"reportFormat": "CTRF"` or a `"tool"`
    /// key: 98. Without those, `"results": {` with both `"summary"` and `"tests"` keys: 95. Both
    /// beat the `simple` adapter (80/90 on any object with a `"tests"` key). `results` must hold
    /// an object, which keeps SARIF (`"results": [`, also with a `"tool"` key) out.
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
        parse(input, sink).map_err(AdapterError::from)
    }

    /// Streams: memory holds one `results.tests` entry at a time ([`parse_reader`]).
    fn parse_reader(
        &self,
        reader: &mut dyn std::io::BufRead,
        _opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        parse_reader(reader, sink)
    }
}

/// True when `key` (quoted) occurs as an object key whose value starts with `value` (after
/// optional whitespace; an empty `value` accepts any). A `"tool"` inside a string list does not
/// count as a key.
fn key_then(text: &[u8], key: &[u8], value: &[u8]) -> bool {
    let mut rest = text;
    while let Some(pos) = rest.windows(key.len()).position(|w| w == key) {
        let after = &rest[pos + key.len()..];
        let mut i = after.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if after.get(i) == Some(&b':') {
            i += 1;
            i += after[i..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
            if after[i..].starts_with(value) {
                return true;
            }
        }
        rest = &rest[pos + 1..];
    }
    false
}

gapscore_adapter_sdk::export_adapter!("ctrf" as gapscore_adapter_ctrf => Ctrf, Ctrf::new());
