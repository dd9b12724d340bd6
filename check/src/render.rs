//! The human-readable form of a check: per file, the requirements and findings grouped by level,
//! each finding with its pointer and fix hint.

use std::fmt::Write;

use crate::model::{CheckOutput, Document, FileResult, Severity, Verdict};

fn mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Verified => "ok",
        Verdict::Attested => "~ ",
        Verdict::Failed => "X ",
    }
}

/// Renders the whole check as text.
pub fn render_text(out: &CheckOutput) -> String {
    let mut s = String::new();
    for f in &out.files {
        render_file(&mut s, f, out.requested_level);
        s.push('\n');
    }
    let unreadable = out.files.iter().filter(|f| f.unreadable()).count();
    let holding = out.files.iter().filter(|f| f.holds).count();
    let failing = out.files.len() - holding - unreadable;
    let _ = write!(
        s,
        "{} file{} checked for level {}: {holding} hold{}",
        out.files.len(),
        if out.files.len() == 1 { "" } else { "s" },
        out.requested_level,
        if holding == 1 { "s" } else { "" }
    );
    if failing > 0 {
        let _ = write!(
            s,
            ", {failing} do{} not",
            if failing == 1 { "es" } else { "" }
        );
    }
    if unreadable > 0 {
        let _ = write!(s, ", {unreadable} unreadable");
    }
    s.push('\n');
    s
}

fn render_file(s: &mut String, f: &FileResult, requested: u8) {
    match &f.document {
        Document::Unreadable { error } => {
            let _ = writeln!(s, "{}: unreadable: {error}", f.path);
            return;
        }
        Document::Artifact {
            artifact,
            explanation,
        } => {
            let _ = writeln!(s, "{}: not a Gap Report: {artifact}", f.path);
            let _ = writeln!(s, "  {explanation}");
            let _ = writeln!(
                s,
                "  level {requested} does not hold: there is no report to check"
            );
            return;
        }
        Document::Unknown { explanation } => {
            let _ = writeln!(s, "{}: not a Gap Report", f.path);
            let _ = writeln!(s, "  {explanation}");
            let _ = writeln!(
                s,
                "  level {requested} does not hold: there is no report to check"
            );
            return;
        }
        Document::Report {
            dialect,
            spec_version,
            tool,
        } => {
            let version = spec_version
                .as_deref()
                .map(|v| format!(", spec {v}"))
                .unwrap_or_default();
            let by = tool
                .as_deref()
                .map(|t| format!(", written by {t}"))
                .unwrap_or_default();
            let met = if f.level_met == 0 {
                "no level holds".to_owned()
            } else {
                format!("level {} holds", f.level_met)
            };
            let verdict = if f.holds {
                format!("level {requested} holds")
            } else {
                format!("level {requested} does not hold")
            };
            // "level 1 holds; level 1 holds" says it once.
            let verdict = if verdict == met {
                String::new()
            } else {
                format!("; {verdict}")
            };
            let _ = writeln!(
                s,
                "{}: Gap Report ({dialect} dialect{version}{by}): {met}{verdict}",
                f.path
            );
        }
    }
    let schemas: Vec<String> = f
        .schemas
        .iter()
        .map(|o| {
            let state = if o.errors == 0 {
                "valid".to_owned()
            } else {
                format!("{} error{}", o.errors, if o.errors == 1 { "" } else { "s" })
            };
            if o.binding {
                format!("{} {state}", o.schema)
            } else {
                format!("{} {state} (informative)", o.schema)
            }
        })
        .collect();
    let _ = writeln!(s, "  schemas: {}", schemas.join("; "));
    for level in 1..=3u8 {
        let _ = writeln!(s, "  Level {level}");
        for r in f.requirements.iter().filter(|r| r.level == level) {
            let _ = writeln!(
                s,
                "    [{}] {:<8} {} {}: {}",
                mark(r.verdict),
                r.verdict.as_str(),
                r.spec,
                r.title,
                r.detail
            );
        }
        for x in f.findings.iter().filter(|x| x.level == level) {
            let at = if x.pointer.is_empty() {
                "(document)"
            } else {
                x.pointer.as_str()
            };
            let _ = writeln!(
                s,
                "    {:<7} {} {} at {at}: {}",
                x.severity.as_str(),
                x.rule,
                x.spec,
                x.message
            );
            if x.severity != Severity::Note {
                let _ = writeln!(s, "            fix: {}", x.hint);
            }
        }
    }
}
