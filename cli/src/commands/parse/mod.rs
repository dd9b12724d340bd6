//! `gapscore parse`: read result files in any format and print the canonical runs (or CTRF).

use std::path::PathBuf;

use anyhow::{Result, bail};
use gapscore_adapter_ctrf::to_ctrf;
use gapscore_adapters::{Outcome, expand_inputs, ingest};
use gapscore_core::RunCollector;
use gapscore_engine::ExitCode;

use crate::args::{ParseArgs, ParseOutput};
use crate::{host, io};

/// What `parse` was asked for, once the old spellings are read: the input format, the output
/// format and the output file.
struct Request {
    input_format: Option<String>,
    format: ParseOutput,
    output: Option<PathBuf>,
}

/// Reads the flags, old spellings included: `--format ID` with an input format (before
/// `--input-format`), `--output json|ctrf` (before `--format`) and `--out FILE` (before
/// `--output`), each with a warning naming the flag that replaces it.
fn request(args: &ParseArgs) -> Result<Request> {
    let output_format = |s: &str| match s {
        "json" => Some(ParseOutput::Json),
        "ctrf" => Some(ParseOutput::Ctrf),
        _ => None,
    };
    let mut input_format = args.input_format.clone();
    let mut format = None;
    if let Some(f) = &args.format {
        match output_format(f) {
            Some(o) => format = Some(o),
            None if input_format.is_none() => {
                io::warn(&format!(
                    "`parse --format {f}`: --format is the output format (json, ctrf); read as `--input-format {f}`, the flag to use"
                ));
                input_format = Some(f.clone());
            }
            None => bail!("--format is the output format: `json` or `ctrf`, not `{f}`"),
        }
    }
    let mut output = args.output.clone();
    if let Some(o) = &args.output
        && let Some(f) = o.to_str().and_then(output_format)
        && format.is_none()
    {
        io::warn(&format!(
            "`parse --output {}`: --output is the output file; read as `--format {}`, the flag to use (`-o ./{}` writes a file of that name)",
            o.display(),
            o.display(),
            o.display()
        ));
        format = Some(f);
        output = None;
    }
    if let Some(o) = &args.out {
        if output.is_some() {
            bail!("give the output file once: `-o/--output FILE` (`--out` is its old spelling)");
        }
        io::warn("`parse --out FILE`: use `-o/--output FILE`");
        output = Some(o.clone());
    }
    Ok(Request {
        input_format,
        format: format.unwrap_or(ParseOutput::Json),
        output,
    })
}

/// Prints every run that could be read, in input order; reports every file that could not on
/// stderr and then exits 2. With `-o OUT`, a file that could not be read means no output file.
pub fn run(args: &ParseArgs) -> Result<ExitCode> {
    let req = request(args)?;
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
        &host::ingest_options(&args.host, req.input_format.clone()),
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
    let value = match req.format {
        ParseOutput::Json => serde_json::to_value(&runs)?,
        ParseOutput::Ctrf => to_ctrf(&runs),
    };
    let mut text = serde_json::to_string_pretty(&value)?;
    text.push('\n');
    let unreadable = failed + plugin_failures;
    match &req.output {
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
