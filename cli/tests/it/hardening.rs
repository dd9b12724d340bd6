//! End-to-end tests of the hardening loop: `gapscore feedback`, `gapscore harden record` and
//! `score --history --max-cycles`, and the overlap ratio.

use std::fs;
use std::path::Path;

use gapscore_schema::{SchemaId, validate};
use serde_json::{Value, json};

use crate::common::{code, run_in, stderr, stdout};

/// The sealed source behind the real pytest JUnit file of the corpus, as its tracebacks
/// quote it.
const SEALED_CALC: &str = r#"from calc import add, greet


def test_add_wrong_expectation():
    assert add(1, 2) == 2


def test_greet_formats_name():
    assert greet("World") == "Hello, World!"
"#;

#[test]
fn feedback_on_a_real_pytest_failure_redacts_the_sealed_source() {
    let tmp = tempfile::tempdir().unwrap();
    let sealed = tmp.path().join("sealed");
    fs::create_dir(&sealed).unwrap();
    fs::write(sealed.join("test_calc.py"), SEALED_CALC).unwrap();
    let junit = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../adapters/junit/tests/fixtures/real/pytest-xunit2-standard/junit.xml");
    // Without the sealed directory, the source goes through: that is why it is needed.
    let o = run_in(tmp.path(), &["feedback", junit.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("assert add(1, 2) == 2"));
    assert!(stderr(&o).contains("no --sealed-dir"));

    let o = run_in(
        tmp.path(),
        &[
            "feedback",
            junit.to_str().unwrap(),
            "--sealed-dir",
            "sealed",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("SEALED TEST FAILURES: "), "{text}");
    for line in SEALED_CALC.lines().map(str::trim).filter(|l| l.len() >= 10) {
        assert!(!text.contains(line), "leaked {line:?}:\n{text}");
    }
    assert!(text.contains("[redacted: sealed source]"), "{text}");
    assert!(text.contains("[sealed test]: AssertionError"), "{text}");
    // What the implementer needs is still there.
    assert!(
        text.contains("- test_calc::test_greet_formats_name"),
        "{text}"
    );
    assert!(text.contains("'hello, world' == 'Hello, World!'"), "{text}");

    // JSON, at the name level: names only.
    let o = run_in(
        tmp.path(),
        &[
            "feedback",
            junit.to_str().unwrap(),
            "--sealed-dir",
            "sealed",
            "--reveal",
            "name",
            "--format",
            "json",
        ],
    );
    let fb: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(fb["reveal"], "name");
    for f in fb["failures"].as_array().unwrap() {
        assert_eq!(f.as_object().unwrap().keys().collect::<Vec<_>>(), ["name"]);
    }
}

fn results(dir: &Path, name: &str, failed: usize) {
    let tests: Vec<Value> = (0..6)
        .map(|i| json!({"name": format!("t{i}"), "status": if i < failed { "failed" } else { "passed" }}))
        .collect();
    fs::write(dir.join(name), json!({ "tests": tests }).to_string()).unwrap();
}

#[test]
fn a_three_cycle_history_fills_the_hardening_object() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for (i, failed) in [3, 2, 1, 0].iter().enumerate() {
        let f = format!("cycle{i}.json");
        results(root, &f, *failed);
        let o = run_in(
            root,
            &[
                "harden",
                "record",
                "history.json",
                &f,
                "--reveal",
                "message",
            ],
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("cycle {i} recorded")),
            "{}",
            stderr(&o)
        );
    }
    let o = run_in(
        root,
        &[
            "score",
            "--sealed",
            "cycle3.json",
            "--history",
            "history.json",
            "--max-cycles",
            "3",
            "--dialect",
            "both",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let h = &r["hardening"];
    assert_eq!(h["cycles_completed"], 3);
    assert_eq!(h["max_cycles"], 3);
    assert_eq!(h["initial_shadow_score"], 50.0);
    assert_eq!(h["initial_gap_score"], 50.0);
    assert_eq!(h["final_shadow_score"], 0.0);
    assert_eq!(h["hardening_velocity"], 16.7);
    assert_eq!(h["max_reveal"], "message");
    assert_eq!(h["history"].as_array().unwrap().len(), 4);
    for schema in [SchemaId::Report, SchemaId::ShadowV2] {
        assert_eq!(validate(schema, &r).unwrap(), vec![], "{schema:?}");
    }

    // A final report whose run is not the history's last cycle would contradict its own
    // `hardening` object (the checker rejects it at level 3): refused, nothing written.
    let o = run_in(
        root,
        &[
            "score",
            "--sealed",
            "cycle2.json",
            "--history",
            "history.json",
            "--max-cycles",
            "3",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("last recorded cycle (3)"),
        "{}",
        stderr(&o)
    );

    // Still failing after the allowed cycles: the report says so and the exit code is 1.
    for i in 0..3 {
        let o = run_in(
            root,
            &["harden", "record", "h3.json", &format!("cycle{i}.json")],
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let o = run_in(
        root,
        &[
            "score",
            "--sealed",
            "cycle2.json",
            "--history",
            "h3.json",
            "--max-cycles",
            "2",
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(
        r["hardening"]["escalation"]
            .as_str()
            .unwrap()
            .contains("escalate to human review")
    );

    // A history refuses a cycle under another seal.
    let o = run_in(
        root,
        &[
            "harden",
            "record",
            "h2.json",
            "cycle0.json",
            "--sealed-hash",
            &format!("sha256:{}", "a".repeat(64)),
        ],
    );
    assert_eq!(code(&o), 0);
    let o = run_in(
        root,
        &[
            "harden",
            "record",
            "h2.json",
            "cycle1.json",
            "--sealed-hash",
            &format!("sha256:{}", "b".repeat(64)),
        ],
    );
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("the sealed tests changed"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_overlap_ratio_matches_names_and_is_labelled_approximate() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::write(
        root.join("sealed.json"),
        json!({"tests": [
            {"name": "rejects expired token", "status": "failed"},
            {"name": "handles unicode names", "status": "passed"}
        ]})
        .to_string(),
    )
    .unwrap();
    fs::write(
        root.join("open.json"),
        json!({"tests": [
            {"name": "test_rejects_expired_token", "status": "passed"},
            {"name": "adds numbers", "status": "passed"}
        ]})
        .to_string(),
    )
    .unwrap();
    let o = run_in(
        root,
        &[
            "score",
            "--sealed",
            "sealed.json",
            "--open",
            "open.json",
            "--overlap",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let ov = &r["gapscore"]["overlap"];
    assert_eq!(ov["approximate"], true);
    assert_eq!(ov["ratio"], 0.5);
    assert_eq!(ov["pairs"][0]["open"], "test_rejects_expired_token");
    let o = run_in(
        root,
        &[
            "score",
            "--sealed",
            "sealed.json",
            "--open",
            "open.json",
            "--overlap",
            "--overlap-threshold",
            "1.5",
        ],
    );
    assert_eq!(code(&o), 2);
}
