//! `gapscore run`: turn the arguments into a [`RunRequest`], run it through the engine
//! (`gapscore_engine::run`: the seal checked, the workspace prepared, the command run, its
//! results checked and scored, in one order written there), and print the outcome as `score`
//! does (issue 19, issue 32, docs/run.md).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use gapscore_engine::run::run as run_request;
use gapscore_engine::{ExitCode, RunRequest};
use gapscore_runner::exec::install_interrupt_handlers;
use gapscore_runner::workspace::{CopySize, Isolation};

use crate::args::{RunArgs, ScoreOptions, WorkspaceArg};
use crate::commands::score::{finish, request};
use crate::{host, io};

/// Makes every path option absolute: the results are read from inside the workspace, which
/// may be another directory than the one the paths were given in.
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
        .also
        .iter_mut()
        .chain(opts.also_append.iter_mut())
        .map(|a| &mut a.path)
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

/// Runs `gapscore run`.
pub fn run(args: &RunArgs) -> Result<ExitCode> {
    if let Some(code) = crate::commands::score::usage_error(&args.opts) {
        return Ok(code);
    }
    let mut opts = args.opts.clone();
    if opts.allow_truncated {
        io::warn(
            "--allow-truncated is retired: a cut input is a counted problem that makes the report advisory",
        );
    }
    if opts.sealed_dir.is_some() && opts.seal.is_none() {
        io::note(
            "--sealed-dir without --seal: the sealed tests are placed in the workspace, read-only and watched, and a lenient policy applies only inside them, but nothing checks them against a seal record; give --seal RECORD (gapscore seal) to verify them",
        );
    }
    absolutise(&mut opts)?;
    let (registry, plugin_failures) = host::registry(&opts.host);
    let project = std::env::current_dir().context("cannot read the current directory")?;
    let mut req = RunRequest::new(
        request(Vec::new(), &opts, plugin_failures),
        project,
        args.command.clone(),
        args.results.clone(),
    );
    req.sealed_dir.clone_from(&opts.sealed_dir);
    req.isolation = match args.workspace {
        WorkspaceArg::Copy => Isolation::Copy,
        WorkspaceArg::Inplace => Isolation::Inplace,
    };
    req.timeout = args.timeout.map(Duration::from_secs);
    req.sandbox = args.sandbox.options(args.share_net);
    req.env.clone_from(&args.env);
    req.trust_workspace_runner = args.trust_workspace_runner;
    req.on_large_copy = Some(announce_copy);
    let interrupt = install_interrupt_handlers().context("cannot catch Ctrl-C")?;
    let outcome = run_request(&req, &registry, &interrupt);
    finish(&opts, &outcome)
}

/// The one note before a large project copy: a run that seems not to start is copying.
fn announce_copy(size: CopySize) {
    io::note(&format!(
        "copying {} files ({:.1} MB) into a disposable workspace before the run; `--workspace \
         inplace` runs in the project itself, without the copy's protection (docs/run.md)",
        gapscore_core::render::numbers::grouped_usize(size.files),
        size.bytes as f64 / 1e6
    ));
}
