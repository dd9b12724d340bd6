//! JSON Schemas for gapscore: generated ones for the [`GapReport`](gapscore_core::GapReport) and
//! the canonical [`TestRun`](gapscore_core::TestRun), and the upstream Shadow/Gap schemas, bundled.
//!
//! [`generate`] produces a schema from the Rust types (draft 2020-12), with the spec v2
//! conditionals of [`rules`] added to the report schema; the committed copies in this crate's
//! folder are checked against it by a test. [`validate`] checks a JSON value against
//! any [`SchemaId`] and returns every error with its JSON pointer, offline (no `$ref` is fetched).
//!
//! Principal items: [`SchemaId`], [`SchemaError`], [`generate`], [`validate`], [`rules`].
//!
//! ```
//! use gapscore_schema::{generate, validate, SchemaId};
//! use serde_json::{json, Value};
//!
//! let text = generate(SchemaId::Results).ok_or("no generated schema")?;
//! let schema: Value = serde_json::from_str(&text)?;
//! assert!(schema.get("$schema").is_some());
//!
//! let run = json!({"format": "simple", "tests": [{"name": "adds", "status": "passed"}]});
//! assert!(validate(SchemaId::Results, &run)?.is_empty());
//! let bad = json!({"format": "simple", "tests": [{"name": "adds", "status": "great"}]});
//! let errors = validate(SchemaId::Results, &bad)?;
//! assert!(errors[0].instance_path.starts_with("/tests/0"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod limited;
pub mod rules;

use std::sync::OnceLock;

use gapscore_core::{GapReport, TestRun};
use gapscore_seal::record::SealRecord;
use schemars::generate::SchemaSettings;
use serde_json::Value;

pub use limited::validate_limited;

/// The schemas gapscore knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaId {
    /// gapscore's own Gap Report schema (`gap-report.schema.json`).
    Report,
    /// gapscore's canonical test run (`test-results.schema.json`).
    Results,
    /// gapscore's seal record (`seal-record.schema.json`).
    SealRecord,
    /// Upstream Shadow Score report schema, spec v1.0.0.
    ShadowV1,
    /// Upstream Shadow Score report schema, spec v2.0.0.
    ShadowV2,
    /// Upstream Gap Score report schema from before the rename.
    GapPreRename,
}

impl SchemaId {
    /// Every schema.
    pub const ALL: [SchemaId; 6] = [
        SchemaId::Report,
        SchemaId::Results,
        SchemaId::SealRecord,
        SchemaId::ShadowV1,
        SchemaId::ShadowV2,
        SchemaId::GapPreRename,
    ];

    /// A short name for messages (`gapscore-report`, `shadow-v1`, ...).
    pub fn name(self) -> &'static str {
        match self {
            SchemaId::Report => "gapscore-report",
            SchemaId::Results => "gapscore-results",
            SchemaId::SealRecord => "gapscore-seal-record",
            SchemaId::ShadowV1 => "shadow-v1",
            SchemaId::ShadowV2 => "shadow-v2",
            SchemaId::GapPreRename => "gap-pre-rename",
        }
    }

    /// The committed file name, relative to this crate's folder.
    pub fn file_name(self) -> &'static str {
        match self {
            SchemaId::Report => "gap-report.schema.json",
            SchemaId::Results => "test-results.schema.json",
            SchemaId::SealRecord => "seal-record.schema.json",
            SchemaId::ShadowV1 => "upstream/shadow-report-schema.v1.json",
            SchemaId::ShadowV2 => "upstream/shadow-report-schema.v2.json",
            SchemaId::GapPreRename => "upstream/gap-report-schema.pre-rename.json",
        }
    }

    /// The schema text as shipped in the binary.
    pub fn text(self) -> &'static str {
        match self {
            SchemaId::Report => include_str!("../gap-report.schema.json"),
            SchemaId::Results => include_str!("../test-results.schema.json"),
            SchemaId::SealRecord => include_str!("../seal-record.schema.json"),
            SchemaId::ShadowV1 => include_str!("../upstream/shadow-report-schema.v1.json"),
            SchemaId::ShadowV2 => include_str!("../upstream/shadow-report-schema.v2.json"),
            SchemaId::GapPreRename => include_str!("../upstream/gap-report-schema.pre-rename.json"),
        }
    }
}

/// Generates gapscore's schema for a type from the Rust definitions: pretty JSON, trailing newline.
pub fn generate(id: SchemaId) -> Option<String> {
    let generator = SchemaSettings::draft2020_12().into_generator();
    let mut schema = match id {
        SchemaId::Report => generator.into_root_schema_for::<GapReport>(),
        SchemaId::Results => generator.into_root_schema_for::<TestRun>(),
        SchemaId::SealRecord => generator.into_root_schema_for::<SealRecord>(),
        _ => return None,
    };
    let (sid, title) = match id {
        SchemaId::Report => ("urn:gapscore:schema:gap-report:v1", "Gap Report (gapscore)"),
        SchemaId::SealRecord => (
            "urn:gapscore:schema:seal-record:v1",
            "Seal record (gapscore)",
        ),
        _ => (
            "urn:gapscore:schema:test-results:v1",
            "Canonical test run (gapscore)",
        ),
    };
    schema.insert("$id".into(), Value::String(sid.into()));
    schema.insert("title".into(), Value::String(title.into()));
    // The spec v2 conditionals the types cannot express ([`rules`]).
    if id == SchemaId::Report && !rules::add(schema.as_object_mut()?) {
        return None;
    }
    let mut text = serde_json::to_string_pretty(&schema).ok()?;
    text.push('\n');
    Some(text)
}

/// One schema violation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaError {
    /// JSON pointer into the instance (`""` for the root).
    pub instance_path: String,
    /// JSON pointer into the schema, naming the rule.
    pub schema_path: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.instance_path.is_empty() {
            "(root)"
        } else {
            &self.instance_path
        };
        write!(f, "{at}: {} (schema: {})", self.message, self.schema_path)
    }
}

fn validator(id: SchemaId) -> Result<&'static jsonschema::Validator, String> {
    static CELLS: [OnceLock<Result<jsonschema::Validator, String>>; SchemaId::ALL.len()] =
        [const { OnceLock::new() }; SchemaId::ALL.len()];
    let idx = SchemaId::ALL.iter().position(|s| *s == id).unwrap_or(0);
    CELLS[idx]
        .get_or_init(|| {
            let schema: Value = serde_json::from_str(id.text())
                .map_err(|e| format!("bundled schema `{}` is not JSON: {e}", id.name()))?;
            jsonschema::validator_for(&schema)
                .map_err(|e| format!("bundled schema `{}` does not compile: {e}", id.name()))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Validates `instance` against a schema and returns every violation, sorted by instance path.
///
/// The outer error means the bundled schema itself is unusable, which a test rules out.
pub fn validate(id: SchemaId, instance: &Value) -> Result<Vec<SchemaError>, String> {
    let v = validator(id)?;
    let mut errors: Vec<SchemaError> = v
        .iter_errors(instance)
        .map(|e| SchemaError {
            instance_path: e.instance_path().to_string(),
            schema_path: e.schema_path().to_string(),
            message: e.to_string(),
        })
        .collect();
    errors.sort_by(|a, b| {
        (a.instance_path.as_str(), a.schema_path.as_str())
            .cmp(&(b.instance_path.as_str(), b.schema_path.as_str()))
    });
    Ok(errors)
}
