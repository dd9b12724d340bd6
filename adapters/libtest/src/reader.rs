//! The streaming reader: one line at a time into one reused buffer, JSON lines through serde
//! (after the shared duplicate-key check), other lines through [`crate::lines`]. What it keeps
//! is small and does not grow with the file: the open tests' ids, and a few counts per test
//! binary, with which [`crate::account`] judges at the end whether every binary ran to its
//! summary and reported every test it declared.

use gapscore_adapter_sdk::Code;
use std::collections::HashMap;
use std::io::BufRead;

use gapscore_adapter_sdk::lines::LineReader;
use gapscore_adapter_sdk::text::push_capped;
use gapscore_adapter_sdk::{
    AdapterError, EventSink, InputError, Location, Problem, ProblemKind, Producer, Status,
    TestCase, json_has_key,
};

use crate::account::{Judged, Unattributed};
use crate::binary::{Binary, Mode, Summary};
use crate::event::Event;
use crate::lines::{Line, classify};
use crate::message::find_panic;

/// The reader's state.
struct Reader<'s> {
    sink: &'s mut dyn EventSink,
    mode: Mode,
    binaries: Vec<Binary>,
    /// nextest binary id -> index in `binaries`.
    by_id: HashMap<String, usize>,
    /// Open tests: id -> index of their binary.
    open: HashMap<String, usize>,
    /// The binary cargo's last `Running` line named, for the next suite.
    next_label: Option<String>,
    events: u64,
    problems: u64,
    /// nextest suites without the `nextest` object (plain `libtest-json`).
    unattributed: Unattributed,
    stray: u64,
    first_stray: Option<(u64, usize, String)>,
    unknown: Vec<(String, u64)>,
    /// The lines that are not events since the last event: a build failure's compiler output.
    compiler: Vec<String>,
}

/// How many compiler lines a build failure's detail keeps.
const COMPILER_LINES: usize = 40;

/// A test name split the nextest way (`crate::binary$path::to::test`), or not.
fn split_nextest(name: &str) -> Option<(&str, &str)> {
    // nextest's binary ids are `crate::binary`; a doc test's `src/a$b.rs - f (line 1)` is not.
    let (binary, test) = name.split_once('$')?;
    (binary.contains("::") && !test.is_empty() && !binary.contains(char::is_whitespace))
        .then_some((binary, test))
}

/// Reads a libtest JSON stream into `sink`.
pub(crate) fn parse_reader(
    reader: &mut dyn BufRead,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    let mut r = Reader {
        sink,
        mode: Mode::Unknown,
        binaries: Vec::new(),
        by_id: HashMap::new(),
        open: HashMap::new(),
        next_label: None,
        events: 0,
        problems: 0,
        unattributed: Unattributed::default(),
        stray: 0,
        first_stray: None,
        unknown: Vec::new(),
        compiler: Vec::new(),
    };
    let mut lines = LineReader::new(reader);
    let mut cut: Option<u64> = None;
    let mut saw_content = false;
    while let Some(l) = lines.next_line().map_err(AdapterError::io)? {
        let (at, line_no, complete) = (l.offset(), l.number(), l.complete());
        // Trailing space only: columns in errors stay the file's.
        let line = l.bytes().trim_ascii_end();
        let lead = line.len() - line.trim_ascii_start().len();
        if lead == line.len() {
            continue;
        }
        saw_content = true;
        if line[lead] == b'{' {
            if let Some(e) = l.duplicate_key() {
                return Err(e.into());
            }
            // libtest writes valid UTF-8; a stream re-encoded on the way (a Latin-1 byte in a
            // test's output) keeps its results, the odd byte read as U+FFFD.
            let text = String::from_utf8_lossy(line);
            match serde_json::from_str::<Event<'_>>(&text) {
                Ok(ev) => {
                    r.compiler.clear();
                    r.event(ev, line_no)?;
                }
                Err(_) if !complete => {
                    // The last line stops part way: the stream was cut (a killed run).
                    cut = Some(at);
                }
                Err(e) if json_has_key(line, b"\"type\"") && json_has_key(line, b"\"event\"") => {
                    // It claims to be an event and is not one: a result would be lost.
                    return Err(l.json_error(&e).into());
                }
                Err(_) => r.stray(at, line_no, line),
            }
            continue;
        }
        let text = String::from_utf8_lossy(&line[lead..]);
        match classify(&text) {
            Line::Binary(label) => r.next_label = Some(label.to_owned()),
            Line::Exit(why) => {
                if let Some(b) = r.binaries.last_mut() {
                    b.exit = Some(why.to_owned());
                }
            }
            Line::BuildFailure(what) => {
                // rustc's messages come just before cargo's verdict: they are the detail.
                let mut detail = std::mem::take(&mut r.compiler);
                detail.push(what.to_owned());
                r.problem(Problem::new(ProblemKind::BuildFailure, detail.join("\n")));
            }
            Line::Cargo => {}
            Line::Other => {
                if r.compiler.len() < COMPILER_LINES {
                    r.compiler.push(text.chars().take(300).collect());
                }
                r.stray(at, line_no, line);
            }
        }
    }
    if !saw_content {
        return Err(InputError::Empty("empty input: no libtest events".into()).into());
    }
    if r.events == 0 && r.problems == 0 {
        let (at, message) = match (r.first_stray.take(), cut) {
            (_, Some(at)) => (
                at,
                "the stream is cut mid-line before any complete libtest event".to_owned(),
            ),
            (Some((at, line_no, text)), None) => (
                at,
                format!(
                    "not libtest JSON: no `{{\"type\": \"suite\"|\"test\", \"event\": ...}}` line (line {line_no} reads {text:?})"
                ),
            ),
            (None, None) => (0, "not libtest JSON: no libtest event".to_owned()),
        };
        return Err(InputError::Syntax {
            location: Location::Offset(at),
            message,
        }
        .into());
    }
    r.finish(cut);
    Ok(())
}

impl Reader<'_> {
    fn problem(&mut self, p: Problem) {
        self.problems += 1;
        self.sink.problem(p);
    }

    fn stray(&mut self, at: u64, line_no: usize, line: &[u8]) {
        self.stray += 1;
        if self.first_stray.is_none() {
            let text = String::from_utf8_lossy(line.trim_ascii());
            let short: String = text.chars().take(80).collect();
            self.first_stray = Some((at, line_no, short));
        }
    }

    fn unknown(&mut self, what: String) {
        if let Some((_, n)) = self.unknown.iter_mut().find(|(w, _)| *w == what) {
            *n += 1;
        } else if self.unknown.len() < 8 {
            self.unknown.push((what, 1));
        }
    }

    fn set_mode(&mut self, mode: Mode) {
        if self.mode == Mode::Unknown {
            self.mode = mode;
            if mode == Mode::Nextest {
                // Suites read before the first test were taken for libtest's: without a
                // `nextest` object they name no binary.
                for b in std::mem::take(&mut self.binaries) {
                    self.unattributed.suites += b.started;
                    self.unattributed.open +=
                        i64::try_from(b.started).unwrap_or(0) - i64::try_from(b.ended).unwrap_or(0);
                    self.unattributed.failed_verdict |= b.failed_verdict;
                }
            }
            let name = match mode {
                Mode::Nextest => "cargo-nextest",
                _ => "libtest",
            };
            self.sink.producer(Producer::new(name));
        }
    }

    /// The binary a cargo result belongs to: the last suite's (one made up when a result comes
    /// before any suite, as in a stream that starts part way).
    fn current(&mut self) -> usize {
        if self.binaries.is_empty() {
            self.binaries.push(Binary::default());
        }
        self.binaries.len() - 1
    }

    fn nextest_binary(&mut self, id: &str) -> usize {
        if let Some(&i) = self.by_id.get(id) {
            return i;
        }
        self.binaries.push(Binary {
            label: Some(id.to_owned()),
            ..Binary::default()
        });
        let i = self.binaries.len() - 1;
        self.by_id.insert(id.to_owned(), i);
        i
    }

    fn event(&mut self, ev: Event<'_>, line_no: usize) -> Result<(), AdapterError> {
        self.events += 1;
        let what = ev.event.as_deref().unwrap_or("");
        match ev.kind.as_ref() {
            "suite" => self.suite(&ev, what),
            "test" | "bench" => {
                let Some(name) = ev.name.as_deref() else {
                    return Err(InputError::Content {
                        location: Location::LineCol {
                            line: line_no,
                            column: 1,
                        },
                        message: format!("a `{}` event without a `name`", ev.kind),
                    }
                    .into());
                };
                if ev.kind == "bench" {
                    self.bench(name, &ev);
                } else {
                    self.test(name, what, &ev);
                }
            }
            other => self.unknown(format!("type `{other}`")),
        }
        Ok(())
    }

    fn suite(&mut self, ev: &Event<'_>, what: &str) {
        let binary = ev.nextest.as_ref().map(|n| n.binary_id());
        if binary.is_some() {
            self.set_mode(Mode::Nextest);
        }
        let summary = Summary {
            failed_verdict: what == "failed",
            passed: ev.passed.unwrap_or(0),
            failed: ev.failed.unwrap_or(0),
            ignored: ev.ignored.unwrap_or(0),
            measured: ev.measured.unwrap_or(0),
        };
        match (what, self.mode, binary) {
            ("started", Mode::Nextest, Some(id)) => {
                let i = self.nextest_binary(&id);
                let b = &mut self.binaries[i];
                b.started += 1;
                b.declared = b.declared.max(ev.test_count);
            }
            ("started", Mode::Nextest, None) => {
                self.unattributed.suites += 1;
                self.unattributed.open += 1;
            }
            ("started", _, _) => self.binaries.push(Binary {
                label: self.next_label.take(),
                declared: ev.test_count,
                started: 1,
                ..Binary::default()
            }),
            ("ok" | "failed", Mode::Nextest, Some(id)) => {
                let i = self.nextest_binary(&id);
                let b = &mut self.binaries[i];
                b.ended += 1;
                b.failed_verdict |= summary.failed_verdict;
                b.summary = Some(summary);
            }
            ("ok" | "failed", Mode::Nextest, None) => {
                self.unattributed.open -= 1;
                self.unattributed.failed_verdict |= summary.failed_verdict;
            }
            ("ok" | "failed", _, _) => {
                let i = self.current();
                let b = &mut self.binaries[i];
                b.ended += 1;
                b.failed_verdict |= summary.failed_verdict;
                b.summary = Some(summary);
            }
            (other, _, _) => self.unknown(format!("suite event `{other}`")),
        }
    }

    /// Where a test belongs: its suite, its own name, its id and its binary's index.
    fn place<'n>(&mut self, name: &'n str) -> (Option<String>, &'n str, String, usize) {
        if let Some((binary, test)) = split_nextest(name) {
            self.set_mode(Mode::Nextest);
            let i = self.nextest_binary(binary);
            return (Some(binary.to_owned()), test, name.to_owned(), i);
        }
        self.set_mode(Mode::Cargo);
        let i = self.current();
        let suite = self.binaries[i].label.clone();
        let id = TestCase::make_id(suite.as_deref(), name);
        (suite, name, id, i)
    }

    fn test(&mut self, name: &str, what: &str, ev: &Event<'_>) {
        let status = match what {
            "started" => {
                let (suite, short, id, i) = self.place(name);
                self.sink.test_started(suite.as_deref(), short, &id);
                // Started again (two binaries with one test name and no `Running` line to
                // tell them apart): the earlier start is left unaccounted, so it counts as a
                // missing test of its binary.
                if let Some(old) = self.open.insert(id, i) {
                    self.binaries[old].open -= 1;
                }
                self.binaries[i].open += 1;
                return;
            }
            "ok" => Status::Passed,
            "failed" => Status::Failed,
            "ignored" => Status::Skipped,
            // `#[allow_fail]` (Rust ≤ 1.56): it failed, and the suite said it may.
            "allowed_fail" => Status::Xfailed,
            "timeout" => {
                self.sink.coded_warning(Code::SlowTest, format!(
                    "test `{name}` has been running for over 60 seconds (libtest's `timeout` event)"
                ));
                return;
            }
            other => {
                self.unknown(format!("test event `{other}`"));
                return;
            }
        };
        let (suite, short, id, i) = self.place(name);
        let mut t = TestCase::new(suite, short, status);
        t.id = id;
        t.duration = ev.exec_time;
        if let Some(out) = ev.stdout.as_deref().filter(|o| !o.is_empty()) {
            let mut kept = String::new();
            push_capped(&mut kept, out);
            t.output = Some(kept);
        }
        let message = match status {
            Status::Failed => self.failure_message(&mut t, ev),
            Status::Xfailed => self
                .failure_message(&mut t, ev)
                .or_else(|| Some("failed, as `#[allow_fail]` allowed (`allowed_fail`)".into())),
            _ => ev.message.as_deref().map(str::to_owned),
        };
        t.message = message.map(|m| {
            let mut kept = String::new();
            push_capped(&mut kept, &m);
            kept
        });
        self.finish_test(t, i);
    }

    /// A failure's message: the panic in its output (with its place), else libtest's own
    /// message (`should_panic` that did not), else `--ensure-time`'s reason, else the output.
    fn failure_message(&mut self, t: &mut TestCase, ev: &Event<'_>) -> Option<String> {
        self.unattributed.any_failure = true;
        let out = ev.stdout.as_deref().unwrap_or("");
        let mut message = match find_panic(out) {
            Some(p) => {
                t.file = p.file;
                t.line = p.line;
                Some(p.message)
            }
            None => ev
                .message
                .as_deref()
                .map(str::to_owned)
                .or_else(|| Some(out.trim().to_owned()).filter(|m| !m.is_empty())),
        };
        if let Some(reason) = ev.reason.as_deref() {
            message = Some(match message {
                Some(m) => format!("{reason}: {m}"),
                None => reason.to_owned(),
            });
        }
        message
    }

    fn bench(&mut self, name: &str, ev: &Event<'_>) {
        let (suite, short, id, i) = self.place(name);
        let mut t = TestCase::new(suite, short, Status::Passed);
        t.id = id;
        let mut measured = format!(
            "bench: {} ns/iter (+/- {})",
            ev.median.unwrap_or(0.0),
            ev.deviation.unwrap_or(0.0)
        );
        if let Some(mib) = ev.mib_per_second {
            measured.push_str(&format!(" = {mib} MiB/s"));
        }
        t.output = Some(measured);
        self.finish_test(t, i);
    }

    fn finish_test(&mut self, t: TestCase, i: usize) {
        let i = match self.open.remove(&t.id) {
            Some(at) => {
                self.binaries[at].open -= 1;
                at
            }
            None => i,
        };
        let b = &mut self.binaries[i];
        b.finished += 1;
        if matches!(t.status, Status::Failed | Status::Errored | Status::Xfailed) {
            b.failures += 1;
        }
        match t.status {
            Status::Skipped => b.ignored += 1,
            Status::Xfailed => b.allowed_fail += 1,
            _ => {}
        }
        self.sink.test_finished(t);
    }

    /// Ends the stream: the binaries' accounts, then the warnings.
    fn finish_warnings(&mut self) {
        if self.stray > 0 {
            let first = self
                .first_stray
                .as_ref()
                .map_or(String::new(), |(_, n, l)| {
                    format!(" (the first, line {n}: {l:?})")
                });
            self.sink.coded_warning(
                Code::UnreadLines,
                format!(
                    "ignored {} neither a libtest event nor a cargo status line{first}",
                    if self.stray == 1 {
                        "1 line:".to_owned()
                    } else {
                        format!("{} lines, each", self.stray)
                    },
                ),
            );
        }
        for (what, n) in std::mem::take(&mut self.unknown) {
            self.sink.coded_warning(
                Code::UnknownValueIgnored,
                format!("unknown libtest {what} ignored ({n}×)"),
            );
        }
    }

    fn finish(&mut self, cut: Option<u64>) {
        let Judged {
            problems,
            warnings,
            evidence,
        } = crate::account::judge(
            &self.binaries,
            self.mode,
            &self.unattributed,
            self.open.is_empty(),
            cut,
        );
        for (code, w) in warnings {
            self.sink.coded_warning(code, w);
        }
        for p in problems {
            self.problem(p);
        }
        for e in evidence {
            self.problems += e.judge().problems.len() as u64;
            self.sink.evidence(e);
        }
        self.finish_warnings();
    }
}
