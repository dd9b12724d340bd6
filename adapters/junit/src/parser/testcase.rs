//! The hot path, once per test: a `<testcase>` start tag read into the reused [`Case`], and
//! the finished test written into a reused [`TestCase`] that the sink gets borrowed. A passing
//! test costs no allocation once the buffers have grown to the file's longest names.

use std::borrow::Cow;

use gapscore_adapter_sdk::{EventSink, Status, TestCase};
use quick_xml::XmlVersion;
use quick_xml::events::BytesStart;
use quick_xml::events::attributes::Attribute;

use super::xml::{StartError, duplicate_attribute, seconds};
use super::{Case, Reading};

/// An attribute's value as XML defines it (`\t`, `\n`, `\r` as spaces, entities resolved):
/// the raw text, borrowed, unless it holds a `&` or a control character. Most values hold
/// neither, and the check is one pass the compiler vectorises (no early exit).
fn value<'a>(a: &Attribute<'a>) -> Result<Cow<'a, str>, quick_xml::Error> {
    let raw = a.value.as_ref();
    let special = raw
        .bytes()
        .fold(false, |any, b| any | (b == b'&') | (b < 0x20));
    if special {
        a.normalized_value(XmlVersion::Implicit1_0)
    } else {
        Ok(a.value.clone())
    }
}

/// `slot = value`, reusing the slot's buffer when it has one.
pub(super) fn refill(slot: &mut Option<String>, value: Option<&str>) {
    match (slot.as_mut(), value) {
        (Some(s), Some(v)) => {
            s.clear();
            s.push_str(v);
        }
        (None, Some(v)) => *slot = Some(v.to_owned()),
        (_, None) => *slot = None,
    }
}

impl<K: EventSink + ?Sized> Reading<'_, K> {
    /// A `<testcase>` opens: its attributes go into the reused case. One pass over the
    /// attributes without quick-xml's duplicate tracking (it allocates per element); a
    /// duplicate of an attribute read here is still refused.
    pub(super) fn start_case(&mut self, e: &BytesStart<'_>, empty: bool) -> Result<(), StartError> {
        let mut case = self.spare_case.take().unwrap_or_default();
        case.reset();
        let (mut has_classname, mut has_name, mut has_file) = (false, false, false);
        let (mut has_line, mut has_time) = (false, false);
        for a in e.attributes().with_checks(false) {
            let a = a.map_err(quick_xml::Error::from)?;
            let key = a.key.as_ref();
            let seen = match key {
                "classname" => &mut has_classname,
                "name" => &mut has_name,
                "file" => &mut has_file,
                "line" => &mut has_line,
                "time" => &mut has_time,
                "status" | "result" => {
                    let v = value(&a)?;
                    let found = match (key, v.trim()) {
                        ("status", "disabled") => Some("disabled"),
                        ("status", "notrun") => Some("not run"),
                        ("result", "suppressed") => Some("suppressed"),
                        ("result", "skipped") => Some("skipped"),
                        _ => None,
                    };
                    case.not_run = case.not_run.or(found);
                    if self.producer.is_none() {
                        self.producer = match (key, found) {
                            ("result", _) => Some("googletest"),
                            (_, Some("disabled")) => Some("tst"),
                            _ => None,
                        };
                    }
                    continue;
                }
                _ => continue,
            };
            if std::mem::replace(seen, true) {
                return Err(duplicate_attribute(key));
            }
            let v = value(&a)?;
            match key {
                "classname" => case.classname.push_str(&v),
                "name" => case.name.push_str(&v),
                "file" => refill(&mut case.file, Some(&v)),
                "line" => case.line = v.trim().parse().ok(),
                _ => (case.time, case.negative_time) = seconds(Some(&v)),
            }
        }
        if !has_file {
            case.file = None;
        }
        if self.producer.is_none() && self.suites.is_empty() && case.classname == "test" {
            self.producer = Some("node");
        }
        self.case = Some(case);
        if empty {
            self.end_case();
        }
        Ok(())
    }

    /// The reused test, filled with a finished case's suite, name, id, status and place; the
    /// texts (message, attempts, output) are the caller's to set.
    pub(super) fn test_for(&mut self, case: &Case, status: Status) -> Box<TestCase> {
        let mut test = self
            .spare_test
            .take()
            .unwrap_or_else(|| Box::new(TestCase::new(None, String::new(), status)));
        // The classname names the test's real container (a module, a package) unless it is
        // empty, repeats the test's own name (jest-junit's default template), or is node's
        // constant `test` (which says nothing, while the suite path holds the describe blocks).
        let classname = case.classname.trim();
        let generic = classname == "test" && self.path.is_some();
        let suite = if generic || classname.is_empty() || classname == case.name.trim() {
            self.path.as_deref()
        } else {
            Some(case.classname.as_str())
        };
        refill(&mut test.suite, suite);
        test.name.clear();
        test.name.push_str(&case.name);
        TestCase::make_id_into(&mut test.id, test.suite.as_deref(), &test.name);
        test.status = status;
        test.duration = case.time;
        refill(&mut test.file, case.file.as_deref());
        test.line = case.line;
        test.category = case
            .category
            .or_else(|| self.suites.iter().rev().find_map(|s| s.category));
        test.expected = None;
        test.actual = None;
        test.message = None;
        test.attempts.clear();
        refill(
            &mut test.output,
            (!case.output.is_empty()).then_some(case.output.as_str()),
        );
        test.parent = false;
        test.parent_id = None;
        test
    }
}

impl Case {
    /// Empties the case for the next `<testcase>`, keeping its buffers.
    fn reset(&mut self) {
        self.classname.clear();
        self.name.clear();
        self.line = None;
        self.time = None;
        self.negative_time = false;
        self.failure = None;
        self.error = None;
        self.skipped = None;
        self.attempts.clear();
        self.output.clear();
        self.category = None;
        self.not_run = None;
    }
}
