//! Building the adapter registry from the command line and the environment, ingestion options,
//! and reading a validation with them (for `feedback` and `harden record`).

use anyhow::{Result, bail};
use gapscore_adapters::{IngestOptions, PLUGIN_PATH_ENV, PluginSearch, Registry};
use gapscore_engine::validation::{Validation, load_validation};

use crate::args::HostArgs;
use crate::io;

/// The registry: built-ins, then `--plugin` files, `--plugin-dir` directories, the
/// directories in `GAPSCORE_PLUGIN_PATH` and `--plugin-exec` programs. Each plugin that cannot be loaded is reported on stderr
/// naming its file and reason; the count of such failures is returned so commands can fail at
/// the end without stopping the work of the good adapters.
pub fn registry(args: &HostArgs) -> (Registry, usize) {
    let search = PluginSearch::new(args.plugins.clone(), args.plugin_dirs.clone())
        .with_env_dirs(std::env::var_os(PLUGIN_PATH_ENV).as_deref())
        .with_execs(args.plugin_execs.clone())
        .with_debug(args.plugin_debug)
        .with_exec_timeout(Some(std::time::Duration::from_secs(
            args.plugin_exec_timeout,
        )))
        .with_isolation(args.plugin_isolate.then(serve_command));
    let mut registry = Registry::builtin();
    let errors = registry.load_plugins(&search);
    for e in &errors {
        io::error(&e.to_string());
    }
    (registry, errors.len())
}

/// The command a child gapscore serves an isolated plugin with: this very binary, so parent
/// and child always speak the same protocol.
fn serve_command() -> Vec<String> {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.to_str().map(str::to_owned))
        .unwrap_or_else(|| "gapscore".to_owned());
    vec![exe, gapscore_adapters::exec::SERVE_COMMAND.to_owned()]
}

/// Ingestion options from the command line.
pub fn ingest_options(args: &HostArgs, format: Option<String>) -> IngestOptions {
    IngestOptions::new(format, args.jobs.map_or(0, usize::from))
}

/// Reads a validation through the engine with the command's plugins, printing its diagnostics.
pub fn validation(
    inputs: &[std::path::PathBuf],
    input_format: Option<String>,
    host_args: &HostArgs,
) -> Result<Validation> {
    let (registry, plugin_failures) = registry(host_args);
    if plugin_failures > 0 {
        bail!("a plugin could not be loaded");
    }
    let mut diagnostics = Vec::new();
    let v = load_validation(
        inputs,
        &registry,
        &ingest_options(host_args, input_format),
        &mut diagnostics,
    );
    io::diagnostics(&diagnostics);
    Ok(v?)
}
