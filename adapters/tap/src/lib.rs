//! gapscore adapter for TAP 12, 13 and 14 streams, as written by Perl's Test::More and `prove`,
//! `node --test`, mocha, bats, pytest-tap, node-tap and hand-rolled producers.
//!
//! [`Tap`] implements [`Adapter`]; [`parser`] reads the stream line by line
//! ([`parser::parse_reader`], memory flat in the input's size) with three private modules: `lex`
//! reads test point and plan lines, `nesting` keeps the subtest stack, `plan` checks plans and
//! reads `Bail out!`, `diag` applies a point's YAML block and diagnostics; [`yaml`] reads the YAML
//! subset of diagnostics blocks ([`yaml::parse`] into a [`yaml::Value`]). Plans are declared
//! counts (`plan-mismatch` counts each missing test, `no-plan`), `Bail out!` keeps every earlier
//! result, ends the stream and adds `bail-out` (counting the planned tests that never ran), subtests in every
//! common form become a suite path with `parent` test points, and a stream cut short keeps its
//! results and reports `truncated`.
//!
//! Reading a small TAP stream:
//!
//! ```
//! use gapscore_adapter_sdk::{parse_to_run, ParseOptions, Status};
//! use gapscore_adapter_tap::Tap;
//!
//! let doc = b"TAP version 13\n1..3\nok 1 - adds\nnot ok 2 - divides\nok 3 - net # SKIP offline\n";
//! let run = parse_to_run(&Tap::new(), doc, &ParseOptions::default())?;
//! assert_eq!(run.tests.len(), 3);
//! assert_eq!(run.tests[1].status, Status::Failed);
//! assert_eq!(run.tests[2].status, Status::Skipped);
//! # Ok::<(), gapscore_adapter_sdk::AdapterError>(())
//! ```

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

mod counts;
mod diag;
mod evidence;
mod lex;
mod lite;
mod nesting;
pub mod parser;
mod plan;
mod point;
pub mod yaml;

use gapscore_adapter_sdk::detect::{Detection, Why};
use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

/// The format id.
pub const FORMAT_ID: &str = "tap";

/// The TAP adapter.
#[derive(Debug)]
pub struct Tap {
    info: AdapterInfo,
}

impl Tap {
    /// The adapter.
    pub fn new() -> Self {
        Tap {
            info: AdapterInfo::new("tap", env!("CARGO_PKG_VERSION"), &[FORMAT_ID]),
        }
    }
}

impl Default for Tap {
    fn default() -> Self {
        Tap::new()
    }
}

/// How sure the prefix of a file is TAP, 0–98 (see [`Adapter::detect`] on [`Tap`]).
pub fn detect_confidence(prefix: &[u8]) -> u8 {
    detection(prefix, &mut Why::silent())
}

/// [`detect_confidence`], recording what it found in `why` (`explain_detect`).
fn detection(prefix: &[u8], why: &mut Why) -> u8 {
    let prefix = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
    let text = String::from_utf8_lossy(&prefix[..prefix.len().min(16 * 1024)]);
    let mut lines = text
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .filter(|l| !l.trim().is_empty());
    let Some(first) = lines.next() else {
        why.check("a non-blank line", false);
        return 0;
    };
    let first_t = first.trim_start();
    // XML and JSON belong to other adapters, whatever follows.
    if why.check(
        "the first line opens like XML or JSON (`<`, `{`, `[`): not TAP",
        first_t.starts_with(['<', '{', '[']),
    ) {
        return 0;
    }
    if why.check(
        "the first line is `TAP version N` (98)",
        first_t.starts_with("TAP version ") || first_t.starts_with("TAP Version "),
    ) {
        return 98;
    }
    let is_plan = |l: &str| {
        let l = l.trim_end();
        l.split_once("..").is_some_and(|(a, b)| {
            a == "1"
                && !b.is_empty()
                && b.split(" #")
                    .next()
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
        })
    };
    let numbered = |l: &str| {
        let rest = l.strip_prefix("ok ").or_else(|| l.strip_prefix("not ok "));
        rest.is_some_and(|r| {
            let d = r.bytes().take_while(u8::is_ascii_digit).count();
            d > 0 && r.as_bytes().get(d).is_none_or(|c| *c == b' ')
        })
    };
    let prove_header = |l: &str| {
        l.split_once(" ..").is_some_and(|(f, rest)| {
            !f.contains(' ')
                && f.contains(['.', '/'])
                && (rest.is_empty() || rest.starts_with(['.', ' ']))
        })
    };
    // node-tap 0.x's runner log (`ok tests/x.js ..... 23/23`): claimed so that reading it says
    // what it is (parser.rs refuses it with that message) instead of "no adapter".
    let runner_line = |l: &str| {
        l.strip_prefix("ok ")
            .or_else(|| l.strip_prefix("not ok "))
            .is_some_and(evidence::is_runner_summary)
    };
    let runner_log = runner_line(first) || text.lines().take(400).any(runner_line);
    let mut plan_first = is_plan(first);
    let header = prove_header(first);
    let mut points = usize::from(numbered(first));
    let first_point = numbered(first);
    for l in lines.take(400) {
        if numbered(l) {
            points += 1;
        } else if is_plan(l) && points == 0 {
            plan_first = true;
        }
    }
    if why.is_recording() {
        why.check("the first line is a plan `1..N`", is_plan(first));
        why.check("a plan before the first test point", plan_first);
        why.check(
            "the first line is a numbered test point (`ok 1`, `not ok 1`)",
            first_point,
        );
        why.check_with(
            || format!("{points} numbered test points in the first 400 lines"),
            points > 0,
        );
        why.check("the first line is a prove file header (`t/x.t ..`)", header);
        why.check("a node-tap 0.x runner log line (60)", runner_log);
    }
    let (score, rule) = match (plan_first, points) {
        (true, p) if p > 0 && is_plan(first) => (90, "a plan first, then test points"),
        _ if header && (plan_first || points > 0) => {
            (85, "a prove header with a plan or test points")
        }
        (_, p) if first_point && p >= 2 => (85, "a test point first, and another"),
        (true, p) if p > 0 => (80, "a plan before test points"),
        _ if is_plan(first) => (75, "a plan first"),
        _ if first_point => (70, "a test point first"),
        (_, p) if p >= 3 => (70, "three test points or more"),
        _ if runner_log => (60, "a node-tap runner log"),
        _ => (0, ""),
    };
    if score > 0 {
        why.check_with(|| format!("rule: {rule} ({score})"), true);
    }
    score
}

impl Adapter for Tap {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    /// 98 when the first line is `TAP version N`; otherwise 70–90 by evidence near the start
    /// (a `1..N` plan first, numbered `ok N`/`not ok N` lines, a prove file header); 0 for
    /// anything opening like XML or JSON.
    fn detect(&self, prefix: &[u8], _file_name: Option<&str>) -> u8 {
        detect_confidence(prefix)
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
}

gapscore_adapter_sdk::export_adapter!("tap" as gapscore_adapter_tap => Tap, Tap::new());
