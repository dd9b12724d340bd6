//! Sealed-first needs a time to be shown against (attack 33, finding 16): with the seal time
//! known, a report without any implementation or validation time, or with a hardening cycle
//! that records none, does not hold level 2 on trust.

use std::fs;
use std::path::PathBuf;

use gapscore_check::{
    Evidence, FileResult, RequirementVerdict, SealedDir, check_bytes, read_seal_record,
};
use serde_json::Value;

use crate::common::evidence_fixture;

fn fixture(rel: &str) -> PathBuf {
    evidence_fixture("l3-everything-verified").join(rel)
}

/// The honest level-3 report under its seal record and directory, as `edit` changes it.
fn check(edit: impl FnOnce(&mut Value)) -> FileResult {
    let mut r: Value =
        serde_json::from_str(&fs::read_to_string(fixture("report.json")).unwrap()).unwrap();
    edit(&mut r);
    let mut dir = SealedDir::read(&fixture("sealed")).unwrap();
    dir.given = "sealed".into();
    let record = read_seal_record(&fixture("seal.json")).unwrap();
    check_bytes(
        "report.json",
        &serde_json::to_vec(&r).unwrap(),
        &Evidence::new(Some(dir), Some(record)),
        3,
    )
}

fn sealed_first(r: &FileResult) -> (RequirementVerdict, String) {
    let q = r
        .requirements
        .iter()
        .find(|q| q.id == "L2.sealed-first")
        .unwrap();
    (q.verdict, q.detail.clone())
}

#[test]
fn the_honest_report_is_attested_or_verified() {
    let r = check(|_| {});
    assert_eq!(sealed_first(&r).0, RequirementVerdict::Verified);
    assert_eq!(r.level_met, 3);
}

#[test]
fn no_time_to_compare_the_seal_with_fails_sealed_first() {
    let r = check(|r| {
        let m = r["report"].as_object_mut().unwrap();
        m.remove("timestamp");
        m.remove("implementation_started_at");
        r.as_object_mut().unwrap().remove("hardening");
    });
    let (verdict, detail) = sealed_first(&r);
    assert_eq!(verdict, RequirementVerdict::Failed, "{detail}");
    assert!(
        detail.contains("no time of implementation or validation"),
        "{detail}"
    );
    assert!(r.level_met < 2);
}

#[test]
fn a_cycle_without_a_time_fails_sealed_first() {
    let r = check(|r| {
        r["report"]
            .as_object_mut()
            .unwrap()
            .remove("implementation_started_at");
        r["hardening"]["history"][0]
            .as_object_mut()
            .unwrap()
            .remove("timestamp");
    });
    let (verdict, detail) = sealed_first(&r);
    assert_eq!(verdict, RequirementVerdict::Failed, "{detail}");
    assert!(detail.contains("cycle 0 records no time"), "{detail}");
    assert!(r.level_met < 2);
}
