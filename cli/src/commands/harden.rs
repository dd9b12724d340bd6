//! `gapscore harden record`: append a validation (read by the engine) to a hardening history.

use anyhow::Result;
use gapscore_core::hash::canonical_sha256;
use gapscore_engine::ExitCode;
use gapscore_engine::validation::{load_history, save_history};

use crate::args::{HardenCommand, HardenRecordArgs};
use crate::{host, io};

/// Runs `gapscore harden ...`.
pub fn run(cmd: &HardenCommand) -> Result<ExitCode> {
    match cmd {
        HardenCommand::Record(args) => record(args),
    }
}

fn record(args: &HardenRecordArgs) -> Result<ExitCode> {
    let mut history = load_history(&args.history)?;
    let v = host::validation(&args.inputs, args.input_format.clone(), &args.host)?;
    let hash = match &args.sealed_hash {
        Some(h) => Some(canonical_sha256(h)?),
        None => v.sealed_hash.clone(),
    };
    let stamp = humantime::format_rfc3339_seconds(io::report_time()).to_string();
    let cycle = history
        .record(&v.score, stamp, args.reveal.map(Into::into), hash)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.history.display()))?
        .clone();
    save_history(&args.history, &history)?;
    io::info(&format!(
        "{}: cycle {} recorded: {}/{} sealed tests failed ({:.1})",
        args.history.display(),
        cycle.cycle,
        cycle.sealed_failed,
        cycle.sealed_total,
        cycle.score
    ));
    Ok(ExitCode::Ok)
}
