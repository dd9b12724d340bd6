//! What a seal's hash does not cover (attack 33, findings 7 and 8): the spec and stampede modes
//! leave files out of the hash, so a verification holds every file the record lists, and a mode
//! that leaves every file or every test file unhashed verifies nothing. Records are made here
//! (a stampede record of a pytest suite cannot be made with `gapscore seal`, which refuses it).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use gapscore_check::{Evidence, SealedDir, Severity, check_bytes};
use gapscore_seal::dir_hash::{HashMode, SealOptions, seal_hash};
use gapscore_seal::plurality;
use gapscore_seal::record::SealRecord;
use gapscore_seal::sealing::{SealRequest, seal_dir};
use serde_json::{Value, json};

use crate::common::{error_rules, evidence_fixture as fixture};

/// `report`'s copy with `hash` as its sealed hash (the report's and every cycle's).
fn under_hash(report: &str, hash: &str) -> Vec<u8> {
    let text = fs::read_to_string(fixture(report)).unwrap();
    let mut r: Value = serde_json::from_str(&text).unwrap();
    r["report"]["sealed_hash"] = json!(hash);
    if let Some(list) = r["hardening"]["history"].as_array_mut() {
        for h in list {
            h["sealed_hash"] = json!(hash);
        }
    }
    serde_json::to_vec_pretty(&r).unwrap()
}

/// Finding 7: a stampede record of a pytest suite hashes no file (the SHA-256 of nothing, the
/// same for every directory without `*.sh`): `seal.excludes`, though hash and list match.
#[test]
fn a_stampede_record_of_a_pytest_suite_verifies_nothing() {
    let dir = SealedDir::read(&fixture("l3-everything-verified/sealed")).unwrap();
    let opts = SealOptions {
        mode: HashMode::Stampede,
        hash_as: "sealed".to_owned(),
        ..SealOptions::default()
    };
    let hashed = seal_hash(&dir.files, &opts);
    assert_eq!(hashed.hashed, 0);
    let record = SealRecord::new(
        &hashed,
        &opts,
        "sealed",
        dir.files.clone(),
        "2026-03-01T08:00:00Z",
    );
    let report = under_hash("l3-everything-verified/report.json", &hashed.hash);
    let r = check_bytes(
        "report.json",
        &report,
        &Evidence::new(Some(dir), Some(record)),
        3,
    );
    assert_eq!(
        error_rules(&r),
        BTreeSet::from(["seal.excludes".to_owned()]),
        "{:#?}",
        r.findings
    );
    assert!(r.level_met < 2);
}

/// Two suites sealed in stampede mode (a `tests/run.sh` each, which the hash covers, beside a
/// `tests/test_calc.py` it leaves out), combined; returns the combined record and its hash.
fn stampede_suites(base: &Path) -> (PathBuf, String) {
    let mut records = Vec::new();
    for family in ["openai", "google"] {
        let dir = base.join(family);
        fs::create_dir_all(dir.join("tests")).unwrap();
        fs::write(dir.join("tests/run.sh"), "#!/bin/sh\npytest tests\n").unwrap();
        fs::copy(
            fixture("l3-everything-verified/sealed/test_calc.py"),
            dir.join("tests/test_calc.py"),
        )
        .unwrap();
        let mut req = SealRequest::new(&dir, "2026-03-01T08:00:00Z");
        req.mode = HashMode::Stampede;
        req.author_family = Some(family.to_owned());
        let sealed = seal_dir(&req).unwrap();
        let record = base.join(format!("{family}.seal.json"));
        fs::write(
            &record,
            serde_json::to_string_pretty(&sealed.record).unwrap(),
        )
        .unwrap();
        records.push(record);
    }
    let combined = plurality::combine(&records, None, "2026-03-01T08:30:00Z").unwrap();
    let path = base.join("combined.seal.json");
    fs::write(&path, serde_json::to_string_pretty(&combined).unwrap()).unwrap();
    (path, combined.hash)
}

/// Finding 8: under a combined seal of stampede suites, a test file the mode leaves out of the
/// hash, rewritten after sealing, breaks the seal (`hash.recomputed`): every file the suite's
/// record lists is held, not only the hashed ones.
#[test]
fn a_test_rewritten_after_a_stampede_seal_breaks_the_combined_seal() {
    let tmp = tempfile::tempdir().unwrap();
    let (record, hash) = stampede_suites(tmp.path());
    let report = under_hash("l4-single-record-author-family/report.json", &hash);
    let check = || {
        let evidence = Evidence::load(Some(tmp.path()), Some(&record)).unwrap();
        check_bytes("report.json", &report, &evidence, 2)
    };
    let honest = check();
    assert!(
        !error_rules(&honest).contains("hash.recomputed"),
        "{:#?}",
        honest.findings
    );
    fs::write(
        tmp.path().join("google/tests/test_calc.py"),
        "def test_add():\n    pass\n",
    )
    .unwrap();
    let r = check();
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == "hash.recomputed" && f.severity == Severity::Error)
        .unwrap_or_else(|| panic!("{:#?}", r.findings));
    assert!(f.message.contains("tests/test_calc.py"), "{}", f.message);
    assert!(r.level_met < 2);
}
