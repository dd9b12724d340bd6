//! What a score comes to ([`ScoreOutcome`]): a [`Scored`] report with its gate decision and
//! exit code, or a [`Refusal`], never both; and the one line a refusal is told in, the same for
//! `score`, `run` and a `batch` row.

use std::fmt;
use std::path::PathBuf;

use gapscore_core::{Code, GapReport, StepVerdict};
use gapscore_seal::sealed_dir;
use gapscore_seal::verify::Verification;

use crate::error::Error;
use crate::exit::ExitCode;
use crate::gate::GateDecision;
use crate::suite::Diagnostic;

/// Why no report was made.
#[derive(Debug)]
#[non_exhaustive]
pub enum Refusal {
    /// The seal record or the sealed directory could not be read.
    SealUnreadable(Error),
    /// The sealed directory does not match its record (and `allow_broken` was not given).
    BrokenSeal {
        /// The directory.
        dir: PathBuf,
        /// What differs.
        verification: Box<Verification>,
    },
    /// A combined seal (§4.6) does not hold: its hash is not its suites', a suite's record is
    /// not the one it lists, or a suite's directory does not match (and `allow_broken` was not
    /// given). One broken suite breaks the whole seal.
    BrokenSeals {
        /// What is wrong with the records, one sentence each.
        problems: Vec<String>,
        /// The suite directories that do not match their records.
        broken: Vec<(PathBuf, Verification)>,
    },
    /// Sealed files changed during a run (`gapscore run`): their identity (inode, size, mtime,
    /// ctime) differs after it, even where their content hashes as sealed. What changed, in one
    /// line.
    SealedFilesTouched(String),
    /// The category rules could not be read.
    Rules(Error),
    /// Options that cannot be honoured (a `--sealed-hash` that is not the record's, an overlap
    /// threshold out of range) or a history that cannot be read.
    Usage(Error),
    /// Inputs or plugins could not be read (each has an error diagnostic).
    Unreadable {
        /// How many.
        failed: usize,
    },
    /// No sealed test was counted, under `strict`.
    NoSealedTests,
    /// `gapscore run` did not start the command.
    NotRun(RunError),
}

impl Refusal {
    /// The refusal's stable code (`gapscore explain CODE`).
    pub fn code(&self) -> Code {
        match self {
            Refusal::SealUnreadable(_) => Code::SealUnreadable,
            Refusal::BrokenSeal { .. }
            | Refusal::BrokenSeals { .. }
            | Refusal::SealedFilesTouched(_) => Code::BrokenSeal,
            Refusal::Rules(_) => Code::RulesUnreadable,
            Refusal::Usage(_) => Code::UsageRefused,
            Refusal::Unreadable { .. } => Code::InputsUnreadable,
            Refusal::NoSealedTests => Code::NoSealedTestsStrict,
            Refusal::NotRun(e) => e.code(),
        }
    }

    /// The exit code a refusal ends a command with (`score`, `run`; a `batch` row is an error row).
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::Error
    }

    /// The sealed directories that do not match their records, for a caller that lists their
    /// files (`gapscore score` prints each changed, added and removed file).
    pub fn mismatched_dirs(&self) -> Vec<(&std::path::Path, &Verification)> {
        match self {
            Refusal::BrokenSeal { dir, verification } => vec![(dir.as_path(), &**verification)],
            Refusal::BrokenSeals { broken, .. } => {
                broken.iter().map(|(d, v)| (d.as_path(), v)).collect()
            }
            _ => Vec::new(),
        }
    }

    /// What the user can do about it, where a flag of `score` and `run` changes the outcome.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            Refusal::BrokenSeal { .. } | Refusal::BrokenSeals { .. } => {
                Some("pass --allow-broken-seal for an advisory report")
            }
            _ => None,
        }
    }
}

/// One line, the same for every command (`score` and `run` print it, `batch` writes it in the
/// repository's error row).
impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::SealUnreadable(e) | Refusal::Rules(e) | Refusal::Usage(e) => {
                f.write_str(&sealed_dir::chain(e))
            }
            Refusal::BrokenSeal { dir, verification } => write!(
                f,
                "refusing to score against a broken seal: `{}` does not match its seal: {verification}",
                dir.display()
            ),
            Refusal::BrokenSeals { problems, broken } => {
                f.write_str(
                    "refusing to score against a broken combined seal (one suite that does not hold breaks the whole seal)",
                )?;
                let mut sep = ": ";
                for p in problems {
                    write!(f, "{sep}{p}")?;
                    sep = "; ";
                }
                for (dir, verification) in broken {
                    write!(
                        f,
                        "{sep}`{}` does not match its seal: {verification}",
                        dir.display()
                    )?;
                    sep = "; ";
                }
                Ok(())
            }
            Refusal::SealedFilesTouched(what) => {
                write!(f, "refusing to score against a broken seal: {what}")
            }
            Refusal::Unreadable { failed } => {
                let s = if *failed == 1 { "" } else { "s" };
                write!(
                    f,
                    "{failed} input file{s} or plugin{s} could not be read; no report written"
                )
            }
            Refusal::NoSealedTests => {
                f.write_str("no sealed tests were counted (--strict); no report written")
            }
            Refusal::NotRun(e) => f.write_str(&sealed_dir::chain(e)),
        }
    }
}

/// Why the command was not run (a [`Refusal::NotRun`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Files the seal does not hash sit beside the sealed tests (planted bytecode, packages).
    #[error(
        "refusing to start: {} file{} the seal does not hash {} in `{}` ({}); the sealed tests would run beside them (planted bytecode or packages change what they do): remove them first",
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        if files.len() == 1 { "sits" } else { "sit" },
        dir.display(),
        preview(files)
    )]
    PlantedFiles {
        /// The sealed directory.
        dir: PathBuf,
        /// The files, relative to it.
        files: Vec<String>,
    },
    /// The workspace could not be prepared (the copy, a refused runner set-up).
    #[error("cannot prepare the workspace")]
    Workspace(#[source] std::io::Error),
    /// The sandbox asked for does not work here (`--sandbox bwrap`).
    #[error("cannot run in the sandbox")]
    Sandbox(#[source] std::io::Error),
    /// The sealed files could not be made read-only and watched, or looked at after the run.
    #[error("cannot watch the sealed tests in `{}`", dir.display())]
    Watch {
        /// The sealed directory in the workspace.
        dir: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The runner or its framework would be loaded from the workspace (and was not trusted),
    /// or the command's own `HOME`/`TMPDIR` could not be made.
    #[error(transparent)]
    Confine(gapscore_runner::workspace::ConfineError),
    /// The command is a shell given a script (`sh -c 'a; b'`), behind which the runner cannot be
    /// identified, and the run was not told to trust it.
    #[error(
        "refusing to run: `{shell} -c` is given a shell script (`{script}`), behind which gapscore cannot identify the runner, so run's recipes and its check of where the runner resolves would not apply: give the runner's command directly after `--` (one simple command given to `sh -c` is run as its words), or pass --trust-workspace-runner and the report records it"
    )]
    ShellScript {
        /// The shell, as given.
        shell: String,
        /// The script given to `-c`.
        script: String,
    },
    /// The command could not be started (or waited for).
    #[error("cannot run `{program}`")]
    Start {
        /// The program.
        program: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A temporary file or directory of gapscore's own could not be made or entered.
    #[error("{what}")]
    Scratch {
        /// What could not be done.
        what: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl RunError {
    /// Its registry code: [`Code::RunNotStarted`], or the runner's own for a refused runner.
    pub fn code(&self) -> Code {
        match self {
            RunError::Confine(e) => e.code(),
            RunError::ShellScript { .. } => Code::RunnerBehindShell,
            _ => Code::RunNotStarted,
        }
    }
}

fn preview(items: &[String]) -> String {
    let shown: Vec<&str> = items.iter().take(5).map(String::as_str).collect();
    let more = if items.len() > 5 { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

/// A report the engine made, with what goes with it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Scored {
    /// The report.
    pub report: GapReport,
    /// Sealed directories that do not match but were allowed (`allow_broken`): the report is
    /// advisory.
    pub broken_seal: Vec<(PathBuf, Verification)>,
    /// Notes to show once the report is written (advisory, escalation, cut inputs, a failed
    /// gate).
    pub after: Vec<Diagnostic>,
    /// The `--threshold` gate's decision, when a threshold was given (also in the report's
    /// `gapscore.gate`).
    pub gate: Option<GateDecision>,
    /// The engine's final word for a CI step, from the same decision as `exit`
    /// ([`gate::conclude`]): never `passed` beside a non-zero exit.
    pub verdict: StepVerdict,
    /// The exit code: [`gate::conclude`] of the gate's verdict and a hardening escalation.
    pub exit: ExitCode,
    /// The sealed tests that did not fail, when [`crate::ScoreRequest::list_sealed_tests`]
    /// asked for them (the failed ones are the report's failure entries).
    pub listing: Option<gapscore_core::listing::TestListing>,
}

/// What a score came to: a report or a refusal, never both, and the notes that arose on the way.
#[derive(Debug)]
#[non_exhaustive]
pub struct ScoreOutcome {
    /// Notes to show before the report is written, in the order they arose.
    pub diagnostics: Vec<Diagnostic>,
    /// The report, or why there is none.
    pub result: Result<Scored, Refusal>,
    /// gapscore was stopped by a signal while it ran the command (`run`): the exit code it
    /// ends with whatever the report says ([`ExitCode::Interrupted`], 130, or
    /// [`ExitCode::Terminated`], 143). The report, written as far as it went, is advisory.
    pub stopped: Option<ExitCode>,
}

impl ScoreOutcome {
    pub(crate) fn refused(refusal: Refusal, diagnostics: Vec<Diagnostic>) -> Self {
        ScoreOutcome {
            diagnostics,
            result: Err(refusal),
            stopped: None,
        }
    }

    /// The report, unless the score was refused.
    pub fn report(&self) -> Option<&GapReport> {
        self.result.as_ref().ok().map(|s| &s.report)
    }

    /// The refusal, if the score was refused.
    pub fn refusal(&self) -> Option<&Refusal> {
        self.result.as_ref().err()
    }

    /// A refused score in one line, for a place that has one line for it (a `batch` row): the
    /// refusal ([`Refusal`]'s `Display`), or, when inputs could not be read or held no sealed
    /// test, what was wrong with them (the first three error diagnostics; files nothing
    /// recognised are errors too, `InputNotResults`, and explain an empty suite). `None` when a
    /// report was made.
    pub fn refusal_line(&self) -> Option<String> {
        let refusal = self.refusal()?;
        if !matches!(refusal, Refusal::Unreadable { .. } | Refusal::NoSealedTests) {
            return Some(refusal.to_string());
        }
        let causes: Vec<&str> = self
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.message.as_str())
            .collect();
        if causes.is_empty() {
            return Some(refusal.to_string());
        }
        Some(first_causes(&causes))
    }

    /// What the score came to, in one word (a CI step's `verdict` output): the engine's
    /// final word ([`Scored::verdict`], one decision with the exit code), `refused` without a
    /// report.
    pub fn verdict(&self) -> StepVerdict {
        match &self.result {
            // An interrupted run's report never reads as a pass, whatever the gate said.
            Ok(s) if self.stopped.is_some() => match s.verdict {
                StepVerdict::Passed | StepVerdict::Ungated => StepVerdict::Advisory,
                other => other,
            },
            Ok(s) => s.verdict,
            Err(_) => StepVerdict::Refused,
        }
    }

    /// The exit code the command ends with: the signal's ([`ScoreOutcome::stopped`]), else
    /// the refusal's, or the gate's and escalation's.
    pub fn exit(&self) -> ExitCode {
        if let Some(code) = self.stopped {
            return code;
        }
        match &self.result {
            Ok(s) => s.exit,
            Err(r) => r.exit_code(),
        }
    }
}

/// The first three of several causes on one line, `a; b; c (and 2 more)`: how a place with one
/// line for an error (a `batch` row) lists what went wrong.
pub fn first_causes(causes: &[impl AsRef<str>]) -> String {
    let shown: Vec<&str> = causes.iter().take(3).map(AsRef::as_ref).collect();
    match causes.len() {
        n if n > 3 => format!("{} (and {} more)", shown.join("; "), n - 3),
        _ => shown.join("; "),
    }
}
