//! The template's integration tests as one test binary (`cargo test -p gapscore-adapter-template
//! --test it`): each `tests/it/<name>.rs` beside this file is one of its modules, so cargo links
//! one binary for them all.

#![allow(clippy::unwrap_used)] // Test code.

mod fixtures;
