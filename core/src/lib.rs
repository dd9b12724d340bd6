//! gapscore's core: the status policy, exact scoring and the Gap Report, over the test-result
//! model of `gapscore-model` (re-exported here).
//!
//! Data flows one way: an adapter reads bytes and pushes events into an [`EventSink`]; a
//! [`Normalizer`] in front of the consumer turns tests that started and never finished into
//! problems; the consumer is either a [`RunCollector`] (keeps the whole [`TestRun`]) or a
//! [`Tally`] (applies the [`StatusPolicy`] and keeps only counts and failures). [`build_report`]
//! turns tallies into a [`GapReport`], which [`render()`] prints as JSON, Markdown or summary
//! text.
//!
//! Principal types, by module:
//! - the model (from `gapscore-model`): [`TestRun`], [`TestCase`], [`Status`], [`Category`],
//!   [`Problem`], [`ProblemKind`], and the event seam [`EventSink`], [`Normalizer`],
//!   [`RunCollector`];
//! - [`policy`]: [`StatusPolicy`] and its parts, and what a status counts as ([`CountsAs`]);
//! - [`level`]: [`Score`], [`Level`], [`Threshold`], on exact integers;
//! - [`tally`]: [`Tally`], the scoring consumer, and [`SuiteCounts`]; [`duplicates`]: repeated
//!   test ids in bounded memory ([`DuplicateTracker`], [`IdFinder`]);
//! - [`manifest`]: [`Manifest`], the expected sealed tests;
//! - [`failures`]: the failure entries and [`FailureLog`]/[`FailureList`], which may spill to a
//!   file;
//! - [`report`] and [`render`](mod@render): [`GapReport`], [`Dialect`], [`ReportOptions`] and
//!   the printers;
//! - [`categories`], [`feedback`], [`hardening`]: category rules, the feedback handed to the
//!   implementer and the hardening loop's figures (the seal record and its hashing are in
//!   `gapscore-seal`).
//!
//! The modules depend on each other in one direction only (`policy`, `level`, `manifest`,
//! `failures`, `duplicates` below `tally`, below `report`, below `render`), so each layer can be
//! read and tested without the ones above it.
//!
//! Scoring two passing tests and one skipped test under the default policy, where a skipped
//! sealed test was not verified and counts as failed:
//!
//! ```
//! use gapscore_core::{
//!     EventSink, Level, ReportOptions, Score, Status, StatusPolicy, Tally, TestCase, build_report,
//! };
//!
//! let mut tally = Tally::new(StatusPolicy::default());
//! for (name, status) in [
//!     ("adds", Status::Passed),
//!     ("subtracts", Status::Passed),
//!     ("divides_by_zero", Status::Skipped),
//! ] {
//!     tally.test_finished(TestCase::new(Some("math".into()), name, status));
//! }
//! tally.finish();
//! assert_eq!(tally.score(), Score::new(1, 3));
//!
//! let report = build_report(&tally, None, &ReportOptions::default());
//! assert_eq!(report.score_value(), Some(33.3));
//! assert_eq!(report.report.level, Level::Significant);
//! let failures = report.failures.to_vec();
//! assert_eq!(failures[0].test_name, "math::divides_by_zero");
//! assert_eq!(failures[0].message, "sealed test not verified: skipped");
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod categories;
mod counts;
pub mod decode;
pub mod duplicates;
pub mod failures;
pub mod feedback;
/// The one text fold (leak scan and name identity): the `gapscore-fold` crate.
pub use gapscore_fold as fold;
pub mod hardening;
pub mod level;
pub mod listing;
pub mod manifest;
pub mod policy;
pub mod provenance;
pub mod render;
pub mod report;
pub mod runner_commands;
pub mod runner_report;
pub mod sealed_source;
pub mod skip_scope;
pub mod tally;
pub mod warnings;

pub use duplicates::{DUPLICATE_CHECK_LIMIT, DuplicateTracker, IdFinder, id_fingerprint};
pub use failures::{FailureList, FailureLog, Spill, SpillFactory};
// The model crate's types, re-exported for the crates that score (adapters depend on
// gapscore-model through the SDK instead).
pub use gapscore_model::{
    Attempt, Category, EventSink, InputError, Location, Normalizer, Problem, ProblemKind, Producer,
    RunCollector, Status, TestCase, TestCaseRef, TestRun, replay,
};
pub use gapscore_model::{Code, codes};
pub use level::{Level, Score, Threshold};
pub use manifest::Manifest;
pub use policy::{CountsAs, FlakyPolicy, SkippedPolicy, StatusPolicy, XfailPolicy};
pub use provenance::{Independence, Provenance, SpecVersion, WorkspaceIsolation};
pub use render::{
    MARKDOWN_LIMIT, OutputFormat, RenderContext, RenderOptions, render, render_refusal_to,
    render_scored_to, render_to, render_to_with,
};
pub use report::{
    Dialect, GapReport, Gate, InputInfo, ReportOptions, SPEC_VERSION, SealCheck, StepVerdict,
    Verdict, build_report, build_report_from,
};
pub use tally::{SuiteCounts, Tally};
