//! The template's data-driven test, the shape every adapter crate uses: each valid fixture
//! parses, each invalid one fails at a known place.

use std::fs;
use std::path::Path;

use gapscore_adapter_sdk::{Adapter, ParseOptions, Status, parse_to_run};
use gapscore_adapter_template::Template;
use gapscore_adapter_testing::each_fixture;

fn fixture(kind: &str, name: &str) -> Vec<u8> {
    fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(kind)
            .join(name),
    )
    .unwrap()
}

#[test]
fn valid() {
    let bytes = fixture("valid", "standard.template.csv");
    let adapter = Template::new();
    assert_eq!(adapter.detect(&bytes, None), 95);
    let run = parse_to_run(&adapter, &bytes, &ParseOptions::default()).unwrap();
    let got: Vec<(&str, Status, Option<&str>)> = run
        .tests
        .iter()
        .map(|t| (t.name.as_str(), t.status, t.message.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("login works", Status::Passed, None),
            (
                "rejects bad password",
                Status::Failed,
                Some("expected 401, got 200")
            ),
            ("unicode ünïcode 名前", Status::Skipped, Some("no network")),
            ("errors out", Status::Errored, Some("ValueError: boom")),
        ]
    );
}

#[test]
fn invalid() {
    let adapter = Template::new();
    for (name, want) in [
        (
            "missing-status.template.csv",
            "1:12: expected `name,status[,message]`",
        ),
        (
            "unknown-status.template.csv",
            "2:3: unknown status `great` (expected one of passed, failed, errored, skipped, xfailed, xpassed, todo)",
        ),
        ("invalid-utf8.template.csv", "2:1: invalid UTF-8"),
    ] {
        let err = parse_to_run(
            &adapter,
            &fixture("invalid", name),
            &ParseOptions::default(),
        )
        .unwrap_err();
        assert_eq!(err.to_string(), want, "{name}");
    }
}

/// Every fixture, through the testing crate's harness (one failing fixture does not hide the
/// others): each valid one is detected and reads without a problem, each invalid one is refused.
/// A fixture added to either folder is checked without a line here.
#[test]
fn every_fixture() {
    let adapter = Template::new();
    let valid = each_fixture(env!("CARGO_MANIFEST_DIR"), "valid", |path, bytes| {
        let name = path.file_name().and_then(|n| n.to_str());
        assert!(adapter.detect(bytes, name) >= 60, "not detected");
        let run = parse_to_run(&adapter, bytes, &ParseOptions::default()).unwrap();
        assert!(!run.tests.is_empty(), "no tests");
        assert!(run.problems.is_empty(), "{:?}", run.problems);
    });
    let invalid = each_fixture(env!("CARGO_MANIFEST_DIR"), "invalid", |_, bytes| {
        assert!(parse_to_run(&adapter, bytes, &ParseOptions::default()).is_err());
    });
    assert_eq!((valid, invalid), (1, 3));
}
