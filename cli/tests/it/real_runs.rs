//! No false alarms (issue 18): every complete real run in the corpus — a real runner's output
//! whose ground truth (`truth.json`) records no run-level problem — scores without an advisory,
//! so it passes `--threshold 100`; and every real run with a problem is advisory, so it fails
//! that gate. New rules (declared counts, interruptions, directory scans) must keep both.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{code, json_of, run_in, stderr};

/// Every real case: its folder and ground truth.
fn real_cases() -> Vec<(PathBuf, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut cases = Vec::new();
    for adapter in fs::read_dir(root.join("adapters")).unwrap() {
        let real = adapter.unwrap().path().join("tests/fixtures/real");
        let Ok(dirs) = fs::read_dir(&real) else {
            continue;
        };
        for d in dirs {
            let d = d.unwrap().path();
            let truth = d.join("truth.json");
            if truth.is_file() {
                let t: Value = serde_json::from_str(&fs::read_to_string(&truth).unwrap()).unwrap();
                cases.push((d, t));
            }
        }
    }
    cases.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(
        cases.len() >= 30,
        "the real corpus went missing: {}",
        cases.len()
    );
    cases
}

/// The case's result files (the truth's `files` with role `report`).
fn reports(dir: &Path, truth: &Value) -> Vec<String> {
    truth["files"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, role)| role.as_str() == Some("report"))
        .map(|(name, _)| dir.join(name).to_str().unwrap().to_owned())
        .collect()
}

#[test]
fn complete_real_runs_are_not_advisory_and_runs_with_problems_are() {
    let mut wrong = Vec::new();
    let (mut complete, mut broken) = (0, 0);
    for (dir, truth) in real_cases() {
        let clean =
            truth["complete"] == true && truth["problems"].as_array().is_none_or(|p| p.is_empty());
        let mut args = vec!["score".to_owned()];
        for r in reports(&dir, &truth) {
            args.extend(["--sealed".to_owned(), r]);
        }
        args.extend(["--threshold".to_owned(), "100".to_owned()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run_in(&dir, &args);
        let name = dir.display().to_string();
        if code(&o) == 2 {
            wrong.push(format!("{name}: exit 2: {}", stderr(&o)));
            continue;
        }
        let r = json_of(&o);
        let advisory = r["report"]["advisory"] == true;
        if clean {
            complete += 1;
            if advisory || code(&o) != 0 {
                wrong.push(format!(
                    "{name}: a complete run reads as advisory ({}) or fails the gate (exit {})",
                    r["report"]["advisory_reason"],
                    code(&o)
                ));
            }
        } else {
            broken += 1;
            if !advisory || code(&o) != 1 {
                wrong.push(format!(
                    "{name}: a run with problems is not advisory or passes the gate (exit {})",
                    code(&o)
                ));
            }
        }
    }
    assert!(
        complete >= 20 && broken >= 8,
        "{complete} complete, {broken} broken"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The wild corpora (result files public projects committed, `adapters/*/tests/fixtures/wild/`,
/// each with hand-written expectations in its `expected.toml`): a file whose expectations list
/// no run-level problem is a complete run and scores without an advisory (unless its entry says
/// `advisory = true`, as a file of flaky passes does); a file with a problem is advisory and
/// fails `--threshold 100`. A new rule about evidence must raise no false alarm on them.
#[test]
fn wild_files_are_advisory_exactly_when_their_expectations_say() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut wrong = Vec::new();
    let mut checked = 0;
    for adapter in fs::read_dir(root.join("adapters")).unwrap() {
        let wild = adapter.unwrap().path().join("tests/fixtures/wild");
        let Ok(text) = fs::read_to_string(wild.join("expected.toml")) else {
            continue;
        };
        let table: toml::Table = toml::from_str(&text).unwrap();
        for entry in table["file"].as_array().unwrap() {
            let name = entry["name"].as_str().unwrap();
            // A file the reader refuses by design (`error = "…"`): the crate's wild test checks
            // its message.
            if entry.get("error").is_some() {
                continue;
            }
            let has_problems = entry
                .get("problems")
                .and_then(toml::Value::as_table)
                .is_some_and(|t| !t.is_empty());
            let advisory_expected =
                has_problems || entry.get("advisory").and_then(toml::Value::as_bool) == Some(true);
            let o = run_in(&wild, &["score", "--sealed", name, "--threshold", "100"]);
            checked += 1;
            if code(&o) == 2 {
                wrong.push(format!(
                    "{}: exit 2: {}",
                    wild.join(name).display(),
                    stderr(&o)
                ));
                continue;
            }
            let r = json_of(&o);
            let advisory = r["report"]["advisory"] == true;
            if advisory != advisory_expected {
                wrong.push(format!(
                    "{}: advisory {advisory} ({}), expected {advisory_expected}; problems {}",
                    wild.join(name).display(),
                    r["report"]["advisory_reason"],
                    r["gapscore"]["problems"]
                ));
            }
        }
    }
    assert!(checked >= 50, "only {checked} wild files");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
