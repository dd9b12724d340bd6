//! Console summaries on real runner output: one test per fixture (see
//! `tests/fixtures/console/README.md` for the command that made each), all through [`check`],
//! and the recognisers' clean-run fixtures read for the summaries they print.

use gapscore_runner::scan::{Scanned, StreamScanner};

fn read(dir: &str, rel: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir)
        .join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fixture `rel` read as `exec` reads a stream: in 16 KiB chunks.
fn scan(dir: &str, rel: &str, stream: &'static str) -> Scanned {
    let mut s = StreamScanner::new(stream);
    for chunk in read(dir, rel).chunks(16 * 1024) {
        s.push(chunk);
    }
    s.finish()
}

/// The fixture's one summary must be `ecosystem` with these lines, failures and passes.
fn check(rel: &str, ecosystem: &str, lines: u64, failed: u64, passed: Option<u64>) {
    let stream = if rel.ends_with(".stderr") {
        "stderr"
    } else {
        "stdout"
    };
    let found = scan("console", rel, stream).summaries;
    let got: Vec<_> = found
        .iter()
        .map(|s| (s.ecosystem, s.stream, s.lines, s.failed, s.passed))
        .collect();
    assert_eq!(
        got,
        [(ecosystem, stream, lines, failed, passed)],
        "{rel}: {found:#?}"
    );
}

#[test]
fn pytest() {
    check("pytest.stdout", "pytest", 1, 2, Some(3));
}

#[test]
fn pytest_in_colour() {
    check("pytest-color.stdout", "pytest", 1, 2, Some(3));
}

#[test]
fn pytest_quiet_has_no_rule() {
    check("pytest-q.stdout", "pytest", 1, 2, Some(3));
}

#[test]
fn pytest_errors_count_as_failed_and_xpasses_as_passed() {
    // 1 failed, 1 passed, 1 skipped, 1 xfailed, 1 xpassed, 1 error.
    check("pytest-mixed.stdout", "pytest", 1, 2, Some(2));
}

#[test]
fn node_spec_reporter() {
    check("node-spec.stdout", "node", 2, 2, Some(3));
}

#[test]
fn node_tap_reporter() {
    check("node-tap.stdout", "node", 2, 2, Some(3));
}

#[test]
fn prove_counts_failed_subtests_per_file() {
    check("prove.stdout", "prove", 1, 2, None);
    assert_eq!(scan("console", "prove.stderr", "stderr").summaries, []);
}

#[test]
fn cargo_test_sums_every_test_binary() {
    // lib: 3 passed, 2 failed; tests/extra.rs: 1 passed, 1 failed; doc tests: none.
    check("cargo.stdout", "cargo", 3, 3, Some(4));
    assert_eq!(scan("console", "cargo.stderr", "stderr").summaries, []);
}

#[test]
fn nextest() {
    check("nextest.stderr", "nextest", 1, 3, Some(4));
}

#[test]
fn go_test_counts_fail_lines_subtests_included() {
    // TestFour, TestFive and its subtest TestFive/sub: go's own result files hold all three.
    check("go.stdout", "go", 3, 3, None);
    check("go-v.stdout", "go", 3, 3, None);
    check("go-json.stdout", "go", 3, 3, None);
}

#[test]
fn jest() {
    check("jest.stderr", "jest", 1, 2, Some(3));
}

#[test]
fn vitest() {
    check("vitest.stdout", "vitest", 1, 2, Some(3));
}

#[test]
fn the_recognisers_clean_runs_print_their_own_summaries_only() {
    // (fixture, stream, the ecosystems whose summary it holds)
    let cases: [(&str, &'static str, &[&str]); 5] = [
        ("pytest/standard.console.txt", "stdout", &["pytest"]),
        ("pytest/big-5000.console.txt", "stdout", &["pytest"]),
        ("jest/standard.stderr.txt", "stderr", &["jest"]),
        ("go/standard.stdout.jsonl", "stdout", &["go"]),
        (
            "cargo/nextest-corpus-standard.stderr.txt",
            "stderr",
            &["nextest"],
        ),
    ];
    for (rel, stream, want) in cases {
        let found = scan("recognise", rel, stream).summaries;
        let got: Vec<_> = found.iter().map(|s| s.ecosystem).collect();
        assert_eq!(got, want, "{rel}: {found:#?}");
    }
}
