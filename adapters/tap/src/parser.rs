//! The streaming TAP reader: lines in, canonical events out. Memory holds one line, the test
//! point being read (with its diagnostics, capped), the stack of open subtests and, only for a
//! subtest whose name comes after its children (the headerless Perl form), those children until
//! the name is known (capped); it does not grow with the number of tests.
//!
//! Structure is read from indentation: a structural line (test point, plan, `# Subtest:`,
//! `Bail out!`) indented deeper than the current level opens a child level; one at a shallower
//! indentation closes levels, and the next test point at the parent level is the subtest's own
//! result (a `parent` test). Lines that are not TAP never change the structure.
//!
//! Here: [`parse_reader`] (bytes to lines), the reader's records (`Parser`, `Level`, the pending
//! point) and the per-line dispatch (`Parser::handle`). lex.rs reads test point and plan lines;
//! nesting.rs (the subtest stack, prove's sections), plan.rs (plan lines, plan checks, `Bail out!`)
//! and diag.rs (sending a point with its YAML and diagnostics) add methods to `Parser` and import
//! from here, never the reverse. A
//! method compiles into its type's codegen unit, so the per-line path is built as before the split.

use gapscore_adapter_sdk::Code;
use std::borrow::Cow;
use std::io::BufRead;

use gapscore_adapter_sdk::{
    AdapterError, EventSink, InputError, Location, Problem, ProblemKind, Producer, TestCase,
};

use crate::counts::{FileClaims, RunCounts};
use crate::lex::{parse_plan, parse_point};
use crate::lite::Lite;

/// How many of the lines that are not TAP the warning names by number (the count holds them all).
pub(crate) const UNKNOWN_NAMED: usize = 5;

/// Diagnostics text beyond this many bytes is cut, with a note (the SDK's cap).
pub use gapscore_adapter_sdk::text::TEXT_CAP;
use gapscore_adapter_sdk::text::push_capped;
/// Longer lines are cut (their start is still read).
const LINE_CAP: usize = 1 << 20;
/// A YAML block beyond this many bytes is not parsed; its start is kept as text.
const YAML_CAP: usize = 1 << 20;
/// Children of a headerless subtest held until its name is known; beyond this they are sent
/// with a placeholder suite.
pub(crate) const HOLD_CAP: usize = 10_000;
/// Distinct warnings kept; the rest are counted.
const WARN_CAP: usize = 50;
/// Numbers beyond this are not tracked for the missing-number check (2 MiB of bits).
pub(crate) const SEEN_CAP: u64 = 1 << 24;
/// The suite segment used when a subtest's name is never known.
pub(crate) const UNNAMED: &str = "(unnamed subtest)";

/// Reads a whole TAP document.
pub fn parse(input: &[u8], sink: &mut dyn EventSink) -> Result<(), AdapterError> {
    let mut r = input;
    parse_reader(&mut r, sink)
}

/// Reads a TAP stream line by line.
pub fn parse_reader(
    reader: &mut dyn BufRead,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    let mut p = Parser::new(sink);
    let mut carry: Vec<u8> = Vec::new();
    let mut carry_cut = false;
    skip_byte_order_mark(reader)?;
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(AdapterError::io(e)),
        };
        if buf.is_empty() {
            break;
        }
        match memchr::memchr(b'\n', buf) {
            Some(i) if !carry.is_empty() || carry_cut => {
                let room = LINE_CAP.saturating_sub(carry.len());
                carry.extend_from_slice(&buf[..cut_at(buf, i, room)]);
                let cut = carry_cut || i > room;
                p.line(&carry, cut);
                carry.clear();
                carry_cut = false;
                reader.consume(i + 1);
            }
            Some(i) => {
                // Every whole line of the buffer at once: one UTF-8 check and one newline scan
                // for all of them instead of a call of each per line.
                let end = memchr::memrchr(b'\n', buf).map_or(i, |j| j) + 1;
                let block = &buf[..end];
                let mut from = 0;
                match std::str::from_utf8(block) {
                    Ok(text) => {
                        for nl in memchr::memchr_iter(b'\n', block) {
                            let len = nl - from;
                            let at = from + cut_at(&block[from..], len, LINE_CAP);
                            p.line_str(text.get(from..at).unwrap_or(""), len > LINE_CAP);
                            from = nl + 1;
                        }
                    }
                    Err(_) => {
                        for nl in memchr::memchr_iter(b'\n', block) {
                            let line = &block[from..nl];
                            p.line(
                                &line[..cut_at(line, line.len(), LINE_CAP)],
                                line.len() > LINE_CAP,
                            );
                            from = nl + 1;
                        }
                    }
                }
                reader.consume(end);
            }
            None => {
                let n = buf.len();
                let room = LINE_CAP.saturating_sub(carry.len());
                carry.extend_from_slice(&buf[..cut_at(buf, n, room)]);
                carry_cut |= n > room;
                reader.consume(n);
            }
        }
    }
    let partial = !carry.is_empty() || carry_cut;
    if partial {
        p.line(&carry, carry_cut);
    }
    p.finish(partial)
}

/// Skips a UTF-8 byte order mark at the start of the stream: kept, it made the first line
/// (`TAP version 13` or the plan) a non-TAP line, so a whole run read as having no plan.
/// TAP's places are line numbers, so nothing else shifts.
fn skip_byte_order_mark(reader: &mut dyn BufRead) -> Result<(), AdapterError> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let buf = loop {
        match reader.fill_buf() {
            Ok(b) => break b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(AdapterError::io(e)),
        }
    };
    if buf.starts_with(BOM) {
        reader.consume(BOM.len());
    }
    Ok(())
}

/// Where to cut `buf[..len]` to at most `room` bytes without splitting a UTF-8 character.
fn cut_at(buf: &[u8], len: usize, room: usize) -> usize {
    if len <= room {
        return len;
    }
    let mut at = room;
    while at > 0 && buf.get(at).is_some_and(|b| b & 0xC0 == 0x80) {
        at -= 1;
    }
    at
}

pub(crate) fn join(path: Option<&str>, name: &str) -> String {
    match path {
        Some(p) if !p.is_empty() => format!("{p} > {name}"),
        _ => name.to_owned(),
    }
}

pub(crate) fn join_opt(path: Option<&str>, rel: Option<&str>) -> Option<String> {
    match (path, rel) {
        (p, Some(r)) => Some(join(p, r)),
        (Some(p), None) => Some(p.to_owned()),
        (None, None) => None,
    }
}

/// Appends `text` as a new line of `buf`, within the SDK's cap ([`push_capped`]): once the cap
/// is reached the text ends in the cut note and takes nothing more.
pub(crate) fn push_line(buf: &mut String, text: &str) {
    if !buf.is_empty() {
        push_capped(buf, "\n");
    }
    push_capped(buf, text);
}

/// A test read from a headerless subtest, waiting for its enclosing name. `suite` and
/// `parent` are relative to the holding level.
#[derive(Debug)]
pub(crate) struct Held {
    pub(crate) test: TestCase,
    pub(crate) parent: Option<(Option<String>, String)>,
}

#[derive(Debug, Default)]
pub(crate) struct Level {
    pub(crate) indent: usize,
    /// A `{` level whose contents' indentation is not known yet.
    pub(crate) fresh: bool,
    pub(crate) name: Option<String>,
    /// Suite of the tests directly in this level (`None` at the top of a plain stream).
    pub(crate) path: Option<String>,
    /// Id of the test point that will close this level.
    pub(crate) parent_id: Option<String>,
    pub(crate) plan: Option<u64>,
    pub(crate) plan_skip: Option<String>,
    pub(crate) plan_line: u64,
    pub(crate) plan_after_tests: bool,
    pub(crate) count: u64,
    /// Expected number minus count, re-synchronised after each out-of-sequence number.
    pub(crate) offset: i128,
    pub(crate) max_number: u64,
    /// Which numbers were seen (bit per number, up to [`SEEN_CAP`]): a repeated number can hide
    /// a missing one even when the count matches the plan.
    pub(crate) seen: Vec<u64>,
    /// `# Subtest: name` waiting for its child level or its test point.
    pub(crate) announced: Option<String>,
    /// Some: the level's name (or an enclosing one) is unknown, tests wait here.
    pub(crate) held: Option<Vec<Held>>,
    pub(crate) held_overflow: bool,
    /// The `ok N - name {` point of a buffered subtest, sent after its children.
    pub(crate) buffered: Option<Box<Pending>>,
    pub(crate) just_closed: Option<Closed>,
}

#[derive(Debug)]
pub(crate) struct Closed {
    pub(crate) name: Option<String>,
    pub(crate) had_results: bool,
    pub(crate) held: Vec<Held>,
    /// `1..0 # SKIP why` and no results: the subtest ran none of its tests.
    pub(crate) skip_all: Option<String>,
}

/// A test point waiting for its diagnostics. Boxed and reused: sending a point moves its test
/// out once (`Option::take`) instead of moving the whole record through the slot.
#[derive(Debug)]
pub(crate) struct Pending {
    /// The test, unless it is still [`Pending::lite`].
    pub(crate) test: Option<TestCase>,
    /// A plain point (named, no subtest to close or open): its test is built only when sent,
    /// straight into the sink's call, so it is never moved through this record.
    pub(crate) lite: Option<Lite>,
    pub(crate) level: usize,
    pub(crate) indent: usize,
    pub(crate) reason: Option<String>,
    pub(crate) diag: String,
    pub(crate) collect: bool,
    pub(crate) yaml: Option<YamlBlock>,
}

impl Pending {
    /// An empty record, filled in place for each test point.
    pub(crate) fn blank() -> Self {
        Pending {
            test: None,
            lite: None,
            level: 0,
            indent: 0,
            reason: None,
            diag: String::new(),
            collect: false,
            yaml: None,
        }
    }
}

impl Pending {
    /// The test, built now if it was kept as parts.
    pub(crate) fn take_test(&mut self) -> Option<TestCase> {
        match self.lite.take() {
            Some(l) => Some(l.build()),
            None => self.test.take(),
        }
    }
}

#[derive(Debug)]
pub(crate) struct YamlBlock {
    pub(crate) base: usize,
    pub(crate) text: String,
    pub(crate) open: bool,
    pub(crate) cut: bool,
}

#[derive(Debug, Default)]
pub(crate) struct Evidence {
    pub(crate) node: bool,
    pub(crate) pytest_tap: bool,
    pub(crate) bats: bool,
    pub(crate) test_more: bool,
    pub(crate) prove: bool,
}

pub(crate) struct Parser<'s> {
    pub(crate) sink: &'s mut dyn EventSink,
    pub(crate) line_no: u64,
    pub(crate) levels: Vec<Level>,
    pub(crate) pending: Option<Box<Pending>>,
    /// The last sent point's record, reused for the next one.
    pub(crate) spare: Option<Box<Pending>>,
    /// The id of a plain point sent borrowed, reused for the next one.
    pub(crate) id_buf: String,
    /// The last YAML block's text buffer, emptied and reused for the next block.
    pub(crate) yaml_buf: String,
    /// Any TAP line at all (version, plan, test point, bail out).
    pub(crate) saw_tap: bool,
    pub(crate) bailed: bool,
    /// The `Bail out!` line, and the test points after it (not read).
    pub(crate) bail_line: u64,
    pub(crate) after_bail: u64,
    pub(crate) unknown_lines: u64,
    /// The first [`UNKNOWN_NAMED`] of those lines' numbers, for the warning.
    pub(crate) unknown_at: Vec<u64>,
    pub(crate) warnings: Vec<(Code, String)>,
    pub(crate) warnings_dropped: u64,
    pub(crate) bad_utf8: bool,
    pub(crate) cut_lines: bool,
    /// prove: the current file's name, and whether its summary has started.
    pub(crate) prove_file: Option<String>,
    pub(crate) in_summary: bool,
    pub(crate) evidence: Evidence,
    pub(crate) truncated: Vec<String>,
    /// What the current file says about itself (footer, console verdicts) and its points'
    /// counts, judged when it ends (evidence.rs).
    pub(crate) claims: FileClaims,
    pub(crate) run: RunCounts,
    /// A node-tap 0.x runner line (`ok tests/x.js ..... 23/23`) and its line: not TAP.
    pub(crate) runner_log: Option<(u64, String)>,
}

impl<'s> Parser<'s> {
    fn new(sink: &'s mut dyn EventSink) -> Self {
        Parser {
            sink,
            line_no: 0,
            levels: vec![Level::default()],
            pending: None,
            spare: None,
            id_buf: String::new(),
            yaml_buf: String::new(),
            saw_tap: false,
            bailed: false,
            bail_line: 0,
            after_bail: 0,
            unknown_lines: 0,
            unknown_at: Vec::new(),
            warnings: Vec::new(),
            warnings_dropped: 0,
            bad_utf8: false,
            cut_lines: false,
            prove_file: None,
            in_summary: false,
            evidence: Evidence::default(),
            truncated: Vec::new(),
            claims: FileClaims::default(),
            run: RunCounts::default(),
            runner_log: None,
        }
    }

    pub(crate) fn warn(&mut self, code: Code, msg: String) {
        if self.warnings.len() < WARN_CAP {
            self.warnings.push((code, msg));
        } else {
            self.warnings_dropped += 1;
        }
    }

    /// Counts a line, and warns once when one is cut.
    fn start_line(&mut self, cut: bool) {
        self.line_no += 1;
        if cut && !self.cut_lines {
            self.cut_lines = true;
            self.warn(
                Code::LineCut,
                format!(
                    "line {}: longer than 1 MiB, read up to the cut",
                    self.line_no
                ),
            );
        }
    }

    /// A line already known to be UTF-8.
    fn line_str(&mut self, text: &str, cut: bool) {
        self.start_line(cut);
        self.handle(text.strip_suffix('\r').unwrap_or(text));
    }

    fn line(&mut self, raw: &[u8], cut: bool) {
        self.start_line(cut);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let text = match std::str::from_utf8(raw) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => {
                if !self.bad_utf8 {
                    self.bad_utf8 = true;
                    self.warn(
                        Code::InvalidUtf8,
                        format!("line {}: invalid UTF-8, replaced with U+FFFD", self.line_no),
                    );
                }
                String::from_utf8_lossy(raw)
            }
        };
        self.handle(&text);
    }

    fn handle(&mut self, line: &str) {
        let indent = line
            .bytes()
            .position(|b| b != b' ' && b != b'\t')
            .unwrap_or(line.len());
        let c = &line[indent..];
        if let Some(p) = self.pending.as_mut()
            && let Some(y) = p.yaml.as_mut()
            && y.open
        {
            if c.trim_end() == "..." {
                y.open = false;
                return;
            }
            if c.is_empty() || indent >= y.base {
                if !y.cut {
                    if y.text.len() + line.len() > YAML_CAP {
                        y.cut = true;
                    } else {
                        y.text
                            .push_str(line.get(y.base.min(indent)..).unwrap_or(""));
                        y.text.push('\n');
                    }
                }
                return;
            }
            y.open = false;
            let msg = format!(
                "line {}: YAML block not closed by `...` before a less indented line",
                self.line_no
            );
            self.warn(Code::MalformedStructure, msg);
        }
        if self.in_summary && !self.resumes_after_summary(c) {
            self.summary_line(c);
            return;
        }
        if self.bailed {
            // `Bail out!` stopped the run: what follows is not a result of it.
            if parse_point(c).is_some() {
                self.after_bail += 1;
            }
            return;
        }
        let Some(&first) = c.as_bytes().first() else {
            // Blank lines inside a failure's diagnostics are part of its text.
            if let Some(p) = self.pending.as_mut()
                && p.collect
                && !p.diag.is_empty()
            {
                push_line(&mut p.diag, "");
            }
            return;
        };
        match first {
            b'o' | b'n' => {
                if let Some(pt) = parse_point(c) {
                    self.point(indent, pt);
                    return;
                }
            }
            b'0'..=b'9' => {
                if let Some((a, b, skip)) = parse_plan(c) {
                    self.plan(indent, a, b, skip);
                    return;
                }
            }
            b'#' => {
                self.comment(indent, c);
                return;
            }
            b'B' | b'b'
                if c.get(..9)
                    .is_some_and(|p| p.eq_ignore_ascii_case("bail out!")) =>
            {
                self.bail_out(indent, c);
                return;
            }
            b'T' if c.starts_with("TAP version") || c.starts_with("TAP Version") => {
                self.saw_tap = true;
                return;
            }
            // Pragmas (`pragma +strict`) change nothing here: non-TAP lines are never errors.
            b'p' if c.starts_with("pragma ") => {
                self.saw_tap = true;
                return;
            }
            b'}' if c.trim_end() == "}" && self.close_block(indent) => {
                return;
            }
            b'-' if c.trim_end() == "---" => {
                if let Some(p) = self.pending.as_mut()
                    && p.yaml.is_none()
                    && indent > p.indent
                {
                    // Most blocks are a few short lines: one allocation instead of several,
                    // and none once a buffer is recycled.
                    let mut text = std::mem::take(&mut self.yaml_buf);
                    text.reserve(256);
                    p.yaml = Some(YamlBlock {
                        base: indent,
                        text,
                        open: true,
                        cut: false,
                    });
                    return;
                }
            }
            _ => {}
        }
        self.unknown(indent, c);
    }

    fn comment(&mut self, indent: usize, c: &str) {
        let body = c[1..].trim_start();
        if let Some(rest) = body.strip_prefix("Subtest") {
            let rest = rest.trim_start();
            let name = rest.strip_prefix(':').unwrap_or(rest).trim();
            if rest.is_empty() || rest.starts_with(':') {
                self.subtest(indent, name);
                return;
            }
        }
        // Producers' fingerprints, for the run's producer.
        if body.starts_with("TAP results for ") {
            self.evidence.pytest_tap = true;
        } else if body.starts_with("(in test file ") || body.starts_with("(from function ") {
            self.evidence.bats = true;
        } else if body.starts_with("Failed test ")
            || body.starts_with("Failed (TODO) test ")
            || body.starts_with("Looks like you ")
        {
            self.evidence.test_more = true;
        } else if indent == 0 && self.levels.len() == 1 && body.starts_with("suites ") {
            self.evidence.node = true;
        }
        if indent == 0 && self.levels.len() == 1 {
            self.top_comment(body);
        }
        if let Some(p) = self.pending.as_mut()
            && p.collect
        {
            // A comment at the test point's level or deeper belongs to it.
            let text = c[1..].strip_prefix(' ').unwrap_or(&c[1..]);
            push_line(&mut p.diag, text);
        }
    }

    fn finish(mut self, partial_line: bool) -> Result<(), AdapterError> {
        if self.line_no == 0 {
            return Err(AdapterError::Input(InputError::Empty(
                "empty input: expected a TAP stream".into(),
            )));
        }
        if !self.saw_tap {
            return Err(AdapterError::Input(InputError::Content {
                location: Location::LineCol { line: 1, column: 1 },
                message: format!(
                    "no TAP in {} line{}: no version line, plan, test point or `Bail out!`",
                    self.line_no,
                    if self.line_no == 1 { "" } else { "s" }
                ),
            }));
        }
        self.refuse_runner_log()?;
        let plan_ok = {
            let l = &self.levels[0];
            l.plan.is_some_and(|n| n == l.count) && self.levels.len() == 1
        };
        if in_buffered(&self.levels) {
            self.truncated
                .push("a `{` subtest is not closed by `}`".to_owned());
        }
        if !self.in_summary {
            self.end_file();
        }
        if partial_line && !plan_ok && !self.bailed {
            self.truncated.insert(
                0,
                format!("the last line (line {}) is cut: no newline", self.line_no),
            );
        }
        if !self.truncated.is_empty() && !self.bailed {
            let mut seen = Vec::new();
            for t in std::mem::take(&mut self.truncated) {
                if !seen.contains(&t) {
                    seen.push(t);
                }
            }
            self.problem(Problem::new(ProblemKind::Truncated, seen.join("; ")));
        }
        if self.after_bail > 0 {
            let (n, at) = (self.after_bail, self.bail_line);
            self.warn(Code::AfterBailOut, format!(
                "{n} test point{} after `Bail out!` (line {at}) not counted: the run stopped there",
                if n == 1 { "" } else { "s" }
            ));
        }
        if self.unknown_lines > 0 {
            let n = self.unknown_lines;
            let at: Vec<String> = self.unknown_at.iter().map(u64::to_string).collect();
            let more = match n.saturating_sub(at.len() as u64) {
                0 => String::new(),
                m => format!(" and {m} more"),
            };
            self.warn(
                Code::UnreadLines,
                if n == 1 {
                    format!("line {} is not TAP: kept as a comment", at.join(""))
                } else {
                    format!(
                        "{n} lines are not TAP (lines {}{more}): kept as comments",
                        at.join(", ")
                    )
                },
            );
        }
        self.run_evidence();
        let ev = &self.evidence;
        let producer = if ev.prove {
            Some("prove")
        } else if ev.pytest_tap {
            Some("pytest-tap")
        } else if ev.node {
            Some("node")
        } else if ev.bats {
            Some("bats")
        } else if ev.test_more {
            Some("Test::More")
        } else {
            None
        };
        if let Some(p) = producer {
            self.sink.producer(Producer::new(p));
        }
        for (code, w) in std::mem::take(&mut self.warnings) {
            self.sink.coded_warning(code, w);
        }
        if self.warnings_dropped > 0 {
            let n = self.warnings_dropped;
            self.sink.coded_warning(
                Code::ReaderWarningsCapped,
                format!("{n} more warnings not shown"),
            );
        }
        Ok(())
    }
}

fn in_buffered(levels: &[Level]) -> bool {
    levels.iter().any(|l| l.buffered.is_some())
}
