//! The reader for Mocha's JSON reporter.
//!
//! One pass of serde_json over the bytes with typed structs whose strings borrow from the input
//! (a string is copied only when it has escapes). Each entry of `tests` goes to the sink as soon
//! as it is read; the side arrays (`pending`, `failures`, `passes`) and `stats` are held against
//! them at the end (private module `lists`). A document cut short keeps every test read before
//! the cut and reports `truncated`; see [`parse`].

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use gapscore_adapter_sdk::{
    Attempt, Category, Code, DeclaredCount, EventSink, InputError, Location, Problem, ProblemKind,
    Producer, Status, TestCase,
};

use crate::lists::{self, Ledger, List, Stats};

/// Reads one Mocha JSON document and pushes every test, problem and warning into `sink`.
///
/// A document that ends before it is complete is not an error: the tests read before the cut
/// are kept and a `truncated` problem says where the input ends. Any other malformed input is
/// an error with its line and column; the sink may then already hold the tests read before it.
pub fn parse(input: &[u8], sink: &mut dyn EventSink) -> Result<(), InputError> {
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    if input.iter().all(u8::is_ascii_whitespace) {
        return Err(InputError::Empty(
            "empty file: expected a Mocha JSON document (mocha --reporter json)".into(),
        ));
    }
    let text = match std::str::from_utf8(input) {
        Ok(t) => t,
        Err(e) => return Err(invalid_utf8(input, &e)),
    };
    // A key given twice in one object says two things about one field: refused, at any depth.
    gapscore_adapter_sdk::json::check_unique_keys(input)?;
    sink.producer(Producer::new("mocha"));
    let mut st = State {
        sink,
        ledger: Ledger::default(),
        stats: None,
        suite_buf: String::new(),
        id_buf: String::new(),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let res = RootSeed { st: &mut st }
        .deserialize(&mut de)
        .and_then(|()| de.end());
    match res {
        Ok(()) => {
            st.finish();
            Ok(())
        }
        Err(e) if e.classify() == serde_json::error::Category::Eof => {
            let detail = format!(
                "the document ends at line {} column {} before it is complete (the runner was killed or the file was cut): {} tests read before the cut are kept",
                e.line(),
                e.column(),
                st.ledger.total()
            );
            st.sink
                .problem(Problem::new(ProblemKind::Truncated, detail));
            Ok(())
        }
        Err(e) => Err(InputError::from_json(&e, 0)),
    }
}

/// Invalid UTF-8: the line and column (in characters) of the first bad byte.
fn invalid_utf8(input: &[u8], e: &std::str::Utf8Error) -> InputError {
    let at = e.valid_up_to();
    let good = input.get(..at).unwrap_or_default();
    let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let column = good
        .get(line_start..)
        .map_or(0, |l| l.iter().filter(|&&b| b & 0xC0 != 0x80).count())
        + 1;
    InputError::Syntax {
        location: Location::LineCol { line, column },
        message: format!("invalid UTF-8 at byte {at}"),
    }
}

/// One entry of `tests` (and of the side arrays, which repeat it).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawTest<'a> {
    #[serde(borrow)]
    title: Cow<'a, str>,
    #[serde(borrow, default)]
    full_title: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    file: Option<Cow<'a, str>>,
    #[serde(default)]
    duration: Option<f64>,
    #[serde(default)]
    current_retry: Option<u64>,
    #[serde(default)]
    err: RawErr,
}

impl RawTest<'_> {
    fn full_title(&self) -> &str {
        self.full_title.as_deref().unwrap_or(&self.title)
    }

    /// The describe blocks: the full title without the test's own title at its end.
    fn describes(&self) -> &str {
        let full = self.full_title();
        full.strip_suffix(&*self.title).map_or("", |d| d.trim_end())
    }

    fn key(&self) -> u64 {
        lists::key(self.file.as_deref(), self.full_title())
    }
}

/// A test's `err`: Mocha writes `{}` for a test without one. Only the fields gapscore shows are
/// kept; every key counts as a sign of failure.
#[derive(Default)]
struct RawErr {
    keys: usize,
    message: Option<String>,
    stack: Option<String>,
    expected: Option<String>,
    actual: Option<String>,
}

impl<'de> Deserialize<'de> for RawErr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawErr;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an error object")
            }
            fn visit_unit<E: de::Error>(self) -> Result<RawErr, E> {
                Ok(RawErr::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<RawErr, E> {
                Ok(RawErr::default())
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawErr, E> {
                Ok(RawErr {
                    keys: 1,
                    message: Some(v.to_owned()),
                    ..RawErr::default()
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawErr, A::Error> {
                let mut err = RawErr::default();
                while let Some(k) = map.next_key::<Cow<'de, str>>()? {
                    err.keys += 1;
                    let slot = match &*k {
                        "message" => &mut err.message,
                        "stack" => &mut err.stack,
                        "expected" => &mut err.expected,
                        "actual" => &mut err.actual,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = match map.next_value::<Value>()? {
                        Value::String(s) => Some(s),
                        Value::Null => None,
                        other => Some(other.to_string()),
                    };
                }
                Ok(err)
            }
        }
        d.deserialize_any(V)
    }
}

struct State<'s> {
    sink: &'s mut dyn EventSink,
    ledger: Ledger,
    stats: Option<Stats>,
    suite_buf: String,
    id_buf: String,
}

impl State<'_> {
    /// The suite path: the file, then the describe blocks (as one title: Mocha joins them with
    /// spaces, so they cannot be told apart), joined by ` > `.
    fn suite(&mut self, t: &RawTest<'_>) -> Option<String> {
        self.suite_buf.clear();
        if let Some(f) = t.file.as_deref().filter(|f| !f.is_empty()) {
            self.suite_buf.push_str(f);
        }
        let describes = t.describes();
        if !describes.is_empty() {
            if !self.suite_buf.is_empty() {
                self.suite_buf.push_str(" > ");
            }
            self.suite_buf.push_str(describes);
        }
        (!self.suite_buf.is_empty()).then(|| self.suite_buf.clone())
    }

    fn test(&mut self, t: RawTest<'_>) {
        let key = t.key();
        let status = if t.err.keys > 0 {
            self.ledger.read_failed(key);
            Status::Failed
        } else if t.duration.is_some() {
            self.ledger.passed += 1;
            Status::Passed
        } else {
            // Mocha writes no duration for a pending test (`it.skip`, `it` without a function).
            self.ledger.read_pending(key);
            Status::Skipped
        };
        let suite = self.suite(&t);
        let name = if t.title.is_empty() {
            t.full_title().to_owned()
        } else {
            t.title.clone().into_owned()
        };
        TestCase::make_id_into(&mut self.id_buf, suite.as_deref(), &name);
        let mut test = TestCase::new(suite, name, status);
        test.id.clone_from(&self.id_buf);
        test.category =
            Category::from_title(&t.title).or_else(|| Category::from_title(t.describes()));
        test.file = t.file.as_deref().map(str::to_owned);
        test.duration = t
            .duration
            .filter(|d| d.is_finite() && *d >= 0.0)
            .map(|ms| ms / 1000.0);
        if status == Status::Failed {
            let err = t.err;
            test.message = err.message.filter(|m| !m.trim().is_empty()).or_else(|| {
                err.stack
                    .as_deref()
                    .and_then(|s| s.lines().next())
                    .map(str::to_owned)
            });
            test.expected = err.expected;
            test.actual = err.actual;
        }
        // `this.retries(n)`: Mocha reports the last attempt; each earlier one failed (a test
        // is retried only after a failure), so a pass after them is flaky, never a clean pass.
        let retries = t.current_retry.unwrap_or(0).min(1000);
        test.attempts = (0..retries).map(|_| Attempt::new(Status::Failed)).collect();
        self.sink.test_finished(test);
    }

    fn listed(&mut self, list: List, t: RawTest<'_>) {
        let key = t.key();
        if list == List::Failures
            && !self.ledger.is_failed_test(key)
            && let Some(hook) = hook_kind(&t.title)
        {
            self.hook(hook, &t);
            return;
        }
        self.ledger.listed(list, key);
    }

    /// A failing hook: a problem of its suite, not a test.
    fn hook(&mut self, hook: &str, t: &RawTest<'_>) {
        self.ledger.hooks += 1;
        let what = t
            .err
            .message
            .as_deref()
            .and_then(|m| m.lines().find(|l| !l.trim().is_empty()))
            .unwrap_or("no message");
        let consequence = if hook.starts_with("before") {
            "the tests it precedes did not run"
        } else {
            "after its tests ran"
        };
        let detail = format!("{} failed ({consequence}): {what}", t.title);
        let mut p = Problem::new(ProblemKind::SuiteError, detail);
        let describes = t.describes();
        let suite = match (
            t.file.as_deref().filter(|f| !f.is_empty()),
            describes.is_empty(),
        ) {
            (Some(f), false) => Some(format!("{f} > {describes}")),
            (Some(f), true) => Some(f.to_owned()),
            (None, false) => Some(describes.to_owned()),
            (None, true) => None,
        };
        if let Some(s) = suite {
            p = p.with_suite(s);
        }
        self.sink.problem(p);
    }

    fn finish(&mut self) {
        let stats = self.stats.take().unwrap_or_default();
        let (problems, evidence, warnings) = self.ledger.judge(stats);
        for p in problems {
            self.sink.problem(p);
        }
        for e in evidence {
            self.sink.evidence(e);
        }
        for w in warnings {
            self.sink.coded_warning(Code::DeclaredCountMismatch, w);
        }
    }
}

/// Mocha's hook titles: `"before each" hook for "x"`, `"after all" hook: name in "suite"`.
fn hook_kind(title: &str) -> Option<&'static str> {
    ["before all", "before each", "after all", "after each"]
        .into_iter()
        .find(|h| {
            title
                .strip_prefix('"')
                .and_then(|t| t.strip_prefix(h))
                .is_some_and(|t| t.starts_with("\" hook"))
        })
}

/// `stats` as written; a count that is not a non-negative integer is kept as text.
#[derive(Deserialize)]
struct RawStats {
    #[serde(default, deserialize_with = "count")]
    tests: Option<DeclaredCount>,
    #[serde(default, deserialize_with = "count")]
    passes: Option<DeclaredCount>,
    #[serde(default, deserialize_with = "count")]
    pending: Option<DeclaredCount>,
    #[serde(default, deserialize_with = "count")]
    failures: Option<DeclaredCount>,
}

fn count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DeclaredCount>, D::Error> {
    let v = Option::<Value>::deserialize(d)?;
    Ok(v.map(|v| match v.as_u64() {
        Some(n) => DeclaredCount::Number(n),
        None => DeclaredCount::Unreadable(v.to_string()),
    }))
}

struct RootSeed<'a, 's> {
    st: &'a mut State<'s>,
}

impl<'de> DeserializeSeed<'de> for RootSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RootSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Mocha JSON document (an object with `stats` and `tests`)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut saw_tests = false;
        let mut unknown: Vec<String> = Vec::new();
        while let Some(k) = map.next_key::<Cow<'de, str>>()? {
            match &*k {
                "stats" => {
                    let s: RawStats = map.next_value()?;
                    self.st.stats = Some(Stats {
                        tests: s.tests,
                        passes: s.passes,
                        pending: s.pending,
                        failures: s.failures,
                    });
                }
                "tests" => {
                    saw_tests = true;
                    map.next_value_seed(ArraySeed {
                        st: self.st,
                        list: None,
                    })?;
                }
                other => match List::from_key(other) {
                    Some(list) => map.next_value_seed(ArraySeed {
                        st: self.st,
                        list: Some(list),
                    })?,
                    None => {
                        map.next_value::<IgnoredAny>()?;
                        unknown.push(other.to_owned());
                    }
                },
            }
        }
        if !saw_tests {
            return Err(de::Error::missing_field("tests"));
        }
        // Mocha's reporter writes exactly stats, tests, pending, failures and passes. Another
        // key is someone else's writing: a forged document printed before Mocha's own can make
        // Mocha's (with its failures) the value of a key no reader looks at.
        if !unknown.is_empty() {
            let names: Vec<String> = unknown.iter().map(|k| format!("`{k}`")).collect();
            self.st.sink.problem(Problem::new(
                ProblemKind::ForeignContent,
                format!(
                    "top-level {} {} Mocha's JSON reporter never writes: something other than Mocha wrote into the document",
                    if unknown.len() == 1 { "key" } else { "keys" },
                    names.join(", "),
                ),
            ));
        }
        Ok(())
    }
}

/// `tests` (`list` is `None`) or one of the side arrays.
struct ArraySeed<'a, 's> {
    st: &'a mut State<'s>,
    list: Option<List>,
}

impl<'de> DeserializeSeed<'de> for ArraySeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ArraySeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of tests")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(t) = seq.next_element::<RawTest<'de>>()? {
            match self.list {
                None => self.st.test(t),
                Some(list) => self.st.listed(list, t),
            }
        }
        Ok(())
    }
}
