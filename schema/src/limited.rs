//! Validation with bounded memory, for documents from anywhere (`gapscore check`).
//!
//! The validator gathers every error of one keyword before it yields the first: `items` over a
//! million invalid failure entries builds a million errors (2.6 GB for a 4 MB report of `{}`
//! entries). So a document whose arrays are long is validated as a pruned copy (each array cut
//! to [`CHUNK`] items) and then each long array's remaining items a chunk at a time, inside the
//! pruned copy: at most one chunk's errors exist at once, and only the first `max` are kept.

use serde_json::Value;

use crate::{SchemaError, SchemaId, validator};

/// Arrays longer than this are validated this many items at a time.
const CHUNK: usize = 256;

/// Validates `instance` against a schema and returns its first `max` violations (sorted by
/// instance path) and how many there are in all: memory stays bounded however many there are.
/// An invalid document always has at least one violation listed, even when its only fault is a
/// constraint over a whole long array (`maxItems`), which the chunks cannot see.
///
/// The outer error means the bundled schema itself is unusable, which a test rules out.
pub fn validate_limited(
    id: SchemaId,
    instance: &Value,
    max: usize,
) -> Result<(Vec<SchemaError>, usize), String> {
    let v = validator(id)?;
    // `is_valid` stops at the first fault and builds no errors.
    if v.is_valid(instance) {
        return Ok((Vec::new(), 0));
    }
    let mut long = Vec::new();
    let pruned = prune(instance, &mut String::new(), &mut long);
    let mut errors = Vec::new();
    let mut total = 0;
    collect(v.iter_errors(&pruned), max, &mut errors, &mut total, |p| {
        Some(p.to_owned())
    });
    for pointer in &long {
        let Some(Value::Array(items)) = instance.pointer(pointer) else {
            continue;
        };
        for start in (CHUNK..items.len()).step_by(CHUNK) {
            let end = (start + CHUNK).min(items.len());
            let mut doc = pruned.clone();
            let Some(slot) = doc.pointer_mut(pointer) else {
                continue;
            };
            *slot = Value::Array(
                items[start..end]
                    .iter()
                    .map(|item| prune(item, &mut String::new(), &mut Vec::new()))
                    .collect(),
            );
            if v.is_valid(&doc) {
                continue;
            }
            // Only the errors inside this array's items: the rest of the document was judged
            // with the pruned copy. Item indices are shifted back to the whole array's.
            collect(v.iter_errors(&doc), max, &mut errors, &mut total, |p| {
                shift_index(p, pointer, start)
            });
        }
    }
    if total == 0 {
        errors.push(SchemaError {
            instance_path: String::new(),
            schema_path: String::new(),
            message: "the document does not match the schema (a constraint over a whole array \
                      longer than the checker validates at once)"
                .to_owned(),
        });
        total = 1;
    }
    errors.sort_by(|a, b| {
        (a.instance_path.as_str(), a.schema_path.as_str())
            .cmp(&(b.instance_path.as_str(), b.schema_path.as_str()))
    });
    Ok((errors, total))
}

/// Counts every error and keeps the first `max` (after `path` maps or drops its instance path).
fn collect<'a>(
    iter: impl Iterator<Item = jsonschema::ValidationError<'a>>,
    max: usize,
    errors: &mut Vec<SchemaError>,
    total: &mut usize,
    path: impl Fn(&str) -> Option<String>,
) {
    for e in iter {
        let Some(instance_path) = path(&e.instance_path().to_string()) else {
            continue;
        };
        *total += 1;
        if errors.len() < max {
            errors.push(SchemaError {
                instance_path,
                schema_path: e.schema_path().to_string(),
                message: e.to_string(),
            });
        }
    }
}

/// `pointer/i/rest` → `pointer/(i + start)/rest`; any other path is not in the chunk's items.
fn shift_index(path: &str, pointer: &str, start: usize) -> Option<String> {
    let rest = path.strip_prefix(pointer)?.strip_prefix('/')?;
    let (index, tail) = rest.split_once('/').map_or((rest, ""), |(i, t)| (i, t));
    let index: usize = index.parse().ok()?;
    let sep = if tail.is_empty() { "" } else { "/" };
    Some(format!("{pointer}/{}{sep}{tail}", index + start))
}

/// A copy of `value` with every array cut to its first [`CHUNK`] items; the JSON pointers of the
/// cut arrays are pushed to `long` (outermost first).
fn prune(value: &Value, at: &mut String, long: &mut Vec<String>) -> Value {
    match value {
        Value::Array(items) => {
            if items.len() > CHUNK {
                long.push(at.clone());
            }
            let len = at.len();
            let kept = items
                .iter()
                .take(CHUNK)
                .enumerate()
                .map(|(i, item)| {
                    at.push('/');
                    at.push_str(&i.to_string());
                    let v = prune(item, at, long);
                    at.truncate(len);
                    v
                })
                .collect();
            Value::Array(kept)
        }
        Value::Object(map) => {
            let len = at.len();
            Value::Object(
                map.iter()
                    .map(|(k, item)| {
                        at.push('/');
                        at.push_str(&k.replace('~', "~0").replace('/', "~1"));
                        let v = prune(item, at, long);
                        at.truncate(len);
                        (k.clone(), v)
                    })
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report_with_failures(failures: Vec<Value>) -> Value {
        serde_json::json!({
            "shadow_score_spec_version": "1.0.0",
            "report": {"id": "r", "timestamp": "2026-01-01T00:00:00Z", "shadow_score": 0.0, "level": "perfect"},
            "sealed_tests": {"total": 1, "passed": 1, "failed": 0},
            "failures": failures,
        })
    }

    #[test]
    fn an_invalid_item_past_the_first_chunk_is_found_at_its_own_index() {
        let good = serde_json::json!({"test_name": "t", "category": "unknown", "expected": "", "actual": "", "message": "m"});
        let mut failures = vec![good; 1000];
        failures[700] = serde_json::json!(0);
        let whole = report_with_failures(failures);
        let (errors, total) = validate_limited(SchemaId::ShadowV1, &whole, 10).unwrap();
        assert!(total >= 1, "{errors:?}");
        assert!(
            errors.iter().any(|e| e.instance_path == "/failures/700"),
            "{errors:?}"
        );
    }

    #[test]
    fn many_invalid_items_are_counted_and_only_max_are_kept() {
        let whole = report_with_failures(vec![serde_json::json!(0); 5000]);
        let (errors, total) = validate_limited(SchemaId::ShadowV1, &whole, 7).unwrap();
        assert_eq!(errors.len(), 7);
        assert!(total >= 5000, "{total}");
    }

    #[test]
    fn a_valid_document_has_no_errors() {
        let (errors, total) =
            validate_limited(SchemaId::ShadowV1, &report_with_failures(Vec::new()), 7).unwrap();
        assert_eq!((errors.len(), total), (0, 0), "{errors:?}");
    }

    #[test]
    fn indices_shift_back_to_the_whole_array() {
        assert_eq!(
            shift_index("/failures/3/x", "/failures", 256).as_deref(),
            Some("/failures/259/x")
        );
        assert_eq!(
            shift_index("/failures/3", "/failures", 256).as_deref(),
            Some("/failures/259")
        );
        assert_eq!(shift_index("/report/id", "/failures", 256), None);
        assert_eq!(shift_index("/failuresx/3", "/failures", 256), None);
    }
}
