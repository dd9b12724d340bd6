//! Helpers shared by the end-to-end tests: run the `gapscore` binary and read what it printed.
//! Declared once in `main.rs`; a test module uses them through `crate::common`.

pub mod gate;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_gapscore");

/// The binary the `round2` tests run: `GAPSCORE_TEST_BIN` when set (to show a test fails on an
/// older build: `GAPSCORE_TEST_BIN=/path/to/old/gapscore cargo test -p gapscore --test it
/// round2::`), else the binary under test.
pub fn bin() -> String {
    std::env::var("GAPSCORE_TEST_BIN").unwrap_or_else(|_| BIN.to_string())
}

/// Runs `gapscore ARGS` in `dir`, with a fixed `SOURCE_DATE_EPOCH` so report times are stable.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        // The same output on a GitHub runner as anywhere (`run` fences the command's output
        // there; the github format makes paths relative to the workspace).
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_WORKSPACE")
        .output()
        .unwrap()
}

/// The exit code (a signal is a test failure).
pub fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Standard output read as JSON.
pub fn json_of(o: &Output) -> Value {
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

/// A path in the repository (the workspace root), for files shipped in it.
pub fn repo_path(relative: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join(relative)
}

/// Whether the real runner `program ARGS` runs here (a version probe). When it does not, the
/// calling test returns early with a note, unless `GAPSCORE_REQUIRE_RUNNERS` is set (`.ci/run`
/// installs the runners and sets it): then it fails.
pub fn runner_available(program: &str, args: &[&str]) -> bool {
    let ok = Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("GAPSCORE_REQUIRE_RUNNERS").is_none(),
            "`{program}` is required (GAPSCORE_REQUIRE_RUNNERS is set) but does not run"
        );
        #[allow(clippy::print_stderr)] // The skip note.
        {
            eprintln!("note: `{program}` is not available; skipping");
        }
    }
    ok
}

/// Copies the directory tree `from` into `to` (created), for a test that works on a copy of
/// fixtures shipped in the repository.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}
