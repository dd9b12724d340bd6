//! Sending a test point with its diagnostics: the YAML block (`---` … `...`) read by
//! [`yaml`] and mapped onto the test (message, severity, expected/actual, location,
//! category, duration, stack), and the comment and non-TAP lines kept after a failing point
//! (message or output, with Test::More's and bats' `file line N` locations).
//!
//! `Parser::unknown` and `Parser::flush` are methods of the reader that parser.rs defines (and
//! compile with it); the free functions carry `#[inline]` so that they compile into the reader's
//! codegen unit too, as before the split.

use std::sync::LazyLock;

use gapscore_adapter_sdk::text::TEXT_CAP;
use gapscore_adapter_sdk::{Category, Problem, ProblemKind, Status, TestCase};
use regex::Regex;

use crate::lex::ms_to_secs;
use crate::parser::{Held, Parser, UNKNOWN_NAMED, push_line};
use crate::yaml;

static PERL_AT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^\s*at (\S+) line (\d+)\.?\s*$").ok());
static BATS_AT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"in test file (\S+), line (\d+)\)").ok());

impl Parser<'_> {
    /// A line that is not TAP: kept as the current failing test's diagnostics, or counted.
    pub(crate) fn unknown(&mut self, indent: usize, c: &str) {
        if indent == 0 && self.prove_line(c) {
            return;
        }
        self.unknown_lines += 1;
        if self.unknown_at.len() < UNKNOWN_NAMED {
            self.unknown_at.push(self.line_no);
        }
        if let Some(p) = self.pending.as_mut()
            && p.collect
        {
            // Keep the text's own indentation beyond the test point's.
            let extra = indent.saturating_sub(p.indent + 2);
            let text = format!("{}{}", " ".repeat(extra.min(64)), c);
            push_line(&mut p.diag, &text);
        }
    }

    /// Sends the pending test point, with its YAML and diagnostics applied.
    pub(crate) fn flush(&mut self) {
        // The common point (no YAML, diagnostics or reason, not held) goes straight out: moving
        // the whole pending record costs more than reading its line.
        if let Some(p) = self.pending.as_mut()
            && p.yaml.is_none()
            && p.diag.is_empty()
            && p.reason.is_none()
            && self.levels.get(p.level).is_some_and(|l| l.held.is_none())
        {
            if let Some(l) = p.lite.as_ref() {
                self.claims.points.add(l.status, false, false);
                self.run.add(l.status, false);
                // Borrowed, the parent id too (no copy of it per point): the record (and its
                // strings) is recycled for the next point.
                let mut test = l.borrowed(&mut self.id_buf);
                if p.level > 0 {
                    test.parent_id = self.levels[p.level].parent_id.as_deref();
                }
                self.sink.test_finished_ref(test);
                self.spare = self.pending.take();
                return;
            }
            if let Some(mut test) = p.test.take() {
                self.claims.points.add(test.status, false, false);
                self.run.add(test.status, false);
                if p.level > 0 {
                    test.parent_id = self.levels[p.level].parent_id.clone();
                }
                self.spare = self.pending.take();
                self.sink.test_finished(test);
                return;
            }
        }
        let Some(mut p) = self.pending.take() else {
            return;
        };
        let (Some(mut test), level) = (p.take_test(), p.level) else {
            return;
        };
        let reason = p.reason.take();
        let diag = std::mem::take(&mut p.diag);
        let yaml = p.yaml.take();
        self.spare = Some(p);
        let mut output: Vec<String> = Vec::new();
        let mut read = YamlRead::default();
        if let Some(y) = yaml {
            if y.open && !self.bailed {
                self.truncated
                    .push(format!("YAML block of `{}` not closed by `...`", test.name));
            }
            let mut text = y.text;
            if y.cut {
                text.push_str("[gapscore: YAML block over 1 MiB not parsed]");
            }
            match yaml::parse(&text) {
                Ok(v) if !y.cut => read = apply_yaml(&mut test, &v, &mut output),
                _ => {
                    if !text.trim().is_empty() {
                        let mut m = String::new();
                        push_line(&mut m, text.trim_end());
                        if test.message.is_none() {
                            test.message = Some(m);
                        } else {
                            output.push(m);
                        }
                    }
                }
            }
            // Kept for the next block unless a huge block grew it.
            if text.capacity() <= 64 * 1024 {
                text.clear();
                self.yaml_buf = text;
            }
        }
        if !diag.trim().is_empty() {
            if test.file.is_none() {
                locate(&mut test, &diag);
            }
            let diag = diag.trim_end().to_owned();
            if test.message.is_none() && test.status == Status::Failed {
                test.message = Some(diag);
            } else {
                output.push(diag);
            }
        }
        if let Some(r) = reason {
            match &test.message {
                None => test.message = Some(r),
                Some(m) => {
                    let m = format!("{r}\n{m}");
                    test.message = Some(m);
                }
            }
        }
        if !output.is_empty() {
            let mut out = String::new();
            if let Some(o) = test.output.take() {
                push_line(&mut out, &o);
            }
            for o in output {
                push_line(&mut out, &o);
            }
            test.output = Some(out);
        }
        self.sent(test.status, read.suite, read.error.is_some() && !read.suite);
        if read.file_failure
            && level == 0
            && !test.parent
            && matches!(test.status, Status::Failed | Status::Errored)
        {
            // Not a test: the file's tests never ran (node's footer counts it as one failed
            // test, and so does the count above).
            let why = test.message.as_deref().unwrap_or("test failed");
            let detail = format!(
                "test file `{}` failed outside any test (node: `failureType: testCodeFailure`, \
                 the process exited): {why}",
                test.name
            );
            self.problem(Problem::new(ProblemKind::SuiteError, detail).with_suite(test.name));
            return;
        }
        // A parent's or a suite's error stands for its children's failures, which are
        // points (and evidence) of their own.
        if let Some(key) = read.error.filter(|_| !test.parent && !read.suite) {
            self.contradicted(test.suite.as_deref(), &test.name, key);
        }
        let held = self.levels.get(level).is_some_and(|l| l.held.is_some());
        if held {
            self.deliver(Held { test, parent: None }, level);
        } else {
            if level > 0
                && let Some(l) = self.levels.get(level)
            {
                test.parent_id = l.parent_id.clone();
            }
            self.sink.test_finished(test);
        }
    }
}

/// What a diagnostics block says beside what it sets on the test.
#[derive(Default)]
struct YamlRead {
    /// node's `type: 'suite'`: a `describe` block, not a test its footer counts.
    suite: bool,
    /// On a passing point, the key that says it failed (`error`, `failureType`, `code:
    /// ERR_TEST_FAILURE`, `stack`).
    error: Option<&'static str>,
    /// node's point for a test file whose process failed outside any test (`failureType:
    /// 'testCodeFailure'` with the process's `exitCode`): a file that did not load or exited
    /// before its tests.
    file_failure: bool,
}

/// Applies a diagnostics block: message, severity, expected/actual, location, category,
/// duration. Unknown keys are ignored.
#[inline]
fn apply_yaml(test: &mut TestCase, v: &yaml::Value<'_>, output: &mut Vec<String>) -> YamlRead {
    let keys = Keys::of(v);
    let is = |e: Option<&yaml::Value<'_>>, want: &str| {
        e.and_then(yaml::Value::as_str).map(str::trim) == Some(want)
    };
    let read = YamlRead {
        suite: is(keys.kind, "suite"),
        file_failure: keys.exit_code.is_some() && is(keys.failure_type, "testCodeFailure"),
        error: (test.status == Status::Passed)
            .then(|| {
                if keys.error.is_some() {
                    Some("error")
                } else if keys.failure_type.is_some() {
                    Some("failureType")
                } else if is(keys.code, "ERR_TEST_FAILURE") {
                    Some("code: ERR_TEST_FAILURE")
                } else if keys.stack.is_some() {
                    Some("stack")
                } else {
                    None
                }
            })
            .flatten(),
    };
    let text = |e: Option<&yaml::Value<'_>>| e.map(yaml::Value::to_text).filter(|s| !s.is_empty());
    let message = text(keys.message).or_else(|| match keys.error {
        Some(e @ yaml::Value::Map(_)) => e.get("message").map(yaml::Value::to_text),
        Some(e) => Some(e.to_text()).filter(|s| !s.is_empty()),
        None => None,
    });
    if let Some(mut m) = message {
        let kept = m.trim_end().len();
        if kept <= TEXT_CAP {
            // What `push_line` into an empty string gives, without a second copy.
            m.truncate(kept);
            test.message = Some(m);
        } else {
            let mut s = String::new();
            push_line(&mut s, m.trim_end());
            test.message = Some(s);
        }
    }
    if test.status == Status::Failed
        && let Some(sev) = keys.severity.and_then(yaml::Value::as_str)
        && matches!(
            sev.to_ascii_lowercase().as_str(),
            "error" | "fatal" | "crash"
        )
    {
        test.status = Status::Errored;
    }
    let data = keys.data;
    // The first of the keys found at the top or under `data:`, in the keys' order.
    let pick = |found: [(&str, Option<&yaml::Value<'_>>); 3]| {
        found
            .iter()
            .find_map(|&(k, top)| top.or_else(|| data.and_then(|d| d.get(k))))
            .map(yaml::Value::to_text)
    };
    if let Some(e) = pick([
        ("wanted", keys.wanted),
        ("expected", keys.expected),
        ("expect", keys.expect),
    ]) {
        test.expected = Some(e);
    }
    if let Some(a) = pick([
        ("found", keys.found),
        ("actual", keys.actual),
        ("got", keys.got),
    ]) {
        test.actual = Some(a);
    }
    match keys.at.or(keys.location) {
        Some(yaml::Value::Scalar(s)) => set_location(test, s),
        Some(m @ yaml::Value::Map(_)) => {
            if let Some(f) = m.get("file").and_then(yaml::Value::as_str) {
                test.file = Some(f.to_owned());
            }
            test.line = m
                .get("line")
                .and_then(yaml::Value::as_str)
                .and_then(|l| l.trim().parse().ok());
        }
        _ => {}
    }
    if let Some(c) = keys
        .category
        .and_then(yaml::Value::as_str)
        .and_then(Category::parse_lenient)
    {
        test.category = Some(c);
    }
    if let Some(ms) = keys
        .duration_ms
        .and_then(yaml::Value::as_str)
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
    {
        test.duration = Some(ms_to_secs(ms));
    }
    if let Some(s) = text(keys.stack) {
        output.push(s);
    }
    read
}

/// The keys a diagnostics block is read for, each its first occurrence (as `Value::get` finds
/// it), found in one pass over the block's entries instead of one scan per key.
#[derive(Default)]
struct Keys<'v, 'a> {
    message: Option<&'v yaml::Value<'a>>,
    error: Option<&'v yaml::Value<'a>>,
    severity: Option<&'v yaml::Value<'a>>,
    data: Option<&'v yaml::Value<'a>>,
    wanted: Option<&'v yaml::Value<'a>>,
    expected: Option<&'v yaml::Value<'a>>,
    expect: Option<&'v yaml::Value<'a>>,
    found: Option<&'v yaml::Value<'a>>,
    actual: Option<&'v yaml::Value<'a>>,
    got: Option<&'v yaml::Value<'a>>,
    at: Option<&'v yaml::Value<'a>>,
    location: Option<&'v yaml::Value<'a>>,
    category: Option<&'v yaml::Value<'a>>,
    duration_ms: Option<&'v yaml::Value<'a>>,
    stack: Option<&'v yaml::Value<'a>>,
    kind: Option<&'v yaml::Value<'a>>,
    failure_type: Option<&'v yaml::Value<'a>>,
    code: Option<&'v yaml::Value<'a>>,
    exit_code: Option<&'v yaml::Value<'a>>,
}

impl<'v, 'a> Keys<'v, 'a> {
    #[inline]
    fn of(v: &'v yaml::Value<'a>) -> Self {
        let mut keys = Keys::default();
        let yaml::Value::Map(entries) = v else {
            return keys;
        };
        for (k, value) in entries {
            let slot = match k.as_ref() {
                "message" => &mut keys.message,
                "error" => &mut keys.error,
                "severity" => &mut keys.severity,
                "data" => &mut keys.data,
                "wanted" => &mut keys.wanted,
                "expected" => &mut keys.expected,
                "expect" => &mut keys.expect,
                "found" => &mut keys.found,
                "actual" => &mut keys.actual,
                "got" => &mut keys.got,
                "at" => &mut keys.at,
                "location" => &mut keys.location,
                "category" => &mut keys.category,
                "duration_ms" => &mut keys.duration_ms,
                "stack" => &mut keys.stack,
                "type" => &mut keys.kind,
                "failureType" => &mut keys.failure_type,
                "code" => &mut keys.code,
                "exitCode" => &mut keys.exit_code,
                _ => continue,
            };
            slot.get_or_insert(value);
        }
        keys
    }
}

/// `path:line:col`, `path:line` or a `file://` URL → file and line.
#[inline]
fn set_location(test: &mut TestCase, s: &str) {
    let s = s.trim();
    let s = s.strip_prefix("file://").unwrap_or(s);
    let mut parts = s.rsplitn(3, ':');
    let a = parts.next();
    let b = parts.next();
    let c = parts.next();
    let num = |x: Option<&str>| x.and_then(|x| x.parse::<u32>().ok());
    match (num(a), num(b), c) {
        (Some(_), Some(line), Some(file)) => {
            test.file = Some(file.to_owned());
            test.line = Some(line);
        }
        (Some(line), None, _) => {
            let file = s.rsplit_once(':').map_or(s, |(f, _)| f);
            test.file = Some(file.to_owned());
            test.line = Some(line);
        }
        _ => test.file = Some(s.to_owned()),
    }
}

/// Test::More's `at t/x.t line 12.` and bats' `(in test file x.bats, line 12)` diagnostics.
#[inline]
fn locate(test: &mut TestCase, diag: &str) {
    for l in diag.lines() {
        for re in [PERL_AT.as_ref(), BATS_AT.as_ref()].into_iter().flatten() {
            if let Some(m) = re.captures(l) {
                test.file = m.get(1).map(|m| m.as_str().to_owned());
                test.line = m.get(2).and_then(|m| m.as_str().parse().ok());
                return;
            }
        }
    }
}
