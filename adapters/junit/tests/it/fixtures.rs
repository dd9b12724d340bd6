//! Data-driven test of the JUnit adapter on hand-written fixtures, one scenario each: every
//! `valid/` file is read and its canonical run snapshotted; every `invalid/` file must fail with
//! the snapshotted place and message.

use gapscore_adapter_junit::JUnit;
use gapscore_adapter_sdk::{Adapter, ParseOptions, parse_to_run};
use gapscore_adapter_testing::{each_fixture, fixture_stem};

#[test]
fn valid_fixtures() {
    let adapter = JUnit::new();
    each_fixture(env!("CARGO_MANIFEST_DIR"), "valid", |path, bytes| {
        assert_eq!(adapter.detect(bytes, None), 95, "not detected");
        let stem = fixture_stem(path);
        let run = parse_to_run(&adapter, bytes, &ParseOptions::with_source(stem.clone()))
            .unwrap_or_else(|e| panic!("{e}"));
        insta::assert_json_snapshot!(format!("valid__{stem}"), run);
    });
}

#[test]
fn invalid_fixtures() {
    let adapter = JUnit::new();
    each_fixture(env!("CARGO_MANIFEST_DIR"), "invalid", |path, bytes| {
        let err = match parse_to_run(&adapter, bytes, &ParseOptions::default()) {
            Ok(run) => panic!("was accepted: {run:?}"),
            Err(e) => e,
        };
        insta::assert_snapshot!(format!("invalid__{}", fixture_stem(path)), err.to_string());
    });
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
