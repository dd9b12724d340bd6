//! The Jest adapter against the real-runner corpus: for every case, the tests match the truth
//! one for one — same file and full name, a status the truth accepts — and exactly the run-level
//! problem kinds the truth lists are reported.

#![allow(clippy::unwrap_used)] // Test code.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_adapter_jest::Jest;
use gapscore_adapter_sdk::{Adapter, ParseOptions, TestCase, parse_to_run};
use serde_json::Value;

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real");
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    assert_eq!(v.len(), 2);
    v
}

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
    for dir in cases() {
        let case = dir.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = fs::read(dir.join("jest.json")).unwrap();
        let truth: Value =
            serde_json::from_slice(&fs::read(dir.join("truth.json")).unwrap()).unwrap();
        assert_eq!(truth["format"], "jest-json");
        assert_eq!(
            adapter.detect(&bytes, Some("jest.json")),
            98,
            "{case}: not detected"
        );
        let run = parse_to_run(&adapter, &bytes, &ParseOptions::default()).unwrap();
        // The truth's tool is "jest + jest-junit": this file is jest's own.
        assert!(
            truth["producer"]["tool"]
                .as_str()
                .unwrap()
                .starts_with("jest")
        );
        assert_eq!(
            run.producer.as_ref().map(|p| p.name.as_str()),
            Some("jest"),
            "{case}"
        );
        let want: Vec<&Value> = truth["tests"].as_array().unwrap().iter().collect();
        assert!(want.iter().all(|t| t["parent"] != Value::Bool(true)));
        if run.tests.len() != want.len() {
            failures.push(format!(
                "{case}: {} tests, truth has {}",
                run.tests.len(),
                want.len()
            ));
        }
        let mut used = vec![false; run.tests.len()];
        for w in &want {
            let name = w["name"].as_str().unwrap();
            let file = w["suite"].as_str().unwrap();
            let mut ok: Vec<&str> = vec![w["status"].as_str().unwrap()];
            if let Some(a) = w["accept"].as_array() {
                ok.extend(a.iter().filter_map(Value::as_str));
            }
            match run
                .tests
                .iter()
                .enumerate()
                .find(|(i, t)| !used[*i] && t.file.as_deref() == Some(file) && full_name(t) == name)
            {
                Some((i, t)) => {
                    used[i] = true;
                    if !ok.contains(&t.status.as_str()) {
                        failures.push(format!(
                            "{case}: `{name}` is {}, truth says {ok:?}",
                            t.status
                        ));
                    }
                    if let Some(path) = w["path"].as_array() {
                        let last = path.last().and_then(Value::as_str).unwrap();
                        if t.name != last {
                            failures.push(format!("{case}: `{name}` named `{}`", t.name));
                        }
                    }
                }
                None => failures.push(format!("{case}: `{name}` in {file} not read")),
            }
        }
        let mut got: Vec<&str> = run.problems.iter().map(|p| p.kind.as_str()).collect();
        let mut known: Vec<&str> = truth["problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["kind"].as_str())
            .collect();
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
