//! The committed schemas match the Rust types, compile, and accept what gapscore writes.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_schema::{SchemaId, generate, validate};
use serde_json::Value;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check_committed(id: SchemaId) {
    let generated = generate(id).expect("gapscore schema generates");
    let path = crate_dir().join(id.file_name());
    if std::env::var_os("GAPSCORE_UPDATE_SCHEMA").is_some() {
        fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let diff = similar::TextDiff::from_lines(&committed, &generated)
            .unified_diff()
            .header("committed", "generated")
            .to_string();
        panic!(
            "schema/{} is stale: the Rust types changed.\n\
             Regenerate with `GAPSCORE_UPDATE_SCHEMA=1 cargo test -p gapscore-schema` and commit it.\n{diff}",
            id.file_name()
        );
    }
}

#[test]
fn report_schema_is_up_to_date() {
    check_committed(SchemaId::Report);
}

#[test]
fn results_schema_is_up_to_date() {
    check_committed(SchemaId::Results);
}

#[test]
fn seal_record_schema_is_up_to_date() {
    check_committed(SchemaId::SealRecord);
}

#[test]
fn every_bundled_schema_is_valid_against_its_meta_schema() {
    for id in SchemaId::ALL {
        let schema: Value = serde_json::from_str(id.text()).unwrap();
        assert!(
            jsonschema::meta::is_valid(&schema),
            "{} is not a valid schema",
            id.name()
        );
        // Compiles, and an empty object is judged without error of the schema itself.
        validate(id, &Value::Object(Default::default())).unwrap();
    }
}

#[test]
fn generated_report_schema_is_draft_2020_12() {
    let schema: Value = serde_json::from_str(SchemaId::Report.text()).unwrap();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
}

fn upstream_example(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn spec_example_reports_validate_against_their_own_schema() {
    let shadow = upstream_example("spec-5.1-example.shadow-dialect.json");
    assert_eq!(validate(SchemaId::ShadowV1, &shadow).unwrap(), vec![]);
    assert_eq!(validate(SchemaId::Report, &shadow).unwrap(), vec![]);
    let gap = upstream_example("spec-5.1-example.gap-dialect.json");
    assert_eq!(validate(SchemaId::GapPreRename, &gap).unwrap(), vec![]);
    assert_eq!(validate(SchemaId::Report, &gap).unwrap(), vec![]);
}

#[test]
fn errors_carry_json_pointers() {
    let bad = serde_json::json!({
        "shadow_score_spec_version": "1.0.0",
        "report": {"shadow_score": 120, "level": "great"},
        "sealed_tests": {"total": 1, "passed": 1},
        "failures": []
    });
    let errors = validate(SchemaId::ShadowV1, &bad).unwrap();
    let paths: Vec<&str> = errors.iter().map(|e| e.instance_path.as_str()).collect();
    assert_eq!(
        paths,
        ["/report/level", "/report/shadow_score", "/sealed_tests"]
    );
    let ours = validate(SchemaId::Report, &bad).unwrap();
    assert!(ours.iter().any(|e| e.instance_path == "/report/level"));
    // A report with neither dialect's version key is refused by our schema.
    let neither = serde_json::json!({
        "report": {"shadow_score": 0, "level": "perfect"},
        "sealed_tests": {"total": 0, "passed": 0, "failed": 0},
        "failures": []
    });
    assert!(!validate(SchemaId::Report, &neither).unwrap().is_empty());
}
