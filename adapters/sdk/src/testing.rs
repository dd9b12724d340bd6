//! Helpers for an adapter's data-driven fixture test (the harness every adapter crate uses):
//! `tests/fixtures/{valid,invalid}/<scenario>.<ext>`, one test walking both folders.

use std::path::{Path, PathBuf};

/// The files directly in `<crate>/tests/fixtures/<kind>`, sorted. Panics (this is for tests)
/// when the folder is missing or empty, so a renamed folder cannot make the test pass on nothing.
pub fn fixture_files(crate_dir: &str, kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(crate_dir).join("tests/fixtures").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    files
}

/// A fixture's name without its extension, for snapshot names (`valid__<stem>`).
pub fn fixture_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
