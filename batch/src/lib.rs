//! Batch scoring of many repositories (issue 9): `gapscore batch`.
//!
//! A batch is a list of [`RepoSpec`]s, found by the directory convention
//! ([`discover::from_root`]: `ROOT/<repo>/sealed/**`, `ROOT/<repo>/open/**`, optional
//! `seal.json` and `gapscore.toml`) or read from a manifest ([`discover::from_manifest`]: TOML
//! `[[repo]]` tables or JSON lines). [`run_batch`] scores them on one rayon pool (repositories
//! and the files within each in parallel) through the engine's one score pipeline
//! ([`gapscore_engine::score()`], as `gapscore score` does), turns every broken repository into an
//! error row,
//! and writes the outputs ([`outputs`]): `results.ndjson`, `summary.csv`, `summary.md`,
//! `reports/<repo>.json`, `aggregate.json` and `report.html`, all sorted by repository name
//! whatever the thread count. [`Shard`] picks a stable part of a batch for one machine;
//! [`merge`] combines shard outputs into the outputs of a single run. [`generate`] writes a
//! synthetic tree for tests and the benchmark.
//!
//! Principal types: [`RepoSpec`], [`BatchOptions`], [`RepoRow`], [`Aggregate`], [`Shard`],
//! [`BatchRun`], [`BatchError`], [`Progress`].
//!
//! Splitting a batch three ways with `--shard K/N`: every repository lands in exactly one part.
//!
//! ```
//! use gapscore_batch::Shard;
//!
//! let shards = ["1/3", "2/3", "3/3"].map(str::parse::<Shard>);
//! let shards: Vec<Shard> = shards.into_iter().collect::<Result<_, _>>()?;
//! assert_eq!((shards[1].index(), shards[1].count()), (2, 3));
//! for repo in ["alpha", "beta", "gamma", "delta"] {
//!     assert_eq!(shards.iter().filter(|s| s.contains(repo)).count(), 1);
//! }
//! assert!("4/3".parse::<Shard>().is_err());
//! # Ok::<(), gapscore_batch::BatchError>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod batch_run;
pub mod discover;
mod error;
pub mod generate;
mod options;
pub mod outputs;
mod repo;
mod row;
mod shard;

pub use batch_run::{BatchRun, NoProgress, Progress, merge, run_batch};
pub use discover::RepoSpec;
pub use error::BatchError;
pub use options::BatchOptions;
pub use outputs::Aggregate;
pub use row::{RepoRow, RowProblem, repositories};
pub use shard::Shard;
