//! Data-driven test of the simple adapter: every `valid/` fixture is read and its canonical run
//! snapshotted; every `invalid/` fixture must fail with the snapshotted place and message; the
//! adapter detects every valid fixture.

use gapscore_adapter_sdk::{Adapter, ParseOptions, parse_to_run};
use gapscore_adapter_simple::Simple;
use gapscore_adapter_testing::{each_fixture, fixture_stem};

#[test]
fn valid_fixtures() {
    let adapter = Simple::new();
    each_fixture(env!("CARGO_MANIFEST_DIR"), "valid", |path, bytes| {
        let name = path.file_name().unwrap().to_str();
        // extra-keys.json holds more than `tests` and `problems`: read when named, but claimed
        // only as a guess (a directory scan leaves it out as metadata).
        let least = if path.ends_with("extra-keys.json") {
            20
        } else {
            80
        };
        assert!(adapter.detect(bytes, name) >= least, "not detected");
        let stem = fixture_stem(path);
        let run = parse_to_run(&adapter, bytes, &ParseOptions::with_source(stem.clone()))
            .unwrap_or_else(|e| panic!("{e}"));
        insta::assert_json_snapshot!(format!("valid__{stem}"), run);
    });
}

#[test]
fn invalid_fixtures() {
    let adapter = Simple::new();
    each_fixture(env!("CARGO_MANIFEST_DIR"), "invalid", |path, bytes| {
        let err = match parse_to_run(&adapter, bytes, &ParseOptions::default()) {
            Ok(_) => panic!("was accepted"),
            Err(e) => e,
        };
        insta::assert_snapshot!(format!("invalid__{}", fixture_stem(path)), err.to_string());
    });
}

#[test]
fn detection_rejects_other_formats() {
    let adapter = Simple::new();
    for (text, name) in [
        ("<?xml version=\"1.0\"?><testsuites/>", Some("junit.xml")),
        ("TAP version 13\n1..1\nok 1\n", Some("out.tap")),
        (
            "{\"Action\":\"run\",\"Test\":\"TestX\"}\n",
            Some("go.jsonl"),
        ),
        ("[1, 2]", None),
        (
            r#"{"name": "pkg", "files": ["tests", "src"]}"#,
            Some("package.json"),
        ),
        ("", None),
    ] {
        assert_eq!(adapter.detect(text.as_bytes(), name), 0, "{text}");
    }
}
