//! `gapscore seal --expect-run -- COMMAND`: the expected sealed tests recorded by running the
//! stub's test command through `gapscore run`'s own path, so the ids are those `run` will read
//! by construction: the same workspace (a copy of the project with the sealed tests placed in
//! it), the same arguments and environment for the runner (`Workspace::exec_options`: pytest's
//! rootdir and confinement among them), the same freshness check of the result files, and the
//! same adapters reading them with paths relative to the workspace (Jest and Vitest ids).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gapscore_adapters::{IngestOptions, Registry};
use gapscore_core::Code;
use gapscore_runner::environment::EnvPass;
use gapscore_runner::exec::{Interrupt, RunEvidence, execute, fs_stamp};
use gapscore_runner::sandbox::{self, SandboxMode, SandboxOptions};
use gapscore_runner::workspace::{ConfineError, Isolation, prepare};

use crate::exit::ExitCode;
use crate::expect_place::SealedPlace;
use crate::expected_tests::expected_ids_in;
use crate::runner_evidence::{ResultsBaseline, check_results};
use crate::suite::Diagnostic;

/// What to run to list the expected tests.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ExpectRunRequest {
    /// The project the command runs in (copied; never changed).
    pub project: PathBuf,
    /// The directory being sealed, placed in the copy as `run` places it.
    pub sealed_dir: PathBuf,
    /// The stub's test command, as it will be given to `gapscore run`.
    pub command: Vec<OsString>,
    /// The result files the command writes, relative to where it runs; `-` is its standard
    /// output.
    pub results: Vec<PathBuf>,
    /// Ends the command's process group after this long.
    pub timeout: Option<Duration>,
    /// How the result files are read (forced format, plugins' threads).
    pub ingest: IngestOptions,
    /// gapscore's environment, from which the allowlisted variables are passed on (as `run`).
    pub parent_env: Vec<(OsString, OsString)>,
    /// `--env`: more variables to pass on or set (as `run`).
    pub env: Vec<EnvPass>,
    /// `--trust-workspace-runner`: run a runner that resolves inside the workspace (as `run`).
    pub trust_workspace_runner: bool,
    /// The sandbox to run in (`--sandbox`, `--share-net`), as `run`'s.
    pub sandbox: SandboxOptions,
}

impl ExpectRunRequest {
    /// A request with no time limit and default reading.
    pub fn new(
        project: PathBuf,
        sealed_dir: PathBuf,
        command: Vec<OsString>,
        results: Vec<PathBuf>,
    ) -> Self {
        ExpectRunRequest {
            project,
            sealed_dir,
            command,
            results,
            timeout: None,
            ingest: IngestOptions::default(),
            parent_env: std::env::vars_os().collect(),
            env: Vec::new(),
            trust_workspace_runner: false,
            sandbox: SandboxOptions::new(SandboxMode::Auto),
        }
    }
}

/// What the stub run gave: the ids (`None` when they cannot be used, with an error diagnostic
/// saying why), the diagnostics in the order they arose, what the workspace did, and how the
/// command ended.
#[derive(Debug)]
#[non_exhaustive]
pub struct ExpectRunOutcome {
    /// The expected test ids, sorted, repeats kept.
    pub ids: Option<Vec<String>>,
    /// Why the ids cannot be used, and warnings.
    pub diagnostics: Vec<Diagnostic>,
    /// What gapscore did to prepare the workspace, one line each.
    pub notes: Vec<String>,
    /// How the command ended.
    pub evidence: RunEvidence,
    /// The exit code a signal to gapscore while the command ran ends `seal` with (130 for
    /// `SIGINT`, 143 for `SIGTERM`, as `run`'s; [`ExitCode::for_signal`]); `None` when none came.
    pub stopped: Option<ExitCode>,
}

/// Runs the stub's command in a copy workspace and lists the leaf tests of its fresh result
/// files ([`expected_ids`]). A command that timed out, was interrupted or was killed by a
/// signal, and a result file that is missing or was not written by this run, make the list
/// unusable (`E003`): failing tests are expected of a stub, an unfinished run is not.
///
/// Errors: the workspace cannot be prepared, or the command cannot be started.
pub fn expected_ids_from_run(
    req: &ExpectRunRequest,
    registry: &Registry,
    interrupt: &Interrupt,
) -> std::io::Result<ExpectRunOutcome> {
    // As in `run`: a result file is this run's if written after a stamp taken before the copy,
    // and not the very file that was there before the command started.
    let stamp = fs_stamp()?;
    let sandbox = sandbox::choose(&req.sandbox)?;
    let mut ws = prepare(
        &req.project,
        Some(&req.sealed_dir),
        Isolation::Copy,
        &req.command,
    )?;
    // The same default-deny environment and runner check as `run`'s.
    ws.confine_env(
        &req.project,
        &req.command,
        req.parent_env.iter().cloned(),
        &req.env,
        req.trust_workspace_runner,
    )
    .map_err(|e| match e {
        ConfineError::Io(e) => e,
        other => std::io::Error::new(std::io::ErrorKind::PermissionDenied, other.to_string()),
    })?;
    let capture = tempfile::tempdir()?;
    let stdout_copy = capture.path().join("stdout");
    let reads_stdout = req.results.iter().any(|r| r.as_os_str() == "-");
    // Result paths are the command's: relative to where it runs.
    let results: Vec<PathBuf> = req.results.iter().map(|r| in_dir(&ws.dir, r)).collect();
    let baseline = ResultsBaseline::take(&results, stamp);
    let mut notes = ws.notes.clone();
    notes.extend(sandbox.notes.iter().cloned());
    let sealed: Vec<&Path> = [ws.sealed_dir.as_deref(), Some(req.sealed_dir.as_path())]
        .into_iter()
        .flatten()
        .collect();
    let places = sandbox::places(ws.temp_root(), &ws.dir, &sealed, &req.results, &mut notes);
    let mut exec = ws.exec_options(&req.command);
    // In `run`'s sandbox too: a stub run that could write its sealed tests would record ids
    // `run` never reads.
    exec.wrapper = sandbox.wrapper(&places);
    exec.signal_as_exit_status = sandbox.reports_signal_as_status();
    exec.timeout = req.timeout;
    exec.stdout_file = reads_stdout.then(|| stdout_copy.clone());
    exec.fresh_after = Some(stamp);
    let evidence = execute(&exec, interrupt)?;
    // As in `run`: a signal to gapscore ends the command with its code, never 2 or 0.
    let stopped = interrupt.received().map(ExitCode::for_signal);

    let mut diagnostics = Vec::new();
    let ended = if evidence.timed_out {
        Some("reached its time limit".to_owned())
    } else if evidence.interrupted {
        Some("was interrupted".to_owned())
    } else {
        evidence.signal_name().map(|s| format!("was killed by {s}"))
    };
    if let Some(how) = ended {
        diagnostics.push(Diagnostic::error(
            Code::ExpectIncomplete,
            format!("the stub run {how}: its test list may be incomplete (--expect-run)"),
        ));
    }
    let checked = check_results(
        &results,
        reads_stdout.then_some(stdout_copy.as_path()),
        &baseline,
    );
    for p in &checked.problems {
        diagnostics.push(Diagnostic::error(
            Code::ExpectIncomplete,
            format!("{} (--expect-run)", p.detail),
        ));
    }
    if diagnostics.iter().any(Diagnostic::is_error) {
        diagnostics.push(Diagnostic::error(
            Code::ExpectUnusable,
            "the stub run could not be used; no seal written",
        ));
        return Ok(ExpectRunOutcome {
            ids: None,
            diagnostics,
            notes,
            evidence,
            stopped,
        });
    }
    let mut ingest = req.ingest.clone();
    ingest.relative_to = ws.paths_root();
    let (inputs, errors) = crate::runner_evidence::results_inputs(
        &checked.scored,
        reads_stdout.then_some(stdout_copy.as_path()),
    );
    // Only the sealed directory's tests are sealed tests: one the command ran from elsewhere is
    // left out (the workspace is still there to place pytest's dotted JUnit classnames).
    let sealed_in_ws = ws
        .sealed_dir
        .clone()
        .unwrap_or_else(|| ws.dir.join(&req.sealed_dir));
    let place = SealedPlace::new(&sealed_in_ws, &ws.dir);
    let (ids, more) = expected_ids_in(registry, inputs, errors, &ingest, Some(&place));
    diagnostics.extend(more);
    Ok(ExpectRunOutcome {
        ids,
        diagnostics,
        notes,
        evidence,
        stopped,
    })
}

/// `path` as seen from `dir` (`-` and absolute paths as they are).
fn in_dir(dir: &Path, path: &Path) -> PathBuf {
    if path.as_os_str() == "-" || path.is_absolute() {
        path.to_owned()
    } else {
        dir.join(path)
    }
}
