//! gapscore adapter for Go tests: `go test -json` (test2json) event streams and, with less
//! confidence, plain `go test -v` text.
//!
//! [`GoTest`] implements [`Adapter`] for two format ids, [`JSON_FORMAT`] (read by
//! [`json::parse_reader`]) and [`TEXT_FORMAT`] (read by [`text::parse_reader`]); both stream
//! line by line with no limit on a line's length and keep only open tests. Subtests keep their
//! `/` path and point at their parent, which is marked `parent`. What `go test` reports only in
//! passing becomes a run-level problem: a package that does not build, a test binary that
//! panicked or timed out (its unfinished tests are errored), a package that failed with every
//! test passing, and a stream that stops early.
//!
//! [`common`] holds what the two readers share (go's framing, panic and summary lines, a test's
//! output turned into a message). The JSON reader reads go's own lines with a scanner of its
//! own (private module `fast`) and hands anything else to serde_json; both fill the same event
//! record (private module `event`), so `json` imports `fast` and `event`, and `fast` only
//! `event`. gotestsum `--rerun-fails` streams (a failed test run again after its package ended)
//! are merged into one test with attempts by the private module `rerun`, which `json` imports.
//!
//! Reading a small `go test -json` stream (the format is detected when none is chosen):
//!
//! ```
//! use gapscore_adapter_sdk::{parse_to_run, ParseOptions, Status};
//! use gapscore_adapter_gotest::GoTest;
//!
//! let doc = br#"{"Action":"run","Package":"ex/calc","Test":"TestAdd"}
//! {"Action":"pass","Package":"ex/calc","Test":"TestAdd","Elapsed":0.01}
//! {"Action":"run","Package":"ex/calc","Test":"TestDivide"}
//! {"Action":"fail","Package":"ex/calc","Test":"TestDivide","Elapsed":0.01}
//! {"Action":"fail","Package":"ex/calc","Elapsed":0.02}
//! "#;
//! let run = parse_to_run(&GoTest::new(), doc, &ParseOptions::default())?;
//! assert_eq!(run.tests.len(), 2);
//! assert_eq!(run.tests[1].status, Status::Failed);
//! # Ok::<(), gapscore_adapter_sdk::AdapterError>(())
//! ```

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

pub mod common;
mod event;
mod fast;
pub mod json;
mod rerun;
pub mod text;

use gapscore_adapter_sdk::detect::{Detection, Why};
use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

/// The format id of `go test -json` streams.
pub const JSON_FORMAT: &str = "go-test-json";
/// The format id of plain `go test -v` output.
pub const TEXT_FORMAT: &str = "go-test-text";

/// The Go test adapter.
#[derive(Debug)]
pub struct GoTest {
    info: AdapterInfo,
}

impl GoTest {
    /// The adapter.
    pub fn new() -> Self {
        GoTest {
            info: AdapterInfo::new(
                "gotest",
                env!("CARGO_PKG_VERSION"),
                &[JSON_FORMAT, TEXT_FORMAT],
            ),
        }
    }
}

impl Default for GoTest {
    fn default() -> Self {
        GoTest::new()
    }
}

/// How many lines of the prefix detection looks at.
const DETECT_LINES: usize = 400;

/// Whether `line` holds the key `"key"` followed by a string value, with or without spaces
/// around the colon (`"Action":"run"` as go writes it, `"Action": "run"` as a stream re-encoded
/// by Python's `json.dumps` or PowerShell reads).
fn has_string_key(line: &[u8], key: &[u8]) -> bool {
    let mut rest = line;
    while let Some(at) = rest.windows(key.len()).position(|w| w == key) {
        let after = rest[at + key.len()..].trim_ascii_start();
        if let Some(value) = after.strip_prefix(b":")
            && value.trim_ascii_start().starts_with(b"\"")
        {
            return true;
        }
        rest = &rest[at + 1..];
    }
    false
}

/// A test2json event line: a JSON object with an `Action` and a `Package`, `Test` or
/// `ImportPath` key, as go's encoding/json writes them (no spaces) or with spaces after the
/// colons.
fn is_event_line(line: &[u8]) -> bool {
    line.trim_ascii_start().starts_with(b"{")
        && has_string_key(line, b"\"Action\"")
        && (has_string_key(line, b"\"Package\"")
            || has_string_key(line, b"\"Test\"")
            || has_string_key(line, b"\"ImportPath\""))
}

/// Which format the prefix shows: JSON on a test2json event line; text on `=== RUN`/`--- PASS:`
/// lines (strong) or only `ok`/`FAIL` package lines (weak).
fn sniff(prefix: &[u8]) -> Option<(&'static str, u8)> {
    sniff_why(prefix, &mut Why::silent())
}

/// [`sniff`], recording what it found in `why` (`explain_detect`).
fn sniff_why(prefix: &[u8], why: &mut Why) -> Option<(&'static str, u8)> {
    let prefix = gapscore_adapter_sdk::encoding::strip_bom(prefix);
    let mut text = 0;
    for line in prefix.split(|&b| b == b'\n').take(DETECT_LINES) {
        if is_event_line(line) {
            why.check_with(
                || format!("a test2json event line (`{{\"Action\": …, \"Package\": …}}`) in the first {DETECT_LINES} lines (97)"),
                true,
            );
            return Some((JSON_FORMAT, 97));
        }
        let s = String::from_utf8_lossy(line);
        let s = s.trim_end_matches('\r');
        if common::update_line(s).is_some_and(|(verb, name)| verb == "RUN" && !name.is_empty())
            || common::report_line(s)
                .is_some_and(|(_, _, name, secs)| secs.is_some() && !name.is_empty())
        {
            text = 65;
        } else if common::summary_line(s).is_some() && text == 0 {
            text = 60;
        }
    }
    why.check_with(
        || format!("a test2json event line in the first {DETECT_LINES} lines (97)"),
        false,
    );
    why.check(
        "`=== RUN` or `--- PASS: X (0.00s)` text lines (65)",
        text == 65,
    );
    if text != 65 {
        why.check("`ok`/`FAIL` package lines alone (60)", text == 60);
    }
    (text > 0).then_some((TEXT_FORMAT, text))
}

impl Adapter for GoTest {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    /// 97 for a test2json event line (`{"Action":"...","Package":"..."}`) in the first lines; 65
    /// for `=== RUN` or `--- PASS: X (0.00s)` text lines; 60 for `ok`/`FAIL` package lines
    /// alone (a go 1.19 stream in which every package failed to build); 0 otherwise.
    fn detect(&self, prefix: &[u8], _file_name: Option<&str>) -> u8 {
        sniff(prefix).map_or(0, |(_, c)| c)
    }

    fn explain_detect(&self, prefix: &[u8], _file_name: Option<&str>) -> Detection {
        let mut why = Why::recording();
        let found = sniff_why(prefix, &mut why);
        let d = why.finish(found.map_or(0, |(_, n)| n));
        match found {
            Some((format, _)) => d.with_note(format!("format {format}")),
            None => d,
        }
    }

    fn detect_format(&self, prefix: &[u8], _file_name: Option<&str>) -> Option<String> {
        sniff(prefix).map(|(f, _)| f.to_owned())
    }

    fn parse(
        &self,
        input: &[u8],
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        let mut reader = input;
        self.parse_reader(&mut reader, opts, sink)
    }

    fn parse_reader(
        &self,
        reader: &mut dyn std::io::BufRead,
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        let format = match opts.format_id.as_deref() {
            Some(f) => f.to_owned(),
            None => {
                // Peek without consuming: whatever the reader has buffered.
                let head = reader.fill_buf().map_err(AdapterError::io)?;
                sniff(head).map_or(JSON_FORMAT, |(f, _)| f).to_owned()
            }
        };
        match format.as_str() {
            TEXT_FORMAT => text::parse_reader(reader, sink),
            JSON_FORMAT => json::parse_reader(reader, sink),
            other => Err(AdapterError::Unsupported(format!(
                "format `{other}` is not one of go-test-json, go-test-text"
            ))),
        }
    }
}

gapscore_adapter_sdk::export_adapter!("gotest" as gapscore_adapter_gotest => GoTest, GoTest::new());
