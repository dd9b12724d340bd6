//! gapscore-check's integration tests, in one binary (`cargo test -p gapscore-check --test it`):
//! the checker's fixture suite ([`fixtures`], over `conformance-tests/fixtures/`), level 4's
//! cases beyond the fixtures ([`level4`]), the size limit ([`limits`]), the committed output
//! schema ([`output_schema`]) and the seal claims that need files git cannot keep or combined
//! records ([`seal_claims`]).

#![allow(clippy::unwrap_used)] // Test helpers panic on purpose.

mod common;
mod empty_seal;
mod fixtures;
mod level4;
mod limits;
mod output_schema;
mod seal_claims;
mod seal_modes;
mod seal_times;
