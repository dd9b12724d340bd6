//! The core crate's integration tests in one test binary (`cargo test -p gapscore-core --test it`),
//! each former `tests/<name>.rs` a module. proptest keeps the seeds of past failures in
//! `tests/proptest-regressions/<module>.txt`: its place for a test binary whose root is
//! `tests/it/main.rs`.

#![allow(clippy::unwrap_used)] // Test code.

mod properties;
