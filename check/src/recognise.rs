//! Telling a Gap Report from the other files pipelines leave around: Dark Factory's
//! `state.json` and Markdown reports, Terminal Stampede's `merge-report.json`, `state.json` and
//! `runtime-stats.json`, validator inputs, conformance suites, schemas, gapscore's own seal
//! records, histories and Markdown reports. Each is explained rather than misread as a report.

use serde_json::{Map, Value};

/// What a document is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A Gap Report (any dialect).
    Report,
    /// A known artifact that is not a Gap Report.
    Artifact {
        /// Its name.
        artifact: String,
        /// Why it is not a report and what to check instead.
        explanation: String,
    },
    /// Nothing known.
    Unknown(String),
}

fn artifact(name: &str, explanation: impl Into<String>) -> Kind {
    Kind::Artifact {
        artifact: name.to_owned(),
        explanation: explanation.into(),
    }
}

fn has(o: &Map<String, Value>, keys: &[&str]) -> bool {
    keys.iter().all(|k| o.contains_key(*k))
}

fn has_any(o: &Map<String, Value>, keys: &[&str]) -> bool {
    keys.iter().any(|k| o.contains_key(*k))
}

const SCORE_KEYS: [&str; 2] = ["shadow_score", "gap_score"];

/// The rules a spec version is judged under: 1 or 2 (2 for every version from 2 on), read from
/// the major number however long its digits (`2.99999999999999999999.0` is a v2 version, not
/// an unreadable one that falls back to v1). `None` when no major number leads the string.
pub fn spec_major(version: &str) -> Option<u64> {
    let v = version.strip_prefix(['v', 'V']).unwrap_or(version);
    let digits = v.len() - v.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let (major, rest) = v.split_at(digits);
    if major.is_empty() || !(rest.is_empty() || rest.starts_with('.')) {
        return None;
    }
    let major = major.trim_start_matches('0');
    Some(match major.len() {
        0 => 1,
        1 if major == "1" => 1,
        _ => 2,
    })
}

/// Judges a parsed JSON document.
pub fn classify(doc: &Value) -> Kind {
    let Some(o) = doc.as_object() else {
        let what = match doc {
            Value::Array(_) => "an array",
            Value::String(_) => "a string",
            Value::Number(_) => "a number",
            Value::Bool(_) => "a boolean",
            _ => "null",
        };
        return Kind::Unknown(format!(
            "the document is {what}; a Gap Report is a JSON object"
        ));
    };
    let report = o.get("report").and_then(Value::as_object);
    let version = has_any(o, &["shadow_score_spec_version", "gap_score_spec_version"]);
    let score_in_report = report.is_some_and(|r| has_any(r, &SCORE_KEYS));
    let score_at_root = has_any(o, &SCORE_KEYS)
        && o.get("shadow_score")
            .or_else(|| o.get("gap_score"))
            .is_some_and(Value::is_number);
    if version
        || (score_in_report && (o.contains_key("sealed_tests") || o.contains_key("failures")))
        || (score_at_root && o.contains_key("sealed_tests"))
    {
        return Kind::Report;
    }
    if o.contains_key("gapscore_seal") {
        return artifact(
            "gapscore seal record",
            "a seal record (`gapscore seal`): the sealed directory's hash and files; pass it with --seal to check a report's Level 2 hash",
        );
    }
    if o.contains_key("gapscore_history") {
        return artifact(
            "gapscore hardening history",
            "a hardening history (`gapscore harden record`): score it into a report with `gapscore score --history FILE --max-cycles N`, then check the report",
        );
    }
    if o.contains_key("tests") && o.get("tests").is_some_and(Value::is_array) {
        return artifact(
            "test results (validator input)",
            "test results in the reference validators' input format ({\"tests\": [...]}), not a report: score them with `gapscore score --sealed FILE [--open FILE]` and check the report",
        );
    }
    if let Some(results) = o.get("results").and_then(Value::as_object)
        && results.contains_key("tool")
    {
        return artifact(
            "CTRF test results",
            "test results in the Common Test Report Format, not a report: score them with `gapscore score --sealed FILE`",
        );
    }
    if has(o, &["conformance_suite_version", "fixtures"]) {
        return artifact(
            "upstream conformance suite",
            "the spec repository's conformance fixtures (inputs and expected validator outputs), not a report; `cli/tests/it/upstream_conformance.rs` runs gapscore against them",
        );
    }
    if o.contains_key("$schema") && has_any(o, &["properties", "$defs", "definitions"]) {
        return artifact(
            "JSON Schema",
            "a JSON Schema, not a report: `gapscore check` validates reports against the bundled upstream schemas and gapscore's own",
        );
    }
    if let Some(summary) = o.get("summary").and_then(Value::as_object)
        && let Some(ss) = summary.get("shadow_score")
    {
        return artifact(
            "Terminal Stampede merge-report.json",
            stampede_merge(o.contains_key("branches"), ss),
        );
    }
    if o.contains_key("run_id") && has_any(o, &["sealed_hash", "sealed_path"]) {
        return artifact(
            "Dark Factory state.json (v0.1)",
            "Dark Factory's run state: it stores the sealed directory's path and hash (`sealed_hash`) for the re-check before validation, but no counts, level or failures; the report is the Markdown GAP-REPORT.md / SHADOW-REPORT.md (v0.1 wrote no JSON report), so no §5.2 report exists to check",
        );
    }
    if o.contains_key("run_id") && has_any(o, &["sealed_suites", "vault_path"]) {
        return artifact(
            "Dark Factory state.json (v1.0)",
            "Dark Factory's run state: per-suite seal hashes (`sealed_suites[].hash`), the initial and current score and the hardening cycle, but no counts, level or failures; check SHADOW-REPORT.json, the run's §5.2 report",
        );
    }
    if o.contains_key("gates") || (o.len() == 1 && o.contains_key("checkpoints")) {
        return artifact(
            "Dark Factory state.json fragment (gates)",
            "the gates and checkpoints part of Dark Factory's state.json: the `shadow_score` gate is a threshold decision, not a report; check SHADOW-REPORT.json",
        );
    }
    if let Some(r) = report
        && !o.contains_key("sealed_tests")
        && has_any(
            r,
            &[
                "independence",
                "seal_author_families",
                "implementer_family",
                "conformance_level",
            ],
        )
    {
        return artifact(
            "report provenance fragment",
            "only the Level-4 provenance fields of a report's `report` object (independence, model families): a fragment of a Shadow Report v2, without score, level, counts or failures",
        );
    }
    if o.contains_key("run_id") && has_any(o, &["phase", "tasks", "workers"]) {
        return artifact(
            "Terminal Stampede state.json",
            "Terminal Stampede's run state (phase, tasks, workers): it has no field for the seal hash and carries no score; the only score is in merge-report.json, which is not a §5.2 report either",
        );
    }
    if let Some(agents) = o.get("agents").and_then(Value::as_object)
        && agents.values().any(|a| a.get("duration_seconds").is_some())
    {
        return artifact(
            "Terminal Stampede runtime-stats.json",
            "per-agent timings of a Terminal Stampede run: no score at all",
        );
    }
    Kind::Unknown(
        "no spec version key (`shadow_score_spec_version` / `gap_score_spec_version`), no `report.shadow_score` / `report.gap_score` with `sealed_tests`: this is not a Gap Report".to_owned(),
    )
}

/// gapscore's own Markdown report: `# Shadow Report` (or `# Gap Report`, `# Shadow / Gap
/// Report`), then `**Shadow Score: N%**` and the suites table among its first lines.
fn gapscore_markdown(text: &str) -> bool {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let heading = lines
        .next()
        .is_some_and(|l| l.starts_with("# ") && l.ends_with(" Report"));
    let mut score = false;
    let mut table = false;
    for l in lines.take(12) {
        score |= ["**Shadow Score: ", "**Gap Score: "]
            .iter()
            .any(|p| l.starts_with(p));
        table |= l == "| Suite | Total | Passed | Failed |";
    }
    heading && score && table
}

fn stampede_merge(branches: bool, ss: &Value) -> String {
    let mut s = String::from(if branches {
        "Terminal Stampede's merge report: "
    } else {
        "a merge report with a Shadow Score summary: "
    });
    let get = |k: &str| ss.get(k).map(Value::to_string);
    match (get("score_pct"), get("sealed_failed"), get("sealed_total")) {
        (Some(p), Some(f), Some(t)) => s.push_str(&format!(
            "`summary.shadow_score` says {p}% ({f} of {t} sealed scripts failed), "
        )),
        _ => s.push_str("`summary.shadow_score` carries a score, "),
    }
    s.push_str(
        "an integer percentage truncated from failed*100/total, with no spec version, no level, no passed count and no failures list; it is not a §5.2 report. Score the sealed results with `gapscore score` for one",
    );
    s
}

/// Judges a text that is not JSON: Markdown reports and XML results are recognised.
pub fn classify_text(text: &str) -> Option<Kind> {
    let t = text.trim_start();
    if t.starts_with('<') && (t.contains("<testsuite") || t.contains("<testsuites")) {
        return Some(artifact(
            "JUnit XML test results",
            "test results, not a report: score them with `gapscore score --sealed FILE`",
        ));
    }
    let marker = text.lines().rev().find_map(|l| {
        ["SHADOW_SCORE:", "GAP_SCORE:"]
            .iter()
            .find(|m| l.contains(**m))
            .copied()
    });
    let markdown_report = text.lines().take(5).any(|l| {
        let l = l.trim_start();
        l.starts_with('#')
            && ["Gap", "Shadow", "Sealed-Envelope"]
                .iter()
                .any(|w| l.contains(w))
    });
    let summary = text.lines().any(|l| {
        let l = l.trim_start();
        ["Shadow Score: ", "Gap Score: "].iter().any(|p| {
            l.strip_prefix(p).is_some_and(|rest| {
                rest.starts_with(|c: char| c.is_ascii_digit()) && rest.contains('%')
            })
        })
    });
    if summary && marker.is_none() {
        return Some(artifact(
            "validator summary text",
            "the reference validators' `--format summary` text (`Shadow Score: 11.1% ... (minor)`, `Sealed: 16/18 passed`): score, level and counts for people, without spec version or failure details; check the JSON report (`--format json`, the validators' default)",
        ));
    }
    if gapscore_markdown(text) {
        return Some(artifact(
            "Markdown report (gapscore)",
            "`gapscore score --format markdown`: the report for people (a pull-request comment), without spec version or failure fields; check the JSON report the same command writes with `--format json` (the default)",
        ));
    }
    if marker.is_some() || markdown_report {
        let what = match marker {
            Some(m) => format!("it carries the `{m} N%` marker the orchestrator parses, "),
            None => String::new(),
        };
        return Some(artifact(
            "Markdown report (Dark Factory style)",
            format!(
                "a Markdown report for people: {what}but §5 conformance is judged on the JSON Gap Report (SHADOW-REPORT.json); Dark Factory v0.1 wrote no JSON report at all"
            ),
        ));
    }
    if t.starts_with('#') {
        return Some(artifact(
            "Markdown document",
            "a Markdown document, not a JSON Gap Report",
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::spec_major;

    #[test]
    fn every_2_x_version_is_v2_however_long_its_numbers() {
        for v in [
            "2.0.0",
            "2.0.0000000000000000001",
            "2.99999999999999999999.0",
            "2.0.18446744073709551616",
            "3.1.4",
            "18446744073709551616.0.0",
            "02.0.0",
            "2.0.0-rc1",
            "v2.0.0",
        ] {
            assert_eq!(spec_major(v), Some(2), "{v}");
        }
        for v in ["1.0.0", "1.1.0", "0.9.0", "1.99999999999999999999.0"] {
            assert_eq!(spec_major(v), Some(1), "{v}");
        }
        for v in ["", "x.0.0", "2x.0.0", ".2.0"] {
            assert_eq!(spec_major(v), None, "{v}");
        }
    }
}
