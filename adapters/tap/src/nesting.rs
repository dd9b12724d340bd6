//! Subtest nesting: the stack of open levels, read from indentation. A structural line deeper
//! than the current level opens a child level; a shallower one closes levels, and the next test
//! point at the parent level is the subtest's own result. Also here: holding the children of a
//! subtest whose name comes after them, placing them once it is known, running the plan checks
//! (plan.rs) when a level or a file ends, and prove's file sections (each `t/foo.t ..` starts a
//! new top level).
//!
//! These are methods of `Parser`: parser.rs defines it and calls them, and imports nothing from
//! here. Methods compile into their type's codegen unit, with the rest of the reader; the
//! free function carries `#[inline]` to the same end.

use gapscore_adapter_sdk::Code;
use std::sync::LazyLock;

use gapscore_adapter_sdk::{Problem, ProblemKind, TestCase};
use regex::Regex;

use crate::lex::{parse_plan, parse_point};
use crate::parser::{Closed, HOLD_CAP, Held, Level, Parser, SEEN_CAP, UNNAMED, join, join_opt};

static PROVE_HEADER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(\S+) \.{2,}(?: (.*))?$").ok());

impl Parser<'_> {
    /// prove's own lines: `t/foo.t .. ` file headers, its verdicts and the summary report.
    pub(crate) fn prove_line(&mut self, c: &str) -> bool {
        if self.prove_file.is_some()
            && [
                "Failed ",
                "Dubious,",
                "No subtests run",
                "All ",
                "skipped:",
                "Parse errors:",
                "(less ",
            ]
            .iter()
            .any(|p| c.starts_with(p))
        {
            self.prove_verdict(c);
            return true;
        }
        if c.contains(" ..")
            && let Some(re) = PROVE_HEADER.as_ref()
            && let Some(m) = re.captures(c)
        {
            let file = m.get(1).map_or("", |m| m.as_str()).to_owned();
            // A test file names a path or has an extension (`t/foo.t`).
            if !file.contains(['.', '/']) {
                return false;
            }
            let verdict = m.get(2).map_or("", |m| m.as_str()).trim().to_owned();
            // Known before the section ends: evidence.rs reads prove's output differently.
            self.evidence.prove = true;
            self.end_file();
            self.prove_file = Some(file.clone());
            self.levels = vec![Level {
                path: Some(file.clone()),
                ..Level::default()
            }];
            // Without -v prove prints only a verdict: `skipped: reason` is a skip_all.
            if let Some(r) = verdict.strip_prefix("skipped:") {
                let l = &mut self.levels[0];
                l.plan = Some(0);
                l.plan_skip = Some(r.trim().to_owned());
            }
            self.saw_tap = true;
            return true;
        }
        if self.prove_file.is_some()
            && (c.starts_with("Test Summary Report")
                || c.starts_with("All tests successful")
                || c.starts_with("Files="))
        {
            self.end_file();
            self.prove_file = None;
            self.in_summary = true;
            return true;
        }
        false
    }

    /// Whether TAP follows prove's summary report (`Files=`, `Test Summary Report`): prove
    /// writes nothing after it, so it is read as what it is, never dropped unseen: a test point,
    /// plan, subtest, bail-out or a new file's header ends summary mode, with a warning naming
    /// the line. Points that then belong to no prove file are plan-checked as a stream of their
    /// own (no plan: a counted problem).
    pub(crate) fn resumes_after_summary(&mut self, c: &str) -> bool {
        let header = c.contains(" ..")
            && PROVE_HEADER
                .as_ref()
                .and_then(|re| re.captures(c))
                .and_then(|m| m.get(1))
                .is_some_and(|f| f.as_str().contains(['.', '/']));
        let tap = header
            || parse_point(c).is_some()
            || parse_plan(c).is_some()
            || c.starts_with("TAP version")
            || c.get(..9)
                .is_some_and(|p| p.eq_ignore_ascii_case("bail out!"))
            || c.strip_prefix('#')
                .is_some_and(|b| b.trim_start().starts_with("Subtest"));
        if !tap {
            return false;
        }
        self.in_summary = false;
        // No prove file holds them: they are not the last file's.
        self.levels[0].path = None;
        let msg = format!(
            "line {}: TAP after prove's summary report, which ends prove's output: read as results",
            self.line_no
        );
        self.warn(Code::MalformedStructure, msg);
        true
    }

    /// Closes the levels deeper than `indent` and opens one when the line is deeper than the
    /// current level. Returns the level the line belongs to.
    pub(crate) fn align(&mut self, indent: usize) -> usize {
        self.flush();
        loop {
            let n = self.levels.len();
            if n <= 1 {
                break;
            }
            if self.levels[n - 1].fresh {
                if indent > self.levels[n - 2].indent {
                    self.levels[n - 1].indent = indent;
                    self.levels[n - 1].fresh = false;
                    break;
                }
            } else if self.levels[n - 1].indent <= indent {
                break;
            }
            if self.levels[n - 1].buffered.is_some() {
                let name = self.levels[n - 1].name.clone().unwrap_or_default();
                let msg = format!(
                    "line {}: subtest `{name}` ended without its closing `}}`",
                    self.line_no
                );
                self.warn(Code::MalformedStructure, msg);
            }
            self.close_level(true);
        }
        let cur = self.levels.len() - 1;
        if indent > self.levels[cur].indent {
            self.open_level(indent);
        }
        self.levels.len() - 1
    }

    fn open_level(&mut self, indent: usize) {
        let Some(parent) = self.levels.last_mut() else {
            return;
        };
        let name = parent.announced.take();
        let held = parent.held.is_some() || name.is_none();
        let (path, parent_id) = match (&name, held) {
            (Some(n), false) => (
                Some(join(parent.path.as_deref(), n)),
                Some(TestCase::make_id(parent.path.as_deref(), n)),
            ),
            _ => (None, None),
        };
        self.levels.push(Level {
            indent,
            name,
            path,
            parent_id,
            held: held.then(Vec::new),
            ..Level::default()
        });
    }

    /// Closes the innermost level: plan checks, and hands what the parent's next test point
    /// needs to the parent.
    fn close_level(&mut self, check: bool) {
        self.flush();
        if self.levels.len() <= 1 {
            return;
        }
        let Some(mut lvl) = self.levels.pop() else {
            return;
        };
        if check {
            let label = lvl
                .path
                .clone()
                .or_else(|| lvl.name.clone())
                .unwrap_or_else(|| UNNAMED.to_owned());
            self.check_plan(&mut lvl, Some(label), false);
        }
        let closed = Closed {
            name: lvl.name.clone(),
            had_results: lvl.count > 0,
            held: lvl.held.take().unwrap_or_default(),
            skip_all: lvl
                .plan_skip
                .take()
                .filter(|_| lvl.count == 0 && lvl.plan == Some(0)),
        };
        let prev = self.levels.last_mut().and_then(|p| p.just_closed.take());
        if let Some(prev) = prev {
            self.orphan(prev);
        }
        if let Some(mut bp) = lvl.buffered.take() {
            // `ok N - name {`: the point is known; it closes its block now.
            let mut name = String::new();
            if let Some(l) = bp.lite.take() {
                bp.test = Some(l.build());
            }
            if let Some(t) = bp.test.as_mut() {
                t.parent = closed.had_results;
                name.clone_from(&t.name);
            }
            self.place_children(closed.held, &name, bp.level);
            self.pending = Some(bp);
        } else if let Some(parent) = self.levels.last_mut() {
            parent.just_closed = Some(closed);
        }
    }

    /// A subtest that no test point closed: its held children are sent with what is known.
    pub(crate) fn orphan(&mut self, c: Closed) {
        let name = c.name.clone().unwrap_or_else(|| UNNAMED.to_owned());
        let msg = format!(
            "line {}: subtest `{name}` has no test point of its own",
            self.line_no
        );
        self.warn(Code::MalformedStructure, msg);
        let at = self.levels.len() - 1;
        self.place_children(c.held, &name, at);
    }

    /// Children held for a subtest named `name` whose point is at level `at`.
    pub(crate) fn place_children(&mut self, held: Vec<Held>, name: &str, at: usize) {
        for mut h in held {
            h.test.suite = Some(match h.test.suite.take() {
                Some(s) => join(Some(name), &s),
                None => name.to_owned(),
            });
            h.parent = Some(match h.parent.take() {
                None => (None, name.to_owned()),
                Some((s, n)) => (
                    Some(match s {
                        Some(s) => join(Some(name), &s),
                        None => name.to_owned(),
                    }),
                    n,
                ),
            });
            self.deliver(h, at);
        }
    }

    /// Sends a test or holds it at level `at`.
    pub(crate) fn deliver(&mut self, mut h: Held, at: usize) {
        let at = at.min(self.levels.len() - 1);
        let overflow = {
            let lvl = &mut self.levels[at];
            match lvl.held.as_mut() {
                Some(v) if v.len() < HOLD_CAP => {
                    v.push(h);
                    return;
                }
                Some(_) => true,
                None => false,
            }
        };
        if overflow {
            // Too many to hold: send what is held with a placeholder name.
            let lvl = &mut self.levels[at];
            let held = lvl.held.take().unwrap_or_default();
            if !lvl.held_overflow {
                lvl.held_overflow = true;
                let msg = format!(
                    "line {}: more than {HOLD_CAP} results in a subtest whose name is not known yet: sent under `{UNNAMED}`",
                    self.line_no
                );
                self.warn(Code::OutputUnattributed, msg);
            }
            for mut x in held.into_iter().chain(std::iter::once(h)) {
                x.test.suite = Some(match x.test.suite.take() {
                    Some(s) => join(Some(UNNAMED), &s),
                    None => UNNAMED.to_owned(),
                });
                self.finalize(x, None);
            }
            return;
        }
        let prefix = self.levels[at].path.clone();
        if h.parent.is_none() && at > 0 {
            h.test.parent_id = self.levels[at].parent_id.clone();
        }
        self.finalize(h, prefix.as_deref());
    }

    fn finalize(&mut self, mut h: Held, prefix: Option<&str>) {
        h.test.suite = join_opt(prefix, h.test.suite.as_deref());
        h.test.id = point_id(&h.test);
        if let Some((s, n)) = h.parent {
            let ps = join_opt(prefix, s.as_deref());
            h.test.parent_id = Some(TestCase::make_id(ps.as_deref(), &n));
        }
        self.sink.test_finished(h.test);
    }

    /// `}` closing a buffered subtest: true when one was open.
    pub(crate) fn close_block(&mut self, indent: usize) -> bool {
        let Some(i) = self.levels.iter().rposition(|l| l.buffered.is_some()) else {
            return false;
        };
        if i == 0 || self.levels[i - 1].indent > indent {
            return false;
        }
        self.flush();
        while self.levels.len() > i + 1 {
            self.close_level(true);
        }
        self.close_level(true);
        true
    }

    pub(crate) fn subtest(&mut self, indent: usize, name: &str) {
        self.saw_tap = true;
        let at = self.align(indent);
        if let Some(prev) = self.levels[at].just_closed.take() {
            self.orphan(prev);
        }
        let lvl = &mut self.levels[at];
        let opened_here = at > 0 && lvl.count == 0 && lvl.name.is_none() && lvl.announced.is_none();
        if opened_here && lvl.plan.is_none() {
            // `    # Subtest: name` at the child's own indentation (Test::More 0.98–1.0):
            // it names the level it opens.
            lvl.name = Some(name.to_owned());
            let parent_held = self.levels[at - 1].held.is_some();
            if !parent_held {
                let pp = self.levels[at - 1].path.clone();
                let lvl = &mut self.levels[at];
                lvl.path = Some(join(pp.as_deref(), name));
                lvl.parent_id = Some(TestCase::make_id(pp.as_deref(), name));
                lvl.held = None;
            }
            return;
        }
        let lvl = &mut self.levels[at];
        if let Some(prev) = lvl.announced.replace(name.to_owned()) {
            let msg = format!(
                "line {}: subtest `{prev}` announced but never run",
                self.line_no
            );
            self.warn(Code::MalformedStructure, msg);
        }
    }

    /// Ends the current file (a prove section or the whole stream).
    pub(crate) fn end_file(&mut self) {
        self.flush();
        // Levels still open: their subtests never finished.
        let mut open = Vec::new();
        let mut any_open = false;
        while self.levels.len() > 1 {
            if let Some(l) = self.levels.last() {
                if let Some(a) = &l.announced {
                    open.push(a.clone());
                }
                open.push(l.name.clone().unwrap_or_else(|| UNNAMED.to_owned()));
            }
            any_open = true;
            self.close_level(false);
        }
        if let Some(l) = self.levels.first()
            && let Some(a) = &l.announced
        {
            open.push(a.clone());
        }
        if let Some(prev) = self.levels.first_mut().and_then(|l| l.just_closed.take()) {
            if any_open {
                // Already reported as missing results; send what it held.
                let name = prev.name.clone().unwrap_or_else(|| UNNAMED.to_owned());
                self.place_children(prev.held, &name, 0);
            } else {
                self.orphan(prev);
            }
        }
        if !open.is_empty() && !self.bailed {
            let file = self.prove_file.clone();
            let mut p = Problem::new(
                ProblemKind::MissingResults,
                format!(
                    "subtests announced but never closed at the end: {}",
                    open.join(", ")
                ),
            );
            p.suite = file;
            self.problem(p);
            if any_open {
                self.truncated
                    .push("the stream ends inside an open subtest".to_owned());
            }
        }
        let mut top = std::mem::take(&mut self.levels[0]);
        if any_open {
            // The subtest left open is one of the file's planned tests, and already counted as
            // a `missing-results` problem: the plan does not count it again.
            top.count += 1;
            if let Ok(n) = u64::try_from(i128::from(top.count) + top.offset)
                && (1..=SEEN_CAP).contains(&n)
            {
                let w = (n / 64) as usize;
                if top.seen.len() <= w {
                    top.seen.resize(w + 1, 0);
                }
                top.seen[w] |= 1 << (n % 64);
            }
        }
        let file = self.prove_file.clone();
        if self.saw_tap || file.is_some() {
            self.check_plan(&mut top, file, true);
        }
        self.file_evidence(top.plan);
        self.levels[0] = Level {
            path: top.path,
            ..Level::default()
        };
    }
}

/// The id of a test whose suite changed: `suite::name`, or `suite::#N` for a nameless point.
#[inline]
fn point_id(t: &TestCase) -> String {
    match t
        .id
        .rsplit_once("::#")
        .map(|(_, n)| n)
        .or(t.id.strip_prefix('#'))
    {
        Some(n) if t.name.is_empty() => TestCase::make_id(t.suite.as_deref(), &format!("#{n}")),
        _ => TestCase::make_id(t.suite.as_deref(), &t.name),
    }
}
