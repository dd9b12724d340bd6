//! The reader streams: every fixture reads the same whole and a few bytes at a time, however
//! the reads split it, and a document cut anywhere is refused as serde_json refuses it.

use std::path::Path;

use gapscore_adapter_sdk::{Adapter, AdapterError, Normalizer, ParseOptions, RunCollector};
use gapscore_adapter_simple::Simple;
use gapscore_adapter_testing::{Trickle, assert_stream_agrees, each_fixture};

const SPLITS: &[&[usize]] = &[&[usize::MAX], &[1], &[2, 7], &[4096, 3]];

#[test]
fn every_fixture_reads_the_same_as_a_stream() {
    let adapter = Simple::new();
    let mut read = 0;
    for kind in ["valid", "invalid"] {
        read += each_fixture(env!("CARGO_MANIFEST_DIR"), kind, |path, bytes| {
            assert_stream_agrees(&adapter, bytes, SPLITS, &path.display().to_string());
        });
    }
    assert!(read > 30, "{read} fixtures");
}

/// A cut anywhere is the error serde_json gives reading the cut text whole, at its place and in
/// its words (`EOF while parsing a list`, `... a string`); the tests before the cut were handed
/// over.
#[test]
fn every_cut_is_refused_where_the_input_ends() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/valid/suites-ids-durations.json");
    let bytes = std::fs::read(path).unwrap();
    let adapter = Simple::new();
    for cut in 1..bytes.len() - 1 {
        let input = &bytes[..cut];
        if input.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let whole = serde_json::from_slice::<serde_json::Value>(input).unwrap_err();
        let mut sink = Normalizer::new(RunCollector::new("simple", None));
        let mut trickle = Trickle::new(input, &[5]);
        let err = match adapter.parse_reader(&mut trickle, &ParseOptions::default(), &mut sink) {
            Err(AdapterError::Input(e)) => e.to_string(),
            other => panic!("cut at {cut}: {other:?}"),
        };
        let words = whole.to_string();
        let words = words.split(" at line ").next().unwrap_or_default();
        let expected = format!("{}:{}: {words}", whole.line(), whole.column().max(1));
        assert_eq!(err, expected, "cut at {cut}");
    }
}
