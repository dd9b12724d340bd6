//! Evidence beyond the report: the sealed directory (`--sealed-dir`: its files' hashes for
//! recomputing the seal, its lines for the leak scan) and the seal record (`--seal`).

use std::fs;
use std::path::Path;

use gapscore_engine::core::feedback::{DEFAULT_MIN_LINE_LEN, SealedSource};
use gapscore_engine::core::seal::{Excludes, SealRecord, SealedFile, sha256_hex};
use gapscore_engine::fs::{self as sealdir, FsError};

/// Why evidence cannot be read: the host's sealed-directory reader's error, which names the
/// file and the place.
pub type EvidenceError = FsError;

/// The sealed directory as read now.
#[derive(Debug, Clone)]
pub struct SealedDir {
    /// The directory as given (the spec and stampede hashes depend on the string).
    pub given: String,
    /// Its absolute path, when it can be resolved.
    pub absolute: Option<String>,
    /// Every regular file (symbolic links neither followed nor hashed, as `find -type f`).
    pub files: Vec<SealedFile>,
    /// Symbolic links found (relative path, target text): never part of a seal, so any one
    /// means the directory cannot be verified (a link can point a sealed test anywhere).
    pub links: Vec<(String, String)>,
    /// The files' lines, for the leak scan.
    pub source: SealedSource,
}

impl SealedDir {
    /// Reads every regular file under `dir`.
    pub fn read(dir: &Path) -> Result<SealedDir, EvidenceError> {
        let mut source = SealedSource::new(DEFAULT_MIN_LINE_LEN);
        let scan = sealdir::scan_contents(dir, &Excludes::default(), &mut |rel, bytes| {
            source.add_file(rel, bytes);
        })?;
        Ok(SealedDir {
            given: dir.to_string_lossy().into_owned(),
            absolute: fs::canonicalize(dir)
                .ok()
                .map(|p| p.to_string_lossy().into_owned()),
            files: scan.files,
            links: scan.links,
            source,
        })
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
            links: Vec::new(),
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

/// Reads a seal record written by `gapscore seal`.
pub fn read_seal_record(path: &Path) -> Result<SealRecord, EvidenceError> {
    sealdir::read_record(path)
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
