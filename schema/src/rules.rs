//! The spec v2 rules a report's types cannot say by themselves (§5.2, §5.4, §6), added to the
//! generated report schema after generation, so gapscore's own schema rejects what the bundled
//! upstream v2 schema rejects:
//!
//! - `report.advisory: true` needs `report.advisory_reason` (§5.4);
//! - `report.independence: "weak"` needs `report.advisory: true` (§5.4);
//! - `report.seal_broken: true` needs `report.advisory: true` (§5.4);
//! - `report.conformance_level: 4` needs `report.independence`, `report.implementer_family` and
//!   `report.seal_author_families` (§5.2, §6);
//! - `report.seal_families`, the superseded spelling, is rejected (§5.2);
//! - provenance at the root (the wrong depth, §5.2) is rejected.
//!
//! A v1 report never has the provenance fields, and gapscore writes every advisory report with
//! its reason, so the rules hold for every report gapscore writes, in either version.

use serde_json::{Map, Value, json};

/// The provenance fields that belong under `report` (§5.2).
pub const PROVENANCE: [&str; 8] = [
    "conformance_level",
    "independence",
    "implementer_family",
    "implementer_model",
    "seal_author_families",
    "seal_author_models",
    "workspace_isolation",
    "seal_families",
];

/// The rules on the `report` object.
fn report_rules() -> Value {
    json!([
        {
            "$comment": "§5.4: an advisory report carries advisory_reason.",
            "if": {"properties": {"advisory": {"const": true}}, "required": ["advisory"]},
            "then": {"required": ["advisory_reason"]}
        },
        {
            "$comment": "§5.4: weak independence makes the report advisory.",
            "if": {"properties": {"independence": {"const": "weak"}}, "required": ["independence"]},
            "then": {"properties": {"advisory": {"const": true}}, "required": ["advisory", "advisory_reason"]}
        },
        {
            "$comment": "§5.4: a broken seal makes the report advisory.",
            "if": {"properties": {"seal_broken": {"const": true}}, "required": ["seal_broken"]},
            "then": {"properties": {"advisory": {"const": true}}, "required": ["advisory", "advisory_reason"]}
        },
        {
            "$comment": "§5.2, §6: conformance level 4 needs the three provenance fields.",
            "if": {"properties": {"conformance_level": {"const": 4}}, "required": ["conformance_level"]},
            "then": {"required": ["independence", "implementer_family", "seal_author_families"]}
        },
        {
            "$comment": "§5.2: seal_families is the superseded spelling of seal_author_families, rejected rather than ignored.",
            "not": {"required": ["seal_families"]}
        }
    ])
}

/// The rule on the root: no provenance field at the wrong depth.
fn root_rules() -> Value {
    let any: Vec<Value> = PROVENANCE
        .iter()
        .map(|f| json!({ "required": [f] }))
        .collect();
    json!([{
        "$comment": "§5.2: provenance fields belong under `report`; at the root they are not present, so they are rejected.",
        "not": { "anyOf": any }
    }])
}

/// Adds the rules to a generated report schema (the root object, with `report` defined as
/// `$defs.ReportMeta`). `false` when the schema is not shaped so: the caller fails, never
/// silently writes a schema without them.
pub fn add(schema: &mut Map<String, Value>) -> bool {
    let Some(meta) = schema
        .get_mut("$defs")
        .and_then(|d| d.get_mut("ReportMeta"))
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    meta.insert("allOf".into(), report_rules());
    schema.insert("allOf".into(), root_rules());
    true
}
