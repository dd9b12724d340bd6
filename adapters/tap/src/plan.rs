//! Plans are declared counts: plan lines, the plan checks made when a level or a file ends, `Bail out!`
//! (which stops the stream: nothing after it counts), and mocha's uncaught error, a failing
//! point its reporter writes outside its plan.
//!
//! - A plan `1..N` with fewer results is a `plan-mismatch` standing for the missing tests
//!   (`Problem::with_count`), each counted as failed: `1..50` with 11 results counts 39.
//! - More results than planned stay one `plan-mismatch` (count 1): the surplus is read and
//!   scored, the problem says the plan and the stream disagree.
//! - `Bail out!` is one `bail-out` problem carrying the planned tests that never ran (the open
//!   levels' plans minus their results); the plan checks then add no `plan-mismatch` for them.
//!   Lines after it are not read (test points there are counted in one warning).
//! - mocha's `not ok N Uncaught error outside test suite` (`lex::MOCHA_UNCAUGHT`) is a failed
//!   test that mocha writes beyond its plan: parser.rs reads it as a failed test and does not
//!   count it against the plan, so it counts once (not again as a surplus `plan-mismatch`).
//!
//! These are methods of `Parser`: parser.rs defines it and calls them, and imports nothing from
//! here.

use gapscore_adapter_sdk::Code;
use gapscore_adapter_sdk::{Problem, ProblemKind};

use crate::parser::{Level, Parser, SEEN_CAP, UNNAMED};

/// The most missing tests one problem stands for: a hostile plan (`1..18446744073709551615`)
/// still counts as failing everything, and the run's sums of counts cannot overflow.
const COUNT_CAP: u64 = u32::MAX as u64;

impl Parser<'_> {
    /// A plan line `1..N` (`1..0 # SKIP why`) at `indent`.
    pub(crate) fn plan(&mut self, indent: usize, first: u64, last: u64, skip: Option<&str>) {
        self.saw_tap = true;
        let at = self.align(indent);
        let line_no = self.line_no;
        let mut warns = Vec::new();
        if let Some(prev) = self.levels[at].just_closed.take() {
            self.orphan(prev);
        }
        let lvl = &mut self.levels[at];
        if lvl.plan.is_some() {
            warns.push(format!(
                "line {line_no}: a second plan (the first, at line {}, is kept)",
                lvl.plan_line
            ));
        } else {
            if first != 1 && !(first == 0 && last == 0) {
                warns.push(format!("line {line_no}: plan starts at {first}, not 1"));
            }
            let n = if first <= 1 {
                last
            } else {
                last.saturating_sub(first) + 1
            };
            lvl.plan = Some(n);
            lvl.plan_line = line_no;
            lvl.plan_after_tests = lvl.count > 0;
            if n == 0 {
                lvl.plan_skip = Some(skip.unwrap_or("").to_owned());
            }
        }
        for w in warns {
            self.warn(Code::MalformedStructure, w);
        }
    }

    /// `Bail out!`: the stream stops here. The problem carries the planned tests of the open
    /// levels that never ran, when a plan says how many.
    pub(crate) fn bail_out(&mut self, indent: usize, c: &str) {
        self.saw_tap = true;
        let at = self.align(indent);
        self.bailed = true;
        self.bail_line = self.line_no;
        let suite = self.levels[at]
            .path
            .clone()
            .or_else(|| self.prove_file.clone());
        let never_ran = self.never_ran(at);
        let mut p = Problem::new(ProblemKind::BailOut, c.trim_end());
        if let Some(n) = never_ran.map(|n| n.min(COUNT_CAP)).filter(|n| *n > 0) {
            p.detail.push_str(&format!(
                " ({n} planned test{} never ran)",
                if n == 1 { "" } else { "s" }
            ));
            p = p.with_count(n);
            self.claims.unrun = self.claims.unrun.saturating_add(n);
        }
        p.suite = suite;
        self.problem(p);
    }

    /// Planned tests without a result in the levels `0..=at`: the innermost level's plan minus
    /// its results; an outer level's minus its results and the subtest in progress (whose own
    /// plan counts its children). `None` when no open level has a plan yet.
    fn never_ran(&self, at: usize) -> Option<u64> {
        let mut total: Option<u64> = None;
        for (i, l) in self.levels.iter().enumerate().take(at + 1) {
            let Some(plan) = l.plan else { continue };
            let in_progress = u64::from(i < at);
            let missing = plan.saturating_sub(l.count + in_progress);
            total = Some(total.unwrap_or(0).saturating_add(missing));
        }
        total
    }

    /// Plan checks of a level that ends. `top`: the level is a whole file or stream.
    pub(crate) fn check_plan(&mut self, lvl: &mut Level, suite: Option<String>, top: bool) {
        let problem = |kind, detail: String| {
            let mut p = Problem::new(kind, detail);
            p.suite = suite.clone();
            p
        };
        let mut problems = Vec::new();
        let mut warns = Vec::new();
        match lvl.plan {
            Some(0) if lvl.count == 0 => {
                if top {
                    let r = lvl.plan_skip.clone().unwrap_or_default();
                    problems.push(problem(
                        ProblemKind::SuiteError,
                        if r.is_empty() {
                            "plan 1..0: every test of the file was skipped, none ran".to_owned()
                        } else {
                            format!("plan 1..0: every test of the file was skipped, none ran ({r})")
                        },
                    ));
                }
            }
            // After `Bail out!` the bail-out problem carries the tests that never ran.
            Some(n) if self.bailed && lvl.count < n => {}
            Some(n) => {
                let missing = missing_numbers(&lvl.seen, n);
                if n != lvl.count || !missing.0.is_empty() {
                    let mut d = format!("planned {n}, ran {}", lvl.count);
                    if !missing.0.is_empty() {
                        let list: Vec<String> = missing.0.iter().map(u64::to_string).collect();
                        d.push_str(&format!(
                            "; no result numbered {}{}",
                            list.join(", "),
                            if missing.1 > missing.0.len() as u64 {
                                format!(" (and {} more)", missing.1 - missing.0.len() as u64)
                            } else {
                                String::new()
                            }
                        ));
                    }
                    // Fewer results: each missing one counts as failed. As many or more: the
                    // numbers without a result (a repeat hiding a missing test), else one.
                    let count = if lvl.count < n {
                        n - lvl.count
                    } else {
                        missing.1
                    }
                    .min(COUNT_CAP);
                    if count > 0 {
                        d.push_str(&if count == 1 {
                            " (1 planned test without a result, counted as failed)".to_owned()
                        } else {
                            format!(
                                " ({count} planned tests without a result, each counted as failed)"
                            )
                        });
                    }
                    let mut p = problem(ProblemKind::PlanMismatch, d);
                    if count > 0 {
                        p = p.with_count(count);
                    }
                    // The points reach the plan's last number and skip or repeat others: a
                    // numbering fault, which node's runner makes (evidence.rs decides).
                    let unrun = if lvl.count < n { count } else { 0 };
                    if lvl.max_number >= n && !missing.0.is_empty() {
                        self.claims.numbering.push((p, unrun));
                    } else {
                        self.claims.unrun = self.claims.unrun.saturating_add(unrun);
                        problems.push(p);
                    }
                }
            }
            None if top => {
                if !self.bailed {
                    problems.push(problem(
                        ProblemKind::NoPlan,
                        format!(
                            "no plan line (`1..N`) after {} results: completeness cannot be checked",
                            lvl.count
                        ),
                    ));
                }
            }
            None => {
                if lvl.count > 0 {
                    warns.push(format!(
                        "subtest `{}` has no plan",
                        suite.as_deref().unwrap_or(UNNAMED)
                    ));
                }
            }
        }
        for p in problems {
            self.problem(p);
        }
        for w in warns {
            self.warn(Code::MalformedStructure, w);
        }
    }
}

/// Numbers in `1..=plan` without a result: the first ten, and how many in all. Nothing when
/// the plan is beyond what is tracked.
#[inline]
fn missing_numbers(seen: &[u64], plan: u64) -> (Vec<u64>, u64) {
    if plan > SEEN_CAP {
        return (Vec::new(), 0);
    }
    let mut first = Vec::new();
    let mut total = 0u64;
    for n in 1..=plan {
        let (w, b) = ((n / 64) as usize, n % 64);
        if seen.get(w).is_none_or(|x| x & (1 << b) == 0) {
            total += 1;
            if first.len() < 10 {
                first.push(n);
            }
        }
    }
    (first, total)
}
