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
mod outputs;
mod terminal;

use clap::Parser;
use gapscore_engine::ExitCode;

/// `gapscore batch merge` where `merge` is meant as ROOT (a directory or manifest named
/// `merge`, given without shard directories): clap takes it for the subcommand and fails, so
/// the command line is parsed again with `./merge`. The first error stands when that fails too.
fn merge_as_root(first: clap::Error) -> Result<args::Cli, clap::Error> {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if !first.use_stderr() {
        return Err(first);
    }
    let Some(i) = argv.iter().position(|a| a == "batch") else {
        return Err(first);
    };
    if argv.get(i + 1).is_none_or(|a| a != "merge") || !std::path::Path::new("merge").exists() {
        return Err(first);
    }
    let mut again = argv;
    again[i + 1] = "./merge".into();
    args::Cli::try_parse_from(again).map_err(|_| first)
}

/// `gapscore run --results - prove t/`: the command was not put after `--`, so clap finds an
/// unexpected argument; say where it goes (each `--results` takes one path, so the command is
/// never read as result paths).
fn command_hint(e: &clap::Error) {
    if e.kind() != clap::error::ErrorKind::UnknownArgument {
        return;
    }
    let argv: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let takes_command = argv.iter().any(|a| a == "run")
        || (argv.iter().any(|a| a == "seal") && argv.iter().any(|a| a == "--expect-run"));
    if takes_command && !argv.iter().any(|a| a == "--") {
        io::note(
            "put the test command after `--` (gapscore run --results PATH -- COMMAND ARGS...); each --results takes one path, repeat it for more",
        );
    }
}

/// Parses the command line, runs the command and maps the outcome to an exit code.
pub fn run() -> std::process::ExitCode {
    let cli = match args::Cli::try_parse()
        .or_else(merge_as_root)
        .map_err(args::add_tip)
    {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2).
            let _ = e.print();
            command_hint(&e);
            let code = if e.use_stderr() {
                ExitCode::Error
            } else {
                ExitCode::Ok
            };
            return code.into();
        }
    };
    terminal::init(cli.color, cli.ascii);
    match commands::dispatch(cli) {
        Ok(code) => code.into(),
        Err(e) => {
            io::report_error(&e);
            ExitCode::Error.into()
        }
    }
}
