//! Evidence beyond the report: the sealed directory (`--sealed-dir`: its files' hashes for
//! recomputing the seal, its lines for the leak scan) and the seal record (`--seal`), or a
//! combined record of several suites (spec v2 §4.6), checked through the seal crate's one
//! combined verification ([`CombinedSeal`]).

use std::fs;
use std::path::Path;

use gapscore_core::feedback::{DEFAULT_MIN_LINE_LEN, SealedSource};
use gapscore_seal::canary;
use gapscore_seal::digest::sha256_hex;
use gapscore_seal::dir_hash::SealedFile;
use gapscore_seal::excludes::Excludes;
use gapscore_seal::plurality;
use gapscore_seal::record::SealRecord;
use gapscore_seal::sealed_dir::{self as sealdir, FsError};
use gapscore_seal::verify::VerifyOptions;

/// Why evidence cannot be read: the sealed-directory reader's error, which names the file and
/// the place.
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
    /// FIFOs, sockets and devices found (relative path, what it is): neither hashed nor read,
    /// and reported (a sealed directory holds regular files only).
    pub special: Vec<(String, &'static str)>,
    /// The files' lines, for the leak scan (prepared when read).
    pub source: SealedSource,
}

impl SealedDir {
    /// Reads every regular file under `dir`.
    pub fn read(dir: &Path) -> Result<SealedDir, EvidenceError> {
        let mut source = SealedSource::new(DEFAULT_MIN_LINE_LEN);
        let scan = sealdir::scan_contents_listing_special(
            dir,
            &Excludes::default(),
            &mut |rel, bytes| {
                source.add_file(rel, bytes);
            },
        )?;
        source.prepare();
        Ok(SealedDir {
            given: dir.to_string_lossy().into_owned(),
            absolute: fs::canonicalize(dir)
                .ok()
                .map(|p| p.to_string_lossy().into_owned()),
            files: scan.files,
            links: scan.links,
            special: scan.special,
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
            special: Vec::new(),
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
        out.source.prepare();
        out
    }
}

/// Reads a seal record written by `gapscore seal`.
pub fn read_seal_record(path: &Path) -> Result<SealRecord, EvidenceError> {
    sealdir::read_record(path)
}

/// A combined seal record (`gapscore seal --combine`, §4.6) verified against the suites'
/// directories by the seal crate's one combined verification (`seal --verify COMBINED DIR`).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CombinedSeal {
    /// The record, as given.
    pub record: String,
    /// The combined hash it records.
    pub hash: String,
    /// Each suite: `family (directory)`.
    pub suites: Vec<String>,
    /// What does not hold (a forged combined hash, a suite record it does not list, a suite
    /// directory that does not match); empty when the seal holds.
    pub problems: Vec<String>,
    /// When the combined record was made (its `created`): the seal time of the whole.
    pub created: String,
    /// The spec ambiguity it records (§4.6.2), when contradictions were given.
    pub spec_ambiguity: Option<f64>,
    /// The counts the ratio is computed from (contradicting, total), when recorded: the
    /// report's value is held against the exact ratio, not the record's rounded `value`.
    pub spec_ambiguity_counts: Option<(u64, u64)>,
    /// Entries under the sealed directory in none of the suites (the seal's records aside):
    /// neither hashed nor scanned for sealed source.
    pub uncovered: Vec<String>,
    /// Each suite's author family, as the combined record lists it.
    pub families: Vec<String>,
    /// The suites' expected tests, merged, when every suite's record lists them.
    pub expected_tests: Option<Vec<String>>,
    /// Why the suites' expected tests cannot be merged (some suites list them, some do not):
    /// the total cannot be held against them, which is a finding (`score` refuses such a seal).
    pub expected_tests_problem: Option<String>,
    /// Each suite's record, for the checks a single record gets (excludes, files present
    /// under them), with its directory as given.
    pub suite_records: Vec<(String, SealRecord, Vec<SealedFile>)>,
}

/// What the checker may use besides the report.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Evidence {
    /// The sealed directory (`--sealed-dir`); under a combined seal, every suite's files.
    pub sealed_dir: Option<SealedDir>,
    /// The seal record (`--seal`).
    pub seal: Option<SealRecord>,
    /// A combined seal record (`--seal COMBINED --sealed-dir DIR`), verified.
    pub combined: Option<CombinedSeal>,
    /// What the records' canaries (§4.5) show, read before the directory was: each read of
    /// the sealed tests after sealing. Empty when no canary was read (or none recorded).
    pub canary_reads: Vec<String>,
}

/// An error about `path` with this reason, as the sealed-directory reader words one.
fn unusable(path: &Path, reason: String) -> EvidenceError {
    FsError::read(path, std::io::Error::other(reason))
}

impl Evidence {
    /// Evidence from a sealed directory and a seal record, either optional.
    pub fn new(sealed_dir: Option<SealedDir>, seal: Option<SealRecord>) -> Self {
        Evidence {
            sealed_dir,
            seal,
            combined: None,
            canary_reads: Vec::new(),
        }
    }

    /// Reads the evidence from paths. A combined seal record needs the sealed directory its
    /// suites' directories are relative to.
    pub fn load(sealed_dir: Option<&Path>, seal: Option<&Path>) -> Result<Self, EvidenceError> {
        if let Some(record) = seal
            && plurality::is_combined(record).unwrap_or(false)
        {
            let Some(base) = sealed_dir else {
                return Err(unusable(
                    record,
                    "a combined seal record needs --sealed-dir, the directory its suites' directories are relative to".into(),
                ));
            };
            return Self::load_combined(base, record);
        }
        let seal = seal.map(read_seal_record).transpose()?;
        // The canary is read before the directory is, and set back after the checker's own
        // read (as `seal --verify` does), so the next verifier still sees a read that was not
        // ours; a read found stays visible.
        let canary = match (&seal, sealed_dir) {
            (Some(r), Some(dir)) => r.canary.as_ref().map(|c| (dir, c, canary::check(dir, c))),
            _ => None,
        };
        let read = sealed_dir.map(SealedDir::read).transpose();
        let mut canary_reads = Vec::new();
        if let Some((dir, c, found)) = canary {
            match found.problem() {
                Some(p) => canary_reads.push(p),
                None => canary::settle_again(dir, c),
            }
        }
        Ok(Evidence {
            sealed_dir: read?,
            seal,
            combined: None,
            canary_reads,
        })
    }

    fn load_combined(base: &Path, record: &Path) -> Result<Self, EvidenceError> {
        let check = plurality::verify_combined(record, base, &VerifyOptions::default())
            .map_err(|e| unusable(record, sealdir::chain(&e)))?;
        // The suites' expected tests merged once: a list in some suites only is a finding.
        let (expected_tests, expected_tests_problem) = match check.expected_tests() {
            Ok(e) => (e, None),
            Err(e) => (None, Some(e.to_string())),
        };
        // The leak scan reads every suite's files, and nothing else under the base.
        let mut source = SealedSource::new(DEFAULT_MIN_LINE_LEN);
        let mut suite_records = Vec::new();
        let mut special = Vec::new();
        let mut canary_reads = Vec::new();
        for s in &check.suites {
            let scan = sealdir::scan_contents_listing_special(
                &s.dir,
                &Excludes::default(),
                &mut |rel, bytes| {
                    source.add_file(rel, bytes);
                },
            )?;
            let dir = s.suite.directory.clone();
            special.extend(
                scan.special
                    .iter()
                    .map(|(p, k)| (format!("{}/{p}", dir.trim_end_matches('/')), *k)),
            );
            suite_records.push((dir, s.record.clone(), scan.files));
            // The combined verification read each canary first and set it back; this second
            // read is set back too, unless a read was found.
            if let Some(c) = &s.record.canary {
                match s.verification.canary.as_ref().and_then(|k| k.problem()) {
                    Some(p) => canary_reads.push(format!("suite `{}`: {p}", s.dir.display())),
                    None => canary::settle_again(&s.dir, c),
                }
            }
        }
        source.prepare();
        Ok(Evidence {
            sealed_dir: Some(SealedDir {
                given: base.to_string_lossy().into_owned(),
                absolute: fs::canonicalize(base)
                    .ok()
                    .map(|p| p.to_string_lossy().into_owned()),
                files: Vec::new(),
                links: Vec::new(),
                special,
                source,
            }),
            seal: None,
            combined: Some(CombinedSeal {
                record: record.display().to_string(),
                hash: check.combined.hash.clone(),
                suites: check
                    .suites
                    .iter()
                    .map(|s| format!("{} ({})", s.suite.author_family, s.dir.display()))
                    .collect(),
                problems: check.problems(record),
                created: check.combined.created.clone(),
                spec_ambiguity: check.combined.spec_ambiguity.as_ref().map(|a| a.value),
                spec_ambiguity_counts: check.combined.spec_ambiguity.as_ref().map(|a| {
                    (
                        a.contradicting_acceptance_criteria,
                        a.total_acceptance_criteria,
                    )
                }),
                uncovered: check.uncovered.clone(),
                families: check.families(),
                expected_tests,
                expected_tests_problem,
                suite_records,
            }),
            canary_reads,
        })
    }
}
