//! The adapter on its fixtures: the valid one reads as written, the invalid one is refused at
//! its place. `cargo test` runs it.

use std::path::Path;

use gapscore_adapter_sdk::{Adapter, ParseOptions, Status, parse_to_run};
use @SYMBOL@::Reader;

fn fixture(path: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn reads_the_valid_fixture() {
    let bytes = fixture("valid/example.@NAME@");
    let adapter = Reader::new();
    assert_eq!(adapter.detect(&bytes, Some("example.@NAME@")), 80);
    let run = parse_to_run(&adapter, &bytes, &ParseOptions::default()).expect("valid");
    let got: Vec<(&str, Status, Option<&str>)> = run
        .tests
        .iter()
        .map(|t| (t.name.as_str(), t.status, t.message.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("adds two numbers", Status::Passed, None),
            (
                "divides by zero",
                Status::Failed,
                Some("expected an error, got 0")
            ),
            ("uploads a file", Status::Skipped, Some("needs network")),
        ]
    );
    assert!(run.problems.is_empty());
}

#[test]
fn refuses_an_unknown_status_at_its_place() {
    let bytes = fixture("invalid/unknown-status.@NAME@");
    let err = parse_to_run(&Reader::new(), &bytes, &ParseOptions::default()).unwrap_err();
    assert!(
        err.to_string().starts_with("2:1: unknown status `great`"),
        "{err}"
    );
}
