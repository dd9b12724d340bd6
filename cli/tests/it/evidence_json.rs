//! Issue 31 for pytest (json-report, reportlog, console text), Jest/Vitest JSON, CTRF and
//! libtest: each example of the issue in these formats fails a `--threshold 15` gate with a
//! problem whose code names the disagreeing evidence, and honest complete runs stay clean. The
//! files are real pytest 9.2.0 output and edited copies (`adapters/pytest/tests/fixtures/
//! issue31/`, how each was made in its README) and edited copies of real Jest output
//! (`adapters/jest/tests/fixtures/issue31/`). "Before" is what the binary of 4492cfb read.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::gate::{advisory, problems, score_gate, sealed};

fn fixtures(krate: &str, sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("adapters")
        .join(krate)
        .join("tests/fixtures")
        .join(sub)
}

fn gate(krate: &str, file: &str) -> (i32, Value) {
    score_gate(&fixtures(krate, "issue31"), file, "15", false)
}

/// pytest-json-report with every test edited to passed, `summary.failed: 3` and `exitcode: 1`
/// kept. Before: 10 of 10 passed, score 0 with two warnings, exit 0. Now the summary's 3
/// failures count among the 10 tests read (`summary-counts`): 30, advisory, exit 1.
#[test]
fn a_json_report_summary_declaring_failures_fails_the_gate() {
    let (c, r) = gate("pytest", "json-report-all-pass-summary-failed.json");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (10, 3));
    assert_eq!(problems(&r), ["summary-counts x3"]);
    assert!(advisory(&r));
}

/// The same with its summary edited too, so only `exitcode: 1` says the run failed. Before:
/// perfect with one warning, exit 0. Now `exit-status`: one failure beside the 10 passes.
#[test]
fn a_json_report_exit_code_of_a_failed_run_fails_the_gate() {
    let (c, r) = gate("pytest", "json-report-all-pass-exitcode-1.json");
    assert_eq!(c, 1, "{r}");
    assert_eq!(problems(&r), ["exit-status x1"]);
    assert!(advisory(&r));
}

/// pytest-reportlog with every report edited to passed and `SessionFinish` `exitstatus: 1`
/// kept. Before: perfect with one warning, exit 0. Now `exit-status`.
#[test]
fn a_reportlog_exit_status_of_a_failed_run_fails_the_gate() {
    let (c, r) = gate("pytest", "reportlog-all-pass-exitstatus-1.jsonl");
    assert_eq!(c, 1, "{r}");
    assert_eq!(problems(&r), ["exit-status x1"]);
    assert!(advisory(&r));
}

/// Plain `pytest` console text of an honest run of 7 tests (2 passed, 2 failed, 1 error,
/// 1 skipped, 1 xfailed): the progress dots name no test. Before: the 3 named failures only,
/// 100% critical and not advisory (a confident wrong score). Now the 4 results no line names
/// are `unattributed-results` and the report is advisory.
#[test]
fn plain_console_text_is_never_a_confident_score() {
    let (c, r) = gate("pytest", "console-plain-honest.txt");
    assert_eq!(c, 1, "{r}");
    assert_eq!(problems(&r), ["unattributed-results x4"]);
    assert!(advisory(&r));
}

/// The same run with `-v -rA` names every result: clean, not advisory; its score (5 of 7: the
/// skip and the xfail count as failed under the default policy) fails the gate on its own.
/// Edited so that two FAILED lines say PASSED, the counts line still says `2 failed`: a
/// `summary-line` problem counting the 2 among the tests read, the same 5 of 7.
#[test]
fn verbose_console_text_is_checked_against_its_counts_line() {
    let (c, r) = gate("pytest", "console-v-rA-honest.txt");
    assert_eq!(c, 1, "{r}");
    assert!(problems(&r).is_empty(), "{r}");
    assert!(!advisory(&r));
    assert_eq!(sealed(&r), (7, 5));
    let (c, r) = gate("pytest", "console-v-rA-edited-passed.txt");
    assert_eq!(c, 1, "{r}");
    assert_eq!(problems(&r), ["summary-line x2"]);
    assert_eq!(sealed(&r), (7, 5));
    assert!(advisory(&r));
}

/// Real Jest output of 3 tests (1 failed) with the failure edited to passed (its messages
/// removed) and `numFailedTests: 1` kept. Before (issue 18's rule): a `missing-tests` problem
/// adding a fourth, failed test. Now the declared failure counts among the tests read
/// (`summary-counts`): 2 of 3 failed with the `test.failing` (xfailed, failed under the
/// default policy).
#[test]
fn a_jest_document_declaring_a_failure_fails_the_gate() {
    let (c, r) = gate("jest", "jest-all-pass-numFailedTests-1.json");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (3, 2));
    assert_eq!(problems(&r), ["summary-counts x1"]);
    assert!(advisory(&r));
}

/// `numTotalTests: -1`. Before: refused as bad input (exit 2). Now an unreadable declared
/// count is evidence: `unreadable-count`.
#[test]
fn an_unreadable_jest_count_is_a_problem() {
    let (c, r) = gate("jest", "negative-count.json");
    assert_eq!(c, 1, "{r}");
    assert_eq!(problems(&r), ["unreadable-count x1"]);
    assert!(advisory(&r));
}

/// CTRF and libtest summaries that count a failure the records hold as passed. Before: a
/// `missing-tests` problem adding a test; now `summary-counts` among the tests read.
#[test]
fn ctrf_and_libtest_summaries_count_among_the_tests_read() {
    for (krate, file, want) in [
        (
            "ctrf",
            "issue18-summary-failure-held-as-passed.json",
            (2, 1),
        ),
        ("libtest", "summary-hides-a-failure.jsonl", (2, 1)),
    ] {
        let (c, r) = score_gate(&fixtures(krate, "valid"), file, "15", false);
        assert_eq!(c, 1, "{file}: {r}");
        assert_eq!(problems(&r), ["summary-counts x1"], "{file}");
        assert_eq!(sealed(&r), want, "{file}");
        assert!(advisory(&r));
    }
}

/// The wild3 files of these formats that are complete runs read clean: not advisory, no
/// problem (the retried Jest test is flaky, which makes its report advisory by design, and
/// the jest-junit mock holds a compilation failure).
#[test]
fn complete_wild_runs_stay_clean() {
    for (krate, file) in [
        (
            "pytest",
            "pytest-json-report__Lina-Douakha_Refactoring-Swarm-Equipe-13__.report.json",
        ),
        (
            "jest",
            "vitest-json__neverinfamous_memory-journal-mcp__vitest-results.json",
        ),
        (
            "ctrf",
            "ctrf-playwright__ptrcja_flaky-test-project-playwright__ctrf-report.json",
        ),
        (
            "libtest",
            "libtest-json__johnterickson_cargo2junit__timed_out_event.json",
        ),
        (
            "libtest",
            "libtest-json__johnterickson_cargo2junit__doctests_edition2024.json",
        ),
    ] {
        let (_, r) = score_gate(&fixtures(krate, "wild"), file, "100", false);
        assert!(problems(&r).is_empty(), "{file}: {r}");
        assert!(!advisory(&r), "{file}");
    }
}
