//! The reader streams: every fixture (and every cut of a real one) reads the same whole and a
//! few bytes at a time, however the reads split it.

use std::path::Path;

use gapscore_adapter_mocha::Mocha;
use gapscore_adapter_testing::{SPLITS, assert_stream_agrees, each_fixture, json_files};

#[test]
fn every_fixture_reads_the_same_as_a_stream() {
    let adapter = Mocha::new();
    for kind in ["valid", "invalid", "real"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(kind);
        if !dir.is_dir() {
            continue;
        }
        for entry in json_files(&dir) {
            let bytes = std::fs::read(&entry).unwrap();
            assert_stream_agrees(&adapter, &bytes, SPLITS, &entry.display().to_string());
        }
    }
    // The harness's own folders, so a renamed one cannot make this pass on nothing.
    assert!(each_fixture(env!("CARGO_MANIFEST_DIR"), "valid", |_, _| {}) > 0);
}

#[test]
fn every_cut_of_a_document_keeps_the_same_tests_as_a_stream() {
    let adapter = Mocha::new();
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/valid/duplicate-titles.json");
    let bytes = std::fs::read(path).unwrap();
    for cut in (1..bytes.len()).step_by(7) {
        assert_stream_agrees(&adapter, &bytes[..cut], &[&[3]], &format!("cut at {cut}"));
    }
}
