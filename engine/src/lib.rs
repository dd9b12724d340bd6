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
//! - [`seal::verify`], [`seal::Verification`], [`seal::seal_dir`]: the one seal verification
//!   and sealing ([`seal`]); [`plurality::verify_combined`]: the one check of a combined
//!   seal (§4.6); [`seal_check::check`]: either kind, as a score sees it ([`seal_check`]).
//! - [`runner_evidence::RunnerInput`], [`runner_evidence::check_results`]: what `gapscore run` adds (the runner's
//!   evidence as problems, result files checked for this run's writing), through the same
//!   [`score()`] ([`runner_evidence`]).
//! - [`validation::load_validation`], [`validation::load_history`]: hardening cycles.
//! - [`fs`]: the sealed-directory reader, the atomic writer, file hashing, [`fs::FsError`].
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

pub mod canary;
pub mod error;
pub mod exit;
pub mod fs;
pub mod gate;
pub mod plurality;
pub mod runner_evidence;
pub mod score;
pub mod seal;
pub mod seal_check;
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
pub use runner_evidence::RunnerInput;
pub use score::{Refusal, ScoreOutcome, ScoreRequest, Scored, SealInput, score};
pub use suite::{Diagnostic, SuiteOptions, SuiteScore, tally_suite};
