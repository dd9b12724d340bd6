//! The schemas a report is validated against: the upstream schema of its dialect and version
//! (a Gap-dialect v2 report under the Shadow names too, so its key names cannot escape v2's
//! rules) and gapscore's own, binding for reports gapscore wrote; their errors worded for
//! people.

use gapscore_schema::{SchemaId, validate_limited};
use serde_json::{Map, Value};

use crate::checker::{Checker, GAP, MAX_FINDINGS_PER_RULE, SHADOW};
use crate::model::{SchemaOutcome, Severity};
use crate::rules;

/// A schema error as people read it: a `not: {}` rejection says what the schema's description
/// says about the field (v2's "MISPLACED: belongs at report.X"), and a whole object or array
/// quoted at the start of a message is named instead of dumped.
fn schema_message(id: SchemaId, schema_path: &str, message: &str) -> String {
    if let Some(parent) = schema_path.strip_suffix("/not") {
        let description = serde_json::from_str::<Value>(id.text())
            .ok()
            .and_then(|schema| {
                schema
                    .pointer(parent)
                    .and_then(|n| n.get("description"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
        return match description {
            Some(d) => format!("not allowed here: {d}"),
            None => "not allowed here".to_owned(),
        };
    }
    if schema_path.ends_with("/enum")
        && let Some(listed) = enum_message(id, schema_path, message)
    {
        return listed;
    }
    if message.starts_with(['{', '[']) {
        let mut stream = serde_json::Deserializer::from_str(message).into_iter::<Value>();
        if let Some(Ok(v)) = stream.next() {
            let rest = message.get(stream.byte_offset()..).unwrap_or_default();
            let what = if v.is_object() {
                "the object"
            } else {
                "the array"
            };
            return format!("{what}{rest}");
        }
    }
    message.to_owned()
}

/// An enum violation with every allowed value (the validator lists three at most): the values
/// are read from the schema at the error's schema path.
fn enum_message(id: SchemaId, schema_path: &str, message: &str) -> Option<String> {
    let schema = serde_json::from_str::<Value>(id.text()).ok()?;
    let options = schema_node(&schema, schema_path)?.as_array()?;
    let (value, _) = message.split_once(" is not one of ")?;
    let mut listed: Vec<String> = options.iter().map(Value::to_string).collect();
    let last = listed.pop()?;
    Some(if listed.is_empty() {
        format!("{value} is not {last}")
    } else {
        format!("{value} is not one of {} or {last}", listed.join(", "))
    })
}

/// The node at a validator's schema path, following the local `$ref`s the path passes through.
fn schema_node<'s>(schema: &'s Value, path: &str) -> Option<&'s Value> {
    let mut node = schema;
    for seg in path.split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        node = if seg == "$ref" {
            let target = node.get("$ref")?.as_str()?.strip_prefix('#')?;
            schema.pointer(target)?
        } else {
            match node {
                Value::Array(items) => items.get(seg.parse::<usize>().ok()?)?,
                _ => node.get(seg.as_str())?,
            }
        };
    }
    Some(node)
}

/// A Gap-dialect document under the Shadow names: `gap_score_spec_version`, `report.gap_score`
/// and the hardening's `initial_gap_score` / `final_gap_score` renamed.
fn shadow_names(doc: &Value) -> Value {
    let mut out = doc.clone();
    let rename = |o: &mut Map<String, Value>, from: &str, to: &str| {
        if !o.contains_key(to)
            && let Some(v) = o.remove(from)
        {
            o.insert(to.to_owned(), v);
        }
    };
    if let Some(root) = out.as_object_mut() {
        rename(root, "gap_score_spec_version", "shadow_score_spec_version");
        if let Some(report) = root.get_mut("report").and_then(Value::as_object_mut) {
            rename(report, GAP, SHADOW);
        }
        if let Some(h) = root.get_mut("hardening").and_then(Value::as_object_mut) {
            rename(h, "initial_gap_score", "initial_shadow_score");
            rename(h, "final_gap_score", "final_shadow_score");
        }
    }
    out
}

impl Checker<'_> {
    pub(crate) fn read_schemas(&mut self) {
        let doc = self.doc;
        let shadow = if self.major >= 2 {
            SchemaId::ShadowV2
        } else {
            SchemaId::ShadowV1
        };
        let mut binding = Vec::new();
        match self.dialect {
            "gap" => binding.push(SchemaId::GapPreRename),
            "both" => {
                binding.push(shadow);
                binding.push(SchemaId::GapPreRename);
            }
            _ => binding.push(shadow),
        }
        for id in binding {
            self.apply_schema(id, doc, true);
        }
        if self.dialect == "gap" && self.major >= 2 {
            // v2 is published in the Shadow dialect only; a Gap-dialect v2 report is judged by
            // the v2 schema under the Shadow names, so it meets v2's rules (weak independence
            // is advisory, §3.6.1) and cannot escape them by its key names.
            let shadow_named = shadow_names(doc);
            self.apply_schema(SchemaId::ShadowV2, &shadow_named, true);
        }
        let ours_binding = self.root.get("gapscore").is_some_and(Value::is_object);
        self.apply_schema(SchemaId::Report, doc, ours_binding);
    }

    fn apply_schema(&mut self, id: SchemaId, doc: &Value, binding: bool) {
        let (errors, total) = match validate_limited(id, doc, MAX_FINDINGS_PER_RULE) {
            Ok(e) => e,
            Err(e) => {
                // A bundled schema that does not compile is ruled out by the schema crate's
                // tests; say so rather than pass silently.
                self.err(
                    &rules::SCHEMA_UPSTREAM,
                    "",
                    format!("schema `{}` could not be used: {e}", id.name()),
                );
                return;
            }
        };
        self.schemas.push(SchemaOutcome {
            schema: id.name().to_owned(),
            binding,
            errors: total,
        });
        let (rule, severity) = match (id, binding) {
            (SchemaId::Report, true) => (&rules::SCHEMA_GAPSCORE, Severity::Error),
            (SchemaId::Report, false) => (&rules::SCHEMA_GAPSCORE, Severity::Note),
            _ => (&rules::SCHEMA_UPSTREAM, Severity::Error),
        };
        let errors_listed = errors.len();
        for e in errors {
            let message = schema_message(id, &e.schema_path, &e.message);
            self.add(
                rule,
                severity,
                &e.instance_path,
                format!("{}: {message}", id.name()),
            );
        }
        self.left_out(rule, severity, total - errors_listed);
    }
}
