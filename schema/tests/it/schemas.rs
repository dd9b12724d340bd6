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

/// A v2 report that holds every rule: level 4, strong independence, not advisory.
fn v2_report() -> Value {
    serde_json::json!({
        "shadow_score_spec_version": "2.0.0",
        "report": {
            "shadow_score": 0.0,
            "level": "perfect",
            "conformance_level": 4,
            "independence": "strong",
            "implementer_family": "anthropic",
            "seal_author_families": ["openai"],
            "seal_broken": false
        },
        "sealed_tests": {"total": 1, "passed": 1, "failed": 0},
        "failures": []
    })
}

/// gapscore's own schema carries the spec v2 conditionals (schema/src/rules.rs): a report
/// breaking any one of them is rejected by ours, as by the upstream v2 schema.
#[test]
fn our_schema_rejects_a_report_breaking_any_v2_rule() {
    let good = v2_report();
    assert_eq!(validate(SchemaId::Report, &good).unwrap(), vec![]);
    assert_eq!(validate(SchemaId::ShadowV2, &good).unwrap(), vec![]);
    type Break = fn(&mut Value);
    let cases: [(&str, Break); 7] = [
        ("advisory without advisory_reason", |r| {
            r["report"]["advisory"] = true.into()
        }),
        ("weak independence, not advisory", |r| {
            r["report"]["independence"] = "weak".into()
        }),
        ("a broken seal, not advisory", |r| {
            r["report"]["seal_broken"] = true.into()
        }),
        ("level 4 without independence", |r| {
            r["report"].as_object_mut().unwrap().remove("independence");
        }),
        ("level 4 without seal_author_families", |r| {
            r["report"]
                .as_object_mut()
                .unwrap()
                .remove("seal_author_families");
        }),
        ("report.seal_families", |r| {
            r["report"]["seal_families"] = serde_json::json!(["openai"])
        }),
        ("provenance at the root", |r| {
            let family = r["report"]
                .as_object_mut()
                .unwrap()
                .remove("implementer_family")
                .unwrap();
            r["report"]["conformance_level"] = 3.into();
            r["implementer_family"] = family;
        }),
    ];
    for (what, break_it) in cases {
        let mut bad = good.clone();
        break_it(&mut bad);
        let ours = validate(SchemaId::Report, &bad).unwrap();
        assert!(!ours.is_empty(), "{what}: accepted by our schema\n{bad:#}");
        let at_report = ours.iter().any(|e| e.instance_path.starts_with("/report"));
        let at_root = ours.iter().any(|e| e.instance_path.is_empty());
        assert!(at_report || at_root, "{what}: {ours:?}");
        let upstream = validate(SchemaId::ShadowV2, &bad).unwrap();
        assert!(!upstream.is_empty(), "{what}: accepted upstream");
    }
    // Each rule is what rejects it: made advisory with a reason, the same reports pass.
    let mut weak = good.clone();
    weak["report"]["independence"] = "weak".into();
    weak["report"]["advisory"] = true.into();
    weak["report"]["advisory_reason"] = "weak authorship independence".into();
    assert_eq!(validate(SchemaId::Report, &weak).unwrap(), vec![]);
    let mut v1 = good.clone();
    v1["shadow_score_spec_version"] = "1.0.0".into();
    for f in [
        "conformance_level",
        "independence",
        "implementer_family",
        "seal_author_families",
    ] {
        v1["report"].as_object_mut().unwrap().remove(f);
    }
    assert_eq!(validate(SchemaId::Report, &v1).unwrap(), vec![]);
}
