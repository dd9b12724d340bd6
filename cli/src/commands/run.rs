//! `gapscore run`: check the seal, prepare the workspace, run the test command (the runner
//! crate's `exec`), check its result files were written by this run, and score them through the
//! engine with the runner's evidence as counted problems (issue 19, docs/run.md).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use gapscore_engine::runner_evidence::{ResultsBaseline, RunnerInput, check_results};
use gapscore_engine::{ExitCode, Refusal, score};
use gapscore_runner::exec::{
    ExecOptions, RunEvidence, execute, fs_stamp, install_interrupt_handlers,
};
use gapscore_runner::recognise::recognise;
use gapscore_runner::sandbox::{self, Sandbox, SandboxKind, SandboxMode, SandboxOptions};
use gapscore_runner::watch::SealedWatch;
use gapscore_runner::workspace::{Isolation, prepare};
use gapscore_seal::sealed_dir::chain;
use gapscore_seal::verify::VerifyOptions;

use crate::args::{IsolationArg, RunArgs, SandboxArg, ScoreOptions, WorkspaceArg};
use crate::commands::score::{finish, request};
use crate::commands::seal::print_mismatch;
use crate::{host, io};

/// Makes every path option absolute: the score is read from inside the workspace, which may
/// be another directory than the one the paths were given in.
fn absolutise(opts: &mut ScoreOptions) -> Result<()> {
    let abs = |p: &mut PathBuf| -> Result<()> {
        if p.as_os_str() != "-" {
            *p = std::path::absolute(&*p)
                .with_context(|| format!("cannot resolve `{}`", p.display()))?;
        }
        Ok(())
    };
    for p in [
        &mut opts.seal,
        &mut opts.sealed_dir,
        &mut opts.categories,
        &mut opts.output,
        &mut opts.history,
        &mut opts.v2.declared.provenance,
        &mut opts.v2.contradictions,
    ]
    .into_iter()
    .flatten()
    {
        abs(p)?;
    }
    for p in opts
        .host
        .plugins
        .iter_mut()
        .chain(opts.host.plugin_dirs.iter_mut())
    {
        abs(p)?;
    }
    Ok(())
}

/// Checks the sealed directory before the run: a broken seal is refused as `score` refuses it
/// (unless `--allow-broken-seal`), and so is any file the seal does not hash (under its
/// excluded paths: planted bytecode or packages), since the run would use it. `Ok(false)`: an
/// error was printed, exit 2.
fn check_seal_before(opts: &ScoreOptions, dir: &Path) -> Result<bool> {
    let Some(record_path) = &opts.seal else {
        return Ok(true);
    };
    let mut vo = VerifyOptions::default();
    vo.excludes.clone_from(&opts.excludes);
    // A single suite's record or a combined one (§4.6), checked as `score` checks it.
    let v = gapscore_seal::checked_seal::check(record_path, dir, &vo)?;
    if !v.intact() && !opts.allow_broken_seal {
        for (d, broken) in v.broken_dirs() {
            print_mismatch(&d, &broken);
        }
        for p in &v.record_problems {
            io::error(p);
        }
        io::error(
            "refusing to run against a broken seal (pass --allow-broken-seal for an advisory report)",
        );
        return Ok(false);
    }
    let excluded_present = v.excluded_present();
    if !excluded_present.is_empty() {
        let n = excluded_present.len();
        let shown: Vec<&str> = excluded_present
            .iter()
            .take(5)
            .map(String::as_str)
            .collect();
        io::error(&format!(
            "refusing to start: {n} file{} the seal does not hash {} in `{}` ({}{}); the sealed tests would run beside them (planted bytecode or packages change what they do): remove them first",
            if n == 1 { "" } else { "s" },
            if n == 1 { "sits" } else { "sit" },
            dir.display(),
            shown.join(", "),
            if n > 5 { ", …" } else { "" }
        ));
        return Ok(false);
    }
    Ok(true)
}

/// One line on standard error saying how the command ended.
fn describe(e: &RunEvidence) -> String {
    let how = if e.timed_out {
        "reached --timeout and was ended".to_owned()
    } else if e.interrupted {
        "was interrupted".to_owned()
    } else if let Some(sig) = e.signal_name() {
        format!("was killed by {sig}")
    } else {
        format!("exited with status {}", e.exit_code.unwrap_or(-1))
    };
    format!(
        "gapscore run: `{}` {how} after {:.1} s",
        e.command.join(" "),
        e.duration_secs
    )
}

/// Why the spec v2 options cannot be honoured, if they cannot: as `score` would refuse them,
/// or a `--workspace-isolation` other than the workspace the command is to run in.
fn v2_usage_error(args: &RunArgs, sandbox: SandboxKind) -> Option<String> {
    if let Err(e) = score::spec_v2(&request(Vec::new(), &args.opts, 0)) {
        return Some(chain(&e));
    }
    let declared = args.opts.v2.declared.workspace_isolation?;
    // Strict only for a copy the command cannot reach out of (RunnerInput::workspace_isolation).
    let (used, name) = match (args.workspace, sandbox) {
        (WorkspaceArg::Copy, SandboxKind::Bwrap) => (IsolationArg::Strict, "copy"),
        (WorkspaceArg::Copy, SandboxKind::None) => (IsolationArg::Legacy, "copy"),
        (WorkspaceArg::Inplace, _) => (IsolationArg::Legacy, "inplace"),
    };
    (declared != used).then(|| {
        format!(
            "--workspace-isolation contradicts the workspace the command runs in (--workspace {name}, sandbox {sandbox}): gapscore run reports it itself"
        )
    })
}

/// The sandbox `--sandbox` and `--share-net` ask for, probed.
fn choose_sandbox(args: &RunArgs) -> Result<Sandbox> {
    let mut opts = SandboxOptions::new(match args.sandbox {
        SandboxArg::Auto => SandboxMode::Auto,
        SandboxArg::Bwrap => SandboxMode::Bwrap,
        SandboxArg::None => SandboxMode::None,
    });
    opts.share_net = args.share_net;
    Ok(sandbox::choose(&opts)?)
}

/// Runs `gapscore run`.
pub fn run(args: &RunArgs) -> Result<ExitCode> {
    if let Some(code) = crate::commands::score::usage_error(&args.opts) {
        return Ok(code);
    }
    // Result files written after this are this run's by the clock: taken before the copy.
    let stamp = fs_stamp().context("cannot read the filesystem's clock")?;
    let sandbox = choose_sandbox(args)?;
    // The spec v2 options are checked before the command runs, not after.
    if let Some(message) = v2_usage_error(args, sandbox.kind) {
        io::error(&message);
        return Ok(ExitCode::Error);
    }
    let mut owned = args.opts.clone();
    let opts = &mut owned;
    if opts.allow_truncated {
        io::warn(
            "--allow-truncated is retired: a cut input is a counted problem that makes the report advisory",
        );
    }
    absolutise(opts)?;
    if let Some(dir) = &opts.sealed_dir
        && !check_seal_before(opts, dir)?
    {
        return Ok(ExitCode::Error);
    }
    let project = std::env::current_dir().context("cannot read the current directory")?;
    let isolation = match args.workspace {
        WorkspaceArg::Copy => Isolation::Copy,
        WorkspaceArg::Inplace => Isolation::Inplace,
    };
    let ws = prepare(
        &project,
        opts.sealed_dir.as_deref(),
        isolation,
        &args.command,
    )
    .context("cannot prepare the workspace")?;
    // The copy the command will see must be the sealed one too.
    let sealed_in_ws = ws.sealed_dir.clone().or_else(|| opts.sealed_dir.clone());
    if let (Some(orig), Some(placed)) = (&opts.sealed_dir, &sealed_in_ws)
        && orig != placed
        && !check_seal_before(opts, placed)?
    {
        return Ok(ExitCode::Error);
    }

    let (registry, plugin_failures) = host::registry(&opts.host);
    let capture = args
        .results
        .iter()
        .any(|r| r.as_os_str() == "-")
        .then(tempfile::tempdir)
        .transpose()
        .context("cannot make a temporary directory for the command's standard output")?;
    let stdout_copy = capture.as_ref().map(|d| d.path().join("stdout"));
    let mut command: Vec<OsString> = args.command.clone();
    command.extend(ws.extra_args.iter().cloned());
    let mut notes = ws.notes.clone();
    notes.extend(sandbox.notes.iter().cloned());
    let sealed: Vec<&Path> = [sealed_in_ws.as_deref(), opts.sealed_dir.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    let places = sandbox::places(ws.temp_root(), &ws.dir, &sealed, &args.results, &mut notes);
    let mut exec = ExecOptions::new(command, &ws.dir);
    exec.fresh_after = Some(stamp);
    exec.wrapper = sandbox.wrapper(&places);
    exec.signal_as_exit_status = sandbox.reports_signal_as_status();
    exec.env.clone_from(&ws.env);
    exec.env_remove.clone_from(&ws.env_remove);
    exec.timeout = args.timeout.map(Duration::from_secs);
    exec.stdout_file.clone_from(&stdout_copy);
    let interrupt = install_interrupt_handlers().context("cannot catch Ctrl-C")?;
    let program = args.command[0].to_string_lossy().into_owned();
    // Result paths are the command's: relative to where it runs.
    if ws.dir != project {
        std::env::set_current_dir(&ws.dir)
            .with_context(|| format!("cannot enter `{}`", ws.dir.display()))?;
    }
    let baseline = ResultsBaseline::take(&args.results, stamp);
    // The sealed files are read-only during the run and their identities compared after it.
    let watch = sealed_in_ws
        .as_deref()
        .map(SealedWatch::start)
        .transpose()
        .context("cannot make the sealed tests read-only for the run")?;
    let evidence = execute(&exec, &interrupt).with_context(|| format!("cannot run `{program}`"))?;
    io::info(&describe(&evidence));
    let sealed_touched = match &watch {
        Some(w) => w
            .touched()
            .context("cannot look at the sealed tests after the run")?,
        None => Vec::new(),
    };
    drop(watch);

    let results = check_results(&args.results, stdout_copy.as_deref(), &baseline);
    for p in &results.problems {
        io::warn(&p.detail);
    }
    let recognised = recognise(&evidence.stdout_tail, &evidence.stderr_tail);
    let mut input = RunnerInput::new(evidence, results, isolation_name(ws.isolation));
    input.notes = notes;
    input.sandbox = sandbox.kind;
    input.sealed_touched = sealed_touched;
    input.recognised = recognised;
    input.stdout_copy = stdout_copy;

    // The seal is verified again, on the directory the command could reach: a sealed file
    // changed during the run is refused as `score` refuses it.
    if let (Some(dir), false) = (&sealed_in_ws, sealed_in_ws == opts.sealed_dir) {
        opts.sealed_dir = Some(dir.clone());
    }
    let mut req = request(input.results.scored.clone(), opts, plugin_failures);
    req.runner = Some(input);
    let outcome = score(&req, &registry);
    if matches!(
        outcome.refusal(),
        Some(
            Refusal::BrokenSeal { .. }
                | Refusal::BrokenSeals { .. }
                | Refusal::SealedFilesTouched(_)
        )
    ) {
        io::error("the sealed tests changed during the run");
    }
    let code = finish(opts, &outcome);
    drop(capture);
    drop(ws);
    code
}

fn isolation_name(i: Isolation) -> &'static str {
    match i {
        Isolation::Copy => "copy",
        Isolation::Inplace => "inplace",
    }
}
