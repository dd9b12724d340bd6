//! The attack on issue 36's build, fix F2: readers that judged only part of a document. A
//! forged Mocha document that swallows Mocha's own below the top level (as a member of `stats`
//! or of a test entry) is foreign content (P024), and every CTRF summary-like member is held
//! against the tests, the worst winning. Data: `cli/tests/data/attack36/readers/` (README there).

use std::path::Path;

use serde_json::Value;

use crate::common::gate::{advisory, problems, score_gate};
use crate::common::{code, copy_dir, repo_path, run_in, stderr};

fn data() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo_path("cli/tests/data/attack36/readers"), dir.path());
    dir
}

/// `run --results - --format json -- cat OUT` on a recorded Mocha output: its exit code, the
/// report and standard error.
fn run_replayed(dir: &Path, out_file: &str) -> (i32, Value, String) {
    let out = run_in(
        dir,
        &[
            "run",
            "--results",
            "-",
            "--format",
            "json",
            "--",
            "cat",
            out_file,
        ],
    );
    let report: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    (code(&out), report, stderr(&out))
}

fn foreign_detail(report: &Value) -> String {
    report["gapscore"]["problems"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["kind"] == "foreign-content")
        .map(|p| p["detail"].as_str().unwrap_or_default().to_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// 36A finding 1: Mocha's whole document became `stats.mocha` of a forged one (read as 33.3 %,
/// not advisory). Now foreign content: advisory, and `run` exits 1 (I15).
#[test]
fn f2_mocha_document_swallowed_inside_stats_is_foreign_content() {
    let dir = data();
    let (status, report, err) = run_replayed(dir.path(), "mocha-stats-swallow.out");
    assert_eq!(status, 1, "{err}");
    assert!(advisory(&report), "{report}");
    assert!(
        foreign_detail(&report).contains("`stats.mocha`"),
        "{report}"
    );
}

/// 36B finding 3: a forged test entry left open at `"context":` took Mocha's document as its
/// value (read as 0.0 %, not advisory, through the replay). Now foreign content, naming the key
/// and the Mocha document nested in the entry.
#[test]
fn f2_mocha_document_swallowed_inside_a_test_entry_is_foreign_content() {
    let dir = data();
    let (status, report, err) = run_replayed(dir.path(), "mocha-entry-swallow.out");
    assert_eq!(status, 1, "{err}");
    assert!(advisory(&report), "{report}");
    let detail = foreign_detail(&report);
    assert!(detail.contains("`tests[].context`"), "{report}");
    assert!(detail.contains("a Mocha document"), "{report}");
}

/// 36A finding 3: a CTRF `results.summary` declaring one failure and a later `results.totals`
/// declaring none. Every summary is judged: the failure the tests do not show is a counted
/// problem, whichever member comes last.
#[test]
fn f2_ctrf_every_summary_like_member_is_judged() {
    let dir = data();
    let (_, one) = score_gate(dir.path(), "ctrf_one_summary.json", "100", true);
    let (_, two) = score_gate(dir.path(), "ctrf_two_summaries.json", "100", true);
    assert_eq!(problems(&one), ["summary-counts x1"], "{one}");
    assert_eq!(problems(&two), problems(&one), "{two}");
    assert!(advisory(&two), "{two}");
    assert_eq!(
        two["report"]["shadow_score"], one["report"]["shadow_score"],
        "{two}"
    );
}
