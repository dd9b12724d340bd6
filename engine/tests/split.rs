//! `score` with a JUnit file read in parts (the host's split read) against `score` with
//! it read in one pass: the whole report, the diagnostics (errors with their file, line and
//! column) and the exit code must be the same for every JUnit file in the repository's
//! fixtures and bad-input corpus, split at boundary guesses, and for hand-made files with ids
//! repeated across the halves, a root total that only adds up across them, a jest
//! once-per-file flag and a file cut or broken after the split. `cargo test` tries a fixed
//! sample of the splits of each fixture; the full set is `#[ignore]`d and run by `.ci/run` on
//! an optimised build.

#![allow(clippy::unwrap_used)] // Test code.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use gapscore_engine::adapters::{IngestOptions, Registry, SplitOptions};
use gapscore_engine::{ScoreRequest, score};

fn scored(path: &Path, split: SplitOptions) -> String {
    let mut req = ScoreRequest::new(vec![path.to_path_buf()]);
    req.timestamp = Some("2026-01-01T00:00:00Z".into());
    req.id = Some("split".into());
    req.ingest = IngestOptions::new(None, 2);
    req.ingest.split = split;
    let out = score(&req, &Registry::builtin());
    let exit = out.exit();
    match out.result {
        Ok(s) => format!(
            "{}\n{:?}\n{:?}\n{:?}",
            serde_json::to_string_pretty(&s.report).unwrap(),
            out.diagnostics,
            s.after,
            exit
        ),
        Err(r) => format!("{:?}\n{exit:?}\n{r:?}", out.diagnostics),
    }
}

const ONE_PASS: SplitOptions = SplitOptions {
    min_bytes: u64::MAX,
    at: None,
    parts: 0,
};

/// Offsets of `<testsuite` right after `</testsuite>` and whitespace: the split guesses.
fn guesses(bytes: &[u8]) -> Vec<u64> {
    let close = b"</testsuite>";
    let mut out = Vec::new();
    for i in 0..bytes.len().saturating_sub(close.len()) {
        if &bytes[i..i + close.len()] == close {
            let mut j = i + close.len();
            while bytes.get(j).is_some_and(u8::is_ascii_whitespace) {
                j += 1;
            }
            if bytes[j..].starts_with(b"<testsuite") {
                out.push(j as u64);
            }
        }
    }
    out
}

/// Which splits of a file are scored.
#[derive(Clone, Copy)]
struct Splits {
    /// The first this many boundary guesses, each alone.
    guesses: usize,
    /// Each of these part counts, at the guesses nearest to evenly spaced offsets.
    parts: &'static [usize],
}

/// The first 8 guesses and 3, 5 and 9 parts: about 12 scores a file (13 s of a debug build's
/// suite on two cores), so run by `.ci/run` on the optimised `ci-release` profile.
const EVERY: Splits = Splits {
    guesses: 8,
    parts: &[3, 5, 9],
};

/// A fixed sample for `cargo test`: the first two guesses alone and the file in 3 parts.
const SAMPLE: Splits = Splits {
    guesses: 2,
    parts: &[3],
};

fn check(path: &Path, splits: Splits) -> usize {
    let want = scored(path, ONE_PASS);
    let bytes = std::fs::read(path).unwrap();
    let mut tried = 0;
    for at in guesses(&bytes).into_iter().take(splits.guesses) {
        let split = SplitOptions {
            min_bytes: 0,
            at: Some(at),
            parts: 0,
        };
        assert_eq!(
            scored(path, split),
            want,
            "{} split at {at}",
            path.display()
        );
        tried += 1;
    }
    // Several parts at once, at the guesses nearest to evenly spaced offsets.
    for &parts in splits.parts {
        let split = SplitOptions {
            min_bytes: 0,
            at: None,
            parts,
        };
        assert_eq!(
            scored(path, split),
            want,
            "{} in {parts} parts",
            path.display()
        );
    }
    tried
}

fn xml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            xml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "xml") {
            out.push(p);
        }
    }
}

/// Every JUnit file of the JUnit adapter's fixtures and the bad-input corpus.
fn junit_files() -> Vec<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    xml_files(&repo.join("adapters/junit/tests/fixtures"), &mut files);
    xml_files(&repo.join("tests/bad-input/junit"), &mut files);
    files.sort();
    assert!(files.len() > 100);
    files
}

#[test]
fn score_of_every_junit_fixture_split_at_a_sample_is_the_one_pass_score() {
    let tried: usize = junit_files().iter().map(|f| check(f, SAMPLE)).sum();
    assert!(tried > 25, "only {tried} splits tried");
}

/// The full set: `cargo test --profile ci-release -p gapscore-engine --test split -- --ignored`
/// (as `.ci/run` does).
#[test]
#[ignore = "about 12 scores a fixture; .ci/run runs it on an optimised build"]
fn score_of_every_junit_fixture_split_is_the_one_pass_score() {
    let tried: usize = junit_files().iter().map(|f| check(f, EVERY)).sum();
    assert!(tried > 50, "only {tried} splits tried");
}

#[test]
fn score_of_hand_made_files_split_is_the_one_pass_score() {
    let cases = [
        // Ids repeated across the halves; the root's total holds only across them.
        r#"<testsuites tests="5">
  <testsuite name="one" tests="2"><testcase classname="a" name="t1"/><testcase classname="a" name="t2"><failure message="x">boom</failure></testcase></testsuite>
  <testsuite name="two" tests="2"><testcase classname="b" name="t1"/><testcase classname="a" name="t1"/></testsuite>
  <testsuite name="three" tests="2"><testcase classname="c" name="t1"/></testsuite>
</testsuites>"#,
        // Cut in the second half.
        r#"<testsuites>
  <testsuite name="one" tests="1"><testcase classname="a" name="t1"/></testsuite>
  <testsuite name="two" tests="2"><testcase classname="b" name="t1"/><testcase classname="b" na"#,
        // jest's once-per-file flag set before the split.
        r#"<testsuites name="jest tests">
  <testsuite name="x.test.js" tests="1"><testcase classname="Test suite failed to run" name="x.test.js"><failure>SyntaxError</failure></testcase></testsuite>
  <testsuite name="x.test.js" tests="1"><testcase classname="Test suite failed to run" name="x.test.js"><failure>SyntaxError</failure></testcase></testsuite>
  <testsuite name="ok" tests="1"><testcase classname="ok" name="passes"/></testsuite>
</testsuites>"#,
        // Broken after the split: the error's line and column.
        r#"<testsuites>
  <testsuite name="one" tests="1"><testcase classname="a" name="t1"/></testsuite>
  <testsuite name="two" tests="1"><testcase classname="b" name="t1"/></testcase>
</testsuites>"#,
    ];
    for text in cases {
        let mut f = tempfile::Builder::new().suffix(".xml").tempfile().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        assert!(check(f.path(), EVERY) >= 1);
    }
}
