//! `gapscore parse`: read result files in any format and print the canonical runs (or CTRF).

use anyhow::Result;
use gapscore_adapter_ctrf::to_ctrf;
use gapscore_adapters::{Outcome, expand_inputs, ingest};
use gapscore_core::RunCollector;
use gapscore_engine::ExitCode;

use crate::args::{ParseArgs, ParseOutput};
use crate::{host, io};

/// Prints every run that could be read, in input order; reports every file that could not on
/// stderr and then exits 2. With `-o OUT`, a file that could not be read means no output file.
pub fn run(args: &ParseArgs) -> Result<ExitCode> {
    let (registry, plugin_failures) = host::registry(&args.host);
    let (inputs, mut failed) = {
        let (inputs, errors) = expand_inputs(&args.files);
        for e in &errors {
            io::error(&e.to_string());
        }
        (inputs, errors.len())
    };
    let outcomes = ingest(
        &registry,
        &inputs,
        &host::ingest_options(&args.host, args.format.clone()),
        |source, format| RunCollector::new(format, Some(source.to_owned())),
    );
    let mut runs = Vec::new();
    for o in outcomes {
        match o {
            Outcome::Parsed(p) => runs.push(p.consumer.into_run()),
            Outcome::Skipped { path, reason } => io::warn(&format!("{path}: skipped: {reason}")),
            Outcome::LeftOut { path, reason } => io::warn(&format!("{path}: not read: {reason}")),
            Outcome::Failed(e) => {
                io::error(&e.to_string());
                failed += 1;
            }
        }
    }
    for run in &runs {
        for w in &run.warnings {
            io::warn(&format!(
                "{}: {w}",
                run.source.as_deref().unwrap_or("input")
            ));
        }
    }
    let value = match args.output {
        ParseOutput::Json => serde_json::to_value(&runs)?,
        ParseOutput::Ctrf => to_ctrf(&runs),
    };
    let mut text = serde_json::to_string_pretty(&value)?;
    text.push('\n');
    let unreadable = failed + plugin_failures;
    match &args.out {
        // A file missing some inputs would pass for the whole result: none is written, as
        // `score` writes no report. Standard output still shows what could be read.
        Some(out) if unreadable > 0 => io::error(&format!(
            "{unreadable} input file{} or plugin{} could not be read; `{}` not written",
            if unreadable == 1 { "" } else { "s" },
            if unreadable == 1 { "" } else { "s" },
            out.display()
        )),
        out => io::write_output(out.as_deref(), &text)?,
    }
    let cut: Vec<&str> = runs
        .iter()
        .filter(|r| {
            r.problems
                .iter()
                .any(|p| p.kind == gapscore_core::ProblemKind::Truncated)
        })
        .map(|r| r.source.as_deref().unwrap_or("input"))
        .collect();
    if !cut.is_empty() && !args.allow_truncated {
        io::error(&format!(
            "cut off, read up to the cut: {}; pass --allow-truncated to exit 0",
            cut.join(", ")
        ));
        failed += 1;
    }
    Ok(if failed > 0 || plugin_failures > 0 {
        ExitCode::Error
    } else {
        ExitCode::Ok
    })
}
