//! Spec v2 sealed-envelope features through the CLI: the implementer family per hardening cycle
//! (§4.4.2), the `assertions` reveal level (§4.4.1), the canary file (§4.5) and seal plurality
//! with the combined hash and spec ambiguity (§4.6).

use std::fs;
use std::path::Path;

use gapscore_seal::digest::sha256_hex;
use serde_json::{Value, json};

use crate::common::{code, run_in, stderr, stdout};

fn results(dir: &Path, name: &str, failed: usize) {
    let tests: Vec<Value> = (0..4)
        .map(|i| json!({"name": format!("t{i}"), "status": if i < failed { "failed" } else { "passed" }}))
        .collect();
    fs::write(dir.join(name), json!({ "tests": tests }).to_string()).unwrap();
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn harden_record_keeps_the_implementer_family_and_refuses_a_seal_authors() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    results(root, "c0.json", 2);
    results(root, "c1.json", 1);
    let o = run_in(
        root,
        &[
            "harden",
            "record",
            "h.json",
            "c0.json",
            "--implementer-family",
            "gpt",
            "--seal-author-family",
            "claude",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cycle 0 recorded: 2/4 sealed tests failed (50.0), the initial_shadow_score, implementer family gpt"),
        "{}",
        stderr(&o)
    );
    let h = read_json(&root.join("h.json"));
    assert_eq!(h["seal_author_families"], json!(["claude"]));
    assert_eq!(h["cycles"][0]["implementer_family"], "gpt");

    // Escalating into the seal author's family (any spelling) is refused, and nothing is kept.
    let o = run_in(
        root,
        &[
            "harden",
            "record",
            "h.json",
            "c1.json",
            "--implementer-family",
            " Claude",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("§4.4.2"), "{}", stderr(&o));
    assert_eq!(
        read_json(&root.join("h.json"))["cycles"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Another family is fine; the initial score is cycle 0's.
    let o = run_in(
        root,
        &[
            "harden",
            "record",
            "h.json",
            "c1.json",
            "--implementer-family",
            "gemini",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run_in(
        root,
        &[
            "score",
            "--sealed",
            "c1.json",
            "--history",
            "h.json",
            "--max-cycles",
            "3",
        ],
    );
    let r: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(r["hardening"]["initial_shadow_score"], 50.0);
    assert_eq!(r["hardening"]["hardening_velocity"], 25.0);

    // The seal author's family can come from the seal record.
    fs::create_dir(root.join("sealed")).unwrap();
    fs::write(root.join("sealed/test_a.py"), "def test_a():\n    pass\n").unwrap();
    let o = run_in(
        root,
        &[
            "seal",
            "sealed",
            "--author-family",
            "mistral",
            "-o",
            "rec.json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run_in(
        root,
        &[
            "harden",
            "record",
            "h2.json",
            "c0.json",
            "--seal",
            "rec.json",
            "--implementer-family",
            "Mistral",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(!root.join("h2.json").exists());
}

const SEALED: &str = "from app import greet\n\ndef test_greet():\n    assert greet(\"World\") == \"Hello, World!\"\n";

const PYTEST_MESSAGE: &str = "def test_greet():\n>       assert greet(\"World\") == \"Hello, World!\"\nE       AssertionError: assert 'hello' == 'Hello, World!'\nE         - Hello, World!\nE         + hello\n\ntests/test_greet.py:4: AssertionError";

#[test]
fn reveal_assertions_shows_only_the_assertion_lines_scrubbed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::create_dir(root.join("sealed")).unwrap();
    fs::write(root.join("sealed/test_greet.py"), SEALED).unwrap();
    fs::write(
        root.join("r.json"),
        json!({"tests": [{"name": "test_greet", "status": "failed", "message": PYTEST_MESSAGE,
            "expected": "Hello, World!", "actual": "hello"}]})
        .to_string(),
    )
    .unwrap();
    let feedback = |level: &str| {
        let o = run_in(
            root,
            &[
                "feedback",
                "r.json",
                "--sealed-dir",
                "sealed",
                "--reveal",
                level,
                "--format",
                "json",
            ],
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        serde_json::from_str::<Value>(&stdout(&o)).unwrap()
    };
    let fb = feedback("assertions");
    assert_eq!(fb["reveal"], "assertions");
    let f = &fb["failures"][0];
    assert_eq!(
        f["assertion"],
        "E       AssertionError: assert 'hello' == 'Hello, World!'\nE         - Hello, World!\nE         + hello"
    );
    assert_eq!(f["expected"], "Hello, World!");
    assert!(!fb.to_string().contains("assert greet("), "{fb}");
    // §4.4.1's default level is gapscore's `assertion`: no assertion text.
    let fb = feedback("failure-messages");
    assert_eq!(fb["reveal"], "assertion");
    assert!(fb["failures"][0].get("assertion").is_none());

    // A history that handed out `assertions` reports the v2 schema's highest value.
    let o = run_in(
        root,
        &[
            "harden",
            "record",
            "h.json",
            "r.json",
            "--reveal",
            "assertions",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run_in(
        root,
        &[
            "score",
            "--sealed",
            "r.json",
            "--history",
            "h.json",
            "--max-cycles",
            "2",
        ],
    );
    let r: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(r["hardening"]["max_reveal"], "assertion");
    assert_eq!(r["hardening"]["history"][0]["reveal"], "assertions");
}

#[test]
fn a_read_canary_is_reported_by_verify_and_score() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::create_dir(root.join("sealed")).unwrap();
    fs::write(root.join("sealed/test_a.py"), "def test_a():\n    pass\n").unwrap();
    fs::write(
        root.join("results.json"),
        json!({"tests": [{"name": "test_a", "status": "passed"}]}).to_string(),
    )
    .unwrap();
    let o = run_in(root, &["seal", "sealed", "--canary", "-o", "rec.json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rec = read_json(&root.join("rec.json"));
    let path = rec["canary"]["path"].as_str().unwrap().to_owned();
    assert!(
        path.starts_with("notes-") && path.ends_with(".txt"),
        "{path}"
    );
    // The canary is sealed with the tests.
    assert!(
        rec["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["path"] == path.as_str())
    );
    let noatime = stderr(&o).contains("noatime");

    // Verifying reads the directory, but sets the canary back: twice in a row is fine.
    for _ in 0..2 {
        let o = run_in(root, &["seal", "sealed", "--verify", "rec.json"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    if noatime {
        // Reads cannot show on this filesystem; the warning said so.
        return;
    }
    // `check` reads the canary before the directory and sets it back after its own read, as
    // verification does: an honest pipeline is not made advisory by checking it (attack 33,
    // finding 11).
    let o = run_in(
        root,
        &[
            "score",
            "--sealed",
            "results.json",
            "--seal",
            "rec.json",
            "--sealed-dir",
            "sealed",
            "-o",
            "honest.json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        read_json(&root.join("honest.json"))["report"]["seal_broken"],
        false
    );
    let check = [
        "check",
        "--level",
        "2",
        "--seal",
        "rec.json",
        "--sealed-dir",
        "sealed",
        "honest.json",
    ];
    for _ in 0..2 {
        let o = run_in(root, &check);
        assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
        let o = run_in(root, &["seal", "sealed", "--verify", "rec.json"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    fs::read(root.join("sealed").join(&path)).unwrap();
    // The report made before the read does not say so; the canary does.
    let o = run_in(root, &check);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    assert!(stdout(&o).contains("seal.broken"), "{}", stdout(&o));
    let o = run_in(root, &["seal", "sealed", "--verify", "rec.json"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the sealed tests were read after sealing"),
        "{}",
        stderr(&o)
    );
    // The evidence stays for score --seal, whose report becomes advisory.
    let o = run_in(
        root,
        &[
            "score",
            "--sealed",
            "results.json",
            "--seal",
            "rec.json",
            "--sealed-dir",
            "sealed",
        ],
    );
    let r: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(
        r["report"]["advisory_reason"]
            .as_str()
            .is_some_and(|s| s.contains("read after sealing")),
        "{r}"
    );
    // v2 §5.2: a canary showing a read breaks the seal.
    assert_eq!(r["report"]["seal_broken"], true, "{r}");

    // A seal that fails after writing its canary takes the canary back.
    fs::create_dir(root.join("s3")).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc/hostname", root.join("s3/link")).unwrap();
        let o = run_in(root, &["seal", "s3", "--canary"]);
        assert_eq!(code(&o), 2, "{}", stderr(&o));
        assert_eq!(fs::read_dir(root.join("s3")).unwrap().count(), 1);
    }

    // An existing file can be the canary.
    fs::create_dir(root.join("s2")).unwrap();
    fs::write(root.join("s2/README.txt"), "tests\n").unwrap();
    let o = run_in(
        root,
        &["seal", "s2", "--canary=README.txt", "-o", "rec2.json"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        read_json(&root.join("rec2.json"))["canary"]["path"],
        "README.txt"
    );
}

#[test]
fn combined_seals_hash_family_and_hash_lines_and_compute_spec_ambiguity() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for (dir, family) in [("a", "claude"), ("b", "gpt")] {
        fs::create_dir(root.join(dir)).unwrap();
        fs::write(root.join(dir).join("test_x.py"), format!("# {dir}\n")).unwrap();
        let rec = format!("{dir}.json");
        let o = run_in(root, &["seal", dir, "--author-family", family, "-o", &rec]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let ha = read_json(&root.join("a.json"))["hash"]
        .as_str()
        .unwrap()
        .to_owned();
    let hb = read_json(&root.join("b.json"))["hash"]
        .as_str()
        .unwrap()
        .to_owned();
    fs::write(
        root.join("contradictions.json"),
        json!({"total_acceptance_criteria": 8, "findings": [
            {"criterion": "AC-2", "behaviour": "an empty name is an error or a greeting"},
            {"criterion": "AC-2"},
            {"criterion": "AC-5", "kind": "divergence"}]})
        .to_string(),
    )
    .unwrap();
    let o = run_in(
        root,
        &[
            "seal",
            "--combine",
            "b.json",
            "a.json",
            "--contradictions",
            "contradictions.json",
            "-o",
            "combined.json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let c = read_json(&root.join("combined.json"));
    let lines = format!("claude {ha}\ngpt {hb}\n");
    assert_eq!(
        c["hash"],
        format!("sha256:{}", sha256_hex(lines.as_bytes()))
    );
    assert_eq!(c["suites"][0]["author_family"], "claude");
    assert_eq!(c["spec_ambiguity"]["value"], 0.125);
    assert_eq!(c["spec_ambiguity"]["contradicting_acceptance_criteria"], 1);
    assert_eq!(c["spec_ambiguity"]["divergences"], 1);

    // `seal --verify COMBINED .` checks every suite against its record, and the combined hash.
    let o = run_in(root, &["seal", "--verify", "combined.json", "."]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o).matches("ok: ").count(), 2, "{}", stdout(&o));
    fs::write(root.join("b/test_x.py"), "# b, changed\n").unwrap();
    let o = run_in(root, &["seal", "--verify", "combined.json", "."]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1 file changed (test_x.py)"),
        "{}",
        stderr(&o)
    );
    fs::write(root.join("b/test_x.py"), "# b\n").unwrap();
    let mut forged = c.clone();
    forged["hash"] = json!(format!("sha256:{}", "0".repeat(64)));
    fs::write(root.join("forged.json"), forged.to_string()).unwrap();
    let o = run_in(root, &["seal", "--verify", "forged.json", "."]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is not the hash of its suites' hashes"),
        "{}",
        stderr(&o)
    );

    // A hardening cycle by either author's family is refused.
    results(root, "c0.json", 1);
    let o = run_in(
        root,
        &[
            "harden",
            "record",
            "h.json",
            "c0.json",
            "--seal",
            "combined.json",
            "--implementer-family",
            "GPT",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));

    // Two suites of one family, or a record without a family, cannot be combined.
    let o = run_in(root, &["seal", "--combine", "a.json", "a.json"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("different model families"),
        "{}",
        stderr(&o)
    );
    let o = run_in(root, &["seal", "a", "-o", "plain.json"]);
    assert_eq!(code(&o), 0);
    let o = run_in(
        root,
        &[
            "harden",
            "record",
            "h2.json",
            "c0.json",
            "--seal",
            "plain.json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("names no author family"),
        "{}",
        stderr(&o)
    );
    let o = run_in(root, &["seal", "--combine", "a.json", "plain.json"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--author-family"), "{}", stderr(&o));
}

/// Every file under `dir` with its bytes, sorted: what "byte-identical" compares.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(snapshot(&p));
        } else {
            out.push((p.display().to_string(), fs::read(&p).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn a_seal_that_fails_after_its_canary_leaves_the_directory_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::create_dir(root.join("sealed")).unwrap();
    fs::write(root.join("sealed/test_a.py"), "def test_a():\n    pass\n").unwrap();
    let before = snapshot(&root.join("sealed"));
    // A stub run that cannot be used (a collection error) refuses the seal.
    fs::write(
        root.join("stub.json"),
        json!({"tests": [{"name": "test_a", "status": "passed"}],
               "problems": [{"kind": "collection-error", "detail": "import failed"}]})
        .to_string(),
    )
    .unwrap();
    let o = run_in(
        root,
        &[
            "seal",
            "sealed",
            "--canary",
            "--expect",
            "stub.json",
            "-o",
            "rec.json",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("no seal written"), "{}", stderr(&o));
    assert_eq!(snapshot(&root.join("sealed")), before);
    assert!(!root.join("rec.json").exists());
    // A stub run with no tests, too.
    fs::write(root.join("empty.json"), r#"{"tests": []}"#).unwrap();
    let o = run_in(
        root,
        &["seal", "sealed", "--canary", "--expect", "empty.json"],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(snapshot(&root.join("sealed")), before);
    // A record that cannot be written, after the directory was sealed with its canary.
    let o = run_in(
        root,
        &["seal", "sealed", "--canary", "-o", "no-such-dir/rec.json"],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(snapshot(&root.join("sealed")), before);
    // The same seal with a usable stub run keeps its canary and lists the test.
    fs::write(
        root.join("stub.json"),
        json!({"tests": [{"name": "test_a", "status": "passed"}]}).to_string(),
    )
    .unwrap();
    let o = run_in(
        root,
        &[
            "seal",
            "sealed",
            "--canary",
            "--expect",
            "stub.json",
            "-o",
            "rec.json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rec = read_json(&root.join("rec.json"));
    assert_eq!(rec["expected_tests"], json!(["test_a"]));
    let canary = rec["canary"]["path"].as_str().unwrap();
    assert!(root.join("sealed").join(canary).is_file());
    assert_eq!(snapshot(&root.join("sealed")).len(), before.len() + 1);
}
