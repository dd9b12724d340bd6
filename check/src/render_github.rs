//! A check as GitHub workflow commands (`gapscore check --format github`): an `::error` per
//! error finding (its rule id as the title, on the report's line when the finding has one), a
//! `::warning` per warning, and a `::notice` per file with the level it reached. The commands
//! and their escaping are core's (`gapscore_core::render::github`), one writer for every
//! annotation gapscore prints.

use gapscore_core::render::github::{Annotation, command, workspace_relative};

use crate::model::{CheckOutput, Document, Severity};
use crate::render::Above;

/// Renders the whole check as workflow commands, each path relative to `workspace` when it
/// lies inside it.
pub fn render_github(out: &CheckOutput, workspace: Option<&str>) -> String {
    let mut s = String::new();
    let mut push = |kind, props: &[(&str, &str)], message: &str| {
        s.push_str(&command(kind, props, message));
        s.push('\n');
    };
    for f in &out.files {
        let file = workspace_relative(&f.path, workspace);
        if let Document::Unreadable { error } = &f.document {
            push(
                Annotation::Error,
                &[("file", file), ("title", "unreadable")],
                error,
            );
            continue;
        }
        let mut above = Above::default();
        for level in (out.requested_level + 1)..=4 {
            above.count(f, level);
        }
        // Only what bears on the level asked for is annotated; the rest is counted in the
        // file's notice.
        for finding in f.findings.iter().filter(|x| x.level <= out.requested_level) {
            let kind = match finding.severity {
                Severity::Error => Annotation::Error,
                Severity::Warning => Annotation::Warning,
                Severity::Note => continue,
            };
            let line = finding.line.map(|n| n.to_string()).unwrap_or_default();
            let col = match finding.line {
                Some(_) => finding.column.map(|n| n.to_string()).unwrap_or_default(),
                None => String::new(),
            };
            let mut message = finding.message.clone();
            if !finding.pointer.is_empty() {
                message = format!("{} ({}): {message}", finding.pointer, finding.spec);
            }
            if !finding.hint.is_empty() {
                message.push_str("\nfix: ");
                message.push_str(&finding.hint);
            }
            push(
                kind,
                &[
                    ("file", file),
                    ("line", &line),
                    ("col", &col),
                    ("title", &finding.rule),
                ],
                &message,
            );
        }
        let verdict = if f.holds { "holds" } else { "does not hold" };
        push(
            Annotation::Notice,
            &[("file", file), ("title", "gapscore check")],
            &format!(
                "level {} reached; the requested level {} {verdict}{}",
                f.level_met,
                out.requested_level,
                above
                    .line(out.requested_level)
                    .map(|l| format!("; {l}"))
                    .unwrap_or_default()
            ),
        );
    }
    s
}
