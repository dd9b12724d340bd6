//! Seal records judged like any input, for the cases the fixture suite cannot hold (issue 33):
//! a FIFO or socket in the sealed directory (git keeps neither), and combined seal records
//! (§4.6), whose suites' records name their directories by path, made here in a temporary
//! directory. Each forged report breaks exactly one rule; the honest one holds level 4.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use gapscore_check::{Evidence, FileResult, SealedDir, check_bytes, read_seal_record};
use gapscore_seal::plurality;
use gapscore_seal::sealing::{SealRequest, seal_dir};
use serde_json::{Value, json};

use crate::common::{error_rules, evidence_fixture as fixture};

fn copy_sealed(to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(fixture("l3-everything-verified/sealed")).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// A socket (and a FIFO, where `mkfifo` exists) in the sealed directory is a `seal.not-regular`
/// error, not a directory silently passed over or a refusal to check.
#[cfg(unix)]
#[test]
fn a_socket_or_fifo_in_the_sealed_directory_is_a_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let sealed = tmp.path().join("sealed");
    copy_sealed(&sealed);
    let _listener = std::os::unix::net::UnixListener::bind(sealed.join("s.sock")).unwrap();
    let made_fifo = std::process::Command::new("mkfifo")
        .arg(sealed.join("pipe"))
        .status()
        .is_ok_and(|s| s.success());
    let mut dir = SealedDir::read(&sealed).unwrap();
    dir.given = "sealed".into();
    let record = read_seal_record(&fixture("l3-everything-verified/seal.json")).unwrap();
    let report = fs::read(fixture("l3-everything-verified/report.json")).unwrap();
    let r = check_bytes(
        "report.json",
        &report,
        &Evidence::new(Some(dir), Some(record)),
        3,
    );
    assert_eq!(
        error_rules(&r),
        BTreeSet::from(["seal.not-regular".to_owned()])
    );
    assert_eq!(r.level_met, 1);
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == "seal.not-regular")
        .unwrap();
    assert!(f.message.contains("s.sock (a socket)"), "{}", f.message);
    if made_fifo {
        assert!(f.message.contains("pipe (a FIFO)"), "{}", f.message);
    }
}

/// Two suites sealed by `families`, combined at `combined_at` with a spec ambiguity of 0.25;
/// returns the combined record's path and hash.
fn combined_seal(base: &Path, families: [&str; 2], combined_at: &str) -> (PathBuf, String) {
    combined_seal_expecting(base, families, combined_at, None)
}

/// [`combined_seal`], the first suite sealed with these expected tests when given.
fn combined_seal_expecting(
    base: &Path,
    families: [&str; 2],
    combined_at: &str,
    first_expects: Option<&[&str]>,
) -> (PathBuf, String) {
    let mut records = Vec::new();
    for (i, family) in families.into_iter().enumerate() {
        let dir = base.join(family);
        copy_sealed(&dir);
        // Two suites are two sets of files (one suite sealed twice is not seal plurality).
        fs::write(dir.join("AUTHOR"), format!("suite written by {family}\n")).unwrap();
        let mut req = SealRequest::new(&dir, "2026-03-01T08:00:00Z");
        req.author_family = Some(family.to_owned());
        if i == 0 {
            req.expected_tests = first_expects.map(|e| e.iter().map(|t| (*t).to_owned()).collect());
        }
        let record = base.join(format!("{family}.seal.json"));
        let sealed = seal_dir(&req).unwrap();
        fs::write(
            &record,
            serde_json::to_string_pretty(&sealed.record).unwrap(),
        )
        .unwrap();
        records.push(record);
    }
    let contradictions = base.join("contradictions.json");
    fs::write(
        &contradictions,
        r#"{"total_acceptance_criteria": 4, "findings": [{"criterion": "AC-2", "behaviour": "rounding", "kind": "contradiction"}]}"#,
    )
    .unwrap();
    let combined = plurality::combine(&records, Some(&contradictions), combined_at).unwrap();
    // Not left in the sealed directory: only the suites and their records are covered.
    fs::remove_file(&contradictions).unwrap();
    let path = base.join("combined.seal.json");
    fs::write(&path, serde_json::to_string_pretty(&combined).unwrap()).unwrap();
    (path, combined.hash)
}

/// The level-4 report made under a combined seal by openai and google, as `edit` changes it.
fn combined_report(hash: &str, edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let text = fs::read_to_string(fixture("l4-single-record-author-family/report.json")).unwrap();
    let mut r: Value = serde_json::from_str(&text).unwrap();
    r["report"]["sealed_hash"] = json!(hash);
    r["report"]["seal_author_families"] = json!(["openai", "google"]);
    r["report"]["spec_ambiguity"] = json!(0.25);
    for h in r["hardening"]["history"].as_array_mut().unwrap() {
        h["sealed_hash"] = json!(hash);
    }
    edit(&mut r);
    serde_json::to_vec_pretty(&r).unwrap()
}

fn check_combined(families: [&str; 2], at: &str, edit: impl FnOnce(&mut Value)) -> FileResult {
    let tmp = tempfile::tempdir().unwrap();
    let (record, hash) = combined_seal(tmp.path(), families, at);
    let evidence = Evidence::load(Some(tmp.path()), Some(&record)).unwrap();
    check_bytes("report.json", &combined_report(&hash, edit), &evidence, 4)
}

#[test]
fn an_honest_report_under_a_combined_seal_holds_level_4() {
    let r = check_combined(["openai", "google"], "2026-03-01T08:30:00Z", |_| {});
    assert_eq!(error_rules(&r), BTreeSet::new(), "{:#?}", r.findings);
    assert_eq!(r.level_met, 4);
}

/// A socket in one suite of a combined seal is a finding too, not a refusal to read the
/// evidence: the suite does not hold its record (`hash.recomputed`), and the entry is named
/// (`seal.not-regular`).
#[cfg(unix)]
#[test]
fn a_socket_under_a_combined_seal_is_a_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let (record, hash) = combined_seal(tmp.path(), ["openai", "google"], "2026-03-01T08:30:00Z");
    let _listener =
        std::os::unix::net::UnixListener::bind(tmp.path().join("google/s.sock")).unwrap();
    let evidence = Evidence::load(Some(tmp.path()), Some(&record)).unwrap();
    let r = check_bytes("report.json", &combined_report(&hash, |_| {}), &evidence, 4);
    assert_eq!(
        error_rules(&r),
        BTreeSet::from(["hash.recomputed".to_owned(), "seal.not-regular".to_owned()]),
        "{:#?}",
        r.findings
    );
    assert_eq!(r.level_met, 1);
    assert!(
        r.findings
            .iter()
            .any(|f| f.rule == "seal.not-regular" && f.message.contains("s.sock (a socket)")),
        "{:#?}",
        r.findings
    );
}

/// A combined seal whose suites list expected tests in part cannot hold the report's total
/// (`score` refuses it): a finding, not a silent pass.
#[test]
fn expected_tests_in_some_suites_only_are_a_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let (record, hash) = combined_seal_expecting(
        tmp.path(),
        ["openai", "google"],
        "2026-03-01T08:30:00Z",
        Some(&["test_calc.py::test_add"]),
    );
    let evidence = Evidence::load(Some(tmp.path()), Some(&record)).unwrap();
    let r = check_bytes("report.json", &combined_report(&hash, |_| {}), &evidence, 4);
    assert_eq!(
        error_rules(&r),
        BTreeSet::from(["seal.expected-tests".to_owned()]),
        "{:#?}",
        r.findings
    );
    assert_eq!(r.level_met, 0);
}

#[test]
fn a_spec_ambiguity_other_than_the_combined_records_is_an_error() {
    let r = check_combined(["openai", "google"], "2026-03-01T08:30:00Z", |r| {
        r["report"]["spec_ambiguity"] = json!(0.0);
    });
    assert_eq!(
        error_rules(&r),
        BTreeSet::from(["seal.ambiguity".to_owned()])
    );
    assert_eq!(r.level_met, 3);
}

#[test]
fn two_suites_reported_as_one_family_is_an_error() {
    let r = check_combined(["openai", "google"], "2026-03-01T08:30:00Z", |r| {
        r["report"]["seal_author_families"] = json!(["OpenAI"]);
        r["report"]["seal_author_models"] = json!(["gpt-5.6-terra"]);
    });
    assert!(
        error_rules(&r).contains("seal.families"),
        "{:#?}",
        r.findings
    );
    assert_eq!(r.level_met, 3);
}

#[test]
fn a_suite_by_the_implementers_family_hidden_is_an_error() {
    let r = check_combined(["openai", "anthropic"], "2026-03-01T08:30:00Z", |r| {
        r["report"]["seal_author_families"] = json!(["openai"]);
    });
    assert_eq!(
        error_rules(&r),
        BTreeSet::from(["seal.families".to_owned()])
    );
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == "seal.families")
        .unwrap();
    assert!(
        f.message.contains("the implementer's family"),
        "{}",
        f.message
    );
    assert_eq!(r.level_met, 3);
}

/// The combined record's time is the seal time: a report's own earlier `sealed_at` is not
/// believed, and a combination made after implementation began is a `seal.order` error.
#[test]
fn a_combined_record_made_after_implementation_began_is_an_error() {
    let r = check_combined(["openai", "google"], "2026-03-01T09:30:00Z", |r| {
        r["report"]["sealed_at"] = json!("2026-03-01T08:00:00Z");
    });
    assert_eq!(error_rules(&r), BTreeSet::from(["seal.order".to_owned()]));
    assert_eq!(r.level_met, 1);
}
