//! The libtest adapter against real runner output (tests/fixtures/real, made by cargo test and
//! cargo nextest from a throw-away crate; see the README there): for every case, the tests match
//! the truth one for one — same suite, same name, a status the truth accepts — every run-level
//! problem kind the truth lists is reported and no other, and the producer is the truth's tool.

use gapscore_adapter_libtest::{FORMAT, Libtest};
use gapscore_adapter_sdk::{Adapter, ParseOptions, ProblemKind, Status, TestRun, parse_to_run};
use gapscore_adapter_testing::{Truth, compare_leaves, compare_problems, real_cases};

fn compare(run: &TestRun, truth: &Truth) -> Vec<String> {
    let case = &truth.case;
    let mut failures = Vec::new();
    let got = run.producer.as_ref().map(|p| p.name.as_str());
    if got != Some(truth.producer_tool()) {
        failures.push(format!("{case}: producer {got:?}"));
    }
    failures.extend(compare_leaves(run, truth, |t, w| {
        w["name"].as_str() == Some(t.name.as_str()) && t.suite.as_deref() == w["suite"].as_str()
    }));
    failures.extend(compare_problems(run, truth, &[]));
    failures
}

fn read(case: &str) -> TestRun {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/real")
        .join(case);
    let (_, bytes) = Truth::load(&dir).report();
    parse_to_run(&Libtest::new(), &bytes, &ParseOptions::default()).unwrap()
}

#[test]
fn every_real_case_matches_its_truth() {
    let adapter = Libtest::new();
    let mut failures = Vec::new();
    let cases = real_cases(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(cases.len(), 7);
    for dir in cases {
        let truth = Truth::load(&dir);
        let case = &truth.case;
        let (file, bytes) = truth.report();
        assert_eq!(
            adapter.detect(&bytes, Some(&file)),
            97,
            "{case}: not detected"
        );
        assert_eq!(truth.format(), Some(FORMAT));
        match parse_to_run(&adapter, &bytes, &ParseOptions::default()) {
            Ok(run) => failures.extend(compare(&run, &truth)),
            Err(e) => failures.push(format!("{case}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_abort_is_a_crash_of_its_binary_with_its_unfinished_tests() {
    let run = read("cargo-test-merged");
    let crash = run
        .problems
        .iter()
        .find(|p| p.kind == ProblemKind::Crash)
        .unwrap();
    assert_eq!(crash.suite.as_deref(), Some("tests/aborts.rs"));
    assert!(crash.detail.contains("SIGABRT"), "{}", crash.detail);
    let missing = run
        .problems
        .iter()
        .find(|p| p.kind == ProblemKind::MissingResults)
        .unwrap();
    assert_eq!(missing.weight(), 2, "b_aborts and c_slow");
    assert!(
        run.warnings.is_empty(),
        "cargo's lines are known: {:?}",
        run.warnings
    );
}

#[test]
fn a_failure_message_is_the_panic_with_its_place() {
    let run = read("cargo-test");
    let t = run
        .tests
        .iter()
        .find(|t| t.name == "tests::multi_line_panic")
        .unwrap();
    assert_eq!(
        t.message.as_deref(),
        Some("first line\nsecond line\n  third, indented")
    );
    assert_eq!((t.file.as_deref(), t.line), (Some("src/lib.rs"), Some(50)));
    assert!(t.output.as_deref().unwrap().contains("stack backtrace:"));
    let t = run
        .tests
        .iter()
        .find(|t| t.name == "tests::should_panic_but_did_not")
        .unwrap();
    assert_eq!(
        t.message.as_deref(),
        Some("test did not panic as expected at src/lib.rs:46:8")
    );
    let t = run
        .tests
        .iter()
        .find(|t| t.name == "tests::ignored_with_reason")
        .unwrap();
    assert_eq!(
        (t.status, t.message.as_deref()),
        (Status::Skipped, Some("slow on CI"))
    );
    let t = run.tests.iter().find(|t| t.name == "tests::adds").unwrap();
    assert_eq!(t.duration, Some(0.000000731));
}

#[test]
fn nextest_ids_keep_the_binary_and_plain_libtest_json_says_counts_are_unchecked() {
    let run = read("nextest");
    let t = run.tests.iter().find(|t| t.name == "b_aborts").unwrap();
    assert_eq!(t.id, "ltdemo::aborts$b_aborts");
    assert_eq!(t.suite.as_deref(), Some("ltdemo::aborts"));
    assert!(
        run.warnings.iter().any(|w| w.contains("libtest-json-plus")),
        "{:?}",
        run.warnings
    );
    let plus = read("nextest-plus");
    assert!(plus.warnings.is_empty(), "{:?}", plus.warnings);
}

#[test]
fn time_limits_and_benchmarks() {
    let run = read("ensure-time");
    let t = run.tests.iter().find(|t| t.name == "too_slow").unwrap();
    assert_eq!(t.message.as_deref(), Some("time limit exceeded"));
    let run = read("timeout-event");
    assert!(
        run.warnings[0].contains("over_a_minute"),
        "{:?}",
        run.warnings
    );
    let run = read("cargo-bench");
    let t = run.tests.iter().find(|t| t.name == "bench_bytes").unwrap();
    assert!(t.output.as_deref().unwrap().contains("MiB/s"));
}
