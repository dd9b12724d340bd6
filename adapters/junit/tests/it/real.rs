//! The JUnit adapter against the real-runner corpus: for every case, the leaf tests (parents
//! left out) match the truth one for one — same name, a status the truth accepts — and every
//! run-level problem kind the file shows is reported.

use std::fs;

use gapscore_adapter_junit::JUnit;
use gapscore_adapter_sdk::{Adapter, ParseOptions, ProblemKind, parse_to_run};
use gapscore_adapter_testing::{Truth, compare_leaves, compare_problems, real_cases};

/// Problem kinds the truth lists that cannot be seen in the JUnit file itself: pytest's
/// "Interrupted: N errors during collection" is printed on the console, not written to the XML.
const NOT_IN_THE_FILE: &[(&str, &str)] = &[("pytest-collection-error", "aborted")];

#[test]
fn every_real_case_matches_its_truth() {
    let adapter = JUnit::new();
    let mut failures = Vec::new();
    let cases = real_cases(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(cases.len(), 16);
    for dir in cases {
        let truth = Truth::load(&dir);
        let case = truth.case.clone();
        let bytes = fs::read(dir.join("junit.xml")).unwrap();
        assert_eq!(
            adapter.detect(&bytes, Some("junit.xml")),
            95,
            "{case}: not detected"
        );
        let run = match parse_to_run(&adapter, &bytes, &ParseOptions::default()) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{case}: {e}"));
                continue;
            }
        };
        let want_producer = match truth.producer_tool() {
            "jest + jest-junit" => "jest-junit",
            "mocha + mocha-junit-reporter" => "mocha-junit-reporter",
            "cargo nextest" => "cargo-nextest",
            "node --test" => "node",
            other => other,
        };
        let got_producer = run.producer.as_ref().map(|p| p.name.as_str());
        if got_producer != Some(want_producer) {
            failures.push(format!(
                "{case}: producer {got_producer:?}, expected {want_producer}"
            ));
        }
        failures.extend(compare_leaves(&run, &truth, |t, w| {
            w["name"].as_str() == Some(t.name.as_str())
        }));
        failures.extend(compare_problems(&run, &truth, NOT_IN_THE_FILE));
        if truth.problem_kinds().is_empty() {
            assert!(
                !run.problems
                    .iter()
                    .any(|p| p.kind == ProblemKind::Truncated),
                "{case}"
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
