//! `gapscore seal`: hash a sealed test directory and write its seal record, or verify a
//! directory against a record or a hash, through the one seal verification
//! (`gapscore_seal::verify`). Also prints what differs for `score --seal`.

use std::collections::BTreeSet;
use std::path::Path;

use std::time::Duration;

use anyhow::{Context, Result, bail};
use gapscore_engine::ExitCode;
use gapscore_engine::expect_run::{ExpectRunRequest, expected_ids_from_run};
use gapscore_engine::expected_tests::expected_ids;
use gapscore_runner::exec::install_interrupt_handlers;
use gapscore_seal::dir_hash::HashMode;
use gapscore_seal::plurality;
use gapscore_seal::record::likely_harmless;
use gapscore_seal::sealing::{SealRequest, seal_dir};
use gapscore_seal::verify::{Verification, VerifyOptions, load_expected, verify_dir};

use crate::args::{EmitArg, SealArgs};
use crate::{host, io};

/// Runs `gapscore seal`.
pub fn run(args: &SealArgs) -> Result<ExitCode> {
    if !args.combine.is_empty() {
        return combine(args);
    }
    let Some(dir) = &args.dir else {
        bail!("a sealed directory (DIR) is needed");
    };
    match &args.verify {
        Some(against) => verify(args, dir, against),
        None => seal(args, dir),
    }
}

fn combine(args: &SealArgs) -> Result<ExitCode> {
    let stamp = humantime::format_rfc3339_seconds(io::report_time()).to_string();
    let c = plurality::combine(&args.combine, args.contradictions.as_deref(), stamp)?;
    let mut text = serde_json::to_string_pretty(&c)?;
    text.push('\n');
    io::write_output(args.output.as_deref(), &text)?;
    let families: Vec<&str> = c.suites.iter().map(|s| s.author_family.as_str()).collect();
    io::info(&format!(
        "combined {} sealed suites ({}): {}",
        c.suites.len(),
        families.join(", "),
        c.hash
    ));
    if let Some(a) = &c.spec_ambiguity {
        io::info(&format!(
            "spec ambiguity: {} of {} acceptance criteria contradict ({:.3})",
            a.contradicting_acceptance_criteria, a.total_acceptance_criteria, a.value
        ));
    }
    Ok(ExitCode::Ok)
}

/// Reports the canary of a verification: the mount's atime caveat as a warning, a read as an
/// error line. True when the canary was read.
pub fn report_canary(c: &Verification) -> bool {
    let Some(check) = &c.canary else {
        return false;
    };
    if let Some(w) = check.policy.warning(&check.mount) {
        io::warn(&w);
    }
    match check.problem() {
        Some(p) => {
            io::error(&p);
            true
        }
        None => false,
    }
}

fn seal(args: &SealArgs, dir: &Path) -> Result<ExitCode> {
    let stamp = humantime::format_rfc3339_seconds(io::report_time()).to_string();
    let mut req = SealRequest::new(dir, stamp);
    req.canary = args
        .canary
        .as_ref()
        .map(|c| (!c.is_empty()).then(|| c.clone()));
    req.author_family.clone_from(&args.author_family);
    req.excludes.clone_from(&args.excludes);
    req.mode = args.mode.map_or(HashMode::Strict, Into::into);
    req.locale_order = args.locale_order;
    req.hash_as.clone_from(&args.hash_as);
    req.output.clone_from(&args.output);
    // The expected tests are listed before the directory is touched: a stub run that cannot be
    // used refuses the seal before a canary is written into the sealed directory.
    if args.expect_run {
        match expect_run(args, dir)? {
            Ok(ids) => req.expected_tests = Some(ids),
            Err(code) => return Ok(code),
        }
    } else if !args.expect.is_empty() {
        let (registry, plugin_failures) = host::registry(&args.host);
        if plugin_failures > 0 {
            bail!("a plugin could not be loaded; no seal written");
        }
        let ingest = host::ingest_options(&args.host, args.input_format.clone());
        let (ids, diagnostics) = expected_ids(&registry, &args.expect, &ingest);
        io::diagnostics(&diagnostics);
        let Some(ids) = ids else {
            return Ok(ExitCode::Error);
        };
        if ids.is_empty() {
            bail!("the --expect files hold no tests; no seal written");
        }
        io::info(&format!(
            "recorded {} expected sealed test{}",
            ids.len(),
            if ids.len() == 1 { "" } else { "s" }
        ));
        req.expected_tests = Some(ids);
    }
    let sealed = seal_dir(&req)?;
    for (_, w) in &sealed.warnings {
        io::warn(w);
    }
    let record = &sealed.record;
    let text = match args.emit {
        EmitArg::Record => {
            let mut t = serde_json::to_string_pretty(record)?;
            t.push('\n');
            t
        }
        EmitArg::Hex => format!("{}\n", hex_of(&record.hash)),
        EmitArg::Sha256 => format!("{}\n", record.hash),
        EmitArg::SealHash => format!("{}  -\n", hex_of(&record.hash)),
    };
    // Should the record not be written, dropping `sealed` takes the new canary back out.
    io::write_output(args.output.as_deref(), &text)?;
    let record = record.clone();
    let hashed = sealed.hashed;
    sealed.keep_canary();
    io::info(&format!(
        "sealed `{}`: {} ({} file{}, {} mode)",
        record.directory,
        record.hash,
        hashed,
        if hashed == 1 { "" } else { "s" },
        record.mode
    ));
    if let Some(c) = &record.canary {
        io::info(&format!(
            "canary `{}` recorded, accessed {}",
            c.path, c.atime
        ));
    }
    Ok(ExitCode::Ok)
}

/// `--expect-run`: the stub's command run through run's own path (the engine's
/// `expected_ids_from_run`); the exit code instead when the list cannot be used (the reasons
/// printed): 2, or the engine's 130/143 when gapscore was interrupted.
fn expect_run(args: &SealArgs, dir: &Path) -> Result<std::result::Result<Vec<String>, ExitCode>> {
    let (registry, plugin_failures) = host::registry(&args.host);
    if plugin_failures > 0 {
        bail!("a plugin could not be loaded; no seal written");
    }
    let project = std::env::current_dir().context("cannot read the current directory")?;
    let sealed =
        std::path::absolute(dir).with_context(|| format!("cannot resolve `{}`", dir.display()))?;
    let mut req =
        ExpectRunRequest::new(project, sealed, args.command.clone(), args.results.clone());
    req.timeout = args.timeout.map(Duration::from_secs);
    req.ingest = host::ingest_options(&args.host, args.input_format.clone());
    req.env.clone_from(&args.env);
    req.trust_workspace_runner = args.trust_workspace_runner;
    req.sandbox = args.sandbox.options(args.share_net);
    let interrupt = install_interrupt_handlers().context("cannot catch Ctrl-C")?;
    let program = args.command[0].to_string_lossy().into_owned();
    let outcome = expected_ids_from_run(&req, &registry, &interrupt)
        .with_context(|| format!("cannot run the stub's command `{program}`"))?;
    io::info(&format!(
        "gapscore seal --expect-run: `{}` exited with status {} after {:.1} s",
        outcome.evidence.command.join(" "),
        outcome
            .evidence
            .exit_code
            .map_or_else(|| "none".to_owned(), |c| c.to_string()),
        outcome.evidence.duration_secs
    ));
    io::diagnostics(&outcome.diagnostics);
    if let Some(code) = outcome.stopped {
        io::error(&format!(
            "exit {}: gapscore was interrupted while the stub's command ran; no seal written",
            code.code()
        ));
        return Ok(Err(code));
    }
    let Some(ids) = outcome.ids else {
        return Ok(Err(ExitCode::Error));
    };
    if ids.is_empty() {
        bail!("the stub run's results hold no tests; no seal written");
    }
    io::info(&format!(
        "recorded {} expected sealed test{} from the stub run",
        ids.len(),
        if ids.len() == 1 { "" } else { "s" }
    ));
    Ok(Ok(ids))
}

fn hex_of(hash: &str) -> &str {
    hash.strip_prefix("sha256:").unwrap_or(hash)
}

/// Prints what differs, naming the files tools create by themselves.
pub fn print_mismatch(dir: &Path, c: &Verification) {
    io::error(&format!("`{}` does not match its seal: {c}", dir.display()));
    print_mismatch_files(c);
}

/// The files that make a sealed directory differ from its record, one line each, with hints.
pub fn print_mismatch_files(c: &Verification) {
    let Some(d) = &c.diff else {
        io::error("  (a bare hash cannot say which files differ; a seal record can)");
        return;
    };
    for p in &d.changed {
        io::error(&format!("  changed: {p}"));
    }
    for p in &d.removed {
        io::error(&format!("  removed: {p}"));
    }
    for (p, target) in &c.links {
        io::error(&format!(
            "  link:    {p} -> {target} (a sealed directory holds regular files only)"
        ));
    }
    for (p, kind) in &c.special {
        io::error(&format!(
            "  special: {p} is {kind} (a sealed directory holds regular files only)"
        ));
    }
    let mut hints = BTreeSet::new();
    for p in &d.added {
        match likely_harmless(p) {
            Some((what, glob)) => {
                io::error(&format!("  added:   {p} (probably made by {what})"));
                hints.insert(glob);
            }
            None => io::error(&format!("  added:   {p}")),
        }
    }
    if !hints.is_empty()
        && d.changed.is_empty()
        && d.removed.is_empty()
        && c.links.is_empty()
        && c.special.is_empty()
    {
        let flags: Vec<String> = hints.iter().map(|g| format!("--exclude '{g}'")).collect();
        io::error(&format!(
            "  only files that tools create were added: if that is all, check again with {}",
            flags.join(" ")
        ));
    }
    if d.is_empty() && c.links.is_empty() && c.special.is_empty() && c.excludes_problem.is_none() {
        io::error(
            "  every file is as recorded: the directory is being hashed differently (another --as path or order)",
        );
    }
}

fn verify_options(args: &SealArgs) -> VerifyOptions {
    let mut opts = VerifyOptions::default();
    opts.mode = args.mode.map(Into::into);
    opts.hash_as.clone_from(&args.hash_as);
    opts.locale_order = args.locale_order;
    opts.excludes.clone_from(&args.excludes);
    opts
}

fn verify(args: &SealArgs, dir: &Path, against: &str) -> Result<ExitCode> {
    if plurality::is_combined(Path::new(against)).unwrap_or(false) {
        return verify_combined(args, dir, Path::new(against));
    }
    let expected = load_expected(against)?;
    if !args.expect.is_empty() {
        bail!("--expect is for sealing, not for --verify");
    }
    let c = verify_dir(dir, &expected, &verify_options(args))?;
    print_verification(args, dir, &c)
}

/// Prints one directory's verification as `seal --verify` does: `ok: …` on the output, or what
/// differs; the canary and the files under excluded paths on standard error.
fn print_verification(args: &SealArgs, dir: &Path, c: &Verification) -> Result<ExitCode> {
    let canary_read = report_canary(c);
    if c.intact() && canary_read {
        // The files are as sealed, but they were read: the envelope is open.
        return Ok(ExitCode::Failed);
    }
    if c.intact() {
        // The seal does not cover excluded paths, so what sits there is not vouched for: say so
        // (`score` makes such a report advisory).
        if !c.excluded_present.is_empty() {
            io::warn(&format!(
                "{} file{} under paths the seal excludes {} present in `{}` ({}): not covered by the seal; planted bytecode or packages can change what the sealed tests do",
                c.excluded_present.len(),
                if c.excluded_present.len() == 1 {
                    ""
                } else {
                    "s"
                },
                if c.excluded_present.len() == 1 {
                    "is"
                } else {
                    "are"
                },
                dir.display(),
                c.excluded_present
                    .iter()
                    .take(3)
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let line = format!("ok: `{}` {c}\n", dir.display());
        io::write_output(args.output.as_deref(), &line)?;
        return Ok(ExitCode::Ok);
    }
    print_mismatch(dir, c);
    // Exit 1, as a check that fails; an unreadable input is an error (exit 2).
    Ok(ExitCode::Failed)
}

/// `seal --verify COMBINED DIR` (spec v2 §4.6 seal plurality), through the engine's one check of
/// a combined seal (the one `score --seal COMBINED` makes): the combined hash must be the hash
/// of its suites' hashes, each suite's record must carry the hash and family the combined record
/// lists, and each suite's directory (its record's `directory`, relative to DIR) must match its
/// record. Exit 1 when any of them does not.
fn verify_combined(args: &SealArgs, base: &Path, path: &Path) -> Result<ExitCode> {
    if !args.expect.is_empty() {
        bail!("--expect is for sealing, not for --verify");
    }
    let check = plurality::verify_combined(path, base, &verify_options(args))?;
    let mut code = ExitCode::Ok;
    for p in &check.record_problems(path) {
        io::error(p);
        code = ExitCode::Failed;
    }
    if !check.uncovered.is_empty() {
        io::warn(&format!(
            "{} entr{} under `{}` lie{} in none of the combined seal's suites ({}): not covered by the seal",
            check.uncovered.len(),
            if check.uncovered.len() == 1 {
                "y"
            } else {
                "ies"
            },
            base.display(),
            if check.uncovered.len() == 1 { "s" } else { "" },
            check
                .uncovered
                .iter()
                .take(3)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for s in &check.suites {
        if print_verification(args, &s.dir, &s.verification)? != ExitCode::Ok {
            code = ExitCode::Failed;
        }
    }
    Ok(code)
}
