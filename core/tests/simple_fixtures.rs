//! Data-driven test of the simple format: every `valid/` fixture is read and its canonical run
//! snapshotted; every `invalid/` fixture must fail with the snapshotted place and message.

#![allow(clippy::unwrap_used)] // Test helpers panic on purpose.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_core::simple::{FORMAT_ID, SimpleOptions, parse};
use gapscore_core::{Normalizer, RunCollector};

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/simple")
        .join(kind);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    files
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn valid_fixtures() {
    for path in fixtures("valid") {
        let bytes = fs::read(&path).unwrap();
        let mut sink = Normalizer::new(RunCollector::new(FORMAT_ID, Some(stem(&path))));
        parse(&bytes, &SimpleOptions::default(), &mut sink)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let run = sink.finish().into_run();
        insta::assert_json_snapshot!(format!("valid__{}", stem(&path)), run);
    }
}

#[test]
fn invalid_fixtures() {
    for path in fixtures("invalid") {
        let bytes = fs::read(&path).unwrap();
        let mut sink = Normalizer::new(RunCollector::new(FORMAT_ID, None));
        let err = match parse(&bytes, &SimpleOptions::default(), &mut sink) {
            Ok(()) => panic!("{} was accepted", path.display()),
            Err(e) => e,
        };
        insta::assert_snapshot!(format!("invalid__{}", stem(&path)), err.to_string());
    }
}
