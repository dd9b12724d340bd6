//! The checker's fixture suite: every file under `conformance-tests/fixtures/` is checked (at
//! level 3) and the result compared with the `*.expect.json` beside it.
//!
//! - `reports/valid/lN-*.json`: level N holds (findings may include warnings and notes);
//! - `reports/invalid/<rule>--*.json`: breaks exactly one rule: `<rule>` is the only rule with
//!   errors;
//! - `reports/artifacts/*`: recognised as another artifact; `reports/unreadable/*`: unreadable;
//! - `evidence/<case>/`: `report.json` with a sealed directory and/or a seal record (named in
//!   `args.json`), the same naming for valid and invalid cases;
//! - `corpus/`: copies of the spec repository's and the reference implementations' files, with
//!   the verdicts documented in `corpus/README.md`.
//!
//! `GAPSCORE_UPDATE_FIXTURES=1 cargo test -p gapscore-check --test fixtures` rewrites the
//! expectations; read every changed one before committing it.

#![allow(clippy::unwrap_used)] // Test helpers panic on purpose.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use gapscore_check::{
    Document, Evidence, FileResult, SealedDir, Severity, check_bytes, read_seal_record, rules,
};
use serde_json::{Value, json};

/// The fixture suite, kept with the upstream fixtures in `conformance-tests/fixtures`.
fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-tests/fixtures")
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn is_expectation(p: &Path) -> bool {
    p.to_string_lossy().ends_with(".expect.json")
}

fn rel(p: &Path) -> String {
    p.strip_prefix(fixtures_dir())
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// What the expectation files hold: the document, the level met, every requirement's verdict
/// and every finding (severity, rule, pointer, message).
fn summary(r: &FileResult) -> Value {
    let document = match &r.document {
        Document::Report {
            dialect,
            spec_version,
            ..
        } => format!(
            "report ({dialect} dialect, spec {})",
            spec_version.as_deref().unwrap_or("none")
        ),
        Document::Artifact { artifact, .. } => format!("artifact: {artifact}"),
        Document::Unknown { .. } => "unknown".to_owned(),
        Document::Unreadable { error } => format!("unreadable: {error}"),
        _ => "other".to_owned(),
    };
    let requirements: serde_json::Map<String, Value> = r
        .requirements
        .iter()
        .map(|q| (q.id.clone(), Value::String(q.verdict.as_str().to_owned())))
        .collect();
    let findings: Vec<String> = r
        .findings
        .iter()
        .map(|f| {
            format!(
                "{} {} at {}: {}",
                f.severity.as_str(),
                f.rule,
                if f.pointer.is_empty() {
                    "(document)"
                } else {
                    &f.pointer
                },
                f.message
            )
        })
        .collect();
    json!({
        "document": document,
        "level_met": r.level_met,
        "requirements": requirements,
        "findings": findings,
    })
}

fn compare(expect_path: &Path, actual: &Value, mismatches: &mut Vec<String>) {
    let text = format!("{}\n", serde_json::to_string_pretty(actual).unwrap());
    if std::env::var_os("GAPSCORE_UPDATE_FIXTURES").is_some() {
        fs::write(expect_path, &text).unwrap();
        return;
    }
    let committed = fs::read_to_string(expect_path).unwrap_or_default();
    if committed != text {
        let diff = similar::TextDiff::from_lines(&committed, &text)
            .unified_diff()
            .header("expected", "actual")
            .to_string();
        mismatches.push(format!("{}:\n{diff}", rel(expect_path)));
    }
}

fn expect_path(p: &Path) -> PathBuf {
    let name = p.file_name().unwrap().to_string_lossy();
    let stem = name
        .strip_suffix(".json")
        .or_else(|| name.strip_suffix(".md"))
        .or_else(|| name.strip_suffix(".txt"))
        .or_else(|| name.strip_suffix(".xml"))
        .unwrap_or(&name);
    p.with_file_name(format!("{stem}.expect.json"))
}

fn check_file(p: &Path, evidence: &Evidence) -> FileResult {
    check_bytes(&rel(p), &fs::read(p).unwrap(), evidence, 3)
}

fn error_rules(r: &FileResult) -> BTreeSet<String> {
    r.findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| f.rule.clone())
        .collect()
}

/// Checks the naming contract: `lN-` holds level N exactly; `<rule>--` breaks only `<rule>`.
fn naming_contract(name: &str, r: &FileResult, problems: &mut Vec<String>) {
    if let Some(n) = name
        .strip_prefix('l')
        .and_then(|s| s.chars().next())
        .and_then(|c| c.to_digit(10))
        && name.as_bytes().get(2) == Some(&b'-')
    {
        if u32::from(r.level_met) != n {
            problems.push(format!("{name}: level {} met, not {n}", r.level_met));
        }
        return;
    }
    if let Some((rule, _)) = name.split_once("--") {
        assert!(rules::by_id(rule).is_some(), "{name}: no rule `{rule}`");
        let errs = error_rules(r);
        if errs != BTreeSet::from([rule.to_owned()]) {
            problems.push(format!("{name}: errors of {errs:?}, expected only {rule}"));
        }
        return;
    }
    problems.push(format!("{name}: neither `lN-` nor `<rule>--`"));
}

struct Run {
    mismatches: Vec<String>,
    problems: Vec<String>,
    rules_seen: BTreeSet<String>,
    reports: usize,
}

impl Run {
    fn new() -> Self {
        Run {
            mismatches: Vec::new(),
            problems: Vec::new(),
            rules_seen: BTreeSet::new(),
            reports: 0,
        }
    }

    fn record(&mut self, r: &FileResult, expect: &Path) {
        self.rules_seen
            .extend(r.findings.iter().map(|f| f.rule.clone()));
        compare(expect, &summary(r), &mut self.mismatches);
    }

    fn finish(self, min_reports: usize) -> BTreeSet<String> {
        assert!(
            self.mismatches.is_empty(),
            "{} expectation(s) differ (GAPSCORE_UPDATE_FIXTURES=1 rewrites them):\n{}",
            self.mismatches.len(),
            self.mismatches.join("\n")
        );
        assert!(self.problems.is_empty(), "{}", self.problems.join("\n"));
        assert!(
            self.reports >= min_reports,
            "only {} fixtures",
            self.reports
        );
        self.rules_seen
    }
}

fn report_fixtures() -> BTreeSet<String> {
    let mut run = Run::new();
    let none = Evidence::default();
    for group in ["valid", "invalid", "artifacts", "unreadable"] {
        let dir = fixtures_dir().join("reports").join(group);
        for p in files_under(&dir).iter().filter(|p| !is_expectation(p)) {
            let r = check_file(p, &none);
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            match group {
                "artifacts" => {
                    if !matches!(r.document, Document::Artifact { .. }) {
                        run.problems
                            .push(format!("{name}: not recognised as an artifact"));
                    }
                }
                "unreadable" => {
                    if !r.unreadable() {
                        run.problems.push(format!("{name}: not unreadable"));
                    }
                }
                _ => {
                    run.reports += 1;
                    naming_contract(&name, &r, &mut run.problems);
                }
            }
            run.record(&r, &expect_path(p));
        }
    }
    run.finish(95)
}

fn evidence_fixtures() -> BTreeSet<String> {
    let mut run = Run::new();
    let base = fixtures_dir().join("evidence");
    let mut cases: Vec<PathBuf> = fs::read_dir(&base)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    for case in cases {
        let args: Value =
            serde_json::from_str(&fs::read_to_string(case.join("args.json")).unwrap()).unwrap();
        let sealed_dir = args["sealed_dir"].as_str().map(|d| {
            let mut dir = SealedDir::read(&case.join(d)).unwrap();
            // As if given on the command line from the case folder: messages stay portable.
            dir.given = d.to_owned();
            dir.absolute = None;
            dir
        });
        let seal = args["seal"]
            .as_str()
            .map(|s| read_seal_record(&case.join(s)).unwrap());
        let evidence = Evidence::new(sealed_dir, seal);
        let r = check_file(&case.join("report.json"), &evidence);
        run.reports += 1;
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        naming_contract(&name, &r, &mut run.problems);
        run.record(&r, &case.join("expect.json"));
    }
    run.finish(12)
}

#[test]
fn every_report_fixture_matches_its_expectation() {
    report_fixtures();
}

#[test]
fn every_evidence_case_matches_its_expectation() {
    evidence_fixtures();
}

#[test]
fn every_corpus_file_matches_its_documented_verdict() {
    let mut run = Run::new();
    let none = Evidence::default();
    let dir = fixtures_dir().join("corpus");
    for p in files_under(&dir) {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if is_expectation(&p) || name == "SOURCES.md" || p.parent() == Some(dir.as_path()) {
            continue;
        }
        let r = check_file(&p, &none);
        assert!(!r.unreadable(), "{}: unreadable", rel(&p));
        run.reports += 1;
        run.record(&r, &expect_path(&p));
    }
    run.finish(54);
}

#[test]
fn every_rule_is_exercised_by_some_fixture() {
    let mut seen = report_fixtures();
    seen.extend(evidence_fixtures());
    let missing: Vec<&str> = rules::ALL
        .iter()
        .map(|r| r.id)
        .filter(|id| !seen.contains(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "rules no fixture exercises: {missing:?}"
    );
}

#[test]
fn docs_list_every_rule_with_its_section() {
    let doc = fs::read_to_string(fixtures_dir().join("../../docs/conformance.md")).unwrap();
    for r in rules::ALL {
        assert!(
            doc.contains(&format!("`{}`", r.id)),
            "docs/conformance.md does not list `{}`",
            r.id
        );
    }
}
