//! The `gapscore` command line: argument parsing ([`args`]) and one module per command
//! ([`commands`]). No scoring or parsing logic lives here; it calls `gapscore-core` and
//! `gapscore-schema` and does the file I/O.
//!
//! Exit codes: 0 ok, 1 threshold exceeded, 2 usage or input error (never 1 for an error).

#![forbid(unsafe_code)]

pub mod args;
pub mod commands;
mod host;
mod io;

use std::process::ExitCode;

use clap::Parser;

/// Exit code for success.
pub const EXIT_OK: u8 = 0;
/// Exit code when the score exceeds `--threshold`.
pub const EXIT_THRESHOLD: u8 = 1;
/// Exit code for usage and input errors.
pub const EXIT_ERROR: u8 = 2;

/// Parses the command line, runs the command and maps the outcome to an exit code.
pub fn run() -> ExitCode {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_ERROR } else { EXIT_OK });
        }
    };
    match commands::dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            io::report_error(&e);
            ExitCode::from(EXIT_ERROR)
        }
    }
}
