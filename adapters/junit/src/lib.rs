//! gapscore adapter for JUnit XML, the format most runners can write, in every common dialect:
//! pytest (xunit1 and xunit2), jest-junit, go-junit-report, gotestsum, node's reporter, mocha,
//! bats, cargo-nextest, Maven Surefire and Gradle.
//!
//! [`JUnit`] implements [`Adapter`]; [`parser`] streams quick-xml events into the sink without
//! building a tree. `<failure>` and `<error>` stay apart (failed vs errored); Surefire's
//! `flakyFailure`/`rerunFailure` elements become attempts; pytest's xfail and node's todo keep
//! their meaning; the pseudo-testcases producers use for a build failure, a collection error or a
//! suite that failed to run become problems; a file cut off mid-element keeps every complete
//! testcase and reports `truncated`. [`parser::split`] reads a large file in two halves on two
//! threads with exactly the events of one pass (the host uses it for `score`).
//!
//! Reading a small report:
//!
//! ```
//! use gapscore_adapter_sdk::{parse_to_run, ParseOptions, Status};
//! use gapscore_adapter_junit::JUnit;
//!
//! let doc = br#"<testsuite name="calc" tests="2" failures="1">
//!   <testcase classname="calc" name="adds"/>
//!   <testcase classname="calc" name="divides"><failure message="boom"/></testcase>
//! </testsuite>"#;
//! let run = parse_to_run(&JUnit::new(), doc, &ParseOptions::default())?;
//! assert_eq!(run.tests.len(), 2);
//! assert_eq!(run.tests[1].status, Status::Failed);
//! # Ok::<(), gapscore_adapter_sdk::AdapterError>(())
//! ```

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

pub mod parser;

use gapscore_adapter_sdk::detect::{Detection, Why};
use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

/// The format id.
pub const FORMAT_ID: &str = "junit-xml";

/// The JUnit XML adapter.
#[derive(Debug)]
pub struct JUnit {
    info: AdapterInfo,
}

impl JUnit {
    /// The adapter.
    pub fn new() -> Self {
        JUnit {
            info: AdapterInfo::new("junit", env!("CARGO_PKG_VERSION"), &[FORMAT_ID]),
        }
    }
}

impl Default for JUnit {
    fn default() -> Self {
        JUnit::new()
    }
}

/// [`JUnit::detect`]'s rule, recording its checks in `why` (`explain_detect`).
fn detection(prefix: &[u8], why: &mut Why) -> u8 {
    let text: String = match prefix {
        [0xFF, 0xFE, rest @ ..] | [0xFE, 0xFF, rest @ ..] => {
            let be = prefix[0] == 0xFE;
            let units = rest.chunks_exact(2).map(|c| {
                if be {
                    u16::from_be_bytes([c[0], c[1]])
                } else {
                    u16::from_le_bytes([c[0], c[1]])
                }
            });
            char::decode_utf16(units)
                .map_while(Result::ok)
                .take(4096)
                .collect()
        }
        _ => {
            let p = gapscore_adapter_sdk::encoding::strip_bom(prefix);
            String::from_utf8_lossy(&p[..p.len().min(16 * 1024)]).into_owned()
        }
    };
    let mut rest = text.trim_start();
    // Skip the declaration, comments, processing instructions and a DOCTYPE.
    loop {
        if let Some(r) = rest.strip_prefix("<?") {
            match r.find("?>") {
                Some(i) => rest = r[i + 2..].trim_start(),
                None => {
                    why.check(
                        "the XML declaration or processing instruction is closed",
                        false,
                    );
                    return 0;
                }
            }
        } else if let Some(r) = rest.strip_prefix("<!--") {
            match r.find("-->") {
                Some(i) => rest = r[i + 3..].trim_start(),
                None => {
                    why.check("the comment before the root element is closed", false);
                    return 0;
                }
            }
        } else if let Some(r) = rest.strip_prefix("<!DOCTYPE") {
            // An internal subset (`[ ... ]`) may hold `>` characters of its own.
            let end = match (r.find('['), r.find('>')) {
                (Some(b), Some(g)) if b < g => r.find("]>").map(|i| i + 2),
                (_, g) => g.map(|i| i + 1),
            };
            match end {
                Some(i) => rest = r[i..].trim_start(),
                None => {
                    why.check("the DOCTYPE is closed", false);
                    return 0;
                }
            }
        } else {
            break;
        }
    }
    let is_root = |tag: &str| {
        rest.strip_prefix(tag)
            .and_then(|r| r.chars().next())
            .is_some_and(|c| c.is_whitespace() || c == '>' || c == '/')
    };
    if why.check(
        "the root element (after the declaration, comments and DOCTYPE) is <testsuites> or <testsuite> (95)",
        is_root("<testsuites") || is_root("<testsuite"),
    ) {
        95
    } else {
        0
    }
}

impl Adapter for JUnit {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    /// 95 when a `<testsuites>` or `<testsuite>` element opens the document (after the
    /// declaration and comments), in UTF-8 or UTF-16; 0 otherwise.
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
        parser::parse(input, sink)
    }

    fn parse_reader(
        &self,
        reader: &mut dyn std::io::BufRead,
        _opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        parser::parse_reader(reader, sink)
    }

    /// As a plugin, a large file is read on several threads, as the built-in reads it.
    fn parse_in_parts(
        &self,
        reader: &mut dyn std::io::BufRead,
        _opts: &ParseOptions,
        sink: &mut dyn EventSink,
        parts: &gapscore_adapter_sdk::abi::parts::Parts<'_>,
    ) -> Result<(), AdapterError> {
        parser::split::parse_offered(reader, sink, parts)
    }
}

gapscore_adapter_sdk::export_adapter!("junit" as gapscore_adapter_junit => JUnit, JUnit::new());
