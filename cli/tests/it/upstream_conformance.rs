//! Runs the built `gapscore` binary on all 36 upstream conformance fixtures: v1 (Gap dialect) with
//! `--dialect gap`, v2 (Shadow dialect) with `--spec-version 2`, checking what the upstream runner checks
//! and, strictly, every failure entry and coverage number. Every JSON output must also validate
//! against gapscore's schema and the upstream schema of its dialect.

use std::process::Command;

use gapscore_conformance::upstream::{Strictness, Suite};
use gapscore_conformance::upstream_dir;
use gapscore_schema::{SchemaId, validate};

fn run_suite(file: &str, dialect_args: &[&str], schemas: &[SchemaId]) -> usize {
    let base = upstream_dir();
    let suite = Suite::parse(&std::fs::read_to_string(base.join(file)).unwrap()).unwrap();
    let prefix = suite.prefix();
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for f in &suite.fixtures {
        let args = f.args(&base, tmp.path()).unwrap();
        // The upstream runner runs from the repository root; so do we.
        let out = Command::new(env!("CARGO_BIN_EXE_gapscore"))
            .current_dir(&base)
            .arg("score")
            .args(suite.version_args())
            .args(dialect_args)
            .args(&args)
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let code = out.status.code().unwrap_or(-1);
        let mut problems = f.check(code, &stdout, prefix, Strictness::Strict);
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&stdout) {
            for s in schemas {
                for e in validate(*s, &v).unwrap() {
                    problems.push(format!("schema {}: {e}", s.name()));
                }
            }
        } else {
            problems.push("no JSON report on stdout".into());
        }
        if !problems.is_empty() {
            failures.push(format!("{}: {}", f.id, problems.join("; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{file}: {} of {} fixtures fail:\n{}",
        failures.len(),
        suite.fixtures.len(),
        failures.join("\n")
    );
    suite.fixtures.len()
}

#[test]
fn all_upstream_fixtures_pass() {
    let v1 = run_suite(
        "v1/fixtures.json",
        &["--dialect", "gap"],
        &[SchemaId::Report, SchemaId::GapPreRename],
    );
    let v2 = run_suite(
        "v2/fixtures.json",
        &[],
        &[SchemaId::Report, SchemaId::ShadowV1, SchemaId::ShadowV2],
    );
    assert_eq!(v1 + v2, 36);
}

#[test]
fn both_dialects_at_once_pass_the_v1_suite_and_all_schemas() {
    let all = [
        SchemaId::Report,
        SchemaId::GapPreRename,
        SchemaId::ShadowV1,
        SchemaId::ShadowV2,
    ];
    run_suite("v1/fixtures.json", &["--dialect", "both"], &all);
}

/// Spec v2 is written in the Shadow dialect only: `--dialect both` (or `gap`) with
/// `--spec-version 2` is refused rather than claiming a Gap Score spec 2.0.0 that never existed.
#[test]
fn v2_in_another_dialect_is_refused() {
    let base = upstream_dir();
    for dialect in ["both", "gap"] {
        let out = Command::new(env!("CARGO_BIN_EXE_gapscore"))
            .current_dir(&base)
            .args([
                "score",
                "--spec-version",
                "2",
                "--dialect",
                dialect,
                "--sealed",
            ])
            .arg("examples/02-minor-gaps/sealed-results.json")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--dialect {dialect}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("Shadow dialect only"), "{err}");
    }
}
