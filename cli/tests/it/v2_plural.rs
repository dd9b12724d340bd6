//! `score --seal COMBINED --sealed-dir DIR` (spec v2 §4.6 seal plurality): every suite of a
//! combined record is verified against its directory by the check `seal --verify COMBINED DIR`
//! makes, the combined hash is the report's `sealed_hash`, the suites' expected tests are merged
//! (a missing test of any suite counts), the author families and spec ambiguity come from the
//! record, and one broken suite breaks the whole seal. A v1 report refuses a combined seal.

use std::fs;
use std::path::Path;

use gapscore_schema::{SchemaId, validate};
use serde_json::{Value, json};

use crate::common::{code, json_of, run_in, stderr};

fn write(path: &Path, v: &Value) {
    fs::write(path, v.to_string()).unwrap();
}

fn tests(list: &[(&str, &str)]) -> Value {
    let t: Vec<Value> = list
        .iter()
        .map(|(n, s)| json!({"name": n, "status": s}))
        .collect();
    json!({ "tests": t })
}

/// Seals suite `a` (openai: `tx1`, `tx2`) and suite `b` (google: `ty1`), directories under
/// `root` or under its subdirectory `under`, each holding one file (`files`), with their
/// expected tests: `seal` runs where the suites are, and writes the stubs `stub_a.json`,
/// `stub_b.json` and the records `a.seal.json`, `b.seal.json` in `root`.
fn seal_two_suites(root: &Path, under: Option<&str>, files: [&str; 2]) {
    let (base, up) = match under {
        Some(d) => (root.join(d), "../"),
        None => (root.to_owned(), ""),
    };
    for ((dir, family, ids), file) in [
        ("a", "openai", &["tx1", "tx2"][..]),
        ("b", "google", &["ty1"][..]),
    ]
    .into_iter()
    .zip(files)
    {
        fs::create_dir_all(base.join(dir)).unwrap();
        fs::write(base.join(dir).join(file), format!("# suite {dir}\n")).unwrap();
        let stub: Vec<(&str, &str)> = ids.iter().map(|i| (*i, "passed")).collect();
        write(&root.join(format!("stub_{dir}.json")), &tests(&stub));
        let (stub, rec) = (
            format!("{up}stub_{dir}.json"),
            format!("{up}{dir}.seal.json"),
        );
        let args = [
            "seal",
            dir,
            "--author-family",
            family,
            "--expect",
            &stub,
            "-o",
            &rec,
        ];
        let o = run_in(&base, &args);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
}

/// Two sealed suites (`a` by openai: `tx1`, `tx2`; `b` by google: `ty1`), each sealed with its
/// expected tests, combined with 1 contradicting criterion of 6 into `combined.json`; the
/// results `res.json` (one failure) and a two-cycle hardening history `h.json` ending on them.
fn plural() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    seal_two_suites(root, None, ["test_x.py", "test_y.py"]);
    write(
        &root.join("contra.json"),
        &json!({"total_acceptance_criteria": 6, "findings": [{"criterion": "AC-1"}]}),
    );
    let o = run_in(
        root,
        &[
            "seal",
            "--combine",
            "a.seal.json",
            "b.seal.json",
            "--contradictions",
            "contra.json",
            "-o",
            "combined.json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    write(
        &root.join("c0.json"),
        &tests(&[("tx1", "failed"), ("tx2", "failed"), ("ty1", "passed")]),
    );
    write(
        &root.join("res.json"),
        &tests(&[("tx1", "passed"), ("tx2", "failed"), ("ty1", "passed")]),
    );
    let hash = combined_hash(root);
    let hash = hash.as_str().unwrap();
    // Cycle 0 takes its hash from the combined record; cycle 1 names it, and must agree.
    for (c, named) in [("c0.json", None), ("res.json", Some(hash))] {
        let mut args = vec![
            "harden",
            "record",
            "h.json",
            c,
            "--implementer-family",
            "anthropic",
            "--seal",
            "combined.json",
        ];
        args.extend(named.iter().flat_map(|h| ["--sealed-hash", *h]));
        let o = run_in(root, &args);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    tmp
}

#[test]
fn harden_record_keeps_the_combined_hash_and_refuses_another() {
    let tmp = plural();
    let root = tmp.path();
    let h: Value = serde_json::from_str(&fs::read_to_string(root.join("h.json")).unwrap()).unwrap();
    let text = h.to_string();
    let hash = combined_hash(root);
    assert!(
        text.matches(hash.as_str().unwrap()).count() >= 2,
        "every cycle carries the combined hash: {h:#}"
    );
    let other = format!("sha256:{}", "ab".repeat(32));
    let o = run_in(
        root,
        &[
            "harden",
            "record",
            "h.json",
            "res.json",
            "--implementer-family",
            "anthropic",
            "--seal",
            "combined.json",
            "--sealed-hash",
            &other,
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("is not the record's"), "{}", stderr(&o));
    let after = fs::read_to_string(root.join("h.json")).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&after).unwrap(),
        h,
        "history unchanged"
    );
}

/// `score --sealed res.json --seal combined.json --sealed-dir . --spec-version 2 EXTRA`.
fn score(root: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "score",
        "--sealed",
        "res.json",
        "--seal",
        "combined.json",
        "--sealed-dir",
        ".",
        "--spec-version",
        "2",
    ];
    args.extend_from_slice(extra);
    run_in(root, &args)
}

const LEVEL_4: [&str; 10] = [
    "--implementer-family",
    "anthropic",
    "--conformance-level",
    "4",
    "--workspace-isolation",
    "strict",
    "--history",
    "h.json",
    "--max-cycles",
    "3",
];

fn combined_hash(root: &Path) -> Value {
    let c: Value =
        serde_json::from_str(&fs::read_to_string(root.join("combined.json")).unwrap()).unwrap();
    c["hash"].clone()
}

fn assert_schemas(r: &Value) {
    for id in [SchemaId::ShadowV2, SchemaId::Report] {
        let errors = validate(id, r).unwrap();
        assert!(errors.is_empty(), "{}: {errors:?}\n{r:#}", id.name());
    }
}

#[test]
fn an_intact_plural_seal_scores_with_the_combined_hash_and_passes_level_4() {
    let tmp = plural();
    let root = tmp.path();
    let o = score(root, &[&LEVEL_4[..], &["-o", "r.json"]].concat());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r: Value = serde_json::from_str(&fs::read_to_string(root.join("r.json")).unwrap()).unwrap();
    assert_schemas(&r);
    let m = &r["report"];
    assert_eq!(m["sealed_hash"], combined_hash(root));
    assert_eq!(m["seal_broken"], false);
    assert_eq!(m["seal_author_families"], json!(["google", "openai"]));
    assert_eq!(m["independence"], "strong");
    assert_eq!(m["spec_ambiguity"], 0.167);
    assert!(m.get("advisory").is_none(), "{r:#}");
    assert_eq!(
        r["sealed_tests"],
        json!({"total": 3, "passed": 2, "failed": 1})
    );
    assert_eq!(r["gapscore"]["manifest"]["expected"], 3);
    let o = run_in(root, &["check", "r.json", "--level", "4"]);
    assert_eq!(code(&o), 0, "{}", crate::common::stdout(&o));
    // With the combined record and the directory as evidence, the checker verifies every suite
    // through the same combined check; a changed suite fails level 2.
    let with_seal = [
        "check",
        "r.json",
        "--level",
        "4",
        "--seal",
        "combined.json",
        "--sealed-dir",
        ".",
    ];
    let o = run_in(root, &with_seal);
    assert_eq!(code(&o), 0, "{}", crate::common::stdout(&o));
    fs::write(root.join("a/test_x.py"), "# suite a, changed\n").unwrap();
    let o = run_in(root, &with_seal);
    assert_eq!(code(&o), 1, "{}", crate::common::stdout(&o));
    let out = crate::common::stdout(&o);
    assert!(
        out.contains("(openai) does not match its seal: 1 file changed (test_x.py)"),
        "{out}"
    );
    fs::write(root.join("a/test_x.py"), "# suite a\n").unwrap();
    let o = run_in(root, &["check", "r.json", "--seal", "combined.json"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("needs --sealed-dir"), "{}", stderr(&o));

    // The same contradictions given again agree; other ones contradict the record.
    let o = score(root, &["--contradictions", "contra.json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    write(
        &root.join("other.json"),
        &json!({"total_acceptance_criteria": 6, "findings": []}),
    );
    let o = score(root, &["--contradictions", "other.json"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the combined seal records 0.167"),
        "{}",
        stderr(&o)
    );

    // Declared seal author families must be the record's; an implementer of a suite's family
    // is weak independence, which the report says.
    let o = score(
        root,
        &[
            "--implementer-family",
            "anthropic",
            "--seal-author-family",
            "openai",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not the seal record's"),
        "{}",
        stderr(&o)
    );
    let o = score(
        root,
        &[
            "--implementer-family",
            "anthropic",
            "--seal-author-family",
            "OpenAI",
            "--seal-author-family",
            "google",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = score(root, &["--implementer-family", "Google"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_schemas(&r);
    assert_eq!(r["report"]["independence"], "weak");
    assert_eq!(r["report"]["advisory"], true);
}

#[test]
fn one_changed_suite_breaks_the_whole_seal() {
    let tmp = plural();
    let root = tmp.path();
    fs::write(root.join("b/test_y.py"), "# suite b, weakened\n").unwrap();
    let o = score(root, &LEVEL_4);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("changed: test_y.py"), "{err}");
    assert!(err.contains("broken combined seal"), "{err}");
    assert!(o.stdout.is_empty());

    // Allowed, the report is advisory with seal_broken, and fails any threshold.
    let o = score(
        root,
        &[&LEVEL_4[..], &["--allow-broken-seal", "--threshold", "100"]].concat(),
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json_of(&o);
    assert_schemas(&r);
    assert_eq!(r["report"]["seal_broken"], true);
    assert_eq!(r["report"]["sealed_hash"], combined_hash(root));
    let why = r["report"]["advisory_reason"].as_str().unwrap();
    assert!(why.contains("(google) does not match its seal"), "{why}");
    let o = run_in(root, &["seal", "--verify", "combined.json", "."]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
}

#[test]
fn a_missing_suite_counts_or_refuses() {
    let tmp = plural();
    let root = tmp.path();
    // Results without suite b's test: its expected test is counted as failed.
    write(
        &root.join("part.json"),
        &tests(&[("tx1", "passed"), ("tx2", "passed")]),
    );
    let o = run_in(
        root,
        &[
            "score",
            "--sealed",
            "part.json",
            "--seal",
            "combined.json",
            "--sealed-dir",
            ".",
            "--spec-version",
            "2",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1 expected sealed test did not run"),
        "{}",
        stderr(&o)
    );
    let r = json_of(&o);
    assert_eq!(
        r["sealed_tests"],
        json!({"total": 3, "passed": 2, "failed": 1})
    );
    assert_eq!(r["gapscore"]["manifest"]["missing"], json!(["ty1"]));

    // A suite's directory that is gone cannot be verified: no report.
    fs::rename(root.join("b"), root.join("b-gone")).unwrap();
    let o = score(root, &[]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the sealed suite by google"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
    fs::rename(root.join("b-gone"), root.join("b")).unwrap();

    // So is a suite's record.
    fs::rename(root.join("a.seal.json"), root.join("a.moved")).unwrap();
    let o = score(root, &[]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the sealed suite by openai"),
        "{}",
        stderr(&o)
    );
    fs::rename(root.join("a.moved"), root.join("a.seal.json")).unwrap();

    // A suite sealed without its expected tests beside one with them is refused.
    let o = run_in(
        root,
        &[
            "seal",
            "b",
            "--author-family",
            "google",
            "-o",
            "b.seal.json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run_in(
        root,
        &[
            "seal",
            "--combine",
            "a.seal.json",
            "b.seal.json",
            "-o",
            "combined.json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = score(root, &[]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("records no expected tests"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_forged_combined_record_is_a_broken_seal() {
    let tmp = plural();
    let root = tmp.path();
    let mut c: Value =
        serde_json::from_str(&fs::read_to_string(root.join("combined.json")).unwrap()).unwrap();
    let original = c.clone();
    c["hash"] = json!(format!("sha256:{}", "0".repeat(64)));
    write(&root.join("combined.json"), &c);
    let o = score(root, &LEVEL_4);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is not the hash of its suites' hashes"),
        "{}",
        stderr(&o)
    );
    let o = score(root, &[&LEVEL_4[..], &["--allow-broken-seal"]].concat());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_schemas(&r);
    assert_eq!(r["report"]["seal_broken"], true);
    assert_eq!(r["report"]["advisory"], true);

    // A suite's family swapped in the combined record, with the hash recomputed to match: the
    // suite's own record names another family.
    let mut c = original.clone();
    c["suites"][0]["author_family"] = json!("anthropic");
    let lines = {
        let mut l = [
            format!("anthropic {}\n", c["suites"][0]["hash"].as_str().unwrap()),
            format!("openai {}\n", c["suites"][1]["hash"].as_str().unwrap()),
        ];
        l.sort();
        l.concat()
    };
    c["hash"] = json!(format!(
        "sha256:{}",
        gapscore_seal::digest::sha256_hex(lines.as_bytes())
    ));
    write(&root.join("combined.json"), &c);
    let o = score(root, &["--implementer-family", "mistral"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("its author family is google, not anthropic"),
        "{}",
        stderr(&o)
    );
    let o = run_in(root, &["seal", "--verify", "combined.json", "."]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
}

/// A suite's record is bound to the combined seal by its bytes: a record of the same hash and
/// family with other expected tests (which the suite hash does not cover) breaks the seal, and a
/// record of the same name in the working directory is not taken for the one beside the
/// combined record (found by an attack on the build, issue 30).
#[test]
fn a_suite_record_is_the_one_the_seal_was_combined_from() {
    let tmp = plural();
    let root = tmp.path();
    // A planted copy in another working directory, with tx2 (the failing test) dropped.
    let mut planted: Value =
        serde_json::from_str(&fs::read_to_string(root.join("a.seal.json")).unwrap()).unwrap();
    planted["expected_tests"] = json!(["tx1"]);
    fs::create_dir(root.join("work")).unwrap();
    write(&root.join("work/a.seal.json"), &planted);
    fs::copy(root.join("res.json"), root.join("work/res.json")).unwrap();
    let o = run_in(
        &root.join("work"),
        &[
            "score",
            "--sealed",
            "res.json",
            "--seal",
            "../combined.json",
            "--sealed-dir",
            "..",
            "--spec-version",
            "2",
            "--implementer-family",
            "anthropic",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(r["report"]["shadow_score"], json!(33.3), "{r:#}");

    // The record itself swapped for one with the same hash and family.
    write(&root.join("a.seal.json"), &planted);
    let o = score(root, &["--implementer-family", "anthropic"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is not the one the combined seal was made from"),
        "{}",
        stderr(&o)
    );
    let o = run_in(root, &["seal", "--verify", "combined.json", "."]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
}

#[test]
fn a_v1_report_refuses_a_combined_seal() {
    let tmp = plural();
    let root = tmp.path();
    let o = run_in(
        root,
        &[
            "score",
            "--sealed",
            "res.json",
            "--seal",
            "combined.json",
            "--sealed-dir",
            ".",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("add --spec-version 2"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
    // Each suite under its own record still scores in v1.
    let o = run_in(
        root,
        &[
            "score",
            "--sealed",
            "res.json",
            "--seal",
            "a.seal.json",
            "--sealed-dir",
            "a",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// `sealed/a` (openai: `tx1`, `tx2`) and `sealed/b` (google: `ty1`) sealed with their expected
/// tests and combined into `combined.json`, beside a `run.sh` doing `script`.
fn plural_project(script: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    seal_two_suites(root, Some("sealed"), ["test.py", "test.py"]);
    let args = [
        "seal",
        "--combine",
        "a.seal.json",
        "b.seal.json",
        "-o",
        "combined.json",
    ];
    let o = run_in(root, &args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    fs::write(root.join("run.sh"), script).unwrap();
    tmp
}

fn run_plural(root: &Path) -> std::process::Output {
    let args = [
        "run",
        "--seal",
        "combined.json",
        "--sealed-dir",
        "sealed",
        "--spec-version",
        "2",
        "--results",
        "res.json",
        // Without a sandbox, so that the command can change a suite (under one it cannot).
        "--sandbox",
        "none",
        "--",
        "sh",
        "run.sh",
    ];
    run_in(root, &args)
}

/// `gapscore run` under a combined seal: every suite is checked before and after the command,
/// a test of any suite that did not run counts as failed, the report carries the combined hash;
/// a suite changed by the command breaks the whole seal.
#[test]
fn run_under_a_combined_seal_counts_every_suite_and_catches_a_changed_one() {
    let results =
        r#"{"tests":[{"name":"tx1","status":"passed"},{"name":"ty1","status":"passed"}]}"#;
    let tmp = plural_project(&format!("echo '{results}' > res.json\n"));
    let root = tmp.path();
    let o = run_plural(root);
    // A listed test without a result: the suite did not fully run (A010), so `run` exits 1.
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(r["report"]["advisory"], true, "{r}");
    assert_eq!(r["sealed_tests"]["total"], 3, "{r}");
    assert_eq!(r["sealed_tests"]["failed"], 1, "{r}");
    assert_eq!(r["report"]["sealed_hash"], combined_hash(root), "{r}");
    assert!(stderr(&o).contains("tx2"), "{}", stderr(&o));

    let tmp = plural_project(&format!(
        "echo '{results}' > res.json\nchmod u+w sealed/b/test.py\necho '# changed' > sealed/b/test.py\n"
    ));
    let o = run_plural(tmp.path());
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert!(stderr(&o).contains("the sealed tests changed during the run"));
    assert!(
        stderr(&o).contains("refusing to score against a broken combined seal"),
        "{}",
        stderr(&o)
    );
}

/// A combined seal covers the directory it is verified against (attack on issue 33, findings
/// 1, 2 and 15): one directory is not combined as two suites, a suite directory outside the
/// sealed directory or a suite record the combined record does not bind breaks the seal for
/// `seal --verify` and `score` alike, and an entry in no suite is named.
#[test]
fn a_combined_seal_must_cover_its_sealed_directory() {
    let tmp = plural();
    let root = tmp.path();
    // One directory sealed twice under two families is not two suites.
    let o = run_in(
        root,
        &[
            "seal",
            "a",
            "--author-family",
            "mistral",
            "-o",
            "a2.seal.json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run_in(root, &["seal", "--combine", "a.seal.json", "a2.seal.json"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("the same directory"), "{}", stderr(&o));
    fs::remove_file(root.join("a2.seal.json")).unwrap();

    let verify = ["seal", "--verify", "combined.json", "."];
    let o = run_in(root, &verify);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // The implementation's results and history lie beside the suites: named, not refused.
    assert!(
        stderr(&o).contains("none of the combined seal's suites"),
        "{}",
        stderr(&o)
    );

    let original = fs::read_to_string(root.join("combined.json")).unwrap();
    let mut c: Value = serde_json::from_str(&original).unwrap();
    // A suite directory outside the sealed directory (its record's files, planted elsewhere).
    let elsewhere = tempfile::tempdir().unwrap();
    fs::create_dir_all(elsewhere.path().join("b")).unwrap();
    fs::copy(
        root.join("b/test_y.py"),
        elsewhere.path().join("b/test_y.py"),
    )
    .unwrap();
    let outside = elsewhere.path().join("b").display().to_string();
    for s in c["suites"].as_array_mut().unwrap() {
        if s["author_family"] == "google" {
            s["directory"] = json!(outside);
        }
    }
    fs::write(root.join("combined.json"), c.to_string()).unwrap();
    let o = run_in(root, &verify);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not inside the sealed directory"),
        "{}",
        stderr(&o)
    );
    let o = score(root, &[]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));

    // A combined record that keeps no record_sha256 binds no suite record.
    let mut c: Value = serde_json::from_str(&original).unwrap();
    for s in c["suites"].as_array_mut().unwrap() {
        s.as_object_mut().unwrap().remove("record_sha256");
    }
    fs::write(root.join("combined.json"), c.to_string()).unwrap();
    let o = run_in(root, &verify);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("keeps no record_sha256"),
        "{}",
        stderr(&o)
    );
    let o = score(root, &[]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}
