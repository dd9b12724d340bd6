//! `gapscore harden record`: append a validation to a hardening history. Also reads a
//! validation (a Gap Report or result files) for `gapscore feedback`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use gapscore_adapters::{Outcome, expand_inputs, ingest};
use gapscore_core::feedback::FailureInput;
use gapscore_core::hardening::History;
use gapscore_core::hash::canonical_sha256;
use gapscore_core::{Category, Score, StatusPolicy, Tally};
use serde_json::Value;

use crate::args::{HardenCommand, HardenRecordArgs, HostArgs};
use crate::{EXIT_OK, host, io};

/// One validation of the sealed suite: its failures and score.
#[derive(Debug)]
pub struct Validation {
    /// Failure entries, run-level problems included.
    pub failures: Vec<FailureInput>,
    /// The score.
    pub score: Score,
    /// The report's `sealed_hash`, when read from a report.
    pub sealed_hash: Option<String>,
}

/// Reads a validation: one Gap Report (any tool's, either dialect), or sealed result files in
/// any format, scored under the default status policy.
pub fn load_validation(
    inputs: &[PathBuf],
    input_format: Option<String>,
    host_args: &HostArgs,
) -> Result<Validation> {
    if let [one] = inputs
        && let Some(v) = read_report(one)?
    {
        return Ok(v);
    }
    let (registry, plugin_failures) = host::registry(host_args);
    if plugin_failures > 0 {
        bail!("a plugin could not be loaded");
    }
    let (expanded, errors) = expand_inputs(inputs);
    let mut failed = errors.len();
    for e in errors {
        io::error(&e.to_string());
    }
    let policy = StatusPolicy::default();
    let mut tally = Tally::new(policy);
    for o in ingest(
        &registry,
        &expanded,
        &host::ingest_options(host_args, input_format),
        |source, _| {
            let mut t = Tally::new(policy);
            t.set_source(Some(source.to_owned()));
            t
        },
    ) {
        match o {
            Outcome::Parsed(mut p) => {
                p.consumer.finish();
                tally.merge(p.consumer);
            }
            Outcome::Skipped { path, reason } => io::warn(&format!("{path}: skipped: {reason}")),
            Outcome::Failed(e) => {
                io::error(&e.to_string());
                failed += 1;
            }
        }
    }
    if failed > 0 {
        bail!(
            "{failed} input{} could not be read",
            if failed == 1 { "" } else { "s" }
        );
    }
    tally.finish();
    Ok(Validation {
        score: tally.score(),
        failures: tally
            .failures
            .iter()
            .map(|f| FailureInput {
                name: f.test_name.clone(),
                category: Some(f.category),
                expected: f.expected.clone(),
                actual: f.actual.clone(),
                message: f.message.clone(),
            })
            .collect(),
        sealed_hash: None,
    })
}

/// A Gap Report, when the file is one: a JSON object with `sealed_tests` and `failures`.
fn read_report(path: &Path) -> Result<Option<Validation>> {
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(None); // Not a readable file: let the result reader report it.
    };
    let Ok(doc) = serde_json::from_slice::<Value>(&bytes) else {
        return Ok(None);
    };
    let (Some(counts), Some(list)) = (doc.get("sealed_tests"), doc.get("failures")) else {
        return Ok(None);
    };
    let shown = path.display();
    let number = |key: &str| -> Result<u64> {
        let v = &counts[key];
        v.as_u64()
            .or_else(|| {
                v.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                    .map(|f| f as u64)
            })
            .with_context(|| format!("{shown}: /sealed_tests/{key} is not a count"))
    };
    let (total, failed) = (number("total")?, number("failed")?);
    if failed > total {
        bail!("{shown}: /sealed_tests says {failed} failed of {total}");
    }
    let Some(items) = list.as_array() else {
        bail!("{shown}: /failures is not an array");
    };
    let text = |f: &Value, key: &str| f.get(key).and_then(Value::as_str).map(str::to_owned);
    let failures = items
        .iter()
        .map(|f| FailureInput {
            name: text(f, "test_name").unwrap_or_else(|| "(unnamed)".to_owned()),
            category: text(f, "category").and_then(|c| Category::parse_lenient(&c)),
            expected: text(f, "expected").filter(|s| !s.is_empty()),
            actual: text(f, "actual").filter(|s| !s.is_empty()),
            message: text(f, "message").filter(|s| !s.is_empty()),
        })
        .collect();
    let sealed_hash = doc
        .pointer("/report/sealed_hash")
        .and_then(Value::as_str)
        .and_then(|h| canonical_sha256(h).ok());
    Ok(Some(Validation {
        failures,
        score: Score::new(failed, total),
        sealed_hash,
    }))
}

/// Runs `gapscore harden ...`.
pub fn run(cmd: &HardenCommand) -> Result<u8> {
    match cmd {
        HardenCommand::Record(args) => record(args),
    }
}

/// Reads a history file; a missing file is an empty history.
pub fn load_history(path: &Path) -> Result<History> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(History::default()),
        Err(e) => bail!(
            "cannot read history `{}`: {}",
            path.display(),
            gapscore_adapters::io_reason(&e)
        ),
    };
    let history: History = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}:{}:{}: not a hardening history: {e}",
            path.display(),
            e.line(),
            e.column()
        )
    })?;
    if history.gapscore_history != History::VERSION {
        bail!(
            "{}: history version {} is not supported (this gapscore reads version {})",
            path.display(),
            history.gapscore_history,
            History::VERSION
        );
    }
    Ok(history)
}

fn record(args: &HardenRecordArgs) -> Result<u8> {
    let mut history = load_history(&args.history)?;
    let v = load_validation(&args.inputs, args.input_format.clone(), &args.host)?;
    let hash = match &args.sealed_hash {
        Some(h) => Some(canonical_sha256(h)?),
        None => v.sealed_hash.clone(),
    };
    let stamp = humantime::format_rfc3339_seconds(io::report_time()).to_string();
    let cycle = history
        .record(&v.score, stamp, args.reveal.map(Into::into), hash)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.history.display()))?
        .clone();
    let mut text = serde_json::to_string_pretty(&history)?;
    text.push('\n');
    io::write_output(Some(&args.history), &text)?;
    io::info(&format!(
        "{}: cycle {} recorded: {}/{} sealed tests failed ({:.1})",
        args.history.display(),
        cycle.cycle,
        cycle.sealed_failed,
        cycle.sealed_total,
        cycle.score
    ));
    Ok(EXIT_OK)
}
