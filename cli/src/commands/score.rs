//! `gapscore score`: read sealed (and open) results, score them, write the Gap Report.

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Result, bail};
use gapscore_core::hash::canonical_sha256;
use gapscore_core::simple::{self, SimpleOptions};
use gapscore_core::{
    InputInfo, Normalizer, ReportOptions, StatusPolicy, Tally, build_report, render,
};

use crate::args::ScoreArgs;
use crate::{EXIT_ERROR, EXIT_OK, EXIT_THRESHOLD, io};

/// Runs `gapscore score`.
pub fn run(args: ScoreArgs) -> Result<u8> {
    let policy = StatusPolicy::new(args.skipped.into(), args.xfail.into(), args.flaky.into());
    let sealed_hash = args
        .sealed_hash
        .as_deref()
        .map(canonical_sha256)
        .transpose()?;

    let mut inputs = Vec::new();
    let mut failed_files = 0usize;
    let sealed = tally_files(
        "sealed",
        &args.sealed,
        policy,
        &mut inputs,
        &mut failed_files,
    );
    let open = (!args.open.is_empty())
        .then(|| tally_files("open", &args.open, policy, &mut inputs, &mut failed_files));
    if failed_files > 0 {
        bail!(
            "{failed_files} input file{} could not be read; no report written",
            if failed_files == 1 { "" } else { "s" }
        );
    }

    for w in &sealed.warnings {
        io::warn(w);
    }
    if let Some(o) = &open {
        for w in &o.warnings {
            io::warn(&format!("open: {w}"));
        }
    }
    for id in &sealed.duplicates {
        io::warn(&format!(
            "sealed test id `{id}` occurs more than once; every entry is counted"
        ));
    }
    let score = sealed.score();
    if score.total == 0 {
        if args.strict {
            io::error("no sealed tests were counted (--strict); no report written");
            return Ok(EXIT_ERROR);
        }
        io::warn(
            "no sealed tests were counted: the report says 0.0 but is advisory (use --strict to fail instead)",
        );
    }

    let timestamp = report_time();
    let stamp = humantime::format_rfc3339_seconds(timestamp).to_string();
    let mut opts = ReportOptions::default();
    opts.dialect = args.dialect.into();
    opts.id = Some(args.id.unwrap_or_else(|| default_id(&stamp)));
    opts.timestamp = Some(stamp);
    opts.specification = args.specification;
    opts.sealed_hash = sealed_hash;
    opts.inputs = inputs;
    let report = build_report(&sealed, open.as_ref(), &opts);
    let text = render(&report, args.format.into());
    io::write_output(args.output.as_deref(), &text)?;

    if let Some(reason) = &report.report.advisory_reason {
        io::warn(&format!("advisory report: {reason}"));
    }
    Ok(match args.threshold {
        Some(t) if score.exceeds(t) => EXIT_THRESHOLD,
        _ => EXIT_OK,
    })
}

/// Reads and scores every file of one suite into a tally. Each unreadable file is reported on
/// stderr and counted; the others are still read so every error is shown in one run.
fn tally_files(
    role: &str,
    paths: &[PathBuf],
    policy: StatusPolicy,
    inputs: &mut Vec<InputInfo>,
    failed: &mut usize,
) -> Tally {
    let mut tally = Tally::new(policy);
    for path in paths {
        let shown = path.display().to_string();
        let bytes = match io::read_input(path) {
            Ok(b) => b,
            Err(e) => {
                io::error(&format!("{shown}: {e} ({role} results)"));
                *failed += 1;
                continue;
            }
        };
        tally.set_source(Some(shown.clone()));
        let mut sink = Normalizer::new(&mut tally);
        let result = simple::parse(&bytes, &SimpleOptions::default(), &mut sink);
        sink.finish();
        match result {
            Ok(()) => inputs.push(InputInfo::new(role, shown, simple::FORMAT_ID)),
            Err(e) => {
                // `file:line:col: message`, the form editors and CI annotators understand.
                let sep = if e.location().is_some() { ":" } else { ": " };
                io::error(&format!("{shown}{sep}{e} ({role} results)"));
                *failed += 1;
            }
        }
    }
    tally.finish();
    tally
}

/// The report time: `SOURCE_DATE_EPOCH` when set (reproducible output), otherwise now.
fn report_time() -> SystemTime {
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map_or_else(SystemTime::now, |secs| {
            UNIX_EPOCH + Duration::from_secs(secs)
        })
}

/// `run-YYYYMMDD-HHMMSS` from an RFC 3339 UTC stamp, in the style of the spec's example id.
fn default_id(stamp: &str) -> String {
    let digits: String = stamp.chars().filter(char::is_ascii_digit).collect();
    match (digits.get(..8), digits.get(8..14)) {
        (Some(d), Some(t)) => format!("run-{d}-{t}"),
        _ => format!("run-{digits}"),
    }
}
