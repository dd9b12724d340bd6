//! The `gapscore` command line: argument parsing ([`args`]) and one module per command
//! ([`commands`]), each turning its arguments into a request for the engine (`gapscore-engine`)
//! or the checker (`gapscore-check`) and printing the outcome. No scoring or parsing logic lives
//! here.
//!
//! Exit codes are defined once, in [`gapscore_engine::ExitCode`]: 0 ok, 1 the answer is "no"
//! (threshold exceeded, level not held, seal changed), 2 usage or input error (never 1 for an
//! error), 3 some batch repositories could not be scored.

#![forbid(unsafe_code)]

pub mod args;
pub mod commands;
mod host;
mod io;

use clap::Parser;
use gapscore_engine::ExitCode;

/// Parses the command line, runs the command and maps the outcome to an exit code.
pub fn run() -> std::process::ExitCode {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2).
            let _ = e.print();
            let code = if e.use_stderr() {
                ExitCode::Error
            } else {
                ExitCode::Ok
            };
            return code.into();
        }
    };
    match commands::dispatch(cli) {
        Ok(code) => code.into(),
        Err(e) => {
            io::report_error(&e);
            ExitCode::Error.into()
        }
    }
}
