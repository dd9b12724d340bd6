//! The pytest-reportlog reader (`pytest --report-log`): JSON lines, one record per line —
//! `SessionStart`, a `CollectReport` per collector, a `TestReport` per test phase (`when`:
//! setup, call, teardown), `WarningMessage`, and `SessionFinish` with the exit status.
//!
//! Streamed line by line: only the tests whose teardown has not been reported yet are kept
//! (one at a time in a serial run). A stream without `SessionFinish` comes from a pytest that
//! never finished: its unfinished tests are reported errored and the run `killed` (or
//! `truncated`, when the last line itself is cut off).

use std::collections::HashMap;
use std::fmt;
use std::io::BufRead;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use gapscore_adapter_sdk::{
    AdapterError, Attempt, Category, EventSink, InputError, Location, Problem, ProblemKind,
    Producer, Status,
};

use crate::common::{
    Markers, NodeId, Str, error_headline, exit_evidence, exit_problem, json_error, module_skipped,
    push_output, skip_location, skip_reason, skipped_collector,
};

/// Reads a pytest-reportlog stream line by line and pushes what it holds into `sink`.
pub fn parse_reader(
    reader: &mut dyn BufRead,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    let mut st = Stream::default();
    let mut buf = Vec::with_capacity(16 * 1024);
    let mut offset = 0u64;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(AdapterError::io)?;
        if n == 0 {
            break;
        }
        st.line += 1;
        let complete = buf.last() == Some(&b'\n');
        let mut line: &[u8] = &buf;
        if st.line == 1 {
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        let first = line.iter().position(|b| !b.is_ascii_whitespace());
        if let Some(at) = first {
            if line[at] != b'{' && complete {
                return Err(InputError::Syntax {
                    location: Location::LineCol {
                        line: st.line,
                        column: at + 1,
                    },
                    message: "expected a JSON object (one report record per line)".into(),
                }
                .into());
            }
            // A key given twice in one object of the record: refused, at any depth.
            if let Some(d) = gapscore_adapter_sdk::json::find_duplicate_key(line) {
                return Err(d.to_input_error(line, st.line - 1).into());
            }
            let parsed = match std::str::from_utf8(line) {
                Ok(text) => serde_json::from_str::<Record<'_>>(text),
                Err(_) => serde_json::from_slice::<Record<'_>>(line),
            };
            match parsed {
                Ok(rec) => st.record(rec, sink)?,
                // A last line without its newline that does not parse was cut off mid-write.
                Err(_) if !complete => {
                    st.cut_at = Some(offset);
                    break;
                }
                Err(e) => return Err(json_error(&e, st.line - 1).into()),
            }
            st.records += 1;
        }
        offset += n as u64;
    }
    if st.records == 0 && st.cut_at.is_none() {
        return Err(
            InputError::Empty("empty file: expected pytest-reportlog JSON lines".into()).into(),
        );
    }
    st.finish(sink);
    Ok(())
}

/// One reportlog line. Every record type shares the one struct: fields a type lacks are absent.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "$report_type", borrow)]
    report_type: Str<'a>,
    #[serde(default, borrow)]
    nodeid: Option<Str<'a>>,
    #[serde(default, borrow)]
    when: Option<Str<'a>>,
    #[serde(default, borrow)]
    outcome: Option<Str<'a>>,
    #[serde(default)]
    longrepr: LongRepr,
    #[serde(default)]
    duration: Option<f64>,
    #[serde(default, borrow)]
    location: Option<(Str<'a>, Option<u32>, IgnoredAny)>,
    #[serde(default, borrow)]
    keywords: Markers<'a>,
    #[serde(default, borrow)]
    wasxfail: Option<Str<'a>>,
    #[serde(default, borrow)]
    sections: Vec<(Str<'a>, Str<'a>)>,
    #[serde(default, borrow)]
    pytest_version: Option<Str<'a>>,
    #[serde(default)]
    exitstatus: Option<i64>,
}

/// A phase's outcome.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Passed,
    Failed,
    Skipped,
    /// pytest-rerunfailures: this attempt failed and the test will run again.
    Rerun,
}

/// Keeps the worse of a phase's reports: failed over skipped over passed.
fn keep_worse(slot: &mut Option<PhaseResult>, new: PhaseResult) {
    let rank = |o: Outcome| match o {
        Outcome::Passed => 0,
        Outcome::Skipped => 1,
        Outcome::Failed | Outcome::Rerun => 2,
    };
    if slot
        .as_ref()
        .is_none_or(|old| rank(new.outcome) >= rank(old.outcome))
    {
        *slot = Some(new);
    }
}

/// What one phase said.
struct PhaseResult {
    outcome: Outcome,
    message: Option<String>,
    wasxfail: bool,
    /// A skip's `path:line`.
    decided_at: Option<String>,
}

/// A test whose teardown has not been reported yet.
struct Pending {
    seq: u64,
    setup: Option<PhaseResult>,
    call: Option<PhaseResult>,
    duration: Option<f64>,
    output: Option<String>,
    line: Option<u32>,
    marker: Option<Category>,
    /// Earlier attempts (pytest-rerunfailures `rerun` reports).
    attempts: Vec<Attempt>,
    /// A `rerun` was reported: the next teardown ends that attempt, not the test.
    rerun: bool,
    /// pytest-xdist's report for a test whose worker died under it.
    crash: Option<String>,
}

#[derive(Default)]
struct Stream {
    line: usize,
    records: u64,
    seq: u64,
    cut_at: Option<u64>,
    pending: HashMap<String, Pending>,
    version: Option<String>,
    exitstatus: Option<i64>,
    finished: bool,
    /// Failed and errored tests and failed collectors, for the exit-status evidence.
    bad: u64,
    /// Tests emitted, and run-level problems reported (they explain a failed exit status).
    tests: u64,
    problems: u64,
    /// The key of the last test taken out of `pending`, kept for the next one.
    spare_key: String,
}

impl Stream {
    fn err(&self, message: String) -> AdapterError {
        InputError::Content {
            location: Location::LineCol {
                line: self.line,
                column: 1,
            },
            message,
        }
        .into()
    }

    fn record(&mut self, rec: Record<'_>, sink: &mut dyn EventSink) -> Result<(), AdapterError> {
        match rec.report_type.as_ref() {
            "SessionStart" => self.version = rec.pytest_version.map(|v| v.0.into_owned()),
            "SessionFinish" => {
                self.finished = true;
                self.exitstatus = rec.exitstatus;
            }
            "CollectReport" => self.collect_report(&rec, sink)?,
            "TestReport" => self.test_report(rec, sink)?,
            // WarningMessage and record types of later versions carry no results.
            _ => {}
        }
        Ok(())
    }

    fn collect_report(
        &mut self,
        rec: &Record<'_>,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        let nodeid = rec.nodeid.as_ref().map_or("", AsRef::as_ref);
        match rec.outcome.as_ref().map(AsRef::as_ref) {
            Some("passed") => {}
            Some("failed") => {
                self.bad += 1;
                let text = rec.longrepr.0.as_deref().unwrap_or("");
                let head = error_headline(text);
                let mut detail = format!("collecting `{nodeid}` failed: {head}");
                if !text.is_empty() && text.trim() != head {
                    detail.push_str("\n\n");
                    detail.push_str(text);
                }
                self.problems += 1;
                sink.problem(Problem::new(ProblemKind::CollectionError, detail).with_suite(nodeid));
            }
            Some("skipped") => {
                let reason = rec
                    .longrepr
                    .0
                    .as_deref()
                    .map_or("no reason given", skip_reason);
                self.problems += 1;
                sink.problem(module_skipped(nodeid, reason));
                sink.test_finished(skipped_collector(nodeid, reason));
            }
            other => {
                return Err(self.err(format!(
                    "CollectReport for `{nodeid}` has outcome {}: expected passed, failed or skipped",
                    other.map_or("none".to_owned(), |o| format!("`{o}`"))
                )));
            }
        }
        Ok(())
    }

    fn test_report(
        &mut self,
        rec: Record<'_>,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        let Some(nodeid) = rec.nodeid.as_ref().map(AsRef::as_ref) else {
            return Err(self.err("TestReport without `nodeid`".into()));
        };
        let outcome = match rec.outcome.as_ref().map(AsRef::as_ref) {
            Some("passed") => Outcome::Passed,
            Some("failed") => Outcome::Failed,
            Some("skipped") => Outcome::Skipped,
            Some("rerun") => Outcome::Rerun,
            other => {
                return Err(self.err(format!(
                    "TestReport for `{nodeid}` has outcome {}: expected passed, failed, skipped or rerun",
                    other.map_or("none".to_owned(), |o| format!("`{o}`"))
                )));
            }
        };
        let when = rec.when.as_ref().map(AsRef::as_ref);
        // pytest-xdist reports a test whose worker crashed with `when` "???".
        if !matches!(when, Some("setup" | "call" | "teardown" | "???")) {
            return Err(self.err(format!(
                "TestReport for `{nodeid}` has `when` {}: expected setup, call or teardown",
                when.map_or("none".to_owned(), |w| format!("`{w}`"))
            )));
        }
        if !self.pending.contains_key(nodeid) {
            self.seq += 1;
            let marker = rec.keywords.category(nodeid);
            // The key of the test finished last is reused: a serial run keeps one test pending
            // at a time, so its node ids cost no allocation.
            let mut key = std::mem::take(&mut self.spare_key);
            key.clear();
            key.push_str(nodeid);
            self.pending.insert(
                key,
                Pending {
                    seq: self.seq,
                    setup: None,
                    call: None,
                    duration: None,
                    output: None,
                    // pytest's line numbers are 0-based; the model's are 1-based.
                    line: rec
                        .location
                        .as_ref()
                        .and_then(|l| l.1)
                        .and_then(|l| l.checked_add(1)),
                    marker,
                    attempts: Vec::new(),
                    rerun: false,
                    crash: None,
                },
            );
        }
        let Some(p) = self.pending.get_mut(nodeid) else {
            return Ok(());
        };
        if let Some(d) = rec.duration.filter(|d| d.is_finite() && *d >= 0.0) {
            *p.duration.get_or_insert(0.0) += d;
        }
        for (title, text) in &rec.sections {
            // Each phase repeats the sections of the phases before it: keep each once.
            if title.as_ref().ends_with(when.unwrap_or_default()) {
                push_output(&mut p.output, text.as_ref());
            }
        }
        let result = PhaseResult {
            outcome,
            message: match outcome {
                Outcome::Skipped => rec.longrepr.0.as_deref().map(|s| skip_reason(s).to_owned()),
                _ => rec.longrepr.0.clone(),
            },
            wasxfail: rec.wasxfail.is_some(),
            decided_at: rec.longrepr.1,
        };
        if outcome == Outcome::Rerun {
            // This attempt failed and the test runs again: keep it as an attempt.
            let mut a = Attempt::new(if when == Some("call") {
                Status::Failed
            } else {
                Status::Errored
            });
            a.message = result.message;
            a.duration = rec.duration.filter(|d| d.is_finite() && *d >= 0.0);
            p.attempts.push(a);
            p.setup = None;
            p.call = None;
            p.rerun = true;
            return Ok(());
        }
        match when {
            // A phase reported twice (not a rerun: that is an attempt) is evidence at odds with
            // itself: the worse report wins, never the later one.
            Some("setup") => keep_worse(&mut p.setup, result),
            Some("call") => keep_worse(&mut p.call, result),
            Some("teardown") if p.rerun => p.rerun = false,
            Some("teardown") => {
                if let Some((key, p)) = self.pending.remove_entry(nodeid) {
                    let status = emit(nodeid, p, Some(result), sink);
                    self.count(status);
                    self.spare_key = key;
                }
            }
            _ => {
                let text = result.message.unwrap_or_default();
                let head = text.lines().next().unwrap_or("").to_owned();
                if let Some(mut p) = self.pending.remove(nodeid) {
                    p.crash = Some(text);
                    let status = emit(nodeid, p, None, sink);
                    self.count(status);
                }
                self.problems += 1;
                sink.problem(
                    Problem::new(
                        ProblemKind::Crash,
                        format!("the process running `{nodeid}` crashed: {head}"),
                    )
                    .with_suite(nodeid),
                );
            }
        }
        Ok(())
    }

    /// Counts a finished test for the exit-status check.
    fn count(&mut self, status: Status) {
        self.tests += 1;
        if matches!(status, Status::Failed | Status::Errored) {
            self.bad += 1;
        }
    }

    fn finish(self, sink: &mut dyn EventSink) {
        let mut bad = self.bad;
        let mut producer = Producer::new("pytest");
        producer.version = self.version;
        sink.producer(producer);
        let mut open: Vec<(String, Pending)> = self.pending.into_iter().collect();
        open.sort_by_key(|(_, p)| p.seq);
        let unfinished = open.len();
        let names: Vec<String> = open.iter().map(|(id, _)| format!("`{id}`")).collect();
        let mut tests = self.tests;
        for (nodeid, p) in open {
            let status = emit(&nodeid, p, None, sink);
            tests += 1;
            if matches!(status, Status::Failed | Status::Errored) {
                bad += 1;
            }
        }
        // Every branch below but the clean one reports one problem.
        let mut problems =
            self.problems + u64::from(self.cut_at.is_some() || !self.finished || unfinished > 0);
        let started = if unfinished == 0 {
            String::new()
        } else {
            format!(
                "; {unfinished} started test(s) have no final result and count as errored: {}",
                names.join(", ")
            )
        };
        if let Some(at) = self.cut_at {
            sink.problem(Problem::new(
                ProblemKind::Truncated,
                format!(
                    "the report log's last line (line {}, byte {at}) is cut off mid-record: pytest was killed while writing or the file was cut{started}",
                    self.line
                ),
            ));
        } else if !self.finished {
            sink.problem(Problem::new(
                ProblemKind::Killed,
                format!(
                    "the report log has no SessionFinish record: the pytest process was killed or crashed before the session ended, so later tests never ran{started}"
                ),
            ));
        } else if unfinished > 0 && self.exitstatus == Some(2) {
            // pytest ends the session this way on KeyboardInterrupt and pytest.exit(): the
            // test it was in has a setup report only, and the tests after it none at all.
            sink.problem(Problem::new(
                ProblemKind::Interrupted,
                format!(
                    "pytest was interrupted (exit status 2) inside {}: KeyboardInterrupt or pytest.exit() stopped the run, so the tests after it did not run{started}",
                    names.join(", ")
                ),
            ));
        } else if unfinished > 0 {
            sink.problem(Problem::new(
                ProblemKind::MissingResults,
                format!("the session finished without a teardown report for some tests{started}"),
            ));
        }
        let interrupted = self.finished && self.cut_at.is_none() && unfinished > 0;
        if let Some(p) = self
            .exitstatus
            .filter(|&c| !(interrupted && c == 2))
            .and_then(exit_problem)
        {
            problems += 1;
            sink.problem(p);
        }
        // A cut or unfinished stream's status (if any) is not the run's: its problem stands.
        if self.cut_at.is_none()
            && let Some(code) = self.exitstatus
        {
            sink.evidence(exit_evidence(code, tests, bad, problems));
        }
    }
}

/// Folds a test's phases into its result. `teardown` is `None` for a test the stream left
/// unfinished.
fn emit(
    nodeid: &str,
    p: Pending,
    teardown: Option<PhaseResult>,
    sink: &mut dyn EventSink,
) -> Status {
    let fields = Fields {
        duration: p.duration,
        output: p.output,
        line: p.line,
        marker: p.marker,
        attempts: p.attempts,
        decided_at: [&p.call, &p.setup]
            .into_iter()
            .flatten()
            .find(|r| r.outcome == Outcome::Skipped && !r.wasxfail)
            .and_then(|r| r.decided_at.clone()),
    };
    if let Some(text) = p.crash {
        fields.send(nodeid, Status::Errored, Some(&text), sink);
        return Status::Errored;
    }
    let setup_failed = p
        .setup
        .as_ref()
        .is_some_and(|s| s.outcome == Outcome::Failed);
    let tear_failed = teardown
        .as_ref()
        .is_some_and(|t| t.outcome == Outcome::Failed);
    let (status, message) = if setup_failed {
        (Status::Errored, p.setup.and_then(|s| s.message))
    } else if tear_failed {
        let tear = teardown.and_then(|t| t.message);
        let call = p
            .call
            .filter(|c| c.outcome == Outcome::Failed)
            .and_then(|c| c.message);
        let message = match (call, tear) {
            (Some(c), Some(t)) => Some(format!("{c}\n\nerror at teardown:\n{t}")),
            (c, t) => t.or(c),
        };
        (Status::Errored, message)
    } else if let Some(call) = p.call {
        let status = match (call.outcome, call.wasxfail) {
            (Outcome::Passed, false) => Status::Passed,
            (Outcome::Passed, true) => Status::Xpassed,
            // A rerun report never becomes a phase (it is an attempt); failed if it did.
            (Outcome::Failed | Outcome::Rerun, _) => Status::Failed,
            (Outcome::Skipped, false) => Status::Skipped,
            (Outcome::Skipped, true) => Status::Xfailed,
        };
        let status = if teardown.is_none() && status != Status::Failed {
            Status::Errored
        } else {
            status
        };
        let message = if teardown.is_none() {
            let said = match call.outcome {
                Outcome::Passed => "passed",
                Outcome::Failed | Outcome::Rerun => "failed",
                Outcome::Skipped => "skipped",
            };
            let mut m = format!(
                "started but has no final result: the run ended after this test's call phase ({said}), before its teardown was reported"
            );
            if let Some(text) = call.message {
                m.push_str("\n\n");
                m.push_str(&text);
            }
            Some(m)
        } else {
            call.message
        };
        (status, message)
    } else {
        match p.setup {
            Some(s) if s.outcome == Outcome::Skipped => (
                if s.wasxfail {
                    Status::Xfailed
                } else {
                    Status::Skipped
                },
                s.message,
            ),
            _ if teardown.is_none() => (
                Status::Errored,
                Some("started but has no result: the run ended after this test's setup, before its call phase was reported".into()),
            ),
            _ => (
                Status::Errored,
                Some("no call phase was reported between setup and teardown".into()),
            ),
        }
    };
    fields.send(nodeid, status, message.as_deref(), sink);
    status
}

/// What a pending test gathered besides its phases.
struct Fields {
    duration: Option<f64>,
    output: Option<String>,
    line: Option<u32>,
    marker: Option<Category>,
    attempts: Vec<Attempt>,
    decided_at: Option<String>,
}

impl Fields {
    /// Hands the folded test to the sink, borrowed: its id, suite, name and file are slices of
    /// the node id, so a passing test without output costs no allocation here.
    fn send(&self, nodeid: &str, status: Status, message: Option<&str>, sink: &mut dyn EventSink) {
        let parts = NodeId::split(nodeid);
        let mut test = parts.test_ref(nodeid, status);
        test.message = message;
        test.duration = self.duration;
        test.output = self.output.as_deref();
        test.line = self.line;
        test.attempts = &self.attempts;
        if status == Status::Skipped {
            test.decided_at = self.decided_at.as_deref();
        }
        test.category = self.marker.or_else(|| Category::from_title(parts.name));
        sink.test_finished_ref(test);
    }
}

/// A report's `longrepr` as text: a string as it is; a skip's `[path, line, reason]` as the
/// reason (and its `path:line`, where the skip was decided, as the second field); an
/// exception's object as its crash message (`reprcrash.message`) with its place.
#[derive(Default)]
struct LongRepr(Option<String>, Option<String>);

#[derive(Deserialize)]
struct ReprCrash {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    lineno: Option<u64>,
    #[serde(default)]
    message: Option<String>,
}

impl<'de> Deserialize<'de> for LongRepr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LongRepr;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`longrepr` to be null, a string, an array or an object")
            }
            fn visit_unit<E: de::Error>(self) -> Result<LongRepr, E> {
                Ok(LongRepr(None, None))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LongRepr, E> {
                Ok(LongRepr(Some(v.to_owned()), None))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<LongRepr, E> {
                Ok(LongRepr(Some(v.to_string()), None))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LongRepr, E> {
                Ok(LongRepr(Some(v.to_string()), None))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LongRepr, E> {
                Ok(LongRepr(Some(v.to_string()), None))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<LongRepr, E> {
                Ok(LongRepr(Some(v.to_string()), None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LongRepr, A::Error> {
                let mut last = None;
                let mut items = Vec::new();
                while let Some(v) = seq.next_element::<serde_json::Value>()? {
                    if items.len() < 3 {
                        items.push(v.clone());
                    }
                    if let serde_json::Value::String(s) = v {
                        last = Some(s);
                    }
                }
                // A skip's `[path, line, reason]`: where the skip was decided.
                let place = match items.as_slice() {
                    [serde_json::Value::String(path), line, _] if line.is_u64() => {
                        skip_location(path, &line.to_string())
                    }
                    _ => None,
                };
                Ok(LongRepr(last, place))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LongRepr, A::Error> {
                let mut out = None;
                let mut seen: Vec<Str<'de>> = Vec::new();
                while let Some(k) = map.next_key::<Str<'de>>()? {
                    if seen.iter().any(|s| s.as_ref() == k.as_ref()) {
                        return Err(de::Error::custom(format!(
                            "duplicate key `{}` in `longrepr`",
                            k.as_ref()
                        )));
                    }
                    match k.as_ref() {
                        "reprcrash" => {
                            if let Some(c) = map.next_value::<Option<ReprCrash>>()? {
                                let place = match (c.path, c.lineno) {
                                    (Some(p), Some(l)) => format!("\n\n{p}:{l}"),
                                    (Some(p), None) => format!("\n\n{p}"),
                                    _ => String::new(),
                                };
                                out = Some(format!("{}{place}", c.message.unwrap_or_default()));
                            }
                        }
                        "longrepr" if out.is_none() => {
                            out = map.next_value::<Option<String>>()?;
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                    seen.push(k);
                }
                Ok(LongRepr(out, None))
            }
        }
        d.deserialize_any(V)
    }
}
