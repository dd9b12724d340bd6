//! Evidence beside the test points: when a file ends (a prove section or the whole stream), its
//! footer (`# tests`/`# fail`/…), Test::More's `Looks like you failed N tests of M.` and prove's
//! `Failed N/M subtests` go to the sink as [`Evidence`], held against the points read the way
//! each counts them ([`PointCounts`]); `Evidence::judge` decides. An `ok` point whose YAML block
//! holds an error is evidence too, one per point. Also here: node's numbering, which skips and
//! repeats numbers (its footer is the declared count instead), and node-tap 0.x's runner log,
//! which is not TAP.
//!
//! These are methods of `Parser`: parser.rs defines it and calls them, and imports nothing from
//! here.

use gapscore_adapter_sdk::{
    AdapterError, Code, Declared, DeclaredCount, Evidence, EvidenceSource, InputError, Location,
    Problem, ReadCounts, Status,
};

use crate::counts::{Footer, PointCounts, prove_failed, test_more_failed};
use crate::lex::{Directive, Point};
use crate::parser::Parser;

impl Parser<'_> {
    /// A point of the file's top level: counted for Test::More's and prove's verdicts; footer
    /// lines before it were not the file's footer (a nested stream's, in a log).
    pub(crate) fn top_point(&mut self, line_no: u64, pt: &Point<'_>, status: Status) {
        let c = &mut self.claims;
        c.points.top += 1;
        if status == Status::Failed {
            c.points.top_failed += 1;
        }
        if c.footer.any() || c.footer.node {
            c.footer = Footer::default();
        }
        if self.runner_log.is_none()
            && pt.number.is_none()
            && pt.directive == Directive::None
            && is_runner_summary(pt.desc)
        {
            let word = if pt.ok { "ok" } else { "not ok" };
            self.runner_log = Some((line_no, format!("{word} {}", pt.desc)));
        }
    }

    /// A comment at the top level: a footer line or Test::More's verdict, kept for the end of
    /// the file.
    pub(crate) fn top_comment(&mut self, body: &str) {
        if let Some(v) = test_more_failed(body) {
            self.claims.test_more = Some(v);
            return;
        }
        let line = self.line_no;
        self.claims.footer.read(body, line);
    }

    /// prove's verdict line after a file's TAP.
    pub(crate) fn prove_verdict(&mut self, line: &str) {
        if let Some(v) = prove_failed(line) {
            self.claims.prove = Some(v);
        }
    }

    /// Counts a point sent to the sink.
    pub(crate) fn sent(&mut self, status: Status, suite_point: bool, contradicted: bool) {
        self.claims.points.add(status, suite_point, contradicted);
        self.run.add(status, contradicted);
    }

    /// Sends a run-level problem, counted for prove's `Result:`.
    pub(crate) fn problem(&mut self, p: Problem) {
        self.run.problems += 1;
        self.sink.problem(p);
    }

    /// Sends evidence, its problems counted for prove's `Result:`.
    fn claim(&mut self, e: Evidence) {
        self.run.problems += e.judge().problems.len() as u64;
        self.sink.evidence(e);
    }

    /// A line of prove's summary report (after every file): `Result: FAIL` or `Result: PASS`.
    pub(crate) fn summary_line(&mut self, line: &str) {
        match line.trim_end().strip_prefix("Result: ") {
            Some("FAIL") => self.run.result_failed = Some(true),
            Some("PASS") => self.run.result_failed = Some(false),
            _ => {}
        }
    }

    /// prove's `Result:` against the whole stream: `FAIL` with no failed or skipped point and no
    /// problem is an `exit-status` problem.
    pub(crate) fn run_evidence(&mut self) {
        let r = self.run;
        if let Some(failed) = r.result_failed {
            let e = Evidence::new(EvidenceSource::ExitStatus, "prove's `Result:` line")
                .declaring(Declared::new().run_failed(failed))
                .reading(ReadCounts::new(r.tests, r.failed, r.skipped).with_problems(r.problems));
            self.claim(e);
        }
    }

    /// An `ok` point whose YAML block says it failed (`key`): the worse signal wins. The point
    /// is read as written and this evidence, declaring one failure among it, turns it into one
    /// (a counted `summary-line` problem in its suite), so the report says what disagreed.
    pub(crate) fn contradicted(&mut self, suite: Option<&str>, name: &str, key: &str) {
        let line = self.line_no;
        let place =
            format!("the YAML block of `ok - {name}` (before line {line}), which holds `{key}`,");
        let mut e = Evidence::new(EvidenceSource::Footer, place)
            .declaring(Declared::new().failed(DeclaredCount::Number(1)))
            .reading(ReadCounts::new(1, 0, 0));
        if let Some(s) = suite {
            e = e.with_scope(s);
        }
        self.claim(e);
    }

    /// A stream whose top level is node-tap 0.x's runner log (`ok tests/x.js ..... 23/23`, no
    /// plan) is refused, naming what it is: its counts name no tests.
    pub(crate) fn refuse_runner_log(&mut self) -> Result<(), AdapterError> {
        let Some((line_no, text)) = self.runner_log.take() else {
            return Ok(());
        };
        if self.levels[0].plan.is_some() || self.prove_file.is_some() {
            return Ok(());
        }
        Err(AdapterError::Input(InputError::Content {
            location: Location::LineCol {
                line: usize::try_from(line_no).unwrap_or(usize::MAX),
                column: 1,
            },
            message: format!(
                "`{text}` is a summary line of node-tap 0.x's runner (`tap ./tests`), not a TAP \
                 stream: its per-file counts name no tests. Score the TAP of each file instead \
                 (`tap --tap`, or `node FILE`)"
            ),
        }))
    }

    /// The end of a file (`plan`: its top level's): its claims against its points, then a
    /// fresh start for the next.
    pub(crate) fn file_evidence(&mut self, plan: Option<u64>) {
        let mut c = std::mem::take(&mut self.claims);
        let scope = self.prove_file.clone();
        let p: PointCounts = c.points;
        let f = &c.footer;
        // node numbers points per file process, skipping and repeating numbers; its footer
        // counts the tests and is judged below, so its plan's numbering is only a warning.
        let node_footer = f.node && matches!(f.tests, Some(DeclaredCount::Number(_)));
        for (problem, unrun) in std::mem::take(&mut c.numbering) {
            if node_footer {
                self.warn(
                    Code::MalformedStructure,
                    format!(
                        "{} (node --test's numbering: its footer `# tests` is the count held against the points)",
                        problem.detail
                    ),
                );
            } else {
                c.unrun = c.unrun.saturating_add(unrun);
                self.problem(problem);
            }
        }
        let unrun = c.unrun;
        let mut claims = Vec::new();
        if f.any() {
            let mut d = Declared::new();
            if let Some(t) = &f.tests {
                d = d.tests(t.clone());
            }
            // node's `# cancelled` tests are `not ok` points, read as failed.
            if let Some(n) = DeclaredCount::checked_sum(f.fail.as_ref(), f.cancelled.as_ref()) {
                d = d.failed(n);
            }
            if let Some(n) = DeclaredCount::checked_sum(f.skip.as_ref(), f.todo.as_ref()) {
                d = d.skipped(n);
            }
            claims.push(
                Evidence::new(
                    EvidenceSource::Footer,
                    format!("the footer at line {} (`# tests`, `# fail`, …)", f.line),
                )
                .declaring(d)
                .reading(ReadCounts::new(
                    // mocha's footer has no skip figure and its `# tests` leaves out pending
                    // tests (`# tests 11`, `# pass 8`, `# fail 3` over 12 points, one skipped).
                    if f.skip.is_none() && f.todo.is_none() {
                        p.tests - p.skipped
                    } else {
                        p.tests
                    }
                    .saturating_add(unrun),
                    p.failed.saturating_add(unrun),
                    p.skipped,
                )),
            );
        }
        let top = ReadCounts::new(p.top, p.top_failed, 0);
        // Test::More writes its verdict on stderr, which prove's output merges out of order
        // (before the file's header, in another file's section): under prove, prove's own
        // verdict on stdout stands for it.
        if let Some((failed, of)) = c.test_more.filter(|_| !self.evidence.prove) {
            claims.push(
                Evidence::new(
                    EvidenceSource::Footer,
                    "Test::More's `# Looks like you failed`",
                )
                .declaring(Declared::new().tests(of).failed(failed))
                .reading(top),
            );
        }
        if let Some((failed, of)) = c.prove {
            // prove counts each planned test without a result as a failed subtest; the plan
            // check has counted them already (`plan-mismatch`), so they are read here too.
            let never_ran = plan.unwrap_or(0).saturating_sub(p.top);
            let top = ReadCounts::new(p.top + never_ran, p.top_failed + never_ran, 0);
            claims.push(
                Evidence::new(
                    EvidenceSource::ConsoleSummary,
                    "prove's `Failed N/M subtests`",
                )
                .declaring(Declared::new().tests(of).failed(failed))
                .reading(top),
            );
        }
        for mut e in claims {
            if let Some(s) = &scope {
                e = e.with_scope(s.clone());
            }
            self.claim(e);
        }
    }
}

/// node-tap 0.x's runner line `tests/x.js ....... 23/23` (after `ok `/`not ok `).
pub(crate) fn is_runner_summary(desc: &str) -> bool {
    let Some((file, rest)) = desc.split_once(" ..") else {
        return false;
    };
    let rest = rest.trim_start_matches('.');
    let Some(frac) = rest.strip_prefix(' ').map(str::trim) else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    !file.contains(' ')
        && frac
            .split_once('/')
            .is_some_and(|(a, b)| digits(a) && digits(b))
}

#[cfg(test)]
mod tests {
    use super::is_runner_summary;

    #[test]
    fn runner_summary_lines_are_told_from_test_names() {
        assert!(is_runner_summary(
            "tests/cbl-database.js .............. 23/23"
        ));
        assert!(is_runner_summary("tests/x.js .. 22/51"));
        assert!(!is_runner_summary("adds two numbers"));
        assert!(!is_runner_summary("loads .. then 2/3 of the files"));
    }
}
