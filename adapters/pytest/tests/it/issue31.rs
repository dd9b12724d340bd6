//! Issue 31 on real pytest 9.2.0 output and edited copies of it (`tests/fixtures/issue31/`,
//! provenance and commands in its README): every format's evidence beside its records, and
//! where each skip was decided (`decided_at`).

use std::fs;
use std::path::Path;

use gapscore_adapter_pytest::{FORMAT_JSON_REPORT, FORMAT_REPORTLOG, FORMAT_TEXT, Pytest};
use gapscore_adapter_sdk::{ParseOptions, ProblemKind, Status, TestRun, parse_to_run};

fn load(name: &str) -> TestRun {
    let format = if name.ends_with(".jsonl") {
        FORMAT_REPORTLOG
    } else if name.ends_with(".txt") {
        FORMAT_TEXT
    } else {
        FORMAT_JSON_REPORT
    };
    let mut o = ParseOptions::default();
    o.format_id = Some(format.to_owned());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/issue31");
    let bytes = fs::read(path.join(name)).unwrap();
    parse_to_run(&Pytest::new(), &bytes, &o).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn kinds(run: &TestRun) -> Vec<(ProblemKind, Option<u64>)> {
    run.problems.iter().map(|p| (p.kind, p.count)).collect()
}

/// The skip raised by `src/helper.py` and the one a marker in the test file decided, as each
/// format records them: json-report and reportlog write the absolute path, `-rs` the relative.
#[test]
fn every_format_records_where_a_skip_was_decided() {
    for (name, prefix) in [
        ("json-report-skips.json", "/tmp/p31/skipsrc/"),
        ("reportlog-skips.jsonl", "/tmp/p31/skipsrc/"),
        ("console-v-rs-skips.txt", ""),
    ] {
        let run = load(name);
        let at = |test: &str| {
            let t = run.tests.iter().find(|t| t.name == test).unwrap();
            assert_eq!(t.status, Status::Skipped, "{name}: {test}");
            t.decided_at.clone()
        };
        assert_eq!(
            at("test_needs_feature").as_deref(),
            Some(format!("{prefix}src/helper.py:6").as_str()),
            "{name}"
        );
        assert_eq!(
            at("test_marked").as_deref(),
            Some(format!("{prefix}tests/test_feature.py:18").as_str()),
            "{name}"
        );
        let passed = run.tests.iter().find(|t| t.name == "test_passes").unwrap();
        assert_eq!(passed.decided_at, None, "{name}");
        assert!(run.problems.is_empty(), "{name}: {:?}", run.problems);
    }
}

/// The json-report example: every test edited to passed, `summary.failed: 3` and
/// `exitcode: 1` kept. The summary's failures are counted among the tests read; the exit
/// status is explained by them (no second problem).
#[test]
fn json_report_summary_and_exit_code_are_evidence() {
    let run = load("json-report-all-pass-summary-failed.json");
    assert!(run.tests.iter().all(|t| t.status == Status::Passed));
    assert_eq!(kinds(&run), [(ProblemKind::SummaryCounts, Some(3))]);
    let run = load("json-report-all-pass-exitcode-1.json");
    assert_eq!(kinds(&run), [(ProblemKind::ExitStatus, Some(1))]);
    let run = load("reportlog-all-pass-exitstatus-1.jsonl");
    assert_eq!(kinds(&run), [(ProblemKind::ExitStatus, Some(1))]);
}

/// Console text: the counts line beside the named results. Plain output names only the
/// failures (4 results unattributed); `-v -rA` names all 7 and reads clean; the same edited so
/// two FAILED lines say PASSED is worse by the counts line (`summary-line`, 2).
#[test]
fn the_console_counts_line_is_evidence() {
    let run = load("console-plain-honest.txt");
    assert_eq!(run.tests.len(), 3);
    assert_eq!(kinds(&run), [(ProblemKind::UnattributedResults, Some(4))]);
    let run = load("console-v-rA-honest.txt");
    assert_eq!(run.tests.len(), 7);
    assert!(
        run.problems.is_empty() && run.warnings.is_empty(),
        "{run:?}"
    );
    let run = load("console-v-rA-edited-passed.txt");
    assert_eq!(run.tests.len(), 7);
    assert_eq!(kinds(&run), [(ProblemKind::SummaryLine, Some(2))]);
}

/// A phase reported twice (not a rerun) is evidence at odds with itself: the worse report wins,
/// never the later one (found by the attack on the issue 31 build: a passed `call` report
/// inserted after each failed one read 0.0 %).
#[test]
fn a_phase_reported_twice_keeps_its_worse_report() {
    let run = load("reportlog-failed-call-then-passed.jsonl");
    let failed = run
        .tests
        .iter()
        .filter(|t| t.status == Status::Failed)
        .count();
    assert_eq!((run.tests.len(), failed), (4, 2), "{run:?}");
}
