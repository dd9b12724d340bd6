//! The Mocha adapter's integration tests as one test binary (`cargo test -p
//! gapscore-adapter-mocha --test it`): each `tests/it/<name>.rs` beside this file is one of
//! its modules; insta keeps their snapshots in `tests/it/snapshots/`.

#![allow(clippy::unwrap_used)] // Test code.

mod fixtures;
mod real;
mod stream;
