//! Python modules outside the sealed directory that have a sealed test module's dotted name.
//! pytest's JUnit XML names a test by its module's dotted path from the rootdir
//! (`tests.sealed.test_calc`), so `tests.sealed/test_calc.py`, written by the implementer, gives
//! results no reader can tell from the sealed module's: a passing twin stands in for a sealed test
//! that never ran. `run` looks for such twins in the workspace after the command ends.

use std::collections::HashMap;
use std::path::Path;

/// Entries walked at most: a workspace bigger than this is checked only this far.
const WALK_LIMIT: usize = 200_000;

/// Directories never holding the project's tests, left out of the walk.
const SKIPPED_DIRS: &[&str] = &[".git", "node_modules", "__pycache__", ".venv", "venv"];

/// `(sealed module, twin)` pairs, as paths relative to `root` (`/`-separated), sorted: each
/// `.py` file outside `sealed` (a directory inside `root`) whose dotted path from `root` equals
/// that of a test module inside `sealed`.
pub(crate) fn twin_modules(root: &Path, sealed: &Path) -> Vec<(String, String)> {
    // Compared as the file system resolves them (a temporary directory behind a link).
    let root = &std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let sealed = &root.join(sealed);
    let sealed = &std::fs::canonicalize(sealed).unwrap_or_else(|_| sealed.clone());
    let mut sealed_names: HashMap<String, String> = HashMap::new();
    let mut outside: Vec<(String, String)> = Vec::new();
    let mut walked = 0usize;
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            walked += 1;
            if walked > WALK_LIMIT {
                break;
            }
            let path = e.path();
            // Not following links: a link's target is judged where it lies.
            let Ok(kind) = e.file_type() else { continue };
            let name = e.file_name();
            let name = name.to_string_lossy();
            if kind.is_dir() {
                if !SKIPPED_DIRS.contains(&name.as_ref()) {
                    stack.push(path);
                }
                continue;
            }
            if !kind.is_file() || !name.ends_with(".py") || name == "__init__.py" {
                continue;
            }
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            let rel = rel.to_string_lossy().replace('\\', "/");
            let dotted = rel.trim_end_matches(".py").replace('/', ".");
            if path.starts_with(sealed) {
                sealed_names.insert(dotted, rel);
            } else {
                outside.push((dotted, rel));
            }
        }
    }
    let mut twins: Vec<(String, String)> = outside
        .into_iter()
        .filter_map(|(dotted, rel)| sealed_names.get(&dotted).map(|s| (s.clone(), rel)))
        .collect();
    twins.sort();
    twins
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dotted_directory_name_is_a_twin_of_the_nested_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in [
            "tests/sealed",
            "tests.sealed",
            "tests/open",
            "node_modules/tests/sealed",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for f in [
            "tests/sealed/__init__.py",
            "tests/sealed/test_calc.py",
            "tests/sealed/test_more.py",
            "tests.sealed/test_calc.py",
            "tests.sealed/__init__.py",
            "tests/open/test_calc.py",
            "node_modules/tests/sealed/test_more.py",
        ] {
            std::fs::write(root.join(f), "").unwrap();
        }
        let twins = twin_modules(root, &root.join("tests/sealed"));
        assert_eq!(
            twins,
            [(
                "tests/sealed/test_calc.py".to_owned(),
                "tests.sealed/test_calc.py".to_owned()
            )]
        );
    }
}
