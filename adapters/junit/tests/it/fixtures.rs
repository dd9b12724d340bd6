//! Data-driven test of the JUnit adapter on hand-written fixtures, one scenario each: every
//! `valid/` file is read and its canonical run snapshotted; every `invalid/` file must fail with
//! the snapshotted place and message.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_adapter_junit::JUnit;
use gapscore_adapter_sdk::{Adapter, ParseOptions, parse_to_run};
use gapscore_adapter_testing::{fixture_files, fixture_stem};

fn fixtures(kind: &str) -> Vec<PathBuf> {
    fixture_files(env!("CARGO_MANIFEST_DIR"), kind)
}

fn stem(p: &Path) -> String {
    fixture_stem(p)
}

#[test]
fn valid_fixtures() {
    let adapter = JUnit::new();
    for path in fixtures("valid") {
        let bytes = fs::read(&path).unwrap();
        assert_eq!(
            adapter.detect(&bytes, None),
            95,
            "{} not detected",
            path.display()
        );
        let run = parse_to_run(&adapter, &bytes, &ParseOptions::with_source(stem(&path)))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        insta::assert_json_snapshot!(format!("valid__{}", stem(&path)), run);
    }
}

#[test]
fn invalid_fixtures() {
    let adapter = JUnit::new();
    for path in fixtures("invalid") {
        let bytes = fs::read(&path).unwrap();
        let err = match parse_to_run(&adapter, &bytes, &ParseOptions::default()) {
            Ok(run) => panic!("{} was accepted: {run:?}", path.display()),
            Err(e) => e,
        };
        insta::assert_snapshot!(format!("invalid__{}", stem(&path)), err.to_string());
    }
}

#[test]
fn output_is_capped_with_a_note() {
    let big = "x".repeat(200 * 1024);
    let doc = format!(
        "<testsuite name=\"s\"><testcase classname=\"c\" name=\"loud\"><system-out>{big}</system-out></testcase></testsuite>"
    );
    let run = parse_to_run(&JUnit::new(), doc.as_bytes(), &ParseOptions::default()).unwrap();
    let out = run.tests[0].output.as_deref().unwrap();
    assert!(out.len() < 70 * 1024);
    assert!(out.ends_with("[gapscore: cut at 64 KiB]"));
}
