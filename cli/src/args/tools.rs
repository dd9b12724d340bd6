//! The arguments of `gapscore completions` and `gapscore man`, and every command's closing help:
//! its exit codes and two or three examples, real commands run from the repository's root on
//! files shipped in it (`cli/tests/it/help.rs` runs each one). An example longer than a line
//! goes on indented after ` \`, so that clap's wrapping (at 100 columns) never breaks one.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// `gapscore completions`.
#[derive(Debug, Args)]
#[command(after_help = COMPLETIONS_HELP)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// The shells `gapscore completions` writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    /// GNU Bash.
    Bash,
    /// Z shell.
    Zsh,
    /// fish.
    Fish,
    /// PowerShell.
    Powershell,
}

/// `gapscore man`.
#[derive(Debug, Args)]
#[command(after_help = MAN_HELP)]
pub struct ManArgs {
    /// Write `gapscore.1` and one page per command (`gapscore-score.1`, ...) into this
    /// directory instead of printing `gapscore.1`.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// `gapscore explain`.
#[derive(Debug, Args)]
#[command(after_help = EXPLAIN_HELP)]
pub struct ExplainArgs {
    /// The code to explain (`W101`, any case), or a problem kind (`missing-results`).
    #[arg(value_name = "CODE", required_unless_present_any = ["list", "markdown"])]
    pub code: Option<String>,

    /// List every code with its title.
    #[arg(long, conflicts_with_all = ["code", "markdown"])]
    pub list: bool,

    /// Print the whole registry as Markdown (what docs/codes.md holds).
    #[arg(long, conflicts_with = "code")]
    pub markdown: bool,
}

/// `gapscore new-adapter`.
#[derive(Debug, Args)]
#[command(after_help = NEW_ADAPTER_HELP)]
pub struct NewAdapterArgs {
    /// The adapter's name: lower-case letters, digits, `-` and `_` (`my-csv`). It names the
    /// plugin file and its entry symbol (`gapscore_adapter_my_csv`).
    #[arg(value_name = "NAME")]
    pub name: String,

    /// The language of the skeleton.
    #[arg(long, value_enum, default_value_t = AdapterLang::Rust)]
    pub lang: AdapterLang,

    /// Write into this directory (new, or empty) instead of `./gapscore-adapter-NAME`.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// The languages `gapscore new-adapter` writes a skeleton in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AdapterLang {
    /// A Rust crate on gapscore-adapter-sdk, built as a plugin (cdylib).
    Rust,
    /// A C plugin (C ABI v2) with the header, a Makefile and a test script.
    C,
    /// An executable adapter in Python 3 (the NDJSON protocol), with a unittest.
    Python,
}

/// The closing help of `gapscore new-adapter`.
pub(crate) const NEW_ADAPTER_HELP: &str = "\
Exit codes: 0 written, 2 invalid name, a directory that is not empty, or a write error.

Examples:
  gapscore new-adapter my-csv
  gapscore new-adapter my-lines --lang c --dir my-lines-plugin
  gapscore new-adapter my-py --lang python";

/// The closing help of `gapscore explain`.
pub(crate) const EXPLAIN_HELP: &str = "\
Exit codes: 0 ok, 2 unknown code.

Examples:
  gapscore explain W101
  gapscore explain missing-results
  gapscore explain --list";

/// The closing help of `gapscore score`.
pub(crate) const SCORE_HELP: &str = "\
Exit codes: 0 ok, 1 score above --threshold, 2 usage or input error.

Examples:
  gapscore score --format summary \\
    --sealed conformance-tests/upstream/examples/02-minor-gaps/sealed-results.json \\
    --open conformance-tests/upstream/examples/02-minor-gaps/open-results.json
  gapscore score --format markdown -o report.md \\
    --sealed conformance-tests/upstream/examples/03-critical-gaps/sealed-results.json
  gapscore score --input-format junit-xml --threshold 0 \\
    --sealed conformance-tests/fixtures/reports/artifacts/junit-results.xml";

/// The closing help of `gapscore run`.
pub(crate) const RUN_HELP: &str = "\
Exit codes: 0 ok, 1 score above --threshold (or an advisory report under --threshold: a runner that failed, was killed, timed out or was interrupted, stale or missing results), 2 usage or input error, a broken seal, files the seal does not hash in the sealed directory, --sandbox bwrap where bubblewrap does not work, or a command that could not be started. The command's output goes to standard error. See docs/run.md.

Examples:
  gapscore run --workspace inplace --results sealed.json --format summary \\
    -- cp conformance-tests/upstream/examples/02-minor-gaps/sealed-results.json sealed.json
  gapscore run --workspace inplace --results - --timeout 60 \\
    -- cat conformance-tests/fixtures/reports/artifacts/junit-results.xml";

/// The closing help of `gapscore parse`.
pub(crate) const PARSE_HELP: &str = "\
Exit codes: 0 every file read, 2 some file could not be read (the others are still printed to standard output; with -o no file is written).

JSON and NDJSON are written as the files are read, one file at a time, in flat memory. NDJSON lines: `run` (source, format), then `test`, `problem`, `warning`, `producer` as read, then `end` (read to its end) or `error` (could not be; the lines before it are what was read). CTRF is built whole.

Examples:
  gapscore parse conformance-tests/fixtures/reports/artifacts/junit-results.xml
  gapscore parse --format ctrf -o sealed.ctrf.json \\
    conformance-tests/upstream/examples/02-minor-gaps/sealed-results.json
  gapscore parse --format ndjson tests/bad-input/junit/latin1-declared.xml --input-format junit-xml";

/// The closing help of `gapscore adapters`.
pub(crate) const ADAPTERS_HELP: &str = "\
Exit codes: 0 ok, 2 a plugin could not be loaded (or, with --explain, a file could not be read).

Examples:
  gapscore adapters
  gapscore adapters --format json
  gapscore adapters --explain adapters/junit/tests/fixtures/valid/bare-testsuite.xml";

/// The closing help of `gapscore seal`.
pub(crate) const SEAL_HELP: &str = "\
Exit codes: 0 sealed (or the directory matches), 1 the directory does not match the seal (--verify), 2 usage or input error.

Examples:
  gapscore seal conformance-tests/fixtures/evidence/l3-seal-record-only/sealed -o seal.json
  gapscore seal conformance-tests/fixtures/evidence/l3-seal-record-only/sealed --emit sha256
  gapscore seal conformance-tests/fixtures/evidence/l3-seal-record-only/sealed \\
    --expect conformance-tests/upstream/examples/02-minor-gaps/sealed-results.json";

/// The closing help of `gapscore schema`.
pub(crate) const SCHEMA_HELP: &str = "\
Examples:
  gapscore schema report
  gapscore schema shadow-v2";

/// The closing help of `gapscore feedback`.
pub(crate) const FEEDBACK_HELP: &str = "\
Exit codes: 0 feedback written, 2 usage or input error. See docs/hardening.md.

Examples:
  gapscore feedback conformance-tests/upstream/examples/03-critical-gaps/sealed-results.json
  gapscore feedback --reveal name --format json -o feedback.json \\
    conformance-tests/upstream/examples/03-critical-gaps/sealed-results.json";

/// The closing help of `gapscore harden record`.
pub(crate) const HARDEN_HELP: &str = "\
Exit codes: 0 recorded, 2 usage or input error. See docs/hardening.md.

Examples:
  gapscore harden record --reveal message history.json \\
    conformance-tests/upstream/examples/03-critical-gaps/sealed-results.json
  gapscore harden record --reveal name history.json \\
    conformance-tests/upstream/examples/02-minor-gaps/sealed-results.json";

/// The closing help of `gapscore check`.
pub(crate) const CHECK_HELP: &str = "\
Exit codes: 0 the level holds for every report, 1 it does not for some, 2 a file could not be read (the others are still checked). See docs/conformance.md.

Examples:
  gapscore check conformance-tests/fixtures/evidence/l3-seal-record-only/report.json
  gapscore check --level 3 --verbose \\
    --seal conformance-tests/fixtures/evidence/l3-seal-record-only/seal.json \\
    conformance-tests/fixtures/evidence/l3-seal-record-only/report.json
  gapscore check --format json -o check.json \\
    conformance-tests/fixtures/reports/artifacts/junit-results.xml";

/// The closing help of `gapscore batch`.
pub(crate) const BATCH_HELP: &str = "\
Exit codes: 0 every repository scored (and none above --threshold), 1 some repository above --threshold, 2 usage error or outputs not written, 3 some repositories could not be scored (error rows; wins over 1). See docs/batch.md.

Examples:
  gapscore batch conformance-tests/batch-examples.toml -o batch-out --quiet
  gapscore batch conformance-tests/batch-examples.toml -o shard-1 --shard 1/2 --threshold 20
  gapscore batch conformance-tests/batch-examples.toml -o shard-2 --shard 2/2 --threshold 20";

/// The closing help of `gapscore batch merge`.
pub(crate) const MERGE_HELP: &str = "\
Exit codes: 0 every repository scored (and none above --threshold), 1 some repository above --threshold, 2 usage error or outputs not written, 3 some repositories could not be scored (error rows; wins over 1). See docs/batch.md.

Examples (after the two shards of `gapscore batch --help`):
  gapscore batch merge shard-1 shard-2 -o merged";

/// The closing help of `gapscore completions`.
const COMPLETIONS_HELP: &str = "\
Examples:
  gapscore completions bash
  gapscore completions zsh
  gapscore completions fish

Install (bash): gapscore completions bash > ~/.local/share/bash-completion/completions/gapscore
Install (zsh): gapscore completions zsh > ~/.zfunc/_gapscore (with ~/.zfunc in $fpath)
Install (fish): gapscore completions fish > ~/.config/fish/completions/gapscore.fish";

/// The closing help of `gapscore man`.
const MAN_HELP: &str = "\
Examples:
  gapscore man
  gapscore man --dir man

Read it: gapscore man | man -l -";
