//! The core crate's integration tests in one test binary (`cargo test -p gapscore-core --test it`),
//! each former `tests/<name>.rs` a module; proptest keeps its regressions beside them.

#![allow(clippy::unwrap_used)] // Test code.

mod properties;
