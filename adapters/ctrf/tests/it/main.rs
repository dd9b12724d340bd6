//! The CTRF adapter's integration tests as one test binary (`cargo test -p gapscore-adapter-ctrf
//! --test it`): each `tests/it/<name>.rs` beside this file is one of its modules, so cargo links
//! one binary for them all; insta keeps their snapshots in `tests/it/snapshots/`.

#![allow(clippy::unwrap_used)] // Test code.

mod borrowed;
mod fixtures;
mod semantics;
mod stream;
mod wild;
