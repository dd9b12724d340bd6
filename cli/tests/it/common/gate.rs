//! The score-integrity tests' shared view of a report: `score … --threshold` run in a fixture
//! folder, and what they assert on (problems with their counts, sealed counts, advisory).

use std::path::Path;

use serde_json::Value;

use super::{code, json_of, run_in};

/// `score --sealed FILE --format json --threshold T` (and `--allow-advisory`) run in `dir`:
/// the exit code and the report.
pub fn score_gate(dir: &Path, file: &str, threshold: &str, allow_advisory: bool) -> (i32, Value) {
    let mut args = vec![
        "score",
        "--sealed",
        file,
        "--format",
        "json",
        "--threshold",
        threshold,
    ];
    if allow_advisory {
        args.push("--allow-advisory");
    }
    let o = run_in(dir, &args);
    (code(&o), json_of(&o))
}

/// The report's problems as `kind` or `kind xN`.
pub fn problems(r: &Value) -> Vec<String> {
    r["gapscore"]["problems"]
        .as_array()
        .map(|ps| {
            ps.iter()
                .map(|p| {
                    let kind = p["kind"].as_str().unwrap();
                    match p["count"].as_u64() {
                        Some(n) => format!("{kind} x{n}"),
                        None => kind.to_owned(),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `sealed_tests` as (total, failed).
pub fn sealed(r: &Value) -> (u64, u64) {
    (
        r["sealed_tests"]["total"].as_u64().unwrap(),
        r["sealed_tests"]["failed"].as_u64().unwrap(),
    )
}

/// Whether the report is advisory.
pub fn advisory(r: &Value) -> bool {
    r["report"]["advisory"].as_bool().unwrap_or(false)
}
