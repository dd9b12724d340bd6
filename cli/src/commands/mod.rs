//! One module per command.

pub mod adapters;
pub mod batch;
pub mod check;
pub mod completions;
pub mod explain;
pub mod feedback;
pub mod harden;
pub mod new_adapter;
pub mod parse;
pub mod plugin_serve;
pub mod run;
pub mod schema;
pub mod score;
pub mod seal;

use anyhow::Result;
use gapscore_engine::ExitCode;

use crate::args::{Cli, Command};

/// Runs a parsed command; returns the exit code, or an error (exit 2).
pub fn dispatch(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Score(args) => score::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Schema(args) => schema::run(&args),
        Command::Parse(args) => parse::run(&args),
        Command::Adapters(args) => adapters::run(&args),
        Command::Seal(args) => seal::run(&args),
        Command::Feedback(args) => feedback::run(&args),
        Command::Harden(cmd) => harden::run(&cmd),
        Command::Batch(args) => batch::run(args),
        Command::Check(args) => check::run(&args),
        Command::Completions(args) => completions::run(&args),
        Command::Man(args) => completions::man(&args),
        Command::Explain(args) => explain::run(&args),
        Command::NewAdapter(args) => new_adapter::run(&args),
        Command::PluginServe(args) => Ok(plugin_serve::run(&args)),
    }
}
