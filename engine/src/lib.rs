//! gapscore's engine: the one place a score is made. Every command that scores goes through it
//! (`score`, `batch`, `harden`, `feedback`, and the checker's seal evidence), so a scoring rule is
//! written once.
//!
//! [`score()`] takes a [`ScoreRequest`] (inputs per suite, status policy, category rules, seal
//! record and sealed directory, hardening history, overlap, report settings, limits) and returns
//! a [`ScoreOutcome`]: the Gap Report, the diagnostics in the order they arose, and the
//! [`ExitCode`] the command ends with. Nothing here prints.
//!
//! Principal items:
//! - [`ScoreRequest`], [`ScoreOutcome`] (a [`Scored`] report or a [`Refusal`]), [`score()`]: the
//!   pipeline ([`score`]); [`gate`]: the `--threshold` gate, decided once.
//! - [`suite::tally_suite`], [`Diagnostic`]: one suite read and counted.
//! - the seal a score runs under, checked through `gapscore_seal::checked_seal::check` (sealing,
//!   the one verification and seal plurality are in `gapscore-seal`);
//!   [`expected_tests::expected_ids`]: a stub run's tests for a seal record (`seal --expect`).
//! - [`run::run`], [`RunRequest`]: `gapscore run` as one pipeline whose order of judgement is
//!   written in one function, ending in the same [`score()`];
//!   [`runner_evidence::RunnerInput`], [`runner_evidence::check_results`]: what a run adds (the
//!   runner's evidence as problems, result files checked for this run's writing).
//! - [`validation::load_validation`], [`validation::load_history`]: hardening cycles.
//! - [`fs`]: the atomic writer and the sealed source for scrubbing (the sealed-directory reader
//!   and its `FsError` are `gapscore_seal::sealed_dir`).
//! - [`ExitCode`], [`Error`]: how a command ends.
//!
//! ```
//! use gapscore_engine::{ExitCode, ScoreRequest, score};
//! use gapscore_engine::adapters::Registry;
//!
//! let dir = tempfile::tempdir()?;
//! let results = dir.path().join("sealed.json");
//! std::fs::write(
//!     &results,
//!     r#"{"tests": [{"name": "a", "status": "passed"}, {"name": "b", "status": "failed"}]}"#,
//! )?;
//! let outcome = score(&ScoreRequest::new(vec![results]), &Registry::builtin());
//! assert_eq!(outcome.exit(), ExitCode::Ok);
//! let report = outcome.report().expect("scored");
//! assert_eq!(report.score_value(), Some(50.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod console;
mod dotted_twins;
pub mod error;
pub mod exit;
mod expect_place;
pub mod expect_run;
pub mod expected_tests;
pub mod fs;
pub mod gate;
mod manifest_notes;
pub mod outcome;
pub mod run;
pub mod runner_evidence;
pub mod score;
pub mod suite;
pub mod validation;

/// The crates below the engine, for callers that must not depend on them directly (the report
/// checker reads seal records and report types through the engine).
pub use gapscore_adapters as adapters;
pub use gapscore_core as core;
pub use gapscore_model as model;

pub use error::Error;
pub use exit::ExitCode;
pub use gate::GateDecision;
pub use outcome::RunError;
pub use outcome::{Refusal, ScoreOutcome, Scored};
pub use run::RunRequest;
pub use runner_evidence::RunnerInput;
pub use score::{ScoreRequest, SealInput, score};
pub use suite::{Diagnostic, Severity, SuiteOptions, SuiteScore, tally_suite};
