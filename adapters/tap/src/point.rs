//! A test point: its status from `ok`/`not ok` and its directive, its name (its description,
//! else its number), where it stands among subtests (held until its parent is named, placed
//! under the open level), and prove's verdict lines that look like points but are not.
//!
//! These are methods of `Parser`: parser.rs defines it and calls them, and imports nothing from
//! here (as nesting.rs).

use gapscore_adapter_sdk::{Category, Code, Status, TestCase};

use crate::lex::{Directive, MOCHA_UNCAUGHT, Point};
use crate::lite::Lite;
use crate::parser::{Level, Parser, Pending, SEEN_CAP, join};

impl Parser<'_> {
    pub(crate) fn point(&mut self, indent: usize, pt: Point<'_>) {
        // prove prints its verdict `ok` alone after each file.
        if indent == 0
            && self.prove_file.is_some()
            && pt.ok
            && pt.number.is_none()
            && pt.desc.is_empty()
            && pt.directive == Directive::None
        {
            return;
        }
        self.saw_tap = true;
        let at = self.align(indent);
        let line_no = self.line_no;
        let mut warn = None;
        let closed;
        // mocha's uncaught error is a failure outside its plan: read, not counted against it.
        let unplanned = !pt.ok && pt.directive == Directive::None && pt.desc == MOCHA_UNCAUGHT;
        {
            let lvl = &mut self.levels[at];
            lvl.count += u64::from(!unplanned);
            if let Some(n) = pt.number.filter(|_| !unplanned) {
                let expected = i128::from(lvl.count) + lvl.offset;
                if i128::from(n) != expected {
                    warn = Some(format!(
                        "line {line_no}: test number {n} out of sequence (expected {expected}){}",
                        if i128::from(n) < expected {
                            ": a duplicate or a step back"
                        } else {
                            ": numbers skipped"
                        }
                    ));
                    lvl.offset = i128::from(n) - i128::from(lvl.count);
                }
                lvl.max_number = lvl.max_number.max(n);
            }
            // A point without a number is numbered by its position.
            let num = pt
                .number
                .or_else(|| u64::try_from(i128::from(lvl.count) + lvl.offset).ok())
                .filter(|_| !unplanned);
            if let Some(n) = num.filter(|n| (1..=SEEN_CAP).contains(n)) {
                let (w, b) = ((n / 64) as usize, n % 64);
                if lvl.seen.len() <= w {
                    lvl.seen.resize(w + 1, 0);
                }
                lvl.seen[w] |= 1 << b;
            }
            if lvl.plan.is_some() && lvl.plan_after_tests {
                lvl.plan_after_tests = false;
                let pl = lvl.plan_line;
                warn.get_or_insert(format!(
                    "line {line_no}: test point after the plan at line {pl} that ended the tests"
                ));
            }
            lvl.announced = None;
            closed = lvl.just_closed.take();
        }
        if let Some(w) = warn {
            self.warn(Code::MalformedStructure, w);
        }
        let status = match (&pt.directive, pt.ok) {
            // Two verdicts on one line: the worst wins.
            _ if pt.glued_failure => Status::Failed,
            (Directive::Skip(_), _) => Status::Skipped,
            (Directive::Todo(_), true) => Status::Xpassed,
            (Directive::Todo(_), false) => Status::Todo,
            (Directive::None, true) => Status::Passed,
            (Directive::None, false) => Status::Failed,
        };
        if pt.glued_failure {
            let msg = format!(
                "line {line_no}: an `ok` line that ends in another `not ok` (text printed before the harness's own verdict, without a newline) read as failed"
            );
            self.warn(Code::ContradictoryStatus, msg);
        }
        if matches!(pt.directive, Directive::Skip(_)) && !pt.ok {
            let msg = format!("line {line_no}: `not ok` with a SKIP directive read as skipped");
            self.warn(Code::ContradictoryStatus, msg);
        }
        if at == 0 && !unplanned {
            self.top_point(line_no, &pt, status);
        }
        let held_level = self.levels[at].held.is_some();
        // A title names a category only with a `[tag]`: most have no bracket at all.
        let category = if pt.bracket {
            Category::from_title(pt.desc)
        } else {
            None
        };
        let reason = match pt.directive {
            Directive::Skip(r) | Directive::Todo(r) if !r.is_empty() => Some(r.to_owned()),
            _ => None,
        };
        let collect = matches!(status, Status::Failed | Status::Todo | Status::Errored);
        let mut pending = self
            .spare
            .take()
            .unwrap_or_else(|| Box::new(Pending::blank()));
        pending.level = at;
        pending.indent = indent;
        pending.reason = reason;
        pending.diag.clear();
        pending.collect = collect;
        pending.yaml = None;
        if closed.is_none() && !pt.opens_block && !pt.desc.is_empty() {
            pending.test = None;
            let suite = if held_level {
                None
            } else {
                self.levels[at].path.as_deref()
            };
            Lite::set(&mut pending.lite, suite, pt.desc, status, pt.time, category);
            self.pending = Some(pending);
            return;
        }
        pending.lite = None;
        let suite = if held_level {
            None
        } else {
            self.levels[at].path.clone()
        };
        let mut test = TestCase::new(suite, pt.desc, status);
        if pt.desc.is_empty() {
            // A point without a description is known by its number.
            let n = pt.number.unwrap_or(self.levels[at].count);
            test.id = TestCase::make_id(test.suite.as_deref(), &format!("#{n}"));
        }
        test.duration = pt.time;
        test.category = category;
        if let Some(c) = closed {
            test.parent = c.had_results;
            if let Some(why) = c.skip_all.filter(|_| test.status == Status::Passed) {
                test.status = Status::Skipped;
                pending.reason = Some(skip_all_reason(why));
            }
            if pt.desc.is_empty()
                && let Some(n) = &c.name
            {
                // Test::More's skipped subtest (`ok 3 # skip why`) is named by its announcement.
                test.name = n.clone();
                test.id = TestCase::make_id(test.suite.as_deref(), n);
            } else if let Some(n) = &c.name
                && n != pt.desc
            {
                let msg = format!(
                    "line {line_no}: subtest `{n}` is closed by a test point named `{}`",
                    pt.desc
                );
                self.warn(Code::MalformedStructure, msg);
            }
            let name = test.name.clone();
            self.place_children(c.held, &name, at);
        }
        let block_name = pt.opens_block.then(|| test.name.clone());
        pending.test = Some(test);
        if let Some(name) = block_name {
            // Buffered subtest: children follow inside `{ }`; the point waits for them.
            let (path, parent_id) = if held_level {
                (None, None)
            } else {
                let pp = self.levels[at].path.clone();
                (
                    Some(join(pp.as_deref(), &name)),
                    Some(TestCase::make_id(pp.as_deref(), &name)),
                )
            };
            self.levels.push(Level {
                indent: indent + 1,
                fresh: true,
                name: Some(name),
                path,
                parent_id,
                held: held_level.then(Vec::new),
                buffered: Some(pending),
                ..Level::default()
            });
        } else {
            self.pending = Some(pending);
        }
    }
}

/// Why a subtest closed by a plain `ok` is skipped: node-tap writes a test file that skipped
/// all its tests (`skip_all`) as `1..0 # SKIP why` in its subtest, closed by a plain `ok`. None
/// of its tests ran, so it is not a pass.
fn skip_all_reason(why: String) -> String {
    if why.is_empty() {
        "the file ran none of its tests (`1..0`)".to_owned()
    } else {
        why
    }
}
