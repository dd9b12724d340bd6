//! gapscore's adapter host: the [`Registry`] of built-in adapters and loaded plugins behind one
//! [`Adapter`](gapscore_adapter_sdk::Adapter) trait, the plugin [`loader`] (C ABI v1 and v2 through
//! libloading), executable adapters ([`exec`], `--plugin-exec`), format detection ([`Registry::detect`]) and parallel ingestion ([`ingest`]) of many
//! files with results in input order.
//!
//! Principal types: [`Registry`], [`Registered`], [`Origin`], [`PluginSearch`],
//! [`PluginAdapter`], [`Input`], [`IngestOptions`], [`Outcome`], [`IngestError`], and
//! [`AppendParts`]: how the caller's consumers of one file's parts (a large file read on several
//! threads, [`ingest_appendable`]) are appended. Scoring what was read is the engine's
//! (`gapscore-engine`), which every command goes through; the host depends on no scoring crate.
//!
//! Detecting a document's format with the built-in adapters, then reading it:
//!
//! ```
//! use gapscore_adapter_sdk::{parse_to_run, ParseOptions, Status};
//! use gapscore_adapters::Registry;
//!
//! let registry = Registry::builtin();
//! let doc = br#"{"tests": [{"name": "adds", "status": "failed"}]}"#;
//! let found = registry.detect(doc, Some("results.json"))?;
//! assert_eq!(found.name(), "simple");
//! let run = parse_to_run(found.adapter.as_ref(), doc, &ParseOptions::default())?;
//! assert_eq!(run.tests[0].status, Status::Failed);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(unsafe_code)] // Allowed in `loader` (and its submodules) only, where each block carries its SAFETY argument.
#![deny(missing_docs)]

mod choose;
mod debug;
pub mod exec;
mod explain;
mod fault;
mod head;
mod ingest;
pub mod loader;
mod notes;
mod registry;
mod split;
mod unread;

pub use exec::ExecAdapter;
pub use explain::{AdapterDetection, Decision, FileExplanation, explain};
pub use fault::PluginFault;
pub use ingest::{
    IngestError, IngestOptions, Input, Outcome, Parsed, STDIN_NAME, SURE, expand_inputs, ingest,
    ingest_appendable,
};
pub use loader::{PLUGIN_PATH_ENV, PluginAdapter, PluginError, PluginSearch, load_plugin};
pub use registry::{DetectError, Detected, Origin, Registered, Registry};
pub use split::{AppendParts, MAX_PARTS, MIN_PART_BYTES, SplitOptions};
// The type of `IngestOptions::relative_to`.
pub use gapscore_adapter_sdk::PathRoot;
// The prefix detection judges, which `adapters --explain` states.
pub use gapscore_adapter_sdk::DETECT_PREFIX_LEN;

/// An I/O error as a message in gapscore's style: the OS text lowercased, without
/// "(os error N)" or a path suffix (the caller names the file).
pub fn io_reason(e: &std::io::Error) -> String {
    let s = e.to_string();
    let s = s.split(" (os error").next().unwrap_or(&s);
    let s = s.split(" at path ").next().unwrap_or(s).to_owned();
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => s,
    }
}
