//! The Go test adapter's integration tests as one test binary (`cargo test -p
//! gapscore-adapter-gotest --test it`): each `tests/it/<name>.rs` beside this file is one of its
//! modules, so cargo links one binary for them all; insta keeps their snapshots in
//! `tests/it/snapshots/`.

#![allow(clippy::unwrap_used)] // Test code.

mod fixtures;
mod issue31;
mod real;
mod regressions;
mod reruns;
mod wild;
