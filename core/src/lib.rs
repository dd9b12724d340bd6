//! gapscore's core: the canonical test-result model, the status policy, exact scoring and the
//! Gap Report.
//!
//! Data flows one way: an adapter reads bytes and pushes events into an [`EventSink`]; a
//! [`Normalizer`] in front of the consumer turns tests that started and never finished into
//! problems; the consumer is either a [`RunCollector`] (keeps the whole [`TestRun`]) or a
//! [`Tally`] (applies the [`StatusPolicy`] and keeps only counts and failures). [`build_report`]
//! turns tallies into a [`GapReport`], which [`render`] prints as JSON, Markdown or summary text.
//!
//! Principal types:
//! - [`TestRun`], [`TestCase`], [`Status`], [`Category`], [`Problem`], [`ProblemKind`]: the model.
//! - [`StatusPolicy`], [`Tally`], [`Score`], [`Level`], [`Threshold`]: scoring.
//! - [`GapReport`], [`Dialect`], [`ReportOptions`]: the §5 report in the Shadow and Gap dialects.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod categories;
pub mod failures;
pub mod feedback;
pub mod hardening;
pub mod hash;
pub mod level;
pub mod manifest;
pub mod policy;
pub mod render;
pub mod report;
pub mod seal;
pub mod tally;

// The model crate's types, re-exported for the crates that score (adapters depend on
// gapscore-model through the SDK instead).
pub use failures::{FailureList, FailureLog, Spill, SpillFactory};
pub use gapscore_model::{
    Attempt, Category, DUPLICATE_CHECK_LIMIT, DuplicateTracker, EventSink, IdFinder, InputError,
    Location, Normalizer, Problem, ProblemKind, Producer, RunCollector, Status, TestCase, TestRun,
    replay,
};
pub use level::{Level, Score, Threshold};
pub use manifest::Manifest;
pub use policy::{FlakyPolicy, Outcome, SkippedPolicy, StatusPolicy, XfailPolicy};
pub use render::{OutputFormat, render, render_to};
pub use report::{
    Dialect, GapReport, InputInfo, ReportOptions, SPEC_VERSION, SealCheck, build_report,
};
pub use tally::{SuiteCounts, Tally};
