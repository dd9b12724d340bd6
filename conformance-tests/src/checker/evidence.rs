//! Evidence beyond the report: the sealed directory (`--sealed-dir`: its files' hashes for
//! recomputing the seal, its lines for the leak scan) and the seal record (`--seal`).

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_core::feedback::{DEFAULT_MIN_LINE_LEN, SealedSource};
use gapscore_core::hash::canonical_sha256;
use gapscore_core::seal::{SealRecord, SealedFile, sha256_hex};

/// Why evidence could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvidenceError {
    /// A file or directory could not be read.
    #[error("cannot read `{path}`: {reason}")]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Not a directory.
    #[error("`{0}` is not a directory")]
    NotADirectory(PathBuf),
    /// A file name that is not UTF-8 (seals cannot name it either).
    #[error("`{0}`: file names that are not utf-8 cannot be sealed")]
    NotUtf8(PathBuf),
    /// The seal record is not one.
    #[error("{path}:{line}:{column}: not a seal record: {reason}")]
    NotARecord {
        /// The path.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// serde's message.
        reason: String,
    },
    /// A seal record of another version, or with a malformed hash.
    #[error("{path}: {reason}")]
    BadRecord {
        /// The path.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

fn io(path: &Path, e: &std::io::Error) -> EvidenceError {
    let reason = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => e.to_string().to_lowercase(),
    };
    EvidenceError::Io {
        path: path.to_owned(),
        reason,
    }
}

/// The sealed directory as read now.
#[derive(Debug, Clone)]
pub struct SealedDir {
    /// The directory as given (the spec and stampede hashes depend on the string).
    pub given: String,
    /// Its absolute path, when it can be resolved.
    pub absolute: Option<String>,
    /// Every regular file (symbolic links neither followed nor hashed, as `find -type f`).
    pub files: Vec<SealedFile>,
    /// The files' lines, for the leak scan.
    pub source: SealedSource,
}

impl SealedDir {
    /// Reads every regular file under `dir`.
    pub fn read(dir: &Path) -> Result<SealedDir, EvidenceError> {
        let meta = fs::metadata(dir).map_err(|e| io(dir, &e))?;
        if !meta.is_dir() {
            return Err(EvidenceError::NotADirectory(dir.to_owned()));
        }
        let mut out = SealedDir {
            given: dir.to_string_lossy().into_owned(),
            absolute: fs::canonicalize(dir)
                .ok()
                .map(|p| p.to_string_lossy().into_owned()),
            files: Vec::new(),
            source: SealedSource::new(DEFAULT_MIN_LINE_LEN),
        };
        walk(dir, "", &mut out)?;
        out.files
            .sort_unstable_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
        Ok(out)
    }

    /// A sealed directory from files in memory (relative path, bytes), as if read from `given`.
    pub fn from_files<'a>(
        given: &str,
        files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    ) -> SealedDir {
        let mut out = SealedDir {
            given: given.to_owned(),
            absolute: None,
            files: Vec::new(),
            source: SealedSource::new(DEFAULT_MIN_LINE_LEN),
        };
        for (path, bytes) in files {
            out.source.add_file(path, bytes);
            out.files.push(SealedFile {
                path: path.to_owned(),
                sha256: sha256_hex(bytes),
            });
        }
        out.files
            .sort_unstable_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
        out
    }
}

fn walk(dir: &Path, rel: &str, out: &mut SealedDir) -> Result<(), EvidenceError> {
    let entries = fs::read_dir(dir).map_err(|e| io(dir, &e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io(dir, &e))?;
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            return Err(EvidenceError::NotUtf8(path));
        };
        let child = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let kind = entry.file_type().map_err(|e| io(&path, &e))?;
        if kind.is_dir() {
            walk(&path, &child, out)?;
        } else if kind.is_file() {
            // Sealed test directories are small: read each file once for its hash and lines.
            let bytes = fs::read(&path).map_err(|e| io(&path, &e))?;
            out.source.add_file(&child, &bytes);
            out.files.push(SealedFile {
                sha256: sha256_hex(&bytes),
                path: child,
            });
        }
    }
    Ok(())
}

/// Reads a seal record written by `gapscore seal`.
pub fn read_seal_record(path: &Path) -> Result<SealRecord, EvidenceError> {
    let text = fs::read_to_string(path).map_err(|e| io(path, &e))?;
    let record: SealRecord =
        serde_json::from_str(&text).map_err(|e| EvidenceError::NotARecord {
            path: path.to_owned(),
            line: e.line(),
            column: e.column(),
            reason: e.to_string(),
        })?;
    if record.gapscore_seal != SealRecord::VERSION {
        return Err(EvidenceError::BadRecord {
            path: path.to_owned(),
            reason: format!(
                "seal record version {} is not supported (this checker reads version {})",
                record.gapscore_seal,
                SealRecord::VERSION
            ),
        });
    }
    canonical_sha256(&record.hash).map_err(|e| EvidenceError::BadRecord {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    Ok(record)
}

/// What the checker may use besides the report.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Evidence {
    /// The sealed directory (`--sealed-dir`).
    pub sealed_dir: Option<SealedDir>,
    /// The seal record (`--seal`).
    pub seal: Option<SealRecord>,
}

impl Evidence {
    /// Evidence from a sealed directory and a seal record, either optional.
    pub fn new(sealed_dir: Option<SealedDir>, seal: Option<SealRecord>) -> Self {
        Evidence { sealed_dir, seal }
    }

    /// Reads the evidence from paths.
    pub fn load(sealed_dir: Option<&Path>, seal: Option<&Path>) -> Result<Self, EvidenceError> {
        Ok(Evidence {
            sealed_dir: sealed_dir.map(SealedDir::read).transpose()?,
            seal: seal.map(read_seal_record).transpose()?,
        })
    }
}
