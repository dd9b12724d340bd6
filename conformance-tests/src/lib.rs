//! gapscore's conformance suite. For now it holds the upstream fixture runner
//! (`tests/upstream.rs`), which runs the built `gapscore` binary on every fixture of the
//! Shadow/Gap Score conformance suites (v1 in the Gap dialect, v2 in the Shadow dialect) and
//! checks what the upstream runner checks. The report checker (levels 1–3) joins it later.

#![forbid(unsafe_code)]
