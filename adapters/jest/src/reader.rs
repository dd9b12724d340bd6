//! The reader for Jest `--json` and Vitest `--reporter=json` documents.
//!
//! The document is read as a stream ([`gapscore_adapter_sdk::json::stream`]): the root's
//! counters and flags are taken whole, and each `testResults[]` entry (a test file) is handed
//! over on its own and parsed with typed, borrowed serde structs (a string is copied only when
//! it has escapes). A file is held whole until its object ends — Jest writes a file's `name`
//! after its `assertionResults` — then its tests go to the sink ([`crate::state`]). Memory
//! therefore holds one test file's entry, never the document. A document cut short keeps every
//! test read before the cut and reports `truncated`; see [`parse`].

use std::fmt;
use std::io::BufRead;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use gapscore_adapter_sdk::json::stream::{self, Position, StreamError, Want};
use gapscore_adapter_sdk::{AdapterError, DeclaredCount, EventSink, InputError};

use crate::assertion::{AssertionSeed, Str};
use crate::declared;
use crate::message::{first_line, strip_ansi};
use crate::state::{FileAcc, State};

/// Reads one Jest or Vitest JSON document held in memory and pushes every test, problem and
/// warning into `sink`: [`parse_reader`] on the bytes, with an error at a byte offset (invalid
/// UTF-8) placed at its line and column.
///
/// A document that ends before it is complete is not an error: the tests of every file read
/// before the cut (and those of the file being read, without their file name when it had not
/// been read yet) are kept, and a `truncated` problem says where the input ends. Any other
/// malformed input is an error with its line and column; the sink may then already hold the
/// tests read before it.
pub fn parse(input: &[u8], sink: &mut dyn EventSink) -> Result<(), InputError> {
    stream::read_slice(input, |r| parse_reader(r, sink))
}

/// Reads one Jest or Vitest JSON document from a stream, in memory bounded by its largest test
/// file entry; see [`parse`]. Invalid UTF-8 is placed by its byte offset
/// ([`gapscore_adapter_sdk::Location::Offset`]), which the host turns into a line and column.
pub fn parse_reader<R: BufRead + ?Sized>(
    reader: &mut R,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    let mut st = State::new(sink);
    let mut root = Root {
        st: &mut st,
        seen: false,
        jest_key: false,
    };
    match stream::visit(reader, Want::Descend, &mut root) {
        Ok(outcome) => {
            match outcome.truncated_at() {
                None => st.finish_complete(),
                Some(end) => st.finish_truncated(end),
            }
            Ok(())
        }
        Err(StreamError::Empty) => Err(InputError::Empty(
            "empty file: expected a Jest or Vitest JSON document".into(),
        )
        .into()),
        Err(e) => Err(e.into()),
    }
}

/// The root object's members: what the reader wants of each.
struct Root<'a, 's> {
    st: &'a mut State<'s>,
    /// `testResults` was met.
    seen: bool,
    /// The member being read is one only Jest writes; it counts once the value is read whole.
    jest_key: bool,
}

impl Root<'_, '_> {
    /// The last member's value was read: a key only Jest writes counts now.
    fn member_read(&mut self) {
        if std::mem::take(&mut self.jest_key) {
            self.st.jest_keys = true;
        }
    }
}

impl stream::Visitor for Root<'_, '_> {
    // `element` parses each element whole with serde_json, which judges its syntax.
    fn parses_elements(&self) -> bool {
        true
    }

    fn member(&mut self, path: &[String], key: &str) -> Want {
        self.member_read();
        if !path.is_empty() {
            return Want::Skip;
        }
        match key {
            "testResults" => {
                self.seen = true;
                Want::Elements
            }
            "numTotalTests"
            | "numFailedTests"
            | "numPendingTests"
            | "numTodoTests"
            | "numTotalTestSuites"
            | "numFailedTestSuites"
            | "success"
            | "snapshot" => Want::Whole,
            "numRuntimeErrorTestSuites" | "wasInterrupted" => {
                self.jest_key = true;
                Want::Whole
            }
            "openHandles" => {
                self.jest_key = true;
                Want::Skip
            }
            _ => Want::Skip,
        }
    }

    fn element(&mut self, _: &[String], element: stream::Value<'_>) -> Result<(), StreamError> {
        let mut file = FileAcc::default();
        let mut de = serde_json::Deserializer::from_str(element.text);
        let seed = FileSeed {
            st: &mut *self.st,
            file: &mut file,
        };
        match seed.deserialize(&mut de) {
            Ok(()) => Ok(()),
            // The file the input ended in: its tests read before the cut are kept.
            Err(e) if e.is_eof() && !element.complete => {
                self.st.close_file(&mut file, false);
                Ok(())
            }
            Err(e) => Err(element.json_error(&e).into()),
        }
    }

    fn whole(&mut self, path: &[String], value: stream::Value<'_>) -> Result<(), StreamError> {
        let mut de = serde_json::Deserializer::from_str(value.text);
        let h = &mut self.st.header;
        let r = match path {
            // Not an object, or `testResults` not an array: refused in the reader's words.
            [] => de.deserialize_map(Shape(ROOT)),
            [k] if k == "testResults" => de.deserialize_seq(Shape(FILES)),
            [k] => match k.as_str() {
                "numTotalTests" => Count::deserialize(&mut de).map(|c| h.counts.total = c.0),
                "numFailedTests" => Count::deserialize(&mut de).map(|c| h.counts.failed = c.0),
                "numPendingTests" => Count::deserialize(&mut de).map(|c| h.counts.pending = c.0),
                "numTodoTests" => Count::deserialize(&mut de).map(|c| h.counts.todo = c.0),
                "numTotalTestSuites" => {
                    Count::deserialize(&mut de).map(|c| h.counts.total_suites = c.0)
                }
                "numFailedTestSuites" => Option::deserialize(&mut de).map(|n| h.failed_suites = n),
                "numRuntimeErrorTestSuites" => {
                    Option::deserialize(&mut de).map(|n| h.runtime_error_suites = n)
                }
                "success" => Option::deserialize(&mut de).map(|b| h.success = b),
                "wasInterrupted" => Option::deserialize(&mut de).map(|b| h.interrupted = b),
                "snapshot" => Option::<Snapshot>::deserialize(&mut de)
                    .map(|s| h.snapshot_failure = s.and_then(|s| s.failure)),
                _ => Ok(()),
            },
            _ => Ok(()),
        };
        match r {
            Ok(()) => Ok(()),
            // A value the input ended in: nothing more to read of it.
            Err(e) if e.is_eof() && !value.complete => Ok(()),
            Err(e) => Err(value.json_error(&e).into()),
        }
    }

    fn end(&mut self, path: &[String], at: Position) -> Result<(), StreamError> {
        self.member_read();
        if path.is_empty() && !self.seen {
            return Err(InputError::Content {
                location: gapscore_adapter_sdk::Location::LineCol {
                    line: at.line,
                    column: at.column,
                },
                message: "missing `testResults` array".into(),
            }
            .into());
        }
        Ok(())
    }
}

const ROOT: &str = "a JSON object with a `testResults` array (Jest --json or Vitest json)";
const FILES: &str = "`testResults` to be an array of test file objects";

/// A value of the wrong shape, refused with what was expected (a value of the right shape is
/// never given to it).
struct Shape(&'static str);

impl<'de> Visitor<'de> for Shape {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Ok(())
    }
}

#[derive(Deserialize)]
struct Snapshot {
    #[serde(default)]
    failure: Option<bool>,
}

struct FileSeed<'a, 'de, 's> {
    st: &'a mut State<'s>,
    file: &'a mut FileAcc<'de>,
}

impl<'de> DeserializeSeed<'de> for FileSeed<'_, 'de, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FileSeed<'_, 'de, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a test file object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let file = self.file;
        while let Some(key) = map.next_key::<Str<'de>>()? {
            match key.0.as_ref() {
                // `testResults` and `testFilePath`: the raw (unformatted) result a custom
                // reporter may write.
                "assertionResults" | "testResults" => {
                    map.next_value_seed(AssertionsSeed { file: &mut *file })?;
                }
                "name" | "testFilePath" => {
                    if let Some(n) = map.next_value::<Option<Str<'de>>>()? {
                        file.name = Some(n.0);
                    }
                }
                "status" => file.status = map.next_value::<Option<Str<'de>>>()?.map(|s| s.0),
                "message" | "failureMessage" => {
                    if let Some(m) = map.next_value::<Option<Str<'de>>>()?
                        && !m.0.trim().is_empty()
                        && file.message.is_none()
                    {
                        file.message = Some(m.0);
                    }
                }
                "numFailingTests" => file.num_failing = map.next_value::<Count>()?.0,
                "testExecError" => {
                    let v = map.next_value::<Value>()?;
                    file.exec_error = exec_error_text(v);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        self.st.close_file(file, true);
        Ok(())
    }
}

/// A `testExecError` (`{message, stack}` or a string) as text; `None` for null.
fn exec_error_text(v: Value) -> Option<String> {
    let text = match v {
        Value::Null => return None,
        Value::String(s) => s,
        Value::Object(mut o) => match (o.remove("message"), o.remove("stack")) {
            (Some(Value::String(m)), _) if !m.trim().is_empty() => m,
            (_, Some(Value::String(s))) if !s.trim().is_empty() => s,
            _ => Value::Object(o).to_string(),
        },
        other => other.to_string(),
    };
    let text = strip_ansi(&text).into_owned();
    Some(if first_line(&text).is_empty() {
        "(no message)".to_owned()
    } else {
        text
    })
}

struct AssertionsSeed<'a, 'de> {
    file: &'a mut FileAcc<'de>,
}

impl<'de> DeserializeSeed<'de> for AssertionsSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for AssertionsSeed<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`assertionResults` to be an array of test objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(a) = seq.next_element_seed(AssertionSeed(&mut self.file.titles))? {
            self.file.assertions.push(a);
        }
        Ok(())
    }
}

/// A declared count as written ([`declared::count`]).
struct Count(Option<DeclaredCount>);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        declared::count(d).map(Count)
    }
}
