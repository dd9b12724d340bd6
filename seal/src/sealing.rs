//! Sealing a directory ([`seal_dir`]): hashing it into a new [`SealRecord`], with a canary
//! (§4.5) when asked, and the warnings the user should see.

use gapscore_model::Code;
use std::path::{Path, PathBuf};

use crate::canary::{self, Planted};
use crate::dir_hash::{HashMode, PathOrder, SealOptions, seal_hash};
use crate::error::Error;
use crate::excludes::Excludes;
use crate::record::SealRecord;
use crate::sealed_dir;
use crate::verify::dir_string;

/// What to seal and how.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SealRequest {
    /// The sealed test directory.
    pub dir: PathBuf,
    /// Globs left out of the seal.
    pub excludes: Vec<String>,
    /// The hash mode.
    pub mode: HashMode,
    /// Paths sorted in the C.UTF-8 locale's order rather than by bytes.
    pub locale_order: bool,
    /// The directory spelling the spec and stampede modes hash (default: as given).
    pub hash_as: Option<String>,
    /// Where the record will be written, when that is a file.
    pub output: Option<PathBuf>,
    /// The expected test ids (the engine's `expected_ids` lists them from a stub run).
    pub expected_tests: Option<Vec<String>>,
    /// The record's `created` time, RFC 3339.
    pub created: String,
    /// A canary (§4.5): `Some(None)` writes a new one, `Some(Some(path))` adopts that file.
    pub canary: Option<Option<String>>,
    /// The seal author's model family (§4.6).
    pub author_family: Option<String>,
}

impl SealRequest {
    /// Seals `dir` in strict mode, byte order, with nothing left out.
    pub fn new(dir: impl Into<PathBuf>, created: impl Into<String>) -> Self {
        SealRequest {
            dir: dir.into(),
            excludes: Vec::new(),
            mode: HashMode::Strict,
            locale_order: false,
            hash_as: None,
            output: None,
            expected_tests: None,
            created: created.into(),
            canary: None,
            author_family: None,
        }
    }
}

/// A new seal, and what the user should know about it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Sealed {
    /// The record.
    pub record: SealRecord,
    /// How many files the hash covers.
    pub hashed: usize,
    /// Warnings, in order, each with its code (`gapscore explain CODE`).
    pub warnings: Vec<(Code, String)>,
    /// The canary gapscore wrote for this seal, removed again on drop unless
    /// [`Sealed::keep_canary`] is called once the record is safely written: a seal that fails
    /// after sealing (its record cannot be written) leaves the directory as it found it.
    canary: Option<Planted>,
}

impl Sealed {
    /// The record is written: the canary it names stays in the sealed directory.
    pub fn keep_canary(mut self) {
        if let Some(g) = self.canary.take() {
            g.keep();
        }
    }
}

/// Hashes a directory into a seal record.
pub fn seal_dir(req: &SealRequest) -> Result<Sealed, Error> {
    let directory = dir_string(&req.dir)?;
    let mut warnings = Vec::new();
    let mut globs = req.excludes.clone();
    // A record written inside the directory it seals would change that directory: leave it out.
    if let Some(inside) = req
        .output
        .as_deref()
        .and_then(|o| relative_inside(&req.dir, o))
    {
        warnings.push((
            Code::SealRecordInside,
            format!(
                "the seal record `{inside}` is inside the sealed directory; it is left out of the seal"
            ),
        ));
        globs.push(glob_escape(&inside));
    }
    let excludes = Excludes::new(&globs)?;
    let opts = SealOptions {
        mode: req.mode,
        order: if req.locale_order {
            PathOrder::Locale
        } else {
            PathOrder::Bytes
        },
        hash_as: req.hash_as.clone().unwrap_or_else(|| directory.clone()),
    };
    // The canary is in place before hashing, so the seal covers it.
    let canary = match &req.canary {
        Some(existing) => {
            let rel = canary::plant(&req.dir, existing.as_deref())?;
            let guard = Planted::new(&req.dir, &rel, existing.is_none());
            Some((rel, guard))
        }
        None => None,
    };
    let scan = sealed_dir::scan(&req.dir, &excludes)?;
    if let Some((path, target)) = scan.links.first() {
        return Err(Error::Usage(format!(
            "`{directory}`: `{path}` is a symbolic link (to `{target}`): a sealed directory holds regular files only, since a link can point the sealed tests anywhere; copy the file in instead ({} link{} in all)",
            scan.links.len(),
            if scan.links.len() == 1 { "" } else { "s" }
        )));
    }
    let sealed = seal_hash(&scan.files, &opts);
    if opts.mode == HashMode::Spec && !sealed.unhashed.is_empty() {
        warnings.push((Code::UnhashedFiles, format!(
            "{} file{} left out of the spec hash, as the reference pipeline leaves them out (`xargs` splits names with blanks, quotes or backslashes), so they are not protected by it: {} (use --mode strict to seal every file)",
            sealed.unhashed.len(),
            if sealed.unhashed.len() == 1 {
                " is"
            } else {
                "s are"
            },
            sealed.unhashed.join(", ")
        )));
    }
    if scan.files.is_empty() {
        warnings.push((
            Code::EmptySealedDir,
            format!("`{directory}` holds no files: the seal protects nothing"),
        ));
    }
    let mut record = SealRecord::new(&sealed, &opts, directory, scan.files, req.created.clone());
    record.excludes = excludes.globs();
    // Excludes or a mode that leave out the tests make a seal of nothing, which `check`
    // rejects (`seal.excludes`): refused here rather than written.
    if let Some(problem) = crate::verify::excludes_problem(&record, &[]) {
        return Err(Error::Usage(format!(
            "`{}`: {problem}; seal in a mode that hashes the tests (strict, the default) and exclude only what tools create (`__pycache__`, `*.pyc`)",
            record.directory
        )));
    }
    record.expected_tests.clone_from(&req.expected_tests);
    record.author_family = req
        .author_family
        .as_deref()
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(str::to_owned);
    let mut planted = None;
    if let Some((rel, guard)) = canary {
        if !record.files.iter().any(|f| f.path == rel) {
            return Err(Error::Usage(format!(
                "the canary `{rel}` is not among the sealed files (excluded, or outside the directory)"
            )));
        }
        // After hashing (which read it): its atime goes back to its mtime and is recorded.
        record.canary = Some(canary::settle(&req.dir, &rel)?);
        planted = Some(guard);
        let (policy, mount) = canary::atime_policy(&req.dir);
        warnings.extend(policy.warning(&mount).map(|w| (Code::SealPolicy, w)));
    }
    Ok(Sealed {
        hashed: sealed.hashed,
        record,
        warnings,
        canary: planted,
    })
}

/// `out` relative to `dir`, when `out` would be written inside `dir`.
fn relative_inside(dir: &Path, out: &Path) -> Option<String> {
    let dir = dir.canonicalize().ok()?;
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.canonicalize().ok()?,
        _ => std::env::current_dir().ok()?,
    };
    let full = parent.join(out.file_name()?);
    let rel = full.strip_prefix(&dir).ok()?;
    rel.to_str().map(|s| s.replace('\\', "/"))
}

/// A glob matching exactly this path.
fn glob_escape(path: &str) -> String {
    path.chars()
        .map(|c| match c {
            '*' | '?' | '[' | ']' => format!("[{c}]"),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Test code.

    use super::*;

    /// Excludes that leave out the sealed tests are refused, as `check` rejects such a record;
    /// excluding a cache is not.
    #[test]
    fn excludes_that_leave_out_the_tests_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("test_a.py"), "def test_a(): pass\n").unwrap();
        std::fs::write(dir.path().join("conftest.py"), "import pytest\n").unwrap();
        for globs in [&["*"][..], &["test_*.py"]] {
            let mut req = SealRequest::new(dir.path(), "2026-03-01T08:00:00Z");
            req.excludes = globs.iter().map(|g| (*g).to_owned()).collect();
            let e = seal_dir(&req)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(
                e.contains("exclude only what tools create"),
                "{globs:?}: {e}"
            );
        }
        let mut req = SealRequest::new(dir.path(), "2026-03-01T08:00:00Z");
        req.excludes = vec!["__pycache__".into()];
        assert_eq!(seal_dir(&req).unwrap().record.files.len(), 2);
    }
}
