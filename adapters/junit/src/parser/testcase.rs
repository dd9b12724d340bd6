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

/// `classname`, `name`, `file`, `line` and `time` of a `<testcase>` whose attributes are
/// written the common way: `key="value"` or `key='value'` pairs with nothing around the `=`,
/// the five values free of `&` and control characters, none of them twice, and no `status`,
/// `result` or `failure`. That is the subset of quick-xml's attribute grammar where its iterator gives
/// these very slices and [`value`] gives them back unchanged, so the result is the same as
/// [`Reading::read_case_attributes`]'s; `None` for anything else (which that reads, or
/// refuses with its error). A `<testcase>` is the one element read once per test, and this
/// is one pass over its bytes, without the iterator's per-attribute state.
fn plain_attributes(raw: &str) -> Option<[Option<&str>; 5]> {
    let is_space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
    let b = raw.as_bytes();
    let mut out = [None; 5];
    let mut i = 0;
    loop {
        while b.get(i).is_some_and(|c| is_space(*c)) {
            i += 1;
        }
        let rest = &b[i..];
        let Some(first) = rest.first() else {
            return Some(out);
        };
        // The five keys by their first byte, each with its `=`; any other key is scanned.
        let (slot, key) = match first {
            b'c' => (0, b"classname=".as_slice()),
            b'n' => (1, b"name=".as_slice()),
            b'f' => (2, b"file=".as_slice()),
            b'l' => (3, b"line=".as_slice()),
            b't' => (4, b"time=".as_slice()),
            _ => (5, b"".as_slice()),
        };
        let (slot, eq) = if slot < 5 && rest.starts_with(key) {
            (Some(slot), i + key.len() - 1)
        } else {
            // The key's first byte is never its end, even an `=` (as in quick-xml's iterator).
            let len = 1 + rest[1..]
                .iter()
                .position(|c| *c == b'=' || is_space(*c))
                .unwrap_or(rest.len() - 1);
            if matches!(&rest[..len], b"status" | b"result" | b"failure") {
                return None;
            }
            (None, i + len)
        };
        // A key alone, or space before the `=`: quick-xml's iterator decides.
        if b.get(eq) != Some(&b'=') {
            return None;
        }
        let quote = *b.get(eq + 1)?;
        if quote != b'"' && quote != b'\'' {
            return None;
        }
        let start = eq + 2;
        let end = start + memchr::memchr(quote, &b[start..])?;
        i = end + 1;
        let Some(slot) = slot else { continue };
        // The quotes are ASCII, so these are character boundaries.
        let v = &raw[start..end];
        let special = v
            .bytes()
            .fold(false, |any, c| any | (c == b'&') | (c < 0x20));
        if special || out[slot].replace(v).is_some() {
            return None;
        }
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
    /// A `<testcase>` opens: its attributes go into the reused case. Written the common way
    /// they are read by [`plain_attributes`]; anything else goes through quick-xml's iterator.
    pub(super) fn start_case(&mut self, e: &BytesStart<'_>, empty: bool) -> Result<(), StartError> {
        let mut case = self.spare_case.take().unwrap_or_default();
        case.reset();
        match plain_attributes(e.attributes_raw()) {
            Some(plain) => {
                let [classname, name, file, line, time] = plain;
                case.classname.push_str(classname.unwrap_or_default());
                case.name.push_str(name.unwrap_or_default());
                refill(&mut case.file, file);
                case.line = line.and_then(|v| v.trim().parse().ok());
                (case.time, case.negative_time) = seconds(time);
            }
            None => self.read_case_attributes(e, &mut case)?,
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

    /// The attributes of a `<testcase>` through quick-xml: one pass without its duplicate
    /// tracking (it allocates per element); a duplicate of an attribute read here is still
    /// refused.
    fn read_case_attributes(
        &mut self,
        e: &BytesStart<'_>,
        case: &mut Case,
    ) -> Result<(), StartError> {
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
                // node `--test`'s JUnit reporter: the failure's message as an attribute.
                "failure" => {
                    let v = value(&a)?;
                    case.flagged = Some(v.into_owned());
                    continue;
                }
                "status" | "result" => {
                    let v = value(&a)?;
                    let found = match (key, v.trim()) {
                        ("status", "disabled") => Some("disabled"),
                        ("status", "notrun") => Some("not run"),
                        // TeamCity's importer treats any status other than `run` as not run.
                        ("status", "ignored") => Some("ignored"),
                        ("result", "suppressed") => Some("suppressed"),
                        ("result", "skipped") => Some("skipped"),
                        _ => None,
                    };
                    // A failing status fails the record whatever its children say (ctest
                    // writes `status="fail"`).
                    if key == "status" && matches!(v.trim(), "failed" | "fail" | "error") {
                        case.flagged = case
                            .flagged
                            .take()
                            .or(Some(format!("status: {}", v.trim())));
                    }
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
        // constant `test` (which says nothing, while the suite path holds the describe blocks;
        // at the top level node's TAP names the test alone, and so does this, so one run has
        // one id in either format).
        let classname = case.classname.trim();
        let generic = classname == "test" && (self.path.is_some() || self.producer == Some("node"));
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
        test.decided_at = None;
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
        self.flagged = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gapscore_adapter_testing::sinks::EventLog;

    /// What a `<testcase>`'s attributes left in the case and the reader.
    fn read(content: &str, plain: bool) -> Option<String> {
        let mut sink = EventLog::default();
        let mut r = Reading::new(&mut sink);
        let mut case = Case::default();
        let e = BytesStart::from_content(content, "testcase".len());
        if plain {
            let [classname, name, file, line, time] = plain_attributes(e.attributes_raw())?;
            case.classname.push_str(classname.unwrap_or_default());
            case.name.push_str(name.unwrap_or_default());
            refill(&mut case.file, file);
            case.line = line.and_then(|v| v.trim().parse().ok());
            (case.time, case.negative_time) = seconds(time);
        } else if let Err(e) = r.read_case_attributes(&e, &mut case) {
            return Some(format!("error: {e}"));
        }
        Some(format!(
            "{:?} {:?} {:?} {:?} {:?} {} {:?} {:?} {:?}",
            case.classname,
            case.name,
            case.file,
            case.line,
            case.time.map(f64::to_bits),
            case.negative_time,
            case.not_run,
            case.flagged,
            r.producer
        ))
    }

    /// Every start tag the plain scan reads, it reads as quick-xml's iterator does; and it
    /// reads the common ones. Tags are made of pieces that touch each rule of the scan.
    #[test]
    fn plain_attributes_read_as_quick_xml_does() {
        let keys = [
            "classname",
            "name",
            "file",
            "line",
            "time",
            "status",
            "result",
            "timestamp",
            "x",
            "",
            "a:b",
            "name2",
        ];
        let values = [
            "abc", "1.5", "-2", " 3 ", "a&amp;b", "a&bogus;", "a\tb", "a\nb", "", "é", "1,234.5",
            "0.017", "x'y", "notrun", "disabled", "skipped", "<", ">",
        ];
        let spaces = [" ", "  ", "\t", "\n", "\r\n", ""];
        let eqs = ["=", "=", "=", " =", "= ", ""];
        let (mut plain, mut total) = (0, 0);
        let mut next = crate::parser::test_rng(0x9e37_79b9_7f4a_7c15_u64);
        for _ in 0..60_000 {
            let mut tag = String::from("testcase");
            for _ in 0..next(7) {
                // Mostly well formed; now and then a space, `=` or quote out of place.
                let n = if next(4) == 0 { 6 } else { 4 };
                tag.push_str(spaces[next(n)]);
                tag.push_str(keys[next(keys.len())]);
                let n = if next(8) == 0 { 6 } else { 3 };
                tag.push_str(eqs[next(n)]);
                let q = match next(10) {
                    0 => "",
                    1..=3 => "'",
                    _ => "\"",
                };
                let v = values[next(values.len())];
                let v = if q == "\"" { v } else { &v.replace('\'', "") };
                tag.push_str(q);
                tag.push_str(v);
                if next(30) != 0 {
                    tag.push_str(q);
                }
            }
            if next(5) == 0 {
                tag.push_str(spaces[next(spaces.len())]);
            }
            total += 1;
            if let Some(fast) = read(&tag, true) {
                plain += 1;
                assert_eq!(Some(fast), read(&tag, false), "{tag:?}");
            }
        }
        // The scan must take the common case, not fall back on everything.
        assert!(
            plain * 10 > total,
            "{plain} of {total} read by the plain scan"
        );
    }

    #[test]
    fn plain_attributes_take_common_tags_and_leave_the_rest() {
        let raw = r#" classname="pkg.C" name='t[1]' file="t.py" line="3" time="0.5" x="&amp;""#;
        assert_eq!(
            plain_attributes(raw),
            Some([
                Some("pkg.C"),
                Some("t[1]"),
                Some("t.py"),
                Some("3"),
                Some("0.5")
            ])
        );
        for raw in [
            r#" name="a" name="b""#,
            r#" name="a&amp;b""#,
            r#" name ="a""#,
            r#" name=a"#,
            r#" name="a"#,
            r#" status="notrun" name="a""#,
            " name=\"a\tb\"",
            " name",
        ] {
            assert_eq!(plain_attributes(raw), None, "{raw}");
        }
    }
}
