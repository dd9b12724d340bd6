//! `gapscore harden record`: append a validation (read by the engine) to a hardening history.

use anyhow::Result;
use gapscore_core::hardening::HistoryError;
use gapscore_engine::ExitCode;
use gapscore_engine::validation::{load_history, save_history};
use gapscore_seal::digest::canonical_sha256;
use gapscore_seal::plurality::AnyRecord;

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
    history.add_seal_author_families(&args.seal_author_families);
    // The record is read once: its families and its hash.
    let record = match &args.seal {
        Some(path) => Some((path, AnyRecord::read(path)?)),
        None => None,
    };
    if let Some((path, record)) = &record {
        let families = record.author_families();
        if families.is_empty() {
            io::warn(&format!(
                "{}: the seal record names no author family (seal with --author-family): §4.4.2 cannot be checked from it",
                path.display()
            ));
        }
        history.add_seal_author_families(&families);
    }
    let v = host::validation(&args.inputs, args.input_format.clone(), &args.host)?;
    let record_hash = record
        .as_ref()
        .map(|(path, r)| (*path, r.hash().to_owned()));
    let hash = match &args.sealed_hash {
        Some(h) => Some(canonical_sha256(h)?),
        None => v
            .sealed_hash
            .clone()
            .or_else(|| record_hash.as_ref().map(|(_, h)| h.clone())),
    };
    // A cycle recorded under one seal while its record names another would let a history
    // mix validations of different sealed suites under one hash.
    if let (Some((path, from_record)), Some(h)) = (&record_hash, &hash)
        && from_record != h
    {
        io::error(&format!(
            "{}: the cycle's seal hash {h} is not the record's {from_record} ({}); cycle not recorded",
            args.history.display(),
            path.display()
        ));
        return Ok(ExitCode::Error);
    }
    let stamp = humantime::format_rfc3339_seconds(io::report_time()).to_string();
    let cycle = match history.record(
        &v.score,
        stamp,
        args.reveal.map(Into::into),
        hash,
        args.implementer_family.as_deref(),
    ) {
        Ok(c) => c.clone(),
        Err(e @ HistoryError::SealAuthorFamily { .. }) => {
            io::error(&format!(
                "{}: {e}; cycle not recorded",
                args.history.display()
            ));
            return Ok(ExitCode::Error);
        }
        Err(e) => anyhow::bail!("{}: {e}", args.history.display()),
    };
    save_history(&args.history, &history)?;
    io::info(&format!(
        "{}: cycle {} recorded: {}/{} sealed tests failed ({:.1}){}{}",
        args.history.display(),
        cycle.cycle,
        cycle.sealed_failed,
        cycle.sealed_total,
        cycle.score,
        if cycle.cycle == 0 {
            ", the initial_shadow_score"
        } else {
            ""
        },
        cycle
            .implementer_family
            .as_deref()
            .map(|f| format!(", implementer family {f}"))
            .unwrap_or_default()
    ));
    Ok(ExitCode::Ok)
}
