//! The arguments of the sealed-envelope commands: `seal`, `feedback` and `harden`.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::HostArgs;
use super::tools;

/// `gapscore seal`.
#[derive(Debug, Args)]
#[command(
    after_help = tools::SEAL_HELP,
    mut_arg("jobs", |a| a.help("Threads reading the --expect files (default: one per core); the record never depends on it."))
)]
pub struct SealArgs {
    /// The directory of sealed tests (not with --combine).
    #[arg(value_name = "DIR", required_unless_present = "combine")]
    pub dir: Option<PathBuf>,

    /// Place a canary file with a random name and content in DIR before hashing (or, with
    /// `=PATH`, use that file of DIR), and record its access time: `--verify` and `score
    /// --seal` then report a read of the sealed tests (spec v2 §4.5).
    #[arg(help_heading = "Seal", long, value_name = "PATH", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub canary: Option<String>,

    /// The model family of the suite's seal author, kept in the record (spec v2 §4.6).
    #[arg(help_heading = "Seal", long, value_name = "FAMILY")]
    pub author_family: Option<String>,

    /// Combine these single-suite seal records (each with its author family) into one record
    /// with a combined hash (spec v2 §4.6 seal plurality).
    #[arg(help_heading = "Seal", long, num_args = 2.., value_name = "RECORD", conflicts_with_all = ["dir", "verify", "canary", "author_family", "expect"])]
    pub combine: Vec<PathBuf>,

    /// With --combine: a JSON file of the contradictions found between the suites
    /// (`{"total_acceptance_criteria": N, "findings": [{"criterion": "AC-2", "behaviour": "...",
    /// "kind": "contradiction"}]}`); the record then holds the spec ambiguity (§4.6.2).
    #[arg(help_heading = "Seal", long, value_name = "FILE", requires = "combine")]
    pub contradictions: Option<PathBuf>,

    /// Check DIR against a seal record file, a `.seal-hash` file or a hash (`sha256:<hex>`,
    /// bare hex, `<hex>  -`) instead of sealing it.
    #[arg(help_heading = "Seal", long, value_name = "RECORD|HASH")]
    pub verify: Option<String>,

    /// How to hash: `strict` (relative paths, byte order, every file: the same from anywhere),
    /// `spec` (the spec's `find | sort | xargs shasum | shasum` pipeline, byte for byte) or
    /// `stampede` (Terminal Stampede's `*.sh` variant). Default: strict, or the record's.
    #[arg(help_heading = "Seal", long, value_enum, value_name = "MODE")]
    pub mode: Option<SealModeArg>,

    /// Hash as if the directory had been given as this path string (spec and stampede
    /// hashes contain it: `sealed`, `./sealed` and `/abs/sealed` differ).
    #[arg(help_heading = "Seal", long = "as", value_name = "PATH")]
    pub hash_as: Option<String>,

    /// Sort as glibc's `en_US.UTF-8` locale does (the pipeline run on a developer machine)
    /// instead of byte order (`LC_ALL=C`, most CI runners).
    #[arg(help_heading = "Seal", long)]
    pub locale_order: bool,

    /// Leave out files matching this glob (matched against the relative path and each of its
    /// components: `__pycache__`, `*.pyc`); repeatable; stored in the record.
    #[arg(help_heading = "Seal", long = "exclude", value_name = "GLOB")]
    pub excludes: Vec<String>,

    /// Record the ids of the expected sealed tests, read from these result files (any
    /// format: a collect-only run, a run against a stub).
    #[arg(help_heading = "Inputs", long, num_args = 1.., value_name = "RESULTS")]
    pub expect: Vec<PathBuf>,

    /// Record the ids of the expected sealed tests by running COMMAND (the stub's test command,
    /// after `--`) as `gapscore run` runs it: in a copy of the current directory with DIR placed
    /// in it, with run's arguments and environment for the runner, and its `--results` read as
    /// run reads them. The ids then match `run`'s by construction.
    #[arg(help_heading = "Running", long, requires_all = ["results", "command"], conflicts_with_all = ["expect", "verify", "combine"])]
    pub expect_run: bool,

    /// With --expect-run: the result files COMMAND writes, relative to where it runs; `-` is
    /// its standard output. Each must be written by the stub run. One PATH per `--results`
    /// (repeat it for more).
    #[arg(
        help_heading = "Running",
        long,
        num_args = 1,
        value_name = "PATH",
        requires = "expect_run"
    )]
    pub results: Vec<PathBuf>,

    /// With --expect-run: end COMMAND's process group after this many seconds (the list is
    /// then refused).
    #[arg(help_heading = "Running", long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..), requires = "expect_run")]
    pub timeout: Option<u64>,

    /// With --expect-run: pass this variable of gapscore's environment on to COMMAND (`NAME`),
    /// or set it (`NAME=VALUE`); as `gapscore run --env`, which the run must be given too.
    #[arg(
        help_heading = "Running",
        long = "env",
        value_name = "NAME[=VALUE]",
        requires = "expect_run"
    )]
    pub env: Vec<gapscore_runner::environment::EnvPass>,

    /// With --expect-run: run a runner that resolves inside the project (as `gapscore run
    /// --trust-workspace-runner`).
    #[arg(help_heading = "Running", long, requires = "expect_run")]
    pub trust_workspace_runner: bool,

    /// With --expect-run: the sandbox the stub's command runs in, as `gapscore run --sandbox`.
    #[arg(help_heading = "Running", long, value_enum, default_value_t = super::SandboxArg::Auto, value_name = "HOW", requires = "expect_run")]
    pub sandbox: super::SandboxArg,

    /// With --expect-run: keep the network inside the sandbox (as `gapscore run --share-net`).
    #[arg(help_heading = "Running", long, requires = "expect_run")]
    pub share_net: bool,

    /// With --expect-run: the stub's test command and its arguments (run directly, not through
    /// a shell).
    #[arg(last = true, value_name = "COMMAND", requires = "expect_run")]
    pub command: Vec<std::ffi::OsString>,

    /// Read the `--expect` (or `--expect-run`) result files as this format instead of
    /// detecting it.
    #[arg(help_heading = "Inputs", long, value_name = "ID")]
    pub input_format: Option<String>,

    /// What to print: the seal record (JSON), or only the hash as `hex`, `sha256` (`sha256:<hex>`)
    /// or `seal-hash` (`<hex>  -`, the `.seal-hash` file form).
    #[arg(
        help_heading = "Output",
        long,
        value_enum,
        default_value = "record",
        value_name = "FORM"
    )]
    pub emit: EmitArg,

    /// Write to this file (atomically) instead of standard output.
    #[arg(help_heading = "Output", short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Plugins for `--expect` files.
    #[command(flatten)]
    pub host: HostArgs,
}

/// Hash modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SealModeArg {
    /// Relative paths, byte order, every file.
    Strict,
    /// The spec's shell pipeline.
    Spec,
    /// Terminal Stampede's `*.sh` variant.
    Stampede,
}

impl From<SealModeArg> for gapscore_seal::dir_hash::HashMode {
    fn from(m: SealModeArg) -> Self {
        match m {
            SealModeArg::Strict => Self::Strict,
            SealModeArg::Spec => Self::Spec,
            SealModeArg::Stampede => Self::Stampede,
        }
    }
}

/// What `gapscore seal` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EmitArg {
    /// The seal record, JSON.
    Record,
    /// The bare lowercase hex digest.
    Hex,
    /// `sha256:<hex>`.
    Sha256,
    /// `<hex>  -`, as `shasum` prints it and `.seal-hash` holds it.
    SealHash,
}

/// How much of each failed sealed test the implementer sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RevealArg {
    /// Only how many sealed tests failed.
    Count,
    /// Plus each failed test's name.
    Name,
    /// Plus its category.
    Category,
    /// Plus its failure message.
    Message,
    /// Plus what it expected and what it got (spec v2 §4.4.1 `failure_messages`).
    #[value(alias = "failure-messages", alias = "failure_messages")]
    Assertion,
    /// Plus the assertion lines of its failure output (pytest `E` lines, Jest `expect`/
    /// `Expected`/`Received` lines, Go `got`/`want` lines), scrubbed (§4.4.1 `assertions`).
    Assertions,
}

impl From<RevealArg> for gapscore_core::feedback::Reveal {
    fn from(r: RevealArg) -> Self {
        match r {
            RevealArg::Count => Self::Count,
            RevealArg::Name => Self::Name,
            RevealArg::Category => Self::Category,
            RevealArg::Message => Self::Message,
            RevealArg::Assertion => Self::Assertion,
            RevealArg::Assertions => Self::Assertions,
        }
    }
}

/// `gapscore feedback`.
#[derive(Debug, Args)]
#[command(after_help = tools::FEEDBACK_HELP)]
pub struct FeedbackArgs {
    /// A Gap Report (any tool's) or the sealed result files (any format).
    #[arg(required = true, value_name = "REPORT|RESULTS")]
    pub inputs: Vec<PathBuf>,

    /// The sealed test directory: every line of its files is redacted from the feedback, and
    /// stack frames and locations in its files are removed. Without it nothing can be checked.
    #[arg(long, value_name = "DIR")]
    pub sealed_dir: Option<PathBuf>,

    /// What to reveal; each level adds to the one before.
    #[arg(long, value_enum, default_value = "assertion", value_name = "LEVEL")]
    pub reveal: RevealArg,

    /// Output: `text` (`SEALED TEST FAILURES:` ...) or `json`.
    #[arg(long, value_enum, default_value = "text", value_name = "FORMAT")]
    pub format: FeedbackFormat,

    /// Sealed source lines shorter than this (after trimming) are not redacted: they are too
    /// common (`pass`, `}`) to identify the source.
    #[arg(long, default_value_t = gapscore_core::feedback::DEFAULT_MIN_LINE_LEN, value_name = "N")]
    pub min_line_len: usize,

    /// Read result files as this format instead of detecting it.
    #[arg(long, value_name = "ID")]
    pub input_format: Option<String>,

    /// Write to this file (atomically) instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Plugins for result files.
    #[command(flatten)]
    pub host: HostArgs,
}

/// Feedback output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FeedbackFormat {
    /// `SEALED TEST FAILURES:` then one `- name: expected X, got Y` line per failure.
    Text,
    /// The feedback object, JSON.
    Json,
}

/// `gapscore harden`.
#[derive(Debug, Subcommand)]
pub enum HardenCommand {
    /// Append a validation to a hardening history file (cycle 0 is the one before the first
    /// fix).
    #[command(after_help = tools::HARDEN_HELP)]
    Record(HardenRecordArgs),
}

/// `gapscore harden record`.
#[derive(Debug, Args)]
pub struct HardenRecordArgs {
    /// The history file (created when missing; written atomically).
    #[arg(value_name = "HISTORY")]
    pub history: PathBuf,

    /// A Gap Report or the sealed result files of this validation.
    #[arg(required = true, value_name = "REPORT|RESULTS")]
    pub inputs: Vec<PathBuf>,

    /// The reveal level of the feedback handed out after this validation.
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub reveal: Option<RevealArg>,

    /// The sealed hash this validation ran under (any spelling); a report's own is used
    /// otherwise. A history refuses a cycle under another hash.
    #[arg(long, value_name = "HASH")]
    pub sealed_hash: Option<String>,

    /// The model family of the implementer whose code this validation scored (kept per cycle).
    /// Refused (exit 2) when it is a seal author's family (spec v2 §4.4.2).
    #[arg(long, value_name = "FAMILY")]
    pub implementer_family: Option<String>,

    /// A seal author's model family; repeatable. Kept in the history, so later cycles are
    /// checked against it too.
    #[arg(long = "seal-author-family", value_name = "FAMILY")]
    pub seal_author_families: Vec<String>,

    /// A seal record (single or combined, from `gapscore seal`): its author families are the
    /// seal authors', and its hash (a combined record's combined hash) is the cycle's unless
    /// --sealed-hash or the report gives one, which must then be the same (else exit 2).
    #[arg(long, value_name = "RECORD")]
    pub seal: Option<PathBuf>,

    /// Read result files as this format instead of detecting it.
    #[arg(long, value_name = "ID")]
    pub input_format: Option<String>,

    /// Plugins for result files.
    #[command(flatten)]
    pub host: HostArgs,
}
