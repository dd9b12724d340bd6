//! Helpers for adapter tests and benchmarks: the data-driven fixture harness every adapter crate
//! uses (`tests/fixtures/{valid,invalid}/<scenario>.<ext>`, one test walking both folders), the
//! cdylib cargo built for a test, and a process's peak memory.

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

/// The shared library cargo built for a `cdylib` crate that is a dependency of the running test
/// or bench (`gapscore-adapter-simple` → `libgapscore_adapter_simple.so`), found in the binary's
/// `deps/` folder or the one above. Panics when it was not built.
pub fn built_cdylib(krate: &str) -> PathBuf {
    use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
    let file = format!("{DLL_PREFIX}{}{DLL_SUFFIX}", krate.replace('-', "_"));
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("no current exe: {e}"));
    let deps = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let up = deps.parent().map(Path::to_path_buf).unwrap_or_default();
    [deps.join(&file), up.join(&file)]
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("{file} was not built next to {}", deps.display()))
}

/// This process's peak resident memory in MiB (`VmHWM`), or 0 where `/proc` does not say.
pub fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}
