//! The reader for the spec's simple results format, `{"tests": [{name, status, category, expected,
//! actual, message}]}`, the input of the reference validators.
//!
//! The `tests` array is streamed element by element into the sink: a file with a million tests
//! never exists in memory as a `Vec`.
//!
//! gapscore also reads an optional root `problems` array with the canonical run's keys
//! (`[{"kind": "build-failure", "detail": "...", "suite": "..."}]`), so the format can carry a
//! suite that did not run; the reference validators ignore the key.

use gapscore_adapter_sdk::Code;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use gapscore_adapter_sdk::{Category, EventSink, InputError, Problem, Status, TestCase};

/// Options for [`parse`]. None yet; present so adding one is not a breaking change.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SimpleOptions {}

/// Reads a simple-format document and pushes every test into `sink`.
///
/// Errors carry the line and column; on error the sink may already have received the tests
/// before the bad one, so callers that need all-or-nothing collect into a buffer first.
pub fn parse(
    input: &[u8],
    _opts: &SimpleOptions,
    sink: &mut dyn EventSink,
) -> Result<(), InputError> {
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    if input.iter().all(u8::is_ascii_whitespace) {
        return Err(InputError::Empty(
            "empty file: expected a JSON object with a `tests` array".into(),
        ));
    }
    // A key given twice in one object says two things about one field: refused, at any depth.
    gapscore_adapter_sdk::json::check_unique_keys(input)?;
    let mut de = serde_json::Deserializer::from_slice(input);
    RootSeed { sink }
        .deserialize(&mut de)
        .and_then(|()| de.end())
        .map_err(json_error)
}

fn json_error(e: serde_json::Error) -> InputError {
    InputError::from_json(&e, 0)
}

struct RootSeed<'a> {
    sink: &'a mut dyn EventSink,
}

impl<'de> DeserializeSeed<'de> for RootSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RootSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object with a `tests` array")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = false;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "tests" {
                if seen {
                    return Err(de::Error::custom("duplicate key `tests`"));
                }
                seen = true;
                map.next_value_seed(TestsSeed {
                    sink: &mut *self.sink,
                })?;
            } else if key == "problems" {
                for p in map
                    .next_value::<Option<Vec<Problem>>>()?
                    .unwrap_or_default()
                {
                    self.sink.problem(p);
                }
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        if !seen {
            return Err(de::Error::custom("missing `tests` array"));
        }
        Ok(())
    }
}

struct TestsSeed<'a> {
    sink: &'a mut dyn EventSink,
}

impl<'de> DeserializeSeed<'de> for TestsSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for TestsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`tests` to be an array of test objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0usize;
        while let Some(raw) = seq.next_element::<RawTest<'de>>()? {
            let mut test = TestCase::new(raw.suite.or(raw.classname), raw.name, raw.status.0);
            if let Some(id) = raw.id {
                test.id = id;
            }
            test.category =
                match raw.category.as_deref() {
                    None | Some("") => None,
                    Some(c) => match Category::parse_lenient(c) {
                        Some(cat) => Some(cat),
                        None => {
                            self.sink.coded_warning(Code::UnknownValueIgnored, format!(
                            "tests[{index}] `{}`: unknown category `{c}`, counted as unknown",
                            test.name
                        ));
                            Some(Category::Unknown)
                        }
                    },
                };
            test.expected = raw.expected.and_then(text);
            test.actual = raw.actual.and_then(text);
            test.message = raw.message.and_then(text);
            test.duration = raw.duration.filter(|d| d.is_finite() && *d >= 0.0);
            test.file = raw.file;
            test.line = raw.line;
            self.sink.test_finished(test);
            index += 1;
        }
        Ok(())
    }
}

/// A JSON value as report text: strings as they are, `null` as absent, anything else as
/// compact JSON (an expected value of `2` reads as "2").
fn text(v: Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}

#[derive(Deserialize)]
struct RawTest<'a> {
    name: String,
    status: StatusField,
    // Borrowed from the input when it has no escapes: no allocation per test for the category.
    #[serde(default, borrow)]
    category: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    expected: Option<Value>,
    #[serde(default)]
    actual: Option<Value>,
    #[serde(default)]
    message: Option<Value>,
    #[serde(default)]
    suite: Option<String>,
    #[serde(default)]
    classname: Option<String>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    duration: Option<f64>,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    line: Option<u32>,
}

struct StatusField(Status);

impl<'de> Deserialize<'de> for StatusField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
        s.parse::<Status>()
            .map(StatusField)
            .map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FORMAT_ID;
    use gapscore_adapter_sdk::{RunCollector, TestRun};

    fn read(s: &str) -> Result<TestRun, InputError> {
        let mut c = RunCollector::new(FORMAT_ID, None);
        parse(s.as_bytes(), &SimpleOptions::default(), &mut c)?;
        Ok(c.into_run())
    }

    fn err(s: &str) -> String {
        read(s).unwrap_err().to_string()
    }

    #[test]
    fn reads_reference_shape() {
        let run = read(
            r#"{"tests":[{"name":"a","status":"passed","category":"happy_path"},
            {"name":"b","status":"FAILED","category":"security","expected":"x","actual":2,"message":null}]}"#,
        )
        .unwrap();
        assert_eq!(run.tests.len(), 2);
        assert_eq!(run.tests[1].status, Status::Failed);
        assert_eq!(run.tests[1].actual.as_deref(), Some("2"));
        assert_eq!(run.tests[1].message, None);
        assert_eq!(run.tests[1].category, Some(Category::Security));
    }

    #[test]
    fn errors_name_the_place() {
        assert_eq!(
            err("{\"tests\": [\n  {\"name\": \"a\",}\n]}"),
            "2:16: trailing comma"
        );
        assert!(err(r#"{"tests": null}"#).starts_with("1:14: invalid type: null"));
        assert!(err("[1]").contains("expected a JSON object with a `tests` array"));
        assert_eq!(err(r#"{"other": 1}"#), "1:12: missing `tests` array");
        assert!(err(r#"{"tests":[{"status":"passed"}]}"#).contains("missing field `name`"));
        assert!(err(r#"{"tests":[{"name":"a"}]}"#).contains("missing field `status`"));
        assert!(err(r#"{"tests":[{"name":"a","status":"ok"}]}"#).contains("unknown status `ok`"));
        assert!(err(r#"{"tests":[],"tests":[]}"#).contains("duplicate key `tests`"));
        assert!(err(r#"{"tests":[]} x"#).contains("trailing characters"));
        assert!(err("").contains("empty file"));
    }

    #[test]
    fn unknown_category_is_counted_as_unknown_with_a_warning() {
        let run = read(r#"{"tests":[{"name":"a","status":"passed","category":"perf"}]}"#).unwrap();
        assert_eq!(run.tests[0].category, Some(Category::Unknown));
        assert_eq!(run.warnings.len(), 1);
    }

    #[test]
    fn bom_is_accepted() {
        let run = read("\u{feff}{\"tests\":[]}").unwrap();
        assert!(run.tests.is_empty());
    }
}
