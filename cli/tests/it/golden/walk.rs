//! Walking the repository for the golden test's inputs.

use super::*;

/// Every regular file under `dir` (relative to the workspace root, `/`-separated), recursively,
/// sorted; symbolic links, FIFOs and other special files are left out, and so are directories
/// named `target`.
pub(super) fn files_under(root: &Path, dir: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.join(dir)];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            let t = fs::symlink_metadata(&p).unwrap().file_type();
            if t.is_dir() && p.file_name().is_some_and(|n| n != "target") {
                stack.push(p);
            } else if t.is_file() {
                out.push(rel(root, &p));
            }
        }
    }
    out.sort();
    out
}

/// Every directory under `dir` (itself included), relative, sorted; links not followed.
pub(super) fn dirs_under(root: &Path, dir: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.join(dir)];
    while let Some(d) = stack.pop() {
        if !fs::symlink_metadata(&d).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        out.push(rel(root, &d));
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().is_some_and(|n| n != "target") {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

pub(super) fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap()
        .to_str()
        .unwrap()
        .replace('\\', "/")
}

pub(super) fn parent(f: &str) -> &str {
    f.rsplit_once('/').map_or("", |(d, _)| d)
}

pub(super) fn file_name(f: &str) -> &str {
    f.rsplit_once('/').map_or(f, |(_, n)| n)
}

/// The golden file of a command group and a fixture directory: `score-json/adapters__x`.
pub(super) fn golden_key(group: &str, dir: &str) -> String {
    format!("{group}/{}", dir.replace('/', "__"))
}
