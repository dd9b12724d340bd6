//! The exit codes of every gapscore command, defined once (in the manner of nextest's
//! `NextestExitCode`): the CLI returns [`ExitCode::code`], and the engine's outcomes and errors
//! say which one applies.

/// How a gapscore command ends.
///
/// | code | meaning |
/// |---|---|
/// | 0 | done; a score is within `--threshold`, a checked level holds, a seal matches |
/// | 1 | the answer is "no": the score is above `--threshold` (or hardening must escalate), `check` finds the level does not hold, `seal --verify` finds the directory changed |
/// | 2 | the command could not do its job: a usage error, input that cannot be read, a broken seal `score` refuses, zero sealed tests under `--strict`; never 1 for an error |
/// | 3 | `batch`: some repositories could not be scored (error rows); wins over 1 |
/// | 130 | `run`: gapscore was interrupted (`SIGINT`, Ctrl-C) and passed it on to the command; the report written is marked interrupted; wins over every other code |
/// | 143 | as 130, for `SIGTERM` |
///
/// `run` exits 1 without `--threshold` too when its report is advisory (the sealed suite did
/// not fully run: the runner failed, timed out or was killed, results are missing), unless
/// `--allow-advisory`; `score` stays a reporting command, 0 without `--threshold`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExitCode {
    /// 0: done, and the answer is "yes".
    Ok,
    /// 1: done, and the answer is "no" (threshold exceeded, level not held, seal changed).
    Failed,
    /// 2: the command could not do its job (usage, unreadable input, refused).
    Error,
    /// 3: a batch in which some repositories could not be scored.
    Unscored,
    /// 130 (128 + `SIGINT`): gapscore was interrupted while it ran a command.
    Interrupted,
    /// 143 (128 + `SIGTERM`): gapscore was told to stop while it ran a command.
    Terminated,
}

impl ExitCode {
    /// The process exit status.
    pub const fn code(self) -> u8 {
        match self {
            ExitCode::Ok => 0,
            ExitCode::Failed => 1,
            ExitCode::Error => 2,
            ExitCode::Unscored => 3,
            ExitCode::Interrupted => 130,
            ExitCode::Terminated => 143,
        }
    }

    /// The code for a run that gapscore stopped on receiving signal `sig` (as the shell
    /// reports a process that signal ended: 128 + N): `SIGTERM` is [`ExitCode::Terminated`],
    /// any other [`ExitCode::Interrupted`].
    pub const fn for_signal(sig: i32) -> Self {
        if sig == 15 {
            ExitCode::Terminated
        } else {
            ExitCode::Interrupted
        }
    }
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(c: ExitCode) -> Self {
        std::process::ExitCode::from(c.code())
    }
}
