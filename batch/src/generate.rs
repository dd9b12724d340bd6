//! A synthetic batch tree for tests and the benchmark: `n` repositories in the directory
//! convention with mixed formats (JUnit XML and the simple JSON format), some with run-level
//! problems, some broken (an unreadable format, malformed JSON, no sealed results, a broken
//! seal), all chosen deterministically from the repository number.

use std::fs;
use std::io;
use std::path::Path;

/// What to generate.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct GenerateOptions {
    /// Repositories.
    pub repos: usize,
    /// Sealed tests per repository (open suites get half as many).
    pub tests: usize,
    /// Every `broken`-th repository is broken (0: none).
    pub broken: usize,
    /// Every `problems`-th repository reports a run-level problem (0: none).
    pub problems: usize,
}

impl GenerateOptions {
    /// `repos` repositories of 20 tests, every 10th broken, every 7th with a problem.
    pub fn new(repos: usize) -> Self {
        GenerateOptions {
            repos,
            tests: 20,
            broken: 10,
            problems: 7,
        }
    }
}

/// What kind of repository number `i` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// Scores normally.
    Good,
    /// Scores, with a run-level problem (advisory).
    Problem,
    /// Cannot be scored.
    Broken,
}

/// The kind of repository `i` under `opts`.
pub fn kind(i: usize, opts: &GenerateOptions) -> Kind {
    if opts.broken > 0 && i % opts.broken == opts.broken - 1 {
        Kind::Broken
    } else if opts.problems > 0 && i % opts.problems == opts.problems - 1 {
        Kind::Problem
    } else {
        Kind::Good
    }
}

/// The name of repository `i`.
pub fn name(i: usize) -> String {
    format!("repo-{i:05}")
}

/// A small deterministic mix: how many of `n` tests fail in repository `i`.
fn failures(i: usize, n: usize) -> usize {
    let x = (i.wrapping_mul(2_654_435_761) >> 7) % 100;
    match x {
        0..=29 => 0,
        30..=59 => 1 + x % 2,
        60..=84 => n / 5,
        _ => n * 2 / 3,
    }
    .min(n)
}

fn junit(suite: &str, n: usize, failed: usize, problem: bool) -> String {
    // The collection error is the `.broken` suite's, declared there: a suite declaring an
    // error it does not hold is evidence of a lost failure (issue 31).
    let mut s = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"{suite}\" tests=\"{n}\" failures=\"{failed}\" errors=\"0\">\n"
    );
    for t in 0..n {
        if t < failed {
            s.push_str(&format!(
                "<testcase classname=\"{suite}\" name=\"test_{t} [edge_case]\" time=\"0.01\"><failure message=\"expected 1, got 2\">assert 1 == 2</failure></testcase>\n"
            ));
        } else {
            s.push_str(&format!(
                "<testcase classname=\"{suite}\" name=\"test_{t}\" time=\"0.01\"/>\n"
            ));
        }
    }
    s.push_str("</testsuite>\n");
    if problem {
        s.push_str(&format!(
            "<testsuite name=\"{suite}.broken\" tests=\"1\" errors=\"1\"><testcase classname=\"\" name=\"{suite}.broken\"><error message=\"collection failure\">ImportError: no module named x</error></testcase></testsuite>\n"
        ));
    }
    s.push_str("</testsuites>\n");
    s
}

fn simple(n: usize, failed: usize, problem: bool) -> String {
    let mut s = String::from("{\"tests\": [\n");
    for t in 0..n {
        let status = if t < failed { "failed" } else { "passed" };
        let cat = if t % 3 == 0 { "security" } else { "happy_path" };
        s.push_str(&format!(
            "  {{\"name\": \"test {t}\", \"status\": \"{status}\", \"category\": \"{cat}\"}}{}\n",
            if t + 1 < n { "," } else { "" }
        ));
    }
    s.push(']');
    if problem {
        s.push_str(
            ",\n\"problems\": [{\"kind\": \"crash\", \"detail\": \"runner killed by signal 9\"}]",
        );
    }
    s.push_str("}\n");
    s
}

/// Writes the tree under `root` (created if missing).
pub fn generate(root: &Path, opts: &GenerateOptions) -> io::Result<()> {
    for i in 0..opts.repos {
        let dir = root.join(name(i));
        fs::create_dir_all(dir.join("sealed"))?;
        fs::create_dir_all(dir.join("open"))?;
        let n = opts.tests.max(1);
        let k = kind(i, opts);
        let failed = failures(i, n);
        let problem = k == Kind::Problem;
        if k == Kind::Broken {
            match (i / opts.broken.max(1)) % 3 {
                // Malformed JSON: the simple adapter rejects it.
                0 => fs::write(
                    dir.join("sealed/results.json"),
                    "{\"tests\": [{\"name\": \"a\", \"status\": \"passed\"},",
                )?,
                // No format recognises it.
                1 => fs::write(
                    dir.join("sealed/output.txt"),
                    "Segmentation fault (core dumped)\n",
                )?,
                // No sealed results at all.
                _ => fs::remove_dir(dir.join("sealed"))?,
            }
        } else if i % 2 == 0 {
            fs::write(
                dir.join("sealed/junit.xml"),
                junit(&format!("sealed.r{i}"), n, failed, problem),
            )?;
        } else {
            fs::write(dir.join("sealed/results.json"), simple(n, failed, problem))?;
        }
        let open_n = (n / 2).max(1);
        if i % 2 == 0 {
            fs::write(dir.join("open/results.json"), simple(open_n, 0, false))?;
        } else {
            fs::write(
                dir.join("open/junit.xml"),
                junit(&format!("open.r{i}"), open_n, 0, false),
            )?;
        }
        if i % 5 == 4 && k == Kind::Good {
            fs::write(dir.join("gapscore.toml"), "skipped = \"exclude\"\n")?;
        }
    }
    Ok(())
}
