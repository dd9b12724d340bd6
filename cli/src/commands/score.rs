//! `gapscore score`: turn the arguments into a [`ScoreRequest`], score it through the engine,
//! write the report and print the diagnostics.

use anyhow::Result;
use gapscore_core::{OutputFormat, RenderContext, RenderOptions, StatusPolicy};
use gapscore_engine::{ExitCode, Refusal, ScoreRequest, SealInput, score};

use crate::args::{ScoreArgs, ScoreOptions};
use crate::commands::seal::{print_mismatch, print_mismatch_files};
use crate::{host, io, outputs};

/// The request `gapscore score` (and `gapscore run`) makes of the engine for these sealed
/// inputs.
pub(crate) fn request(
    sealed: Vec<std::path::PathBuf>,
    args: &ScoreOptions,
    plugin_failures: usize,
) -> ScoreRequest {
    let mut req = ScoreRequest::new(sealed);
    req.open.clone_from(&args.open);
    req.policy = StatusPolicy::new(args.skipped.into(), args.xfail.into(), args.flaky.into());
    req.categories.clone_from(&args.categories);
    match (&args.seal, &args.sealed_dir) {
        (Some(record), Some(dir)) => {
            let mut seal = SealInput::new(record, dir);
            seal.excludes.clone_from(&args.excludes);
            seal.allow_broken = args.allow_broken_seal;
            req.seal = Some(seal);
        }
        // As in `batch`: the record's hash and expected tests count; the engine warns that no
        // directory was checked, and refuses a combined record.
        (Some(record), None) => req.seal_record_only = Some(record.clone()),
        (None, Some(dir)) => req.skip_dirs.push(dir.clone()),
        (None, None) => {}
    }
    req.trust_unlocated_skips = args.trust_unlocated_skips;
    req.sealed_hash.clone_from(&args.sealed_hash);
    req.history = args.history.clone().zip(args.max_cycles);
    req.overlap = args.overlap.then_some(args.overlap_threshold);
    req.dialect = args.dialect.into();
    req.spec_version = args.v2.spec_version.into();
    req.provenance = args.v2.provenance();
    req.provenance_file.clone_from(&args.v2.declared.provenance);
    req.spec_truncated = args.v2.spec_truncated;
    req.contradictions.clone_from(&args.v2.contradictions);
    req.id.clone_from(&args.id);
    req.timestamp = Some(humantime::format_rfc3339_seconds(io::report_time()).to_string());
    req.specification.clone_from(&args.specification);
    req.ingest = host::ingest_options(&args.host, args.input_format.clone());
    req.spill = true;
    // JUnit lists every sealed test; the others need only the failures.
    req.list_sealed_tests = outputs::writes(args, OutputFormat::Junit);
    req.plugin_failures = plugin_failures;
    req.strict = args.strict;
    req.threshold = args.threshold;
    req.allow_advisory = args.allow_advisory;
    req
}

/// Refuses options that cannot go together before anything is read or run: `--max-failures`
/// with the JSON report, whose `failures` must list every failed sealed test (§5.2; `gapscore
/// check` fails a report whose list is shorter than `sealed_tests.failed`).
pub(crate) fn usage_error(args: &ScoreOptions) -> Option<ExitCode> {
    let format = OutputFormat::from(args.format);
    if let Some(n) = args.max_failures
        && format == OutputFormat::Json
    {
        io::error(&format!(
            "--max-failures {n} cuts only the Markdown and summary formats: the JSON report lists every failed sealed test, as §5.2 requires (gapscore check fails a report whose `failures` is shorter than `sealed_tests.failed`); add --format markdown or --format summary"
        ));
        return Some(ExitCode::Error);
    }
    if let Some(n) = args.max_failures
        && matches!(format, OutputFormat::Github | OutputFormat::Junit)
    {
        io::error(&format!(
            "--max-failures {n} cuts only the Markdown and summary formats: JUnit lists every sealed test, and the GitHub format's annotations are capped by --max-annotations"
        ));
        return Some(ExitCode::Error);
    }
    if let Some(n) = args.max_annotations
        && !outputs::writes(args, OutputFormat::Github)
    {
        io::error(&format!(
            "--max-annotations {n} applies only to the github format (--format github, or --also github=PATH)"
        ));
        return Some(ExitCode::Error);
    }
    if let Some(message) = outputs::usage_error(&outputs::outputs(args)) {
        io::error(&message);
        return Some(ExitCode::Error);
    }
    None
}

/// Runs `gapscore score`.
pub fn run(score_args: &ScoreArgs) -> Result<ExitCode> {
    let args = &score_args.opts;
    if let Some(code) = usage_error(args) {
        return Ok(code);
    }
    if args.allow_truncated {
        io::warn(
            "--allow-truncated is retired: a cut input is a counted problem that makes the report advisory, and exits as any advisory report does (with --threshold, --allow-advisory lets it pass on its score)",
        );
    }
    let (registry, plugin_failures) = host::registry(&args.host);
    let outcome = score(
        &request(score_args.sealed.clone(), args, plugin_failures),
        &registry,
    );
    finish(args, &outcome)
}

/// Prints a score's diagnostics, writes its report and returns its exit code (`score` and
/// `run` alike). A refusal's text and exit code are the engine's.
pub(crate) fn finish(
    args: &ScoreOptions,
    outcome: &gapscore_engine::ScoreOutcome,
) -> Result<ExitCode> {
    let scored = match &outcome.result {
        Ok(scored) => scored,
        Err(refusal) => {
            io::diagnostics_grouped(&outcome.diagnostics, args.verbose);
            print_refusal(refusal);
            outputs::write_refusal(
                &outputs::outputs(args),
                refusal.code(),
                &outcome
                    .refusal_line()
                    .unwrap_or_else(|| refusal.to_string()),
            )?;
            return Ok(outcome.exit());
        }
    };
    for (dir, v) in &scored.broken_seal {
        print_mismatch(dir, v);
    }
    io::diagnostics_grouped(&outcome.diagnostics, args.verbose);
    let report = &scored.report;
    if report.is_v2() && report.report.independence.is_none() {
        io::warn(
            "the spec v2 report does not say whether the implementer and the seal authors are independent: give --implementer-family and --seal-author-family (or --provenance FILE); without them the score cannot be interpreted (§5.2)",
        );
    }
    let render =
        RenderOptions::with_max_failures(args.max_failures).max_annotations(args.max_annotations);
    let workspace = io::github_workspace();
    let ctx = RenderContext::new(scored.listing.as_ref(), workspace.as_deref())
        .with_verdict(outcome.verdict());
    outputs::write_report(&outputs::outputs(args), report, &ctx, &render)?;
    io::diagnostics_grouped(&scored.after, args.verbose);
    Ok(outcome.exit())
}

/// Prints a refusal: the engine's line (with its hint), then the files of each sealed directory
/// that does not match its record.
fn print_refusal(refusal: &Refusal) {
    match refusal.hint() {
        Some(hint) => io::error(&format!("{refusal} ({hint})")),
        None => io::error(&refusal.to_string()),
    }
    let dirs = refusal.mismatched_dirs();
    for (dir, v) in &dirs {
        if dirs.len() > 1 {
            print_mismatch(dir, v);
        } else {
            print_mismatch_files(v);
        }
    }
}
