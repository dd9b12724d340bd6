//! The `gapscore.runner` object: what `gapscore run` saw of the command it ran (issue 19).
//! Evidence no result file holds: the exit status or signal, the time limit, an interruption,
//! when each result file was written, and how the run was isolated.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How `gapscore run` ran the test command, and what it saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct RunnerReport {
    /// The command as run (program, then arguments; no shell).
    pub command: Vec<String>,
    /// When it was started (RFC 3339, UTC).
    #[schemars(extend("format" = "date-time"))]
    pub started_at: String,
    /// How long it ran, in seconds.
    pub duration_secs: f64,
    /// Its exit code, when it exited by itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended it (`SIGKILL`), when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// The `--timeout` was reached and the command's process group was ended.
    pub timed_out: bool,
    /// gapscore was interrupted (Ctrl-C) and passed it on to the command.
    pub interrupted: bool,
    /// Processes the command left running were ended after it exited.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub leftovers_killed: bool,
    /// A process that left the command's process group still held its output open once the
    /// group had ended; gapscore did not wait for it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub output_held_open: bool,
    /// Each result file looked for after the run.
    pub results: Vec<ResultFile>,
    /// Where the command ran: `copy` (a disposable copy of the project) or `inplace`.
    pub isolation: String,
    /// The sandbox it ran in: `bwrap` (bubblewrap: the root read-only, the workspace the only
    /// writable place, the sealed tests read-only, its own PID namespace) or `none`.
    #[serde(default = "no_sandbox")]
    pub sandbox: String,
    /// What was done to isolate the run, one line each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The runners' console summaries read in the command's output (a second channel beside
    /// the result files), one per runner and stream.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub console: Vec<ConsoleSummaryReport>,
    /// `--results -`: results were read from the command's standard output, a stream the code
    /// under test can print to (it can print results that look like the runner's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub results_on_shared_stream: bool,
    /// What `--trust-workspace-runner` let the command load from the workspace (the runner,
    /// or a module of its framework, and its path): empty when the runner resolved outside it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trusted_workspace_runner: Vec<String>,
}

/// A runner's console summary, as read in the command's output (`== 2 failed, 3 passed in
/// 0.1s ==`, `test result: FAILED. 3 passed; 2 failed; ...`, every such line summed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ConsoleSummaryReport {
    /// The runner whose wording it is: `pytest`, `jest`, `vitest`, `go`, `cargo`, `nextest`,
    /// `prove` or `node`.
    pub runner: String,
    /// `stdout` or `stderr`.
    pub stream: String,
    /// How many summary lines were read (cargo prints one per test binary).
    pub lines: u64,
    /// The first few of them, as printed.
    pub quoted: Vec<String>,
    /// Failed (and errored) tests, summed.
    pub failed: u64,
    /// Passed tests, summed, when the runner prints them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed: Option<u64>,
    /// Held against the results read: false when the summary is on the stream read as the
    /// results (`--results -`), or when no result file was read whole.
    pub compared: bool,
}

impl ConsoleSummaryReport {
    /// A summary of `runner` on `stream`, read from `lines` lines.
    pub fn new(runner: impl Into<String>, stream: impl Into<String>, lines: u64) -> Self {
        ConsoleSummaryReport {
            runner: runner.into(),
            stream: stream.into(),
            lines,
            quoted: Vec::new(),
            failed: 0,
            passed: None,
            compared: false,
        }
    }
}

/// One result file, and whether this run wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ResultFile {
    /// The path as given (`-` for the command's standard output), or a file a directory or
    /// pattern led to.
    pub path: String,
    /// When it was last written (RFC 3339, UTC), when it exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub modified: Option<String>,
    /// `fresh` (written during the run: scored), `stale` (written before it: not scored) or
    /// `missing` (not there, or empty standard output: not scored).
    pub freshness: Freshness,
}

impl ResultFile {
    /// A result file and what was found of it.
    pub fn new(path: impl Into<String>, modified: Option<String>, freshness: Freshness) -> Self {
        ResultFile {
            path: path.into(),
            modified,
            freshness,
        }
    }
}

/// Whether a result file is this run's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Freshness {
    /// Written after the command started: scored.
    Fresh,
    /// Last written before the command started: an earlier run's, not scored.
    Stale,
    /// Not there: not scored.
    Missing,
}

impl RunnerReport {
    /// The report of a command run, with no result files yet.
    pub fn new(
        command: Vec<String>,
        started_at: impl Into<String>,
        duration_secs: f64,
        isolation: impl Into<String>,
    ) -> Self {
        RunnerReport {
            command,
            started_at: started_at.into(),
            duration_secs,
            exit_code: None,
            signal: None,
            timed_out: false,
            interrupted: false,
            leftovers_killed: false,
            output_held_open: false,
            results: Vec::new(),
            isolation: isolation.into(),
            sandbox: no_sandbox(),
            notes: Vec::new(),
            console: Vec::new(),
            results_on_shared_stream: false,
            trusted_workspace_runner: Vec::new(),
        }
    }
}

/// A report from before issue 32 ran without a sandbox.
fn no_sandbox() -> String {
    "none".to_owned()
}
