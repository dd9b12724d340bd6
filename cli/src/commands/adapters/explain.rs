//! `gapscore adapters --explain FILE…`: every adapter's detection score for each file and why,
//! and the host's choice (`gapscore_adapters::explain`, the same decision ingestion takes), as
//! text or inside the JSON listing.

use std::fmt::Write as _;

use gapscore_adapters::{
    DETECT_PREFIX_LEN, Decision, FileExplanation, IngestError, Registry, SURE,
};
use serde::Serialize;

use super::origin;

/// One file in the JSON listing's `files`.
#[derive(Serialize)]
pub(super) struct ExplainedFile<'a> {
    path: &'a str,
    /// Named on the command line (not found in a directory).
    explicit: bool,
    /// The encoding on disk (`UTF-8`, `UTF-16LE`, `windows-1252`, ...): the adapters see
    /// UTF-8.
    encoding: &'static str,
    /// The adapters' prefix starts with a UTF-8 byte order mark.
    bom: bool,
    /// The bytes the adapters judged (at most 65,536).
    prefix_bytes: usize,
    detections: Vec<ExplainedDetection<'a>>,
    decision: ExplainedDecision<'a>,
}

#[derive(Serialize)]
struct ExplainedDetection<'a> {
    name: &'a str,
    origin: &'static str,
    score: u8,
    checks: Vec<ExplainedCheck<'a>>,
    note: Option<&'a str>,
}

#[derive(Serialize)]
struct ExplainedCheck<'a> {
    condition: &'a str,
    held: bool,
}

/// `read`, `left-out`, `skipped` or `failed`, with its reason.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
enum ExplainedDecision<'a> {
    Read {
        adapter: &'a str,
        format: &'a str,
        score: u8,
        why: &'a str,
    },
    LeftOut {
        reason: &'a str,
    },
    Skipped {
        reason: &'a str,
    },
    Failed {
        reason: &'a str,
    },
}

/// The JSON form of one explained file.
pub(super) fn json_file<'a>(f: &'a FileExplanation<'_>) -> ExplainedFile<'a> {
    ExplainedFile {
        path: &f.path,
        explicit: f.explicit,
        encoding: f.encoding,
        bom: f.bom,
        prefix_bytes: f.prefix_len,
        detections: f
            .adapters
            .iter()
            .map(|a| ExplainedDetection {
                name: a.entry.name(),
                origin: origin(&a.entry.origin).0,
                score: a.detection.score,
                checks: a
                    .detection
                    .checks
                    .iter()
                    .map(|c| ExplainedCheck {
                        condition: &c.condition,
                        held: c.held,
                    })
                    .collect(),
                note: a.detection.note.as_deref(),
            })
            .collect(),
        decision: match &f.decision {
            Decision::Read {
                adapter,
                format,
                confidence,
                why,
            } => ExplainedDecision::Read {
                adapter,
                format,
                score: *confidence,
                why,
            },
            Decision::LeftOut { reason } => ExplainedDecision::LeftOut { reason },
            Decision::Skipped { reason } => ExplainedDecision::Skipped { reason },
            Decision::Failed { reason } => ExplainedDecision::Failed { reason },
            _ => ExplainedDecision::Failed {
                reason: "(a decision this gapscore cannot show)",
            },
        },
    }
}

/// The text form: per file, a header, each adapter's score with its checks, and the choice.
pub(super) fn text(
    registry: &Registry,
    files: &[Result<FileExplanation<'_>, IngestError>],
) -> String {
    let width = registry
        .entries()
        .iter()
        .map(|e| e.name().chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (i, f) in files.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let f = match f {
            Ok(f) => f,
            Err(e) => {
                let _ = writeln!(out, "{e}");
                continue;
            }
        };
        let named = if f.explicit {
            "named on the command line"
        } else {
            "found in a directory"
        };
        let decoded = if f.decoded {
            format!("{}, decoded to UTF-8 before detection", f.encoding)
        } else {
            f.encoding.to_owned()
        };
        let bom = if f.bom {
            ", starts with a UTF-8 byte order mark (adapters see it)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{} ({named}; {decoded}{bom}; detection judged the first {} bytes, at most {DETECT_PREFIX_LEN})",
            f.path, f.prefix_len
        );
        for a in &f.adapters {
            let _ = writeln!(
                out,
                "  {:width$}  {:>3}  {}",
                a.entry.name(),
                a.detection.score,
                a.entry.origin
            );
            for c in &a.detection.checks {
                let mark = if c.held { "yes" } else { "no " };
                let _ = writeln!(out, "      {mark}  {}", c.condition);
            }
            if let Some(note) = &a.detection.note {
                let _ = writeln!(out, "      ({note})");
            }
        }
        let _ = match &f.decision {
            Decision::Read {
                adapter,
                format,
                why,
                ..
            } => writeln!(out, "  chosen: `{adapter}` as {format}: {why}"),
            Decision::LeftOut { reason } => writeln!(out, "  left out: {reason}"),
            Decision::Skipped { reason } => writeln!(out, "  skipped: {reason}"),
            Decision::Failed { reason } => writeln!(out, "  no adapter chosen: {reason}"),
            _ => writeln!(out, "  (a decision this gapscore cannot show)"),
        };
    }
    let _ = writeln!(
        out,
        "\nThe highest score alone at the top reads the file (when adapters claim the file's first lines alone at {SURE} or more, the highest among them: the head rule); a tie is an error (name one with --input-format ID). A file found in a directory needs {SURE} or more."
    );
    out
}
