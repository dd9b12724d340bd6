//! Data-driven test of the Mocha adapter on hand-written fixtures, one scenario each: every
//! `valid/` file is detected, read, and its canonical run snapshotted; every `invalid/` file
//! must fail with the snapshotted place and message. Targeted assertions pin the rules.

use std::path::Path;

use gapscore_adapter_mocha::{FORMAT, Mocha};
use gapscore_adapter_sdk::{Adapter, ParseOptions, ProblemKind, Status, TestRun, parse_to_run};
use gapscore_adapter_testing::{each_fixture, fixture_stem};

fn valid(name: &str) -> TestRun {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/valid")
        .join(name);
    let bytes = std::fs::read(&path).unwrap();
    parse_to_run(&Mocha::new(), &bytes, &ParseOptions::default()).unwrap()
}

/// (kind, weight) of each problem.
fn problems(run: &TestRun) -> Vec<(ProblemKind, u64)> {
    run.problems.iter().map(|p| (p.kind, p.weight())).collect()
}

#[test]
fn valid_fixtures() {
    let adapter = Mocha::new();
    let n = each_fixture(env!("CARGO_MANIFEST_DIR"), "valid", |path, bytes| {
        assert_eq!(adapter.detect(bytes, None), 96, "not detected");
        let stem = fixture_stem(path);
        let run = parse_to_run(&adapter, bytes, &ParseOptions::with_source(stem.clone()))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.format, FORMAT);
        insta::assert_json_snapshot!(format!("valid__{stem}"), run);
    });
    assert!(n >= 4);
}

#[test]
fn invalid_fixtures() {
    let adapter = Mocha::new();
    let n = each_fixture(env!("CARGO_MANIFEST_DIR"), "invalid", |path, bytes| {
        let err = match parse_to_run(&adapter, bytes, &ParseOptions::default()) {
            Ok(run) => panic!("was accepted: {run:?}"),
            Err(e) => e,
        };
        insta::assert_snapshot!(format!("invalid__{}", fixture_stem(path)), err.to_string());
    });
    assert!(n >= 4);
}

#[test]
fn a_pass_that_failures_lists_is_a_counted_problem() {
    let run = valid("forged-pass-listed-as-failure.json");
    assert!(run.tests.iter().all(|t| t.status == Status::Passed));
    assert_eq!(problems(&run), vec![(ProblemKind::SummaryCounts, 1)]);
}

#[test]
fn stats_counting_more_tests_than_listed_are_missing_tests() {
    let run = valid("stats-count-more.json");
    let kinds = problems(&run);
    assert!(kinds.contains(&(ProblemKind::MissingTests, 3)), "{kinds:?}");
}

#[test]
fn a_title_twice_in_one_file_is_two_tests_with_one_id() {
    let run = valid("duplicate-titles.json");
    assert_eq!(run.tests.len(), 2);
    assert_eq!(run.tests[0].id, run.tests[1].id);
    assert_eq!(run.tests[1].status, Status::Failed);
    assert!(run.problems.is_empty(), "{:?}", run.problems);
}

#[test]
fn a_cut_document_keeps_its_tests_and_is_truncated() {
    let run = valid("cut-mid-test.json");
    assert_eq!(run.tests.len(), 1);
    assert_eq!(problems(&run), vec![(ProblemKind::Truncated, 1)]);
}

#[test]
fn a_pending_entry_held_as_passed_is_a_counted_problem() {
    let run = valid("pending-held-as-passed.json");
    assert!(run.tests.iter().all(|t| t.status == Status::Passed));
    assert_eq!(problems(&run), vec![(ProblemKind::SummaryCounts, 1)]);
}

#[test]
fn a_test_titled_like_a_hook_stays_a_test() {
    let run = valid("hook-title-on-a-real-test.json");
    assert_eq!(run.tests.len(), 1);
    assert_eq!(run.tests[0].status, Status::Failed);
    assert!(run.problems.is_empty(), "{:?}", run.problems);
}

/// A Mocha document with `entry` as its one test (in `tests` and `passes`) and `stats_extra`
/// inside `stats`.
fn doc(entry: &str, stats_extra: &str) -> TestRun {
    let text = format!(
        r#"{{"stats":{{"suites":1,"tests":1,"passes":1,"pending":0,"failures":0,"start":"2026-01-01T00:00:00.000Z","end":"2026-01-01T00:00:00.001Z","duration":1{stats_extra}}},
        "tests":[{entry}],"pending":[],"failures":[],"passes":[{entry}]}}"#
    );
    parse_to_run(&Mocha::new(), text.as_bytes(), &ParseOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

const ENTRY: &str = r#"{"title":"adds","fullTitle":"calc adds","file":"t.js","duration":1,"currentRetry":0,"speed":"fast","err":{}"#;

fn foreign(run: &TestRun) -> Vec<&str> {
    run.problems
        .iter()
        .filter(|p| p.kind == ProblemKind::ForeignContent)
        .map(|p| p.detail.as_str())
        .collect()
}

/// Issue 36, attack findings 36A-1 and 36B-3: every key Mocha writes is known; a key it never
/// writes inside `stats` or a test entry (where a forged document swallows Mocha's own) is
/// foreign content, named once however many arrays repeat it.
#[test]
fn a_key_mocha_never_writes_below_the_top_is_foreign_content() {
    let honest = doc(&format!("{ENTRY}}}"), "");
    assert!(honest.problems.is_empty(), "{:?}", honest.problems);

    let swallowed = r#","mocha":{"stats":{"tests":2,"failures":2},"tests":[],"failures":[]}"#;
    let run = doc(&format!("{ENTRY}}}"), swallowed);
    let found = foreign(&run);
    assert_eq!(found.len(), 1, "{:?}", run.problems);
    assert!(found[0].contains("`stats.mocha`"), "{found:?}");

    let run = doc(&format!(r#"{ENTRY},"context":{{"x":1}}}}"#), "");
    let found = foreign(&run);
    assert_eq!(found.len(), 1, "{:?}", run.problems);
    assert!(found[0].contains("`tests[].context`"), "{found:?}");
    assert!(found[0].contains("`passes[].context`"), "{found:?}");
}

/// `err`'s members are the thrown error's own (any key), but a whole Mocha document inside
/// one is foreign content; an error with ordinary extra properties is not.
#[test]
fn a_mocha_document_inside_an_error_is_foreign_content() {
    let with_err = |err: &str| {
        format!(
            r#"{{"title":"adds","fullTitle":"calc adds","file":"t.js","duration":1,"currentRetry":0,"err":{err}}}"#
        )
    };
    let text = |entry: &str| {
        format!(
            r#"{{"stats":{{"tests":1,"passes":0,"pending":0,"failures":1}},"tests":[{entry}],"pending":[],"failures":[{entry}],"passes":[]}}"#
        )
    };
    let read =
        |t: String| parse_to_run(&Mocha::new(), t.as_bytes(), &ParseOptions::default()).unwrap();
    let plain = read(text(&with_err(
        r#"{"message":"boom","code":"E1","showDiff":false,"stats":{"size":1}}"#,
    )));
    assert!(foreign(&plain).is_empty(), "{:?}", plain.problems);
    let nested = read(text(&with_err(
        r#"{"message":"boom","doc":{"stats":{"tests":2},"tests":[],"passes":[]}}"#,
    )));
    let found = foreign(&nested);
    assert_eq!(found.len(), 1, "{:?}", nested.problems);
    assert!(found[0].contains("a Mocha document"), "{found:?}");
}
