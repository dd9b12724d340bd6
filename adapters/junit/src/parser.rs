//! The streaming JUnit reader: quick-xml events in, canonical events out, no DOM. Memory holds
//! the testcase being read, one finished testcase of lookahead (to recognise Go parent tests)
//! and, per suite, the name prefixes of Go subtests; it does not grow with the number of tests.

use std::borrow::Cow;
use std::collections::HashSet;

use gapscore_adapter_sdk::{
    AdapterError, Attempt, Category, EventSink, InputError, Location, Problem, ProblemKind,
    Producer, Status, TestCase,
};
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

/// Failure bodies and captured output beyond this many bytes are cut, with a note (the SDK's
/// cap, [`push_capped`]).
pub use gapscore_adapter_sdk::text::TEXT_CAP;
use gapscore_adapter_sdk::text::push_capped;

/// Re-encodes UTF-16 (with a byte-order mark) as UTF-8 and drops a UTF-8 byte-order mark.
fn to_utf8(input: &[u8]) -> Result<Cow<'_, [u8]>, AdapterError> {
    let utf16 = |be: bool| -> Result<Cow<'_, [u8]>, AdapterError> {
        let units = input[2..].chunks(2).map(|c| {
            let pair = [c[0], *c.get(1).unwrap_or(&0)];
            if be {
                u16::from_be_bytes(pair)
            } else {
                u16::from_le_bytes(pair)
            }
        });
        let mut out = String::with_capacity(input.len() / 2);
        for (i, ch) in char::decode_utf16(units).enumerate() {
            match ch {
                Ok(c) => out.push(c),
                Err(_) => {
                    return Err(AdapterError::Input(InputError::Syntax {
                        location: Location::Offset((i * 2 + 2) as u64),
                        message: "invalid UTF-16 (unpaired surrogate)".into(),
                    }));
                }
            }
        }
        // The declaration still says UTF-16; the text is UTF-8 now.
        Ok(Cow::Owned(
            out.replacen("encoding=\"UTF-16\"", "encoding=\"UTF-8\"", 1)
                .replacen("encoding=\"utf-16\"", "encoding=\"UTF-8\"", 1)
                .into_bytes(),
        ))
    };
    match input {
        [0xEF, 0xBB, 0xBF, rest @ ..] => Ok(Cow::Borrowed(rest)),
        [0xFF, 0xFE, ..] => utf16(false),
        [0xFE, 0xFF, ..] => utf16(true),
        _ => Ok(Cow::Borrowed(input)),
    }
}

/// 1-based line and column of a byte offset.
fn line_col(text: &[u8], offset: usize) -> Location {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    Location::LineCol { line, column }
}

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
}

#[derive(Debug, Default)]
struct Suite {
    name: Option<String>,
    category: Option<Category>,
    declared: [Option<u64>; 4], // tests, failures, errors, skipped
    seen: [u64; 4],
    /// Name prefixes of Go subtests (`TestA` for `TestA/b`): a later `TestA` is their parent.
    prefixes: HashSet<String>,
    crash_reported: bool,
    /// Holds a producer's pseudo-testcase: its declared counts describe those, not tests.
    has_pseudo: bool,
    /// The length of the suite path before this suite's name was appended (`None`: there was
    /// no path), so leaving the suite restores it without rebuilding it from every level.
    path_before: Option<usize>,
}

struct Reading<'a> {
    sink: &'a mut dyn EventSink,
    suites: Vec<Suite>,
    /// The names of `suites` joined by ` > `, kept up to date on every push and pop since every
    /// testcase needs it: appended to and truncated, never rebuilt, so deep nesting stays linear.
    path: Option<String>,
    case: Option<Case>,
    target: Target,
    in_properties: bool,
    pending: Option<TestCase>,
    producer: Option<&'static str>,
    reported_suite_errors: HashSet<String>,
    /// gotestsum `--rerun-fails` writes every run of a test as its own testcase in the package's
    /// suite, a failure first. Failed runs wait here until the suite ends: a later run of the
    /// same test takes them as earlier attempts (flaky when it passed).
    reruns: Vec<TestCase>,
}

fn attr(e: &BytesStart<'_>, key: &str) -> Result<Option<String>, quick_xml::Error> {
    let [v] = attrs(e, [key])?;
    Ok(v)
}

/// An error in an element: from the XML reader, or found by this reader.
#[derive(Debug)]
enum StartError {
    Xml(quick_xml::Error),
    Message(String),
}

impl From<quick_xml::Error> for StartError {
    fn from(e: quick_xml::Error) -> Self {
        StartError::Xml(e)
    }
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // The same words as an undefined entity in text, without quick-xml's byte range.
            StartError::Xml(quick_xml::Error::Escape(
                quick_xml::escape::EscapeError::UnrecognizedEntity(_, name),
            )) => write!(
                f,
                "undefined entity `&{};` (entities declared in a DTD are never expanded)",
                name.escape_debug()
            ),
            StartError::Xml(e) => e.fmt(f),
            StartError::Message(m) => f.write_str(m),
        }
    }
}

fn duplicate_attribute(key: &str) -> StartError {
    StartError::Message(format!("duplicated attribute `{key}`"))
}

/// The values of several attributes in one pass over the element (duplicates still refused).
fn attrs<const N: usize>(
    e: &BytesStart<'_>,
    keys: [&str; N],
) -> Result<[Option<String>; N], quick_xml::Error> {
    let mut out: [Option<String>; N] = std::array::from_fn(|_| None);
    for a in e.attributes() {
        let a = a.map_err(quick_xml::Error::from)?;
        if let Some(i) = keys.iter().position(|k| *k == a.key.as_ref()) {
            out[i] = Some(a.normalized_value(XmlVersion::Implicit1_0)?.into_owned());
        }
    }
    Ok(out)
}

/// `1,234.5` → 1234.5; negative, missing or unreadable → unknown (never a fake zero).
fn seconds(text: Option<&str>) -> (Option<f64>, bool) {
    let Some(t) = text else { return (None, false) };
    let t = t.trim();
    if t.starts_with('-') {
        return (None, true);
    }
    let value = if t.contains(',') {
        t.replace(',', "").parse::<f64>()
    } else {
        t.parse::<f64>()
    };
    (value.ok().filter(|v| v.is_finite()), false)
}

impl Reading<'_> {
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
        self.case.is_some() && self.target != Target::Ignore
    }

    fn text(&mut self, t: &str) {
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
            Target::Ignore => {}
        }
    }

    fn start(&mut self, e: &BytesStart<'_>, empty: bool) -> Result<(), StartError> {
        let name = e.local_name();
        match name.as_ref() {
            "testsuites" => {
                if self.producer.is_none() {
                    self.producer = match attr(e, "name")?.as_deref() {
                        Some("pytest tests") => Some("pytest"),
                        Some("jest tests") => Some("jest-junit"),
                        Some("Mocha Tests") => Some("mocha-junit-reporter"),
                        Some("nextest-run") => Some("cargo-nextest"),
                        _ => None,
                    };
                }
            }
            "testsuite" => {
                let mut s = Suite {
                    name: attr(e, "name")?,
                    ..Suite::default()
                };
                for (i, k) in ["tests", "failures", "errors", "skipped"]
                    .iter()
                    .enumerate()
                {
                    s.declared[i] = attr(e, k)?.and_then(|v| v.trim().parse().ok());
                }
                if self.producer.is_none() {
                    let [id, schema] = attrs(e, ["id", "xsi:noNamespaceSchemaLocation"])?;
                    self.producer = match s.name.as_deref() {
                        Some("pytest") => Some("pytest"),
                        Some(n) if n.ends_with(".bats") => Some("bats"),
                        _ if schema.as_deref().is_some_and(|v| v.contains("surefire")) => {
                            Some("maven-surefire")
                        }
                        // go-junit-report numbers its suites; gotestsum is known by go.version.
                        _ if id.is_some()
                            && s.name
                                .as_deref()
                                .is_some_and(|n| n.contains('/') || n.contains('.')) =>
                        {
                            Some("go-junit-report")
                        }
                        _ => None,
                    };
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
                if key == "go.version" {
                    self.producer = Some("gotestsum");
                } else if key == "java.version" && self.producer.is_none() {
                    self.producer = Some("maven-surefire");
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
            "testcase" => {
                // The hot path (one per test): one pass over the attributes without quick-xml's
                // duplicate tracking (it allocates per element); a duplicate of an attribute we
                // read is still refused. `time` is parsed from the borrowed value.
                let (mut classname, mut name, mut file, mut line) = (None, None, None, None);
                let (mut time, mut negative_time, mut seen_time) = (None, false, false);
                for a in e.attributes().with_checks(false) {
                    let a = a.map_err(quick_xml::Error::from)?;
                    let key = a.key.as_ref();
                    let slot = match key {
                        "classname" => &mut classname,
                        "name" => &mut name,
                        "file" => &mut file,
                        "line" => &mut line,
                        "time" => {
                            if std::mem::replace(&mut seen_time, true) {
                                return Err(duplicate_attribute(key));
                            }
                            let v = a.normalized_value(XmlVersion::Implicit1_0)?;
                            (time, negative_time) = seconds(Some(&v));
                            continue;
                        }
                        _ => continue,
                    };
                    if slot.is_some() {
                        return Err(duplicate_attribute(key));
                    }
                    *slot = Some(a.normalized_value(XmlVersion::Implicit1_0)?.into_owned());
                }
                if self.producer.is_none()
                    && self.suites.is_empty()
                    && classname.as_deref() == Some("test")
                {
                    self.producer = Some("node");
                }
                let case = Case {
                    classname: classname.unwrap_or_default(),
                    name: name.unwrap_or_default(),
                    file,
                    line: line.and_then(|l| l.trim().parse().ok()),
                    time,
                    negative_time,
                    ..Case::default()
                };
                self.case = Some(case);
                if empty {
                    self.end_case();
                }
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
            _ => self.target = Target::Ignore,
        }
    }

    fn end_suite(&mut self) {
        self.flush();
        let popped = self.pop_suite();
        if let Some(s) = popped {
            let labels = ["tests", "failures", "errors", "skipped"];
            for (i, label) in labels.iter().enumerate().filter(|_| !s.has_pseudo) {
                if let Some(d) = s.declared[i]
                    && d != s.seen[i]
                {
                    self.sink.warning(format!(
                        "testsuite `{}` declares {label}=\"{d}\" but holds {}",
                        s.name.as_deref().unwrap_or("(unnamed)"),
                        s.seen[i]
                    ));
                }
            }
            // Declared counts of an outer suite include the inner ones.
            if let Some(parent) = self.suites.last_mut() {
                for i in 0..4 {
                    parent.seen[i] += s.seen[i];
                }
            }
        }
    }

    fn end_case(&mut self) {
        self.target = Target::Ignore;
        let Some(case) = self.case.take() else { return };
        if let Some(s) = self.suites.last_mut() {
            s.seen[0] += 1;
            s.seen[1] += u64::from(case.failure.is_some());
            s.seen[2] += u64::from(case.error.is_some());
            s.seen[3] += u64::from(case.skipped.is_some());
        }
        if self.pseudo_case(&case) {
            if let Some(s) = self.suites.last_mut() {
                s.has_pseudo = true;
            }
            return;
        }
        let test = self.finish_case(case);
        self.emit(test);
    }

    /// Producers write run-level trouble as fake testcases; those become problems, not tests.
    fn pseudo_case(&mut self, case: &Case) -> bool {
        // go-junit-report: a package that does not build.
        if case.name == "[build failed]" || case.name == "[setup failed]" {
            let detail = case
                .error
                .as_ref()
                .or(case.failure.as_ref())
                .map(|o| o.body.trim().to_owned())
                .unwrap_or_default();
            let owner = if case.classname.is_empty() {
                self.suite_path().unwrap_or_default()
            } else {
                case.classname.clone()
            };
            self.sink
                .problem(Problem::new(ProblemKind::BuildFailure, detail).with_suite(owner));
            if self.producer.is_none() {
                self.producer = Some("go-junit-report");
            }
            return true;
        }
        // jest-junit: a test file that did not compile or load (an <error> and a <failure> twin).
        if case.classname == "Test suite failed to run" {
            if self.reported_suite_errors.insert(case.name.clone()) {
                let detail = case
                    .error
                    .as_ref()
                    .or(case.failure.as_ref())
                    .map(|o| {
                        o.message
                            .clone()
                            .unwrap_or_else(|| o.body.trim().to_owned())
                    })
                    .unwrap_or_default();
                self.sink.problem(
                    Problem::new(ProblemKind::SuiteError, first_line(&detail))
                        .with_suite(case.name.clone()),
                );
            }
            return true;
        }
        // pytest: a module that could not be imported or compiled.
        if let Some(err) = &case.error
            && err.message.as_deref() == Some("collection failure")
        {
            let reason = err
                .body
                .lines()
                .rev()
                .find(|l| l.starts_with("E "))
                .map_or_else(|| first_line(&err.body), |l| l[1..].trim().to_owned());
            self.sink.problem(
                Problem::new(ProblemKind::CollectionError, reason).with_suite(case.name.clone()),
            );
            return true;
        }
        false
    }

    fn finish_case(&mut self, mut case: Case) -> TestCase {
        let status = match (&case.skipped, &case.error, &case.failure) {
            (Some(s), _, _) if s.kind.as_deref() == Some("pytest.xfail") => Status::Xfailed,
            (Some(s), _, _) if s.kind.as_deref() == Some("todo") => Status::Todo,
            (_, Some(_), _) => Status::Errored,
            (_, None, Some(_)) => Status::Failed,
            (Some(_), None, None) => Status::Skipped,
            (None, None, None) => Status::Passed,
        };
        // The classname names the test's real container (a module, a package) unless it is
        // empty, repeats the test's own name (jest-junit's default template), or is node's
        // constant `test` (which says nothing, while the suite path holds the describe blocks).
        let classname = case.classname.trim();
        let generic = classname == "test" && self.path.is_some();
        let suite = if generic || classname.is_empty() || classname == case.name.trim() {
            self.path.clone()
        } else {
            Some(std::mem::take(&mut case.classname))
        };
        let mut test = TestCase::new(suite, std::mem::take(&mut case.name), status);
        test.duration = case.time;
        test.file = case.file;
        test.line = case.line;
        test.category = case
            .category
            .or_else(|| self.suites.iter().rev().find_map(|s| s.category));
        let outcome = match status {
            Status::Errored => case.error.as_ref(),
            Status::Failed => case.failure.as_ref(),
            Status::Skipped | Status::Xfailed | Status::Todo => case.skipped.as_ref(),
            _ => None,
        };
        // A todo or xfail keeps the failure's text when its own element has none.
        test.message = outcome
            .and_then(|o| message_of(o))
            .or_else(|| case.failure.as_ref().and_then(|o| message_of(o)))
            .or_else(|| case.error.as_ref().and_then(|o| message_of(o)));
        test.attempts = case
            .attempts
            .iter()
            .map(|(s, o)| {
                let mut a = Attempt::new(*s);
                a.message = message_of(o);
                a
            })
            .collect();
        if !case.output.is_empty() {
            test.output = Some(case.output);
        }
        if case.negative_time && self.producer == Some("gotestsum") {
            self.sink.problem(
                Problem::new(
                    ProblemKind::MissingResults,
                    format!("test `{}` never finished (time=\"-0.000000\")", test.name),
                )
                .with_suite(test.suite.clone().unwrap_or_default()),
            );
        }
        // A Go panic kills the test binary: the tests after it never ran and are absent.
        if let Some(f) = &case.failure
            && f.body.contains("\npanic: ")
            && f.body.contains("goroutine ")
        {
            let crashed = self.suites.last_mut().is_some_and(|s| {
                let first = !s.crash_reported;
                s.crash_reported = true;
                first
            });
            if crashed || self.suites.is_empty() {
                let line = f
                    .body
                    .lines()
                    .find(|l| l.starts_with("panic: "))
                    .unwrap_or("panic");
                self.sink.problem(
                    Problem::new(
                        ProblemKind::Crash,
                        format!("{line} in {}; tests after it did not run", test.name),
                    )
                    .with_suite(test.suite.clone().unwrap_or_default()),
                );
            }
        }
        test
    }

    /// Go parent tests: `TestA` is a parent when a `TestA/...` subtest comes before it (gotestsum)
    /// or right after it (go-junit-report). One finished testcase is held back to see the next.
    fn emit(&mut self, mut test: TestCase) {
        if let Some(pos) = test.name.rfind('/') {
            let parent = &test.name[..pos];
            test.parent_id = Some(TestCase::make_id(test.suite.as_deref(), parent));
            if let Some(s) = self.suites.last_mut() {
                let mut p = test.name.as_str();
                while let Some(i) = p.rfind('/') {
                    p = &p[..i];
                    s.prefixes.insert(p.to_owned());
                }
            }
        }
        if self
            .suites
            .last()
            .is_some_and(|s| !s.prefixes.is_empty() && s.prefixes.contains(&test.name))
        {
            test.parent = true;
        }
        if let Some(mut held) = self.pending.take() {
            let child_of_held = test
                .name
                .strip_prefix(held.name.as_str())
                .is_some_and(|rest| rest.starts_with('/'));
            if child_of_held && test.suite == held.suite {
                held.parent = true;
            }
            self.deliver(held);
        }
        self.pending = Some(test);
    }

    /// Hands a finished test to the sink, merging gotestsum reruns into attempts.
    fn deliver(&mut self, mut test: TestCase) {
        if self.producer != Some("gotestsum") {
            self.sink.test_finished(test);
            return;
        }
        if let Some(i) = self.reruns.iter().position(|t| t.id == test.id) {
            let earlier = self.reruns.remove(i);
            let mut attempts = earlier.attempts.clone();
            let mut attempt = Attempt::new(earlier.status);
            attempt.message = earlier.message.clone();
            attempt.duration = earlier.duration;
            attempts.push(attempt);
            attempts.append(&mut test.attempts);
            test.attempts = attempts;
        }
        if matches!(test.status, Status::Failed | Status::Errored) {
            self.reruns.push(test);
        } else {
            self.sink.test_finished(test);
        }
    }

    fn flush(&mut self) {
        if let Some(held) = self.pending.take() {
            self.deliver(held);
        }
        for t in std::mem::take(&mut self.reruns) {
            self.sink.test_finished(t);
        }
    }
}

fn first_line(s: &str) -> String {
    s.trim().lines().next().unwrap_or("").trim().to_owned()
}

fn message_of(o: &Outcome) -> Option<String> {
    let body = o.body.trim();
    match (
        o.message
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty()),
        body.is_empty(),
    ) {
        (Some(m), true) => Some(m.to_owned()),
        (Some(m), false) if body.starts_with(m) => Some(body.to_owned()),
        (Some(m), false) => Some(format!("{m}\n{body}")),
        (None, false) => Some(body.to_owned()),
        // `<error type="ZeroDivisionError"/>`: the type is all there is to say.
        (None, true) => o
            .kind
            .as_deref()
            .filter(|k| !k.is_empty())
            .map(str::to_owned),
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
pub fn parse_reader(
    reader: &mut dyn std::io::BufRead,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    let head = reader
        .fill_buf()
        .map_err(|e| AdapterError::Read(e.to_string()))?;
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        let mut all = Vec::new();
        reader
            .read_to_end(&mut all)
            .map_err(|e| AdapterError::Read(e.to_string()))?;
        let text = to_utf8(&all)?;
        return parse_stream(text.as_ref(), sink);
    }
    if head.starts_with(&[0xEF, 0xBB, 0xBF]) {
        reader.consume(3);
    }
    parse_stream(reader, sink)
}

/// The reader proper, over any buffered source (no byte-order mark).
fn parse_stream<R: std::io::BufRead>(
    source: R,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    let mut reader = Reader::from_reader(source);
    reader.config_mut().check_end_names = true;
    let mut r = Reading {
        sink,
        suites: Vec::new(),
        path: None,
        case: None,
        target: Target::Ignore,
        in_properties: false,
        pending: None,
        producer: None,
        reported_suite_errors: HashSet::new(),
        reruns: Vec::new(),
    };
    let mut buf = Vec::new();
    let mut depth = 0usize;
    let mut root_seen = false;
    let at = |offset: u64, message: String| -> AdapterError {
        AdapterError::Input(InputError::Syntax {
            location: Location::Offset(offset),
            message,
        })
    };
    loop {
        // Errors of the XML reader point at `error_position`; errors found in an event it read
        // (an undefined entity, a wrong root) point at the start of that event.
        let before = reader.buffer_position();
        let event = match reader.read_event_into(&mut buf) {
            Ok(e) => e,
            Err(e) => {
                let at_end = reader.get_mut().fill_buf().map_or(true, |b| b.is_empty());
                // A document cut off mid-element: keep what was complete, flag the cut.
                if root_seen && at_end {
                    r.flush();
                    r.sink.problem(Problem::new(
                        ProblemKind::Truncated,
                        format!(
                            "file ends at byte {} inside an element ({e})",
                            reader.buffer_position()
                        ),
                    ));
                    break;
                }
                if !root_seen && at_end && reader.buffer_position() == 0 {
                    return Err(AdapterError::Input(InputError::Empty(
                        "empty file: expected a JUnit XML document".into(),
                    )));
                }
                return Err(at(reader.error_position(), e.to_string()));
            }
        };
        let root_check = |name: &str| -> Result<(), AdapterError> {
            if name.contains('\0') {
                // `<\0?\0x\0m\0l\0`: the bytes are UTF-16, and there is no byte-order mark to
                // say so; printing the name would put NUL bytes on the terminal.
                return Err(at(
                    before,
                    "NUL bytes in the first element's name: UTF-16 without a byte-order mark? \
                     (JUnit files are read as UTF-8 unless a UTF-16 byte-order mark says otherwise)"
                        .into(),
                ));
            }
            if !matches!(name, "testsuites" | "testsuite") {
                return Err(at(
                    before,
                    format!(
                        "root element is <{}>, expected <testsuites> or <testsuite>",
                        name.escape_debug()
                    ),
                ));
            }
            Ok(())
        };
        match event {
            Event::Start(e) => {
                if !root_seen {
                    root_check(e.local_name().as_ref())?;
                }
                root_seen = true;
                depth += 1;
                r.start(&e, false)
                    .map_err(|err| at(before, err.to_string()))?;
            }
            Event::Empty(e) => {
                if !root_seen {
                    root_check(e.local_name().as_ref())?;
                }
                root_seen = true;
                r.start(&e, true)
                    .map_err(|err| at(before, err.to_string()))?;
            }
            Event::End(e) => {
                depth = depth.saturating_sub(1);
                r.end(e.local_name().as_ref());
            }
            // Whitespace between elements (one per testcase in most files) is not decoded.
            Event::Text(_) if root_seen && !r.wants_text() => {}
            Event::Text(t) => {
                let s = t.xml_content(XmlVersion::Implicit1_0);
                if !root_seen && !s.trim().is_empty() {
                    return Err(at(before, "text before the root element".into()));
                }
                r.text(&s);
            }
            Event::CData(t) => r.text(&t.xml_content(XmlVersion::Implicit1_0)),
            Event::GeneralRef(e) => {
                let resolved = match e.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => match e.as_ref() {
                        "lt" => "<".into(),
                        "gt" => ">".into(),
                        "amp" => "&".into(),
                        "apos" => "'".into(),
                        "quot" => "\"".into(),
                        other => {
                            return Err(at(
                                before,
                                format!(
                                    "undefined entity `&{other};` (entities declared in a DTD are never expanded)"
                                ),
                            ));
                        }
                    },
                    Err(err) => return Err(at(before, err.to_string())),
                };
                r.text(&resolved);
            }
            Event::Eof => {
                if !root_seen {
                    return Err(AdapterError::Input(if reader.buffer_position() == 0 {
                        InputError::Empty("empty file: expected a JUnit XML document".into())
                    } else {
                        // The place is the end: everything before it was read and was not a root.
                        InputError::Syntax {
                            location: Location::Offset(reader.buffer_position()),
                            message: "end of file before any <testsuites> or <testsuite> element"
                                .into(),
                        }
                    }));
                }
                if depth > 0 {
                    r.flush();
                    r.sink.problem(Problem::new(
                        ProblemKind::Truncated,
                        format!(
                            "file ends at byte {} with {depth} element{} still open",
                            reader.buffer_position(),
                            if depth == 1 { "" } else { "s" }
                        ),
                    ));
                }
                break;
            }
            // Declarations, comments, processing instructions, DTDs: nothing to read, and DTD
            // entity definitions are never expanded.
            _ => {}
        }
        buf.clear();
    }
    r.flush();
    if let Some(p) = r.producer {
        r.sink.producer(Producer::new(p));
    }
    Ok(())
}
