//! The TAP adapter's integration tests in one test binary (`cargo test -p gapscore-adapter-tap
//! --test it`), each former `tests/<name>.rs` a module; insta keeps their snapshots in
//! `tests/it/snapshots/`.

#![allow(clippy::unwrap_used)] // Test code.

mod fixtures;
mod real;
