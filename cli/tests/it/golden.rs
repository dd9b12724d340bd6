//! Golden outputs: the `gapscore` binary is run over every fixture of the repository (`score` in
//! three formats, `parse`, `check`, `seal`, `seal --verify`, `batch`) and what it printed — exit
//! code, standard output, standard error, files written — is compared byte for byte with the
//! files under `cli/tests/golden/` (see its README.md).
//!
//! The inputs are found by walking the repository, so a new fixture without golden output fails
//! this test. `GAPSCORE_UPDATE_GOLDEN=1 cargo test -p gapscore --test it golden::` (re)writes the
//! golden files; read the diff before committing it.
//!
//! Every command runs from the workspace root with relative paths, `SOURCE_DATE_EPOCH` fixed and
//! `GAPSCORE_PLUGIN_PATH`, `RUST_BACKTRACE`, `RUST_LIB_BACKTRACE` and `COLUMNS` removed, so the
//! output is the same in any clone. Temporary paths are redacted as `$TMP` (`$OUT` for a batch
//! output directory), the absolute workspace path as `$ROOT`. Self-contained: it needs no
//! `mod common`. By concern: `walk` finds the inputs, `jobs` says what to run on them, `run`
//! runs it and redacts the output, `files` makes, compares and writes the golden files.

#![allow(clippy::print_stderr)] // Test code that reports its figures.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The binary under test.
const BIN: &str = env!("CARGO_BIN_EXE_gapscore");
/// Set to rewrite the golden files.
const UPDATE_ENV: &str = "GAPSCORE_UPDATE_GOLDEN";
/// How to rewrite them.
const REGENERATE: &str = "GAPSCORE_UPDATE_GOLDEN=1 cargo test -p gapscore --test it golden::";
/// An output longer than this is stored as its first `SHOWN` bytes, its length and its hash.
const BIG: usize = 16 * 1024;
const SHOWN: usize = 1024;
/// A run taking longer than this is a failure (a hang).
const TIME_LIMIT: Duration = Duration::from_secs(120);
/// Repositories in the generated batch tree (as `cli/tests/batch.rs` uses).
const BATCH_REPOS: usize = 40;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

mod files;
mod jobs;
mod run;
mod walk;

use files::*;
use jobs::*;
use run::*;
use walk::*;

#[test]
fn every_fixture_gives_its_golden_output() {
    let start = Instant::now();
    let root = workspace_root();
    let tmp_dir = tempfile::tempdir().unwrap();
    let tmp = tmp_dir.path();

    let mut jobs = Vec::new();
    let result_files = score_and_parse_jobs(&root, &mut jobs);
    forced_format_jobs(&root, &mut jobs);
    let upstream = upstream_jobs(&root, tmp, &mut jobs);
    let checked = check_jobs(&root, &mut jobs);
    let (verified, sealed) = seal_jobs(&root, tmp, &mut jobs);
    let batches = batch_jobs(tmp, &mut jobs);
    assert!(result_files > 400, "only {result_files} result files found");
    assert!(upstream >= 72, "only {upstream} upstream runs");
    assert!(checked > 150, "only {checked} reports to check");
    assert!(
        verified >= 5 && sealed >= 10,
        "{verified} seals to verify, {sealed} to make"
    );

    let workers = std::thread::available_parallelism()
        .map_or(2, usize::from)
        .clamp(2, 4);
    let results = run_all(&root, tmp, &jobs, workers);
    let files = golden_files(&jobs, &results);

    let mut per_group: BTreeMap<&str, usize> = BTreeMap::new();
    for (j, r) in jobs.iter().zip(&results) {
        *per_group
            .entry(j.golden.split_once('/').unwrap().0)
            .or_default() += r.len();
    }
    let total: usize = per_group.values().sum();
    eprintln!(
        "golden: {total} runs ({}) of {result_files} result files, {checked} reports, {batches} batches, on {workers} threads in {:.1} s",
        per_group
            .iter()
            .map(|(g, n)| format!("{g} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
        start.elapsed().as_secs_f64()
    );

    let dir = golden_dir();
    if std::env::var_os(UPDATE_ENV).is_some() {
        write_golden(&dir, &files);
        eprintln!(
            "golden: wrote {} files under {}",
            files.len(),
            dir.display()
        );
        return;
    }
    let (problems, runs) = differences(&committed(&dir), &files);
    let shown = 20;
    assert!(
        problems.is_empty(),
        "{runs} run(s) differ from the golden outputs in cli/tests/golden/ ({} problem(s); the first {}):\n\n{}\n\nIf (and only if) the change is intended: {REGENERATE}, and read the diff before committing it.",
        problems.len(),
        shown.min(problems.len()),
        problems
            .iter()
            .take(shown)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}
