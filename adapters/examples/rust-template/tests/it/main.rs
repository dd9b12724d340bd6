//! The template's integration tests in one test binary (`cargo test -p gapscore-adapter-template
//! --test it`), each former `tests/<name>.rs` a module.

#![allow(clippy::unwrap_used)] // Test code.

mod fixtures;
