//! The report's key set and spec version, and the spec v2 provenance options (`score`, `run`,
//! and the provenance flags in `batch`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use gapscore_core::{Dialect, Provenance, SpecVersion, WorkspaceIsolation};

/// `--dialect`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum DialectArg {
    /// `shadow_score_*` keys.
    Shadow,
    /// `gap_score_*` keys.
    Gap,
    /// Both key sets.
    Both,
}

impl From<DialectArg> for Dialect {
    fn from(d: DialectArg) -> Self {
        match d {
            DialectArg::Shadow => Dialect::Shadow,
            DialectArg::Gap => Dialect::Gap,
            DialectArg::Both => Dialect::Both,
        }
    }
}

/// `--spec-version`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SpecVersionArg {
    /// Spec 1.0.0 (the default).
    #[value(name = "1")]
    V1,
    /// Spec 2.0.0: provenance, independence and the §5.4 advisory conditions (Shadow dialect).
    #[value(name = "2")]
    V2,
}

impl From<SpecVersionArg> for SpecVersion {
    fn from(v: SpecVersionArg) -> Self {
        match v {
            SpecVersionArg::V1 => SpecVersion::V1,
            SpecVersionArg::V2 => SpecVersion::V2,
        }
    }
}

/// `--workspace-isolation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IsolationArg {
    /// A disposable verification workspace (§4.3).
    Strict,
    /// The v1.0.0 copy-in procedure.
    Legacy,
}

/// The provenance flags: each is also a key of the `--provenance` file.
const FLAGS: [&str; 6] = [
    "implementer_family",
    "implementer_model",
    "seal_author_family",
    "seal_author_model",
    "workspace_isolation",
    "conformance_level",
];

/// `--spec-version` and the spec v2 options (§3.6, §4.6.2, §5.2, §5.4), shared by `score` and
/// `run`.
#[derive(Debug, Clone, Args)]
pub struct ProvenanceArgs {
    /// The spec version of the report: 1 (1.0.0) or 2 (2.0.0, Shadow dialect only: adds the
    /// provenance fields and the §5.4 advisory conditions).
    #[arg(help_heading = "Provenance", long, value_enum, default_value_t = SpecVersionArg::V1, value_name = "N")]
    pub spec_version: SpecVersionArg,

    #[command(flatten)]
    pub declared: DeclaredProvenance,

    /// v2: the specification was truncated or summarised before it reached the seal author or
    /// the implementer: the report is advisory (§5.4).
    #[arg(help_heading = "Provenance", long)]
    pub spec_truncated: bool,

    /// v2: the contradictions found between the sealed suites of a plural seal (the JSON file
    /// `seal --contradictions` reads): writes `report.spec_ambiguity` (§4.6.2).
    #[arg(help_heading = "Provenance", long, value_name = "FILE")]
    pub contradictions: Option<PathBuf>,
}

/// Who wrote what (spec v2 §3.6, §5.2): the flags, or a provenance file. `score` and `run` take
/// them with [`ProvenanceArgs`]; `batch` takes them as every repository's default.
#[derive(Debug, Clone, Args)]
pub struct DeclaredProvenance {
    /// v2: the implementer's model family (`report.implementer_family`).
    #[arg(help_heading = "Provenance", long, value_name = "FAMILY")]
    pub implementer_family: Option<String>,

    /// v2: the implementer's model (`report.implementer_model`).
    #[arg(help_heading = "Provenance", long, value_name = "MODEL")]
    pub implementer_model: Option<String>,

    /// v2: a seal author's model family (`report.seal_author_families`); repeatable. The
    /// implementer's family among them is weak independence: the report is advisory.
    #[arg(
        help_heading = "Provenance",
        long = "seal-author-family",
        value_name = "FAMILY"
    )]
    pub seal_author_family: Vec<String>,

    /// v2: a seal author's model (`report.seal_author_models`); repeatable.
    #[arg(
        help_heading = "Provenance",
        long = "seal-author-model",
        value_name = "MODEL"
    )]
    pub seal_author_model: Vec<String>,

    /// v2: `strict` (disposable verification workspace) or `legacy` (§4.3); `gapscore run`
    /// reports its own workspace.
    #[arg(help_heading = "Provenance", long, value_enum, value_name = "HOW")]
    pub workspace_isolation: Option<IsolationArg>,

    /// v2: the conformance level claimed (1–4); 4 needs the implementer's and the seal
    /// authors' families.
    #[arg(help_heading = "Provenance", long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=4))]
    pub conformance_level: Option<u8>,

    /// v2: read the provenance from this TOML file (the flags' fields, plus a `[families]`
    /// table of model = family) instead of the flags.
    #[arg(help_heading = "Provenance", long, value_name = "FILE", conflicts_with_all = FLAGS)]
    pub provenance: Option<PathBuf>,
}

impl ProvenanceArgs {
    /// The provenance the flags declare.
    pub fn provenance(&self) -> Provenance {
        self.declared.provenance()
    }
}

impl DeclaredProvenance {
    /// The provenance the flags declare.
    pub fn provenance(&self) -> Provenance {
        let mut p = Provenance::default();
        p.implementer_family.clone_from(&self.implementer_family);
        p.implementer_model.clone_from(&self.implementer_model);
        p.seal_author_families.clone_from(&self.seal_author_family);
        p.seal_author_models.clone_from(&self.seal_author_model);
        p.workspace_isolation = self.workspace_isolation.map(|w| match w {
            IsolationArg::Strict => WorkspaceIsolation::Strict,
            IsolationArg::Legacy => WorkspaceIsolation::Legacy,
        });
        p.conformance_level = self.conformance_level;
        p
    }
}
