//! The JUnit adapter against the real-runner corpus: for every case, the leaf tests (parents
//! left out) match the truth one for one — same name, a status the truth accepts — and every
//! run-level problem kind the file shows is reported.

#![allow(clippy::unwrap_used)] // Test code.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_adapter_junit::JUnit;
use gapscore_adapter_sdk::{Adapter, ParseOptions, ProblemKind, parse_to_run};
use serde_json::Value;

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real");
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    assert_eq!(v.len(), 16);
    v
}

/// Problem kinds the truth lists that cannot be seen in the JUnit file itself: pytest's
/// "Interrupted: N errors during collection" is printed on the console, not written to the XML.
fn not_in_the_file(case: &str, kind: &str) -> bool {
    case == "pytest-collection-error" && kind == "aborted"
}

#[test]
fn every_real_case_matches_its_truth() {
    let adapter = JUnit::new();
    let mut failures = Vec::new();
    for dir in cases() {
        let case = dir.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = fs::read(dir.join("junit.xml")).unwrap();
        let truth: Value =
            serde_json::from_slice(&fs::read(dir.join("truth.json")).unwrap()).unwrap();
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
        let want_producer = match truth["producer"]["tool"].as_str().unwrap() {
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
        let leaves: Vec<_> = run.tests.iter().filter(|t| !t.parent).collect();
        let want: Vec<&Value> = truth["tests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["parent"] != Value::Bool(true))
            .collect();
        if leaves.len() != want.len() {
            failures.push(format!(
                "{case}: {} leaf tests, truth has {}",
                leaves.len(),
                want.len()
            ));
        }
        let mut used = vec![false; leaves.len()];
        for w in &want {
            let name = w["name"].as_str().unwrap();
            let mut ok: Vec<&str> = vec![w["status"].as_str().unwrap()];
            if let Some(a) = w["accept"].as_array() {
                ok.extend(a.iter().filter_map(Value::as_str));
            }
            match leaves
                .iter()
                .enumerate()
                .find(|(i, t)| !used[*i] && t.name == name)
            {
                Some((i, t)) => {
                    used[i] = true;
                    if !ok.contains(&t.status.as_str()) {
                        failures.push(format!(
                            "{case}: `{name}` is {}, truth says {ok:?}",
                            t.status
                        ));
                    }
                }
                None => failures.push(format!("{case}: `{name}` not read")),
            }
        }
        let got: Vec<&str> = run.problems.iter().map(|p| p.kind.as_str()).collect();
        for p in truth["problems"].as_array().unwrap() {
            let kind = p["kind"].as_str().unwrap();
            if !got.contains(&kind) && !not_in_the_file(&case, kind) {
                failures.push(format!(
                    "{case}: problem `{kind}` not reported (got {got:?})"
                ));
            }
        }
        // Nothing the truth does not know about either.
        let known: Vec<&str> = truth["problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["kind"].as_str())
            .collect();
        for k in &got {
            if !known.contains(k) {
                failures.push(format!("{case}: unexpected problem `{k}`"));
            }
        }
        if truth["problems"].as_array().unwrap().is_empty() {
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
