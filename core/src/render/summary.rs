//! The reference validators' summary lines (`Shadow Score: 11.1% 🟢 (minor)`, ...).

use super::numbers::{grouped, grouped_usize};
use std::fmt::Write as _;

use super::github::inert_plain;
use super::headline::{provenance_line, score_line};
use super::text::{cut, one_line};
use super::{RenderOptions, Sink, to_string};
use crate::report::GapReport;

/// A failure message in the summary is cut after this many bytes (on a char boundary).
pub const SUMMARY_MESSAGE_CAP: usize = 200;

/// The summary lines of the reference validators (`Shadow Score: 11.1% 🟢 (minor)`, `Sealed:
/// 16/18 passed`, ...), followed by gapscore's advisory lines when the report is advisory.
pub fn render_summary(report: &GapReport) -> String {
    to_string(|s| summary_into(report, &RenderOptions::default(), s))
}

/// Every text the report quotes (names, messages, reasons) goes through
/// [`inert_plain`]: a zero-width space keeps a line that would start with `::` or hold `##[`
/// from being read as a workflow command by GitHub's runner, and keeps its look.
pub(super) fn summary_into(report: &GapReport, opts: &RenderOptions, out: &mut Sink<'_>) {
    let _ = writeln!(out, "{}", inert_plain(&score_line(report)));
    if let Some(p) = provenance_line(report) {
        let _ = writeln!(out, "{}", inert_plain(&p));
    }
    let s = &report.sealed_tests;
    let _ = writeln!(
        out,
        "Sealed: {}/{} passed",
        grouped(s.passed),
        grouped(s.total)
    );
    if let Some(o) = &report.open_tests {
        let _ = writeln!(
            out,
            "Open:   {}/{} passed",
            grouped(o.passed),
            grouped(o.total)
        );
    }
    if !report.failures.is_empty() {
        let total = report.failures.len();
        let _ = writeln!(out, "\nFailures ({}):", grouped_usize(total));
        let shown = opts.max_failures.unwrap_or(usize::MAX).min(total);
        for f in report.failures.iter().take(shown) {
            if f.message.is_empty() {
                let _ = writeln!(out, "  ❌ {}", inert_plain(&f.test_name));
            } else {
                let line = one_line(&f.message);
                let _ = writeln!(
                    out,
                    "  ❌ {}: {}",
                    inert_plain(&f.test_name),
                    inert_plain(&cut(&line, SUMMARY_MESSAGE_CAP))
                );
            }
        }
        if shown < total {
            let _ = writeln!(
                out,
                "  … {} more not shown (--max-failures {shown}); the JSON report lists every one",
                total - shown
            );
        }
    }
    if let Some(reason) = &report.report.advisory_reason {
        let _ = writeln!(out, "\nAdvisory: {}", inert_plain(reason));
    }
    if let Some(g) = report.gapscore.as_ref().and_then(|e| e.gate.as_ref()) {
        let _ = writeln!(out, "\nGate: {}: {}", g.verdict, inert_plain(&g.reason));
    }
}

/// A refused score (no report): one line saying so, with the refusal's code and message.
pub(super) fn refused_into(code: gapscore_model::Code, message: &str, out: &mut Sink<'_>) {
    let line = format!("gapscore refused the score ({code}; no report was made): {message}");
    let _ = writeln!(out, "{}", super::github::inert_line(&line));
}
