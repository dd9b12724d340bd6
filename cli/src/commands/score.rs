//! `gapscore score`: read sealed (and open) results, score them, write the Gap Report.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Result, bail};
use gapscore_adapters::Registry;
use gapscore_adapters::score::{Diagnostic, SuiteOptions, tally_suite};
use gapscore_core::categories::{CategoryRules, RulesError};
use gapscore_core::failures::DEFAULT_BUDGET;
use gapscore_core::hardening::{DEFAULT_OVERLAP_THRESHOLD, hardening_from, overlap};
use gapscore_core::hash::canonical_sha256;
use gapscore_core::{
    InputInfo, Manifest, ReportOptions, SealCheck, Spill, StatusPolicy, Tally, build_report,
    render_to,
};

use crate::args::ScoreArgs;
use crate::commands::{harden, seal};
use crate::{EXIT_ERROR, EXIT_OK, EXIT_THRESHOLD, host, io};

/// Runs `gapscore score`.
pub fn run(args: ScoreArgs) -> Result<u8> {
    let policy = StatusPolicy::new(args.skipped.into(), args.xfail.into(), args.flaky.into());
    let sealed_hash = args
        .sealed_hash
        .as_deref()
        .map(canonical_sha256)
        .transpose()?;
    // The seal is checked before anything is read: a broken seal means the results may be
    // those of other tests than the sealed ones.
    let mut seal_check = SealCheck::NotChecked;
    let mut manifest = None;
    let mut sealed_hash = sealed_hash;
    if let (Some(record_path), Some(dir)) = (&args.seal, &args.sealed_dir) {
        let text = std::fs::read_to_string(record_path).map_err(|e| {
            anyhow::anyhow!(
                "cannot read seal record `{}`: {}",
                record_path.display(),
                gapscore_adapters::io_reason(&e)
            )
        })?;
        let record = seal::load_record(record_path, &text)?;
        let expected = seal::Expected::Record(Box::new(record.clone()));
        let check = seal::check(dir, &expected, None, None, false, &args.excludes)?;
        if check.intact() {
            seal_check = SealCheck::Intact;
        } else {
            seal::print_mismatch(dir, &check);
            if !args.allow_broken_seal {
                io::error(
                    "refusing to score against a broken seal (pass --allow-broken-seal for an advisory report)",
                );
                return Ok(EXIT_ERROR);
            }
            seal_check = SealCheck::Broken(check.summary());
        }
        if sealed_hash.as_ref().is_some_and(|h| *h != record.hash) {
            bail!("--sealed-hash differs from the --seal record's hash; give one of them");
        }
        sealed_hash = Some(record.hash.clone());
        manifest = record
            .expected_tests
            .map(|ids| Arc::new(Manifest::new(ids)));
    }
    let rules = match &args.categories {
        None => None,
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                anyhow::anyhow!(
                    "cannot read category rules `{}`: {}",
                    path.display(),
                    gapscore_adapters::io_reason(&e)
                )
            })?;
            let rules = CategoryRules::from_toml(&text).map_err(|e| match e {
                RulesError::Syntax { location, message } => {
                    anyhow::anyhow!("{}:{location}: {message}", path.display())
                }
                other => anyhow::anyhow!("{}: {other}", path.display()),
            })?;
            Some(Arc::new(rules))
        }
    };
    let (registry, plugin_failures) = host::registry(&args.host);

    let mut inputs = Vec::new();
    let mut failed_files = plugin_failures;
    let mut cut = Vec::new();
    let mut sealed = tally_suite_cli(
        "sealed",
        &args.sealed,
        &registry,
        &args,
        &Setup {
            policy,
            manifest: manifest.clone(),
            rules: rules.clone(),
            names: args.overlap,
        },
        &mut inputs,
        &mut failed_files,
        &mut cut,
    );
    sealed.apply_manifest();
    if !sealed.missing.is_empty() {
        io::warn(&format!(
            "{} expected sealed test{} did not run (each counted as failed): {}",
            sealed.missing.len(),
            if sealed.missing.len() == 1 { "" } else { "s" },
            preview(&sealed.missing)
        ));
    }
    if !sealed.unexpected.is_empty() {
        io::warn(&format!(
            "{} sealed result{} for tests the seal record does not list (renamed or injected; not counted): {}",
            sealed.unexpected.len(),
            if sealed.unexpected.len() == 1 {
                " is"
            } else {
                "s are"
            },
            preview(&sealed.unexpected)
        ));
    }
    let open = (!args.open.is_empty()).then(|| {
        tally_suite_cli(
            "open",
            &args.open,
            &registry,
            &args,
            &Setup {
                policy,
                manifest: None,
                rules: rules.clone(),
                names: args.overlap,
            },
            &mut inputs,
            &mut failed_files,
            &mut cut,
        )
    });
    if failed_files > 0 {
        bail!(
            "{failed_files} input file{} or plugin{} could not be read; no report written",
            if failed_files == 1 { "" } else { "s" },
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

    let timestamp = io::report_time();
    let stamp = humantime::format_rfc3339_seconds(timestamp).to_string();
    let mut opts = ReportOptions::default();
    opts.dialect = args.dialect.into();
    opts.id = Some(args.id.clone().unwrap_or_else(|| default_id(&stamp)));
    opts.timestamp = Some(stamp);
    opts.specification = args.specification.clone();
    opts.sealed_hash = sealed_hash;
    opts.inputs = inputs;
    opts.seal = seal_check;
    if let (Some(path), Some(max)) = (&args.history, args.max_cycles) {
        let history = harden::load_history(path)?;
        match hardening_from(&history, &score, max) {
            Some(h) => {
                if let Some(m) = &h.mismatch {
                    io::warn(m);
                }
                opts.hardening = Some(h);
            }
            None => io::warn(&format!(
                "{}: no cycles recorded yet; the report has no `hardening` object",
                path.display()
            )),
        }
    }
    if args.overlap
        && let Some(o) = &open
    {
        let threshold = args.overlap_threshold.unwrap_or(DEFAULT_OVERLAP_THRESHOLD);
        if !(0.0..=1.0).contains(&threshold) {
            bail!("--overlap-threshold must be between 0 and 1, not {threshold}");
        }
        opts.overlap = Some(overlap(&sealed.names, &o.names, threshold));
    }
    let report = build_report(&sealed, open.as_ref(), &opts);
    let format = args.format.into();
    io::write_output_with(args.output.as_deref(), &mut |w| {
        render_to(&report, format, w)
    })?;

    if let Some(reason) = &report.report.advisory_reason {
        io::warn(&format!("advisory report: {reason}"));
    }
    let escalate = report
        .hardening
        .as_ref()
        .and_then(|h| h.escalation.as_deref());
    if let Some(e) = escalate {
        io::warn(e);
    }
    if !cut.is_empty() && !args.allow_truncated {
        io::error(&format!(
            "{} cut off ({}); the report counts each cut as a failure; pass --allow-truncated to exit 0",
            if cut.len() == 1 {
                "an input file was"
            } else {
                "input files were"
            },
            cut.join(", ")
        ));
        return Ok(EXIT_ERROR);
    }
    Ok(match args.threshold {
        Some(t) if score.exceeds(t) => EXIT_THRESHOLD,
        _ if escalate.is_some() => EXIT_THRESHOLD,
        _ => EXIT_OK,
    })
}

/// How the tallies of one suite are made.
struct Setup {
    policy: StatusPolicy,
    manifest: Option<Arc<Manifest>>,
    rules: Option<Arc<CategoryRules>>,
    /// Keep test names (for the overlap ratio).
    names: bool,
}

/// Scores one suite through the host's [`tally_suite`], printing its diagnostics in order and
/// collecting its inputs, failures and cut files.
#[allow(clippy::too_many_arguments)] // One call site; a struct would only rename the list.
fn tally_suite_cli(
    role: &str,
    paths: &[PathBuf],
    registry: &Registry,
    args: &ScoreArgs,
    setup: &Setup,
    inputs: &mut Vec<InputInfo>,
    failed: &mut usize,
    cut: &mut Vec<String>,
) -> Tally {
    let mut opts = SuiteOptions::new(setup.policy);
    opts.manifest = setup.manifest.clone();
    opts.rules = setup.rules.clone();
    opts.names = setup.names;
    opts.ingest = host::ingest_options(&args.host, args.input_format.clone());
    // Failure entries past a budget go to a temporary file: memory stays bounded.
    opts.spill = Some(Spill::new(DEFAULT_BUDGET, Arc::new(tempfile::tempfile)));
    let suite = tally_suite(registry, role, paths, &opts);
    for d in &suite.diagnostics {
        match d {
            Diagnostic::Error(m) => io::error(m),
            Diagnostic::Warning(m) => io::warn(m),
        }
    }
    *failed += suite.failed;
    inputs.extend(suite.inputs);
    cut.extend(suite.cut);
    suite.tally
}

/// The first few items of a list, for a one-line message.
fn preview(items: &[String]) -> String {
    let shown: Vec<&str> = items.iter().take(5).map(String::as_str).collect();
    match items.len() {
        n if n > 5 => format!("{} and {} more", shown.join(", "), n - 5),
        _ => shown.join(", "),
    }
}

/// `run-YYYYMMDD-HHMMSS` from an RFC 3339 UTC stamp, in the style of the spec's example id.
fn default_id(stamp: &str) -> String {
    let digits: String = stamp.chars().filter(char::is_ascii_digit).collect();
    match (digits.get(..8), digits.get(8..14)) {
        (Some(d), Some(t)) => format!("run-{d}-{t}"),
        _ => format!("run-{digits}"),
    }
}
