//! The arguments of `gapscore batch` and `gapscore batch merge`.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use gapscore_batch::Shard;

use super::{
    DeclaredProvenance, DialectArg, HostArgs, PassFailArg, SkippedArg, SpecVersionArg, tools,
};
use gapscore_core::Threshold;

/// `gapscore batch`.
#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = tools::BATCH_HELP,
    mut_arg("jobs", |a| a.help("Threads scoring repositories and reading their files, one pool (default: one per core); the outputs never depend on it."))
)]
pub struct BatchArgs {
    /// `merge`: combine shard outputs.
    #[command(subcommand)]
    pub command: Option<BatchCommand>,

    /// A directory of repositories (`ROOT/<repo>/sealed/**`, `ROOT/<repo>/open/**`, optional
    /// `seal.json`, `gapscore.toml`) or a manifest (TOML `[[repo]]` tables or JSON lines).
    #[arg(value_name = "ROOT|MANIFEST", required = true)]
    pub input: Option<PathBuf>,

    /// Where the outputs go and the gate.
    #[command(flatten)]
    pub out: BatchOutputArgs,

    /// Score only part K of N (1-based), chosen by a stable hash of the repository name; merge
    /// the N outputs with `gapscore batch merge`.
    #[arg(help_heading = "Inputs", long, value_name = "K/N")]
    pub shard: Option<Shard>,

    /// Keep the results of repositories already scored in --out whose inputs are unchanged.
    #[arg(help_heading = "Inputs", long)]
    pub resume: bool,

    /// Allow manifest paths (and links) that lead outside the manifest's directory or ROOT.
    #[arg(help_heading = "Inputs", long)]
    pub allow_outside: bool,

    /// No progress and no summary on standard error.
    #[arg(help_heading = "Output", short, long)]
    pub quiet: bool,

    /// Read every input as this format (or adapter name) instead of detecting it.
    #[arg(help_heading = "Inputs", long, value_name = "ID")]
    pub input_format: Option<String>,

    /// What skipped and todo tests count as (a repository's gapscore.toml may tighten it, never
    /// loosen it).
    #[arg(help_heading = "Scoring policy", long, value_enum, default_value_t = SkippedArg::Fail)]
    pub skipped: SkippedArg,

    /// What xfailed tests count as (a repository may tighten it, never loosen it).
    #[arg(help_heading = "Scoring policy", long, value_enum, default_value_t = PassFailArg::Fail)]
    pub xfail: PassFailArg,

    /// What tests that passed only on a retry count as (a repository may tighten it, never
    /// loosen it).
    #[arg(help_heading = "Scoring policy", long, value_enum, default_value_t = PassFailArg::Pass)]
    pub flaky: PassFailArg,

    /// Let a lenient policy apply to skips and xfails whose place the format does not record;
    /// those with a recorded place must lie inside the repository's sealed test directory.
    #[arg(help_heading = "Scoring policy", long)]
    pub trust_unlocated_skips: bool,

    /// JSON key names of the per-repository reports.
    #[arg(help_heading = "Output", long, value_enum, default_value_t = DialectArg::Shadow)]
    pub dialect: DialectArg,

    /// The spec version of the per-repository reports (2 needs the Shadow dialect).
    #[arg(help_heading = "Output", long, value_enum, default_value_t = SpecVersionArg::V1, value_name = "N")]
    pub spec_version: SpecVersionArg,

    /// v2: the provenance of every repository that does not declare its own (`provenance` in
    /// its `gapscore.toml`).
    #[command(flatten)]
    pub provenance: DeclaredProvenance,

    #[command(flatten)]
    pub host: HostArgs,
}

/// What `gapscore batch` and `gapscore batch merge` share: the output directory and the gate.
#[derive(Debug, Args)]
pub struct BatchOutputArgs {
    /// The output directory (default: `gapscore-batch`).
    #[arg(help_heading = "Output", short = 'o', long, value_name = "DIR")]
    pub output: Option<PathBuf>,

    /// The old spelling of `--output DIR`, accepted with a warning.
    #[arg(
        help_heading = "Output",
        long = "out",
        value_name = "DIR",
        hide = true,
        conflicts_with = "output"
    )]
    pub out_old: Option<PathBuf>,

    /// Exit 1 when some repository's score is above this percentage.
    #[arg(
        help_heading = "Scoring policy",
        long,
        value_name = "PERCENT",
        allow_negative_numbers = true
    )]
    pub threshold: Option<Threshold>,

    /// With --threshold: let a repository whose report is advisory pass on its score alone
    /// (without it, an advisory report fails the gate, as in `gapscore score`).
    #[arg(help_heading = "Scoring policy", long)]
    pub allow_advisory: bool,
}

/// `gapscore batch` subcommands.
#[derive(Debug, Subcommand)]
pub enum BatchCommand {
    /// Combine the output directories of `--shard` runs into the outputs of a single run.
    #[command(after_help = tools::MERGE_HELP)]
    Merge(MergeArgs),
}

/// `gapscore batch merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Shard output directories.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,

    /// Where the outputs go and the gate.
    #[command(flatten)]
    pub out: BatchOutputArgs,

    /// No summary on standard error.
    #[arg(help_heading = "Output", short, long)]
    pub quiet: bool,
}
