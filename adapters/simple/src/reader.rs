//! The reader for the spec's simple results format, `{"tests": [{name, status, category, expected,
//! actual, message}]}`, the input of the reference validators.
//!
//! The document is read as a stream (`gapscore_adapter_sdk::json::stream`): each `tests` entry
//! is parsed on its own and pushed into the sink, so memory holds one entry, never the file
//! (nor a `Vec` of its tests). Duplicate keys are refused as the stream reads them.
//!
//! gapscore also reads an optional root `problems` array with the canonical run's keys
//! (`[{"kind": "build-failure", "detail": "...", "suite": "..."}]`), so the format can carry a
//! suite that did not run; the reference validators ignore the key.

use gapscore_adapter_sdk::Code;
use std::fmt;
use std::io::BufRead;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde_json::Value;

use gapscore_adapter_sdk::json::stream::{self, Position, StreamError, Want};
use gapscore_adapter_sdk::{
    AdapterError, Category, EventSink, InputError, Location, Problem, Status, TestCase,
};

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
    opts: &SimpleOptions,
    sink: &mut dyn EventSink,
) -> Result<(), InputError> {
    stream::read_slice(input, |r| parse_reader(r, opts, sink))
}

/// Reads a simple-format document from a stream, one `tests` entry at a time: memory holds
/// the largest entry (and a `problems` array), never the document. A UTF-8 error is placed
/// by its byte offset, which the host (or [`parse`]) turns into a line and a column.
pub fn parse_reader<R: BufRead + ?Sized>(
    reader: &mut R,
    _opts: &SimpleOptions,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    let mut root = Root {
        sink,
        seen: false,
        in_tests: false,
        index: 0,
        cut: None,
    };
    let mut tail = stream::Tail::new(reader);
    match stream::visit(&mut tail, Want::Descend, &mut root) {
        Ok(outcome) => match outcome.truncated_at() {
            None => Ok(()),
            Some(end) => Err(eof_error(end, root.cut, root.in_tests, tail.last()).into()),
        },
        Err(StreamError::Empty) => Err(InputError::Empty(
            "empty file: expected a JSON object with a `tests` array".into(),
        )
        .into()),
        // In serde_json's words, as the reader read a text in memory said it.
        Err(StreamError::InvalidUtf8 { at }) => Err(InputError::Syntax {
            location: Location::Offset(at.offset),
            message: "invalid unicode code point".into(),
        }
        .into()),
        Err(e) => Err(e.into()),
    }
}

/// The error for input that ends inside the document, placed where serde_json places it: at
/// the input's end (a cut value's text stops before a character the cut split, so its own
/// parse would place the end a byte early), in serde_json's words for what was left open: the
/// cut value's own, or, between values, what the last bytes say (every value but the root and
/// `tests` is handed over whole, so the input ends in one of those two, or in a key).
fn eof_error(
    end: Position,
    cut: Option<&'static str>,
    in_tests: bool,
    last: [u8; 2],
) -> InputError {
    let [before, b] = last;
    let message = cut.unwrap_or(match (in_tests, b) {
        (_, b',' | b':') => "EOF while parsing a value",
        (true, _) => "EOF while parsing a list",
        // A key just opened, or one cut part way.
        (false, b'"') if matches!(before, b'{' | b',') => "EOF while parsing a string",
        (false, b'{' | b'}' | b']' | b'"') => "EOF while parsing an object",
        (false, _) => "EOF while parsing a string",
    });
    InputError::Syntax {
        location: Location::LineCol {
            line: end.line,
            column: end.column.max(1),
        },
        message: message.into(),
    }
}

/// serde_json's words for the construct a cut text ends in.
fn eof_words(e: &serde_json::Error) -> &'static str {
    let words = e.to_string();
    [
        "EOF while parsing a list",
        "EOF while parsing an object",
        "EOF while parsing a string",
        "EOF while parsing a value",
    ]
    .into_iter()
    .find(|w| words.starts_with(w))
    .unwrap_or("EOF while parsing a value")
}

/// A value's typed parse: an error is refused at its place, unless the value is the one the
/// input was cut in and the parse met the cut, which [`parse_reader`] reports at the end.
fn parsed<'t, T: Deserialize<'t>>(
    value: &stream::Value<'t>,
    cut: &mut Option<&'static str>,
) -> Result<Option<T>, StreamError> {
    match serde_json::from_str(value.text) {
        Ok(t) => Ok(Some(t)),
        Err(e) if !value.complete && e.is_eof() => {
            *cut = Some(eof_words(&e));
            Ok(None)
        }
        Err(e) => Err(value.json_error(&e).into()),
    }
}

/// What the root object's members are wanted for, and the tests read so far.
struct Root<'a> {
    sink: &'a mut dyn EventSink,
    seen: bool,
    /// The last member opened was `tests` (an input ending now ends inside its array).
    in_tests: bool,
    index: usize,
    /// serde_json's words for the value the input was cut in.
    cut: Option<&'static str>,
}

impl stream::Visitor for Root<'_> {
    // `element` parses each element whole with serde_json, which judges its syntax.
    fn parses_elements(&self) -> bool {
        true
    }

    fn member(&mut self, _path: &[String], key: &str) -> Want {
        self.in_tests = key == "tests";
        match key {
            "tests" => {
                // A second `tests` is a duplicate key, refused by the stream before its value.
                self.seen = true;
                Want::Elements
            }
            // Other members whole too, so that a cut inside one is told in its own words.
            _ => Want::Whole,
        }
    }

    fn element(&mut self, _path: &[String], element: stream::Value<'_>) -> Result<(), StreamError> {
        let Some(raw) = parsed::<RawTest<'_>>(&element, &mut self.cut)? else {
            return Ok(());
        };
        let test = test_case(raw, self.index, self.sink);
        self.sink.test_finished(test);
        self.index += 1;
        Ok(())
    }

    fn whole(&mut self, path: &[String], value: stream::Value<'_>) -> Result<(), StreamError> {
        let placed = |e: serde_json::Error| StreamError::from(value.json_error(&e));
        match path.first().map(String::as_str) {
            // The root is not an object: refused in the typed reader's words.
            None => {
                let mut de = serde_json::Deserializer::from_str(value.text);
                de.deserialize_map(RootShape).map_err(placed)
            }
            // `tests` is not an array.
            Some("tests") => {
                let mut de = serde_json::Deserializer::from_str(value.text);
                TestsShape.deserialize(&mut de).map_err(placed)?;
                Ok(())
            }
            Some("problems") => {
                let problems = parsed::<Option<Vec<Problem>>>(&value, &mut self.cut)?;
                for p in problems.flatten().unwrap_or_default() {
                    self.sink.problem(p);
                }
                Ok(())
            }
            _ => {
                parsed::<IgnoredAny>(&value, &mut self.cut)?;
                Ok(())
            }
        }
    }

    fn array_end(&mut self, _path: &[String], _at: Position) -> Result<(), StreamError> {
        self.in_tests = false;
        Ok(())
    }

    fn end(&mut self, _path: &[String], at: Position) -> Result<(), StreamError> {
        self.in_tests = false;
        if self.seen {
            return Ok(());
        }
        // serde_json places a map's own error on its closing brace.
        Err(InputError::Content {
            location: Location::LineCol {
                line: at.line,
                column: at.column.max(1),
            },
            message: "missing `tests` array".into(),
        }
        .into())
    }
}

/// The root as the typed reader expects it, for a root that is not an object.
struct RootShape;

impl<'de> Visitor<'de> for RootShape {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object with a `tests` array")
    }
}

/// A test entry as a test case; an unknown category is a warning.
fn test_case(raw: RawTest<'_>, index: usize, sink: &mut dyn EventSink) -> TestCase {
    let mut test = TestCase::new(raw.suite.or(raw.classname), raw.name, raw.status.0);
    if let Some(id) = raw.id {
        test.id = id;
    }
    test.category = match raw.category.as_deref() {
        None | Some("") => None,
        Some(c) => match Category::parse_lenient(c) {
            Some(cat) => Some(cat),
            None => {
                sink.coded_warning(
                    Code::UnknownValueIgnored,
                    format!(
                        "tests[{index}] `{}`: unknown category `{c}`, counted as unknown",
                        test.name
                    ),
                );
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
    test
}

/// `tests` as the typed reader expects it, for a `tests` that is not an array.
struct TestsShape;

impl<'de> DeserializeSeed<'de> for TestsShape {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for TestsShape {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`tests` to be an array of test objects")
    }

    // Only reached for an array the stream did not hand over element by element: none.
    fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<(), A::Error> {
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
