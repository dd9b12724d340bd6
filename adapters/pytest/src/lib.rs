//! gapscore adapter for pytest's own result formats: **pytest-json-report** (`pytest
//! --json-report`, one JSON document), **pytest-reportlog** (`pytest --report-log`, JSON lines,
//! streamed) and pytest's **console text** (`pytest -rA` / `-v`, read with regular expressions
//! at a lower confidence).
//!
//! [`Pytest`] implements [`Adapter`]: [`Adapter::detect`] and [`Adapter::detect_format`] tell
//! the three formats apart ([`FORMAT_JSON_REPORT`], [`FORMAT_REPORTLOG`], [`FORMAT_TEXT`]); the
//! readers are [`json_report::parse_reader`], [`reportlog::parse_reader`] and [`text::parse_reader`].
//! Every format folds a test's setup, call and teardown into one result (an error in setup or
//! teardown makes it errored), keeps xfail/xpass, turns collection errors, interruptions,
//! killed or cut-off runs into problems, and takes a test's category from a marker naming one
//! or a `[tag]` in its name.
//!
//! Reading a small pytest-json-report document (the format when none is chosen):
//!
//! ```
//! use gapscore_adapter_sdk::{parse_to_run, ParseOptions, Status};
//! use gapscore_adapter_pytest::Pytest;
//!
//! let doc = br#"{"exitcode": 1, "tests": [
//!     {"nodeid": "t.py::test_adds", "outcome": "passed"},
//!     {"nodeid": "t.py::test_divides", "outcome": "failed"}]}"#;
//! let run = parse_to_run(&Pytest::new(), doc, &ParseOptions::default())?;
//! assert_eq!(run.tests.len(), 2);
//! assert_eq!(run.tests[1].status, Status::Failed);
//! # Ok::<(), gapscore_adapter_sdk::AdapterError>(())
//! ```

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

mod common;
pub mod json_report;
pub mod reportlog;
pub mod text;

use gapscore_adapter_sdk::detect::{Detection, Why};
use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

use common::has_key;

/// The pytest-json-report format id.
pub const FORMAT_JSON_REPORT: &str = "pytest-json-report";
/// The pytest-reportlog format id.
pub const FORMAT_REPORTLOG: &str = "pytest-reportlog";
/// The pytest console text format id.
pub const FORMAT_TEXT: &str = "pytest-text";

/// The pytest adapter.
#[derive(Debug)]
pub struct Pytest {
    info: AdapterInfo,
}

impl Pytest {
    /// The adapter.
    pub fn new() -> Self {
        Pytest {
            info: AdapterInfo::new(
                "pytest",
                env!("CARGO_PKG_VERSION"),
                &[FORMAT_JSON_REPORT, FORMAT_REPORTLOG, FORMAT_TEXT],
            ),
        }
    }
}

impl Default for Pytest {
    fn default() -> Self {
        Pytest::new()
    }
}

/// Which format a prefix is in, with the confidence.
fn sniff(prefix: &[u8]) -> Option<(&'static str, u8)> {
    sniff_why(prefix, &mut Why::silent())
}

/// [`sniff`], recording its checks in `why` (`explain_detect`).
fn sniff_why(prefix: &[u8], why: &mut Why) -> Option<(&'static str, u8)> {
    let p = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
    let first = p.iter().position(|b| !b.is_ascii_whitespace());
    if let Some(i) = first
        && why.check("the document opens with `{` (JSON)", p[i] == b'{')
    {
        let body = &p[i..];
        // A reportlog's every line is a record tagged with `$report_type`; look at the first.
        let line_end = body.iter().position(|&b| b == b'\n').unwrap_or(body.len());
        if why.check(
            "a \"$report_type\" key on the first line (pytest-reportlog, 98)",
            has_key(&body[..line_end], b"\"$report_type\""),
        ) {
            return Some((FORMAT_REPORTLOG, 98));
        }
        // pytest-json-report's root keys (`exitcode`, `summary`, `collectors`, `root`) or its
        // tests' (`nodeid` with `outcome`). Above the simple format's 90, which any document
        // with a `tests` key and a `status` somewhere would get.
        let root = why.check("an \"exitcode\" key", has_key(body, b"\"exitcode\""))
            && why.check(
                "a \"summary\", \"collectors\" or \"root\" key (pytest-json-report, 97)",
                has_key(body, b"\"summary\"")
                    || has_key(body, b"\"collectors\"")
                    || has_key(body, b"\"root\""),
            );
        if root {
            return Some((FORMAT_JSON_REPORT, 97));
        }
        if why.check("a \"nodeid\" key", has_key(body, b"\"nodeid\""))
            && why.check(
                "an \"outcome\" key (pytest-json-report tests, 95)",
                has_key(body, b"\"outcome\""),
            )
        {
            return Some((FORMAT_JSON_REPORT, 95));
        }
        return None;
    }
    let n = text::detect(p);
    why.check(
        "console text: the `test session starts` banner or the `platform … -- Python …, pytest-…` line (60)",
        n > 0,
    );
    match n {
        0 => None,
        n => Some((FORMAT_TEXT, n)),
    }
}

impl Adapter for Pytest {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    /// reportlog: 98 when the first line is a JSON object with a `$report_type` key.
    /// json-report: 97 for a JSON object with `exitcode` and one of `summary`, `collectors`,
    /// `root`; 95 with test keys `nodeid` and `outcome` only. Console text: 60 on the
    /// `test session starts` banner or the `platform ... -- Python ..., pytest-...` line.
    fn detect(&self, prefix: &[u8], _file_name: Option<&str>) -> u8 {
        sniff(prefix).map_or(0, |(_, n)| n)
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
        match format_of(opts, input) {
            FORMAT_REPORTLOG => {
                let mut r = input;
                reportlog::parse_reader(&mut r, sink)
            }
            FORMAT_TEXT => text::parse(input, sink),
            _ => json_report::parse(input, sink).map_err(AdapterError::from),
        }
    }

    fn parse_reader(
        &self,
        reader: &mut dyn std::io::BufRead,
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        let peek = reader.fill_buf().map_err(AdapterError::io)?;
        let told = opts.format_id.is_some() || sniff(peek).is_some();
        match format_of(opts, peek) {
            FORMAT_REPORTLOG => reportlog::parse_reader(reader, sink),
            FORMAT_TEXT => text::parse_reader(reader, sink),
            // Streamed: memory holds one `collectors` or `tests` entry at a time.
            _ if told => json_report::parse_reader(reader, sink),
            _ => {
                // A buffer too short to tell: the input is read whole, and then told apart on
                // all of it.
                let mut input = Vec::new();
                reader.read_to_end(&mut input).map_err(AdapterError::io)?;
                self.parse(&input, opts, sink)
            }
        }
    }
}

/// The format to read: the host's choice, else what the bytes look like, else json-report
/// (whose reader then names what is wrong).
fn format_of(opts: &ParseOptions, prefix: &[u8]) -> &'static str {
    match opts.format_id.as_deref() {
        Some(FORMAT_REPORTLOG) => FORMAT_REPORTLOG,
        Some(FORMAT_TEXT) => FORMAT_TEXT,
        Some(FORMAT_JSON_REPORT) => FORMAT_JSON_REPORT,
        _ => sniff(prefix).map_or(FORMAT_JSON_REPORT, |(f, _)| f),
    }
}

gapscore_adapter_sdk::export_adapter!("pytest" as gapscore_adapter_pytest => Pytest, Pytest::new());
