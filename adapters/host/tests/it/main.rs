//! The adapter host's integration tests in one test binary (`cargo test -p gapscore-adapters --test
//! it`), each former `tests/<name>.rs` a module.

#![allow(clippy::unwrap_used)] // Test code.

mod c_plugin;
mod detection;
mod ingest;
mod plugins;
