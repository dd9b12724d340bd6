//! The streaming JUnit reader: quick-xml events in, canonical events out, no DOM. Memory holds
//! the testcase being read, one finished testcase of lookahead (to recognise Go parent tests)
//! and, per suite, the name prefixes of Go subtests; it does not grow with the number of tests.

mod case;
mod declared;
mod node;
mod panic;
mod pass;
mod producer;
pub mod split;
mod suite;
mod testcase;
mod xml;

use std::collections::HashSet;

use gapscore_adapter_sdk::{
    AdapterError, Category, EventSink, InputError, Location, Status, TestCase,
};
use quick_xml::events::BytesStart;
use xml::{StartError, attr, attrs, line_col, to_utf8};

/// Failure bodies and captured output beyond this many bytes are cut, with a note (the SDK's
/// cap, [`push_capped`]).
pub use gapscore_adapter_sdk::text::TEXT_CAP;
use gapscore_adapter_sdk::text::push_capped;

#[derive(Debug, Default)]
struct Outcome {
    message: Option<String>,
    kind: Option<String>,
    body: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Failure,
    Error,
    Skipped,
    Attempt,
    SystemOut,
    SystemErr,
    /// An `<error>`/`<failure>` directly under a `<testsuite>`.
    SuiteError,
    /// A `<system-out>` directly under a Go producer's `<testsuite>`.
    SuiteOut,
    Ignore,
}

#[derive(Debug, Default)]
struct Case {
    classname: String,
    name: String,
    file: Option<String>,
    line: Option<u32>,
    time: Option<f64>,
    negative_time: bool,
    // Boxed: most testcases pass, and a small `Case` is cheap to move.
    failure: Option<Box<Outcome>>,
    error: Option<Box<Outcome>>,
    skipped: Option<Box<Outcome>>,
    attempts: Vec<(Status, Outcome)>,
    output: String,
    category: Option<Category>,
    /// `status`/`result` says the test did not run: tst's `disabled`, googletest's `notrun`,
    /// `suppressed` or `skipped` (a skip without a `<skipped>` element).
    not_run: Option<&'static str>,
    /// A `failure="…"` attribute (node `--test`'s JUnit reporter) or a failing `status`
    /// (`failed`, `fail`, `error`): the record is failed whatever its children say.
    flagged: Option<String>,
}

#[derive(Debug, Default)]
struct Suite {
    name: Option<String>,
    category: Option<Category>,
    declared: declared::Counts,
    /// What the suite holds, inner suites included (as settled by their own declarations).
    held: declared::Held,
    /// What the suite holds outside its inner suites.
    own: declared::Held,
    /// The start tag has an `id` attribute (go-junit-report's, not gotestsum's).
    has_id: bool,
    /// A `<system-out>` directly under the suite is being read for a Go panic.
    out: panic::PanicScan,
    /// Name prefixes of Go subtests (`TestA` for `TestA/b`): a later `TestA` is their parent.
    prefixes: HashSet<String>,
    crash_reported: bool,
    /// Holds a producer's pseudo-testcase (counted in its declared counts).
    has_pseudo: bool,
    /// The length of the suite path before this suite's name was appended (`None`: there was
    /// no path), so leaving the suite restores it without rebuilding it from every level.
    path_before: Option<usize>,
}

/// The reader's state; `K` is the sink's type (`dyn EventSink`, or a concrete sink when the
/// split reader must look at it).
struct Reading<'a, K: EventSink + ?Sized = dyn EventSink> {
    sink: &'a mut K,
    suites: Vec<Suite>,
    /// The names of `suites` joined by ` > `, kept up to date on every push and pop since every
    /// testcase needs it: appended to and truncated, never rebuilt, so deep nesting stays linear.
    path: Option<String>,
    // Boxed, as are the tests below: a move is a pointer, not a few hundred bytes.
    case: Option<Box<Case>>,
    /// The last case's buffers, reused by the next `<testcase>`.
    spare_case: Option<Box<Case>>,
    /// A delivered test's buffers, reused for the next test (see `testcase.rs`).
    spare_test: Option<Box<TestCase>>,
    target: Target,
    in_properties: bool,
    pending: Option<Box<TestCase>>,
    producer: Option<&'static str>,
    reported_suite_errors: HashSet<String>,
    /// gotestsum `--rerun-fails` writes every run of a test as its own testcase in the package's
    /// suite, a failure first. Failed runs wait here until the suite ends: a later run of the
    /// same test takes them as earlier attempts (flaky when it passed).
    reruns: Vec<TestCase>,
    /// The suite-level `<error>`/`<failure>` being read.
    suite_error: Option<Outcome>,
    /// The root `<testsuites>`'s declared counts, and what its top-level suites settled.
    root_declared: declared::Counts,
    root_held: declared::Held,
    /// Every record of the file, for the footer.
    file_held: declared::Held,
    /// Every suite of the file, for node's footer (which counts a test with subtests, written
    /// as a suite, among its tests).
    file_suites: declared::Suites,
    /// node's footer comments.
    footer: declared::Footer,
    any_pseudo: bool,
    /// gotestsum's `TestMain` pseudo-testcases: its root counts each in `failures=` and again
    /// in `errors=`.
    counted_twice: u64,
}

/// What the reader carries from one top-level suite to the next, besides counts: equal
/// values here, at the same byte between top-level suites, mean the rest of the file is read
/// the same way (the split reader, [`split`], checks it).
#[derive(Debug, Clone, PartialEq)]
struct Boundary {
    producer: Option<&'static str>,
    reported_suite_errors: HashSet<String>,
    root_declared: declared::Counts,
    target: Target,
    in_properties: bool,
}

/// What is left when the last event has been read: the root's check and the producer, said
/// after every test (see [`Ending::close`]).
#[derive(Debug, Clone, PartialEq)]
struct Ending {
    producer: Option<&'static str>,
    root_declared: declared::Counts,
    root_held: declared::Held,
    file_held: declared::Held,
    file_suites: declared::Suites,
    footer: declared::Footer,
    any_pseudo: bool,
    /// gotestsum's `TestMain` pseudo-testcases: its root counts each in `failures=` and again
    /// in `errors=`.
    counted_twice: u64,
}

impl<'a, K: EventSink + ?Sized> Reading<'a, K> {
    fn new(sink: &'a mut K) -> Self {
        Reading {
            sink,
            suites: Vec::new(),
            path: None,
            case: None,
            spare_case: None,
            spare_test: None,
            target: Target::Ignore,
            in_properties: false,
            pending: None,
            producer: None,
            reported_suite_errors: HashSet::new(),
            reruns: Vec::new(),
            suite_error: None,
            root_declared: declared::Counts::default(),
            root_held: declared::Held::default(),
            file_held: declared::Held::default(),
            file_suites: declared::Suites::default(),
            footer: declared::Footer::default(),
            any_pseudo: false,
            counted_twice: 0,
        }
    }

    /// A reader that goes on from a boundary between top-level suites, with none of the
    /// counts before it.
    fn resume(sink: &'a mut K, b: &Boundary) -> Self {
        let mut r = Reading::new(sink);
        r.producer = b.producer;
        r.reported_suite_errors.clone_from(&b.reported_suite_errors);
        r.root_declared.clone_from(&b.root_declared);
        r.target = b.target;
        r.in_properties = b.in_properties;
        r
    }

    /// The state to carry, when nothing is open or held back (between top-level suites).
    fn boundary(&self) -> Option<Boundary> {
        let idle = self.suites.is_empty()
            && self.path.is_none()
            && self.case.is_none()
            && self.pending.is_none()
            && self.reruns.is_empty()
            && self.suite_error.is_none();
        idle.then(|| Boundary {
            producer: self.producer,
            reported_suite_errors: self.reported_suite_errors.clone(),
            root_declared: self.root_declared.clone(),
            target: self.target,
            in_properties: self.in_properties,
        })
    }

    /// Delivers what is held back and hands back the sink with what the end needs.
    fn into_ending(mut self) -> (Ending, &'a mut K) {
        self.flush();
        let ending = Ending {
            producer: self.producer,
            root_declared: std::mem::take(&mut self.root_declared),
            root_held: self.root_held,
            file_held: self.file_held,
            file_suites: self.file_suites,
            footer: std::mem::take(&mut self.footer),
            any_pseudo: self.any_pseudo,
            counted_twice: self.counted_twice,
        };
        (ending, self.sink)
    }
}

impl<K: EventSink + ?Sized> Reading<'_, K> {
    fn suite_path(&self) -> Option<String> {
        self.path.clone()
    }

    /// Enters a suite: its name is appended to the path.
    fn push_suite(&mut self, mut s: Suite) {
        s.path_before = self.path.as_ref().map(String::len);
        if let Some(name) = s.name.as_deref() {
            match self.path.as_mut() {
                Some(p) => {
                    p.push_str(" > ");
                    p.push_str(name);
                }
                None => self.path = Some(name.to_owned()),
            }
        }
        self.suites.push(s);
    }

    /// Leaves the innermost suite: the path is cut back to what it was before it.
    fn pop_suite(&mut self) -> Option<Suite> {
        let s = self.suites.pop()?;
        match s.path_before {
            Some(len) => {
                if let Some(p) = self.path.as_mut() {
                    p.truncate(len);
                }
            }
            None => self.path = None,
        }
        Some(s)
    }

    /// True inside an element whose text is kept.
    fn wants_text(&self) -> bool {
        match self.target {
            Target::SuiteError | Target::SuiteOut => true,
            Target::Ignore => false,
            _ => self.case.is_some(),
        }
    }

    fn text(&mut self, t: &str) {
        match self.target {
            Target::SuiteError => {
                if let Some(o) = self.suite_error.as_mut() {
                    push_capped(&mut o.body, t);
                }
                return;
            }
            Target::SuiteOut => {
                if let Some(s) = self.suites.last_mut() {
                    s.out.feed(t);
                }
                return;
            }
            _ => {}
        }
        let Some(case) = self.case.as_mut() else {
            return;
        };
        match self.target {
            Target::Failure => {
                if let Some(o) = case.failure.as_mut() {
                    push_capped(&mut o.body, t);
                }
            }
            Target::Error => {
                if let Some(o) = case.error.as_mut() {
                    push_capped(&mut o.body, t);
                }
            }
            Target::Skipped => {
                if let Some(o) = case.skipped.as_mut() {
                    push_capped(&mut o.body, t);
                }
            }
            Target::Attempt => {
                if let Some((_, o)) = case.attempts.last_mut() {
                    push_capped(&mut o.body, t);
                }
            }
            Target::SystemOut | Target::SystemErr => {
                push_capped(&mut case.output, t);
            }
            Target::SuiteError | Target::SuiteOut | Target::Ignore => {}
        }
    }

    fn start(&mut self, e: &BytesStart<'_>, empty: bool) -> Result<(), StartError> {
        let name = e.local_name();
        match name.as_ref() {
            "testsuites" => {
                let [root_name, tests, failures, errors, skipped, disabled] = attrs(
                    e,
                    ["name", "tests", "failures", "errors", "skipped", "disabled"],
                )?;
                if self.suites.is_empty() && self.root_declared == declared::Counts::default() {
                    self.root_declared =
                        declared::Counts::parse([tests, failures, errors, skipped, disabled]);
                }
                if self.producer.is_none() {
                    self.producer = producer::from_root(root_name.as_deref());
                }
            }
            "testsuite" => {
                let [name, tests, failures, errors, skipped, disabled] = attrs(
                    e,
                    ["name", "tests", "failures", "errors", "skipped", "disabled"],
                )?;
                let mut s = Suite {
                    name,
                    declared: declared::Counts::parse([tests, failures, errors, skipped, disabled]),
                    ..Suite::default()
                };
                let marks = producer::SuiteMarks::of(e)?;
                s.has_id = marks.id;
                if self.producer.is_none() {
                    self.producer = producer::from_suite(s.name.as_deref(), &marks);
                }
                // An empty `<testsuite/>` is entered and left at once, so its declared counts
                // are checked and the enclosing suite stays open.
                self.push_suite(s);
                if empty {
                    self.end_suite();
                }
            }
            "properties" if !empty => self.in_properties = true,
            "property" if self.in_properties => {
                let key = attr(e, "name")?.unwrap_or_default();
                let value = attr(e, "value")?.unwrap_or_default();
                // go-junit-report v2 writes go.version too, in a suite with an `id`.
                if self.producer.is_none() && self.case.is_none() {
                    let in_suite_with_id = self.suites.last().is_some_and(|s| s.has_id);
                    self.producer = match key.as_str() {
                        "go.version" if in_suite_with_id => Some("go-junit-report"),
                        "go.version" => Some("gotestsum"),
                        "SuiteSucceeded" => Some("ginkgo"),
                        "java.version" => Some("maven-surefire"),
                        _ => None,
                    };
                }
                if key.eq_ignore_ascii_case("category") {
                    let cat = Category::parse_lenient(&value).unwrap_or(Category::Unknown);
                    match self.case.as_mut() {
                        Some(c) => c.category = Some(cat),
                        None => {
                            if let Some(s) = self.suites.last_mut() {
                                s.category = Some(cat);
                            }
                        }
                    }
                }
            }
            "testcase" => self.start_case(e, empty)?,
            "failure" | "error" if self.case.is_none() && !self.suites.is_empty() => {
                // A class-level failure (`@BeforeAll`, `@AfterAll`, a class that did not load):
                // a failure of the suite, counted as a `suite-error`.
                let [message, kind] = attrs(e, ["message", "type"])?;
                self.suite_error = Some(Outcome {
                    message,
                    kind,
                    body: String::new(),
                });
                if empty {
                    self.end_suite_error();
                } else {
                    self.target = Target::SuiteError;
                }
            }
            "system-out"
                if self.case.is_none()
                    && !self.suites.is_empty()
                    && !empty
                    && producer::is_go(self.producer) =>
            {
                self.target = Target::SuiteOut;
            }
            tag @ ("failure" | "error" | "skipped") if self.case.is_some() => {
                let [message, kind] = attrs(e, ["message", "type"])?;
                let o = Outcome {
                    message,
                    kind,
                    body: String::new(),
                };
                if let Some(case) = self.case.as_mut() {
                    let (slot, target) = match tag {
                        "failure" => (&mut case.failure, Target::Failure),
                        "error" => (&mut case.error, Target::Error),
                        _ => (&mut case.skipped, Target::Skipped),
                    };
                    // A second element of the same kind (rare) keeps the first's message.
                    if slot.is_none() {
                        *slot = Some(Box::new(o));
                    }
                    if !empty {
                        self.target = target;
                    }
                }
            }
            tag @ ("flakyFailure" | "flakyError" | "rerunFailure" | "rerunError")
                if self.case.is_some() =>
            {
                let status = if tag.ends_with("Error") {
                    Status::Errored
                } else {
                    Status::Failed
                };
                let o = Outcome {
                    message: attr(e, "message")?,
                    kind: attr(e, "type")?,
                    body: String::new(),
                };
                if let Some(s) = self.suites.last_mut() {
                    s.held.attempts += 1;
                    s.own.attempts += 1;
                }
                self.file_held.attempts += 1;
                if let Some(case) = self.case.as_mut() {
                    case.attempts.push((status, o));
                    if !empty {
                        self.target = Target::Attempt;
                    }
                }
            }
            "system-out" if self.case.is_some() && !empty => self.target = Target::SystemOut,
            "system-err" if self.case.is_some() && !empty => self.target = Target::SystemErr,
            _ => {
                if self.case.is_some() && !empty {
                    self.target = Target::Ignore;
                }
            }
        }
        Ok(())
    }

    fn end(&mut self, name: &str) {
        match name {
            "testsuite" => self.end_suite(),
            "testcase" => self.end_case(),
            "properties" => self.in_properties = false,
            "failure" | "error" if self.target == Target::SuiteError => self.end_suite_error(),
            "system-out" if self.target == Target::SuiteOut => {
                self.target = Target::Ignore;
                self.end_suite_out();
            }
            _ => self.target = Target::Ignore,
        }
    }

    fn end_suite(&mut self) {
        self.flush();
        let Some(mut s) = self.pop_suite() else {
            return;
        };
        let mut settled = s.held;
        if !declared::is_summary_suite(s.name.as_deref()) {
            let name = s.name.as_deref().unwrap_or("(unnamed)");
            let conv = declared::Convention {
                surplus_expected: s.has_pseudo || self.producer == Some("gotestsum"),
                tests_count_reports: self.producer == Some("pytest"),
            };
            let place = format!("testsuite `{name}`");
            let (evidence, held) =
                declared::judge(place, Some(name), &s.declared, s.held, s.own, conv);
            settled = held;
            if let Some(e) = evidence {
                self.sink.evidence(e);
            }
        }
        self.file_suites.count(s.held);
        if let Some(scan) = s.out.finish() {
            self.report_panic(&scan, s.name.clone(), s.crash_reported);
        }
        // Declared counts of an outer suite include the inner ones.
        match self.suites.last_mut() {
            Some(parent) => parent.held.add(settled),
            None => self.root_held.add(settled),
        }
    }

    /// A file cut part way: the suites still open end here, so what their opening tags
    /// declared is judged against what was written before the cut. The testcase cut in the
    /// middle is dropped (the cut itself is the `truncated` problem).
    fn end_open_suites(&mut self) {
        self.case = None;
        self.suite_error = None;
        self.target = Target::Ignore;
        while !self.suites.is_empty() {
            self.end_suite();
        }
    }

    /// A comment: node `--test`'s JUnit reporter writes its run's summary as comments after
    /// the records, outside any testcase.
    fn comment(&mut self, text: &str) {
        if self.case.is_none() && self.producer.is_none_or(|p| p == "node") {
            self.footer.read(text);
        }
    }

    fn end_case(&mut self) {
        self.target = Target::Ignore;
        let Some(case) = self.case.take() else { return };
        // A todo (node writes `<skipped type="todo">` beside the failure of a failing todo) or
        // an xfail is counted among the skips, as node's footer and pytest's skipped= count it.
        let expected_to_fail = case
            .skipped
            .as_ref()
            .is_some_and(|s| matches!(s.kind.as_deref(), Some("todo" | "pytest.xfail")));
        let failed = if expected_to_fail {
            0
        } else {
            u64::from(case.failure.is_some())
                + u64::from(case.error.is_some())
                + u64::from(
                    case.failure.is_none()
                        && case.error.is_none()
                        && case.skipped.is_none()
                        && case.flagged.is_some(),
                )
        };
        let one = declared::Held {
            tests: 1,
            failed,
            skipped: u64::from(case.skipped.is_some() || (failed == 0 && case.not_run.is_some())),
            attempts: 0,
        };
        self.file_held.add(one);
        match self.suites.last_mut() {
            Some(s) => {
                s.held.add(one);
                s.own.add(one);
            }
            None => self.root_held.add(one),
        }
        if self.pseudo_case(&case) {
            self.any_pseudo = true;
            if let Some(s) = self.suites.last_mut() {
                s.has_pseudo = true;
            }
        } else {
            let test = self.finish_case(&case);
            self.emit(test);
        }
        self.spare_case = Some(case);
    }
}

/// Reads a JUnit document held in memory. Errors carry a line and column.
pub fn parse(input: &[u8], sink: &mut dyn EventSink) -> Result<(), AdapterError> {
    let text = to_utf8(input)?;
    parse_stream(text.as_ref(), sink).map_err(|e| match e {
        AdapterError::Input(InputError::Syntax {
            location: Location::Offset(o),
            message,
        }) => AdapterError::Input(InputError::Syntax {
            location: line_col(&text, o as usize),
            message,
        }),
        other => other,
    })
}

/// Reads a JUnit document from a stream with memory that does not grow with it. UTF-16 input
/// (rare) is read whole and re-encoded. Errors carry a byte offset ([`Location::Offset`]).
pub fn parse_reader<K: EventSink + ?Sized>(
    reader: &mut dyn std::io::BufRead,
    sink: &mut K,
) -> Result<(), AdapterError> {
    let head = reader.fill_buf().map_err(AdapterError::io)?;
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        let mut all = Vec::new();
        reader.read_to_end(&mut all).map_err(AdapterError::io)?;
        let text = to_utf8(&all)?;
        return parse_stream(text.as_ref(), sink);
    }
    if head.starts_with(&[0xEF, 0xBB, 0xBF]) {
        reader.consume(3);
    }
    parse_stream(reader, sink)
}

/// The reader proper, over any buffered source (no byte-order mark).
fn parse_stream<R: std::io::BufRead, K: EventSink + ?Sized>(
    source: R,
    sink: &mut K,
) -> Result<(), AdapterError> {
    let mut pass = pass::Pass::new(source, Reading::new(sink), 0);
    pass.run(pass::Until::End)?;
    let (ending, sink) = pass.end();
    ending.close(sink);
    Ok(())
}

/// A seeded generator for the parser's tests of generated input: each call gives a number in
/// `0..n` (xorshift64; the same sequence on every run).
#[cfg(test)]
fn test_rng(mut seed: u64) -> impl FnMut(usize) -> usize {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    }
}
