//! Data-driven test of the Jest adapter on hand-written fixtures, one scenario each: every
//! `valid/` file is detected and read, and its canonical run snapshotted; every `invalid/` file
//! must fail with the snapshotted place and message. Targeted asserts below pin the semantics
//! that matter for the score (statuses, problems, attempts) beyond the snapshots.

use std::fs;
use std::path::Path;

use gapscore_adapter_jest::Jest;
use gapscore_adapter_sdk::{
    Adapter, ParseOptions, ProblemKind, Status, TestCase, TestRun, parse_to_run,
};
use gapscore_adapter_testing::{each_fixture, fixture_stem};

pub(crate) fn read(name: &str) -> TestRun {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/valid")
        .join(name);
    let bytes = fs::read(&path).unwrap();
    parse_to_run(&Jest::new(), &bytes, &ParseOptions::default()).unwrap()
}

pub(crate) fn test<'a>(run: &'a TestRun, name: &str) -> &'a TestCase {
    run.tests
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no test `{name}`"))
}

pub(crate) fn kinds(run: &TestRun) -> Vec<ProblemKind> {
    run.problems.iter().map(|p| p.kind).collect()
}

#[test]
fn valid_fixtures() {
    let adapter = Jest::new();
    each_fixture(env!("CARGO_MANIFEST_DIR"), "valid", |path, bytes| {
        let name = path.file_name().unwrap().to_str();
        assert_eq!(adapter.detect(bytes, name), 98, "not detected");
        let stem = fixture_stem(path);
        let run = parse_to_run(&adapter, bytes, &ParseOptions::with_source(stem.clone()))
            .unwrap_or_else(|e| panic!("{e}"));
        insta::assert_json_snapshot!(format!("valid__{stem}"), run);
    });
}

#[test]
fn invalid_fixtures() {
    let adapter = Jest::new();
    each_fixture(env!("CARGO_MANIFEST_DIR"), "invalid", |path, bytes| {
        let err = match parse_to_run(&adapter, bytes, &ParseOptions::default()) {
            Ok(run) => panic!("was accepted: {run:?}"),
            Err(e) => e,
        };
        let text = err.to_string();
        let stem = fixture_stem(path);
        // Every error but an empty file's names its place (`line:col: ...`).
        if !stem.contains("empty") && !stem.contains("whitespace") {
            let place = text.split(": ").next().unwrap();
            assert!(
                place.split(':').all(|n| n.parse::<usize>().is_ok()),
                "no place in `{text}`"
            );
        }
        insta::assert_snapshot!(format!("invalid__{stem}"), text);
    });
}

#[test]
fn statuses_map_and_never_read_as_a_pass() {
    let run = read("all-statuses.json");
    let s = |n: &str| test(&run, n).status;
    assert_eq!(s("passes"), Status::Passed);
    assert_eq!(s("fails"), Status::Failed);
    // Jest has no error status: a thrown exception is a failure.
    assert_eq!(s("throws"), Status::Failed);
    for n in ["is pending", "is skipped", "is disabled"] {
        assert_eq!(s(n), Status::Skipped, "{n}");
    }
    assert_eq!(s("is todo"), Status::Todo);
    assert_eq!(s("is focused"), Status::Errored);
    let t = test(&run, "fails");
    assert_eq!(
        (t.expected.as_deref(), t.actual.as_deref()),
        (Some("2"), Some("3"))
    );
    assert_eq!(test(&run, "is pending").duration, None);

    let run = read("test-failing-xfail-xpass.json");
    assert_eq!(test(&run, "known bug still fails").status, Status::Xfailed);
    assert_eq!(test(&run, "known bug now passes").status, Status::Xpassed);
}

#[test]
fn retries_become_attempts_and_a_late_pass_is_flaky() {
    let run = read("retries-flaky.json");
    let t = test(&run, "flaky then passes");
    assert_eq!(t.attempts.len(), 2);
    assert!(t.is_flaky());
    let t = test(&run, "fails every retry");
    assert_eq!((t.status, t.attempts.len()), (Status::Failed, 2));
    assert!(!t.is_flaky());
    assert!(test(&run, "invocations without reasons").is_flaky());
    assert!(test(&run, "passes first time").attempts.is_empty());
}

#[test]
fn ansi_is_stripped_and_expected_actual_kept() {
    let run = read("ansi-messages.json");
    let t = test(&run, "coloured failure");
    assert!(!t.message.as_deref().unwrap().contains('\u{1b}'));
    assert_eq!(t.expected.as_deref(), Some("\"Hello, World!\""));
    assert_eq!(t.actual.as_deref(), Some("\"hello, world\""));
    assert_eq!(
        test(&run, "two messages").message.as_deref(),
        Some("first\n\nsecond")
    );
}

#[test]
fn vitest_is_told_apart_and_read_alike() {
    let run = read("vitest-json.json");
    assert_eq!(run.producer.as_ref().unwrap().name, "vitest");
    let t = test(&run, "adds wrong");
    assert_eq!(t.suite.as_deref(), Some("/p/src/math.test.ts > math"));
    assert_eq!(
        (t.expected.as_deref(), t.actual.as_deref(), t.line),
        (Some("2"), Some("3"), Some(7))
    );
    assert_eq!(kinds(&run), [ProblemKind::SuiteError]);
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
}

#[test]
fn files_that_failed_to_run_are_suite_errors() {
    let run = read("suite-errors.json");
    assert_eq!(kinds(&run), [ProblemKind::SuiteError; 3]);
    let suites: Vec<&str> = run
        .problems
        .iter()
        .map(|p| p.suite.as_deref().unwrap())
        .collect();
    assert_eq!(
        suites,
        [
            "/p/exec.test.js",
            "/p/afterall.test.js",
            "/p/silent.test.js"
        ]
    );
    // The declared runtime-error count is covered by what was found: no extra problem.
    assert_eq!(
        kinds(&read("runtime-error-count-only.json")),
        [ProblemKind::SuiteError]
    );
}

#[test]
fn an_unsuccessful_or_interrupted_run_is_never_clean() {
    assert_eq!(
        kinds(&read("success-false-all-passing.json")),
        [ProblemKind::SuiteError]
    );
    assert_eq!(kinds(&read("no-tests.json")), [ProblemKind::SuiteError]);
    assert!(kinds(&read("interrupted.json")).contains(&ProblemKind::Aborted));
}

#[test]
fn declared_counts_are_checked() {
    // 5 declared, 2 held (1 pending): the 3 missing count as failed and stand for the 2
    // declared failures and one of the 3 declared todo tests; the other 2 not-run tests declared
    // are the pending one and one the file holds as passed (`summary-counts`, issue 31).
    let run = read("declared-counts-disagree.json");
    assert_eq!(
        kinds(&run),
        [ProblemKind::MissingTests, ProblemKind::SummaryCounts]
    );
    assert_eq!(run.problems[0].count, Some(3));
    assert_eq!(run.problems[1].count, Some(1));
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
}

#[test]
fn a_cut_document_keeps_what_was_read_and_says_so() {
    for (name, n) in [
        ("truncated-mid-test.json", 4),
        ("truncated-between-files.json", 2),
        ("truncated-at-results-start.json", 0),
    ] {
        let run = read(name);
        assert_eq!(run.tests.len(), n, "{name}");
        assert_eq!(kinds(&run), [ProblemKind::Truncated], "{name}");
        assert!(run.problems[0].detail.contains("line "), "{name}");
    }
}

#[test]
fn describe_titles_form_the_suite_and_tags_set_the_category() {
    use gapscore_adapter_sdk::Category;
    let run = read("categories-and-nesting.json");
    let c = |n: &str| test(&run, n).category;
    assert_eq!(
        c("[security] rejects a forged token"),
        Some(Category::Security)
    );
    assert_eq!(c("handles empty input"), Some(Category::EdgeCase));
    assert_eq!(
        c("[happy_path] overrides the describe tag"),
        Some(Category::HappyPath)
    );
    assert_eq!(c("square[1-2] has no tag"), None);
    assert_eq!(
        test(&run, "handles empty input").suite.as_deref(),
        Some("/p/auth.test.js > parser [edge_case] > inner")
    );
}

#[test]
fn real_standard_case_keeps_expected_and_actual() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real/standard/jest.json");
    let run = parse_to_run(
        &Jest::new(),
        &fs::read(path).unwrap(),
        &ParseOptions::default(),
    )
    .unwrap();
    let t = test(&run, "add wrong expectation");
    assert_eq!(
        (t.expected.as_deref(), t.actual.as_deref()),
        (Some("2"), Some("3"))
    );
    let t = test(&run, "greet formats name");
    assert_eq!(
        (t.expected.as_deref(), t.actual.as_deref()),
        (Some("Hello, World!"), Some("hello, world"))
    );
    assert!(run.problems.is_empty() && run.warnings.is_empty());
    assert_eq!(test(&run, "fetch remote").duration, None);
}

#[test]
fn no_panic_on_any_cut_of_a_real_file() {
    for case in ["standard", "syntax-error"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/real")
            .join(case)
            .join("jest.json");
        let bytes = fs::read(path).unwrap();
        let mut step = 1;
        let mut at = 0;
        while at < bytes.len() {
            // Every prefix either reads (a cut is a `truncated` run) or is an error.
            if let Ok(run) = parse_to_run(&Jest::new(), &bytes[..at], &ParseOptions::default()) {
                assert!(
                    run.problems
                        .iter()
                        .any(|p| p.kind == ProblemKind::Truncated),
                    "{case} cut at {at}"
                );
            }
            at += step;
            step = if at < 2000 { 1 } else { 7 };
        }
    }
}
