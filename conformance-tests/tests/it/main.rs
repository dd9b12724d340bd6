//! gapscore-conformance's integration tests, in one binary (`cargo test -p gapscore-conformance
//! --test it`): the bundled upstream suites as the runner reads them ([`upstream`]). The runner
//! against gapscore's own binary is `cli/tests/upstream_conformance.rs`; the checker's fixture
//! suite in `fixtures/` is run by gapscore-check's tests.

#![allow(clippy::unwrap_used)] // Test helpers panic on purpose.

mod upstream;
