//! Data-driven test of the CTRF adapter on hand-written fixtures, one scenario each: every
//! `valid/` file is detected and read, its canonical run snapshotted; every `invalid/` file must
//! fail with the snapshotted place and message.

use gapscore_adapter_ctrf::Ctrf;
use gapscore_adapter_sdk::{Adapter, ParseOptions, parse_to_run};
use gapscore_adapter_testing::{each_fixture, fixture_stem};

#[test]
fn valid_fixtures() {
    let adapter = Ctrf::new();
    let n = each_fixture(env!("CARGO_MANIFEST_DIR"), "valid", |path, bytes| {
        assert!(adapter.detect(bytes, None) >= 95, "not detected");
        let stem = fixture_stem(path);
        let run = parse_to_run(&adapter, bytes, &ParseOptions::with_source(stem.clone()))
            .unwrap_or_else(|e| panic!("{e}"));
        insta::assert_json_snapshot!(format!("valid__{stem}"), run);
    });
    assert!(n >= 15, "only {n} valid fixtures");
}

#[test]
fn invalid_fixtures() {
    let adapter = Ctrf::new();
    let n = each_fixture(env!("CARGO_MANIFEST_DIR"), "invalid", |path, bytes| {
        let err = match parse_to_run(&adapter, bytes, &ParseOptions::default()) {
            Ok(run) => panic!("was accepted: {run:?}"),
            Err(e) => e.to_string(),
        };
        let stem = fixture_stem(path);
        // Every error names its place, except an empty file, which has none.
        if stem != "empty" {
            assert!(
                err.split(':')
                    .next()
                    .unwrap()
                    .chars()
                    .all(|c| c.is_ascii_digit()),
                "no line:col in `{err}`"
            );
        }
        insta::assert_snapshot!(format!("invalid__{stem}"), err);
    });
    assert!(n >= 10, "only {n} invalid fixtures");
}
