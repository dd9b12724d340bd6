//! Helpers to build projects on disk.

#![allow(clippy::unwrap_used)] // Test helpers: a failure is a test failure.

use std::ffi::OsString;
use std::fs;
use std::path::Path;

/// Writes `text` at `root/rel`, creating parent directories.
pub fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A command line from words.
pub fn cmd(words: &[&str]) -> Vec<OsString> {
    words.iter().map(OsString::from).collect()
}

/// The relative paths of every entry under `root` (links not followed), sorted.
pub fn listing(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                out.push(format!("{rel}/"));
                walk(root, &path, out);
            } else {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}
