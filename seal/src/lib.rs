//! gapscore's sealed envelope (spec §4.5, §4.6): sealing a test directory, the seal record, and
//! the one verification every command uses (`seal --verify`, `score --seal`, `run`, `batch`,
//! `check`). It reads files and directories but knows nothing of test results, so the report
//! checker can verify seals without compiling the adapters or the engine.
//!
//! Modules, from the bottom up:
//! - [`digest`]: SHA-256 as lowercase hex, and a hash read from its three published spellings;
//! - [`dir_hash`]: the directory hash in its three modes ([`dir_hash::HashMode`]: strict, the
//!   spec's shell pipeline, Terminal Stampede's);
//! - [`excludes`]: `--exclude` globs;
//! - [`record`]: the [`record::SealRecord`] `gapscore seal` writes, and what differs between a
//!   record and a directory ([`record::SealDiff`]);
//! - [`combined`]: the combined record of seal plurality and the spec ambiguity metric (§4.6);
//! - [`sealed_dir`]: the sealed-directory reader (one walker for every command) and
//!   [`sealed_dir::FsError`], the I/O error that keeps its path and the OS error;
//! - [`canary`]: the canary file whose access time shows a read of the sealed tests (§4.5);
//! - [`verify`]: [`verify::verify`] and [`verify::verify_dir`], the one seal verification, and
//!   its one-line `Display`;
//! - [`sealing`]: [`sealing::seal_dir`], a directory hashed into a new record;
//! - [`plurality`]: reading, combining and verifying combined records;
//! - [`checked_seal`]: either kind of record checked as a score sees it;
//! - [`error`]: [`Error`], what stops any of them.
//!
//! Sealing a directory, then verifying it before and after a sealed test is changed:
//!
//! ```
//! use gapscore_seal::sealing::{SealRequest, seal_dir};
//! use gapscore_seal::verify::{Expected, VerifyOptions, verify_dir};
//!
//! let dir = tempfile::tempdir()?;
//! let test = dir.path().join("test_add.py");
//! std::fs::write(&test, "def test_add():\n    assert 1 + 1 == 2\n")?;
//!
//! let sealed = seal_dir(&SealRequest::new(dir.path(), "2026-01-01T00:00:00Z"))?;
//! assert_eq!(sealed.hashed, 1);
//! let record = Expected::Record(Box::new(sealed.record));
//!
//! let intact = verify_dir(dir.path(), &record, &VerifyOptions::default())?;
//! assert!(intact.intact());
//!
//! std::fs::write(&test, "def test_add():\n    pass\n")?;
//! let broken = verify_dir(dir.path(), &record, &VerifyOptions::default())?;
//! assert!(!broken.intact());
//! assert_eq!(broken.to_string(), "1 file changed (test_add.py)");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod canary;
pub mod checked_seal;
pub mod combined;
pub mod coverage;
pub mod digest;
pub mod dir_hash;
pub mod error;
pub mod excludes;
pub mod plurality;
pub mod record;
pub mod sealed_dir;
pub mod sealing;
pub mod verify;

pub use error::Error;
