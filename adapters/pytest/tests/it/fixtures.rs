//! Data-driven test of the pytest adapter on hand-written fixtures, one scenario each: every
//! `valid/` file is detected as the format its name starts with, read, and its canonical run
//! snapshotted; every `invalid/` file must fail with the snapshotted place and message. Then
//! targeted checks of the semantics that matter most for the score.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_adapter_pytest::{FORMAT_JSON_REPORT, FORMAT_REPORTLOG, FORMAT_TEXT, Pytest};
use gapscore_adapter_sdk::{
    Adapter, Category, ParseOptions, ProblemKind, Status, TestRun, parse_to_run,
};
use gapscore_adapter_testing::{each_fixture, fixture_files, fixture_stem};

fn fixtures(kind: &str) -> Vec<PathBuf> {
    fixture_files(env!("CARGO_MANIFEST_DIR"), kind)
}

/// The format a fixture is in, from its name.
fn format_of(p: &Path) -> &'static str {
    let stem = fixture_stem(p);
    if stem.starts_with("json-report-") {
        FORMAT_JSON_REPORT
    } else if stem.starts_with("reportlog-") {
        FORMAT_REPORTLOG
    } else {
        assert!(stem.starts_with("text-"), "{stem}: unknown format prefix");
        FORMAT_TEXT
    }
}

fn opts(format: &str, source: Option<String>) -> ParseOptions {
    let mut o = ParseOptions::default();
    o.format_id = Some(format.to_owned());
    o.source_name = source;
    o
}

fn valid(name: &str) -> TestRun {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/valid")
        .join(name);
    parse_to_run(
        &Pytest::new(),
        &fs::read(&path).unwrap(),
        &opts(format_of(&path), None),
    )
    .unwrap()
}

#[test]
fn valid_fixtures() {
    let adapter = Pytest::new();
    each_fixture(env!("CARGO_MANIFEST_DIR"), "valid", |path, bytes| {
        let format = format_of(path);
        let want = if format == FORMAT_TEXT { 60 } else { 95 };
        assert!(adapter.detect(bytes, None) >= want, "not detected");
        assert_eq!(adapter.detect_format(bytes, None).as_deref(), Some(format));
        let stem = fixture_stem(path);
        let run = parse_to_run(&adapter, bytes, &opts(format, Some(stem.clone())))
            .unwrap_or_else(|e| panic!("{e}"));
        // Detection alone (no format given) reads it the same way.
        let mut auto =
            parse_to_run(&adapter, bytes, &ParseOptions::with_source(stem.clone())).unwrap();
        auto.format = run.format.clone();
        assert_eq!(auto, run);
        insta::assert_json_snapshot!(format!("valid__{stem}"), run);
    });
}

#[test]
fn invalid_fixtures() {
    let adapter = Pytest::new();
    each_fixture(env!("CARGO_MANIFEST_DIR"), "invalid", |path, bytes| {
        let err = match parse_to_run(&adapter, bytes, &opts(format_of(path), None)) {
            Ok(run) => panic!("was accepted: {run:?}"),
            Err(e) => e,
        };
        insta::assert_snapshot!(format!("invalid__{}", fixture_stem(path)), err.to_string());
    });
}

fn status_of(run: &TestRun, name: &str) -> Status {
    run.tests
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no test {name}"))
        .status
}

fn kinds(run: &TestRun) -> Vec<ProblemKind> {
    run.problems.iter().map(|p| p.kind).collect()
}

#[test]
fn setup_and_teardown_errors_make_a_test_errored_in_both_json_formats() {
    for (file, pass, fail) in [
        (
            "json-report-phases-folded.json",
            "test_teardown_error_after_pass",
            "test_fail_then_teardown_error",
        ),
        (
            "reportlog-phases-folded.jsonl",
            "test_teardown_error",
            "test_fail_and_teardown_error",
        ),
    ] {
        let run = valid(file);
        assert_eq!(
            status_of(&run, "test_setup_error"),
            Status::Errored,
            "{file}"
        );
        assert_eq!(status_of(&run, pass), Status::Errored, "{file}");
        assert_eq!(status_of(&run, fail), Status::Errored, "{file}");
        let both = run.tests.iter().find(|t| t.name == fail).unwrap();
        let m = both.message.as_deref().unwrap();
        assert!(
            m.contains("assert 1 == 2") && m.contains("could not release"),
            "{m}"
        );
        for (name, status) in [
            ("test_fail", Status::Failed),
            ("test_xpass", Status::Xpassed),
            ("test_unexpectedly_passes", Status::Xpassed),
            ("test_xfail", Status::Xfailed),
            ("test_known_bug", Status::Xfailed),
        ] {
            if let Some(t) = run.tests.iter().find(|t| t.name == name) {
                assert_eq!(t.status, status, "{file}: {name}");
            }
        }
        assert!(run.problems.is_empty(), "{file}: {:?}", run.problems);
    }
}

#[test]
fn json_report_duration_is_the_sum_of_phases_and_lines_are_one_based() {
    let run = valid("json-report-phases-folded.json");
    let t = &run.tests[0];
    assert_eq!(t.duration, Some(1.0));
    assert_eq!(t.line, Some(4));
    assert_eq!(t.output.as_deref(), Some("hello\nwarn\n"));
    // No phase has a duration: unknown, never zero.
    let crash_only = run
        .tests
        .iter()
        .find(|t| t.name == "test_crash_only")
        .unwrap();
    assert_eq!(crash_only.duration, None);
    assert_eq!(crash_only.message.as_deref(), Some("ValueError: boom"));
    assert_eq!(
        run.producer.as_ref().unwrap().version.as_deref(),
        Some("9.2.0")
    );
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
}

#[test]
fn collection_errors_count_even_with_no_tests() {
    let run = valid("json-report-collection-error-zero-total.json");
    // The module-level skip is one skipped test and a suite that did not run (issue 31: how
    // many tests it held is not recorded); the collected test that never ran (the collection
    // error stopped the run) is missing.
    assert_eq!(run.tests.len(), 1);
    assert_eq!(run.tests[0].status, Status::Skipped);
    assert_eq!(
        kinds(&run),
        [
            ProblemKind::CollectionError,
            ProblemKind::SuiteError,
            ProblemKind::MissingTests,
            ProblemKind::Aborted
        ]
    );
    assert!(
        run.problems[0]
            .detail
            .contains("ImportError: cannot import name 'subtract'")
    );
    assert_eq!(run.problems[0].suite.as_deref(), Some("test_broken.py"));
    let run = valid("reportlog-collection-error-interrupted.jsonl");
    assert_eq!(run.tests.len(), 1);
    assert_eq!(
        kinds(&run),
        [
            ProblemKind::CollectionError,
            ProblemKind::SuiteError,
            ProblemKind::Aborted
        ]
    );
    let run = valid("text-collection-interrupted.txt");
    assert_eq!(
        kinds(&run),
        [ProblemKind::CollectionError, ProblemKind::Aborted]
    );
}

#[test]
fn exit_codes_that_mean_an_unfinished_run_are_problems() {
    assert_eq!(
        kinds(&valid("json-report-exitcode-internal-error.json")),
        [ProblemKind::Crash]
    );
    assert_eq!(
        kinds(&valid("json-report-exitcode-usage-error.json")),
        [ProblemKind::Aborted]
    );
    assert_eq!(
        kinds(&valid("json-report-no-tests-collected.json")),
        [ProblemKind::MissingTests]
    );
}

#[test]
fn markers_and_title_tags_set_categories() {
    let run = valid("json-report-markers-and-title-categories.json");
    let cat = |name: &str| run.tests.iter().find(|t| t.name == name).unwrap().category;
    assert_eq!(cat("test_rejects_forged_token"), Some(Category::Security));
    assert_eq!(cat("test_empty_input[edge_case]"), Some(Category::EdgeCase));
    // A folder named `security` is not a marker.
    assert_eq!(cat("test_plain"), None);
    assert_eq!(cat("test_bad_request"), Some(Category::ErrorHandling));
    let run = valid("reportlog-phases-folded.jsonl");
    let cat = |name: &str| run.tests.iter().find(|t| t.name == name).unwrap().category;
    assert_eq!(cat("test_injection_blocked"), Some(Category::Security));
    assert_eq!(
        cat("test_parses [edge_case] empty"),
        Some(Category::EdgeCase)
    );
    let run = valid("text-verbose-rA.txt");
    assert_eq!(run.tests.last().unwrap().category, Some(Category::Security));
}

#[test]
fn summary_declaring_more_tests_than_held_counts_the_missing_ones() {
    // The summary declares 3 and the report holds 1: the other 2 are missing (issue 18),
    // judged as the summary's evidence (issue 31).
    let run = valid("json-report-summary-disagrees.json");
    assert_eq!(run.tests.len(), 1);
    assert_eq!(kinds(&run), [ProblemKind::MissingTests]);
    assert_eq!(run.problems[0].count, Some(2));
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
}

#[test]
fn a_cut_json_report_keeps_complete_tests_and_says_truncated() {
    let run = valid("json-report-truncated-mid-test.json");
    assert_eq!(run.tests.len(), 4);
    assert_eq!(kinds(&run), [ProblemKind::Truncated]);
    assert!(
        run.problems[0]
            .detail
            .contains("4 complete tests kept (its summary declares 9)")
    );
    let run = valid("json-report-truncated-in-collectors.json");
    assert!(run.tests.is_empty());
    assert_eq!(kinds(&run), [ProblemKind::Truncated]);
}

#[test]
fn a_reportlog_without_session_finish_is_a_killed_run() {
    let run = valid("reportlog-killed-no-session-finish.jsonl");
    assert_eq!(kinds(&run), [ProblemKind::Killed]);
    assert_eq!(status_of(&run, "test_first"), Status::Passed);
    assert_eq!(status_of(&run, "test_second"), Status::Failed);
    assert_eq!(status_of(&run, "test_dies_in_call"), Status::Errored);
    assert_eq!(status_of(&run, "test_dies_in_teardown"), Status::Errored);
    let run = valid("reportlog-last-line-cut.jsonl");
    assert_eq!(kinds(&run), [ProblemKind::Truncated]);
    assert_eq!(run.tests.len(), 2);
    assert!(
        run.problems[0].detail.contains("line 8"),
        "{}",
        run.problems[0].detail
    );
}

#[test]
fn console_text_counts_only_is_never_a_clean_pass() {
    // Issue 31: results the counts line counts and no line names are a counted
    // `unattributed-results` problem (the report is advisory), passing or not.
    let run = valid("text-counts-only-with-failures.txt");
    assert!(run.tests.is_empty());
    assert_eq!(kinds(&run), [ProblemKind::UnattributedResults]);
    assert_eq!(run.problems[0].count, Some(5));
    assert!(
        run.problems[0]
            .detail
            .contains("(3 of them failed or errored)")
    );
    let run = valid("text-counts-only-passing.txt");
    assert!(run.tests.is_empty());
    assert_eq!(kinds(&run), [ProblemKind::UnattributedResults]);
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
}

#[test]
fn console_text_reads_verbose_lines_and_the_summary() {
    let run = valid("text-verbose-rA.txt");
    assert_eq!(run.tests.len(), 9);
    assert_eq!(status_of(&run, "test_teardown_breaks"), Status::Errored);
    assert_eq!(status_of(&run, "test_known_bug_rounding"), Status::Xfailed);
    assert_eq!(status_of(&run, "test_unexpectedly_passes"), Status::Xpassed);
    assert_eq!(status_of(&run, "test_fetch_remote"), Status::Skipped);
    assert!(
        run.problems.is_empty() && run.warnings.is_empty(),
        "{run:?}"
    );
    let run = valid("text-xdist-ansi.txt");
    assert_eq!(run.tests.len(), 3);
    assert_eq!(status_of(&run, "test_two"), Status::Failed);
    assert!(
        run.problems.is_empty() && run.warnings.is_empty(),
        "{run:?}"
    );
    assert_eq!(
        kinds(&valid("text-internal-error.txt")),
        [ProblemKind::Crash, ProblemKind::Truncated]
    );
    assert_eq!(
        kinds(&valid("text-cut-before-counts.txt")),
        [ProblemKind::Truncated]
    );
}

#[test]
fn a_json_report_cut_inside_a_character_is_truncated_not_invalid() {
    let doc = "{\"exitcode\": 1, \"tests\": [{\"nodeid\": \"t.py::test_a\", \"outcome\": \"passed\"}, {\"nodeid\": \"t.py::test_ü\"";
    let bytes = doc.as_bytes();
    let cut = &bytes[..bytes.len() - 3]; // inside the two bytes of `ü`
    let run = parse_to_run(&Pytest::new(), cut, &opts(FORMAT_JSON_REPORT, None)).unwrap();
    assert_eq!(run.tests.len(), 1);
    assert_eq!(kinds(&run), [ProblemKind::Truncated]);
}

#[test]
fn nothing_panics_on_prefixes_or_damaged_bytes_of_the_fixtures() {
    let adapter = Pytest::new();
    for path in fixtures("valid") {
        let bytes = fs::read(&path).unwrap();
        let format = format_of(&path);
        for end in (0..bytes.len()).step_by(7) {
            let _ = parse_to_run(&adapter, &bytes[..end], &opts(format, None));
            let _ = adapter.detect(&bytes[..end], None);
        }
        // Single bytes replaced by structure characters and invalid UTF-8.
        for (i, at) in (0..bytes.len()).step_by(13).enumerate() {
            let mut m = bytes.clone();
            m[at] = [b'{', b'"', b']', b'\n', 0xff, b':', b'['][i % 7];
            let _ = parse_to_run(&adapter, &m, &opts(format, None));
            let _ = parse_to_run(&adapter, &m, &ParseOptions::default());
        }
    }
}

#[test]
fn reruns_become_attempts_and_a_crashed_worker_is_a_crash() {
    let run = valid("reportlog-rerun-and-xdist-worker-crash.jsonl");
    assert_eq!(run.tests.len(), 3);
    let flaky = &run.tests[0];
    assert_eq!((flaky.status, flaky.attempts.len()), (Status::Passed, 1));
    assert!(flaky.is_flaky());
    assert_eq!(flaky.duration, Some(3.0));
    let fails = &run.tests[1];
    assert_eq!((fails.status, fails.attempts.len()), (Status::Failed, 1));
    assert_eq!(status_of(&run, "test_kills_worker"), Status::Errored);
    assert_eq!(kinds(&run), [ProblemKind::Crash]);
    let run = valid("text-rerunfailures.txt");
    assert_eq!(run.tests.len(), 2);
    assert!(run.tests[0].is_flaky());
    assert_eq!(run.tests[1].attempts.len(), 2);
    assert!(
        run.problems.is_empty() && run.warnings.is_empty(),
        "{run:?}"
    );
}

#[test]
fn an_exit_status_that_disagrees_with_the_results_is_a_problem() {
    // Issue 31: exit status 1 with no failure in the records is evidence the records hide one.
    let run = valid("json-report-exit-status-disagrees.json");
    assert_eq!(kinds(&run), [ProblemKind::ExitStatus]);
    assert!(
        run.problems[0].detail.contains("exit status 1"),
        "{:?}",
        run.problems
    );
}
