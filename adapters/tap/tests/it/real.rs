//! The TAP adapter against the real-runner corpus: for every case, the leaf tests (parents left
//! out) match the truth one for one — same name, same suite path, a status the truth accepts —,
//! the subtest points the truth marks `parent` are parents, every run-level problem kind the
//! truth lists is reported and no other, and the producer, when the adapter names one, is right.

use std::fs;
use std::path::Path;

use gapscore_adapter_sdk::{Adapter, ParseOptions, TestCase, parse_to_run};
use gapscore_adapter_tap::Tap;
use gapscore_adapter_testing::{
    Truth, compare_leaves, compare_problems, compare_tests, real_cases,
};
use serde_json::Value;

/// The producer name the adapter gives for a truth's tool, and whether the stream itself shows
/// it (a stream without a fingerprint of its producer has no producer).
fn producer_for(tool: &str) -> &str {
    match tool {
        "node --test" => "node",
        "pytest + pytest-tap" => "pytest-tap",
        "perl + Test::More" => "Test::More",
        other => other,
    }
}

/// Cases whose stream carries its producer's fingerprint, so the producer must be named.
const PRODUCER_SHOWN: &[&str] = &[
    "bats-standard",
    "node-test-standard",
    "perl-test-more-standard",
    "pytest-tap-standard",
];

/// Same name and same suite path (none and empty alike). A point the runner left unnamed (an
/// empty name in the truth) is named by its id, `#N`, or `(unnamed)` without one (issue 35).
fn same(t: &TestCase, w: &Value) -> bool {
    let want = w["name"].as_str();
    (want == Some(t.name.as_str())
        || (want == Some("") && t.name == t.id && (t.id.starts_with('#') || t.id == "(unnamed)")))
        && t.suite.as_deref().unwrap_or("") == w["suite"].as_str().unwrap_or("")
}

#[test]
fn every_real_case_matches_its_truth() {
    let adapter = Tap::new();
    let mut failures = Vec::new();
    let cases = real_cases(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(cases.len(), 11);
    for dir in cases {
        let truth = Truth::load(&dir);
        let case = truth.case.clone();
        let bytes = fs::read(dir.join("output.tap")).unwrap();
        let confidence = adapter.detect(&bytes, Some("output.tap"));
        if confidence < 70 {
            failures.push(format!("{case}: detected at {confidence}"));
        }
        let run = match parse_to_run(&adapter, &bytes, &ParseOptions::default()) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{case}: {e}"));
                continue;
            }
        };
        let want_producer = producer_for(truth.producer_tool());
        match run.producer.as_ref().map(|p| p.name.as_str()) {
            Some(got) if got != want_producer => {
                failures.push(format!("{case}: producer {got}, expected {want_producer}"));
            }
            None if PRODUCER_SHOWN.contains(&case.as_str()) => {
                failures.push(format!("{case}: no producer, expected {want_producer}"));
            }
            _ => {}
        }
        // Leaves and parents each one for one, so a leaf read as a parent (or the reverse)
        // is a difference, and so is any test the truth does not list.
        failures.extend(compare_leaves(&run, &truth, same));
        let parents: Vec<&TestCase> = run.tests.iter().filter(|t| t.parent).collect();
        compare_tests(&case, &parents, &truth.parents(), same, &mut failures);
        for t in &run.tests {
            // A child names a parent that is in the run.
            if let Some(pid) = &t.parent_id
                && !run.tests.iter().any(|p| p.parent && &p.id == pid)
            {
                failures.push(format!("{case}: `{}` has unknown parent `{pid}`", t.id));
            }
        }
        // The truth lists `plan-mismatch` beside `bail-out` ("bailed out with 3 planned tests
        // missing"): the bail-out problem itself carries those 3 (its count), so the run counts
        // them once and no plan-mismatch repeats them (issue 18).
        failures.extend(compare_problems(
            &run,
            &truth,
            &[("perl-bail-out", "plan-mismatch")],
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_real_cases_read_with_the_details_a_reader_needs() {
    let read = |case: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/real")
            .join(case)
            .join("output.tap");
        parse_to_run(
            &Tap::new(),
            &fs::read(path).unwrap(),
            &ParseOptions::default(),
        )
        .unwrap()
    };
    let node = read("node-test-standard");
    let t = node
        .tests
        .iter()
        .find(|t| t.name == "add wrong expectation")
        .unwrap();
    assert_eq!(t.expected.as_deref(), Some("2"));
    assert_eq!(t.actual.as_deref(), Some("3"));
    assert_eq!(t.line, Some(9));
    assert!(t.message.as_deref().unwrap().contains("3 !== 2"));
    assert!(t.duration.unwrap() > 0.0);
    let deep = node.tests.iter().find(|t| t.name == "deep works").unwrap();
    assert_eq!(deep.parent_id.as_deref(), Some("outer::inner"));
    assert_eq!(deep.suite.as_deref(), Some("outer > inner"));

    let bats = read("bats-standard");
    let t = bats
        .tests
        .iter()
        .find(|t| t.name == "add wrong expectation")
        .unwrap();
    assert_eq!((t.file.as_deref(), t.line), (Some("calc.bats"), Some(12)));
    assert!(t.message.as_deref().unwrap().contains("expected 2, got 3"));

    let perl = read("perl-test-more-standard");
    let t = perl
        .tests
        .iter()
        .find(|t| t.name == "known bug: rounding")
        .unwrap();
    assert_eq!(
        t.message.as_deref().map(|m| m.lines().next()),
        Some(Some("known bug #12"))
    );
    assert_eq!((t.file.as_deref(), t.line), (Some("t/calc.t"), Some(25)));

    let mocha = read("mocha-tap-standard");
    let t = mocha
        .tests
        .iter()
        .find(|t| t.name == "calc parse config errors")
        .unwrap();
    assert!(t.message.as_deref().unwrap().contains("TypeError"));
}
