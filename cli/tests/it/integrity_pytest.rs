//! Score integrity with pytest's output (issue 18): each cheat below passed a `--threshold`
//! gate before (the exit code given in each test is the pre-issue binary's) and fails it now,
//! for the reason the report states; complete real runs stay clean. The files are real pytest
//! 9.2.0 / pytest-json-report 1.5.0 / pytest-reportlog 1.0.0 output and edited copies of it
//! (`adapters/pytest/tests/fixtures/issue18/`, commands in its README).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::gate::{advisory, problems, score_gate, sealed};
use crate::common::{code, json_of, run_in, stderr};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("adapters/pytest/tests/fixtures/issue18")
}

fn score(file: &str, threshold: &str, allow_advisory: bool) -> (i32, Value) {
    score_gate(&dir(), file, threshold, allow_advisory)
}

/// Item 1: `pytest -x` stopped after the first failure; json-report declares 10 collected and
/// holds 2. Before: 2 tests, 1 failed, score 50, exit 0 with `--threshold 60`. Now the 8 that
/// never ran count as failed: 90, advisory, exit 1 even with `--allow-advisory`.
#[test]
fn declared_tests_without_results_count_as_failed() {
    for allow in [false, true] {
        let (c, r) = score("issue18-maxfail.json", "60", allow);
        assert_eq!(c, 1, "{r}");
        assert_eq!(sealed(&r), (10, 9));
        assert_eq!(problems(&r), ["missing-tests x8"]);
        assert!(advisory(&r));
    }
}

/// Items 1 and 10: a report written with `--json-report-summary` (here the wild corpus's file:
/// 16 declared, 1 failed, exit code 1) holds no results. Before: 0 tests, score 0, exit 0 with
/// `--threshold 50`. Now its 16 declared tests are missing: 16 of 16 failed.
#[test]
fn a_summary_only_report_is_all_missing() {
    for (file, declared) in [
        ("issue18-summary-only-wild.report.json", 16),
        ("issue18-summary-only.json", 10),
    ] {
        for allow in [false, true] {
            let (c, r) = score(file, "50", allow);
            assert_eq!(c, 1, "{file}: {r}");
            assert_eq!(sealed(&r), (declared, declared), "{file}");
            assert_eq!(
                problems(&r),
                [format!("missing-tests x{declared}")],
                "{file}"
            );
            assert!(advisory(&r));
        }
    }
}

/// No false alarm: complete real runs — `-k` deselection (collected 10, deselected 6, total
/// 4), pytest-xdist (no collectors, a worker `longrepr` in every phase), subtests — have no
/// problem and are not advisory, in both formats.
#[test]
fn complete_real_runs_are_not_advisory() {
    for file in [
        "issue18-complete.json",
        "issue18-complete.jsonl",
        "issue18-deselected.json",
        "issue18-deselected.jsonl",
        "issue18-xdist.json",
        "issue18-xdist.jsonl",
        "issue18-subtests.json",
        "issue18-subtests.jsonl",
    ] {
        let (c, r) = score(file, "100", false);
        assert_eq!(c, 0, "{file}: {r}");
        assert!(problems(&r).is_empty(), "{file}: {r}");
        assert!(!advisory(&r), "{file}");
    }
    let (_, r) = score("issue18-deselected.json", "100", false);
    assert_eq!(sealed(&r), (4, 3));
}

/// Item 2: a test raising KeyboardInterrupt, or calling `pytest.exit("stop")`, has a setup
/// phase only and outcome `passed` in json-report. Before: read as passed, score 33.3, exit 0
/// with `--threshold 50`. Now that test is errored, the test after it is missing and the run is
/// `interrupted`: 3 of 4 failed, exit 1.
#[test]
fn a_test_stopped_after_setup_is_not_a_pass() {
    for file in [
        "issue18-interrupted-keyboard.json",
        "issue18-interrupted-exit.json",
    ] {
        for allow in [false, true] {
            let (c, r) = score(file, "50", allow);
            assert_eq!(c, 1, "{file}: {r}");
            assert_eq!(sealed(&r), (4, 3), "{file}");
            assert_eq!(problems(&r), ["missing-tests x1", "interrupted"], "{file}");
            assert_eq!(r["gapscore"]["sealed_statuses"]["errored"], 1, "{file}");
            assert!(advisory(&r));
        }
    }
    // The report log of the same runs (already failing before, as missing-results and
    // aborted): the stopped test errored, the run interrupted.
    for file in [
        "issue18-interrupted-keyboard.jsonl",
        "issue18-interrupted-exit.jsonl",
    ] {
        let (c, r) = score(file, "50", true);
        assert_eq!(c, 1, "{file}: {r}");
        assert_eq!(problems(&r), ["interrupted"], "{file}");
        assert_eq!(r["gapscore"]["sealed_statuses"]["errored"], 1, "{file}");
    }
}

/// Item 6: `outcome: "passed"` over a failed call phase, or over a call phase edited to
/// `passed` that still holds its `crash`. Before: 4 passed of 10 read, score 50, exit 0 with
/// `--threshold 55`. Now the test is failed: 60, exit 1.
#[test]
fn passed_over_a_failure_is_failed() {
    for (file, test) in [
        (
            "issue18-passed-with-failed-call.json",
            "test_mixed.py::test_fail",
        ),
        (
            "issue18-passed-with-crash.json",
            "test_mixed.py::test_param[3]",
        ),
    ] {
        let (c, r) = score(file, "55", false);
        assert_eq!(c, 1, "{file}: {r}");
        assert_eq!(sealed(&r), (10, 6), "{file}");
        assert!(!advisory(&r), "{file}");
        let failure = r["failures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["test_name"] == test)
            .unwrap_or_else(|| panic!("{file}: {test} not failed"));
        assert_eq!(failure["status"], "failed", "{file}");
        assert!(
            failure["message"]
                .as_str()
                .unwrap()
                .contains("the report says `passed`"),
            "{file}: {failure}"
        );
    }
}

/// Item 6: a key written twice is an input error (exit 2), at the root (`exitcode` 1 then 0)
/// and in `summary` (`failed` 2 then 0). Before, both files were read, the later value
/// winning, and exited 0 with `--threshold 100`. Keys repeated in nested objects (a test's or
/// a phase's `outcome`, a reportlog record's, a `reprcrash` `message`) stay refused.
#[test]
fn duplicate_keys_are_input_errors() {
    for (file, what) in [
        (
            "issue18-duplicate-exitcode.json",
            "duplicate key `exitcode`",
        ),
        (
            "issue18-duplicate-summary-key.json",
            "duplicate key `failed`",
        ),
        ("issue18-duplicate-test-outcome.json", "duplicate"),
        ("issue18-duplicate-call-outcome.json", "duplicate"),
        ("issue18-duplicate-outcome.jsonl", "duplicate"),
        ("issue18-duplicate-reprcrash-message.jsonl", "duplicate"),
    ] {
        let o = run_in(
            &dir(),
            &[
                "score",
                "--sealed",
                file,
                "--format",
                "json",
                "--threshold",
                "100",
            ],
        );
        assert_eq!(code(&o), 2, "{file}: {}", stderr(&o));
        assert!(stderr(&o).contains(what), "{file}: {}", stderr(&o));
    }
}

/// Item 8's pytest side: a module-level `pytest.skip(..., allow_module_level=True)` is one
/// skipped test whose id is the module path (no `::`). Before: json-report and reportlog only
/// warned, the module's tests vanished, 1 of 1 passed, score 0, exit 0 with `--threshold 0`.
/// Now 1 of 2 fails (the skipped module): exit 1. Issue 31: the skipped module is also a suite
/// that did not run (how many tests it held is not recorded): one more failure, advisory.
#[test]
fn a_module_level_skip_is_a_skipped_test() {
    for file in [
        "issue18-module-level-skip.json",
        "issue18-module-level-skip.jsonl",
    ] {
        let (c, r) = score(file, "0", false);
        assert_eq!(c, 1, "{file}: {r}");
        assert_eq!(sealed(&r), (3, 2), "{file}");
        assert_eq!(r["gapscore"]["sealed_statuses"]["skipped"], 1, "{file}");
        assert!(advisory(&r), "{file}");
        let o = run_in(&dir(), &["parse", file]);
        assert_eq!(code(&o), 0, "{file}");
        let runs = json_of(&o);
        let t = runs[0]["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == "tests/test_net.py")
            .unwrap_or_else(|| panic!("{file}: {runs}"));
        assert_eq!(t["status"], "skipped");
        assert_eq!(t["name"], "tests/test_net.py");
        assert_eq!(t["suite"], Value::Null);
    }
}
