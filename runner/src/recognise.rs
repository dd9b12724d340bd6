//! Recognisers for well-known failure lines in a runner's output, one table per ecosystem.
//!
//! Only run-level trouble is recognised: a build, a collection or a whole suite that failed to
//! run, or a run that was interrupted, killed, timed out or crashed. Ordinary failing tests are
//! never reported here (the result file has them), and a complete clean run's output gives
//! nothing. The tables, and where each wording was seen, are in `tables.rs` and
//! `docs/run-recognisers.md`.
//!
//! Matching is per line, on the text with ANSI colours removed, by exact phrases anchored where
//! the runner anchors them (no regular expressions), so it stays linear in the output. A line of
//! `go test -json` is read for its `Output` text first.

mod tables;

use std::collections::HashSet;

use gapscore_adapter_sdk::text::strip_ansi;
use gapscore_model::ProblemKind;

use tables::{Entry, TABLES};

/// The longest line kept, in characters; longer lines are cut (with a trailing `…`).
pub const MAX_LINE_CHARS: usize = 300;

/// One recognised line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recognised {
    /// The problem the line stands for.
    pub kind: ProblemKind,
    /// The ecosystem whose table matched (`go`, `jest`, `pytest`, `cargo`, `node`, `prove`, ...).
    pub ecosystem: &'static str,
    /// The line as the runner printed it (trimmed, ANSI colours removed, cut to a sane length).
    pub line: String,
    /// Which stream it was on: `"stdout"` or `"stderr"`.
    pub stream: &'static str,
}

/// The most distinct lines a [`Recogniser`] keeps: a run that prints more (a thousand compiler
/// errors) is already a problem by its first few, and memory stays bounded.
pub const MAX_RECOGNISED: usize = 200;

/// Every recognised line in `stdout` then `stderr`, in order of appearance: whole texts read as
/// [`crate::scan::StreamScanner`] reads a command's streams while `exec` runs it.
///
/// A line is reported once, by the first table (and within it the first entry) that matches.
/// Identical lines (same kind and text) are reported once, even across the two streams. A block
/// of consecutive lines of one block entry (pytest's `INTERNALERROR>` traceback) is reported once,
/// by its last line, which names the error.
pub fn recognise(stdout: &str, stderr: &str) -> Vec<Recognised> {
    let scan = |stream, text: &str| {
        let mut r = Recogniser::new(stream);
        for raw in text.split('\n') {
            each_line(raw, |line| r.line(line));
        }
        r.finish()
    };
    merge(scan("stdout", stdout), scan("stderr", stderr))
}

/// The lines one raw line of output stands for, colours removed, without its line end: itself,
/// or the `Output` text of a `go test -json` event.
pub(crate) fn each_line(raw: &str, mut f: impl FnMut(&str)) {
    let text = strip_ansi(raw);
    let text = text.trim_end_matches('\r');
    match go_json_output(text) {
        Some(output) => {
            for line in strip_ansi(&output).lines() {
                f(line);
            }
        }
        None => f(text),
    }
}

/// Both streams' recognised lines, standard output's first, an identical line (same kind and
/// text) once.
pub fn merge(stdout: Vec<Recognised>, stderr: Vec<Recognised>) -> Vec<Recognised> {
    let mut out = stdout;
    for r in stderr {
        if !out.iter().any(|o| o.kind == r.kind && o.line == r.line) {
            out.push(r);
        }
    }
    out
}

/// Recognises the lines of one stream as they arrive: deduplicates them, folds block entries,
/// and keeps at most [`MAX_RECOGNISED`].
#[derive(Debug)]
pub struct Recogniser {
    stream: &'static str,
    found: Vec<Recognised>,
    seen: HashSet<(ProblemKind, String)>,
    /// An open block: its entry (by address) and its latest line.
    block: Option<(&'static Entry, Recognised)>,
}

impl Recogniser {
    /// A recogniser for the lines of `stream` (`"stdout"` or `"stderr"`).
    pub fn new(stream: &'static str) -> Self {
        Recogniser {
            stream,
            found: Vec::new(),
            seen: HashSet::new(),
            block: None,
        }
    }

    /// Reads one line (colours removed, no line end).
    pub fn line(&mut self, line: &str) {
        let line = line.trim_end();
        let Some((ecosystem, entry)) = find(line) else {
            self.flush();
            return;
        };
        let found = Recognised {
            kind: entry.kind,
            ecosystem,
            line: cut(line.trim()),
            stream: self.stream,
        };
        if entry.pattern.block {
            match &mut self.block {
                Some((open, latest)) if std::ptr::eq(*open, entry) => *latest = found,
                _ => {
                    self.flush();
                    self.block = Some((entry, found));
                }
            }
        } else {
            self.flush();
            self.push(found);
        }
    }

    /// The lines recognised, in order of appearance.
    pub fn finish(mut self) -> Vec<Recognised> {
        self.flush();
        self.found
    }

    /// Closes an open block, reporting its last line.
    fn flush(&mut self) {
        if let Some((_, last)) = self.block.take() {
            self.push(last);
        }
    }

    fn push(&mut self, found: Recognised) {
        if self.found.len() < MAX_RECOGNISED && self.seen.insert((found.kind, found.line.clone())) {
            self.found.push(found);
        }
    }
}

/// The first table entry matching `line` (colours removed, trailing whitespace trimmed).
fn find(line: &str) -> Option<(&'static str, &'static Entry)> {
    TABLES.iter().find_map(|table| {
        table
            .entries
            .iter()
            .find(|entry| entry.pattern.matches(line))
            .map(|entry| (table.ecosystem, entry))
    })
}

/// `line` cut to [`MAX_LINE_CHARS`] characters.
pub(crate) fn cut(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

/// The `Output` text of a `go test -json` event line, or `None` for any other line.
fn go_json_output(line: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Event {
        #[serde(rename = "Output")]
        output: Option<String>,
    }
    let line = line.trim();
    if !line.starts_with("{\"") || !line.contains("\"Output\":") {
        return None;
    }
    serde_json::from_str::<Event>(line).ok()?.output
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_says_where_its_wording_was_seen() {
        for table in TABLES {
            for entry in table.entries {
                assert!(
                    !entry.seen.trim().is_empty() && !entry.pattern.start.is_empty(),
                    "{}: {:?}",
                    table.ecosystem,
                    entry.pattern
                );
            }
        }
    }

    #[test]
    fn colours_are_removed_and_lines_trimmed() {
        let found = recognise(
            "",
            "\u{1b}[1m\u{1b}[31m  ● Test suite failed to run\u{1b}[0m  \r\n",
        );
        assert_eq!(
            found,
            vec![Recognised {
                kind: ProblemKind::SuiteError,
                ecosystem: "jest",
                line: "● Test suite failed to run".to_owned(),
                stream: "stderr",
            }]
        );
    }

    #[test]
    fn long_lines_are_cut_on_a_char_boundary() {
        let long = format!("panic: {}", "é".repeat(1000));
        let found = recognise(&long, "");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].line.chars().count(), MAX_LINE_CHARS + 1);
        assert!(found[0].line.ends_with('…'));
    }

    #[test]
    fn identical_lines_are_reported_once_across_streams() {
        let text = "error: could not compile `x` (lib test) due to 1 previous error\n";
        let found = recognise(&format!("{text}{text}"), text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].stream, "stdout");
    }

    #[test]
    fn a_block_is_reported_by_its_last_line_and_blocks_split_by_other_lines() {
        let out = "INTERNALERROR> Traceback\nINTERNALERROR> RuntimeError: one\nsomething\nINTERNALERROR> RuntimeError: two\n";
        let lines: Vec<_> = recognise(out, "").into_iter().map(|r| r.line).collect();
        assert_eq!(
            lines,
            [
                "INTERNALERROR> RuntimeError: one",
                "INTERNALERROR> RuntimeError: two"
            ]
        );
    }

    #[test]
    fn go_json_output_is_decoded_and_other_json_left_alone() {
        let event =
            r#"{"Action":"output","Package":"p","Output":"panic: test timed out after 1s\n"}"#;
        let found = recognise(event, "");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, ProblemKind::Timeout);
        assert_eq!(found[0].line, "panic: test timed out after 1s");
        assert!(recognise(r#"{"Output": 3}"#, "").is_empty());
        assert!(recognise("{\"Output\":\"panic: x", "").is_empty());
    }

    #[test]
    fn ordinary_failures_are_not_run_problems() {
        let out = "--- FAIL: TestX (0.00s)\nFAIL\texample.com/p\t0.01s\nnot ok 3 - third\n\
                   Failed 1/3 subtests\nDubious, test returned 1 (wstat 256, 0x100)\n\
                   error: test failed, to rerun pass `--lib`\nerror: test run failed\n\
                   FAILED test_x.py::test_y - AssertionError\n FAIL  t/ok.test.js > fails\n";
        assert_eq!(recognise(out, out), vec![]);
    }
}
