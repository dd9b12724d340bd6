//! Score integrity with TAP and `go test -json` output (issue 18), through the real binary with
//! `--threshold`. The "before" in each test is the pre-issue binary (5feb96b) as its reader
//! worked (its snapshots and the wild corpus README record it): a TAP plan counted one failure
//! however many tests it promised, tests after `Bail out!` counted, mocha's uncaught error counted
//! twice, and gotestsum's reruns counted as more tests. The files are real runners' output
//! (`adapters/tap/tests/fixtures/issue18/`, commands in its README) and files other projects
//! committed (`adapters/*/tests/fixtures/wild/`, provenance in their READMEs).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::gate::{advisory, problems, score_gate, sealed};
use crate::common::{json_of, run_in};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn score(file: &str, threshold: &str, allow_advisory: bool) -> (i32, Value) {
    score_gate(&root(), file, threshold, allow_advisory)
}

const TAP: &str = "adapters/tap/tests/fixtures";

/// A Test::More script planning 50 tests exits after 11 (real perl output). Before: 11 passed
/// and one `plan-mismatch`: 12 entries, 1 failed, score 8.3, exit 0 with `--threshold 10` and
/// `--allow-advisory`. Now the 39 planned tests without a result count as failed: 78, exit 1.
#[test]
fn a_plan_of_50_with_11_results_fails_the_gate() {
    for allow in [false, true] {
        let (c, r) = score(
            &format!("{TAP}/issue18/perl-plan50-exit11.tap"),
            "10",
            allow,
        );
        assert_eq!(c, 1, "{r}");
        assert_eq!(sealed(&r), (50, 39));
        assert_eq!(problems(&r), ["plan-mismatch x39"]);
        assert!(advisory(&r));
    }
    // The same run through prove.
    let (c, r) = score(
        &format!("{TAP}/issue18/prove-plan50-exit11.tap"),
        "10",
        true,
    );
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (50, 39));
}

/// tapjs's bailout fixture: plan 1..5, three passes, `Bail out!`, then `ok 4` and `ok 5`.
/// Before: 5 passed and the bail-out: 6 entries, 1 failed, score 16.7, exit 0 with
/// `--threshold 20 --allow-advisory`. Now the two points after the bail-out are not results; the
/// bail-out stands for the 2 planned tests that never ran: 5 entries, 2 failed, 40, exit 1.
#[test]
fn tests_written_after_a_bail_out_do_not_count() {
    let file = format!("{TAP}/wild/tap-bailout__tapjs_tapjs__bailout.tap");
    for allow in [false, true] {
        let (c, r) = score(&file, "20", allow);
        assert_eq!(c, 1, "{r}");
        assert_eq!(sealed(&r), (5, 2));
        assert_eq!(problems(&r), ["bail-out x2"]);
        assert!(advisory(&r));
    }
    // A real Test::More BAIL_OUT after 3 of 10.
    let (c, r) = score(&format!("{TAP}/issue18/perl-bail-out.tap"), "50", true);
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (10, 7));
    assert_eq!(problems(&r), ["bail-out x7"]);
}

/// mocha's TAP reporter: plan 1..3 and 4 points, one of them `Uncaught error outside test
/// suite`. Before: 1 passed, 3 failed and a surplus `plan-mismatch`: 5 entries, 4 failed, 80,
/// advisory, exit 1 with `--threshold 76`. Now the uncaught error counts once, as the failed
/// test mocha reports: 4 entries, 3 failed, 75, not advisory, exit 0.
#[test]
fn mochas_uncaught_error_counts_once() {
    let file = format!("{TAP}/wild/tap-mocha__UKForeignOffice_loi-address-service__test.tap");
    let (c, r) = score(&file, "76", false);
    assert_eq!(c, 0, "{r}");
    assert_eq!(sealed(&r), (4, 3));
    assert!(problems(&r).is_empty(), "{r}");
    assert!(!advisory(&r));
    let (c, _) = score(&file, "70", false);
    assert_eq!(c, 1);
}

/// gotestsum `--rerun-fails` jsonfile: 6 tests, 3 failing at first and passing on a rerun.
/// Before: 12 tests, 6 failed, 50, exit 1 even with `--threshold 10 --allow-advisory`. Now 6
/// passing tests, 3 of them flaky: 0, perfect, advisory for the flaky ones (so exit 1 without
/// `--allow-advisory`, exit 0 with it); `--flaky fail` counts the 3 as failed.
#[test]
fn gotestsum_reruns_are_attempts_and_the_run_passes() {
    let file = "adapters/gotest/tests/fixtures/wild/go-test-json-rerun__gotestyourself_gotestsum__go-test-json-flaky-rerun.out";
    let (c, r) = score(file, "10", true);
    assert_eq!(c, 0, "{r}");
    assert_eq!(sealed(&r), (6, 0));
    assert!(problems(&r).is_empty(), "{r}");
    assert_eq!(r["gapscore"]["flaky"].as_array().map(Vec::len), Some(3));
    assert!(advisory(&r));
    let (c, _) = score(file, "10", false);
    assert_eq!(c, 1, "flaky tests make the report advisory");
    let o = run_in(
        &root(),
        &[
            "score", "--sealed", file, "--format", "json", "--flaky", "fail",
        ],
    );
    assert_eq!(sealed(&json_of(&o)), (6, 3));
}

/// Complete real runs (prove, node --test) stay clean: every test counted, no problem, not
/// advisory, exit 0 with `--threshold 0`.
#[test]
fn complete_real_runs_stay_clean() {
    for file in ["prove-complete.tap", "node-complete.tap"] {
        let (c, r) = score(&format!("{TAP}/issue18/{file}"), "0", false);
        assert_eq!(c, 0, "{file}: {r}");
        assert_eq!(sealed(&r), (5, 0), "{file}");
        assert!(problems(&r).is_empty(), "{file}: {r}");
        assert!(!advisory(&r), "{file}");
    }
    let file = "adapters/gotest/tests/fixtures/wild/go-test-json__jstemmer_go-junit-report__103-subtests.gojson.txt";
    let (_, r) = score(file, "100", false);
    assert_eq!(sealed(&r), (3, 1));
    assert!(problems(&r).is_empty(), "{r}");
}
