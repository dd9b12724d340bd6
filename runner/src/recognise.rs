//! Recognisers for well-known failure lines in a runner's output, one table per ecosystem.

use gapscore_model::ProblemKind;

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

/// Every recognised line in `stdout` then `stderr`, in order of appearance.
pub fn recognise(stdout: &str, stderr: &str) -> Vec<Recognised> {
    let _ = (stdout, stderr);
    Vec::new()
}
