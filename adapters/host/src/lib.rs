//! gapscore's adapter host: the [`Registry`] of built-in adapters and loaded plugins behind one
//! [`Adapter`](gapscore_adapter_sdk::Adapter) trait, the plugin [`loader`] (C ABI v1 through
//! libloading), format detection ([`Registry::detect`]) and parallel ingestion ([`ingest`]) of many
//! files with results in input order.
//!
//! Principal types: [`Registry`], [`Registered`], [`Origin`], [`PluginSearch`],
//! [`PluginAdapter`], [`Input`], [`IngestOptions`], [`Outcome`], [`IngestError`].

#![deny(unsafe_code)] // Allowed in `loader` only, where each block carries its SAFETY argument.
#![deny(missing_docs)]

mod ingest;
pub mod loader;
mod registry;

pub use ingest::{IngestError, IngestOptions, Input, Outcome, Parsed, expand_inputs, ingest};
pub use loader::{PLUGIN_PATH_ENV, PluginAdapter, PluginError, PluginSearch, load_plugin};
pub use registry::{DetectError, Origin, Registered, Registry};
