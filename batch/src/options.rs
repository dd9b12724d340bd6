//! How a batch runs ([`BatchOptions`]): shared by the run and the scoring of each repository.

use std::path::PathBuf;

use gapscore_core::{Dialect, Provenance, SpecVersion, StatusPolicy, Threshold};

use crate::Shard;

/// How a batch runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BatchOptions {
    /// Threads scoring repositories (and the files within them); 0 means one per core.
    pub jobs: usize,
    /// The output directory.
    pub out: PathBuf,
    /// Repositories above it are counted (`over_threshold`).
    pub threshold: Option<Threshold>,
    /// With `threshold`: an advisory report passes the gate on its score alone (recorded in
    /// each report's `gapscore.gate` and the row's `gate`).
    pub allow_advisory: bool,
    /// Score only this part of the batch.
    pub shard: Option<Shard>,
    /// Keep the rows of repositories whose inputs did not change since they were scored.
    pub resume: bool,
    /// Every report's timestamp (one for the whole batch, so outputs do not depend on timing).
    pub timestamp: Option<String>,
    /// Read every input as this format instead of detecting it.
    pub input_format: Option<String>,
    /// The status policy; a repository's `gapscore.toml` may tighten it, never loosen it.
    pub policy: StatusPolicy,
    /// Let a lenient policy apply to skips and xfails whose place the format does not record.
    pub trust_unlocated_skips: bool,
    /// The reports' key names.
    pub dialect: Dialect,
    /// The reports' spec version (v2 needs the Shadow dialect).
    pub spec_version: SpecVersion,
    /// v2: the provenance of every repository whose `gapscore.toml` declares none.
    pub provenance: Provenance,
}

impl BatchOptions {
    /// Defaults: one thread per core, the honest status policy, no threshold, no shard.
    pub fn new(out: impl Into<PathBuf>) -> Self {
        BatchOptions {
            jobs: 0,
            out: out.into(),
            threshold: None,
            allow_advisory: false,
            shard: None,
            resume: false,
            timestamp: None,
            input_format: None,
            policy: StatusPolicy::default(),
            trust_unlocated_skips: false,
            dialect: Dialect::default(),
            spec_version: SpecVersion::default(),
            provenance: Provenance::default(),
        }
    }
}
