//! The types that cross gapscore's adapter boundary: the canonical test-result model, the event
//! seam adapters write into, and the error an adapter returns for input it cannot read.
//!
//! An adapter (built in or a plugin) reads bytes and pushes events into an [`EventSink`]; a
//! [`Normalizer`] in front of every consumer turns a test that started and never finished into a
//! `missing-results` [`Problem`]; a [`RunCollector`] keeps the whole [`TestRun`] (the scoring
//! engine uses its own sink, which keeps only counts and failures).
//!
//! Principal types:
//! - [`TestRun`], [`TestCase`], [`Status`], [`Category`], [`Attempt`], [`Producer`],
//!   [`Problem`], [`ProblemKind`]: the model.
//! - [`EventSink`], [`Normalizer`], [`RunCollector`], [`replay`]: the seam;
//!   [`TestCaseRef`], a finished test borrowed from the adapter's buffers, is its fast path
//!   ([`EventSink::test_finished_ref`]): a sink that only counts a test never copies it.
//! - [`Evidence`] and [`Evidence::judge`]: what a file claims beside its records (declared
//!   counts, summaries, exit statuses, footers), and the rule that the worst evidence wins.
//! - [`PathRoot`]: where a run happened, removed from the start of ids and paths by a
//!   [`Normalizer`] ([`Normalizer::relative_to`]) so ids do not depend on it.
//! - [`InputError`], [`Location`]: unreadable input, with its place.
//! - [`Code`] and [`codes::REGISTRY`]: the stable code of every problem kind, warning, error,
//!   advisory reason and refusal, with its title and what to do; readers warn with
//!   [`EventSink::coded_warning`].
//! - [`text::TEXT_CAP`], [`text::CUT_NOTE`]: where an adapter cuts a long text, and the note
//!   that says so.
//!
//! Nothing else: helpers for writing an adapter (capped text, the JSON duplicate-key scan,
//! line readers) are the adapter SDK's (`gapscore-adapter-sdk`), and what only scoring needs
//! (repeated ids in bounded memory) is the core's, so that this crate changes only when what
//! crosses the boundary does.
//!
//! ```
//! use gapscore_model::{EventSink, Normalizer, RunCollector, Status, TestCase, ProblemKind};
//!
//! let mut sink = Normalizer::new(RunCollector::new("my-format", None));
//! sink.test_started(Some("suite"), "a", "suite::a");
//! sink.test_finished(TestCase::new(Some("suite".into()), "a", Status::Passed));
//! sink.test_started(Some("suite"), "b", "suite::b"); // never finishes: the run was cut
//! let run = sink.finish().into_run();
//! assert_eq!(run.tests.len(), 1);
//! assert_eq!(run.problems[0].kind, ProblemKind::MissingResults);
//! ```
//!
//! # Stability
//! This crate is versioned on its own, apart from the gapscore tools (its changes:
//! `CHANGELOG.md`). Its types are what a plugin is compiled against and what crosses the C ABI
//! as JSON, so a change that breaks either (a removed or renamed field, variant or method; a
//! changed serialised name) needs a new major version. Structs and enums are `#[non_exhaustive]`
//! where new fields or variants are expected, so adding one is not breaking. The `schema` feature adds JSON Schema derives.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod borrowed;
pub mod codes;
pub mod error;
pub mod event;
pub mod evidence;
pub mod relative;
pub mod run;
pub mod text;

pub use borrowed::TestCaseRef;
pub use codes::Code;
pub use error::{InputError, Location};
pub use event::{EventSink, Normalizer, RunCollector, replay};
pub use evidence::{Declared, DeclaredCount, Evidence, EvidenceSource, Judgement, ReadCounts};
pub use relative::PathRoot;
pub use run::{Attempt, Category, Problem, ProblemKind, Producer, Status, TestCase, TestRun};
