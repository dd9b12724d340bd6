//! `gapscore harden record` (and `gapscore feedback`) read result files through the one score
//! pipeline: the cycle recorded from a set of files is what `gapscore score` reports for them
//! (the same counts, score, level and failure entries, run-level problems included), whatever
//! the files hold: console text beside structured results, tests all skipped, repeated ids, or
//! any of the real runs under `adapters/*/tests/fixtures/real/`.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::{code, json_of, repo_path, run_in, stderr};

/// The cycle `harden record` appends for `input`, in a fresh history; `None` when it refused
/// (exit 2), in which case no history may have been written.
fn recorded_cycle(dir: &Path, input: &str) -> Option<Value> {
    let history = dir.join("history.json");
    let _ = fs::remove_file(&history);
    let o = run_in(dir, &["harden", "record", "history.json", input]);
    match code(&o) {
        0 => {
            let h: Value = serde_json::from_str(&fs::read_to_string(&history).unwrap()).unwrap();
            let cycles = h["cycles"].as_array().unwrap();
            assert_eq!(cycles.len(), 1, "{h}");
            Some(cycles[0].clone())
        }
        2 => {
            assert!(
                !history.exists(),
                "{input}: refused, yet a history was written"
            );
            None
        }
        other => panic!("{input}: harden record exited {other}: {}", stderr(&o)),
    }
}

/// The report `gapscore score` writes for `input`; `None` when it refused (exit 2).
fn score_report(dir: &Path, input: &str) -> Option<Value> {
    let o = run_in(dir, &["score", "--sealed", input]);
    match code(&o) {
        0 => Some(json_of(&o)),
        2 => None,
        other => panic!("{input}: score exited {other}: {}", stderr(&o)),
    }
}

/// The names of the failure entries `gapscore feedback` hands out for `input`.
fn feedback_failures(dir: &Path, input: &str) -> Vec<String> {
    let o = run_in(dir, &["feedback", input, "--format", "json"]);
    assert_eq!(code(&o), 0, "{input}: {}", stderr(&o));
    json_of(&o)["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| text(&f["name"]))
        .collect()
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
}

/// Asserts that the cycle recorded from `input` is `gapscore score`'s report of it, and that
/// feedback lists the report's failure entries; returns the report (`None`: both refused).
fn assert_cycle_is_score(dir: &Path, input: &str) -> Option<Value> {
    let report = score_report(dir, input);
    let cycle = recorded_cycle(dir, input);
    let (Some(report), Some(cycle)) = (&report, &cycle) else {
        assert_eq!(
            report.is_some(),
            cycle.is_some(),
            "{input}: score and harden record disagree on whether it can be read"
        );
        return None;
    };
    let r = &report["report"];
    assert_eq!(
        (
            &cycle["sealed_total"],
            &cycle["sealed_failed"],
            &cycle["score"],
            &cycle["level"]
        ),
        (
            &report["sealed_tests"]["total"],
            &report["sealed_tests"]["failed"],
            &r["shadow_score"],
            &r["level"]
        ),
        "{input}: the recorded cycle is not the score"
    );
    let in_report: Vec<String> = report["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| text(&f["test_name"]))
        .collect();
    assert_eq!(
        feedback_failures(dir, input),
        in_report,
        "{input}: feedback's failures are not the report's"
    );
    Some(report.clone())
}

/// The real pytest run of `adapters/pytest/tests/fixtures/real/json-report-standard`: its JSON
/// report and the console text of the same session, side by side in one directory.
fn copy_pytest_run(to: &Path) {
    let from = repo_path("adapters/pytest/tests/fixtures/real/json-report-standard");
    fs::create_dir_all(to).unwrap();
    for f in ["report.json", "console.txt"] {
        fs::copy(from.join(f), to.join(f)).unwrap();
    }
}

#[test]
fn console_text_beside_a_structured_report_is_not_recorded_twice() {
    let tmp = tempfile::tempdir().unwrap();
    copy_pytest_run(&tmp.path().join("results"));
    let report = assert_cycle_is_score(tmp.path(), "results").unwrap();
    // 14 tests, 5 failed: the JSON report alone (the console text holds the same session).
    assert_eq!(report["sealed_tests"]["total"], 14);
    assert_eq!(report["sealed_tests"]["failed"], 5);
    let o = run_in(tmp.path(), &["harden", "record", "h.json", "results"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("5/14 sealed tests failed (35.7)"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("console text beside structured results is not read")
            && stderr(&o).contains("console.txt"),
        "{}",
        stderr(&o)
    );
    // Named on the command line, both are read, by `score` and `harden record` alike.
    let both = ["results/report.json", "results/console.txt"];
    let o = run_in(
        tmp.path(),
        &["harden", "record", "h2.json", both[0], both[1]],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o2 = run_in(tmp.path(), &["score", "--sealed", both[0], both[1]]);
    let r = json_of(&o2);
    let h: Value =
        serde_json::from_str(&fs::read_to_string(tmp.path().join("h2.json")).unwrap()).unwrap();
    assert_eq!(h["cycles"][0]["sealed_total"], r["sealed_tests"]["total"]);
    assert_eq!(h["cycles"][0]["sealed_failed"], r["sealed_tests"]["failed"]);
    assert!(r["sealed_tests"]["total"].as_u64().unwrap() > 14, "{r}");
}

#[test]
fn a_file_of_skipped_tests_is_recorded_as_score_counts_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("results");
    fs::create_dir(&dir).unwrap();
    let skipped: Vec<Value> = (0..4)
        .map(|i| json!({"name": format!("s{i}"), "status": "skipped"}))
        .collect();
    fs::write(
        dir.join("skipped.json"),
        json!({ "tests": skipped }).to_string(),
    )
    .unwrap();
    // Alone: every test skipped is every test failed under the default policy, never 0.0.
    let report = assert_cycle_is_score(tmp.path(), "results/skipped.json").unwrap();
    assert_eq!(report["sealed_tests"]["failed"], 4);
    assert_eq!(report["report"]["shadow_score"], 100.0);
    // Beside a file of passes, in one directory.
    let passed: Vec<Value> = (0..4)
        .map(|i| json!({"name": format!("p{i}"), "status": "passed"}))
        .collect();
    fs::write(
        dir.join("passed.json"),
        json!({ "tests": passed }).to_string(),
    )
    .unwrap();
    let report = assert_cycle_is_score(tmp.path(), "results").unwrap();
    assert_eq!(report["sealed_tests"]["total"], 8);
    assert_eq!(report["sealed_tests"]["failed"], 4);

    // No test at all: 0.0, recorded as score reports it, with the warning that it proves nothing.
    fs::write(tmp.path().join("none.json"), r#"{"tests": []}"#).unwrap();
    let report = assert_cycle_is_score(tmp.path(), "none.json").unwrap();
    assert_eq!(report["sealed_tests"]["total"], 0);
    let o = run_in(tmp.path(), &["harden", "record", "h0.json", "none.json"]);
    assert!(
        stderr(&o).contains("no sealed tests were counted"),
        "{}",
        stderr(&o)
    );

    // A directory whose only file nothing recognises did not run as far as anyone can tell:
    // both refuse it (exit 2), and no cycle is written.
    let unread = tmp.path().join("unread");
    fs::create_dir(&unread).unwrap();
    fs::write(unread.join("notes.bin"), [0u8, 159, 146, 150, 7]).unwrap();
    assert_eq!(assert_cycle_is_score(tmp.path(), "unread"), None);
    let o = run_in(tmp.path(), &["harden", "record", "h.json", "unread"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("notes.bin"), "{}", stderr(&o));
}

#[test]
fn repeated_test_ids_are_named_and_counted_as_score_counts_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("results");
    fs::create_dir(&dir).unwrap();
    let run = json!({"tests": [
        {"name": "t_add", "status": "passed"},
        {"name": "t_sub", "status": "failed"},
        {"name": "t_mul", "status": "passed"},
    ]});
    // Two copies of one run, under different names.
    fs::write(dir.join("a.json"), run.to_string()).unwrap();
    fs::write(dir.join("b.json"), run.to_string()).unwrap();
    let report = assert_cycle_is_score(tmp.path(), "results").unwrap();
    assert_eq!(report["sealed_tests"]["total"], 6);
    assert_eq!(report["sealed_tests"]["failed"], 2);
    let o = run_in(tmp.path(), &["harden", "record", "h.json", "results"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("two copies of one run?"), "{err}");
    for id in ["t_add", "t_sub", "t_mul"] {
        assert!(
            err.contains(&format!("test id `{id}` occurs 2 times")),
            "{id}: {err}"
        );
    }
}

/// Every real run in the repository (each directory under `adapters/*/tests/fixtures/real/`,
/// read as a directory the way a pipeline hands one over), the JUnit file the hardening tests
/// give `feedback`, the upstream examples `harden record --help` shows and the generated cycle
/// files the hardening tests record: the recorded cycle equals the score report, or both refuse.
#[test]
fn every_fixture_directory_records_the_cycle_score_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let mut inputs = Vec::new();
    for adapter in fs::read_dir(repo_path("adapters")).unwrap() {
        let real = adapter.unwrap().path().join("tests/fixtures/real");
        let Ok(runs) = fs::read_dir(&real) else {
            continue;
        };
        for run in runs {
            let run = run.unwrap().path();
            if run.is_dir() {
                inputs.push(run.display().to_string());
            }
        }
    }
    inputs.sort();
    assert!(inputs.len() >= 40, "{inputs:?}");
    inputs.push(
        repo_path("adapters/junit/tests/fixtures/real/pytest-xunit2-standard/junit.xml")
            .display()
            .to_string(),
    );
    // The files `harden record --help` gives as examples.
    for example in ["01-perfect-score", "02-minor-gaps", "03-critical-gaps"] {
        let path = format!("conformance-tests/upstream/examples/{example}/sealed-results.json");
        inputs.push(repo_path(&path).display().to_string());
    }
    // The cycle files of the hardening tests (hardening.rs: 6 tests, `failed` of them failing).
    for failed in 0..4 {
        let tests: Vec<Value> = (0..6)
            .map(|i| json!({"name": format!("t{i}"), "status": if i < failed { "failed" } else { "passed" }}))
            .collect();
        let name = format!("cycle{failed}.json");
        fs::write(
            tmp.path().join(&name),
            json!({ "tests": tests }).to_string(),
        )
        .unwrap();
        inputs.push(name);
    }
    let mut refused = 0;
    for input in &inputs {
        if assert_cycle_is_score(tmp.path(), input).is_none() {
            refused += 1;
        }
    }
    // Most real runs can be read; the few that cannot are refused by both.
    assert!(refused * 4 < inputs.len(), "{refused} of {}", inputs.len());
}
