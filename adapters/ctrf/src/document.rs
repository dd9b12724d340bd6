//! The CTRF document as read: the typed serde records of `results` (`tool`, `summary`, `extra`)
//! and of each element of `results.tests` (`RawTest`, with its attempts and `extra`), and the
//! field readers they share: strings borrowed from the input where they have no escapes (`BStr`),
//! `suite` as an array or a string (`SuitePath`), a category from `tags` (`TagCategory`),
//! `stdout`/`stderr` lines joined and capped (`Lines`). Also the status mapping: the five CTRF
//! statuses (`CtrfStatus`) and what a status and the tool's `rawStatus` mean in ours (`refine`,
//! `attempt_status`).
//!
//! reader.rs drives these and sends what they read to the sink; nothing here sees the sink. The
//! plain functions the reader calls for each test carry `#[inline]`, so they compile into its
//! codegen unit as they did before the split.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use gapscore_adapter_sdk::text::{TEXT_CAP, push_capped};
use gapscore_adapter_sdk::{Category, ProblemKind, Status};

/// The five CTRF statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CtrfStatus {
    Passed = 0,
    Failed = 1,
    Skipped = 2,
    Pending = 3,
    Other = 4,
}

pub(crate) const CTRF_NAMES: [&str; 5] = ["passed", "failed", "skipped", "pending", "other"];

impl CtrfStatus {
    #[inline]
    pub(crate) fn name(self) -> &'static str {
        CTRF_NAMES[self as usize]
    }
}

impl<'de> Deserialize<'de> for CtrfStatus {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Cow::<'de, str>::deserialize(d)?;
        Ok(match s.as_ref() {
            "passed" => CtrfStatus::Passed,
            "failed" => CtrfStatus::Failed,
            "skipped" => CtrfStatus::Skipped,
            "pending" => CtrfStatus::Pending,
            "other" => CtrfStatus::Other,
            other => {
                // Case differences are tolerated; any other word is an error, never a guess.
                let lower = other.to_ascii_lowercase();
                match CTRF_NAMES.iter().position(|n| *n == lower) {
                    Some(0) => CtrfStatus::Passed,
                    Some(1) => CtrfStatus::Failed,
                    Some(2) => CtrfStatus::Skipped,
                    Some(3) => CtrfStatus::Pending,
                    Some(_) => CtrfStatus::Other,
                    None => {
                        return Err(de::Error::custom(format!(
                            "unknown status `{other}` (expected one of passed, failed, skipped, pending, other)"
                        )));
                    }
                }
            }
        })
    }
}

/// The canonical status of a CTRF status and the tool's `rawStatus`; true when the test was
/// interrupted (the run stopped).
#[inline]
pub(crate) fn refine(status: CtrfStatus, raw: Option<&str>) -> (Status, bool) {
    let raw = raw.map(str::trim).unwrap_or("");
    let is = |w: &str| raw.eq_ignore_ascii_case(w);
    let timed_out = is("timedOut") || is("timeout") || is("timed_out");
    match status {
        // Playwright writes `passed` for a `test.fail()` test that failed as expected, keeping
        // `failed`/`timedOut` in rawStatus: an expected failure, the requirement still unmet.
        CtrfStatus::Passed if is("failed") || timed_out => (Status::Xfailed, false),
        CtrfStatus::Passed => (Status::Passed, false),
        CtrfStatus::Failed if timed_out => (Status::Errored, false),
        CtrfStatus::Failed if is("interrupted") => (Status::Errored, true),
        CtrfStatus::Failed => (Status::Failed, false),
        CtrfStatus::Skipped | CtrfStatus::Pending if is("todo") => (Status::Todo, false),
        CtrfStatus::Skipped | CtrfStatus::Pending => (Status::Skipped, false),
        // jest-ctrf-json-reporter writes `other` for Jest's todo/disabled/focused.
        CtrfStatus::Other if is("todo") => (Status::Todo, false),
        CtrfStatus::Other if is("disabled") || is("skipped") || is("pending") || is("ignored") => {
            (Status::Skipped, false)
        }
        CtrfStatus::Other if is("interrupted") => (Status::Errored, true),
        // Any other `other` is an outcome the tool could not call passed: never a pass.
        CtrfStatus::Other => (Status::Errored, false),
    }
}

#[inline]
pub(crate) fn attempt_status(s: CtrfStatus) -> Status {
    match s {
        CtrfStatus::Passed => Status::Passed,
        CtrfStatus::Failed => Status::Failed,
        CtrfStatus::Skipped | CtrfStatus::Pending => Status::Skipped,
        CtrfStatus::Other => Status::Errored,
    }
}

#[derive(Deserialize)]
pub(crate) struct Tool<'a> {
    #[serde(default, borrow)]
    pub(crate) name: Option<BStr<'a>>,
    #[serde(default)]
    pub(crate) version: Option<AnyText>,
}

/// The counts of `results.summary` (`totals`/`stats` in early reporters); the rest (`passed`,
/// which says nothing the others do not) is ignored.
#[derive(Deserialize)]
pub(crate) struct Summary {
    #[serde(default)]
    pub(crate) tests: Option<Value>,
    #[serde(default)]
    pub(crate) passed: Option<Value>,
    #[serde(default)]
    pub(crate) failed: Option<Value>,
    #[serde(default)]
    pub(crate) skipped: Option<Value>,
    #[serde(default)]
    pub(crate) pending: Option<Value>,
    #[serde(default)]
    pub(crate) other: Option<Value>,
}

impl Summary {
    /// Each count by its key, given or not.
    pub(crate) fn counts(&self) -> [(&'static str, Option<&Value>); 6] {
        [
            ("tests", self.tests.as_ref()),
            ("passed", self.passed.as_ref()),
            ("failed", self.failed.as_ref()),
            ("skipped", self.skipped.as_ref()),
            ("pending", self.pending.as_ref()),
            ("other", self.other.as_ref()),
        ]
    }
}

/// The keys of `results.extra` that carry run-level trouble.
#[derive(Deserialize)]
pub(crate) struct ResultsExtra {
    /// gapscore's own: the problems of the runs it wrote.
    #[serde(default)]
    pub(crate) gapscore_problems: Option<Vec<ProblemIn>>,
    /// playwright-ctrf-json-reporter's run-level errors (global setup, worker crashes).
    #[serde(default)]
    pub(crate) errors: Option<Value>,
}

#[derive(Deserialize)]
pub(crate) struct ProblemIn {
    pub(crate) kind: ProblemKind,
    #[serde(default)]
    pub(crate) detail: String,
    #[serde(default)]
    pub(crate) suite: Option<String>,
    #[serde(default)]
    pub(crate) source: Option<String>,
    /// How many tests the problem stands for (gapscore writes it for a plan mismatch), as
    /// given: validated like the summary's counts.
    #[serde(default)]
    pub(crate) count: Option<Value>,
}

/// One element of `results.tests`, as read: strings borrowed from the input where they hold no
/// escapes. Read by hand rather than derived so that keys are matched as raw bytes: a derived
/// reader checks every key for UTF-8, a fifth of the reader's time on reporter output with
/// twenty keys per test.
pub(crate) struct RawTest<'a> {
    pub(crate) name: Cow<'a, str>,
    pub(crate) status: CtrfStatus,
    pub(crate) duration: Option<f64>,
    /// A non-empty `suite`, written into the buffer the test was read with ([`RawTestSeed`]).
    pub(crate) suite: bool,
    pub(crate) message: Option<Cow<'a, str>>,
    pub(crate) trace: Option<Cow<'a, str>>,
    pub(crate) line: Option<f64>,
    pub(crate) file_path: Option<Cow<'a, str>>,
    pub(crate) raw_status: Option<Cow<'a, str>>,
    pub(crate) tags: Option<TagCategory>,
    pub(crate) retries: Option<f64>,
    pub(crate) flaky: Option<bool>,
    pub(crate) retry_attempts: Option<Vec<RawAttempt<'a>>>,
    pub(crate) stdout: Option<Lines>,
    pub(crate) stderr: Option<Lines>,
    // Boxed: rare outside gapscore's own output, and large; the test is moved a few times.
    pub(crate) extra: Option<Box<TestExtra<'a>>>,
}

/// The keys of a test object that are read; everything else is skipped unparsed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Status,
    Duration,
    Suite,
    Message,
    Trace,
    Line,
    FilePath,
    RawStatus,
    Tags,
    Retries,
    Flaky,
    RetryAttempts,
    Stdout,
    Stderr,
    Extra,
    Ignored,
}

impl Field {
    fn of(key: &[u8]) -> Field {
        match key {
            b"name" => Field::Name,
            b"status" => Field::Status,
            b"duration" => Field::Duration,
            b"suite" => Field::Suite,
            b"message" => Field::Message,
            b"trace" => Field::Trace,
            b"line" => Field::Line,
            b"filePath" => Field::FilePath,
            b"rawStatus" => Field::RawStatus,
            b"tags" => Field::Tags,
            // `retry`, `flake` and `attempts` are the names of early playwright/cypress reporters.
            b"retries" | b"retry" => Field::Retries,
            b"flaky" | b"flake" => Field::Flaky,
            b"retryAttempts" | b"attempts" => Field::RetryAttempts,
            b"stdout" => Field::Stdout,
            b"stderr" => Field::Stderr,
            b"extra" => Field::Extra,
            _ => Field::Ignored,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Status => "status",
            Field::Duration => "duration",
            Field::Suite => "suite",
            Field::Message => "message",
            Field::Trace => "trace",
            Field::Line => "line",
            Field::FilePath => "filePath",
            Field::RawStatus => "rawStatus",
            Field::Tags => "tags",
            Field::Retries => "retries",
            Field::Flaky => "flaky",
            Field::RetryAttempts => "retryAttempts",
            Field::Stdout => "stdout",
            Field::Stderr => "stderr",
            Field::Extra => "extra",
            Field::Ignored => "",
        }
    }
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Field, E> {
                Ok(Field::of(b))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Field, E> {
                Ok(Field::of(s.as_bytes()))
            }
        }
        d.deserialize_bytes(V)
    }
}

/// Reads one test; its suite path goes into the given buffer (kept from test to test, so a
/// test's suite costs no allocation), which is left empty when the test has none.
pub(crate) struct RawTestSeed<'b>(pub(crate) &'b mut String);

impl<'de> DeserializeSeed<'de> for RawTestSeed<'_> {
    type Value = RawTest<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<RawTest<'de>, D::Error> {
        struct V<'b>(&'b mut String);
        impl<'de> Visitor<'de> for V<'_> {
            type Value = RawTest<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a test object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawTest<'de>, A::Error> {
                self.0.clear();
                let mut name = None;
                let mut status = None;
                let mut t = RawTest {
                    name: Cow::Borrowed(""),
                    status: CtrfStatus::Other,
                    duration: None,
                    suite: false,
                    message: None,
                    trace: None,
                    line: None,
                    file_path: None,
                    raw_status: None,
                    tags: None,
                    retries: None,
                    flaky: None,
                    retry_attempts: None,
                    stdout: None,
                    stderr: None,
                    extra: None,
                };
                // Bit per field: a key given twice is an error, as with a derived reader.
                let mut seen = 0u32;
                while let Some(field) = map.next_key::<Field>()? {
                    if field == Field::Ignored {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    }
                    let bit = 1u32 << (field as u32);
                    if seen & bit != 0 {
                        return Err(de::Error::duplicate_field(field.name()));
                    }
                    seen |= bit;
                    match field {
                        Field::Name => name = Some(map.next_value::<BStr<'de>>()?.0),
                        Field::Status => status = Some(map.next_value::<CtrfStatus>()?),
                        Field::Duration => t.duration = map.next_value()?,
                        Field::Suite => t.suite = map.next_value_seed(SuiteSeed(&mut *self.0))?,
                        Field::Message => t.message = opt(map.next_value()?),
                        Field::Trace => t.trace = opt(map.next_value()?),
                        Field::Line => t.line = map.next_value()?,
                        Field::FilePath => t.file_path = opt(map.next_value()?),
                        Field::RawStatus => t.raw_status = opt(map.next_value()?),
                        Field::Tags => t.tags = map.next_value()?,
                        Field::Retries => t.retries = map.next_value()?,
                        Field::Flaky => t.flaky = map.next_value()?,
                        Field::RetryAttempts => t.retry_attempts = map.next_value()?,
                        Field::Stdout => t.stdout = map.next_value()?,
                        Field::Stderr => t.stderr = map.next_value()?,
                        Field::Extra => t.extra = map.next_value()?,
                        Field::Ignored => {}
                    }
                }
                t.name = name.ok_or_else(|| de::Error::missing_field("name"))?;
                t.status = status.ok_or_else(|| de::Error::missing_field("status"))?;
                Ok(t)
            }
        }
        d.deserialize_map(V(self.0))
    }
}

#[derive(Deserialize)]
pub(crate) struct RawAttempt<'a> {
    pub(crate) status: CtrfStatus,
    #[serde(default)]
    pub(crate) duration: Option<f64>,
    #[serde(default, borrow)]
    pub(crate) message: Option<BStr<'a>>,
    #[serde(default, borrow)]
    pub(crate) trace: Option<BStr<'a>>,
}

/// A test's `extra`: the keys gapscore's writer puts there. Only `gapscore_status` and
/// `gapscore_id` are distinctive; the others are read only next to one of them, since another
/// tool may use `category` or `expected` for something else.
#[derive(Deserialize)]
pub(crate) struct TestExtra<'a> {
    #[serde(default, borrow)]
    pub(crate) gapscore_status: Option<BStr<'a>>,
    #[serde(default, borrow)]
    pub(crate) gapscore_id: Option<BStr<'a>>,
    #[serde(default)]
    pub(crate) duration_unknown: Option<Value>,
    #[serde(default)]
    pub(crate) gapscore_parent: Option<Value>,
    #[serde(default, borrow)]
    pub(crate) gapscore_parent_id: Option<BStr<'a>>,
    #[serde(default)]
    pub(crate) category: Option<Value>,
    #[serde(default)]
    pub(crate) expected: Option<Value>,
    #[serde(default)]
    pub(crate) actual: Option<Value>,
}

/// A string borrowed from the input when it has no escapes. (`Cow<str>`'s own `Deserialize`
/// always copies, and `#[serde(borrow)]` does not reach into an `Option`.)
pub(crate) struct BStr<'a>(pub(crate) Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for BStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = BStr<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<BStr<'a>, E> {
                Ok(BStr(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<BStr<'a>, E> {
                Ok(BStr(Cow::Owned(s.to_owned())))
            }
        }
        d.deserialize_str(V(std::marker::PhantomData))
    }
}

impl std::ops::Deref for BStr<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

/// An optional borrowed string field, as a `Cow`.
#[inline]
pub(crate) fn opt<'a>(v: Option<BStr<'a>>) -> Option<Cow<'a, str>> {
    v.map(|b| b.0)
}

/// `suite`: an array from the top-level suite down (the schema), or one string (older
/// reporters, already joined with ` > `), written ` > `-joined into the reader's buffer, which
/// is kept from test to test. Yields whether the path is not empty.
pub(crate) struct SuiteSeed<'b>(pub(crate) &'b mut String);

impl<'de> DeserializeSeed<'de> for SuiteSeed<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SuiteSeed<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`suite` as a string or an array of strings")
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<bool, E> {
        self.0.clear();
        self.0.push_str(s);
        Ok(!s.is_empty())
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        self.0.clear();
        Ok(false)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let path = self.0;
        path.clear();
        while let Some(part) = seq.next_element::<BStr<'de>>()? {
            if part.is_empty() {
                continue;
            }
            if !path.is_empty() {
                path.push_str(" > ");
            }
            path.push_str(&part);
        }
        Ok(!path.is_empty())
    }
}

/// `tags`: the first tag naming a spec category (`security`, `@edge_case`, ...), if any.
/// Playwright tags start with `@`.
pub(crate) struct TagCategory(pub(crate) Option<Category>);

impl<'de> Deserialize<'de> for TagCategory {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TagCategory;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`tags` as an array of strings")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TagCategory, A::Error> {
                let mut found = None;
                while let Some(tag) = seq.next_element::<BStr<'de>>()? {
                    if found.is_none() {
                        let t = tag.trim();
                        let t = t.strip_prefix('@').unwrap_or(t);
                        // Every category name starts with e, h or s (`unknown` does not count)
                        // and is short: other tags skip the allocating lenient parse.
                        let maybe = t.len() <= 20
                            && matches!(
                                t.as_bytes().first(),
                                Some(b'e' | b'E' | b'h' | b'H' | b's' | b'S')
                            );
                        if maybe {
                            found = Category::parse_lenient(t).filter(|c| *c != Category::Unknown);
                        }
                    }
                }
                Ok(TagCategory(found))
            }
        }
        d.deserialize_seq(V)
    }
}

/// `stdout`/`stderr`: an array of lines (the schema) or one string, joined and capped.
pub(crate) struct Lines(pub(crate) String);

impl<'de> Deserialize<'de> for Lines {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Lines;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of strings")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Lines, E> {
                let mut out = String::new();
                push_capped(&mut out, s);
                Ok(Lines(out))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Lines, E> {
                Ok(Lines(String::new()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Lines, A::Error> {
                let mut out = String::new();
                while let Some(line) = seq.next_element::<BStr<'de>>()? {
                    if !out.is_empty() && out.len() < TEXT_CAP {
                        out.push('\n');
                    }
                    push_capped(&mut out, &line);
                }
                Ok(Lines(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// A string, or a number/boolean read as its text (a tool `version` written as `1.2`).
pub(crate) struct AnyText(pub(crate) String);

impl<'de> Deserialize<'de> for AnyText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = AnyText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<AnyText, E> {
                Ok(AnyText(s.to_owned()))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<AnyText, E> {
                Ok(AnyText(n.to_string()))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<AnyText, E> {
                Ok(AnyText(n.to_string()))
            }
            fn visit_f64<E: de::Error>(self, n: f64) -> Result<AnyText, E> {
                Ok(AnyText(n.to_string()))
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<AnyText, E> {
                Ok(AnyText(b.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}
