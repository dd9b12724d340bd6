//! The checker's fixture suite: every file under `conformance-tests/fixtures/` is checked (at
//! level 3, or level 4 for the level-4 fixtures: `l4-*`, `<level-4 rule>--*` and Dark Factory's
//! v2 reports in the corpus) and the result compared with the `*.expect.json` beside it.
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
//! Each test goes through every fixture and fails once at the end, naming every failing fixture
//! with what is wrong. `GAPSCORE_UPDATE_FIXTURES=1 cargo test -p gapscore-check --test it
//! fixtures::` rewrites the expectations; read every changed one before committing it.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use gapscore_check::{
    Document, Evidence, FileResult, SealedDir, check_bytes, read_seal_record, rules,
};
use serde_json::{Value, json};

use crate::common::error_rules;

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

/// Compares a result's summary with the committed expectation (or rewrites it); says how they
/// differ.
fn compare(expect_path: &Path, actual: &Value) -> Result<(), String> {
    let text = format!("{}\n", serde_json::to_string_pretty(actual).unwrap());
    if std::env::var_os("GAPSCORE_UPDATE_FIXTURES").is_some() {
        return fs::write(expect_path, &text)
            .map_err(|e| format!("cannot write {}: {e}", rel(expect_path)));
    }
    let committed = fs::read_to_string(expect_path).unwrap_or_default();
    if committed == text {
        return Ok(());
    }
    let diff = similar::TextDiff::from_lines(&committed, &text)
        .unified_diff()
        .header("expected", "actual")
        .to_string();
    Err(format!(
        "differs from {} (GAPSCORE_UPDATE_FIXTURES=1 rewrites it):\n{diff}",
        rel(expect_path)
    ))
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

/// The level a fixture (an evidence case: its folder) is checked at: 4 for `l4-*`, for
/// `<rule>--*` of a level-4 rule and for
/// the corpus's Dark Factory files (its reports are v2 and claim Level 4); 3 otherwise, which
/// leaves level 4 unjudged.
fn level_for(p: &Path) -> u8 {
    // An evidence case is named by its folder.
    let named = if rel(p).starts_with("evidence/") {
        p.parent().unwrap()
    } else {
        p
    };
    let name = named.file_name().unwrap().to_string_lossy();
    let rule_level = name
        .split_once("--")
        .and_then(|(rule, _)| rules::by_id(rule))
        .map(|r| r.level);
    if name.starts_with("l4-")
        || rule_level == Some(4)
        || rel(p).starts_with("corpus/reference-impls/dark-factory/")
    {
        4
    } else {
        3
    }
}

fn check_file(p: &Path, evidence: &Evidence) -> Result<FileResult, String> {
    let bytes = fs::read(p).map_err(|e| format!("cannot read {}: {e}", rel(p)))?;
    Ok(check_bytes(&rel(p), &bytes, evidence, level_for(p)))
}

/// Checks the naming contract: `lN-` holds level N exactly; `<rule>--` breaks only `<rule>`.
fn naming_contract(name: &str, r: &FileResult) -> Result<(), String> {
    if let Some(n) = name
        .strip_prefix('l')
        .and_then(|s| s.chars().next())
        .and_then(|c| c.to_digit(10))
        && name.as_bytes().get(2) == Some(&b'-')
    {
        if u32::from(r.level_met) != n {
            return Err(format!("level {} met, not {n}", r.level_met));
        }
        return Ok(());
    }
    if let Some((rule, _)) = name.split_once("--") {
        if rules::by_id(rule).is_none() {
            return Err(format!("named after `{rule}`, which is no rule"));
        }
        let errs = error_rules(r);
        if errs != BTreeSet::from([rule.to_owned()]) {
            return Err(format!("errors of {errs:?}, expected only {rule}"));
        }
        return Ok(());
    }
    Err("named neither `lN-` nor `<rule>--`".to_owned())
}

/// One pass over a group of fixtures: every failure with the fixture it is about, and the rules
/// the findings named.
struct Run {
    failures: Vec<(String, String)>,
    rules_seen: BTreeSet<String>,
    reports: usize,
}

impl Run {
    fn new() -> Self {
        Run {
            failures: Vec::new(),
            rules_seen: BTreeSet::new(),
            reports: 0,
        }
    }

    /// Notes a failure of `fixture` (its path under the fixtures folder) when `outcome` is one.
    fn check(&mut self, fixture: &str, outcome: Result<(), String>) {
        if let Err(what) = outcome {
            self.failures.push((fixture.to_owned(), what));
        }
    }

    fn record(&mut self, fixture: &str, r: &FileResult, expect: &Path) {
        self.rules_seen
            .extend(r.findings.iter().map(|f| f.rule.clone()));
        self.check(fixture, compare(expect, &summary(r)));
    }

    /// Fails, naming every failing fixture, when any failed; else returns the rules seen.
    fn finish(self, min_reports: usize) -> BTreeSet<String> {
        if !self.failures.is_empty() {
            let mut names: Vec<&str> = self.failures.iter().map(|(f, _)| f.as_str()).collect();
            names.dedup();
            let details: Vec<String> = self
                .failures
                .iter()
                .map(|(f, what)| format!("{f}: {what}"))
                .collect();
            panic!(
                "{} fixture(s) fail:\n  {}\n\n{}",
                names.len(),
                names.join("\n  "),
                details.join("\n")
            );
        }
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
            let fixture = rel(p);
            let r = match check_file(p, &none) {
                Ok(r) => r,
                Err(e) => {
                    run.check(&fixture, Err(e));
                    continue;
                }
            };
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            match group {
                "artifacts" => {
                    if !matches!(r.document, Document::Artifact { .. }) {
                        run.check(&fixture, Err("not recognised as an artifact".into()));
                    }
                }
                "unreadable" => {
                    if !r.unreadable() {
                        run.check(&fixture, Err("not unreadable".into()));
                    }
                }
                _ => {
                    run.reports += 1;
                    run.check(&fixture, naming_contract(&name, &r));
                }
            }
            run.record(&fixture, &r, &expect_path(p));
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
        let fixture = rel(&case);
        let r = match evidence_of(&case).and_then(|e| check_file(&case.join("report.json"), &e)) {
            Ok(r) => r,
            Err(e) => {
                run.check(&fixture, Err(e));
                continue;
            }
        };
        run.reports += 1;
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        run.check(&fixture, naming_contract(&name, &r));
        run.record(&fixture, &r, &case.join("expect.json"));
    }
    run.finish(12)
}

/// The evidence an evidence case names in its `args.json`.
fn evidence_of(case: &Path) -> Result<Evidence, String> {
    let args = case.join("args.json");
    let args: Value = fs::read_to_string(&args)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        .map_err(|e| format!("{}: {e}", rel(&args)))?;
    // A combined record (§4.6) is read with its suites' records beside it and their
    // directories under the sealed directory, as `check --seal COMBINED --sealed-dir DIR` reads it.
    if let (Some(d), Some(s)) = (args["sealed_dir"].as_str(), args["seal"].as_str())
        && gapscore_seal::plurality::is_combined(&case.join(s)).map_err(|e| e.to_string())?
    {
        let mut e =
            Evidence::load(Some(&case.join(d)), Some(&case.join(s))).map_err(|e| e.to_string())?;
        // As if given on the command line from the case folder: messages stay portable.
        let prefix = format!("{}/", case.display());
        let portable = |t: &str| t.replace(&prefix, "");
        if let Some(dir) = &mut e.sealed_dir {
            dir.given = d.to_owned();
            dir.absolute = None;
        }
        if let Some(c) = &mut e.combined {
            c.record = portable(&c.record);
            c.problems = c.problems.iter().map(|p| portable(p)).collect();
        }
        return Ok(e);
    }
    let sealed_dir = match args["sealed_dir"].as_str() {
        Some(d) => {
            let mut dir = SealedDir::read(&case.join(d)).map_err(|e| e.to_string())?;
            // As if given on the command line from the case folder: messages stay portable.
            dir.given = d.to_owned();
            dir.absolute = None;
            Some(dir)
        }
        None => None,
    };
    let seal = match args["seal"].as_str() {
        Some(s) => Some(read_seal_record(&case.join(s)).map_err(|e| e.to_string())?),
        None => None,
    };
    Ok(Evidence::new(sealed_dir, seal))
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
        let fixture = rel(&p);
        let r = match check_file(&p, &none) {
            Ok(r) if r.unreadable() => {
                run.check(&fixture, Err("unreadable".into()));
                continue;
            }
            Ok(r) => r,
            Err(e) => {
                run.check(&fixture, Err(e));
                continue;
            }
        };
        run.reports += 1;
        run.record(&fixture, &r, &expect_path(&p));
    }
    run.finish(54);
}

#[test]
fn every_rule_is_exercised_by_some_fixture() {
    let mut seen = report_fixtures();
    seen.extend(evidence_fixtures());
    // A FIFO or socket cannot be committed: `seal_claims` makes one in a temporary directory.
    seen.insert("seal.not-regular".to_owned());
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
    let missing: Vec<&str> = rules::ALL
        .iter()
        .map(|r| r.id)
        .filter(|id| !doc.contains(&format!("`{id}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/conformance.md does not list {missing:?}"
    );
}
