//! The plain `go test -v` text reader (`=== RUN`, `--- PASS: TestX (0.00s)`, `ok  pkg 0.01s`),
//! line by line with the rules test2json itself uses: output belongs to the test named by the
//! last `=== RUN`/`CONT`/`NAME` line, or, after a result line, to the test at that indentation.
//!
//! The package of a test is only named by the `ok`/`FAIL` line after its tests, so finished
//! tests are held until that line (at most [`HOLD_LIMIT`] of them; beyond, they are passed on
//! without a package and a warning says so).

use gapscore_adapter_sdk::Code;
use std::collections::HashSet;
use std::io::BufRead;

use gapscore_adapter_sdk::lines::LineReader;
use gapscore_adapter_sdk::{
    AdapterError, Declared, EventSink, Evidence, EvidenceSource, InputError, Problem, ProblemKind,
    Producer, ReadCounts, Status, TestCase,
};

use crate::common::{
    Death, Report, SummaryVerb, build_header, death_line, describe, is_goroutine_header,
    push_capped, report_line, summary_line, update_line,
};

/// How many finished tests of one package are held while waiting for its summary line.
pub const HOLD_LIMIT: usize = 100_000;

/// How many unfinished tests a `missing-results` problem names, as the SDK's `Normalizer`
/// does for the JSON reader (the count holds them all).
const UNFINISHED_NAMED: usize = 5;

/// The tests a cut stream left open, as one `missing-results` problem counting each of them
/// (the shape the `Normalizer` gives the same cut read from `go test -json`): a cut among 300
/// parallel tests is one line of the report that weighs 300, not 300 lines.
fn missing_results(open: &[Test]) -> Option<Problem> {
    match open {
        [] => None,
        [one] => Some(Problem::new(
            ProblemKind::MissingResults,
            format!("test `{}` started but has no result", one.name),
        )),
        _ => {
            let named: Vec<String> = open
                .iter()
                .take(UNFINISHED_NAMED)
                .map(|t| format!("`{}`", t.name))
                .collect();
            let more = match open.len().saturating_sub(UNFINISHED_NAMED) {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            Some(
                Problem::new(
                    ProblemKind::MissingResults,
                    format!(
                        "{} tests started but have no result: {}{more}",
                        open.len(),
                        named.join(", ")
                    ),
                )
                .with_count(open.len() as u64),
            )
        }
    }
}

/// What a package's summary line said, for the end of its block.
#[derive(Debug, Clone, Copy)]
struct PackageLine {
    /// `FAIL pkg` (including `[build failed]`).
    says_failed: bool,
    /// `FAIL pkg` of a package that built: its test binary failed.
    failed: bool,
    /// `ok`/`FAIL` of a package that built and had tests to run: its tests should be named.
    unnamed: bool,
    /// Problems the line itself raised (a build failure).
    problems: u64,
}

#[derive(Debug)]
struct Test {
    name: String,
    output: String,
    status: Option<Status>,
    duration: Option<f64>,
}

impl Test {
    fn new(name: &str) -> Self {
        Test {
            name: name.to_owned(),
            output: String::new(),
            status: None,
            duration: None,
        }
    }
}

#[derive(Default)]
struct Block {
    /// Finished tests waiting for the package name.
    done: Vec<Test>,
    /// Tests with `=== RUN` and no result line yet.
    open: Vec<Test>,
    /// Result lines whose output may still follow, by indentation.
    pending: Vec<Test>,
    current: String,
    output: String,
    failures: u64,
    death: Option<(Death, String)>,
    death_confirmed: bool,
    /// Whether anything of a package was seen since the last summary line.
    active: bool,
    /// Whether the test binary's final `PASS`/`FAIL` line came.
    binary_done: bool,
    binary_failed: bool,
    /// `=== RUN` lines in this package's block: none means go test ran without -v, and the
    /// passing tests are not named.
    runs: u64,
}

struct Reader<'s> {
    sink: &'s mut dyn EventSink,
    block: Block,
    runs: u64,
    reports: u64,
    summaries: u64,
    problems: u64,
    overflow_warned: bool,
    /// Build output blocks (`# pkg` and the lines after it), by package, until the package's
    /// `[build failed]` line claims one: go prints every block before the summary lines.
    builds: Vec<(String, String)>,
    /// Whether plain lines continue the last build block.
    in_build: bool,
}

/// Reads `go test -v` output.
pub fn parse_reader(
    reader: &mut dyn BufRead,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    let mut r = Reader {
        sink,
        block: Block::default(),
        runs: 0,
        reports: 0,
        summaries: 0,
        problems: 0,
        overflow_warned: false,
        builds: Vec::new(),
        in_build: false,
    };
    let mut lines = LineReader::new(reader);
    let mut saw_content = false;
    let mut produced = false;
    while let Some(l) = lines.next_line().map_err(AdapterError::io)? {
        let line = String::from_utf8_lossy(l.bytes());
        // Line 1's mark is gone already; one further on starts a file concatenated to this one.
        let line = match l.number() {
            1 => &*line,
            _ => line.strip_prefix('\u{feff}').unwrap_or(&line),
        };
        // Keep the line's own indentation (it says which test the output belongs to).
        let line = line.trim_end_matches('\r');
        if !line.trim().is_empty() {
            saw_content = true;
        }
        if !produced && (r.runs + r.reports + r.summaries) == 0 {
            // Announce the producer once something of go test's is recognised.
            if update_line(line).is_some()
                || report_line(line).is_some()
                || summary_line(line).is_some()
            {
                r.sink.producer(Producer::new("go test"));
                produced = true;
            }
        }
        r.line(line);
    }
    if !saw_content {
        return Err(InputError::Empty("empty input: no go test output".into()).into());
    }
    if r.runs + r.reports + r.summaries == 0 && r.problems == 0 {
        return Err(InputError::Syntax {
            location: gapscore_adapter_sdk::Location::LineCol { line: 1, column: 1 },
            message: "not go test output: no `=== RUN`, `--- PASS:`/`FAIL:`/`SKIP:` or `ok`/`FAIL` package line".into(),
        }
        .into());
    }
    r.finish();
    Ok(())
}

impl Reader<'_> {
    fn problem(&mut self, p: Problem) {
        self.problems += 1;
        self.sink.problem(p);
    }

    fn line(&mut self, line: &str) {
        if let Some((verb, name)) = update_line(line) {
            self.in_build = false;
            self.flush_pending(0);
            self.block.active = true;
            self.block.current = name.to_owned();
            if verb == "RUN" {
                self.runs += 1;
                self.block.runs += 1;
                // A second `=== RUN` of an open name is a second test of that name (`pkg` and
                // `pkg_test` may each declare it; parallel ones are open together), not a
                // restart: both stay open and result lines take them in order.
                self.block.open.push(Test::new(name));
            }
            return;
        }
        if let Some((indent, verb, name, secs)) = report_line(line)
            && indent <= self.block.pending.len()
        {
            self.in_build = false;
            self.reports += 1;
            self.block.active = true;
            self.flush_pending(indent);
            let mut t = match self.block.open.iter().position(|t| t.name == name) {
                Some(i) => self.block.open.remove(i),
                None => Test::new(name),
            };
            t.status = Some(match verb {
                Report::Pass | Report::Bench => Status::Passed,
                Report::Fail => Status::Failed,
                Report::Skip => Status::Skipped,
            });
            t.duration = secs;
            self.block.current = t.name.clone();
            self.block.pending.push(t);
            return;
        }
        if line == "PASS" || line == "FAIL" {
            self.flush_pending(0);
            self.block.current.clear();
            self.block.binary_done = true;
            self.block.binary_failed |= line == "FAIL";
            return;
        }
        if let Some(s) = summary_line(line) {
            self.in_build = false;
            self.summaries += 1;
            self.flush_pending(0);
            let pkg = s.package.to_owned();
            let built = !(s.rest.contains("[build failed]") || s.rest.contains("[setup failed]"));
            let problems_before = self.problems;
            if !built {
                let mut detail = line.to_owned();
                if let Some(i) = self.builds.iter().position(|(p, _)| p == &pkg) {
                    let (_, text) = self.builds.remove(i);
                    detail.push('\n');
                    detail.push_str(text.trim_end());
                }
                self.problem(
                    Problem::new(ProblemKind::BuildFailure, detail).with_suite(pkg.clone()),
                );
            }
            let summary = PackageLine {
                says_failed: s.verb == SummaryVerb::Fail,
                failed: s.verb == SummaryVerb::Fail && built,
                unnamed: s.verb != SummaryVerb::NoTests
                    && built
                    && !s.rest.contains("[no tests to run]"),
                problems: self.problems - problems_before,
            };
            self.end_block(Some(&pkg), Some(summary));
            return;
        }
        if let Some(pkg) = build_header(line)
            && self.builds.len() < 256
        {
            self.builds.push((pkg.to_owned(), String::new()));
            self.in_build = true;
        }
        if self.in_build
            && let Some((_, text)) = self.builds.last_mut()
        {
            push_capped(text, line);
            push_capped(text, "\n");
            return;
        }
        // Plain output: the current test's, else the package's.
        let b = &mut self.block;
        if b.death.is_none() {
            if let Some(d) = death_line(line) {
                b.death = Some((d, line.trim_end().to_owned()));
            }
        } else if !b.death_confirmed && is_goroutine_header(line) {
            b.death_confirmed = true;
        }
        let mut indent = 0;
        let mut rest = line;
        while let Some(r) = rest.strip_prefix("    ") {
            rest = r;
            indent += 1;
        }
        if indent > 0 && indent <= b.pending.len() {
            b.current = b.pending[indent - 1].name.clone();
        }
        let target = b
            .pending
            .iter_mut()
            .rev()
            .chain(b.open.iter_mut().rev())
            .find(|t| t.name == b.current);
        match target {
            Some(t) => {
                push_capped(&mut t.output, line);
                push_capped(&mut t.output, "\n");
            }
            None => {
                push_capped(&mut b.output, line);
                push_capped(&mut b.output, "\n");
            }
        }
    }

    /// Result lines at `depth` or deeper take no more output: their tests are done.
    fn flush_pending(&mut self, depth: usize) {
        while self.block.pending.len() > depth {
            if let Some(t) = self.block.pending.pop() {
                self.done(t);
            }
        }
        if depth == 0 {
            self.block.current.clear();
        }
    }

    fn done(&mut self, t: Test) {
        if matches!(t.status, Some(Status::Failed)) {
            self.block.failures += 1;
        }
        if self.block.done.len() >= HOLD_LIMIT {
            // Waiting longer would let memory grow with the input.
            if !self.overflow_warned {
                self.overflow_warned = true;
                self.sink.coded_warning(Code::OutputUnattributed, format!(
                    "more than {HOLD_LIMIT} tests before a package line: some tests are reported without their package"
                ));
            }
            let held = std::mem::take(&mut self.block.done);
            self.emit(None, held);
        }
        self.block.done.push(t);
    }

    /// Ends a package's block: its tests get the package as suite. `line` is its summary line
    /// (`None` for a test binary run directly, which ends with `PASS`/`FAIL` alone).
    fn end_block(&mut self, pkg: Option<&str>, line: Option<PackageLine>) {
        let mut b = std::mem::take(&mut self.block);
        let failed = line.is_some_and(|l| l.failed) || b.binary_failed;
        // A panic line is the binary's death when a goroutine dump confirms it, when tests were
        // left without a result, or when the package failed before any test ran (a panic in
        // `init`: hand copies often keep no dump).
        let nothing_ran = b.open.is_empty() && b.done.is_empty();
        let death = b
            .death
            .clone()
            .filter(|_| b.death_confirmed || !b.open.is_empty() || (failed && nothing_ran));
        let mut unfinished = Vec::new();
        for mut t in std::mem::take(&mut b.open) {
            if t.name.starts_with("Benchmark") && (!failed || t.output.contains("ns/op")) {
                // A benchmark that neither logged nor failed prints no result line; its
                // measurement line says it ran.
                t.status = Some(Status::Passed);
            } else {
                let why = match &death {
                    Some((Death::Timeout, l)) => {
                        format!("no result: the test binary timed out ({l})")
                    }
                    Some((Death::Crash, l)) => format!("no result: the test binary crashed ({l})"),
                    None => "no result: the test binary exited before the test finished".to_owned(),
                };
                t.output.insert_str(0, &format!("{why}\n"));
                t.status = Some(Status::Errored);
                unfinished.push(t.name.clone());
            }
            b.done.push(t);
        }
        let failures = b.failures;
        let tests = b.done.len() as u64;
        let done = std::mem::take(&mut b.done);
        self.emit(pkg, done);
        let suite = pkg.unwrap_or("").to_owned();
        let with_suite = |p: Problem| {
            if suite.is_empty() {
                p
            } else {
                p.with_suite(suite.clone())
            }
        };
        let problems_before = self.problems - line.map_or(0, |l| l.problems);
        if let Some((d, dead)) = death {
            let kind = match d {
                Death::Timeout => ProblemKind::Timeout,
                Death::Crash => ProblemKind::Crash,
            };
            let detail = if unfinished.is_empty() {
                format!("{dead}; tests after it did not run")
            } else {
                format!(
                    "{dead} while `{}` was running; tests after it did not run",
                    unfinished.join("`, `")
                )
            };
            self.problem(with_suite(Problem::new(kind, detail)));
        } else if !unfinished.is_empty() {
            self.problem(with_suite(Problem::new(
                ProblemKind::Crash,
                format!(
                    "the test binary exited while `{}` had no result; tests after it did not run",
                    unfinished.join("`, `")
                ),
            )));
        }
        let verb = if failed { "FAIL" } else { "ok" };
        if let Some(l) = line
            && l.unnamed
            && b.runs == 0
            && self.problems == problems_before
            && !b.output.contains(" ns/op")
        {
            // Without -v, go names only the tests that failed or logged: how many passed, and
            // which, cannot be read. The report cannot be confident. (A benchmark-only run
            // prints no `=== RUN` line either; its measurements say what ran.)
            self.problem(with_suite(Problem::new(
                ProblemKind::UnattributedResults,
                format!(
                    "package `{suite}`'s `{verb}` line says its tests ran, but go test ran without -v: \
                     its passing tests are not named, so what ran cannot be counted"
                ),
            )));
        }
        if line.is_none() && !b.binary_done {
            return;
        }
        // The summary line and the binary's PASS/FAIL line are evidence beside the records: a
        // failed package whose records show no failure and no problem is judged (exit-status).
        // A skip never fails a Go package, so skips are not passed as explaining one.
        let place = match (line, b.binary_failed) {
            (Some(l), _) if l.says_failed => format!("package `{suite}`'s `FAIL` line"),
            (_, true) => match pkg {
                Some(_) => {
                    format!("the test binary's `FAIL` line before package `{suite}`'s `ok` line")
                }
                None => "the test binary's `FAIL` line".to_owned(),
            },
            (Some(_), false) => format!("package `{suite}`'s `ok` line"),
            (None, false) => "the test binary's `PASS` line".to_owned(),
        };
        let says_failed = line.is_some_and(|l| l.says_failed) || b.binary_failed;
        let tail: Vec<&str> = b.output.lines().filter(|l| !l.trim().is_empty()).collect();
        let tail = tail[tail.len().saturating_sub(5)..].join(" / ");
        let place = if says_failed && !tail.is_empty() {
            format!("{place} (the output before it ends: {tail})")
        } else {
            place
        };
        let mut evidence = Evidence::new(EvidenceSource::ConsoleSummary, place)
            .declaring(Declared::new().run_failed(says_failed))
            .reading(
                ReadCounts::new(tests, failures, 0).with_problems(self.problems - problems_before),
            );
        if !suite.is_empty() {
            evidence = evidence.with_scope(suite.clone());
        }
        self.sink.evidence(evidence);
    }

    fn emit(&mut self, pkg: Option<&str>, tests: Vec<Test>) {
        let suite = pkg.filter(|p| !p.is_empty());
        // Parents: a test whose name is a `/` prefix of another's.
        let mut prefixes: HashSet<&str> = HashSet::new();
        let names: HashSet<&str> = tests.iter().map(|t| t.name.as_str()).collect();
        for t in &tests {
            let mut p = t.name.as_str();
            while let Some(cut) = p.rfind('/') {
                p = &p[..cut];
                prefixes.insert(p);
            }
        }
        let mut cases = Vec::with_capacity(tests.len());
        for t in &tests {
            let status = t.status.unwrap_or(Status::Errored);
            let mut tc = TestCase::new(suite.map(str::to_owned), t.name.clone(), status);
            tc.duration = t.duration;
            tc.parent = prefixes.contains(t.name.as_str());
            let mut p = t.name.as_str();
            while let Some(cut) = p.rfind('/') {
                p = &p[..cut];
                if names.contains(p) {
                    break;
                }
            }
            if t.name.contains('/') {
                let anc = if names.contains(p) {
                    p
                } else {
                    t.name.rsplit_once('/').map_or(p, |(a, _)| a)
                };
                tc.parent_id = Some(TestCase::make_id(suite, anc));
            }
            if status != Status::Passed {
                let d = describe(&t.output, status == Status::Failed);
                tc.message = d.message;
                tc.file = d.file;
                tc.line = d.line;
                tc.expected = d.expected;
                tc.actual = d.actual;
            }
            if !t.output.is_empty() {
                tc.output = Some(t.output.clone());
            }
            cases.push(tc);
        }
        for tc in cases {
            self.sink.test_finished(tc);
        }
    }

    fn finish(mut self) {
        self.flush_pending(0);
        if self.reports > 0 && self.runs == 0 {
            self.sink.coded_warning(
                Code::ResultsNotListed,
                "no `=== RUN` lines: go test ran without -v, so passing tests are not listed"
                    .into(),
            );
        }
        for (pkg, text) in std::mem::take(&mut self.builds) {
            let first = text.lines().next().unwrap_or("").to_owned();
            self.sink.coded_warning(
                Code::OutputUnattributed,
                format!("build output for `{pkg}` without a package line: {first}"),
            );
        }
        let b = &self.block;
        if !b.active && b.done.is_empty() && b.open.is_empty() {
            return;
        }
        if b.binary_done {
            // A test binary run directly (`pkg.test -test.v`) ends with PASS/FAIL and no package.
            self.end_block(None, None);
            return;
        }
        // The stream ends inside a package: keep what finished, name what did not.
        let mut b = std::mem::take(&mut self.block);
        let open = std::mem::take(&mut b.open);
        let done = std::mem::take(&mut b.done);
        self.emit(None, done);
        if let Some((d, line)) = b.death.filter(|_| b.death_confirmed) {
            let kind = match d {
                Death::Timeout => ProblemKind::Timeout,
                Death::Crash => ProblemKind::Crash,
            };
            self.problem(Problem::new(kind, line));
        }
        if let Some(p) = missing_results(&open) {
            self.problem(p);
        }
        self.problem(Problem::new(
            ProblemKind::Truncated,
            "the output ends before the test binary's final PASS/FAIL line",
        ));
    }
}
