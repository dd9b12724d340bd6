//! Sealed-first needs a time to be shown against (attack 33, finding 16): with the seal time
//! known, a report without any implementation or validation time, or with a hardening cycle
//! that records none, does not hold level 2 on trust.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_check::{
    Evidence, FileResult, RequirementVerdict, SealedDir, check_bytes, read_seal_record,
};
use gapscore_seal::record::{Canary, SealRecord};
use serde_json::Value;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance-tests/fixtures/evidence/l3-everything-verified")
        .join(rel)
}

/// The honest level-3 report under its seal record and directory, as `edit` changes it.
fn check(edit: impl FnOnce(&mut Value)) -> FileResult {
    check_with(edit, |_| {})
}

fn check_with(
    edit: impl FnOnce(&mut Value),
    edit_record: impl FnOnce(&mut SealRecord),
) -> FileResult {
    let mut r: Value =
        serde_json::from_str(&fs::read_to_string(fixture("report.json")).unwrap()).unwrap();
    edit(&mut r);
    let mut dir = SealedDir::read(&fixture("sealed")).unwrap();
    dir.given = "sealed".into();
    let mut record = read_seal_record(&fixture("seal.json")).unwrap();
    edit_record(&mut record);
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

/// A record whose `created` is earlier than its own canary's time (set to the canary file's
/// time when sealing) was backdated: the canary's time is the seal time (finding 11 c).
#[test]
fn a_record_created_before_its_canary_is_dated_by_the_canary() {
    let r = check_with(
        |_| {},
        |rec| {
            rec.canary = Some(Canary::new(
                "test_calc.py",
                1_772_362_800,
                0,
                "2026-03-01T11:00:00Z",
            ));
        },
    );
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == "seal.order")
        .unwrap_or_else(|| panic!("{:#?}", r.findings));
    assert!(f.message.contains("canary"), "{}", f.message);
    assert!(r.level_met < 2);
}
