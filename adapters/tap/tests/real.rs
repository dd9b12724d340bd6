//! The TAP adapter against the real-runner corpus: for every case, the leaf tests (parents left
//! out) match the truth one for one — same name, same suite path, a status the truth accepts —,
//! the subtest points the truth marks `parent` are parents, every run-level problem kind the
//! truth lists is reported and no other, and the producer, when the adapter names one, is right.

#![allow(clippy::unwrap_used)] // Test code.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_adapter_sdk::{Adapter, ParseOptions, parse_to_run};
use gapscore_adapter_tap::Tap;
use serde_json::Value;

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real");
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    assert_eq!(v.len(), 11);
    v
}

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

#[test]
fn every_real_case_matches_its_truth() {
    let adapter = Tap::new();
    let mut failures = Vec::new();
    for dir in cases() {
        let case = dir.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = fs::read(dir.join("output.tap")).unwrap();
        let truth: Value =
            serde_json::from_slice(&fs::read(dir.join("truth.json")).unwrap()).unwrap();
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
        let want_producer = producer_for(truth["producer"]["tool"].as_str().unwrap());
        match run.producer.as_ref().map(|p| p.name.as_str()) {
            Some(got) if got != want_producer => {
                failures.push(format!("{case}: producer {got}, expected {want_producer}"));
            }
            None if PRODUCER_SHOWN.contains(&case.as_str()) => {
                failures.push(format!("{case}: no producer, expected {want_producer}"));
            }
            _ => {}
        }
        let all: Vec<&Value> = truth["tests"].as_array().unwrap().iter().collect();
        let mut used = vec![false; run.tests.len()];
        let mut leaves_want = 0;
        for w in &all {
            let name = w["name"].as_str().unwrap();
            let suite = w["suite"].as_str().unwrap_or("");
            let parent = w["parent"] == Value::Bool(true);
            if !parent {
                leaves_want += 1;
            }
            let mut ok: Vec<&str> = vec![w["status"].as_str().unwrap()];
            if let Some(a) = w["accept"].as_array() {
                ok.extend(a.iter().filter_map(Value::as_str));
            }
            match run.tests.iter().enumerate().find(|(i, t)| {
                !used[*i] && t.name == name && t.suite.as_deref().unwrap_or("") == suite
            }) {
                Some((i, t)) => {
                    used[i] = true;
                    if !ok.contains(&t.status.as_str()) {
                        failures.push(format!(
                            "{case}: `{suite}` `{name}` is {}, truth says {ok:?}",
                            t.status
                        ));
                    }
                    if t.parent != parent {
                        failures.push(format!(
                            "{case}: `{name}` parent is {}, truth says {parent}",
                            t.parent
                        ));
                    }
                }
                None => failures.push(format!("{case}: `{suite}` `{name}` not read")),
            }
        }
        let leaves = run.tests.iter().filter(|t| !t.parent).count();
        if leaves != leaves_want {
            failures.push(format!(
                "{case}: {leaves} leaf tests, truth has {leaves_want}"
            ));
        }
        for (i, t) in run.tests.iter().enumerate() {
            if !used[i] {
                failures.push(format!("{case}: extra test {:?} {:?}", t.suite, t.name));
            }
            // A child names a parent that is in the run.
            if let Some(pid) = &t.parent_id
                && !run.tests.iter().any(|p| p.parent && &p.id == pid)
            {
                failures.push(format!("{case}: `{}` has unknown parent `{pid}`", t.id));
            }
        }
        let got: Vec<&str> = run.problems.iter().map(|p| p.kind.as_str()).collect();
        let known: Vec<&str> = truth["problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["kind"].as_str())
            .collect();
        for kind in &known {
            if !got.contains(kind) {
                failures.push(format!(
                    "{case}: problem `{kind}` not reported (got {got:?})"
                ));
            }
        }
        for k in &got {
            if !known.contains(k) {
                failures.push(format!("{case}: unexpected problem `{k}`"));
            }
        }
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
