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
}

impl ExitCode {
    /// The process exit status.
    pub const fn code(self) -> u8 {
        match self {
            ExitCode::Ok => 0,
            ExitCode::Failed => 1,
            ExitCode::Error => 2,
            ExitCode::Unscored => 3,
        }
    }
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(c: ExitCode) -> Self {
        std::process::ExitCode::from(c.code())
    }
}
