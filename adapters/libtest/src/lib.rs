//! gapscore adapter for Rust's libtest JSON: `cargo test -- -Z unstable-options --format json
//! --report-time` (on stable with `RUSTC_BOOTSTRAP=1`) and cargo-nextest's `--message-format
//! libtest-json` / `libtest-json-plus` (with `NEXTEST_EXPERIMENTAL_LIBTEST_JSON=1`).
//!
//! [`Libtest`] implements [`Adapter`] for one format id, [`FORMAT`]. The stream is read line by
//! line (private module `reader`, over the serde record of private module `event`), keeping
//! only the open tests and a few counts per test binary, so memory does not grow with the file.
//! Tests are `passed`, `failed`, `skipped` (`ignored`, with its reason) or `xfailed`
//! (`allowed_fail`); a benchmark that ran is `passed`. A failure's message is the panic in its
//! captured output (private module `message`), with the panic's file and line.
//! At the end, private module `account` holds every binary to what it declared: a suite that
//! never reached its summary is a `crash` (another binary followed) or `truncated` (the stream
//! ends), tests declared by `test_count` and never reported are `missing-tests`, a suite
//! `failed` with no failed test is a `suite-error`; started tests without a result are the
//! Normalizer's `missing-results`. cargo's own lines, when standard error is merged into the
//! stream, name the binaries (`Running tests/api.rs (...)`) and report build failures (private
//! module `lines`). `reader` imports `event`, `lines`, `message`, `binary` (the per-binary
//! records) and `account`; `account` imports `binary` only.
//!
//! Reading a small stream (the format is detected when none is chosen):
//!
//! ```
//! use gapscore_adapter_sdk::{parse_to_run, ParseOptions, ProblemKind, Status};
//! use gapscore_adapter_libtest::Libtest;
//!
//! let doc = br#"{ "type": "suite", "event": "started", "test_count": 3 }
//! { "type": "test", "event": "started", "name": "tests::adds" }
//! { "type": "test", "name": "tests::adds", "event": "ok", "exec_time": 0.001 }
//! { "type": "test", "event": "started", "name": "tests::divides" }
//! "#;
//! let run = parse_to_run(&Libtest::new(), doc, &ParseOptions::default())?;
//! assert_eq!(run.tests.len(), 1);
//! assert_eq!(run.tests[0].status, Status::Passed);
//! // Cut before the summary: the run is cut, one test never finished, one never started.
//! let kinds: Vec<_> = run.problems.iter().map(|p| p.kind).collect();
//! assert!(kinds.contains(&ProblemKind::Truncated));
//! assert!(kinds.contains(&ProblemKind::MissingResults));
//! assert!(kinds.contains(&ProblemKind::MissingTests));
//! # Ok::<(), gapscore_adapter_sdk::AdapterError>(())
//! ```

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

mod account;
mod binary;
mod event;
mod lines;
mod message;
mod reader;

use gapscore_adapter_sdk::detect::{Detection, Why};
use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

/// The format id of libtest JSON streams (cargo test and cargo nextest alike).
pub const FORMAT: &str = "libtest-json";

/// The libtest JSON adapter.
#[derive(Debug)]
pub struct Libtest {
    info: AdapterInfo,
}

impl Libtest {
    /// The adapter.
    pub fn new() -> Self {
        Libtest {
            info: AdapterInfo::new("libtest", env!("CARGO_PKG_VERSION"), &[FORMAT]),
        }
    }
}

impl Default for Libtest {
    fn default() -> Self {
        Libtest::new()
    }
}

/// How many lines of the prefix detection looks at (cargo's status lines may come first).
const DETECT_LINES: usize = 200;

/// The string value of `key` (with its quotes) in a JSON line, when it has one.
fn string_value<'a>(line: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let mut rest = line;
    while let Some(at) = rest.windows(key.len()).position(|w| w == key) {
        let after = rest[at + key.len()..].trim_ascii_start();
        if let Some(value) = after.strip_prefix(b":")
            && let Some(value) = value.trim_ascii_start().strip_prefix(b"\"")
        {
            let end = value.iter().position(|&b| b == b'"')?;
            return Some(&value[..end]);
        }
        rest = &rest[at + 1..];
    }
    None
}

/// A libtest event line: a JSON object whose `type` is `suite`, `test` or `bench` and that has
/// an `event` (or, for a benchmark, a `median`).
fn is_event_line(line: &[u8]) -> bool {
    let line = line.trim_ascii();
    if !line.starts_with(b"{") {
        return false;
    }
    match string_value(line, b"\"type\"") {
        Some(b"suite" | b"test") => string_value(line, b"\"event\"").is_some(),
        Some(b"bench") => gapscore_adapter_sdk::json_has_key(line, b"\"median\""),
        _ => false,
    }
}

/// [`Libtest::detect`]'s rule, recording its check in `why` (`explain_detect`).
fn detection(prefix: &[u8], why: &mut Why) -> u8 {
    let prefix = gapscore_adapter_sdk::encoding::strip_bom(prefix);
    let found = prefix
        .split(|&b| b == b'\n')
        .take(DETECT_LINES)
        .any(is_event_line);
    let found = why.check_with(
        || {
            format!(
                "a libtest JSON event line (`{{\"type\": \"suite\"|\"test\", \"event\": …}}` or a bench line) in the first {DETECT_LINES} lines (97)"
            )
        },
        found,
    );
    if found { 97 } else { 0 }
}

impl Adapter for Libtest {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    /// 97 when a line among the first ones is a libtest event (`{"type": "suite", "event":
    /// "started", ...}`), even after cargo's status lines; 0 otherwise.
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
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        let mut reader = input;
        self.parse_reader(&mut reader, opts, sink)
    }

    fn parse_reader(
        &self,
        reader: &mut dyn std::io::BufRead,
        _opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        reader::parse_reader(reader, sink)
    }
}

gapscore_adapter_sdk::export_adapter!("libtest" as gapscore_adapter_libtest => Libtest, Libtest::new());
