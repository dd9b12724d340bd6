//! The seal record `gapscore seal` writes ([`SealRecord`], with its [`Canary`] entry), how a
//! record's text is read ([`SealRecord::from_json`]), and what changed between a record and the
//! directory now ([`SealDiff`], [`diff_files`], [`likely_harmless`]).

use serde::{Deserialize, Serialize};

use crate::dir_hash::{HashMode, PathOrder, SealHash, SealOptions, SealedFile};

/// What `gapscore seal` writes: enough to recompute the hash and to say, when it no longer
/// matches, which files changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct SealRecord {
    /// The record format's version (1).
    pub gapscore_seal: u32,
    /// `sha256:<lowercase hex>`.
    pub hash: String,
    /// How it was computed.
    pub mode: HashMode,
    /// Line order (spec and stampede modes).
    #[serde(default)]
    pub order: PathOrder,
    /// The directory as given to `gapscore seal`.
    pub directory: String,
    /// The directory string the hash was computed as (`--as`), when it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hashed_as: Option<String>,
    /// `--exclude` globs in force when sealing; verification applies them again.
    #[serde(default)]
    pub excludes: Vec<String>,
    /// Every file found (after excludes), with its SHA-256, in byte order of path.
    pub files: Vec<SealedFile>,
    /// Files found but left out of the hash by the mode (see [`SealHash::unhashed`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unhashed: Vec<String>,
    /// Ids of the sealed tests expected to run (`--expect`): when scoring with this record,
    /// each one missing from the results counts as failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_tests: Option<Vec<String>>,
    /// When the record was made (RFC 3339, UTC).
    pub created: String,
    /// The tool and version that made it (`gapscore 0.1.0`).
    pub tool: String,
    /// The model family of the suite's seal author (`--author-family`; spec v2 §4.6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_family: Option<String>,
    /// The canary file placed in the directory (`--canary`; spec v2 §4.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canary: Option<Canary>,
}

/// Why the text of a seal record cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// Not JSON of a seal record's shape; the place is 1-based.
    #[error("{line}:{column}: not a seal record: {reason}")]
    Json {
        /// Line of the error.
        line: usize,
        /// Column of the error.
        column: usize,
        /// What serde_json said.
        reason: String,
    },
    /// A record format this version cannot read.
    #[error("seal record version {0} is not supported (this gapscore reads version {v})", v = SealRecord::VERSION)]
    Version(u32),
    /// The record's `hash` is not a SHA-256.
    #[error("the record's hash: {0}")]
    Hash(#[from] crate::digest::HashFormatError),
}

impl RecordError {
    /// The message prefixed by the record's file: `path:line:col: ...` for a place in it,
    /// `path: ...` otherwise.
    pub fn at(&self, path: &std::path::Path) -> String {
        match self {
            RecordError::Json { .. } => format!("{}:{self}", path.display()),
            _ => format!("{}: {self}", path.display()),
        }
    }
}

impl SealRecord {
    /// The current record format version.
    pub const VERSION: u32 = 1;

    /// Reads a record written by `gapscore seal`: its JSON, its version and its hash. Every
    /// reader of records (score, seal --verify, check, batch) goes through here, so they
    /// accept and refuse the same files.
    pub fn from_json(text: &str) -> Result<SealRecord, RecordError> {
        let record: SealRecord = serde_json::from_str(text).map_err(|e| RecordError::Json {
            line: e.line(),
            column: e.column(),
            reason: e.to_string(),
        })?;
        if record.gapscore_seal != SealRecord::VERSION {
            return Err(RecordError::Version(record.gapscore_seal));
        }
        crate::digest::canonical_sha256(&record.hash)?;
        Ok(record)
    }

    /// A record for a computed hash. `files` are sorted by path.
    pub fn new(
        sealed: &SealHash,
        opts: &SealOptions,
        directory: impl Into<String>,
        mut files: Vec<SealedFile>,
        created: impl Into<String>,
    ) -> Self {
        files.sort_unstable_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
        let directory = directory.into();
        SealRecord {
            gapscore_seal: Self::VERSION,
            hash: sealed.hash.clone(),
            mode: opts.mode,
            order: opts.order,
            hashed_as: (opts.hash_as != directory).then(|| opts.hash_as.clone()),
            directory,
            excludes: Vec::new(),
            files,
            unhashed: sealed.unhashed.clone(),
            expected_tests: None,
            created: created.into(),
            tool: format!("gapscore {}", env!("CARGO_PKG_VERSION")),
            author_family: None,
            canary: None,
        }
    }

    /// The options that recompute this record's hash: the same mode, order and directory
    /// string, wherever the directory is now.
    pub fn options(&self) -> SealOptions {
        SealOptions {
            mode: self.mode,
            order: self.order,
            hash_as: self
                .hashed_as
                .clone()
                .unwrap_or_else(|| self.directory.clone()),
        }
    }
}

/// A canary file inside the sealed directory (§4.5): its access time after sealing is kept, so
/// a later read of the sealed tests shows as a later access time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Canary {
    /// Its path relative to the sealed directory (`/`-separated).
    pub path: String,
    /// Its access time when sealed: whole seconds since the Unix epoch.
    pub atime_secs: i64,
    /// The nanoseconds of that access time.
    pub atime_nanos: u32,
    /// The same instant, RFC 3339 (for people).
    pub atime: String,
}

impl Canary {
    /// A canary at `path` with the given access time.
    pub fn new(path: impl Into<String>, secs: i64, nanos: u32, rfc3339: impl Into<String>) -> Self {
        Canary {
            path: path.into(),
            atime_secs: secs,
            atime_nanos: nanos,
            atime: rfc3339.into(),
        }
    }

    /// True when `(secs, nanos)` is later than the recorded access time.
    pub fn read_since(&self, secs: i64, nanos: u32) -> bool {
        (secs, nanos) > (self.atime_secs, self.atime_nanos)
    }
}

/// What differs between the files of a record and the files found now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SealDiff {
    /// In both, with different contents.
    pub changed: Vec<String>,
    /// Found now, not in the record.
    pub added: Vec<String>,
    /// In the record, not found now.
    pub removed: Vec<String>,
}

impl SealDiff {
    /// True when nothing differs.
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.added.is_empty() && self.removed.is_empty()
    }
}

/// Compares the files of a record with the files found now.
pub fn diff_files(recorded: &[SealedFile], now: &[SealedFile]) -> SealDiff {
    use std::collections::BTreeMap;
    let old: BTreeMap<&str, &str> = recorded
        .iter()
        .map(|f| (f.path.as_str(), f.sha256.as_str()))
        .collect();
    let new: BTreeMap<&str, &str> = now
        .iter()
        .map(|f| (f.path.as_str(), f.sha256.as_str()))
        .collect();
    let mut d = SealDiff::default();
    for (path, sha) in &new {
        match old.get(path) {
            Some(o) if o != sha => d.changed.push((*path).to_owned()),
            Some(_) => {}
            None => d.added.push((*path).to_owned()),
        }
    }
    d.removed = old
        .keys()
        .filter(|p| !new.contains_key(*p))
        .map(|p| (*p).to_owned())
        .collect();
    d
}

/// When an added file is one that tools create by themselves (a false alarm, not tampering):
/// what made it, and an `--exclude` glob that leaves it out.
pub fn likely_harmless(path: &str) -> Option<(&'static str, &'static str)> {
    let parts: Vec<&str> = path.split('/').collect();
    let base = parts.last().copied().unwrap_or(path);
    let in_dir = |d: &str| parts[..parts.len().saturating_sub(1)].contains(&d);
    if in_dir("__pycache__") || base.ends_with(".pyc") {
        return Some(("Python's bytecode cache", "__pycache__"));
    }
    if in_dir(".pytest_cache") {
        return Some(("pytest's cache", ".pytest_cache"));
    }
    if base == ".DS_Store" {
        return Some(("macOS Finder", ".DS_Store"));
    }
    if base == ".seal-hash" || base.ends_with(".seal.json") {
        return Some((
            "a seal file kept inside the sealed directory",
            base_glob(base),
        ));
    }
    if (base.starts_with('.') && base.ends_with(".swp")) || base.ends_with('~') {
        return Some(("an editor's swap or backup file", "*.swp"));
    }
    if in_dir("node_modules") {
        return Some(("npm", "node_modules"));
    }
    None
}

fn base_glob(base: &str) -> &'static str {
    if base == ".seal-hash" {
        ".seal-hash"
    } else {
        "*.seal.json"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::sha256_hex;

    fn file(path: &str, body: &str) -> SealedFile {
        SealedFile {
            path: path.to_owned(),
            sha256: sha256_hex(body.as_bytes()),
        }
    }

    fn fixture_a() -> Vec<SealedFile> {
        vec![
            file("test_sealed.py", "def test_a():\n    assert 1 + 1 == 2\n"),
            file("sub/test_more.py", "def test_b():\n    pass\n"),
            file("conftest.py", "import pytest\n"),
        ]
    }

    #[test]
    fn diffs_name_changed_added_and_removed_files() {
        let old = fixture_a();
        let mut new = fixture_a();
        new[0].sha256 = sha256_hex(b"changed");
        new.retain(|f| f.path != "conftest.py");
        new.push(file("__pycache__/conftest.cpython-312.pyc", "bytecode"));
        let d = diff_files(&old, &new);
        assert_eq!(d.changed, ["test_sealed.py"]);
        assert_eq!(d.removed, ["conftest.py"]);
        assert_eq!(d.added, ["__pycache__/conftest.cpython-312.pyc"]);
        assert_eq!(
            likely_harmless(&d.added[0]).map(|x| x.1),
            Some("__pycache__")
        );
        assert_eq!(likely_harmless("test_x.py"), None);
    }
}
