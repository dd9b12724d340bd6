//! One `assertionResults[]` entry as read ([`RawAssertion`], its rarely present [`Extra`]) and
//! the field readers it uses: strings borrowed from the input ([`Str`]), the runner's statuses
//! ([`RawStatus`]), `failureDetails[]` entries ([`Detail`]) and the messages joined as report
//! text. reader.rs turns these into tests; nothing here sees the sink.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// A string borrowed from the input when it has no escapes. (serde's own `Cow<str>` always
/// copies unless the field is marked, which a `Vec` element cannot be.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Str<'a>(pub(crate) Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v))
            }
        }
        d.deserialize_str(V).map(Str)
    }
}

/// Jest's and Vitest's test statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RawStatus {
    Passed,
    Failed,
    Pending,
    Skipped,
    Disabled,
    Todo,
    Focused,
}

impl<'de> Deserialize<'de> for RawStatus {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Str::deserialize(d)?;
        Ok(match s.0.as_ref() {
            "passed" => RawStatus::Passed,
            "failed" => RawStatus::Failed,
            "pending" => RawStatus::Pending,
            "skipped" => RawStatus::Skipped,
            "disabled" => RawStatus::Disabled,
            "todo" => RawStatus::Todo,
            "focused" => RawStatus::Focused,
            other => {
                return Err(de::Error::custom(format!(
                    "unknown test status `{other}` (expected passed, failed, pending, skipped, disabled, todo or focused)"
                )));
            }
        })
    }
}

/// One `assertionResults[]` entry: a test. Kept small (a file's tests wait in a buffer until
/// the file's name is read, and every test is moved a few times): what most tests lack (failure
/// text, retries) sits behind one pointer that passing tests never allocate.
pub(crate) struct RawAssertion<'a> {
    /// The describe blocks, outermost first: a range of the file's title pool
    /// ([`AssertionSeed`]), so that a test's titles cost no allocation of their own.
    pub(crate) ancestors: std::ops::Range<usize>,
    pub(crate) title: Str<'a>,
    pub(crate) full_name: Option<Str<'a>>,
    pub(crate) status: RawStatus,
    /// Milliseconds, when a number.
    pub(crate) duration: Option<f64>,
    pub(crate) line: Option<u32>,
    pub(crate) invocations: u64,
    /// `test.failing(...)`: a test expected to fail.
    pub(crate) failing: bool,
    /// Vitest's task metadata: its presence tells Vitest from Jest.
    pub(crate) meta: bool,
    pub(crate) extra: Option<Box<Extra<'a>>>,
}

#[derive(Default)]
pub(crate) struct Extra<'a> {
    pub(crate) failure_messages: Vec<Str<'a>>,
    pub(crate) details: Option<Values>,
    pub(crate) retry_reasons: Vec<Str<'a>>,
    pub(crate) retry_messages: Vec<Str<'a>>,
    /// `failureDetails` holds at least one entry (the runner's error objects).
    pub(crate) has_details: bool,
}

/// Reads one test; its `ancestorTitles` are appended to the pool of the file being read (kept,
/// with its capacity, from file to file).
pub(crate) struct AssertionSeed<'p, 'a>(pub(crate) &'p mut Vec<Str<'a>>);

impl<'de: 'a, 'a> DeserializeSeed<'de> for AssertionSeed<'_, 'a> {
    type Value = RawAssertion<'a>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<RawAssertion<'a>, D::Error> {
        d.deserialize_map(self)
    }
}

/// `ancestorTitles` (`null` reads as none) appended to the pool; yields where they are in it.
struct TitlesSeed<'p, 'a>(&'p mut Vec<Str<'a>>);

impl<'de: 'a, 'a> DeserializeSeed<'de> for TitlesSeed<'_, 'a> {
    type Value = std::ops::Range<usize>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for TitlesSeed<'_, 'a> {
    type Value = std::ops::Range<usize>;
    // serde's own words for a `Vec`, which this field was read as before.
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(self.0.len()..self.0.len())
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(self.0.len()..self.0.len())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let start = self.0.len();
        while let Some(t) = seq.next_element::<Str<'a>>()? {
            self.0.push(t);
        }
        Ok(start..self.0.len())
    }
}

impl<'de: 'a, 'a> Visitor<'de> for AssertionSeed<'_, 'a> {
    type Value = RawAssertion<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a test object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawAssertion<'a>, A::Error> {
        let mut ancestors = 0..0;
        let mut title = None;
        let mut full_name = None;
        let mut status = None;
        let mut duration = None;
        let mut line = None;
        let mut invocations = 0;
        let mut failing = false;
        let mut meta = false;
        let mut extra: Option<Box<Extra<'a>>> = None;
        while let Some(key) = map.next_key::<Str<'de>>()? {
            match key.0.as_ref() {
                "ancestorTitles" => {
                    ancestors = map.next_value_seed(TitlesSeed(&mut *self.0))?;
                }
                "title" => title = Some(map.next_value::<Str<'a>>()?),
                "fullName" => full_name = map.next_value::<Option<Str<'a>>>()?,
                "status" => status = Some(map.next_value::<RawStatus>()?),
                "duration" => duration = map.next_value::<Option<f64>>()?,
                "location" => {
                    line = map
                        .next_value::<Option<Callsite>>()?
                        .and_then(|l| l.line)
                        .and_then(|l| u32::try_from(l).ok());
                }
                "invocations" => invocations = map.next_value::<Option<u64>>()?.unwrap_or(0),
                "failing" => failing = map.next_value::<Option<bool>>()? == Some(true),
                "meta" => meta = map.next_value::<Option<IgnoredAny>>()?.is_some(),
                "failureMessages" => {
                    if let Some(v) = non_empty(map.next_value()?) {
                        extra.get_or_insert_with(Box::default).failure_messages = v;
                    }
                }
                "retryReasons" => {
                    if let Some(v) = non_empty(map.next_value()?) {
                        extra.get_or_insert_with(Box::default).retry_reasons = v;
                    }
                }
                "retryMessages" => {
                    if let Some(v) = non_empty(map.next_value()?) {
                        extra.get_or_insert_with(Box::default).retry_messages = v;
                    }
                }
                "failureDetails" => {
                    let details = map.next_value::<Option<Vec<Detail>>>()?.unwrap_or_default();
                    if !details.is_empty() {
                        let e = extra.get_or_insert_with(Box::default);
                        e.has_details = true;
                        if let Some(v) = details.into_iter().find_map(|d| d.0) {
                            e.details = Some(v);
                        }
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let title = title.ok_or_else(|| de::Error::missing_field("title"))?;
        let status = status.ok_or_else(|| de::Error::missing_field("status"))?;
        Ok(RawAssertion {
            ancestors,
            title,
            full_name,
            status,
            duration,
            line,
            invocations,
            failing,
            meta,
            extra,
        })
    }
}

/// A list of strings (`null` or absent reads as empty), `None` when empty.
pub(crate) fn non_empty(v: Option<Vec<Str<'_>>>) -> Option<Vec<Str<'_>>> {
    v.filter(|v| !v.is_empty())
}

#[derive(Deserialize)]
pub(crate) struct Callsite {
    #[serde(default)]
    line: Option<u64>,
}

/// The values a `failureDetails[]` entry's `matcherResult` states, as report text.
#[derive(Debug, Default)]
pub(crate) struct Values {
    pub(crate) expected: Option<String>,
    pub(crate) actual: Option<String>,
}

/// A `failureDetails[]` entry: whatever the runner serialised for the error (an object, often
/// `{}`); only `matcherResult.expected` / `.actual` are read, anything else is passed over.
pub(crate) struct Detail(Option<Values>);

impl<'de> Deserialize<'de> for Detail {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DetailVisitor)
    }
}

pub(crate) struct DetailVisitor;

impl<'de> Visitor<'de> for DetailVisitor {
    type Value = Detail;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Detail, A::Error> {
        let mut values = None;
        while let Some(key) = map.next_key::<Str<'de>>()? {
            if key.0 == "matcherResult" && values.is_none() {
                let m = map.next_value::<Option<MatcherResult>>()?;
                values = m.map(|m| Values {
                    expected: m.expected.and_then(text),
                    actual: m.actual.and_then(text),
                });
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Detail(
            values.filter(|v| v.expected.is_some() || v.actual.is_some()),
        ))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Detail, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Detail(None))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Detail, E> {
        Ok(Detail(None))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Detail, E> {
        Ok(Detail(None))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Detail, E> {
        Ok(Detail(None))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Detail, E> {
        Ok(Detail(None))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Detail, E> {
        Ok(Detail(None))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Detail, E> {
        Ok(Detail(None))
    }
}

#[derive(Deserialize)]
pub(crate) struct MatcherResult {
    #[serde(default)]
    expected: Option<Value>,
    #[serde(default)]
    actual: Option<Value>,
}

/// A JSON value as report text: strings as they are, `null` as absent, anything else as
/// compact JSON (an expected value of `2` reads as "2").
pub(crate) fn text(v: Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}
