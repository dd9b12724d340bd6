//! The adapter host's integration tests as one test binary (`cargo test -p gapscore-adapters --test
//! it`): each `tests/it/<name>.rs` beside this file is one of its modules, so cargo links one
//! binary for them all.

#![allow(clippy::unwrap_used)] // Test code.

mod c_plugin;
mod detection;
mod exec;
mod explain;
mod ingest;
mod parts;
mod plugins;
mod plugins_v2;
