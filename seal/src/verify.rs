//! Verifying a sealed directory: the one seal verification every command uses (`seal --verify`,
//! `score --seal`, `batch`, `check`), with one way of saying what differs.
//!
//! [`verify`] compares files found now with a [`SealRecord`] (pure: the checker hands it files it
//! read itself); [`verify_dir`] reads a directory and checks it against a record or a bare hash
//! ([`Expected`], read from `seal --verify`'s argument by [`load_expected`]).

use std::fmt;
use std::path::Path;

use crate::canary::{self, CanaryCheck};
use crate::digest::canonical_sha256;
use crate::dir_hash::{HashMode, PathOrder, SealHash, SealOptions, SealedFile, seal_hash};
use crate::error::Error;
use crate::excludes::Excludes;
use crate::record::{SealDiff, SealRecord, diff_files};
use crate::sealed_dir::{self, FsError};

/// What a directory is checked against.
#[derive(Debug, Clone)]
pub enum Expected {
    /// A seal record.
    Record(Box<SealRecord>),
    /// A bare hash, canonical `sha256:<hex>`.
    Hash(String),
}

/// Reads `seal --verify`'s argument: a record file, a `.seal-hash` file or a hash.
pub fn load_expected(arg: &str) -> Result<Expected, Error> {
    let path = Path::new(arg);
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| FsError::read(path, e))?;
        if text.trim_start().starts_with('{') {
            return SealRecord::from_json(&text)
                .map(|r| Expected::Record(Box::new(r)))
                .map_err(|source| {
                    FsError::Record {
                        path: path.to_owned(),
                        source,
                    }
                    .into()
                });
        }
        return canonical_sha256(&text).map(Expected::Hash).map_err(|e| {
            Error::Usage(format!(
                "`{arg}` holds neither a seal record nor a hash: {e}"
            ))
        });
    }
    canonical_sha256(arg)
        .map(Expected::Hash)
        .map_err(|e| Error::Usage(format!("`{arg}` is neither a file nor a hash: {e}")))
}

/// How a directory is hashed when it is checked against a bare hash, and what else to leave
/// out. A record prescribes its own mode, order and spelling.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct VerifyOptions {
    /// The hash mode (with a record: must be the record's).
    pub mode: Option<HashMode>,
    /// The directory spelling the spec and stampede modes hash.
    pub hash_as: Option<String>,
    /// Paths sorted in the C.UTF-8 locale's order rather than by bytes.
    pub locale_order: bool,
    /// Globs left out besides the record's.
    pub excludes: Vec<String>,
}

/// A directory checked against its seal.
#[derive(Debug, Clone)]
pub struct Verification {
    /// The hash it should have.
    pub expected: String,
    /// What it has now.
    pub actual: SealHash,
    /// File by file, when a record was given.
    pub diff: Option<SealDiff>,
    /// Symbolic links found in the directory (relative path, target): never part of a seal, so
    /// any one is a change (a link can point a sealed test anywhere).
    pub links: Vec<(String, String)>,
    /// Files present under the paths the seal excludes. They do not break the seal (tools make
    /// them), but they are never trusted: a score made beside them is advisory.
    pub excluded_present: Vec<String>,
    /// FIFOs, sockets and devices found (relative path, what it is): never part of a seal, so
    /// any one is a change (what the hash covers is not all the directory holds).
    pub special: Vec<(String, &'static str)>,
    /// The record's canary as found before the directory was read (§4.5).
    pub canary: Option<Box<CanaryCheck>>,
    /// Why the record's hash verifies nothing ([`excludes_problem`]): its excludes or its mode
    /// leave out every file, or every test file. Such a seal is not intact, however well the
    /// rest matches.
    pub excludes_problem: Option<String>,
}

impl Verification {
    /// True when the directory matches: the same hash, every file the record lists as
    /// recorded (the spec and stampede modes leave files out of the hash; the record's list
    /// still holds them), no symbolic link, no FIFO, socket or device, and excludes and mode
    /// that leave the sealed tests in the hash.
    pub fn intact(&self) -> bool {
        self.actual.hash == self.expected
            && self.diff.as_ref().is_none_or(SealDiff::is_empty)
            && self.links.is_empty()
            && self.special.is_empty()
            && self.excludes_problem.is_none()
    }
}

/// At most this many paths are named per kind of change in the one-line summary.
const NAMED: usize = 3;

impl fmt::Display for Verification {
    /// One line: `matches sha256:… (N files)`, or what differs (`1 file changed (a.py), 2 files
    /// added (x.py, y.py)`), or, when every file is as recorded, the two hashes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.intact() {
            let n = self.actual.hashed;
            return write!(
                f,
                "matches {} ({n} file{})",
                self.expected,
                if n == 1 { "" } else { "s" }
            );
        }
        let mut parts = Vec::new();
        if let Some(d) = &self.diff {
            for (list, what) in [
                (&d.changed, "changed"),
                (&d.added, "added"),
                (&d.removed, "removed"),
            ] {
                if list.is_empty() {
                    continue;
                }
                let n = list.len();
                let shown: Vec<&str> = list.iter().take(NAMED).map(String::as_str).collect();
                let more = if n > NAMED {
                    format!(", and {} more", n - NAMED)
                } else {
                    String::new()
                };
                parts.push(format!(
                    "{n} file{} {what} ({}{more})",
                    if n == 1 { "" } else { "s" },
                    shown.join(", ")
                ));
            }
        }
        if !self.links.is_empty() {
            let n = self.links.len();
            let shown: Vec<String> = self
                .links
                .iter()
                .take(NAMED)
                .map(|(p, t)| format!("{p} -> {t}"))
                .collect();
            parts.push(format!(
                "{n} symbolic link{} ({}{})",
                if n == 1 { "" } else { "s" },
                shown.join(", "),
                if n > NAMED { ", …" } else { "" }
            ));
        }
        if !self.special.is_empty() {
            let n = self.special.len();
            let shown: Vec<String> = self
                .special
                .iter()
                .take(NAMED)
                .map(|(p, k)| format!("{p}: {k}"))
                .collect();
            parts.push(format!(
                "{n} entr{} neither a file nor a directory ({}{}): a sealed directory holds regular files only",
                if n == 1 { "y" } else { "ies" },
                shown.join(", "),
                if n > NAMED { ", …" } else { "" }
            ));
        }
        if let Some(p) = &self.excludes_problem {
            parts.push(p.clone());
        }
        if parts.is_empty() {
            write!(f, "hash {} instead of {}", self.actual.hash, self.expected)?;
            if self.diff.is_some() {
                f.write_str(" (every file is as recorded: hashed as another path or order)")?;
            }
            return Ok(());
        }
        f.write_str(&parts.join(", "))
    }
}

/// Checks the files found now against a record: they are filtered by the record's excludes and
/// hashed in the record's mode, order and spelling.
///
/// Files the excludes leave out are listed in [`Verification::excluded_present`] (as
/// [`verify_dir`] lists the paths its scan leaves out), so every caller reports them.
pub fn verify(record: &SealRecord, files: &[SealedFile]) -> Verification {
    let (kept, excluded): (Vec<SealedFile>, Vec<SealedFile>) = match Excludes::new(&record.excludes)
    {
        Ok(ex) => files.iter().cloned().partition(|f| !ex.matches(&f.path)),
        // A record's globs were checked when it was read; should one not compile, nothing is
        // left out, which can only make the check stricter.
        Err(_) => (files.to_vec(), Vec::new()),
    };
    let mut v = verify_kept(
        record,
        &kept,
        excluded.into_iter().map(|f| f.path).collect(),
    );
    v.excludes_problem = excludes_problem(record, files);
    v
}

/// [`verify`] of the files the excludes kept, without judging the excludes: the caller judges
/// them on every file it found ([`verify`] on `files`, [`verify_dir`] on its scan).
fn verify_kept(record: &SealRecord, kept: &[SealedFile], excluded: Vec<String>) -> Verification {
    Verification {
        expected: record.hash.clone(),
        actual: seal_hash(kept, &record.options()),
        diff: Some(diff_files(&record.files, kept)),
        links: Vec::new(),
        special: Vec::new(),
        excluded_present: excluded,
        canary: None,
        excludes_problem: None,
    }
}

/// File names that are test files by the runners' own conventions (pytest's `test_*.py` and
/// `*_test.py`, Go's `*_test.go`, Jest's `*.test.*` and `*.spec.*`, TAP's `*.t`, files under a
/// `test`, `tests` or `__tests__` directory).
pub fn looks_like_test_file(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let base = parts.last().copied().unwrap_or(path);
    let stem = base.split('.').next().unwrap_or(base);
    let in_test_dir = parts[..parts.len().saturating_sub(1)]
        .iter()
        .any(|d| matches!(*d, "test" | "tests" | "__tests__" | "t" | "spec"));
    in_test_dir
        || stem.starts_with("test_")
        || stem.starts_with("test-")
        || stem.ends_with("_test")
        || stem.ends_with("Test")
        || stem.ends_with("Tests")
        || base.contains(".test.")
        || base.contains(".spec.")
        || base.ends_with(".t")
}

// The names a sealed suite of any of the readers' runners would hold.
const PROBES: [&str; 7] = [
    "test_probe.py",
    "tests/test_probe.py",
    "probe_test.go",
    "probe.test.js",
    "__tests__/probe.spec.ts",
    "t/probe.t",
    "src/test/java/ProbeTest.java",
];

/// Why a record's hash verifies nothing (spec §4.5: the hash must cover the sealed tests): the
/// one judgement of what the hash does not cover, by the record's excludes and by its mode (the
/// spec and stampede modes leave files out of the hash). Judged on the files found now
/// (`files`, read without excludes) or, without them, on the record's own lists, and on
/// typical test file names: what is left out is every file, or every test file; `None` when
/// the hash covers at least one test file.
pub fn excludes_problem(record: &SealRecord, files: &[SealedFile]) -> Option<String> {
    globs_problem(record, files).or_else(|| mode_problem(record, files))
}

/// What the record's mode leaves out of the hash, of the files its excludes keep: every one of
/// them, or every test file among them. A stampede hash of a directory without `*.sh` files is
/// the SHA-256 of nothing, the same for every such directory: it binds a report to no suite.
fn mode_problem(record: &SealRecord, files: &[SealedFile]) -> Option<String> {
    if record.mode == HashMode::Strict {
        return None;
    }
    let kept: Vec<SealedFile> = if files.is_empty() {
        record.files.clone()
    } else {
        match Excludes::new(&record.excludes) {
            Ok(ex) => files
                .iter()
                .filter(|f| !ex.matches(&f.path))
                .cloned()
                .collect(),
            Err(_) => files.to_vec(),
        }
    };
    if kept.is_empty() {
        return None;
    }
    let unhashed = if files.is_empty() {
        record.unhashed.clone()
    } else {
        seal_hash(&kept, &record.options()).unhashed
    };
    let covered: Vec<&SealedFile> = kept
        .iter()
        .filter(|f| !unhashed.contains(&f.path))
        .collect();
    let sample = |list: &[String]| {
        list.iter()
            .take(NAMED)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    };
    if covered.is_empty() {
        return Some(format!(
            "{} mode hashes none of the {} file{} ({}): a hash of nothing verifies nothing (every directory without such files has it)",
            record.mode,
            kept.len(),
            if kept.len() == 1 { "" } else { "s" },
            sample(&unhashed)
        ));
    }
    let tests: Vec<String> = unhashed
        .iter()
        .filter(|p| looks_like_test_file(p))
        .cloned()
        .collect();
    if !tests.is_empty() && !covered.iter().any(|f| looks_like_test_file(&f.path)) {
        return Some(format!(
            "{} mode leaves every test file out of the hash ({}): the hash covers only {}, so the sealed tests could change unseen",
            record.mode,
            sample(&tests),
            covered
                .iter()
                .take(NAMED)
                .map(|f| f.path.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    None
}

/// What the record's excludes leave out: every file, or every test file.
fn globs_problem(record: &SealRecord, files: &[SealedFile]) -> Option<String> {
    if record.excludes.is_empty() {
        return None;
    }
    let globs = record.excludes.join("`, `");
    let Ok(ex) = Excludes::new(&record.excludes) else {
        return Some(format!("the excludes `{globs}` are not valid globs"));
    };
    if !files.is_empty() {
        if let Some(p) = files_problem(&ex, &globs, files) {
            return Some(p);
        }
    } else if record.files.is_empty() {
        // Without the directory, the record's own list is what was hashed.
        return Some(format!(
            "the excludes `{globs}` left no file in the record: a hash of nothing verifies nothing"
        ));
    } else if !record.files.iter().any(|f| looks_like_test_file(&f.path))
        && PROBES.iter().any(|p| ex.matches(p))
    {
        return Some(format!(
            "the excludes `{globs}` leave out test files, and the record lists none: the hash covers only {}",
            record
                .files
                .iter()
                .take(3)
                .map(|f| f.path.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if PROBES.iter().all(|p| ex.matches(p)) {
        return Some(format!(
            "the excludes `{globs}` leave out every test file (any `test_*.py`, `*_test.go`, `*.test.js`, `*.t`, ...): the hash covers no sealed test"
        ));
    }
    None
}

/// [`excludes_problem`] on the files found (read without excludes).
fn files_problem(ex: &Excludes, globs: &str, files: &[SealedFile]) -> Option<String> {
    let kept: Vec<&SealedFile> = files.iter().filter(|f| !ex.matches(&f.path)).collect();
    if kept.is_empty() {
        return Some(format!(
            "the excludes `{globs}` leave out all {} files of the directory: a hash of nothing verifies nothing",
            files.len()
        ));
    }
    let tests = files
        .iter()
        .filter(|f| looks_like_test_file(&f.path))
        .count();
    if tests > 0 && !kept.iter().any(|f| looks_like_test_file(&f.path)) {
        return Some(format!(
            "the excludes `{globs}` leave out {} of the directory: the hash covers only {} other file{} ({}), so the sealed tests could change unseen",
            if tests == 1 {
                "its one test file".to_owned()
            } else {
                format!("all {tests} of its test files")
            },
            kept.len(),
            if kept.len() == 1 { "" } else { "s" },
            kept.iter()
                .take(3)
                .map(|f| f.path.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    None
}

/// Reads `dir` and checks it against a record or a bare hash.
pub fn verify_dir(
    dir: &Path,
    expected: &Expected,
    opts: &VerifyOptions,
) -> Result<Verification, Error> {
    match expected {
        Expected::Record(r) => {
            if let Some(m) = opts.mode
                && m != r.mode
            {
                return Err(Error::Usage(format!(
                    "the seal record was made in {} mode, not {m}; leave out --mode",
                    r.mode
                )));
            }
            let mut globs = r.excludes.clone();
            globs.extend(opts.excludes.iter().cloned());
            // The canary's atime is read before the scan reads it, and set back after.
            let canary = r.canary.as_ref().map(|c| Box::new(canary::check(dir, c)));
            let scan = sealed_dir::scan_listing_special(dir, &Excludes::new(&globs)?)?;
            // A read found stays visible: only gapscore's own read is undone.
            if let Some(c) = &r.canary
                && !canary.as_ref().is_some_and(|k| k.read)
            {
                canary::settle_again(dir, c);
            }
            let mut record = r.clone();
            if let Some(a) = &opts.hash_as {
                record.hashed_as = Some(a.clone());
            }
            // The scan left out what the excludes (the record's and the caller's) cover.
            let mut v = verify_kept(&record, &scan.files, Vec::new());
            // The excludes are judged on every file, the excluded ones too (by path).
            let every: Vec<SealedFile> = scan
                .files
                .iter()
                .cloned()
                .chain(scan.excluded.iter().map(|p| SealedFile {
                    path: p.clone(),
                    sha256: String::new(),
                }))
                .collect();
            v.excludes_problem = excludes_problem(&record, &every);
            v.links = scan.links;
            v.special = scan.special;
            v.excluded_present = scan.excluded;
            v.canary = canary;
            Ok(v)
        }
        Expected::Hash(h) => {
            let seal_opts = SealOptions {
                mode: opts.mode.unwrap_or_default(),
                order: if opts.locale_order {
                    PathOrder::Locale
                } else {
                    PathOrder::Bytes
                },
                hash_as: match &opts.hash_as {
                    Some(a) => a.clone(),
                    None => dir_string(dir)?,
                },
            };
            let scan = sealed_dir::scan(dir, &Excludes::new(&opts.excludes)?)?;
            Ok(Verification {
                expected: h.clone(),
                actual: seal_hash(&scan.files, &seal_opts),
                diff: None,
                links: scan.links,
                special: Vec::new(),
                excluded_present: scan.excluded,
                canary: None,
                excludes_problem: None,
            })
        }
    }
}

/// The directory as a string, for the spec and stampede hashes (which hash its spelling).
pub(crate) fn dir_string(dir: &Path) -> Result<String, Error> {
    dir.to_str().map(str::to_owned).ok_or_else(|| {
        Error::Usage(format!(
            "`{}`: the directory path is not UTF-8",
            dir.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Test code.

    use super::*;
    use crate::digest::sha256_hex;

    fn files(paths: &[&str]) -> Vec<SealedFile> {
        paths
            .iter()
            .map(|p| SealedFile {
                path: (*p).to_owned(),
                sha256: sha256_hex(p.as_bytes()),
            })
            .collect()
    }

    fn record_excluding(globs: &[&str], found: &[SealedFile]) -> SealRecord {
        let ex = Excludes::new(globs).unwrap();
        let kept: Vec<SealedFile> = found
            .iter()
            .filter(|f| !ex.matches(&f.path))
            .cloned()
            .collect();
        let opts = SealOptions::default();
        let mut r = SealRecord::new(
            &seal_hash(&kept, &opts),
            &opts,
            "sealed",
            kept,
            "2026-03-01T08:00:00Z",
        );
        r.excludes = globs.iter().map(|g| (*g).to_owned()).collect();
        r
    }

    /// Excludes that leave out every file or every test file seal nothing; a cache does not.
    #[test]
    fn excludes_that_cover_the_tests_are_a_problem() {
        let found = files(&[
            "test_calc.py",
            "conftest.py",
            "__pycache__/c.pyc",
            "build/x.py",
        ]);
        for globs in [&["*"][..], &["test_*.py"], &["*.py"]] {
            let r = record_excluding(globs, &found);
            assert!(excludes_problem(&r, &found).is_some(), "{globs:?}");
            // Without the directory, the record's own list tells.
            assert!(
                excludes_problem(&r, &[]).is_some(),
                "{globs:?} (record only)"
            );
        }
        let r = record_excluding(&["__pycache__", "build"], &found);
        assert_eq!(excludes_problem(&r, &found), None);
        assert_eq!(excludes_problem(&r, &[]), None);
        // What they leave out is listed, as verify_dir lists what its scan left out.
        assert_eq!(
            verify(&r, &found).excluded_present,
            ["__pycache__/c.pyc", "build/x.py"]
        );
    }

    /// A record whose excludes cover the tests is not intact, whether the files are given
    /// (`verify`, as `check` calls it) or scanned (`verify_dir`, as `score` and `seal --verify`
    /// call it), though every hashed file is as recorded.
    #[test]
    fn a_record_excluding_the_tests_is_not_intact() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("test_calc.py"), "assert True\n").unwrap();
        std::fs::write(dir.path().join("conftest.py"), "# conftest\n").unwrap();
        let found = sealed_dir::scan(dir.path(), &Excludes::default())
            .unwrap()
            .files;
        let r = record_excluding(&["test_*.py"], &found);
        let v = verify(&r, &found);
        assert_eq!(v.actual.hash, v.expected);
        assert!(!v.intact());
        assert!(v.to_string().contains("leave out"), "{v}");
        let v = verify_dir(
            dir.path(),
            &Expected::Record(Box::new(r)),
            &VerifyOptions::default(),
        )
        .unwrap();
        assert!(!v.intact(), "{v}");
        let r = record_excluding(&["__pycache__"], &found);
        assert!(verify(&r, &found).intact());
    }
    fn stampede_record(found: &[SealedFile]) -> SealRecord {
        let opts = SealOptions {
            mode: HashMode::Stampede,
            hash_as: "sealed".to_owned(),
            ..SealOptions::default()
        };
        let h = seal_hash(found, &opts);
        SealRecord::new(&h, &opts, "sealed", found.to_vec(), "2026-03-01T08:00:00Z")
    }

    /// A file the mode leaves out of the hash is still held to the record's list: a stampede
    /// seal whose test file is rewritten after sealing is not intact (attack 33, finding 8).
    #[test]
    fn a_file_the_mode_leaves_out_is_held_to_the_record() {
        let sealed = files(&["tests/run-tests.sh", "tests/test_calc.py"]);
        let r = stampede_record(&sealed);
        assert!(verify(&r, &sealed).intact());
        let mut now = sealed.clone();
        now[1].sha256 = sha256_hex(b"def test_a():\n    pass\n");
        let v = verify(&r, &now);
        assert_eq!(v.actual.hash, v.expected, "the hash alone does not see it");
        assert!(!v.intact());
        assert!(v.to_string().contains("tests/test_calc.py"), "{v}");
    }

    /// A mode that hashes none of the files, or none of the test files, verifies nothing
    /// (finding 7: a stampede hash of a pytest suite is the SHA-256 of nothing).
    #[test]
    fn a_mode_that_leaves_out_the_tests_is_a_problem() {
        let pytest = files(&["test_calc.py", "conftest.py"]);
        let r = stampede_record(&pytest);
        assert!(excludes_problem(&r, &pytest).is_some());
        assert!(excludes_problem(&r, &[]).is_some(), "record only");
        assert!(!verify(&r, &pytest).intact());
        let mixed = files(&["helper.sh", "test_calc.py"]);
        let r = stampede_record(&mixed);
        let p = excludes_problem(&r, &mixed).unwrap();
        assert!(p.contains("every test file"), "{p}");
        let stampede = files(&["tests/run.sh", "tests/test_outputs.py"]);
        let r = stampede_record(&stampede);
        assert_eq!(excludes_problem(&r, &stampede), None);
        assert_eq!(excludes_problem(&r, &[]), None);
    }
}
