//! The human-readable form of a check: per file, the requirements and findings grouped by level,
//! each finding with its pointer, its `line:col` in the file and its fix hint. By default only
//! what bears on the verdict is listed and the rest counted; verbose lists everything.

use std::fmt::Write;

use crate::model::{
    CheckOutput, Document, FileResult, Finding, Requirement, RequirementVerdict, Severity,
};
use crate::rules;

fn mark(v: RequirementVerdict) -> &'static str {
    match v {
        RequirementVerdict::Verified => "ok",
        RequirementVerdict::Attested => "~ ",
        RequirementVerdict::Failed => "X ",
    }
}

/// Renders the whole check as text: per file, what bears on the verdict (failed requirements,
/// errors, and warnings about the level itself); the rest is counted, and listed by
/// [`render_text_verbose`].
pub fn render_text(out: &CheckOutput) -> String {
    inert(render(out, false))
}

/// Renders the whole check as text, every requirement and finding listed.
pub fn render_text_verbose(out: &CheckOutput) -> String {
    inert(render(out, true))
}

/// The text made inert to GitHub's runner (findings quote the report's names and messages):
/// a line that would start with `::` or holds `##[` gets a zero-width space that keeps its look.
fn inert(text: String) -> String {
    gapscore_core::render::github::inert_plain_owned(text)
}

fn render(out: &CheckOutput, verbose: bool) -> String {
    let mut s = String::new();
    for f in &out.files {
        render_file(&mut s, f, out.requested_level, verbose);
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

/// Whether a finding bears on the verdict: an error (its level does not hold), or a warning
/// about the level itself (a claimed level the report does not reach, an advisory report).
fn bears_on_verdict(f: &Finding) -> bool {
    f.severity == Severity::Error
        || (f.severity == Severity::Warning
            && [rules::CLAIMED_LEVEL.id, rules::ADVISORY.id].contains(&f.rule.as_str()))
}

/// The fields a requirement is about: an error at one of them says more than an "attested"
/// verdict beside it, which is then not shown.
fn requirement_fields(id: &str) -> &'static [&'static str] {
    match id {
        "L2.hash-stored" | "L2.hash-recomputed" => &["/report/sealed_hash", "/report/seal_broken"],
        "L2.sealed-first" => &["/report/timestamp", "/report/sealed_at"],
        "L3.hardening-loop" | "L3.initial-final" | "L3.velocity" | "L3.recomputed" => {
            &["/hardening"]
        }
        _ => &[],
    }
}

/// True when an error finding is about a field of the requirement.
fn error_on_fields(f: &FileResult, r: &Requirement) -> bool {
    let fields = requirement_fields(&r.id);
    f.findings.iter().any(|x| {
        x.severity == Severity::Error
            && fields.iter().any(|field| {
                x.pointer == *field
                    || x.pointer
                        .strip_prefix(field)
                        .is_some_and(|rest| rest.starts_with('/'))
            })
    })
}

/// `/report/level (3:14)`, or `(document)`.
fn location(x: &Finding) -> String {
    let at = if x.pointer.is_empty() {
        "(document)"
    } else {
        x.pointer.as_str()
    };
    match (x.line, x.column) {
        (Some(l), Some(c)) => format!("{at} ({l}:{c})"),
        _ => at.to_owned(),
    }
}

fn render_file(s: &mut String, f: &FileResult, requested: u8, verbose: bool) {
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
    let mut hidden = (0usize, 0usize, 0usize);
    let mut above = Above::default();
    for level in 1..=4u8 {
        if !verbose && level > requested {
            above.count(f, level);
            continue;
        }
        let mut lines = Vec::new();
        for r in f.requirements.iter().filter(|r| r.level == level) {
            if r.verdict == RequirementVerdict::Attested && error_on_fields(f, r) {
                continue;
            }
            if !verbose && r.verdict != RequirementVerdict::Failed {
                hidden.0 += 1;
                continue;
            }
            lines.push(format!(
                "    [{}] {:<8} {} {}: {}",
                mark(r.verdict),
                r.verdict.as_str(),
                r.spec,
                r.title,
                r.detail
            ));
        }
        for x in f.findings.iter().filter(|x| x.level == level) {
            if !verbose && !bears_on_verdict(x) {
                match x.severity {
                    Severity::Note => hidden.2 += 1,
                    _ => hidden.1 += 1,
                }
                continue;
            }
            lines.push(format!(
                "    {:<7} {} {} at {}: {}",
                x.severity.as_str(),
                x.rule,
                x.spec,
                location(x),
                x.message
            ));
            if x.severity != Severity::Note {
                lines.push(format!("            fix: {}", x.hint));
            }
        }
        if verbose || !lines.is_empty() {
            let _ = writeln!(s, "  Level {level}");
            for l in lines {
                let _ = writeln!(s, "{l}");
            }
        }
    }
    let (met, warnings, notes) = hidden;
    if met + warnings + notes > 0 {
        let mut parts = Vec::new();
        for (n, one, many) in [
            (
                met,
                "requirement met or attested",
                "requirements met or attested",
            ),
            (warnings, "warning", "warnings"),
            (notes, "note", "notes"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {}", if n == 1 { one } else { many }));
            }
        }
        let _ = writeln!(
            s,
            "  not shown: {} (--verbose lists them)",
            parts.join(", ")
        );
    }
    if let Some(line) = above.line(requested) {
        let _ = writeln!(s, "  {line}");
    }
}

/// What a check found above the level asked for: not shown (it does not bear on the verdict),
/// only counted, so a level-1 check does not read as failing on level 2's requirements.
#[derive(Default)]
pub(crate) struct Above {
    /// Failed requirements, and error or level-warning findings.
    items: usize,
    /// The highest level they belong to.
    top: u8,
}

impl Above {
    /// Counts what bears on `level` (above the requested one) in `f`.
    pub(crate) fn count(&mut self, f: &FileResult, level: u8) {
        let n = f
            .requirements
            .iter()
            .filter(|r| r.level == level && r.verdict == RequirementVerdict::Failed)
            .count()
            + f.findings
                .iter()
                .filter(|x| x.level == level && bears_on_verdict(x))
                .count();
        if n > 0 {
            self.items += n;
            self.top = self.top.max(level);
        }
    }

    /// `3 findings above level 1 not shown (--level 3 to see them)`, when there are any.
    pub(crate) fn line(&self, requested: u8) -> Option<String> {
        (self.items > 0).then(|| {
            format!(
                "{} finding{} above level {requested} not shown (--level {} to see them)",
                self.items,
                if self.items == 1 { "" } else { "s" },
                self.top
            )
        })
    }
}
