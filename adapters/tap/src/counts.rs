//! What a TAP file says about itself beside its test points, and the counts of the points read
//! to hold it against: the footer comments runners write after the last point (`node --test`'s
//! `# tests`/`# pass`/`# fail`/`# cancelled`/`# skipped`/`# todo`, tape's and old node-tap's
//! `# tests`/`# pass`/`# fail`/`# skip`/`# todo`, node-tap's `# failed 4 of 10 tests` and
//! `# skip: 2`), Test::More's `# Looks like you failed N tests of M.` and prove's
//! `Failed N/M subtests` verdict.
//!
//! Plain data and line readers only: evidence.rs turns them into evidence for the sink when a
//! file ends. Nothing here imports the reader.

use gapscore_adapter_sdk::{DeclaredCount, Problem, Status};

/// Everything one file says about itself, gathered while it is read.
#[derive(Debug, Default)]
pub(crate) struct FileClaims {
    pub(crate) points: PointCounts,
    pub(crate) footer: Footer,
    /// Test::More's `Looks like you failed N tests of M.`: (failed, of).
    pub(crate) test_more: Option<(DeclaredCount, DeclaredCount)>,
    /// prove's verdict `Failed N/M subtests`: (failed, of).
    pub(crate) prove: Option<(DeclaredCount, DeclaredCount)>,
    /// Plan mismatches that are numbering only (the points reach the plan's last number but
    /// skip or repeat some): problems, unless the file is `node --test`'s with a footer, whose
    /// numbering does this and whose footer is the declared count.
    pub(crate) numbering: Vec<(Problem, u64)>,
    /// Planned tests without a point that a `plan-mismatch` or `bail-out` already counts as
    /// failed: a footer counts them as tests run (its producer ran them, or the stream lost
    /// them), so they are read with the points and not counted twice.
    pub(crate) unrun: u64,
}

/// What the whole stream read, for prove's `Result: FAIL|PASS` (its exit status, printed after
/// every file's section).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct RunCounts {
    pub(crate) tests: u64,
    pub(crate) failed: u64,
    pub(crate) skipped: u64,
    /// Problems sent, the evidence's included.
    pub(crate) problems: u64,
    /// prove's `Result:` line: whether it says `FAIL`.
    pub(crate) result_failed: Option<bool>,
}

impl RunCounts {
    /// Counts one point sent to the sink.
    pub(crate) fn add(&mut self, status: Status, contradicted: bool) {
        self.tests += 1;
        match status {
            Status::Failed | Status::Errored => self.failed += 1,
            Status::Passed if contradicted => self.failed += 1,
            Status::Passed => {}
            Status::Skipped | Status::Todo | Status::Xpassed | Status::Xfailed => {
                self.skipped += 1;
            }
        }
    }
}

/// Points read in one file (a prove section or the whole stream), counted the ways the
/// declarations count them.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct PointCounts {
    /// Every point but node's `describe` suites (YAML `type: 'suite'`), subtests' own points
    /// included: what a footer's `# tests` counts.
    pub(crate) tests: u64,
    /// Of those, failed or errored (including `ok` points whose YAML holds an error).
    pub(crate) failed: u64,
    /// Of those, skipped or todo (passing or not).
    pub(crate) skipped: u64,
    /// Top-level points (a subtest is one), and those failing without a TODO: what
    /// Test::More's `Looks like you failed` and prove's verdict count.
    pub(crate) top: u64,
    pub(crate) top_failed: u64,
}

impl PointCounts {
    /// Counts one point sent to the sink.
    pub(crate) fn add(&mut self, status: Status, suite_point: bool, contradicted: bool) {
        if suite_point {
            return;
        }
        self.tests += 1;
        match status {
            Status::Failed | Status::Errored => self.failed += 1,
            Status::Skipped | Status::Todo | Status::Xpassed | Status::Xfailed => {
                self.skipped += 1;
            }
            Status::Passed if contradicted => self.failed += 1,
            Status::Passed => {}
        }
    }
}

/// A footer's figures, each as written (the last footer of a file: a test point after footer
/// lines starts over, so a nested stream's footer in the middle of a log is not the file's).
#[derive(Debug, Default, Clone)]
pub(crate) struct Footer {
    pub(crate) tests: Option<DeclaredCount>,
    pub(crate) fail: Option<DeclaredCount>,
    pub(crate) cancelled: Option<DeclaredCount>,
    pub(crate) skip: Option<DeclaredCount>,
    pub(crate) todo: Option<DeclaredCount>,
    /// `# suites N`: `node --test`'s footer.
    pub(crate) node: bool,
    /// The line of its first figure.
    pub(crate) line: u64,
}

impl Footer {
    /// Whether any figure was read.
    pub(crate) fn any(&self) -> bool {
        self.tests.is_some()
            || self.fail.is_some()
            || self.cancelled.is_some()
            || self.skip.is_some()
            || self.todo.is_some()
    }

    /// Reads one top-level comment body (after `#`). `false`: not a footer line.
    pub(crate) fn read(&mut self, body: &str, line: u64) -> bool {
        let body = body.trim();
        // node-tap: `failed 4 of 10 tests`, `skip: 2`.
        if let Some(rest) = body.strip_prefix("failed ")
            && let Some((n, rest)) = rest.split_once(" of ")
            && let Some(m) = rest
                .strip_suffix(" tests")
                .or_else(|| rest.strip_suffix(" test"))
        {
            self.set_line(line);
            self.fail = Some(DeclaredCount::parse(n));
            self.tests = Some(DeclaredCount::parse(m));
            return true;
        }
        let Some((key, value)) = body.split_once([' ', ':']) else {
            return false;
        };
        let value = value.trim_start_matches(':').trim();
        // A count is one word; `# tests of the parser` is prose.
        if value.is_empty() || value.contains(char::is_whitespace) {
            return false;
        }
        let slot = match key {
            "tests" => &mut self.tests,
            "fail" => &mut self.fail,
            "cancelled" => &mut self.cancelled,
            "skip" | "skipped" => &mut self.skip,
            "todo" => &mut self.todo,
            "pass" => {
                // Not held against the records: a pass count is never worse than them.
                self.set_line(line);
                return true;
            }
            "suites" => {
                self.node = true;
                self.set_line(line);
                return true;
            }
            _ => return false,
        };
        *slot = Some(DeclaredCount::parse(value));
        self.set_line(line);
        true
    }

    fn set_line(&mut self, line: u64) {
        if self.line == 0 {
            self.line = line;
        }
    }
}

/// Test::More's `Looks like you failed N test(s) of M( run).`: (failed, of).
pub(crate) fn test_more_failed(body: &str) -> Option<(DeclaredCount, DeclaredCount)> {
    let rest = body.trim().strip_prefix("Looks like you failed ")?;
    let (n, rest) = rest.split_once(' ')?;
    let rest = rest
        .strip_prefix("tests of ")
        .or_else(|| rest.strip_prefix("test of "))?;
    let m = rest.trim_end_matches('.').trim_end_matches(" run");
    Some((DeclaredCount::parse(n), DeclaredCount::parse(m)))
}

/// prove's verdict `Failed N/M subtests`: (failed, of).
pub(crate) fn prove_failed(line: &str) -> Option<(DeclaredCount, DeclaredCount)> {
    let rest = line.trim().strip_prefix("Failed ")?;
    let (frac, rest) = rest.split_once(' ')?;
    if !rest.trim_start().starts_with("subtest") {
        return None;
    }
    let (n, m) = frac.split_once('/')?;
    Some((DeclaredCount::parse(n), DeclaredCount::parse(m)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use DeclaredCount::{Number, Unreadable};

    #[test]
    fn footers_of_each_producer_are_read() {
        let mut f = Footer::default();
        for (l, b) in ["tests 10", "suites 1", "pass 7", "fail 3", "cancelled 0"]
            .iter()
            .enumerate()
        {
            assert!(f.read(b, l as u64 + 1));
        }
        assert!(f.node);
        assert_eq!(f.tests, Some(Number(10)));
        assert_eq!(f.fail, Some(Number(3)));
        assert_eq!(f.line, 1);
        let mut f = Footer::default();
        assert!(f.read("failed 4 of 10 tests", 9));
        assert!(f.read("skip: 2", 10));
        assert_eq!(
            (f.fail, f.tests, f.skip),
            (Some(Number(4)), Some(Number(10)), Some(Number(2)))
        );
        let mut f = Footer::default();
        assert!(f.read("fail  1e1", 1));
        assert_eq!(f.fail, Some(Unreadable("1e1".into())));
        assert!(!f.read("tests of the parser", 1));
        assert!(!f.read("ok", 1));
    }

    #[test]
    fn console_verdicts_are_read() {
        assert_eq!(
            test_more_failed(" Looks like you failed 3 tests of 10."),
            Some((Number(3), Number(10)))
        );
        assert_eq!(
            test_more_failed("Looks like you failed 1 test of 5 run."),
            Some((Number(1), Number(5)))
        );
        assert_eq!(
            test_more_failed("Looks like you planned 5 tests but ran 3."),
            None
        );
        assert_eq!(
            prove_failed("Failed 3/10 subtests "),
            Some((Number(3), Number(10)))
        );
        assert_eq!(
            prove_failed("Failed 1/1 subtest"),
            Some((Number(1), Number(1)))
        );
    }
}
