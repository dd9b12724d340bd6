//! gapscore's conformance fixtures.
//!
//! [`upstream`] re-implements the Shadow/Gap Score conformance runner so any validator binary —
//! gapscore's own, in `cli/tests/it/upstream_conformance.rs` — can be run against the upstream
//! fixtures bundled in `upstream/` (v1 in the Gap dialect, v2 in the Shadow dialect).
//!
//! `fixtures/` holds the fixture suite of the report checker (crate `gapscore-check`, behind
//! `gapscore check`); `check/tests/it/fixtures.rs` runs it.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod upstream;

/// The folder holding the bundled upstream fixtures and example inputs.
pub fn upstream_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("upstream")
}

/// The folder holding the report checker's fixture suite (run by `gapscore-check`'s tests).
pub fn fixtures_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}
