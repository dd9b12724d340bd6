//! `gapscore run` as one pipeline (issue 32): a [`RunRequest`] in, the same [`ScoreOutcome`] as
//! [`crate::score()`] out. The CLI only turns arguments into the request.
//!
//! The order of judgement is written here once:
//!
//! 1. The options are checked (spec v2, the declared workspace isolation) before anything runs.
//! 2. The seal is verified on the sealed directory, and again on its copy in the workspace;
//!    files the seal does not hash beside the sealed tests refuse the run.
//! 3. The command runs ([`gapscore_runner::exec`]) in the prepared workspace, in the sandbox
//!    ([`gapscore_runner::sandbox`]), with the sealed files read-only and watched
//!    ([`gapscore_runner::watch`]); the freshness stamp is taken before the workspace is
//!    prepared, and the result files' identities just before the command starts.
//! 4. The result files are checked for this run's writing ([`check_results`]); the runner's
//!    whole output was read for failure lines ([`gapscore_runner::recognise`]) and console
//!    summaries ([`gapscore_runner::summary`]) as it passed.
//! 5. The results are read and the seal's expected-test manifest applied **before** any runner
//!    evidence is weighed (in [`crate::score()`]): a result the seal does not list never
//!    explains a failing exit status, and results beyond the manifest's multiplicity are a
//!    counted problem (`surplus-results`).
//! 6. The runner's evidence joins the sealed suite as counted problems; the seal is verified a
//!    third time, after the run, on the directory the command could reach, and a sealed file
//!    whose identity changed during the run breaks it even if its content was put back.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gapscore_adapters::Registry;
use gapscore_core::WorkspaceIsolation;
use gapscore_runner::environment::EnvPass;
use gapscore_runner::exec::{Interrupt, RunEvidence, execute, fs_stamp};
use gapscore_runner::sandbox::{self, Sandbox, SandboxKind, SandboxOptions};
use gapscore_runner::watch::SealedWatch;
use gapscore_runner::workspace::{
    CopySize, Isolation, ThroughShell, Workspace, WorkspaceRunner, prepare_with, through_shell,
};
use gapscore_seal::checked_seal::{self, CheckedSeal};
use gapscore_seal::verify::VerifyOptions;

use crate::error::Error;
use crate::exit::ExitCode;
use crate::outcome::{Refusal, RunError, ScoreOutcome};
use crate::runner_evidence::{ResultsBaseline, RunnerInput, check_results};
use crate::score::{ScoreRequest, score, spec_v2};
use crate::suite::Diagnostic;

/// What `gapscore run` is asked to do.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunRequest {
    /// How the results are scored, as for `gapscore score`. Its inputs are filled by the run
    /// (the fresh result files); its seal directory is the one given, replaced by its copy in
    /// the workspace for the check after the run. Paths in it must be absolute: the results are
    /// read from the directory the command ran in.
    pub score: ScoreRequest,
    /// The sealed tests (`--sealed-dir`, absolute): placed in the workspace, verified against
    /// the seal before and after the run.
    pub sealed_dir: Option<PathBuf>,
    /// The test command and its arguments (never through a shell).
    pub command: Vec<OsString>,
    /// The result files the command writes, relative to where it runs; `-` is its standard
    /// output.
    pub results: Vec<PathBuf>,
    /// Where the command runs.
    pub isolation: Isolation,
    /// End the command's process group after this long.
    pub timeout: Option<Duration>,
    /// The project directory (the current directory of `gapscore run`).
    pub project: PathBuf,
    /// Pass the command's output through to gapscore's standard error.
    pub passthrough: bool,
    /// Fence the passed-through output so GitHub's runner reads none of it as a workflow
    /// command (`ExecOptions::github_fence`). On by default when `GITHUB_ACTIONS` is `true` in
    /// gapscore's environment: the implementation's output could otherwise stop the runner
    /// reading gapscore's annotations (`::stop-commands::`) or forge some.
    pub github_fence: bool,
    /// The sandbox to run in (`--sandbox`, `--share-net`).
    pub sandbox: SandboxOptions,
    /// The environment gapscore was started with, which the command's default-deny
    /// environment takes its allowlist from (`gapscore_runner::environment`).
    pub parent_env: Vec<(OsString, OsString)>,
    /// More variables for the command (`--env NAME`, `--env NAME=VALUE`).
    pub env: Vec<EnvPass>,
    /// Run even when the runner or its framework resolves inside the workspace; the report
    /// records what was trusted.
    pub trust_workspace_runner: bool,
    /// Told before a large project copy starts ([`CopySize::is_large`]: more than 2,000 files
    /// or 100 MB), so the user hears why the run has not started yet; `None`: nobody is told.
    pub on_large_copy: Option<fn(CopySize)>,
}

impl RunRequest {
    /// Runs `command` in a copy of `project` and scores `results` under `score`'s settings.
    pub fn new(
        score: ScoreRequest,
        project: impl Into<PathBuf>,
        command: Vec<OsString>,
        results: Vec<PathBuf>,
    ) -> Self {
        RunRequest {
            score,
            sealed_dir: None,
            command,
            results,
            isolation: Isolation::Copy,
            timeout: None,
            project: project.into(),
            passthrough: true,
            github_fence: std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true"),
            sandbox: SandboxOptions::new(sandbox::SandboxMode::Auto),
            parent_env: std::env::vars_os().collect(),
            env: Vec::new(),
            trust_workspace_runner: false,
            on_large_copy: None,
        }
    }
}

fn not_run(e: RunError, diagnostics: Vec<Diagnostic>) -> ScoreOutcome {
    ScoreOutcome::refused(Refusal::NotRun(e), diagnostics)
}

/// The isolation the spec v2 report records for a workspace and sandbox: strict only for a
/// copy the command cannot reach out of (as [`RunnerInput::workspace_isolation`] says).
fn isolation_of(i: Isolation, sandbox: SandboxKind) -> WorkspaceIsolation {
    match (i, sandbox) {
        (Isolation::Copy, SandboxKind::Bwrap) => WorkspaceIsolation::Strict,
        _ => WorkspaceIsolation::Legacy,
    }
}

/// The workspace's name in the report and in messages.
pub fn isolation_name(i: Isolation) -> &'static str {
    match i {
        Isolation::Copy => "copy",
        Isolation::Inplace => "inplace",
    }
}

/// Step 1: the options, before anything runs.
fn check_options(req: &RunRequest, sandbox: SandboxKind) -> Result<(), Error> {
    let resolved = spec_v2(&req.score)?;
    if let Some(declared) = resolved.workspace_isolation
        && declared != isolation_of(req.isolation, sandbox)
    {
        return Err(Error::Usage(format!(
            "--workspace-isolation contradicts the workspace the command runs in (--workspace {}, sandbox {sandbox}): gapscore run reports it itself",
            isolation_name(req.isolation)
        )));
    }
    Ok(())
}

/// Step 2: the seal on `dir` before the run. A broken seal refuses the run (unless broken
/// seals are allowed), and so does any file the seal does not hash beside the sealed tests.
fn check_seal_before(
    req: &RunRequest,
    dir: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<(), Box<Refusal>> {
    let Some(seal) = &req.score.seal else {
        return Ok(());
    };
    let mut vo = VerifyOptions::default();
    vo.excludes.clone_from(&seal.excludes);
    let checked = checked_seal::check(&seal.record, dir, &vo)
        .map_err(|e| Box::new(Refusal::SealUnreadable(e.into())))?;
    if !checked.intact() && !seal.allow_broken {
        diagnostics.push(Diagnostic::error(
            gapscore_core::Code::BrokenSeal,
            "refusing to run against a broken seal",
        ));
        return Err(Box::new(broken(checked)));
    }
    let files = checked.excluded_present();
    if !files.is_empty() {
        return Err(Box::new(Refusal::NotRun(RunError::PlantedFiles {
            dir: dir.to_owned(),
            files,
        })));
    }
    Ok(())
}

/// The refusal of a seal that does not hold.
fn broken(checked: CheckedSeal) -> Refusal {
    if checked.plural.is_none()
        && let Some((dir, verification)) = checked.dirs.first()
    {
        return Refusal::BrokenSeal {
            dir: dir.clone(),
            verification: Box::new(verification.clone()),
        };
    }
    Refusal::BrokenSeals {
        broken: checked.broken_dirs(),
        problems: checked.record_problems,
    }
}

/// Runs the command as `req` says and scores its results, in the order the module's
/// documentation gives. Never prints (but for the command's own output, passed through when
/// [`RunRequest::passthrough`]); every note is in the outcome.
///
/// The results are read with the current directory set to the one the command ran in (its
/// result paths, and the paths its results name, are relative to it); it is set back before
/// this returns.
pub fn run(req: &RunRequest, registry: &Registry, interrupt: &Interrupt) -> ScoreOutcome {
    let mut outcome = run_through_shell(req, registry, interrupt);
    // A signal to gapscore (Ctrl-C, or one the command sent its parent) ends it with 130 or
    // 143 whatever the report says: never 0, never a pass.
    if let Some(sig) = interrupt.received() {
        let code = ExitCode::for_signal(sig);
        outcome.stopped = Some(code);
        let line = format!(
            "exit {}: gapscore received {} while it ran the command; the report says how far the run went",
            code.code(),
            gapscore_runner::exec::signal_name(sig)
        );
        match &mut outcome.result {
            Ok(scored) => {
                // The signal's code replaces the advisory exit 1 the report would have had.
                scored
                    .after
                    .retain(|d| d.code != gapscore_core::Code::RunNotComplete);
                scored
                    .after
                    .push(Diagnostic::warning(gapscore_core::Code::RunEnded, line));
            }
            Err(_) => outcome
                .diagnostics
                .push(Diagnostic::warning(gapscore_core::Code::RunEnded, line)),
        }
    }
    outcome
}

/// [`run`] before the signal's exit code: the command looked through a shell around it.
fn run_through_shell(req: &RunRequest, registry: &Registry, interrupt: &Interrupt) -> ScoreOutcome {
    // The runner is seen whatever wraps it: `sh -c 'one simple command'` runs as its words, so
    // the recipes and the check of where the runner resolves apply; a script is refused unless
    // the runner is trusted (attack i34, F7).
    match through_shell(&req.command) {
        ThroughShell::No => run_as_given(req, registry, interrupt, None),
        ThroughShell::Words(words) => {
            let note = format!(
                "the command's shell runs one simple command: run directly as `{}`, so its runner is recognised and checked",
                words
                    .iter()
                    .map(|w| w.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            let mut direct = req.clone();
            direct.command = words;
            run_as_given(&direct, registry, interrupt, Some((note, None)))
        }
        ThroughShell::Script { shell, script } if !req.trust_workspace_runner => {
            not_run(RunError::ShellScript { shell, script }, Vec::new())
        }
        ThroughShell::Script { shell, .. } => {
            let trusted = WorkspaceRunner {
                what: "a shell script, behind which gapscore cannot identify the runner".to_owned(),
                path: PathBuf::from(&shell),
            };
            let note = format!("--trust-workspace-runner: trusted {trusted}");
            run_as_given(req, registry, interrupt, Some((note, Some(trusted))))
        }
    }
}

/// [`run`] of the command as it is given; `shell` is what looking through a shell around it
/// found: a note for the report, and a runner trusted without being identified.
fn run_as_given(
    req: &RunRequest,
    registry: &Registry,
    interrupt: &Interrupt,
    shell: Option<(String, Option<WorkspaceRunner>)>,
) -> ScoreOutcome {
    let mut diagnostics = Vec::new();
    // Result files written after this are this run's by the clock: stamped before the copy.
    let stamp = match fs_stamp() {
        Ok(t) => t,
        Err(source) => {
            return not_run(
                RunError::Scratch {
                    what: "cannot read the filesystem's clock".to_owned(),
                    source,
                },
                diagnostics,
            );
        }
    };
    let sandbox = match sandbox::choose(&req.sandbox) {
        Ok(s) => s,
        Err(e) => return not_run(RunError::Sandbox(e), diagnostics),
    };
    if let Err(e) = check_options(req, sandbox.kind) {
        return ScoreOutcome::refused(Refusal::Usage(e), diagnostics);
    }
    if let Some(dir) = &req.sealed_dir
        && let Err(r) = check_seal_before(req, dir, &mut diagnostics)
    {
        return ScoreOutcome::refused(*r, diagnostics);
    }
    let mut announce = |size: CopySize| {
        if let Some(tell) = req.on_large_copy.filter(|_| size.is_large()) {
            tell(size);
        }
    };
    let mut ws = match prepare_with(
        &req.project,
        req.sealed_dir.as_deref(),
        req.isolation,
        &req.command,
        &mut announce,
    ) {
        Ok(ws) => ws,
        Err(e) => return not_run(RunError::Workspace(e), diagnostics),
    };
    // The default-deny environment, and the runner followed to where it resolves.
    let trusted = match ws.confine_env(
        &req.project,
        &req.command,
        req.parent_env.iter().cloned(),
        &req.env,
        req.trust_workspace_runner,
    ) {
        Ok(trusted) => trusted,
        Err(e) => return not_run(RunError::Confine(e), diagnostics),
    };
    let mut trusted = trusted;
    if let Some((note, shell_trusted)) = shell {
        ws.notes.push(note);
        trusted.extend(shell_trusted);
    }
    // The copy the command will see must be the sealed one too.
    let sealed_in_ws = ws.sealed_dir.clone().or_else(|| req.sealed_dir.clone());
    if let (Some(orig), Some(placed)) = (&req.sealed_dir, &sealed_in_ws)
        && orig != placed
        && let Err(r) = check_seal_before(req, placed, &mut diagnostics)
    {
        return ScoreOutcome::refused(*r, diagnostics);
    }

    let capture = match req
        .results
        .iter()
        .any(|r| r.as_os_str() == "-")
        .then(tempfile::tempdir)
        .transpose()
    {
        Ok(c) => c,
        Err(source) => {
            return not_run(
                RunError::Scratch {
                    what: "cannot make a temporary directory for the command's standard output"
                        .to_owned(),
                    source,
                },
                diagnostics,
            );
        }
    };
    let stdout_copy = capture.as_ref().map(|d| d.path().join("stdout"));
    let mut notes = ws.notes.clone();
    notes.extend(sandbox.notes.iter().cloned());
    let sealed: Vec<&Path> = [sealed_in_ws.as_deref(), req.sealed_dir.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    let places = sandbox::places(ws.temp_root(), &ws.dir, &sealed, &req.results, &mut notes);

    // Result paths are the command's: relative to where it runs.
    let _cwd = match CurrentDir::enter(&ws.dir) {
        Ok(guard) => guard,
        Err(source) => {
            return not_run(
                RunError::Scratch {
                    what: format!("cannot enter `{}`", ws.dir.display()),
                    source,
                },
                diagnostics,
            );
        }
    };
    let baseline = ResultsBaseline::take(&req.results, stamp);
    // The sealed files are read-only during the run and their identities compared after it.
    let watch_error = |dir: &Path, source| RunError::Watch {
        dir: dir.to_owned(),
        source,
    };
    let watch = match sealed_in_ws.as_deref().map(|d| (d, SealedWatch::start(d))) {
        None => None,
        Some((_, Ok(w))) => Some(w),
        Some((d, Err(e))) => return not_run(watch_error(d, e), diagnostics),
    };
    let how = Confinement {
        sandbox: &sandbox,
        places: &places,
        stamp,
    };
    let evidence = match execute_in(req, &ws, &how, stdout_copy.clone(), interrupt) {
        Ok(e) => e,
        Err(e) => return not_run(e, diagnostics),
    };
    diagnostics.push(Diagnostic::note(
        gapscore_core::Code::RunEnded,
        describe(&evidence),
    ));
    let output = format!("{}\n{}", evidence.stderr_tail, evidence.stdout_tail);
    if let Some(hint) = gapscore_runner::workspace::plugin_autoload_hint(&ws.env, &output) {
        diagnostics.push(Diagnostic::note(
            gapscore_core::Code::RunEnded,
            format!("gapscore: note: {hint}"),
        ));
    }
    let sealed_touched = match (&watch, sealed_in_ws.as_deref()) {
        (Some(w), Some(d)) => match w.touched() {
            Ok(t) => t,
            Err(e) => return not_run(watch_error(d, e), diagnostics),
        },
        _ => Vec::new(),
    };
    // Gives an in-place run's sealed files their modes back.
    drop(watch);

    let results = check_results(&req.results, stdout_copy.as_deref(), &baseline);
    for p in &results.problems {
        diagnostics.push(Diagnostic::warning(p.kind.code(), p.detail.clone()));
    }
    // Read from the whole of both streams as they passed, not only the tails kept.
    let recognised = evidence.recognised.clone();
    let mut input = RunnerInput::new(evidence, results, isolation_name(ws.isolation));
    input.notes = notes;
    input.sandbox = sandbox.kind;
    input.sealed_touched = sealed_touched;
    input.trusted_workspace_runner = trusted.iter().map(ToString::to_string).collect();
    input.recognised = recognised;
    input.stdout_copy = stdout_copy;
    input.temporary_paths = temporary_paths(&ws);
    // Looked for after the command ended: it may have written the twin itself.
    if let Some(sealed) = &sealed_in_ws {
        input.dotted_twins = crate::dotted_twins::twin_modules(&ws.dir, sealed);
    }

    let mut score_req = req.score.clone();
    // A run whose suite did not fully run (its report advisory) does not exit 0 by default.
    score_req.advisory_fails = true;
    score_req.sealed.clone_from(&input.results.scored);
    // The seal is verified again, on the directory the command could reach: a sealed file
    // changed during the run is refused as `score` refuses it.
    if let Some(placed) = &sealed_in_ws {
        if let Some(seal) = score_req.seal.as_mut() {
            seal.sealed_dir.clone_from(placed);
        }
        if let Some(orig) = &req.sealed_dir {
            for d in &mut score_req.skip_dirs {
                if d == orig {
                    d.clone_from(placed);
                }
            }
        }
    }
    // Ids relative to where the command ran (Jest's and Vitest's absolute paths), so they do
    // not depend on where the workspace was.
    score_req.ingest.relative_to = ws.paths_root();
    score_req.runner = Some(input);
    let mut outcome = score(&score_req, registry);
    if matches!(
        outcome.refusal(),
        Some(
            Refusal::BrokenSeal { .. }
                | Refusal::BrokenSeals { .. }
                | Refusal::SealedFilesTouched(_)
        )
    ) {
        outcome.diagnostics.push(Diagnostic::error(
            gapscore_core::Code::BrokenSeal,
            "the sealed tests changed during the run",
        ));
    }
    diagnostics.append(&mut outcome.diagnostics);
    outcome.diagnostics = diagnostics;
    drop(capture);
    outcome
}

/// The run's temporary paths and what the report says instead ([`RunnerInput::temporary_paths`]):
/// a copy's directory (as the command saw it, and resolved) goes, leaving paths relative to
/// the project; the temporary directory around it is named as such.
fn temporary_paths(ws: &Workspace) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let root = ws.temp_root();
    if ws.isolation == Isolation::Copy {
        let real = std::fs::canonicalize(&ws.dir).unwrap_or_else(|_| ws.dir.clone());
        for dir in [real, ws.dir.clone()] {
            let shown = format!("{}/", dir.display());
            if !out.iter().any(|(from, _)| *from == shown) {
                out.push((shown, String::new()));
            }
        }
    }
    let real = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_owned());
    for dir in [real, root.to_owned()] {
        let shown = dir.display().to_string();
        if !out.iter().any(|(from, _)| *from == shown) {
            out.push((shown, "<temporary directory>".to_owned()));
        }
    }
    out
}

/// How the command is confined: the sandbox, its places, and the freshness stamp.
struct Confinement<'a> {
    sandbox: &'a Sandbox,
    places: &'a sandbox::Places,
    stamp: std::time::SystemTime,
}

/// Step 3: the command, in the workspace and the sandbox, with its environment.
fn execute_in(
    req: &RunRequest,
    ws: &Workspace,
    how: &Confinement<'_>,
    stdout_copy: Option<PathBuf>,
    interrupt: &Interrupt,
) -> Result<RunEvidence, RunError> {
    // The same start as `seal --expect-run`'s (`expect_run`), so both name tests alike.
    let mut exec = ws.exec_options(&req.command);
    exec.wrapper = how.sandbox.wrapper(how.places);
    exec.signal_as_exit_status = how.sandbox.reports_signal_as_status();
    exec.fresh_after = Some(how.stamp);
    exec.timeout = req.timeout;
    exec.stdout_file = stdout_copy;
    exec.passthrough = req.passthrough;
    exec.github_fence = req.github_fence;
    execute(&exec, interrupt).map_err(|source| RunError::Start {
        program: req
            .command
            .first()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default(),
        source,
    })
}

/// One line saying how the command ended.
fn describe(e: &RunEvidence) -> String {
    let command = e.command.join(" ");
    if e.timed_out {
        return format!(
            "gapscore run: `{command}` was stopped at its time limit ({}), {}; {:.1} s in all",
            crate::runner_evidence::limit_phrase(e),
            crate::runner_evidence::stop_phrase(e),
            e.duration_secs
        );
    }
    let how = if e.interrupted {
        "was interrupted".to_owned()
    } else if let Some(sig) = e.signal_name() {
        format!("was killed by {sig}")
    } else {
        format!("exited with status {}", e.exit_code.unwrap_or(-1))
    };
    format!(
        "gapscore run: `{command}` {how} after {:.1} s",
        e.duration_secs
    )
}

/// The current directory set to the run's for as long as the guard lives, then set back.
struct CurrentDir(Option<PathBuf>);

impl CurrentDir {
    fn enter(dir: &Path) -> std::io::Result<Self> {
        let before = std::env::current_dir()?;
        if before == dir {
            return Ok(CurrentDir(None));
        }
        std::env::set_current_dir(dir)?;
        Ok(CurrentDir(Some(before)))
    }
}

impl Drop for CurrentDir {
    fn drop(&mut self) {
        if let Some(before) = &self.0 {
            // The run's directory is deleted after this; a previous directory that is gone
            // leaves the process where it is, which only a later relative path would notice.
            let _ = std::env::set_current_dir(before);
        }
    }
}
