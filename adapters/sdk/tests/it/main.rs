//! The adapter SDK's integration tests as one test binary (`cargo test -p gapscore-adapter-sdk
//! --test it`): each `tests/it/<name>.rs` beside this file is one of its modules, so cargo links
//! one binary for them all. proptest keeps the seeds of past failures in
//! `tests/proptest-regressions/<module>.txt`: its place for a test binary whose root is
//! `tests/it/main.rs`.

#![allow(clippy::unwrap_used)] // Test code.

mod encoding;
mod header;
mod json_stream;
