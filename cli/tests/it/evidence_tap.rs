//! Issue 31, TAP: every count a TAP file carries beside its points is evidence, and the worst
//! wins. Each edited file below passed a `--threshold 15` gate before (the binary of 4492cfb read
//! footers, Test::More's and prove's verdicts as comments and an `ok` point as a pass whatever
//! its YAML said); now each fails it with a problem whose code names the evidence that
//! disagrees. The files are real `node --test`, Test::More and prove runs and edited copies,
//! and the wild3 TAP files (`adapters/tap/tests/fixtures/{issue31,wild}/`, how each was made in
//! its README); complete runs stay clean.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::gate::{advisory, problems, score_gate, sealed};
use crate::common::{code, run_in, stderr};

fn fixtures(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("adapters/tap/tests/fixtures")
        .join(sub)
}

/// `score --sealed FILE --format json --threshold 15` in `issue31/`.
fn gate(file: &str) -> (i32, Value) {
    score_gate(&fixtures("issue31"), file, "15", false)
}

fn codes(r: &Value) -> Vec<String> {
    r["gapscore"]["problems"]
        .as_array()
        .map(|ps| {
            ps.iter()
                .filter_map(|p| p["code"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The example: `node --test` TAP whose `not ok` points were turned to `ok`, the YAML
/// error blocks and `# fail 3` kept. Before: 10 tests, 0 failed, exit 0. Now each `ok` point
/// whose YAML holds an error is one failure (`summary-line`): 10 tests, 3 failed, advisory.
#[test]
fn node_ok_points_with_their_error_blocks_kept_fail_the_gate() {
    let (c, r) = gate("node-ok-yaml-kept.tap");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (10, 3));
    assert_eq!(
        problems(&r),
        ["summary-line x1", "summary-line x1", "summary-line x1"]
    );
    assert!(codes(&r).iter().all(|c| c == "P019"), "{r}");
    assert!(advisory(&r));
}

/// The same with the error blocks cut too: only the footer's `# fail 3` disagrees. Before: 10
/// tests, 0 failed, exit 0. Now `summary-line` ×3 among the 10 tests read.
#[test]
fn a_node_footer_declaring_failures_the_points_do_not_show_fails_the_gate() {
    let (c, r) = gate("node-ok-footer-kept.tap");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (10, 3));
    assert_eq!(problems(&r), ["summary-line x3"]);
    assert_eq!(codes(&r), ["P019"]);
    assert!(advisory(&r));
}

/// The failing points deleted and both plans lowered to match: only the footer's `# tests 10`
/// remembers them. Before: 7 tests, 0 failed, exit 0. Now `missing-tests` ×3: 10 tests, 3 failed.
#[test]
fn a_node_footer_counting_more_tests_than_the_points_counts_the_missing() {
    let (c, r) = gate("node-points-removed.tap");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (10, 3));
    assert_eq!(problems(&r), ["missing-tests x3"]);
    assert_eq!(codes(&r), ["P012"]);
}

/// `# tests 1e1`: a count that is not a number is a problem, never dropped. Before: read as a
/// comment (10 tests, 3 failed, not advisory).
#[test]
fn an_unreadable_footer_count_is_a_problem() {
    let (c, r) = gate("node-footer-unreadable.tap");
    assert_eq!(c, 1, "{r}");
    assert_eq!(codes(&r), ["P020"]);
    assert!(advisory(&r));
}

/// tape's footer (`# tests 8`, `# pass 4`, `# fail 4`) kept under points turned to `ok`.
/// Before: 8 tests, 0 failed, exit 0. Now `summary-line` ×4.
#[test]
fn a_tape_footer_declaring_failures_fails_the_gate() {
    let (c, r) = gate("tape-ok-footer-kept.tap");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (8, 4));
    assert_eq!(problems(&r), ["summary-line x4"]);
}

/// Test::More's `# Looks like you failed 3 tests of 10.` kept under points turned to `ok`, and
/// prove's `Failed 3/10 subtests` kept in `prove -v` output. Before: 10 tests, 0 failed, exit 0
/// for both. Now `summary-line` ×3 each.
#[test]
fn test_more_and_prove_verdicts_are_evidence() {
    for file in ["perl-ok-looks-like.tap", "prove-ok-verdict.tap"] {
        let (c, r) = gate(file);
        assert_eq!(c, 1, "{file}: {r}");
        assert_eq!(sealed(&r), (10, 3), "{file}");
        assert_eq!(problems(&r), ["summary-line x3"], "{file}");
        assert!(advisory(&r), "{file}");
    }
}

/// prove's `Result: FAIL` kept when the points, the diagnostics, the verdict and the summary's
/// file lines were edited to a pass. Before: 5 tests, 0 failed, exit 0. Now `exit-status`:
/// one more failure, 6 tests, 1 failed, advisory.
#[test]
fn proves_result_line_is_an_exit_status() {
    let (c, r) = gate("prove-result-fail.tap");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (6, 1));
    assert_eq!(codes(&r), ["P018"]);
    assert!(advisory(&r));
}

/// node-tap's form of a test file that ran none of its tests (`1..0 # SKIP` in its subtest,
/// closed by a plain `ok`). Before: a passing test (3 tests, 0 failed, exit 0). Now it is
/// skipped, which the default policy counts as failed: 3 tests, 1 failed.
#[test]
fn a_node_tap_file_that_skipped_all_its_tests_is_not_a_pass() {
    let (c, r) = gate("node-tap-skip-all.tap");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (3, 1));
}

/// The honest runs the edited files came from read as they are: 3 of 10 failed, no problem,
/// not advisory (their footers and verdicts agree with their points).
#[test]
fn complete_real_runs_stay_clean() {
    let (c, r) = gate("prove-strings-run.tap");
    assert_eq!((c, sealed(&r), advisory(&r)), (1, (5, 1), false), "{r}");
    for file in ["node-run.tap", "perl-run.tap", "prove-run.tap"] {
        let (c, r) = gate(file);
        assert_eq!(c, 1, "{file}: {r}");
        assert_eq!(sealed(&r), (10, 3), "{file}");
        assert!(problems(&r).is_empty(), "{file}: {r}");
        assert!(!advisory(&r), "{file}");
    }
    for file in [
        "tap-handwritten__test-summary_action__07-creative-liberties.tap",
        "tap-node-tap__test-summary_action__09-node-tap.tap",
        "tap-pgtap__theory_pgtap__cmpok.out",
        "tap-tape__aghassemi_tap-xunit__multiple-tests.tap",
        "tap-tape__aghassemi_tap-xunit__outofplace-extras.tap",
        "tap-node-tap-legacy__tapjs_tapjs__tap-tests.tap",
        "tap-mocha__UKForeignOffice_loi-address-service__test.tap",
    ] {
        let (_, r) = score_gate(&fixtures("wild"), file, "100", false);
        assert!(problems(&r).is_empty(), "{file}: {r}");
        assert!(!advisory(&r), "{file}");
    }
}

/// wild3's `node --test` file (Node 25, 1.1 MB): node numbered two top-level points 472 and
/// none 2514, and skipped 34 in a suite of 42. Before: 2 plan mismatches, read 4316/23. Now its
/// footer (`# tests 4315`, `# fail 21`) is the count and agrees; the numbering is a warning; the
/// two paths whose process failed to load (MODULE_NOT_FOUND) are suite errors: advisory.
#[test]
fn node_numbering_is_not_a_plan_mismatch_and_a_file_that_failed_to_load_is_a_suite_error() {
    let (_, r) = score_gate(
        &fixtures("wild"),
        "tap-node-test__SimulatorLife_prettier-plugin-gml__test-results.tap",
        "100",
        false,
    );
    assert_eq!(sealed(&r), (4314, 21));
    assert_eq!(problems(&r), ["suite-error", "suite-error"]);
    assert!(advisory(&r));
}

/// wild3's node-tap 0.x runner log is refused with a message that says what it is (before:
/// "no adapter recognises this file").
#[test]
fn a_node_tap_runner_log_is_refused_naming_it() {
    let o = run_in(
        &fixtures("wild"),
        &[
            "score",
            "--sealed",
            "tap-node-tap-legacy__couchbaselabs_sync-gateway-tests__results.tap",
        ],
    );
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("summary line of node-tap 0.x's runner"),
        "{}",
        stderr(&o)
    );
}
