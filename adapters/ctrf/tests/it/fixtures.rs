//! Data-driven test of the CTRF adapter on hand-written fixtures, one scenario each: every
//! `valid/` file is detected and read, its canonical run snapshotted; every `invalid/` file must
//! fail with the snapshotted place and message.

use std::fs;
use std::path::PathBuf;

use gapscore_adapter_ctrf::Ctrf;
use gapscore_adapter_sdk::{Adapter, ParseOptions, parse_to_run};
use gapscore_adapter_testing::{fixture_files, fixture_stem};

fn fixtures(kind: &str) -> Vec<PathBuf> {
    fixture_files(env!("CARGO_MANIFEST_DIR"), kind)
}

#[test]
fn valid_fixtures() {
    let adapter = Ctrf::new();
    let files = fixtures("valid");
    assert!(files.len() >= 15, "only {} valid fixtures", files.len());
    for path in files {
        let bytes = fs::read(&path).unwrap();
        assert!(
            adapter.detect(&bytes, None) >= 95,
            "{} not detected",
            path.display()
        );
        let stem = fixture_stem(&path);
        let run = parse_to_run(&adapter, &bytes, &ParseOptions::with_source(stem.clone()))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        insta::assert_json_snapshot!(format!("valid__{stem}"), run);
    }
}

#[test]
fn invalid_fixtures() {
    let adapter = Ctrf::new();
    let files = fixtures("invalid");
    assert!(files.len() >= 10, "only {} invalid fixtures", files.len());
    for path in files {
        let bytes = fs::read(&path).unwrap();
        let err = match parse_to_run(&adapter, &bytes, &ParseOptions::default()) {
            Ok(run) => panic!("{} was accepted: {run:?}", path.display()),
            Err(e) => e.to_string(),
        };
        let stem = fixture_stem(&path);
        // Every error names its place, except an empty file, which has none.
        if stem != "empty" {
            assert!(
                err.split(':')
                    .next()
                    .unwrap()
                    .chars()
                    .all(|c| c.is_ascii_digit()),
                "{}: no line:col in `{err}`",
                path.display()
            );
        }
        insta::assert_snapshot!(format!("invalid__{stem}"), err);
    }
}
