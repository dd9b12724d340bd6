//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use gapscore_core::{FlakyPolicy, OutputFormat, SkippedPolicy, Threshold, XfailPolicy};

use crate::terminal::ColorArg;

mod batch;
mod envelope;
mod report;
mod tips;
mod tools;

pub use batch::{BatchArgs, BatchCommand, BatchOutputArgs, MergeArgs};
pub use envelope::{
    EmitArg, FeedbackArgs, FeedbackFormat, HardenCommand, HardenRecordArgs, RevealArg, SealArgs,
    SealModeArg,
};
pub use report::{DeclaredProvenance, DialectArg, IsolationArg, ProvenanceArgs, SpecVersionArg};
pub use tips::add_tip;
pub use tools::{AdapterLang, CompletionsArgs, ExplainArgs, ManArgs, NewAdapterArgs, Shell};

/// What `gapscore --version` prints after the name: the version and the commit it was built
/// from (cli/build.rs says where that comes from).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("GAPSCORE_BUILD_COMMIT"),
    ")"
);

/// Turn test-runner output into an honest Gap Score (Shadow Score).
#[derive(Debug, Parser)]
#[command(name = "gapscore", version = VERSION, about, infer_long_args = true)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,

    /// Colour the marks of the human text output (`--format summary`, `check`): `auto` on a
    /// terminal unless NO_COLOR is set or TERM=dumb (CLICOLOR_FORCE forces it). Files, JSON,
    /// CSV, JUnit and Markdown never get colour codes.
    #[arg(help_heading = "Output", long, global = true, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN")]
    pub color: ColorArg,

    /// ASCII marks (`[x]`, `[ok]`) instead of emoji in the human text output; the default on a
    /// terminal whose locale (LC_ALL, LC_CTYPE, LANG) is not UTF-8.
    #[arg(help_heading = "Output", long, global = true)]
    pub ascii: bool,
}

/// gapscore's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Score sealed (and optionally open) test results and write a Gap Report.
    Score(ScoreArgs),
    /// Run the sealed test command and score its results, with the runner's own evidence
    /// (exit status, signal, time limit, result files' write times) counted (docs/run.md).
    Run(RunArgs),
    /// Print a JSON Schema: gapscore's report or canonical results schema, or an upstream one.
    Schema(SchemaArgs),
    /// Read result files in any supported format and print the canonical runs.
    Parse(ParseArgs),
    /// List the adapters: built-in and loaded plugins.
    Adapters(AdaptersArgs),
    /// Seal a directory of sealed tests (hash it, write a seal record), or verify one.
    Seal(SealArgs),
    /// The hardening-loop feedback for the implementer: failed sealed tests, scrubbed of the
    /// sealed source.
    Feedback(FeedbackArgs),
    /// Keep the hardening loop's cycle history.
    #[command(subcommand)]
    Harden(HardenCommand),
    /// Score many repositories in one go: per-repository reports, aggregate, CSV, Markdown
    /// and HTML summaries; shards and resume (docs/batch.md).
    Batch(BatchArgs),
    /// Check Gap Reports (any tool's) against spec §5.2 and conformance levels 1-4.
    Check(CheckArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell).
    Completions(CompletionsArgs),
    /// Print gapscore's man page (roff), or write one per command into a directory.
    Man(ManArgs),
    /// Explain a warning, problem, error or refusal code: what went wrong and what to do
    /// (docs/codes.md lists every code).
    Explain(ExplainArgs),
    /// Write a working adapter skeleton (Rust, C or Python) with a fixture and a test
    /// (docs/writing-an-adapter.md).
    NewAdapter(NewAdapterArgs),
    /// Serves one adapter plugin to a parent gapscore (`--plugin-isolate`): not for people.
    #[command(name = "__plugin-serve", hide = true)]
    PluginServe(PluginServeArgs),
}

/// `gapscore __plugin-serve [--plugin-debug] FILE VERB…`: the child of `--plugin-isolate`,
/// speaking the executable adapter protocol for the plugin `FILE`.
#[derive(Debug, Args)]
pub struct PluginServeArgs {
    /// Show what the plugin returned when it is rejected.
    #[arg(long = "plugin-debug")]
    pub plugin_debug: bool,
    /// The plugin file.
    pub file: PathBuf,
    /// `--gapscore-info`, `--gapscore-detect [NAME]` or `--gapscore-parse OPTIONS_JSON`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub verb: Vec<String>,
}

/// Where adapter plugins come from, and how many threads read inputs.
#[derive(Debug, Clone, Args)]
pub struct HostArgs {
    /// Load this adapter plugin (`libgapscore_adapter_<name>.so`); repeatable.
    #[arg(help_heading = "Plugins", long = "plugin", value_name = "FILE")]
    pub plugins: Vec<PathBuf>,

    /// Load every adapter plugin in this directory; repeatable. `GAPSCORE_PLUGIN_PATH` adds more.
    #[arg(help_heading = "Plugins", long = "plugin-dir", value_name = "DIR")]
    pub plugin_dirs: Vec<PathBuf>,

    /// Use a program as an adapter: it reads a result file on stdin and writes NDJSON events
    /// (docs/abi.md, "Executable adapters"); repeatable. No shell runs: quote with ' or ".
    #[arg(help_heading = "Plugins", long = "plugin-exec", value_name = "CMD")]
    pub plugin_execs: Vec<String>,

    /// When a plugin's output is rejected, show what it returned (escaped, bounded).
    #[arg(help_heading = "Plugins", long = "plugin-debug")]
    pub plugin_debug: bool,

    /// Run `--plugin`/`--plugin-dir` plugins in a child gapscore process (same ABI, results
    /// over a pipe): a plugin that crashes fails the file it was reading, naming the plugin and
    /// the signal, and the other files are read. Contains crashes, not malice (docs/abi.md).
    #[arg(help_heading = "Plugins", long = "plugin-isolate")]
    pub plugin_isolate: bool,

    /// How long a `--plugin-exec` program (or an isolated plugin) may take to read one file,
    /// in seconds (1 to 604800, a week); it is stopped after that.
    #[arg(help_heading = "Plugins", long = "plugin-exec-timeout", value_name = "SECS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=604_800))]
    pub plugin_exec_timeout: u64,

    /// Threads reading input files (default: one per core). Output order never depends on it.
    #[arg(help_heading = "Inputs", long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

/// `gapscore parse`.
#[derive(Debug, Args)]
#[command(after_help = tools::PARSE_HELP)]
pub struct ParseArgs {
    /// Result files, directories or glob patterns; `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Read every file as this format (or adapter name) instead of detecting it.
    #[arg(long, value_name = "ID")]
    pub input_format: Option<String>,

    /// Exit 0 even when an input file was cut off (its complete tests are still printed, with a
    /// `truncated` problem); without it a truncated input exits 2.
    #[arg(long)]
    pub allow_truncated: bool,

    /// Output format: `json` (the canonical runs as a JSON array, the default), `ndjson` (one
    /// record per line: `run`, `test`, `problem`, `warning`, `end`) or `ctrf` (one CTRF
    /// document). Any other value is read as the input format, the old spelling of
    /// `--input-format`, with a warning.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,

    /// Write to this file (atomically) instead of standard output. `--output json|ctrf` is the
    /// old spelling of `--format` and is read so, with a warning (`-o ./ctrf` names a file).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// The old spelling of `--output FILE`, accepted with a warning.
    #[arg(long = "out", value_name = "FILE", hide = true)]
    pub out: Option<PathBuf>,

    #[command(flatten)]
    pub host: HostArgs,
}

/// `gapscore parse --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ParseOutput {
    /// A JSON array of canonical runs (`schema/test-results.schema.json` each).
    Json,
    /// One JSON object per line: a `run` line per file, then its tests, problems and warnings
    /// as they are read, then `end` (or `error` when the file could not be read to its end).
    Ndjson,
    /// One CTRF document with the tests of every file.
    Ctrf,
}

/// `gapscore adapters`. `-j` is accepted but hidden: listing reads no input.
#[derive(Debug, Args)]
#[command(after_help = tools::ADAPTERS_HELP, mut_arg("jobs", |a| a.hide(true)))]
pub struct AdaptersArgs {
    #[command(flatten)]
    pub host: HostArgs,

    /// Write the list to this file (atomically) instead of standard output.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        help_heading = "Output"
    )]
    pub output: Option<PathBuf>,

    /// For each file (directories and globs expanded as for reading), every adapter's detection
    /// score and why, and which adapter gapscore would choose and why, instead of the list.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub explain: Vec<PathBuf>,

    /// The list's format: `text`, a table; `json`, one object whose field names are stable
    /// (docs/score.md, under the table of built-in adapters).
    #[arg(long, value_enum, default_value_t = AdaptersFormat::Text, value_name = "FORMAT", help_heading = "Output")]
    pub format: AdaptersFormat,
}

/// `gapscore adapters --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AdaptersFormat {
    /// One line per adapter: name, version, formats, origin.
    Text,
    /// `{"version": 1, "adapters": [{"name", "version", "formats", "origin", "path"}]}`.
    Json,
}

/// `gapscore score`.
#[derive(Debug, Args)]
#[command(after_help = tools::SCORE_HELP)]
pub struct ScoreArgs {
    /// Result files of the sealed (hidden, spec-derived) tests: files, directories or globs, in
    /// any supported format; `-` reads standard input (`go test -json ./... | gapscore score
    /// --sealed -`).
    #[arg(help_heading = "Inputs", long, required = true, num_args = 1.., value_name = "FILE")]
    pub sealed: Vec<PathBuf>,

    /// Everything else `score` and `run` share.
    #[command(flatten)]
    pub opts: ScoreOptions,
}

/// The options `gapscore score` and `gapscore run` share: everything but where the sealed
/// results come from.
#[derive(Debug, Clone, Args)]
pub struct ScoreOptions {
    /// Result files of the implementer's own (open) tests.
    #[arg(help_heading = "Inputs", long, num_args = 1.., value_name = "FILE")]
    pub open: Vec<PathBuf>,

    /// Read the inputs as this format (or adapter name) instead of detecting it (`--format` is
    /// the report's format).
    #[arg(help_heading = "Inputs", long, value_name = "ID")]
    pub input_format: Option<String>,

    /// Retired: a cut input is a counted problem that makes the report advisory, and exits as
    /// any advisory report does (see --allow-advisory). Accepted with a warning.
    #[arg(help_heading = "Inputs", long, hide = true)]
    pub allow_truncated: bool,

    /// With --threshold: let an advisory report (a suite that did not fully run, a cut input, a
    /// broken seal, zero sealed tests) pass on its score alone. Without it an advisory report
    /// fails the gate (exit 1) whatever its score.
    #[arg(help_heading = "Scoring policy", long)]
    pub allow_advisory: bool,

    /// Exit 1 when the displayed score is above this percentage (0 means: no failures at all).
    #[arg(
        help_heading = "Scoring policy",
        long,
        value_name = "PERCENT",
        allow_negative_numbers = true
    )]
    pub threshold: Option<Threshold>,

    /// Print every warning on standard error. By default warnings of one kind (the same
    /// message but for names, numbers and files) are one line with their count and first
    /// places; the report counts them all (`gapscore.warning_counts`).
    #[arg(help_heading = "Output", long, short = 'v')]
    pub verbose: bool,

    /// Output format.
    #[arg(help_heading = "Output", long, value_enum, default_value_t = FormatArg::Json)]
    pub format: FormatArg,

    /// Markdown and summary: list at most N failures in full and count the rest (per suite in
    /// Markdown). Not for JSON, whose `failures` must list every failed sealed test (§5.2).
    #[arg(help_heading = "Output", long, value_name = "N")]
    pub max_failures: Option<usize>,

    /// GitHub format: write at most N error annotations, one per failed sealed test (default
    /// 10: GitHub shows 10 per step); a last notice counts the rest.
    #[arg(help_heading = "Output", long, value_name = "N")]
    pub max_annotations: Option<usize>,

    /// JSON key names: `shadow` (shadow_score_*), `gap` (gap_score_*) or `both`.
    #[arg(help_heading = "Output", long, value_enum, default_value_t = DialectArg::Shadow)]
    pub dialect: DialectArg,

    /// Spec version and v2 provenance.
    #[command(flatten)]
    pub v2: ProvenanceArgs,

    /// Write the report to this file (atomically) instead of standard output.
    #[arg(
        help_heading = "Output",
        short = 'o',
        long = "output",
        value_name = "OUT"
    )]
    pub output: Option<PathBuf>,

    /// With -o: add the report to the end of the file instead of replacing it (a job summary,
    /// `$GITHUB_STEP_SUMMARY`). Markdown is cut so the whole file stays within GitHub's 65,536
    /// characters; when not even its headline fits, nothing is added (a warning says so).
    #[arg(help_heading = "Output", long, requires = "output")]
    pub append: bool,

    /// Also write the report in another format to PATH (replaced atomically, as -o), from the
    /// same score: `--also json=report.json`; `-` is standard output when -o sends the main
    /// report to a file. Repeatable.
    #[arg(help_heading = "Output", long = "also", value_name = "FORMAT=PATH")]
    pub also: Vec<AlsoOutput>,

    /// Also add the report in another format to the end of PATH (a regular file, made when
    /// missing), as --append does: `--also-append markdown=$GITHUB_STEP_SUMMARY
    /// --also-append github-output=$GITHUB_OUTPUT`. Repeatable.
    #[arg(
        help_heading = "Output",
        long = "also-append",
        value_name = "FORMAT=PATH"
    )]
    pub also_append: Vec<AlsoOutput>,

    /// What skipped and todo tests count as (sealed and open suites alike).
    #[arg(help_heading = "Scoring policy", long, value_enum, default_value_t = SkippedArg::Fail)]
    pub skipped: SkippedArg,

    /// What xfailed tests count as (sealed and open suites alike).
    #[arg(help_heading = "Scoring policy", long, value_enum, default_value_t = PassFailArg::Fail)]
    pub xfail: PassFailArg,

    /// What tests that passed only on a retry count as (sealed and open suites alike).
    #[arg(help_heading = "Scoring policy", long, value_enum, default_value_t = PassFailArg::Pass)]
    pub flaky: PassFailArg,

    /// Refuse to report on zero sealed tests (exit 2) instead of an advisory 0.0.
    #[arg(help_heading = "Scoring policy", long)]
    pub strict: bool,

    /// `report.specification`: path or name of the specification document.
    #[arg(help_heading = "Provenance", long = "spec", value_name = "SPEC")]
    pub specification: Option<String>,

    /// `report.sealed_hash`: SHA-256 of the sealed test directory (`sha256:<hex>`, bare hex, or
    /// `<hex>  -`).
    #[arg(help_heading = "Provenance", long, value_name = "HASH")]
    pub sealed_hash: Option<String>,

    /// `report.id` (default: `run-<UTC date>-<time>`).
    #[arg(help_heading = "Output", long, value_name = "ID")]
    pub id: Option<String>,

    /// Category rules (TOML: ordered `[[rule]]` entries with a `category` and regexes on
    /// `suite`, `name`, `file`), applied to sealed and open tests after the adapters' own
    /// categories; see docs/sealed-envelope.md.
    #[arg(help_heading = "Output", long, value_name = "FILE")]
    pub categories: Option<PathBuf>,

    /// A hardening history (from `gapscore harden record`): fills the report's `hardening`
    /// object (cycles, initial and final scores, velocity, every cycle). Needs --max-cycles:
    /// the loop's budget, which the history does not record.
    #[arg(
        help_heading = "Scoring policy",
        long,
        value_name = "FILE",
        requires = "max_cycles"
    )]
    pub history: Option<PathBuf>,

    /// The most hardening cycles the loop allows (needs `--history`). A score still above 0
    /// after them calls for human review: the report says so and the exit code is 1.
    #[arg(help_heading = "Scoring policy", long, value_name = "N", requires = "history", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_cycles: Option<u64>,

    /// Report the §3.5 overlap ratio: how many sealed tests an open test anticipated, matched
    /// by name (approximate; needs `--open`).
    #[arg(help_heading = "Output", long, requires = "open")]
    pub overlap: bool,

    /// The name similarity (0–1) at which a sealed and an open test match (default 0.5).
    #[arg(help_heading = "Output", long, value_name = "X", requires = "overlap")]
    pub overlap_threshold: Option<f64>,

    /// A seal record (from `gapscore seal`): check `--sealed-dir` against it before scoring,
    /// and, when it lists expected tests, count each one missing from the results as failed.
    /// Without --sealed-dir (as in `batch`) only the record's hash and expected tests count: a
    /// warning says no directory was checked. A combined record (`seal --combine`, spec v2)
    /// needs --sealed-dir: it checks every suite, its directory relative to it.
    #[arg(help_heading = "Seal", long, value_name = "RECORD")]
    pub seal: Option<PathBuf>,

    /// The sealed test directory: the `--seal` record was made from it and is checked against
    /// it. With or without `--seal`, a lenient policy (`--skipped exclude|pass`, `--xfail pass`)
    /// applies only to a skip or xfail decided inside it; any other counts as failed. `run`
    /// without `--seal` places it read-only but verifies nothing (and says so).
    #[arg(help_heading = "Seal", long, value_name = "DIR")]
    pub sealed_dir: Option<PathBuf>,

    /// Let a lenient policy apply to skips and xfails whose place the format does not record
    /// (JUnit from most tools, TAP, Go); those with a recorded place must still lie inside
    /// `--sealed-dir`.
    #[arg(help_heading = "Scoring policy", long)]
    pub trust_unlocated_skips: bool,

    /// Score even when the sealed directory no longer matches its seal; the report is then
    /// advisory with `seal_broken: true`. Needs --seal and --sealed-dir.
    #[arg(
        help_heading = "Seal",
        long,
        requires = "seal",
        requires = "sealed_dir"
    )]
    pub allow_broken_seal: bool,

    /// Leave files matching this glob out of the seal check, on top of the record's own
    /// (matched against the relative path and each of its components); repeatable. Needs
    /// --seal and --sealed-dir.
    #[arg(
        help_heading = "Seal",
        long = "exclude",
        value_name = "GLOB",
        requires = "seal",
        requires = "sealed_dir"
    )]
    pub excludes: Vec<String>,

    #[command(flatten)]
    pub host: HostArgs,
}

/// `--workspace`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WorkspaceArg {
    /// A disposable copy of the project (spec v2 §4.3), deleted afterwards.
    Copy,
    /// The project directory itself.
    Inplace,
}

/// `--sandbox`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SandboxArg {
    /// Bubblewrap where it works here, else none (the report says which, and why).
    Auto,
    /// Bubblewrap, or exit 2 without running.
    Bwrap,
    /// No sandbox: the command can write anywhere gapscore's user can.
    None,
}

impl SandboxArg {
    /// The runner's sandbox options for `--sandbox` and `--share-net` (`run`, `seal
    /// --expect-run`).
    pub fn options(self, share_net: bool) -> gapscore_runner::sandbox::SandboxOptions {
        use gapscore_runner::sandbox::{SandboxMode, SandboxOptions};
        let mut o = SandboxOptions::new(match self {
            SandboxArg::Auto => SandboxMode::Auto,
            SandboxArg::Bwrap => SandboxMode::Bwrap,
            SandboxArg::None => SandboxMode::None,
        });
        o.share_net = share_net;
        o
    }
}

/// `gapscore run`.
#[derive(Debug, Args)]
#[command(
    after_help = tools::RUN_HELP,
    // `run` places the sealed tests in its workspace from --sealed-dir, so its --seal is always
    // checked against one (`score` also takes the record alone).
    mut_arg("seal", |a| a.requires("sealed_dir"))
)]
pub struct RunArgs {
    /// The sealed results the command writes: files, directories or globs (relative to the
    /// directory it runs in); `-` is its standard output (`go test -json`, TAP). Each must be
    /// written during the run: a stale or missing one is a counted problem, not scored. One
    /// PATH per `--results` (repeat it for more), so a command not put after `--` is refused
    /// rather than read as result paths.
    #[arg(
        help_heading = "Inputs",
        long,
        required = true,
        num_args = 1,
        value_name = "PATH"
    )]
    pub results: Vec<PathBuf>,

    /// End the command's whole process group after this many seconds (SIGTERM, then SIGKILL):
    /// a `timeout` problem.
    #[arg(help_heading = "Running", long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: Option<u64>,

    /// Where the command runs: a disposable copy of the current directory with the sealed
    /// tests placed in it, or the current directory itself.
    #[arg(help_heading = "Running", long, value_enum, default_value_t = WorkspaceArg::Copy, value_name = "HOW")]
    pub workspace: WorkspaceArg,

    /// The sandbox the command runs in: bubblewrap (`bwrap`: the root read-only, the workspace
    /// the only writable place, the sealed tests read-only, no network, its own PID namespace).
    #[arg(help_heading = "Running", long, value_enum, default_value_t = SandboxArg::Auto, value_name = "HOW")]
    pub sandbox: SandboxArg,

    /// Keep the network inside the sandbox.
    #[arg(help_heading = "Running", long)]
    pub share_net: bool,
    /// Pass this variable of gapscore's environment on to the command (`NAME`), or set it
    /// (`NAME=VALUE`); repeatable. The command gets only PATH, LANG, LC_*, TZ, TERM, a HOME
    /// and TMPDIR of its own, and these (docs/run-recipes.md).
    #[arg(help_heading = "Running", long = "env", value_name = "NAME[=VALUE]")]
    pub env: Vec<gapscore_runner::environment::EnvPass>,

    /// Run even when the runner, or a module its framework loads, resolves inside the
    /// workspace (the project's node_modules/.bin, lib/, a .venv in it); the report records
    /// what was trusted.
    #[arg(help_heading = "Running", long)]
    pub trust_workspace_runner: bool,

    /// Every `gapscore score` option.
    #[command(flatten)]
    pub opts: ScoreOptions,

    /// The test command and its arguments, after `--` (run directly, not through a shell).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<std::ffi::OsString>,
}

/// `gapscore schema`.
#[derive(Debug, Args)]
#[command(after_help = tools::SCHEMA_HELP)]
pub struct SchemaArgs {
    /// Which schema to print.
    #[arg(value_enum)]
    pub which: SchemaArg,

    /// Write to this file (atomically) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Schemas `gapscore schema` prints.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SchemaArg {
    /// gapscore's Gap Report schema.
    Report,
    /// gapscore's canonical test-run schema.
    Results,
    /// gapscore's seal record schema (`gapscore seal`).
    SealRecord,
    /// The output of `gapscore check --format json`.
    CheckOutput,
    /// Upstream Shadow Score schema, spec v1.0.0.
    ShadowV1,
    /// Upstream Shadow Score schema, spec v2.0.0.
    ShadowV2,
    /// Upstream Gap Score schema (before the rename).
    Gap,
}

/// `--format`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    /// JSON Gap Report (2-space indent).
    Json,
    /// Markdown, fit for a pull-request comment.
    Markdown,
    /// The reference validators' summary text.
    Summary,
    /// A benchmark harness's reward.json (Harbor): reward = 1 - score/100, 0 when advisory or
    /// refused; every value a number (docs/harbor.md).
    Reward,
    /// `key=value` step outputs for `$GITHUB_OUTPUT` (score, level, verdict, sealed-total,
    /// sealed-failed, advisory; docs/ci.md).
    GithubOutput,
    /// GitHub Actions workflow commands: an annotation per failed sealed test (see
    /// --max-annotations), per problem kind, and the score.
    Github,
    /// The scored sealed suite as JUnit XML: a test case per sealed test, problems as errors,
    /// the score in the properties.
    Junit,
}

impl From<FormatArg> for OutputFormat {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Json => OutputFormat::Json,
            FormatArg::Markdown => OutputFormat::Markdown,
            FormatArg::Summary => OutputFormat::Summary,
            FormatArg::Reward => OutputFormat::Reward,
            FormatArg::GithubOutput => OutputFormat::GithubOutput,
            FormatArg::Github => OutputFormat::Github,
            FormatArg::Junit => OutputFormat::Junit,
        }
    }
}

/// `--also FORMAT=PATH`, `--also-append FORMAT=PATH`: one more output of the same report.
#[derive(Debug, Clone)]
pub struct AlsoOutput {
    /// Its format.
    pub format: FormatArg,
    /// Where it goes (`-`: standard output).
    pub path: PathBuf,
}

impl std::str::FromStr for AlsoOutput {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let formats = || {
            FormatArg::value_variants()
                .iter()
                .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_owned()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some((format, path)) = s.split_once('=') else {
            return Err(format!(
                "expected FORMAT=PATH, FORMAT one of: {}",
                formats()
            ));
        };
        let format = FormatArg::from_str(format, false).map_err(|_| {
            format!(
                "`{format}` is not a format (expected one of: {})",
                formats()
            )
        })?;
        if path.is_empty() {
            return Err("the PATH after `=` is empty".to_owned());
        }
        Ok(AlsoOutput {
            format,
            path: PathBuf::from(path),
        })
    }
}

/// `--skipped`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SkippedArg {
    /// Count as passed.
    Pass,
    /// Count as failed (not verified).
    Fail,
    /// Leave out of the total.
    Exclude,
}

impl From<SkippedArg> for SkippedPolicy {
    fn from(s: SkippedArg) -> Self {
        match s {
            SkippedArg::Pass => SkippedPolicy::Pass,
            SkippedArg::Fail => SkippedPolicy::Fail,
            SkippedArg::Exclude => SkippedPolicy::Exclude,
        }
    }
}

/// `--xfail` and `--flaky`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PassFailArg {
    /// Count as passed.
    Pass,
    /// Count as failed.
    Fail,
}

impl From<PassFailArg> for XfailPolicy {
    fn from(p: PassFailArg) -> Self {
        match p {
            PassFailArg::Pass => XfailPolicy::Pass,
            PassFailArg::Fail => XfailPolicy::Fail,
        }
    }
}

impl From<PassFailArg> for FlakyPolicy {
    fn from(p: PassFailArg) -> Self {
        match p {
            PassFailArg::Pass => FlakyPolicy::Pass,
            PassFailArg::Fail => FlakyPolicy::Fail,
        }
    }
}

/// `gapscore check`.
#[derive(Debug, Args)]
#[command(after_help = tools::CHECK_HELP)]
pub struct CheckArgs {
    /// Gap Reports (Shadow Reports) to check, in any published dialect and version; `-` reads
    /// one from standard input.
    #[arg(required = true, value_name = "REPORT")]
    pub reports: Vec<PathBuf>,

    /// The conformance level that must hold (4, spec v2's adversarial independence, is judged
    /// only when asked for).
    #[arg(help_heading = "Scoring policy", long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=4))]
    pub level: u8,

    /// The sealed test directory: recompute the report's sealed hash (Level 2) and scan the
    /// failure texts for lines of sealed source (Level 3).
    #[arg(help_heading = "Seal", long, value_name = "DIR")]
    pub sealed_dir: Option<PathBuf>,

    /// A seal record (from `gapscore seal`): its hash must be the report's, and it says how to
    /// recompute it and when the tests were sealed. A combined record (`seal --combine`) needs
    /// --sealed-dir: every suite is verified under it.
    #[arg(help_heading = "Seal", long, value_name = "RECORD")]
    pub seal: Option<PathBuf>,

    /// Output: `text` (grouped by level, with fix hints) or `json`.
    #[arg(
        help_heading = "Output",
        long,
        value_enum,
        default_value = "text",
        value_name = "FORMAT"
    )]
    pub format: CheckFormat,

    /// Text output: list every requirement and finding, not only those that bear on the
    /// verdict (errors, and warnings that lower the level).
    #[arg(help_heading = "Output", short, long)]
    pub verbose: bool,

    /// Write to this file (atomically) instead of standard output.
    #[arg(help_heading = "Output", short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Refuse a report larger than this many bytes, unread (default 32 MiB; a check takes
    /// several times the report's size in memory).
    #[arg(help_heading = "Inputs", long, value_name = "BYTES", default_value_t = gapscore_check::DEFAULT_MAX_REPORT_BYTES)]
    pub max_size: u64,
}

/// `gapscore check` output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// For people.
    Text,
    /// For machines (schema: check/check-output.schema.json).
    Json,
    /// GitHub Actions workflow commands: an annotation per error and warning finding, and the
    /// level each file reached.
    Github,
}
