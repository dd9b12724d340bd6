//! Console summaries: the counts a runner prints at the end of its run (`== 2 failed, 3 passed
//! in 0.1s ==`, `Tests: 2 failed, 3 passed, 5 total`, `test result: FAILED. 3 passed; 2 failed;
//! ...`), read from its output as a second channel beside the result files (issue 32).
//!
//! One parser per runner, each anchored on the runner's own wording and strict about the rest
//! of the line (a line is a summary only when every part of it reads), no regular expressions.
//! Lines of one ecosystem are summed ([`SummaryCollector`]): cargo prints one `test result:` per
//! test binary, go one `--- FAIL:` per failed test, prove one `Failed N/M subtests` per file.
//! Where each wording was seen is in `runner/tests/fixtures/console/README.md`.

/// What one summary line declares. `None`: the line does not say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCounts {
    /// Tests that failed or errored.
    pub failed: Option<u64>,
    /// Tests that passed (pytest's `xpassed` included: its result file records them as
    /// passed).
    pub passed: Option<u64>,
}

/// The most summary lines quoted per ecosystem; the rest are counted.
pub const MAX_QUOTED: usize = 3;

/// The summary lines of one ecosystem on one stream, summed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleSummary {
    /// `pytest`, `jest`, `vitest`, `go`, `cargo`, `nextest`, `prove` or `node`.
    pub ecosystem: &'static str,
    /// `"stdout"` or `"stderr"`.
    pub stream: &'static str,
    /// How many summary lines were read.
    pub lines: u64,
    /// The first few of them, as printed (colours removed, cut to a sane length).
    pub quoted: Vec<String>,
    /// Failed tests, summed over the lines.
    pub failed: u64,
    /// Passed tests, summed over the lines; `None` when the runner does not print them all
    /// (go prints `--- PASS:` only under `-v`).
    pub passed: Option<u64>,
    /// The runner counts a test that has subtests as one more test, which its result files
    /// record as a suite (`node --test`: a failing subtest fails its parent, and `# fail`
    /// counts both): its failures are an upper bound, not a count to hold against the
    /// records. Its passes still are (a passing parent only adds to them).
    pub parents_counted: bool,
    /// The most failures a single line said (the worst line).
    pub most_failed: u64,
    /// The fewest passes a single line said, of the lines that say them (the worst line).
    pub least_passed: Option<u64>,
}

impl ConsoleSummary {
    /// Whether the runner prints one summary for the whole run (pytest, jest, vitest, nextest,
    /// node), rather than one per package, test binary or failed file (go, cargo, prove), which
    /// add up.
    pub fn one_per_run(&self) -> bool {
        !matches!(self.ecosystem, "go" | "cargo" | "prove")
    }

    /// The failures to hold against the records: a runner with one summary per run gives the
    /// worst line's (a line the code under test printed can only make it worse), the others
    /// the sum.
    pub fn held_failed(&self) -> u64 {
        if self.one_per_run() {
            self.most_failed
        } else {
            self.failed
        }
    }

    /// The passes to hold against the records: the worst line's for a runner with one summary
    /// per run (a printed line claiming more passes cannot offset the runner's own), the sum
    /// for the others.
    pub fn held_passed(&self) -> Option<u64> {
        if self.one_per_run() {
            self.least_passed
        } else {
            self.passed
        }
    }
}

/// The ecosystem whose summary `command`'s runner prints at the end of every complete run, when
/// gapscore knows the runner: `pytest` (its script, or `python -m pytest`), `jest`, `vitest`,
/// `node` (`node --test`), `prove`, `go` (`go test`), `cargo` (`cargo test`), `nextest`
/// (`cargo nextest run`), behind `env NAME=VALUE`, `npx`, `uv run`, `poetry run`, `pipenv run`,
/// `pdm run` and `hatch run`.
pub fn expected_ecosystem(command: &[String]) -> Option<&'static str> {
    let (first, rest) = command.split_first()?;
    let name = std::path::Path::new(first).file_name()?.to_str()?;
    let name = name.strip_suffix(".exe").unwrap_or(name);
    let has = |arg: &str| rest.iter().any(|a| a == arg);
    let pytest = || {
        // `-qq` and quieter print no counts line, and `-p no:terminal` nothing at all.
        let quiet: usize = rest
            .iter()
            .filter(|a| a.starts_with("-q") && a[1..].bytes().all(|b| b == b'q'))
            .map(|a| a.len() - 1)
            .sum::<usize>()
            + rest.iter().filter(|a| *a == "--quiet").count();
        let no_terminal = rest
            .windows(2)
            .any(|w| w[0] == "-p" && w[1] == "no:terminal")
            || has("-pno:terminal");
        (quiet < 2 && !no_terminal).then_some("pytest")
    };
    match name {
        "pytest" | "py.test" => pytest(),
        // Only reporters that print to the console print the summary: `--reporters` without
        // `default`, or vitest reporters that are all file ones, print none.
        "jest" => {
            let named: Vec<&String> = rest
                .iter()
                .filter(|a| a.starts_with("--reporters"))
                .collect();
            (named.is_empty() || named.iter().any(|a| a.contains("default"))).then_some("jest")
        }
        "vitest" => {
            let reporters: Vec<&str> = rest
                .iter()
                .filter_map(|a| a.strip_prefix("--reporter="))
                .collect();
            let console = ["default", "verbose", "dot", "basic", "tree"];
            (reporters.is_empty() || reporters.iter().any(|r| console.contains(r)))
                .then_some("vitest")
        }
        "prove" => Some("prove"),
        // node prints its summary with a reporter on the console: no destination given, or
        // standard output or error among them.
        "node" if has("--test") => {
            let destinations: Vec<&str> = rest
                .iter()
                .filter_map(|a| a.strip_prefix("--test-reporter-destination="))
                .collect();
            (destinations.is_empty()
                || destinations
                    .iter()
                    .any(|d| *d == "stdout" || *d == "stderr"))
            .then_some("node")
        }
        "go" if rest.first().is_some_and(|a| a == "test") => Some("go"),
        "cargo" if rest.first().is_some_and(|a| a == "nextest") => Some("nextest"),
        "cargo" if rest.first().is_some_and(|a| a == "test") => Some("cargo"),
        "env" => {
            let skip = rest
                .iter()
                .take_while(|a| a.contains('=') && !a.starts_with('-'))
                .count();
            expected_ecosystem(&rest[skip..])
        }
        "npx" => expected_ecosystem(rest),
        "uv" | "poetry" | "pipenv" | "pdm" | "hatch"
            if rest.first().is_some_and(|a| a == "run") =>
        {
            expected_ecosystem(&rest[1..])
        }
        _ if name.starts_with("python")
            && (has("-mpytest") || rest.windows(2).any(|w| w[0] == "-m" && w[1] == "pytest")) =>
        {
            Some("pytest")
        }
        _ => None,
    }
}

/// Adds summary lines up, per ecosystem, in order of first appearance.
#[derive(Debug, Clone)]
pub struct SummaryCollector {
    stream: &'static str,
    found: Vec<ConsoleSummary>,
}

impl SummaryCollector {
    /// A collector for the lines of `stream` (`"stdout"` or `"stderr"`).
    pub fn new(stream: &'static str) -> Self {
        SummaryCollector {
            stream,
            found: Vec::new(),
        }
    }

    /// Reads one line (colours removed, no line end).
    pub fn line(&mut self, line: &str) {
        let Some((ecosystem, counts)) = parse_line(line) else {
            return;
        };
        let i = match self.found.iter().position(|s| s.ecosystem == ecosystem) {
            Some(i) => i,
            None => {
                self.found.push(ConsoleSummary {
                    ecosystem,
                    stream: self.stream,
                    lines: 0,
                    quoted: Vec::new(),
                    failed: 0,
                    passed: Some(0),
                    parents_counted: ecosystem == "node",
                    most_failed: 0,
                    least_passed: None,
                });
                self.found.len() - 1
            }
        };
        let s = &mut self.found[i];
        s.lines = s.lines.saturating_add(1);
        if s.quoted.len() < MAX_QUOTED {
            s.quoted.push(crate::recognise::cut(line.trim()));
        }
        s.failed = s.failed.saturating_add(counts.failed.unwrap_or(0));
        s.most_failed = s.most_failed.max(counts.failed.unwrap_or(0));
        if let Some(p) = counts.passed {
            s.least_passed = Some(s.least_passed.map_or(p, |l| l.min(p)));
        }
        s.passed = match (s.passed, counts.passed) {
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            // node states one figure per line: its `fail` line says nothing of passes.
            (Some(a), None) if ecosystem == "node" => Some(a),
            _ => None,
        };
    }

    /// The summaries read, one per ecosystem.
    pub fn finish(self) -> Vec<ConsoleSummary> {
        self.found
    }
}

/// The ecosystem and counts of a summary line, or `None` for any other line.
///
/// Only go's, nextest's and vitest's summaries may be indented (go indents subtests' lines,
/// the others their summary block); every other runner prints its summary at the start of the
/// line, so a runner's output quoted indented by another (nextest shows a failed test's libtest
/// output, `test result: FAILED. ...` included, four spaces in) is not counted twice.
pub fn parse_line(line: &str) -> Option<(&'static str, LineCounts)> {
    let line = line.trim_end();
    let t = line.trim_start();
    if t.is_empty() {
        return None;
    }
    // Cheapest first tests: most lines are none of these.
    if let Some(c) = go_line(t) {
        return Some(("go", c));
    }
    if let Some(rest) = t.strip_prefix("Summary [") {
        return nextest(rest).map(|c| ("nextest", c));
    }
    if let Some(rest) = t.strip_prefix("Tests ") {
        return vitest(rest).map(|c| ("vitest", c));
    }
    if t.len() != line.len() {
        return None;
    }
    if let Some(rest) = t.strip_prefix("test result: ") {
        return libtest(rest).map(|c| ("cargo", c));
    }
    if let Some(rest) = t.strip_prefix("Tests:") {
        return jest(rest).map(|c| ("jest", c));
    }
    if let Some(c) = node(t) {
        return Some(("node", c));
    }
    if let Some(rest) = t.strip_prefix("Failed ") {
        return prove(rest).map(|c| ("prove", c));
    }
    pytest(t).map(|c| ("pytest", c))
}

/// `N word` with a count in range.
fn count_word(part: &str) -> Option<(u64, &str)> {
    let (n, word) = part.trim().split_once(' ')?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((n.parse().ok()?, word.trim()))
}

/// go test: `--- FAIL: TestX (0.00s)`, at any indentation (subtests), one per failed test.
/// `--- PASS:` is printed only under `-v`, so passes are never declared.
fn go_line(t: &str) -> Option<LineCounts> {
    let rest = t.strip_prefix("--- FAIL: ")?;
    // The test's name, then its duration in parentheses.
    (rest.ends_with("s)") && rest.contains(" (")).then_some(LineCounts {
        failed: Some(1),
        passed: None,
    })
}

/// libtest, after `test result: `: `FAILED. 3 passed; 2 failed; 0 ignored; 0 measured; 0
/// filtered out; finished in 0.14s` (or `ok. ...`).
fn libtest(rest: &str) -> Option<LineCounts> {
    let rest = rest
        .strip_prefix("ok. ")
        .or_else(|| rest.strip_prefix("FAILED. "))?;
    let mut c = LineCounts::default();
    for part in rest.split("; ") {
        if part.starts_with("finished in ") {
            break;
        }
        let (n, word) = count_word(part)?;
        match word {
            "passed" => c.passed = Some(n),
            "failed" => c.failed = Some(n),
            "ignored" | "measured" | "filtered out" => {}
            _ => return None,
        }
    }
    (c.passed.is_some() && c.failed.is_some()).then_some(c)
}

/// nextest, after `Summary [`: `   0.672s] 7 tests run: 4 passed, 3 failed, 0 skipped`, with
/// extras in parentheses (`4 passed (1 slow)`) and `1 timed out` counted as failed.
fn nextest(rest: &str) -> Option<LineCounts> {
    let (_, rest) = rest.split_once("] ")?;
    let (_, rest) = rest
        .split_once(" tests run: ")
        .or_else(|| rest.split_once(" test run: "))?;
    let mut c = LineCounts {
        failed: Some(0),
        passed: Some(0),
    };
    for part in rest.split(", ") {
        let part = part.split(" (").next().unwrap_or(part);
        let (n, word) = count_word(part)?;
        match word {
            "passed" => c.passed = Some(n),
            "failed" | "timed out" => c.failed = c.failed.map(|f| f.saturating_add(n)),
            "skipped" | "leaky" | "slow" | "flaky" | "not run" => {}
            _ => return None,
        }
    }
    Some(c)
}

/// Jest, after `Tests:`: `       2 failed, 3 passed, 5 total` (also `skipped`, `todo`).
fn jest(rest: &str) -> Option<LineCounts> {
    let mut c = LineCounts {
        failed: Some(0),
        passed: Some(0),
    };
    let mut total = false;
    for part in rest.trim().split(", ") {
        let (n, word) = count_word(part)?;
        match word {
            "failed" => c.failed = Some(n),
            "passed" => c.passed = Some(n),
            "total" => total = true,
            "skipped" | "todo" | "pending" => {}
            _ => return None,
        }
    }
    total.then_some(c)
}

/// Vitest, after `Tests `: ` 2 failed | 3 passed (5)` (also `skipped`, `todo`, `expected
/// fail`).
fn vitest(rest: &str) -> Option<LineCounts> {
    let rest = rest.trim();
    let (parts, total) = rest.rsplit_once(" (")?;
    let total = total.strip_suffix(')')?;
    if total.is_empty() || !total.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut c = LineCounts {
        failed: Some(0),
        passed: Some(0),
    };
    for part in parts.split(" | ") {
        let (n, word) = count_word(part)?;
        match word {
            "failed" => c.failed = Some(n),
            "passed" => c.passed = Some(n),
            "skipped" | "todo" | "expected fail" => {}
            _ => return None,
        }
    }
    Some(c)
}

/// `node --test`: the TAP reporter's `# fail 2` and `# pass 3`, the spec reporter's `ℹ fail 2`
/// and `ℹ pass 3`, one figure per line (summed with the rest by the collector).
fn node(t: &str) -> Option<LineCounts> {
    let rest = t.strip_prefix("# ").or_else(|| t.strip_prefix("ℹ "))?;
    let (word, n) = rest.split_once(' ')?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = n.parse().ok()?;
    match word {
        // One figure per line: the other is not stated (not zero), so that the worst line of
        // each figure is the runner's own.
        "fail" => Some(LineCounts {
            failed: Some(n),
            passed: None,
        }),
        "pass" => Some(LineCounts {
            failed: None,
            passed: Some(n),
        }),
        _ => None,
    }
}

/// prove, after `Failed `: `2/5 subtests`, one line per failed test file. Passes are not
/// printed per file, so never declared.
fn prove(rest: &str) -> Option<LineCounts> {
    let (failed, rest) = rest.split_once('/')?;
    let (planned, word) = rest.split_once(' ')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(failed) || !digits(planned) || word.trim() != "subtests" {
        return None;
    }
    Some(LineCounts {
        failed: Some(failed.parse().ok()?),
        passed: None,
    })
}

/// pytest's final line, with or without its `=` rule (`-q` prints none): `2 failed, 3 passed,
/// 1 error in 0.06s`, `no tests ran in 0.01s`.
fn pytest(t: &str) -> Option<LineCounts> {
    let t = t.trim_matches(|c| c == '=' || c == ' ');
    let (parts, time) = t.rsplit_once(" in ")?;
    // `0.06s`, `12.34s (0:00:12)`.
    let secs = time.split(' ').next()?.strip_suffix('s')?;
    if secs.is_empty() || !secs.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let mut c = LineCounts {
        failed: Some(0),
        passed: Some(0),
    };
    if parts == "no tests ran" {
        return Some(c);
    }
    let add = |x: &mut Option<u64>, n: u64| *x = x.map(|v| v.saturating_add(n));
    for part in parts.split(", ") {
        let (n, word) = count_word(part)?;
        match word {
            "failed" | "error" | "errors" => add(&mut c.failed, n),
            "passed" | "xpassed" => add(&mut c.passed, n),
            "skipped" | "xfailed" | "deselected" | "warning" | "warnings" | "rerun" => {}
            _ => return None,
        }
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(failed: Option<u64>, passed: Option<u64>) -> LineCounts {
        LineCounts { failed, passed }
    }

    #[test]
    fn each_runner_wording() {
        let cases = [
            (
                "===== 2 failed, 3 passed in 0.06s =====",
                ("pytest", c(Some(2), Some(3))),
            ),
            (
                "1 failed, 1 passed, 1 skipped, 1 xfailed, 1 xpassed, 1 error in 0.06s",
                ("pytest", c(Some(2), Some(2))),
            ),
            (
                "== 5 passed in 12.01s (0:00:12) ==",
                ("pytest", c(Some(0), Some(5))),
            ),
            ("no tests ran in 0.01s", ("pytest", c(Some(0), Some(0)))),
            (
                "Tests:       2 failed, 1 skipped, 3 passed, 6 total",
                ("jest", c(Some(2), Some(3))),
            ),
            (
                "Tests  2 failed | 3 passed (5)",
                ("vitest", c(Some(2), Some(3))),
            ),
            (
                "    --- FAIL: TestFive/sub (0.00s)",
                ("go", c(Some(1), None)),
            ),
            (
                "test result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.14s",
                ("cargo", c(Some(2), Some(3))),
            ),
            (
                "Summary [   0.672s] 7 tests run: 4 passed (1 slow), 2 failed, 1 timed out, 0 skipped",
                ("nextest", c(Some(3), Some(4))),
            ),
            ("Failed 2/5 subtests", ("prove", c(Some(2), None))),
            ("# fail 2", ("node", c(Some(2), None))),
            ("ℹ pass 3", ("node", c(None, Some(3)))),
        ];
        for (line, want) in cases {
            assert_eq!(parse_line(line), Some(want), "{line}");
        }
    }

    #[test]
    fn lines_that_only_look_like_summaries() {
        for line in [
            "FAILED test_x.py::test_y - assert 2 failed, 3 passed in 0.1s",
            "the 2 cats in 3s",
            "Tests: 2 failed",
            "Test Files  1 failed (1)",
            "test result: FAILED. many passed",
            "# fail two",
            "# tests 5",
            "--- FAIL: TestX",
            "Failed tests:  4-5",
            "in 0.1s",
            "    test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 4 filtered out; finished in 0.33s",
            "  == 1 failed in 0.1s ==",
        ] {
            assert_eq!(parse_line(line), None, "{line}");
        }
    }

    #[test]
    fn lines_of_one_ecosystem_are_summed_and_quoted_up_to_a_cap() {
        let mut s = SummaryCollector::new("stdout");
        for _ in 0..5 {
            s.line("test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.1s");
        }
        s.line("--- FAIL: TestX (0.00s)");
        let found = s.finish();
        assert_eq!(found.len(), 2);
        assert_eq!(
            (found[0].lines, found[0].failed, found[0].passed),
            (5, 10, Some(5))
        );
        assert_eq!(found[0].quoted.len(), MAX_QUOTED);
        assert_eq!(
            (found[1].ecosystem, found[1].failed, found[1].passed),
            ("go", 1, None)
        );
    }

    #[test]
    fn the_runners_that_print_a_summary_are_known_by_their_command() {
        let e = |c: &str| {
            let words: Vec<String> = c.split(' ').map(str::to_owned).collect();
            expected_ecosystem(&words)
        };
        assert_eq!(e("pytest tests/sealed --junitxml=r.xml"), Some("pytest"));
        assert_eq!(e("python3 -m pytest -q tests"), Some("pytest"));
        assert_eq!(e("pytest -qq tests"), None);
        assert_eq!(e("pytest -q -q tests"), None);
        assert_eq!(e("pytest -p no:terminal tests"), None);
        assert_eq!(e("uv run pytest tests"), Some("pytest"));
        assert_eq!(e("jest --json --outputFile=r.json"), Some("jest"));
        assert_eq!(e("jest --reporters=jest-junit"), None);
        assert_eq!(e("vitest run --reporter=junit --outputFile=r.xml"), None);
        assert_eq!(
            e("vitest run --reporter=default --reporter=junit"),
            Some("vitest")
        );
        assert_eq!(e("node --test sealed"), Some("node"));
        assert_eq!(
            e("node --test --test-reporter=junit --test-reporter-destination=r.xml sealed"),
            None
        );
        assert_eq!(e("env RUSTC_BOOTSTRAP=1 cargo test"), Some("cargo"));
        assert_eq!(e("cargo nextest run"), Some("nextest"));
        assert_eq!(e("go test ./..."), Some("go"));
        assert_eq!(e("prove -v t"), Some("prove"));
        assert_eq!(e("make test"), None);
    }
}
