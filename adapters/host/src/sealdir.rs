//! Reading a sealed directory and a seal record from disk: one walker for `gapscore seal`,
//! `score --seal`, `feedback`, `check` and `batch`, so they all see the same files.
//!
//! [`scan`] lists every regular file as `find DIR -type f` does (symbolic links neither followed
//! nor hashed, so a link loop cannot hang it), hashing each as a stream; [`scan_contents`] also
//! hands each file's bytes to the caller (the sealed source for scrubbing and leak scans);
//! [`read_record`] reads a seal record through [`SealRecord::from_json`].

use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};

use gapscore_core::feedback::SealedSource;
use gapscore_core::seal::{Excludes, FileHasher, RecordError, SealRecord, SealedFile};

use crate::io_reason;

/// Directories nested deeper than this are refused rather than walked (a stack guard: links are
/// not followed, so only a real, absurdly deep tree reaches it).
pub const MAX_DEPTH: usize = 64;

/// Why a sealed directory or a seal record cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SealDirError {
    /// A file or directory cannot be read.
    #[error("cannot read `{path}`: {reason}")]
    Io {
        /// What could not be read.
        path: PathBuf,
        /// Why, lowercase.
        reason: String,
    },
    /// The sealed directory is a file, or something else.
    #[error("`{0}` is not a directory")]
    NotADirectory(PathBuf),
    /// A file name that is not UTF-8: it has no stable spelling to hash.
    #[error("`{0}`: file names that are not utf-8 cannot be sealed")]
    NotUtf8(PathBuf),
    /// Directories nested deeper than [`MAX_DEPTH`].
    #[error("`{0}`: directories nested more than {MAX_DEPTH} deep")]
    TooDeep(PathBuf),
    /// A seal record that cannot be used; the message names the file and the place.
    #[error("{}", .source.at(.path))]
    Record {
        /// The record file.
        path: PathBuf,
        /// What is wrong with it.
        source: RecordError,
    },
}

fn io(path: &Path, e: &std::io::Error) -> SealDirError {
    SealDirError::Io {
        path: path.to_owned(),
        reason: io_reason(e),
    }
}

/// The files of a sealed directory and what the excludes left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Scan {
    /// Regular files, paths relative and `/`-separated, in byte order of path.
    pub files: Vec<SealedFile>,
    /// Relative paths left out by the excludes (a directory's own path when it was excluded
    /// whole).
    pub excluded: Vec<String>,
}

/// Lists and hashes every regular file under `dir`, streaming each file through the hasher.
pub fn scan(dir: &Path, excludes: &Excludes) -> Result<Scan, SealDirError> {
    walk_dir(dir, excludes, &mut |path, _| hash_file(path))
}

/// Like [`scan`], reading each file whole and handing `(relative path, bytes)` to `visit`
/// before hashing it: sealed test directories are small, and this reads each file once.
pub fn scan_contents(
    dir: &Path,
    excludes: &Excludes,
    visit: &mut dyn FnMut(&str, &[u8]),
) -> Result<Scan, SealDirError> {
    walk_dir(dir, excludes, &mut |path, rel| {
        let bytes = fs::read(path).map_err(|e| io(path, &e))?;
        visit(rel, &bytes);
        let mut hasher = FileHasher::new();
        hasher.update(&bytes);
        Ok(hasher.finish())
    })
}

/// The sealed tests' source, for scrubbing feedback and scanning for leaks: every regular file
/// under `dir`.
pub fn sealed_source(dir: &Path, min_len: usize) -> Result<SealedSource, SealDirError> {
    let mut source = SealedSource::new(min_len);
    scan_contents(dir, &Excludes::default(), &mut |rel, bytes| {
        source.add_file(rel, bytes);
    })?;
    Ok(source)
}

/// Reads a seal record file.
pub fn read_record(path: &Path) -> Result<SealRecord, SealDirError> {
    let text = fs::read_to_string(path).map_err(|e| io(path, &e))?;
    SealRecord::from_json(&text).map_err(|source| SealDirError::Record {
        path: path.to_owned(),
        source,
    })
}

type Hash<'a> = dyn FnMut(&Path, &str) -> Result<String, SealDirError> + 'a;

fn walk_dir(dir: &Path, excludes: &Excludes, hash: &mut Hash<'_>) -> Result<Scan, SealDirError> {
    let meta = fs::metadata(dir).map_err(|e| io(dir, &e))?;
    if !meta.is_dir() {
        return Err(SealDirError::NotADirectory(dir.to_owned()));
    }
    let mut scan = Scan::default();
    walk(dir, "", 0, excludes, hash, &mut scan)?;
    scan.files
        .sort_unstable_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    Ok(scan)
}

fn walk(
    dir: &Path,
    rel: &str,
    depth: usize,
    excludes: &Excludes,
    hash: &mut Hash<'_>,
    scan: &mut Scan,
) -> Result<(), SealDirError> {
    if depth > MAX_DEPTH {
        return Err(SealDirError::TooDeep(dir.to_owned()));
    }
    for entry in fs::read_dir(dir).map_err(|e| io(dir, &e))? {
        let entry = entry.map_err(|e| io(dir, &e))?;
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            return Err(SealDirError::NotUtf8(path));
        };
        let child = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        if excludes.matches(&child) {
            scan.excluded.push(child);
            continue;
        }
        // The entry's own type: a link is neither followed nor hashed, as with `find -type f`.
        let kind = entry.file_type().map_err(|e| io(&path, &e))?;
        if kind.is_dir() {
            walk(&path, &child, depth + 1, excludes, hash, scan)?;
        } else if kind.is_file() {
            let sha256 = hash(&path, &child)?;
            scan.files.push(SealedFile {
                sha256,
                path: child,
            });
        }
    }
    Ok(())
}

fn hash_file(path: &Path) -> Result<String, SealDirError> {
    let mut file = File::open(path).map_err(|e| io(path, &e))?;
    let mut hasher = FileHasher::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io(path, &e)),
        }
    }
    Ok(hasher.finish())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Test code.

    use super::*;

    #[test]
    fn scan_and_scan_contents_agree_and_links_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/b/test_x.py"), "assert add(1, 2) == 3\n").unwrap();
        fs::write(root.join("top.t"), "ok 1\n").unwrap();
        fs::create_dir(root.join("__pycache__")).unwrap();
        fs::write(root.join("__pycache__/x.pyc"), [0u8, 1, 2]).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root, root.join("a/loop")).unwrap();
        let excludes = Excludes::new(&["__pycache__"]).unwrap();
        let streamed = scan(root, &excludes).unwrap();
        let mut seen = Vec::new();
        let whole = scan_contents(root, &excludes, &mut |rel, bytes| {
            seen.push((rel.to_owned(), bytes.len()));
        })
        .unwrap();
        assert_eq!(streamed, whole);
        let paths: Vec<&str> = streamed.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["a/b/test_x.py", "top.t"]);
        assert_eq!(streamed.excluded, ["__pycache__"]);
        seen.sort();
        assert_eq!(
            seen,
            [("a/b/test_x.py".to_owned(), 22), ("top.t".to_owned(), 5)]
        );
    }

    #[test]
    fn errors_name_the_place() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        fs::write(&file, "x").unwrap();
        assert!(matches!(
            scan(&file, &Excludes::default()),
            Err(SealDirError::NotADirectory(_))
        ));
        let missing = dir.path().join("missing");
        let e = scan(&missing, &Excludes::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("cannot read `") && e.ends_with("no such file or directory"),
            "{e}"
        );
        let mut deep = dir.path().join("d");
        for _ in 0..=MAX_DEPTH + 1 {
            deep = deep.join("d");
        }
        fs::create_dir_all(&deep).unwrap();
        assert!(matches!(
            scan(&dir.path().join("d"), &Excludes::default()),
            Err(SealDirError::TooDeep(_))
        ));
        let rec = dir.path().join("seal.json");
        fs::write(&rec, "{\n  \"gapscore_seal\": 1,\n  oops").unwrap();
        let e = read_record(&rec).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}:3:3: not a seal record", rec.display())),
            "{e}"
        );
    }
}
