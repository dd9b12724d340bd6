//! The pytest console reader (`pytest -rA`, `pytest -v`, plain `pytest`): regular expressions
//! over the terminal output, a lower-confidence format than the JSON ones.
//!
//! Read line by line. Tests come from the verbose per-test lines (`path::test PASSED [ 10%]`)
//! and the short test summary (`FAILED path::test - message`). A test's lines can be far apart
//! (a teardown error after its `PASSED`, the summary after every test), so tests are held in a
//! window and what leaves it is kept or emitted with a compact memory of it (`named`), in
//! bounded memory.
//! Collection errors, interruptions and internal errors become problems; the final counts line
//! is checked against what was named, and counted failures that no line names become a
//! problem, since the output does not say which tests they were.

mod named;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::io::BufRead;
use std::sync::OnceLock;

use regex::Regex;

use gapscore_adapter_sdk::{
    AdapterError, Attempt, Category, Declared, DeclaredCount, EventSink, Evidence, EvidenceSource,
    InputError, Problem, ProblemKind, Producer, ReadCounts, Status, TestCase,
};

use crate::common::test_from_nodeid;
use gapscore_adapter_sdk::text::strip_ansi;
use named::{Emitted, Named};

const STATUSES: &str = "PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS|RERUN";

struct Patterns {
    verbose: Regex,
    xdist: Regex,
    summary: Regex,
    counts: Regex,
    count_item: Regex,
    platform: Regex,
    collecting: Regex,
    bang: Regex,
    progress: Regex,
    section: Regex,
    skip_place: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = |s: &str| Regex::new(s).unwrap_or_else(|e| unreachable!("bad pattern {s}: {e}"));
        Patterns {
            verbose: re(&format!(
                r"^(\S+::\S.*?) ({STATUSES})(?: \((.*)\))?(?:\s+\[\s*\d+%\])?\s*$"
            )),
            xdist: re(&format!(
                r"^\[gw\d+\] \[\s*\d+%\] ({STATUSES}) (\S+::\S.*?)(?: \((.*)\))?\s*$"
            )),
            summary: re(&format!(r"^({STATUSES}) (.+?)(?: - (.*))?$")),
            counts: re(
                r"^=*\s*((?:\d+ [a-z]+(?:, )?)+|no tests ran) in \d+(?:\.\d+)?s(?: \([^)]*\))?\s*=*$",
            ),
            count_item: re(r"(\d+) ([a-z]+)"),
            platform: re(r"^platform \S+ -- Python \S+, pytest-([^,\s]+)"),
            collecting: re(r"^_+ ERROR collecting (.+?) _+$"),
            bang: re(r"^!{3,} (.+?) !{3,}$"),
            progress: re(r"^(?:\S+\.py )?([.FEsxXR]+)\s*(?:\[\s*\d+%\])?$"),
            section: re(r"^={3,} (.+?) ={3,}$"),
            skip_place: re(r"^SKIPPED \[(\d+)\] (.+?:\d+): (.*)$"),
        }
    })
}

/// How sure the text detection is: the session banner or the platform line.
pub(crate) fn detect(prefix: &[u8]) -> u8 {
    let text = String::from_utf8_lossy(&prefix[..prefix.len().min(16 * 1024)]);
    let evidence = text.lines().take(200).any(|l| {
        let l = strip_ansi(l.trim_end());
        (l.starts_with('=') && l.contains(" test session starts "))
            // The patterns are compiled on first use (a few ms): not for every file that is
            // not pytest's console text.
            || (l.starts_with("platform ") && patterns().platform.is_match(&l))
    });
    if evidence { 60 } else { 0 }
}

#[derive(Default)]
struct Reading {
    named: Named,
    /// The summary's `FAILED`/`ERROR` lines for emitted tests that were not failures.
    late_failures: u64,
    /// Whether the producer has been sent (before the first test emitted early).
    producer_sent: bool,
    banner: bool,
    version: Option<String>,
    section: String,
    collection_errors: Vec<(String, Option<String>)>,
    /// The collection error whose traceback is being read, for its `E` line.
    collecting: Option<usize>,
    problems: Vec<Problem>,
    counts: Option<HashMap<String, u64>>,
    progress: HashMap<char, u64>,
    internal_error: Option<String>,
    lines: usize,
    nonblank: usize,
    counted_twice: u64,
    /// Of those, tests that failed and then errored at teardown: in both `failed` and `error`
    /// (a passing test with a teardown error is in `passed` and `error`).
    failed_and_errored: u64,
    reruns: HashMap<String, (u32, u32)>,
    /// `-rs` lines: how many skips, where they were decided (`path:line`), the reason.
    skip_places: Vec<(u64, String, String)>,
}

/// Reads pytest console output line by line and pushes what it holds into `sink`.
pub fn parse_reader(
    reader: &mut dyn BufRead,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    read_with(reader, sink, Named::default())
}

fn read_with(
    reader: &mut dyn BufRead,
    sink: &mut dyn EventSink,
    named: Named,
) -> Result<(), AdapterError> {
    let mut r = Reading {
        named,
        ..Reading::default()
    };
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(AdapterError::io)?;
        if n == 0 {
            break;
        }
        r.lines += 1;
        if !buf.iter().all(u8::is_ascii_whitespace) && buf != b"\xEF\xBB\xBF" {
            r.nonblank += 1;
        }
        let bytes: &[u8] = if r.lines == 1 {
            buf.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&buf)
        } else {
            &buf
        };
        let raw = String::from_utf8_lossy(bytes);
        let line = strip_ansi(raw.trim_end_matches(['\n', '\r']));
        r.line(&line);
        if r.in_run() {
            r.emit_settled(sink);
        }
    }
    r.finish(sink)
}

impl Reading {
    fn add(&mut self, nodeid: &str, word: &str, message: Option<&str>, summary: bool) {
        if word == "RERUN" {
            // pytest-rerunfailures: a failed attempt; the test's final line comes later. The
            // verbose lines and the summary (`-rR`) both list each rerun: count each source
            // apart and believe the larger.
            let e = self.reruns.entry(nodeid.to_owned()).or_insert((0, 0));
            if summary {
                e.1 += 1;
            } else {
                e.0 += 1;
            }
            return;
        }
        let status = status_of(word);
        let message = message.map(str::trim).filter(|m| !m.is_empty());
        if let Some(t) = self.named.get_mut(nodeid) {
            // A later ERROR (teardown) outranks an earlier PASSED; FAILED outranks PASSED.
            if rank(status) > rank(t.status) {
                if status == Status::Errored {
                    // pytest counts this test twice: as passed or failed, and as an error.
                    self.counted_twice += 1;
                    if t.status == Status::Failed {
                        self.failed_and_errored += 1;
                    }
                }
                t.status = status;
                if let Some(m) = message {
                    t.message = Some(m.to_owned());
                }
            } else if t.message.is_none() && status == t.status {
                t.message = message.map(str::to_owned);
            }
            return;
        }
        if self.named.any_emitted() {
            // The test may have been emitted already (`named`): what the line changes is
            // bookkept, never dropped; its message cannot reach the emitted test.
            if let Some(s) = self.named.emitted_failure(nodeid) {
                if rank(status) > rank(*s) {
                    self.counted_twice += 1;
                    if *s == Status::Failed {
                        self.failed_and_errored += 1;
                    }
                    *s = status;
                }
                return;
            }
            if summary {
                // Every test was named before the summary: this one was emitted and was not a
                // failure. A failure here is read as before, as failed, counted among the tests.
                if rank(status) > 1 {
                    self.late_failures += 1;
                    if status == Status::Errored {
                        self.counted_twice += 1;
                    }
                }
                return;
            }
        }
        let mut t = test_from_nodeid(nodeid, status);
        t.message = message.map(str::to_owned);
        t.category = Category::from_title(&t.name);
        self.named.push(t);
    }

    fn in_run(&self) -> bool {
        self.section.is_empty() || self.section == "test session starts"
    }

    /// Hands the tests that left the window to the sink (the producer first).
    fn emit_settled(&mut self, sink: &mut dyn EventSink) {
        while let Some(mut t) = self.named.next_to_emit() {
            if !self.producer_sent {
                self.producer_sent = true;
                sink.producer(self.producer());
            }
            add_attempts(&self.reruns, &mut t);
            sink.test_finished(t);
        }
    }

    fn producer(&self) -> Producer {
        let mut producer = Producer::new("pytest");
        producer.version = self.version.clone();
        producer
    }

    fn line(&mut self, line: &str) {
        let p = patterns();
        if let Some(c) = p.section.captures(line) {
            let title = c.get(1).map_or("", |m| m.as_str());
            if title == "test session starts" {
                self.banner = true;
            }
            if !p.counts.is_match(line) {
                self.section = title.to_owned();
                self.collecting = None;
            }
        }
        if let Some(c) = p.platform.captures(line) {
            self.banner = true;
            self.version = c.get(1).map(|m| m.as_str().to_owned());
            return;
        }
        if let Some(c) = p.collecting.captures(line) {
            let what = c.get(1).map_or("", |m| m.as_str()).to_owned();
            self.collecting = Some(self.collection_error(&what));
            return;
        }
        if line.starts_with("___") {
            self.collecting = None;
        }
        if let Some(i) = self.collecting
            && let Some(e) = line.strip_prefix("E ")
            && let Some(entry) = self.collection_errors.get_mut(i)
        {
            // The last `E` line names the exception.
            entry.1 = Some(e.trim().to_owned());
            return;
        }
        if let Some(c) = p.bang.captures(line) {
            let what = c.get(1).map_or("", |m| m.as_str());
            // Ctrl-C prints `KeyboardInterrupt`, pytest.exit() `_pytest.outcomes.Exit: reason`.
            let kind = if what == "KeyboardInterrupt" || what.starts_with("_pytest.outcomes.Exit") {
                ProblemKind::Interrupted
            } else {
                ProblemKind::Aborted
            };
            self.problems.push(Problem::new(
                kind,
                format!("pytest stopped the run: {what}"),
            ));
            return;
        }
        if let Some(rest) = line.strip_prefix("INTERNALERROR>") {
            // The last line of the traceback names the exception.
            if !rest.trim().is_empty() {
                self.internal_error = Some(rest.trim().to_owned());
            }
            return;
        }
        if let Some(c) = p.counts.captures(line) {
            let mut counts = HashMap::new();
            for item in p
                .count_item
                .captures_iter(c.get(1).map_or("", |m| m.as_str()))
            {
                let n: u64 = item
                    .get(1)
                    .and_then(|m| m.as_str().parse().ok())
                    .unwrap_or(0);
                let word = item.get(2).map_or("", |m| m.as_str());
                let key = match word {
                    "errors" => "error",
                    "warnings" => "warning",
                    w => w,
                };
                *counts.entry(key.to_owned()).or_insert(0) += n;
            }
            self.counts = Some(counts);
            return;
        }
        if self.section == "short test summary info" {
            if let Some(c) = p.summary.captures(line) {
                let status = c.get(1).map_or("", |m| m.as_str());
                let what = c.get(2).map_or("", |m| m.as_str());
                let message = c.get(3).map(|m| m.as_str());
                if status == "SKIPPED" && what.starts_with('[') {
                    // `SKIPPED [2] path:line: reason`: a place and a count, not a test.
                    if let Some(k) = p.skip_place.captures(line) {
                        let n = k.get(1).and_then(|m| m.as_str().parse().ok()).unwrap_or(0);
                        let at = k.get(2).map_or("", |m| m.as_str()).to_owned();
                        let reason = k.get(3).map_or("", |m| m.as_str()).to_owned();
                        self.skip_places.push((n, at, reason));
                    }
                    return;
                }
                if status == "ERROR" && !what.contains("::") {
                    // `ERROR path`: a module that failed to collect.
                    let i = self.collection_error(what);
                    if let (Some(m), Some(entry)) = (message, self.collection_errors.get_mut(i))
                        && entry.1.is_none()
                    {
                        entry.1 = Some(m.to_owned());
                    }
                    return;
                }
                self.add(what, status, message, true);
            }
            return;
        }
        if !self.in_run() {
            return;
        }
        if let Some(c) = p.verbose.captures(line).or_else(|| p.xdist.captures(line)) {
            let (id, status, reason) = if line.starts_with("[gw") {
                (c.get(2), c.get(1), c.get(3))
            } else {
                (c.get(1), c.get(2), c.get(3))
            };
            if let (Some(id), Some(status)) = (id, status) {
                self.add(
                    id.as_str(),
                    status.as_str(),
                    reason.map(|m| m.as_str()),
                    false,
                );
            }
            return;
        }
        if let Some(c) = p.progress.captures(line) {
            for ch in c.get(1).map_or("", |m| m.as_str()).chars() {
                *self.progress.entry(ch).or_insert(0) += 1;
            }
        }
    }

    fn collection_error(&mut self, what: &str) -> usize {
        match self.collection_errors.iter().position(|(w, _)| w == what) {
            Some(i) => i,
            None => {
                self.collection_errors.push((what.to_owned(), None));
                self.collection_errors.len() - 1
            }
        }
    }

    fn finish(self, sink: &mut dyn EventSink) -> Result<(), AdapterError> {
        if self.nonblank == 0 {
            return Err(
                InputError::Empty("empty file: expected pytest console output".into()).into(),
            );
        }
        if !self.banner && self.counts.is_none() && self.named.total() == 0 {
            return Err(InputError::Unlocated(format!(
                "no pytest console output found in {} line(s): no session banner, test lines or counts line",
                self.lines
            ))
            .into());
        }
        if !self.producer_sent {
            sink.producer(self.producer());
        }
        let named_total = self.named.total();
        let (mut tests, emitted) = self.named.finish();
        let Emitted {
            by_status: mut named,
            skip_reasons,
            ..
        } = emitted;
        for t in &tests {
            *named.entry(t.status).or_insert(0) += 1;
        }
        place_skips(&mut tests, &self.skip_places, skip_reasons.as_ref());
        for mut t in tests {
            add_attempts(&self.reruns, &mut t);
            sink.test_finished(t);
        }
        let have = |s: Status| named.get(&s).copied().unwrap_or(0);
        // Failures the summary names for tests emitted as something else count as failed, as
        // they did when every test was held: among the named failures, and as evidence below.
        let named_failed = have(Status::Failed) + have(Status::Errored) + self.late_failures;
        for (what, exc) in &self.collection_errors {
            let detail = match exc {
                Some(e) => format!("collecting `{what}` failed: {e}"),
                None => format!("collecting `{what}` failed"),
            };
            sink.problem(
                Problem::new(ProblemKind::CollectionError, detail).with_suite(what.as_str()),
            );
        }
        for p in self.problems {
            sink.problem(p);
        }
        if let Some(last) = self.internal_error {
            sink.problem(Problem::new(
                ProblemKind::Crash,
                format!("pytest hit an internal error (INTERNALERROR): {last}"),
            ));
        }
        let Some(counts) = self.counts else {
            let seen: Vec<String> = [
                ('.', "passed"),
                ('F', "failed"),
                ('E', "error"),
                ('s', "skipped"),
                ('x', "xfailed"),
                ('X', "xpassed"),
            ]
            .iter()
            .filter_map(|(c, w)| self.progress.get(c).map(|n| format!("{n} {w}")))
            .collect();
            let progress = if seen.is_empty() {
                String::new()
            } else {
                format!(" (its progress line shows {})", seen.join(", "))
            };
            sink.problem(Problem::new(
                ProblemKind::Truncated,
                format!(
                    "the output ends before pytest's final counts line: the run did not finish or the output was cut{progress}"
                ),
            ));
            let read = ReadCounts::new(named_total, named_failed, have(Status::Skipped));
            late_failures(sink, self.late_failures, read);
            return Ok(());
        };
        let get = |k: &str| counts.get(k).copied().unwrap_or(0);
        let collection_errors = self.collection_errors.len() as u64;
        // pytest counts a collection error as an error, and a test that fails and then errors
        // at teardown once as failed and once as error: neither is a test of its own.
        let counted: u64 = ["passed", "failed", "skipped", "xfailed", "xpassed"]
            .iter()
            .map(|k| get(k))
            .sum::<u64>()
            + get("error").saturating_sub(collection_errors);
        let counted = counted.saturating_sub(self.counted_twice);
        let declared_failed = (get("failed") + get("error"))
            .saturating_sub(collection_errors)
            .saturating_sub(self.failed_and_errored);
        let unattributed = counted.saturating_sub(named_total);
        // Which of the unattributed results were failures (first) and skips, as far as the
        // counts line tells.
        let unnamed_failed = declared_failed
            .saturating_sub(named_failed)
            .min(unattributed);
        let unnamed_skipped = get("skipped")
            .saturating_sub(have(Status::Skipped))
            .min(unattributed - unnamed_failed);
        if unattributed > 0 {
            // Progress dots, or a short summary that names only failures: the counts line says
            // these results exist and no line says which tests they were. Counted as failed
            // (which sealed tests they stand for cannot be known) and the report is advisory.
            sink.problem(
                Problem::new(
                    ProblemKind::UnattributedResults,
                    format!(
                        "pytest's final counts line counts {counted} test result(s) and the output names {named_total}: {unattributed} result(s) ({unnamed_failed} of them failed or errored) cannot be tied to a test; run pytest with -v (or -rA), or use --json-report or --report-log"
                    ),
                )
                .with_count(unattributed),
            );
        }
        late_failures(
            sink,
            self.late_failures,
            ReadCounts::new(
                named_total + unattributed,
                named_failed + unnamed_failed,
                have(Status::Skipped) + unnamed_skipped,
            ),
        );
        // The counts line as evidence beside the named results. The unattributed results are
        // read as what the problem above stands for (failures first), so only a counts line that
        // says worse than every result it could stand for is a `summary-line` problem.
        let line = format!("pytest's final counts line ({})", counts_text(&counts));
        sink.evidence(
            Evidence::new(EvidenceSource::ConsoleSummary, line)
                .declaring(
                    Declared::new()
                        .tests(DeclaredCount::Number(counted))
                        .failed(DeclaredCount::Number(declared_failed))
                        .skipped(DeclaredCount::Number(get("skipped"))),
                )
                .reading(
                    ReadCounts::new(
                        named_total + unattributed,
                        named_failed + unnamed_failed,
                        have(Status::Skipped) + unnamed_skipped,
                    )
                    .with_problems(collection_errors),
                ),
        );
        Ok(())
    }
}

/// A failed attempt for each rerun (`RERUN` lines; the verbose lines and the summary's, the
/// larger count).
fn add_attempts(reruns: &HashMap<String, (u32, u32)>, t: &mut TestCase) {
    let (verbose, summary) = reruns.get(&t.id).copied().unwrap_or((0, 0));
    for _ in 0..verbose.max(summary) {
        t.attempts.push(Attempt::new(Status::Failed));
    }
}

/// The short summary's failures for tests already emitted as something else (`named`), as
/// evidence: `read` counts them failed, the records do not, so the difference is counted among
/// the tests read (`summary-line`), exactly the failures holding every test gave.
fn late_failures(sink: &mut dyn EventSink, late: u64, read: ReadCounts) {
    if late == 0 {
        return;
    }
    let records = ReadCounts::new(read.tests, read.failed - late, read.skipped);
    sink.evidence(
        Evidence::new(
            EvidenceSource::ConsoleSummary,
            format!(
                "pytest's short test summary ({late} FAILED or ERROR line(s) for tests its per-test lines read otherwise, {} or more tests earlier)",
                named::WINDOW
            ),
        )
        .declaring(Declared::new().failed(DeclaredCount::Number(read.failed)))
        .reading(records),
    );
}

/// The counts as pytest wrote them, in its order, for a message.
fn counts_text(counts: &HashMap<String, u64>) -> String {
    let order = [
        "failed",
        "passed",
        "skipped",
        "deselected",
        "xfailed",
        "xpassed",
        "error",
    ];
    let mut parts: Vec<String> = order
        .iter()
        .filter_map(|k| counts.get(*k).map(|n| format!("{n} {k}")))
        .collect();
    let mut rest: Vec<_> = counts
        .iter()
        .filter(|(k, _)| !order.contains(&k.as_str()))
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    rest.sort();
    parts.extend(rest);
    parts.join(", ")
}

/// Where each named skip was decided, from the `-rs` lines: a line for one skip whose reason
/// starts with exactly one named skip's reason (the verbose line cuts long reasons with `...`)
/// gives that test its `path:line`. A line standing for several skips names none of them.
fn place_skips(
    tests: &mut [TestCase],
    places: &[(u64, String, String)],
    emitted: Option<&HashMap<String, u64>>,
) {
    let fits = |m: &str, reason: &str| {
        let m = m.strip_suffix("...").unwrap_or(m);
        !m.is_empty() && reason.starts_with(m)
    };
    for (n, at, reason) in places {
        if *n != 1 {
            continue;
        }
        // A skip already emitted may be the one the line stands for: then none is placed (and
        // none is once too many reasons were emitted to remember).
        let Some(emitted) = emitted else { return };
        if emitted.keys().any(|m| fits(m, reason)) {
            continue;
        }
        let mut candidates = tests.iter_mut().filter(|t| {
            t.status == Status::Skipped
                && t.decided_at.is_none()
                && t.message.as_deref().is_some_and(|m| fits(m, reason))
        });
        if let (Some(t), None) = (candidates.next(), candidates.next()) {
            t.decided_at = Some(at.clone());
        }
    }
}

/// How bad a status is, for a test named twice: errored, failed, anything else.
fn rank(s: Status) -> u8 {
    match s {
        Status::Errored => 3,
        Status::Failed => 2,
        _ => 1,
    }
}

fn status_of(word: &str) -> Status {
    match word {
        "PASSED" => Status::Passed,
        "FAILED" => Status::Failed,
        "ERROR" => Status::Errored,
        "SKIPPED" => Status::Skipped,
        "XFAIL" => Status::Xfailed,
        _ => Status::Xpassed,
    }
}

/// Parses a whole console text (for `Adapter::parse`).
pub fn parse(input: &[u8], sink: &mut dyn EventSink) -> Result<(), AdapterError> {
    let mut r = input;
    parse_reader(&mut r, sink)
}
