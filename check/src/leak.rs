//! The leak scan of Level 3 (spec §4.4, requirement `L3.no-source`): with `--sealed-dir`, no
//! text the report shares holds a line of sealed test source.
//!
//! Every string of every failure entry (`test_name`, `message`, `expected`, `actual` and any
//! other field, at any depth) and of the `hardening` object is scanned whole, folded as
//! `gapscore feedback` matches ([`gapscore_core::fold`]: whitespace, case, invisible
//! characters and Cyrillic or Greek lookalike letters do not hide a line), and before anything
//! is taken out: a stack frame or location carrying source (`at test_calc.py:5 assert add(1,
//! 2) == 2`) is a leak, not a location. A text naming a place in a sealed file, without
//! source, is a warning.

use gapscore_adapter_sdk::text::strip_ansi;
use serde_json::Value;

use crate::checker::{Checker, ptr};
use crate::model::RequirementVerdict;
use crate::rules;

/// At most this many characters of a text are quoted in a finding.
const SHOWN: usize = 80;

/// Every string under `v`, with its pointer (`base` is the pointer of `v`).
fn strings<'a>(v: &'a Value, base: String, out: &mut Vec<(String, &'a str)>) {
    match v {
        Value::String(s) => out.push((base, s)),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                strings(x, format!("{base}{}", ptr(&[&i.to_string()])), out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                strings(x, format!("{base}{}", ptr(&[k])), out);
            }
        }
        _ => {}
    }
}

fn quote(s: &str) -> String {
    s.trim().chars().take(SHOWN).collect()
}

impl Checker<'_> {
    pub(crate) fn leak_scan(&mut self) -> (RequirementVerdict, String) {
        let Some(dir) = self.evidence.sealed_dir.as_ref() else {
            return (
                RequirementVerdict::Attested,
                "not scanned: give --sealed-dir to scan the failure texts for sealed source".into(),
            );
        };
        let mut source = dir.source.clone();
        source.prepare();
        let lines = source.line_count();
        let mut texts = Vec::new();
        for key in ["failures", "hardening"] {
            if let Some(v) = self.root.get(key) {
                strings(v, ptr(&[key]), &mut texts);
            }
        }
        let mut leaks = 0usize;
        let mut located = 0usize;
        for (p, text) in &texts {
            let plain = strip_ansi(text);
            let found = source.source_lines_in(&plain);
            if let Some(first) = found.first() {
                leaks += found.len();
                // Quote the text's own line when one line holds the source, else the source.
                let own = plain
                    .lines()
                    .find(|l| !source.source_lines_in(l).is_empty())
                    .map(quote);
                let message = match (found.len(), own) {
                    (1, Some(line)) => format!("holds a line of sealed test source: `{line}`"),
                    (1, None) => format!(
                        "holds a line of sealed test source, broken over several lines: `{}`",
                        quote(first)
                    ),
                    (n, Some(line)) => format!(
                        "holds {n} lines of sealed test source (a sealed file pasted in?), the first here: `{line}`"
                    ),
                    (n, None) => format!(
                        "holds {n} lines of sealed test source (a sealed file pasted in?), the first: `{}`",
                        quote(first)
                    ),
                };
                self.err(&rules::FEEDBACK_LEAK, p, message);
                continue;
            }
            for line in plain.lines().filter(|l| source.locations_in(l) > 0) {
                located += 1;
                self.warn(
                    &rules::FEEDBACK_LEAK,
                    p,
                    format!("names a place in a sealed test file: `{}`", quote(line)),
                );
            }
        }
        let n = texts.len();
        if leaks > 0 {
            return (
                RequirementVerdict::Failed,
                format!(
                    "{leaks} line{} of sealed source in the report's failure and hardening texts",
                    if leaks == 1 { "" } else { "s" }
                ),
            );
        }
        (
            RequirementVerdict::Verified,
            format!(
                "{n} failure and hardening text{} scanned against {lines} sealed source line{}: none found{}",
                if n == 1 { "" } else { "s" },
                if lines == 1 { "" } else { "s" },
                if located > 0 {
                    format!(" ({located} naming sealed file locations)")
                } else {
                    String::new()
                }
            ),
        )
    }
}
