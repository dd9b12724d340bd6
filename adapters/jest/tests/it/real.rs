//! The Jest adapter against the real-runner corpus: for every case, the tests match the truth
//! one for one — same file and full name, a status the truth accepts — and exactly the run-level
//! problem kinds the truth lists are reported.

use std::fs;
use std::path::Path;

use gapscore_adapter_jest::Jest;
use gapscore_adapter_sdk::{Adapter, ParseOptions, TestCase, parse_to_run};
use gapscore_adapter_testing::{Truth, compare_tests, real_cases};
use serde_json::Value;

/// The truth's `fullName`: the describe titles (the suite after the file) and the title, joined
/// by a space, as Jest builds it.
fn full_name(t: &TestCase) -> String {
    let file = t.file.as_deref().unwrap_or_default();
    let suite = t.suite.as_deref().unwrap_or_default();
    let mut parts: Vec<&str> = suite
        .strip_prefix(file)
        .unwrap_or(suite)
        .split(" > ")
        .filter(|s| !s.is_empty())
        .collect();
    parts.push(&t.name);
    parts.join(" ")
}

#[test]
fn every_real_case_matches_its_truth() {
    let adapter = Jest::new();
    let mut failures = Vec::new();
    let cases = real_cases(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(cases.len(), 2);
    for dir in cases {
        let truth = Truth::load(&dir);
        let case = truth.case.clone();
        let bytes = fs::read(dir.join("jest.json")).unwrap();
        assert_eq!(truth.format(), Some("jest-json"));
        assert_eq!(
            adapter.detect(&bytes, Some("jest.json")),
            98,
            "{case}: not detected"
        );
        let run = parse_to_run(&adapter, &bytes, &ParseOptions::default()).unwrap();
        // The truth's tool is "jest + jest-junit": this file is jest's own.
        assert!(truth.producer_tool().starts_with("jest"));
        assert_eq!(
            run.producer.as_ref().map(|p| p.name.as_str()),
            Some("jest"),
            "{case}"
        );
        let want: Vec<&Value> = truth.entries().iter().collect();
        assert!(truth.parents().is_empty());
        // Every test of the run, parents too (there are none in the truth).
        let tests: Vec<&TestCase> = run.tests.iter().collect();
        let pairs = compare_tests(
            &case,
            &tests,
            &want,
            |t, w| {
                w["suite"]
                    .as_str()
                    .is_some_and(|f| t.file.as_deref() == Some(f))
                    && w["name"] == full_name(t).as_str()
            },
            &mut failures,
        );
        for (t, w) in pairs {
            if let Some(path) = w["path"].as_array() {
                let last = path.last().and_then(Value::as_str).unwrap();
                if t.name != last {
                    let name = w["name"].as_str().unwrap();
                    failures.push(format!("{case}: `{name}` named `{}`", t.name));
                }
            }
        }
        // Exactly the kinds the truth lists, each as many times.
        let mut got: Vec<&str> = run.problems.iter().map(|p| p.kind.as_str()).collect();
        let mut known = truth.problem_kinds();
        got.sort_unstable();
        known.sort_unstable();
        if got != known {
            failures.push(format!("{case}: problems {got:?}, truth lists {known:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The details name what broke, so a user can act on them.
#[test]
fn syntax_error_problems_name_the_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real/syntax-error");
    let bytes = fs::read(dir.join("jest.json")).unwrap();
    let run = parse_to_run(&Jest::new(), &bytes, &ParseOptions::default()).unwrap();
    let p: Vec<(String, String)> = run
        .problems
        .iter()
        .map(|p| (p.suite.clone().unwrap_or_default(), p.detail.clone()))
        .collect();
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(p[0].0.ends_with("missing.test.js"));
    assert!(p[0].1.contains("Cannot find module './does-not-exist'"));
    assert!(p[1].0.ends_with("broken.test.js"));
    assert!(p[1].1.contains("SyntaxError"));
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
}
