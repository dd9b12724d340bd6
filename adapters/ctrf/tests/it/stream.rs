//! CTRF streams: every JSON fixture (and every cut of a real report) reads the
//! same whole and a few bytes at a time, however the reads split it.

use std::path::Path;

use gapscore_adapter_ctrf::Ctrf;
use gapscore_adapter_testing::{SPLITS, assert_stream_agrees, json_files};

#[test]
fn every_json_fixture_reads_the_same_as_a_stream() {
    let adapter = Ctrf::new();
    let files = json_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"));
    assert!(files.len() > 30, "{} fixtures", files.len());
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        // The 2 MB real report a byte at a time is slow in a debug build: large reads only.
        let splits: &[&[usize]] = if bytes.len() > 100_000 {
            &[&[65_536, 4096]]
        } else {
            SPLITS
        };
        assert_stream_agrees(&adapter, &bytes, splits, &path.display().to_string());
    }
}

/// A report cut anywhere keeps the complete tests and collectors before the cut, read whole
/// or as a stream.
#[test]
fn every_cut_of_a_real_report_reads_the_same_as_a_stream() {
    let adapter = Ctrf::new();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/valid/playwright-reporter-full.json");
    let bytes = std::fs::read(path).unwrap();
    for cut in (1..bytes.len()).step_by(61) {
        assert_stream_agrees(&adapter, &bytes[..cut], &[&[5]], &format!("cut at {cut}"));
    }
}
