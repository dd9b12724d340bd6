//! `gapscore __plugin-serve FILE VERB…` (hidden): the child process of `--plugin-isolate`,
//! serving one C-ABI plugin to its parent over the executable adapter protocol
//! (`gapscore_adapters::exec::serve_plugin`).

use gapscore_adapters::exec::{Served, serve_plugin};
use gapscore_engine::ExitCode;

use crate::args::PluginServeArgs;

/// Serves the plugin; the exit code is what the parent reads as the adapter's status.
pub fn run(args: &PluginServeArgs) -> ExitCode {
    match serve_plugin(&args.file, args.plugin_debug, &args.verb) {
        Served::Done => ExitCode::Ok,
        // The protocol's status for an `error` event.
        Served::InvalidInput => ExitCode::Failed,
        Served::Failed => ExitCode::Error,
    }
}
