//! The `go test -json` reader: test2json events, one JSON object per line, streamed.
//!
//! Events are keyed by (Package, Test), so tests of several packages and parallel subtests may
//! interleave freely. Only open packages and their open tests are kept, each test with its
//! output so far (capped at 64 KiB); memory does not grow with the stream.

use gapscore_adapter_sdk::Code;
use std::collections::{HashMap, HashSet};
use std::io::BufRead;

use gapscore_adapter_sdk::lines::LineReader;
use gapscore_adapter_sdk::{
    AdapterError, Declared, EventSink, Evidence, EvidenceSource, InputError, Location, Problem,
    ProblemKind, Producer, ReadCounts, Status, TestCase,
};

use crate::common::{
    Death, Report, SummaryVerb, build_header, death_line, describe, is_framing,
    is_goroutine_header, last_lines, list, list_plain, push_capped, report_line, summary_line,
};
use crate::event::Event;
use crate::rerun::Reruns;

/// A test that has a `run` event and no result yet.
#[derive(Debug)]
struct Open {
    name: String,
    seq: u64,
    output: String,
    has_children: bool,
    parent_id: Option<String>,
    /// Its own `--- FAIL: name` line came in its output: whatever its result event says, the
    /// test failed (the worst of a record's own signals wins).
    said_fail: bool,
}

/// A package whose final event has not come yet.
#[derive(Debug, Default)]
struct Pkg {
    name: String,
    tests: Vec<Open>,
    index: HashMap<String, usize>,
    /// Index of the test the last event was about: consecutive events mostly are.
    hint: usize,
    output: String,
    /// Tests finished in this run of the package, and how many of them failed.
    finished: u64,
    failures: u64,
    /// Parents named by the tests finished in this run (`TestA` for `TestA/b`): a test whose
    /// result comes without a `run` event is paired with its children by name (gotestsum
    /// reruns lack `run` events).
    parents: HashSet<String>,
    /// A second test of an open test's name, started before the first reported: Go's internal
    /// and external test packages (`pkg` and `pkg_test`) may each declare it, and parallel
    /// tests are open together. It takes the name when the first reports.
    twins: Vec<Open>,
    /// A line of the package's output said it failed: go's `FAIL` (the test binary's) or
    /// `FAIL pkg` line.
    output_says_fail: bool,
    /// The first panic-like line seen, and whether a goroutine dump confirmed it.
    death: Option<(Death, String)>,
    death_confirmed: bool,
}

impl Pkg {
    fn new(name: &str) -> Self {
        Pkg {
            name: name.to_owned(),
            ..Pkg::default()
        }
    }

    fn find(&mut self, test: &str) -> Option<usize> {
        if let Some(t) = self.tests.get(self.hint)
            && t.name == test
        {
            return Some(self.hint);
        }
        let i = *self.index.get(test)?;
        self.hint = i;
        Some(i)
    }

    fn remove(&mut self, i: usize) -> Open {
        let open = self.tests.swap_remove(i);
        self.index.remove(&open.name);
        if let Some(moved) = self.tests.get(i) {
            // The last test moved into the freed slot.
            if let Some(slot) = self.index.get_mut(&moved.name) {
                *slot = i;
            }
        }
        // A twin of the same name waiting for it now takes the name.
        if let Some(t) = self.twins.iter().position(|t| t.name == open.name) {
            let twin = self.twins.remove(t);
            self.index.insert(twin.name.clone(), self.tests.len());
            self.tests.push(twin);
        }
        open
    }

    /// Notes a `FAIL` line of the package's own output (the test binary's, or go's `FAIL pkg`;
    /// test2json writes both without a `Test`). A test's output is not read here: a test may
    /// print `FAIL` itself.
    fn note_summary(&mut self, out: &str) {
        let line = out.trim_end();
        if line == "FAIL"
            || summary_line(line)
                .is_some_and(|s| s.verb == SummaryVerb::Fail && s.package == self.name)
        {
            self.output_says_fail = true;
        }
    }

    /// Notes a panic or timeout line, and the goroutine dump that confirms one.
    fn watch(&mut self, line: &str) {
        if self.death.is_none() {
            if let Some(d) = death_line(line) {
                self.death = Some((d, line.trim_end().to_owned()));
            }
        } else if !self.death_confirmed && is_goroutine_header(line) {
            self.death_confirmed = true;
        }
    }
}

/// How many malformed lines are warned about one by one.
const WARN_LINES: u64 = 5;

/// How many twins and parent names one package run keeps (memory stays bounded).
const HOLD_TWINS: usize = 100_000;

/// The message of a test whose `pass` event its own `--- FAIL` line contradicts.
const OVERRULED: &str = "its result event says pass while its own `--- FAIL` line says it failed";

struct Reader<'s> {
    sink: &'s mut dyn EventSink,
    pkgs: Vec<Pkg>,
    seq: u64,
    events: u64,
    problems: u64,
    /// Build output blocks (`# pkg` and the lines after it, or go 1.24 `build-output`), by
    /// package, until a build failure claims them.
    builds: Vec<(String, String)>,
    /// Whether non-JSON lines continue the last build block.
    in_build_block: bool,
    build_reported: HashSet<String>,
    bad_lines: u64,
    stray_lines: u64,
    /// The first stray line's number and text (escaped, at most 200 bytes).
    first_stray: Option<(usize, String)>,
    unknown_actions: HashSet<String>,
    /// Failed tests held until the stream ends: gotestsum may rerun them.
    reruns: Reruns,
    /// Import paths of go 1.24 `build-fail` events, until a package's final event claims one.
    failed_builds: Vec<String>,
}

/// Reads a `go test -json` stream, line by line, with no limit on a line's length.
pub fn parse_reader(
    reader: &mut dyn BufRead,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    let mut r = Reader {
        sink,
        pkgs: Vec::new(),
        seq: 0,
        events: 0,
        problems: 0,
        builds: Vec::new(),
        in_build_block: false,
        build_reported: HashSet::new(),
        bad_lines: 0,
        stray_lines: 0,
        first_stray: None,
        unknown_actions: HashSet::new(),
        reruns: Reruns::default(),
        failed_builds: Vec::new(),
    };
    let mut lines = LineReader::new(reader);
    let mut first_bad: Option<(u64, String)> = None;
    let mut cut: Option<u64> = None;
    let mut saw_content = false;
    while let Some(l) = lines.next_line().map_err(AdapterError::io)? {
        let (at, line_no, complete) = (l.offset(), l.number(), l.complete());
        let line = l.bytes().trim_ascii();
        if line.is_empty() {
            continue;
        }
        saw_content = true;
        if line[0] == b'{' {
            // The fast path reads go's own lines; serde_json reads (or judges) the rest.
            let fast = std::str::from_utf8(line).ok().and_then(crate::fast::event);
            if let Some(ev) = fast {
                r.in_build_block = false;
                r.event(ev);
                continue;
            }
            // A key given twice in one event says two things about one field (`"Action":"fail",
            // "Action":"pass"`): the stream is refused at the second key. (The fast path never
            // reads such a line.)
            if let Some(e) = l.duplicate_key() {
                return Err(e.into());
            }
            match serde_json::from_slice::<Event>(line) {
                Ok(ev) => {
                    r.in_build_block = false;
                    r.event(ev);
                    continue;
                }
                Err(e) => {
                    if !complete {
                        // The last line stops mid-object: the stream was cut.
                        cut = Some(at);
                        break;
                    }
                    r.bad_lines += 1;
                    let e = serde_message(&e);
                    if first_bad.is_none() {
                        first_bad =
                            Some((at, format!("line {line_no} is not a test2json event: {e}")));
                    }
                    // Kept as the output of the package the stream is in, for problem details.
                    if let Some(pkg) = r.pkgs.last_mut() {
                        let text = String::from_utf8_lossy(line);
                        push_capped(&mut pkg.output, &text);
                        push_capped(&mut pkg.output, "\n");
                    }
                    if r.bad_lines <= WARN_LINES {
                        r.sink.coded_warning(Code::UnreadLines, format!(
                            "byte {at}: line {line_no} is not a valid test2json event, kept as output: {e}"
                        ));
                    }
                    continue;
                }
            }
        }
        r.plain_line(line_no, &String::from_utf8_lossy(line));
    }
    if !saw_content {
        return Err(InputError::Empty("empty input: no go test events".into()).into());
    }
    if r.events == 0 && r.problems == 0 {
        let (at, message) = match (first_bad, cut) {
            (Some(bad), _) => bad,
            (None, Some(at)) => (
                at,
                "the stream is cut mid-line before any complete test2json event".into(),
            ),
            (None, None) => (
                0,
                "not go test -json output: no test2json event and no go test package line".into(),
            ),
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
    fn producer(&mut self) {
        if self.events == 0 && self.problems == 0 {
            self.sink.producer(Producer::new("go test"));
        }
    }

    fn problem(&mut self, p: Problem) {
        self.producer();
        self.problems += 1;
        self.sink.problem(p);
    }

    fn pkg_index(&mut self, name: &str) -> usize {
        // Few packages are open at once (go test -p), so a scan beats hashing.
        match self.pkgs.iter().rposition(|p| p.name == name) {
            Some(i) => i,
            None => {
                self.pkgs.push(Pkg::new(name));
                self.pkgs.len() - 1
            }
        }
    }

    fn event(&mut self, ev: Event<'_>) {
        self.producer();
        self.events += 1;
        let pkg_name = ev.package.as_deref().unwrap_or("");
        match (ev.action.as_ref(), ev.test.as_deref()) {
            ("run", Some(test)) => self.run(pkg_name, test),
            ("output", Some(test)) => {
                let out = ev.output.as_deref().unwrap_or("");
                let pi = self.pkg_index(pkg_name);
                let pkg = &mut self.pkgs[pi];
                pkg.watch(out);
                if is_framing(out) {
                    if let Some((_, Report::Fail, name, _)) = report_line(out)
                        && name == test
                        && let Some(i) = pkg.find(test)
                    {
                        pkg.tests[i].said_fail = true;
                    }
                    return;
                }
                match pkg.find(test) {
                    Some(i) => {
                        let t = &mut pkg.tests[i];
                        push_capped(&mut t.output, out);
                    }
                    None => {
                        push_capped(&mut pkg.output, out);
                    }
                }
            }
            ("output", None) => {
                let out = ev.output.as_deref().unwrap_or("");
                let pi = self.pkg_index(pkg_name);
                let pkg = &mut self.pkgs[pi];
                pkg.watch(out);
                pkg.note_summary(out);
                push_capped(&mut pkg.output, out);
            }
            ("pass", Some(test)) | ("bench", Some(test)) => {
                self.finish_test(pkg_name, test, Status::Passed, ev.elapsed)
            }
            ("fail", Some(test)) => self.finish_test(pkg_name, test, Status::Failed, ev.elapsed),
            ("skip", Some(test)) => self.finish_test(pkg_name, test, Status::Skipped, ev.elapsed),
            ("pause" | "cont", _) => {}
            ("start", _) => {
                self.pkg_index(pkg_name);
            }
            ("pass" | "skip" | "fail", None) => {
                let failed = ev.action == "fail";
                self.end_package(pkg_name, failed, ev.failed_build.as_deref());
            }
            ("build-output", _) => {
                let path = ev.import_path.as_deref().unwrap_or(pkg_name);
                let out = ev.output.as_deref().unwrap_or("");
                self.build_text(path, out);
            }
            ("build-fail", _) => {
                // Reported when a package's final event names it (`FailedBuild`), as that
                // package's failure, or at the end if none does: a setup failure's build-fail
                // names the test main (`pkg.test`), its package fail event the package.
                let path = ev.import_path.as_deref().unwrap_or(pkg_name).to_owned();
                if self.failed_builds.len() < 256 && !self.failed_builds.contains(&path) {
                    self.failed_builds.push(path);
                }
            }
            (other, _) => {
                if self.unknown_actions.len() < 16 && self.unknown_actions.insert(other.to_owned())
                {
                    self.sink.coded_warning(
                        Code::UnknownValueIgnored,
                        format!("unknown test2json action `{other}` ignored"),
                    );
                }
            }
        }
    }

    fn run(&mut self, pkg_name: &str, test: &str) {
        let pi = self.pkg_index(pkg_name);
        self.seq += 1;
        let seq = self.seq;
        let pkg = &mut self.pkgs[pi];
        let twin = pkg.find(test).is_some();
        let pkg = &mut self.pkgs[pi];
        // The nearest open ancestor (`TestA` for `TestA/b`) is this subtest's parent.
        let mut parent_id = None;
        let mut p = test;
        while let Some(cut) = p.rfind('/') {
            p = &p[..cut];
            if let Some(i) = pkg.find(p) {
                pkg.tests[i].has_children = true;
                parent_id = Some(TestCase::make_id(suite_of(&pkg.name), p));
                break;
            }
        }
        if parent_id.is_none()
            && let Some(cut) = test.rfind('/')
        {
            parent_id = Some(TestCase::make_id(suite_of(&pkg.name), &test[..cut]));
        }
        let open = Open {
            name: test.to_owned(),
            seq,
            output: String::new(),
            has_children: false,
            parent_id,
            said_fail: false,
        };
        if twin {
            // Started again before the first reported: a second test of the name (`pkg` and
            // `pkg_test` each declare it), not a restart. Its result is the next one of the name.
            if pkg.twins.len() < HOLD_TWINS {
                pkg.twins.push(open);
            }
            return;
        }
        let id = TestCase::make_id(suite_of(&pkg.name), test);
        self.sink.test_started(suite_of(&pkg.name), test, &id);
        let pkg = &mut self.pkgs[pi];
        pkg.index.insert(test.to_owned(), pkg.tests.len());
        pkg.hint = pkg.tests.len();
        pkg.tests.push(open);
    }

    fn finish_test(&mut self, pkg_name: &str, test: &str, status: Status, elapsed: Option<f64>) {
        let pi = self.pkg_index(pkg_name);
        let pkg = &mut self.pkgs[pi];
        let open = match pkg.find(test) {
            Some(i) => pkg.remove(i),
            // A result without a `run` event (older go versions, hand-made streams).
            None => Open {
                name: test.to_owned(),
                seq: 0,
                output: String::new(),
                // Paired with its children by name: they reported before it.
                has_children: pkg.parents.contains(test),
                parent_id: test
                    .rfind('/')
                    .map(|cut| TestCase::make_id(suite_of(&pkg.name), &test[..cut])),
                said_fail: false,
            },
        };
        if let Some(cut) = test.rfind('/') {
            let parent = &test[..cut];
            if let Some(i) = pkg.find(parent) {
                pkg.tests[i].has_children = true;
            }
            if pkg.parents.len() < HOLD_TWINS {
                pkg.parents.insert(parent.to_owned());
            }
        }
        // Its own `--- FAIL` line says worse than a `pass` event: the worse wins.
        let overruled = open.said_fail && status == Status::Passed;
        let status = if overruled { Status::Failed } else { status };
        pkg.finished += 1;
        if status == Status::Failed {
            pkg.failures += 1;
        }
        let mut tc = TestCase::new(suite_of(&pkg.name).map(str::to_owned), open.name, status);
        tc.duration = elapsed.filter(|e| e.is_finite() && *e >= 0.0);
        tc.parent = open.has_children;
        tc.parent_id = open.parent_id;
        if status != Status::Passed {
            let d = describe(&open.output, status == Status::Failed);
            tc.message = match d.message {
                Some(m) if overruled => Some(format!("{OVERRULED}\n{m}")),
                None if overruled => Some(OVERRULED.to_owned()),
                m => m,
            };
            tc.file = d.file;
            tc.line = d.line;
            tc.expected = d.expected;
            tc.actual = d.actual;
        }
        if !open.output.is_empty() {
            tc.output = Some(open.output);
        }
        let pkg = pkg.name.clone();
        self.reruns.finished(&mut *self.sink, &pkg, tc);
    }

    /// A test that will never get its result: errored, with why in the message.
    fn emit_unfinished(&mut self, pkg_name: &str, open: Open, why: &str, benchmark_ok: bool) {
        let status = if benchmark_ok {
            Status::Passed
        } else {
            Status::Errored
        };
        let mut tc = TestCase::new(suite_of(pkg_name).map(str::to_owned), open.name, status);
        tc.parent = open.has_children;
        tc.parent_id = open.parent_id;
        if !benchmark_ok {
            let d = describe(&open.output, false);
            tc.file = d.file;
            tc.line = d.line;
            tc.message = Some(match d.message {
                Some(m) => format!("{why}\n{m}"),
                None => why.to_owned(),
            });
        }
        if !open.output.is_empty() {
            tc.output = Some(open.output);
        }
        self.reruns.finished(&mut *self.sink, pkg_name, tc);
    }

    /// The package's final event: tests still open never finished; a failed package with no
    /// failing test still failed.
    fn end_package(&mut self, pkg_name: &str, failed: bool, failed_build: Option<&str>) {
        let pi = self.pkg_index(pkg_name);
        let mut pkg = self.pkgs.remove(pi);
        let mut open = std::mem::take(&mut pkg.tests);
        pkg.index = HashMap::new();
        open.sort_by_key(|t| t.seq);
        let death = pkg
            .death
            .as_ref()
            .filter(|_| pkg.death_confirmed || !open.is_empty())
            .cloned();
        let mut unfinished = Vec::new();
        for t in open {
            // A benchmark that neither logged nor failed has no result event of its own: it
            // passed when it printed its measurement (or when its package passed).
            let bench_ok =
                t.name.starts_with("Benchmark") && (!failed || t.output.contains("ns/op"));
            let why = match &death {
                Some((Death::Timeout, line)) => {
                    format!("no result: the test binary timed out ({line})")
                }
                Some((Death::Crash, line)) => {
                    format!("no result: the test binary crashed ({line})")
                }
                None => "no result: the test binary exited before the test finished".to_owned(),
            };
            if !bench_ok {
                unfinished.push(t.name.clone());
            }
            self.emit_unfinished(&pkg.name, t, &why, bench_ok);
        }
        // This run of the package is over: a later result of one of its tests is a rerun.
        self.reruns.package_ended(&pkg.name);
        let suite = pkg.name.clone();
        let problems_before = self.problems;
        if let Some((kind, line)) = &death {
            let kind = match kind {
                Death::Timeout => ProblemKind::Timeout,
                Death::Crash => ProblemKind::Crash,
            };
            let detail = match unfinished.as_slice() {
                [] => format!("{line}; tests after it did not run"),
                names => format!(
                    "{line} while {} no result; tests after it did not run",
                    list(names)
                ),
            };
            self.problem(Problem::new(kind, detail).with_suite(suite.clone()));
        } else if !unfinished.is_empty() {
            self.problem(
                Problem::new(
                    ProblemKind::Crash,
                    format!(
                        "the test binary exited while {} no result; tests after it did not run",
                        list(&unfinished)
                    ),
                )
                .with_suite(suite.clone()),
            );
        } else if failed && pkg.failures == 0 {
            let build = failed_build.map(str::to_owned).or_else(|| {
                pkg.output
                    .lines()
                    .filter_map(summary_line)
                    .find(|s| {
                        s.rest.contains("[build failed]") || s.rest.contains("[setup failed]")
                    })
                    .map(|s| s.package.to_owned())
            });
            if let Some(path) = build {
                let line = format!("{suite} [build failed]");
                self.build_failure(&suite, &path, line);
            }
        }
        // The package's final action and its output's `FAIL` lines are evidence beside its
        // records: a failed package whose records show no failure and no problem is judged
        // (exit-status). A skip never fails a Go package, so skips are not passed as
        // explaining one.
        let explained =
            self.problems - problems_before + u64::from(self.build_reported.contains(&suite));
        let says_failed = failed || pkg.output_says_fail;
        let place = if failed {
            format!(
                "package `{suite}`'s final `fail` event (its output ends: {})",
                last_lines(&pkg.output, 5)
            )
        } else if pkg.output_says_fail {
            format!("package `{suite}`'s `FAIL` line (its final event says pass)")
        } else {
            format!("package `{suite}`'s final `pass` event")
        };
        let mut evidence = Evidence::new(EvidenceSource::ExitStatus, place)
            .declaring(Declared::new().run_failed(says_failed))
            .reading(ReadCounts::new(pkg.finished, pkg.failures, 0).with_problems(explained));
        if !suite.is_empty() {
            evidence = evidence.with_scope(suite);
        }
        self.sink.evidence(evidence);
        self.claim_build(failed_build);
    }

    /// A package's final event named a failed build: that `build-fail` event is accounted for.
    fn claim_build(&mut self, failed_build: Option<&str>) {
        if let Some(path) = failed_build {
            self.failed_builds.retain(|p| p != path);
        }
    }

    fn build_text(&mut self, pkg: &str, text: &str) {
        let i = match self.builds.iter().rposition(|(p, _)| p == pkg) {
            Some(i) => i,
            None => {
                if self.builds.len() >= 256 {
                    return;
                }
                self.builds.push((pkg.to_owned(), String::new()));
                self.builds.len() - 1
            }
        };
        let (_, out) = &mut self.builds[i];
        push_capped(out, text);
        if !text.ends_with('\n') {
            push_capped(out, "\n");
        }
    }

    /// A package that does not build; `path` is the failed build's import path (which may be
    /// the package's, a `pkg [pkg.test]` variant, or a dependency's).
    fn build_failure(&mut self, pkg: &str, path: &str, line: String) {
        if !self.build_reported.insert(pkg.to_owned()) {
            return;
        }
        let base = path.split_whitespace().next().unwrap_or(path);
        let mut detail = line;
        // `pkg.test` is the package's test main (a setup failure names it), not a dependency.
        if base.strip_suffix(".test").unwrap_or(base) != pkg {
            detail.push_str(&format!(" (dependency {base} failed to build)"));
        }
        let found = self.builds.iter().position(|(p, _)| p == path).or_else(|| {
            self.builds
                .iter()
                .position(|(p, _)| p.split_whitespace().next() == Some(base))
        });
        if let Some(i) = found {
            let (_, text) = self.builds.remove(i);
            detail.push('\n');
            detail.push_str(text.trim_end());
        }
        self.problem(Problem::new(ProblemKind::BuildFailure, detail).with_suite(pkg.to_owned()));
    }

    /// A line that is not JSON: go's own messages (`FAIL pkg [build failed]`, `# pkg` and
    /// compiler errors when stderr is merged), kept as package output.
    fn plain_line(&mut self, line_no: usize, line: &str) {
        if let Some(s) = summary_line(line) {
            self.in_build_block = false;
            if s.rest.contains("[build failed]") || s.rest.contains("[setup failed]") {
                let pkg = s.package.to_owned();
                self.build_failure(&pkg, &pkg, line.trim_end().to_owned());
            }
            return;
        }
        if let Some(pkg) = build_header(line) {
            let pkg = pkg.to_owned();
            self.build_text(&pkg, line);
            self.in_build_block = true;
            return;
        }
        if self.in_build_block
            && let Some((pkg, _)) = self.builds.last()
        {
            let pkg = pkg.clone();
            self.build_text(&pkg, line);
            return;
        }
        self.stray_lines += 1;
        if self.first_stray.is_none() {
            // At most 200 bytes, control characters escaped: a stray line may be binary (NUL
            // bytes where a crash left a hole) and the warning goes to a terminal.
            let mut s = String::new();
            for c in line.trim_end().chars() {
                if s.len() >= 200 {
                    break;
                }
                if c.is_control() {
                    s.extend(c.escape_default());
                } else {
                    s.push(c);
                }
            }
            self.first_stray = Some((line_no, s));
        }
        // Kept as the output of the package the stream is in, for problem details.
        if let Some(pkg) = self.pkgs.last_mut() {
            pkg.watch(line);
            push_capped(&mut pkg.output, line);
            push_capped(&mut pkg.output, "\n");
        }
    }

    fn finish(mut self, cut: Option<u64>) {
        self.reruns.finish(&mut *self.sink);
        // `build-fail` events no package's final event claimed: each a build failure of its own.
        for path in std::mem::take(&mut self.failed_builds) {
            let base = path.split_whitespace().next().unwrap_or("");
            let pkg = base.strip_suffix(".test").unwrap_or(base).to_owned();
            self.build_failure(&pkg, &path, format!("{pkg} [build failed]"));
        }
        let open: Vec<String> = self.pkgs.iter().map(|p| p.name.clone()).collect();
        // Packages without a final event: their open tests stay started and unfinished, so the
        // Normalizer reports each as missing results.
        for pkg in std::mem::take(&mut self.pkgs) {
            if let Some((d, line)) = pkg.death.as_ref().filter(|_| pkg.death_confirmed) {
                let kind = match d {
                    Death::Timeout => ProblemKind::Timeout,
                    Death::Crash => ProblemKind::Crash,
                };
                self.problem(Problem::new(kind, line.clone()).with_suite(pkg.name.clone()));
            }
        }
        if cut.is_some() || !open.is_empty() {
            let mut detail = match cut {
                Some(at) => format!("the stream is cut mid-line at byte {at}"),
                None => "the stream ends".to_owned(),
            };
            if !open.is_empty() {
                let names: Vec<String> = open.iter().map(|p| format!("`{p}`")).collect();
                detail.push_str(&format!(
                    " before {} reported a result",
                    list_plain(&names, "package", "packages")
                ));
            }
            self.problem(Problem::new(ProblemKind::Truncated, detail));
        }
        let leftovers: Vec<String> = self
            .builds
            .iter()
            .filter(|(p, _)| {
                let base = p.split_whitespace().next().unwrap_or(p);
                !self.build_reported.contains(base)
            })
            .map(|(_, t)| t.lines().next().unwrap_or("").to_owned())
            .collect();
        for first in leftovers {
            self.sink.coded_warning(
                Code::OutputUnattributed,
                format!("build output without a build failure for its package: {first}"),
            );
        }
        if self.stray_lines > 0 {
            let (at, first) = self.first_stray.take().unwrap_or_default();
            self.sink.coded_warning(Code::UnreadLines, format!(
                "{} line(s) are not test2json events, kept as package output (first: line {at}, `{first}`)",
                self.stray_lines
            ));
        }
        if self.bad_lines > WARN_LINES {
            self.sink.coded_warning(
                Code::UnreadLines,
                format!(
                    "{} malformed event lines in all; the first {WARN_LINES} are named above",
                    self.bad_lines
                ),
            );
        }
    }
}

/// serde_json's message with its ` at line 1 column C` (always line 1: one line is parsed)
/// turned into ` (column C)`.
fn serde_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match full.strip_suffix(&suffix) {
        Some(m) => format!("{m} (column {})", e.column()),
        None => full,
    }
}

/// The suite of a package's tests (`None` for the empty package of a bare test2json run).
fn suite_of(pkg: &str) -> Option<&str> {
    (!pkg.is_empty()).then_some(pkg)
}
