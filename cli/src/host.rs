//! Building the adapter registry from the command line and the environment, and running
//! ingestion with the user's options.

use gapscore_adapters::{IngestOptions, PLUGIN_PATH_ENV, PluginSearch, Registry};

use crate::args::HostArgs;
use crate::io;

/// The registry: built-ins, then `--plugin` files, `--plugin-dir` directories and the
/// directories in `GAPSCORE_PLUGIN_PATH`. Each plugin that cannot be loaded is reported on stderr
/// naming its file and reason; the count of such failures is returned so commands can fail at
/// the end without stopping the work of the good adapters.
pub fn registry(args: &HostArgs) -> (Registry, usize) {
    let search = PluginSearch::new(args.plugins.clone(), args.plugin_dirs.clone())
        .with_env_dirs(std::env::var_os(PLUGIN_PATH_ENV).as_deref());
    let mut registry = Registry::builtin();
    let errors = registry.load_plugins(&search);
    for e in &errors {
        io::error(&e.to_string());
    }
    (registry, errors.len())
}

/// Ingestion options from the command line.
pub fn ingest_options(args: &HostArgs, format: Option<String>) -> IngestOptions {
    IngestOptions::new(format, args.jobs.map_or(0, usize::from))
}
