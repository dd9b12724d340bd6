//! The schema crate's integration tests in one test binary (`cargo test -p gapscore-schema --test
//! it`), each former `tests/<name>.rs` a module.

#![allow(clippy::unwrap_used)] // Test code.

mod schemas;
