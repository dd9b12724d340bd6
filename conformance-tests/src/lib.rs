//! gapscore's conformance suite.
//!
//! [`checker`] judges any Gap Report (Shadow Report) — gapscore's or another tool's — against
//! spec §5.2 and conformance levels 1–3: principal types [`checker::CheckOutput`],
//! [`checker::FileResult`], [`checker::Finding`], [`checker::Requirement`] with its
//! [`checker::Verdict`], [`checker::Evidence`]; `gapscore check` is its command line. Its
//! fixture suite lives in `fixtures/`.
//!
//! [`upstream`] re-implements the Shadow/Gap Score conformance runner so any validator binary —
//! gapscore's own, in `cli/tests/upstream_conformance.rs` — can be run against the upstream
//! fixtures bundled in `upstream/` (v1 in the Gap dialect, v2 in the Shadow dialect).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod checker;
pub mod upstream;

/// The folder holding the bundled upstream fixtures and example inputs.
pub fn upstream_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("upstream")
}

/// The folder holding the checker's fixture suite.
pub fn fixtures_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}
