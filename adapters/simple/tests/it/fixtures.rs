//! Data-driven test of the simple adapter: every `valid/` fixture is read and its canonical run
//! snapshotted; every `invalid/` fixture must fail with the snapshotted place and message; the
//! adapter detects every valid fixture.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_adapter_sdk::{Adapter, ParseOptions, parse_to_run};
use gapscore_adapter_simple::Simple;
use gapscore_adapter_testing::{fixture_files, fixture_stem};

fn fixtures(kind: &str) -> Vec<PathBuf> {
    fixture_files(env!("CARGO_MANIFEST_DIR"), kind)
}

fn stem(p: &Path) -> String {
    fixture_stem(p)
}

#[test]
fn valid_fixtures() {
    let adapter = Simple::new();
    for path in fixtures("valid") {
        let bytes = fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_str();
        assert!(
            adapter.detect(&bytes, name) >= 80,
            "{} not detected",
            path.display()
        );
        let run = parse_to_run(&adapter, &bytes, &ParseOptions::with_source(stem(&path)))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        insta::assert_json_snapshot!(format!("valid__{}", stem(&path)), run);
    }
}

#[test]
fn invalid_fixtures() {
    let adapter = Simple::new();
    for path in fixtures("invalid") {
        let bytes = fs::read(&path).unwrap();
        let err = match parse_to_run(&adapter, &bytes, &ParseOptions::default()) {
            Ok(_) => panic!("{} was accepted", path.display()),
            Err(e) => e,
        };
        insta::assert_snapshot!(format!("invalid__{}", stem(&path)), err.to_string());
    }
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
