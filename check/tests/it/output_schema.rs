//! The committed schema of `gapscore check --format json` matches the Rust types.

use gapscore_check::{OUTPUT_SCHEMA, output_schema};

#[test]
fn output_schema_is_up_to_date() {
    let generated = output_schema();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("check-output.schema.json");
    if std::env::var_os("GAPSCORE_UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    if OUTPUT_SCHEMA != generated {
        let diff = similar::TextDiff::from_lines(OUTPUT_SCHEMA, &generated)
            .unified_diff()
            .header("committed", "generated")
            .to_string();
        panic!(
            "check/check-output.schema.json is stale: the output types changed.\n\
             Regenerate with `GAPSCORE_UPDATE_SCHEMA=1 cargo test -p gapscore-check --test it output_schema` and commit it.\n{diff}"
        );
    }
}

#[test]
fn output_schema_is_a_valid_schema() {
    let schema: serde_json::Value = serde_json::from_str(OUTPUT_SCHEMA).unwrap();
    assert!(jsonschema::meta::is_valid(&schema));
}
