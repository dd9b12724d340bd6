//! Seal plurality (spec v2 §4.6): reading single and combined seal records, combining several
//! suites' records into one, the spec ambiguity metric from a contradictions file, and
//! [`verify_combined`], the one check of a combined seal against its directories (`seal
//! --verify COMBINED DIR`, `score --seal COMBINED --sealed-dir DIR`, `run`).

use std::path::{Path, PathBuf};

use crate::combined::{CombinedSeal, Contradictions, SuiteSeal, combined_hash};
use crate::coverage::{self, SuiteDir};
use crate::error::Error;
use crate::record::SealRecord;
use crate::sealed_dir::{self, FsError};
use crate::verify::{Expected, Verification, VerifyOptions, verify_dir};

fn read_text(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| Error::Input(format!("`{}`: {e}", path.display())))
}

/// Reads a combined record (`gapscore seal --combine`).
pub fn read_combined(path: &Path) -> Result<CombinedSeal, Error> {
    combined_from_text(path, &read_text(path)?)
}

fn combined_from_text(path: &Path, text: &str) -> Result<CombinedSeal, Error> {
    let c: CombinedSeal = serde_json::from_str(text).map_err(|e| {
        Error::Input(format!(
            "{}: not a combined seal record: {e}",
            path.display()
        ))
    })?;
    if c.gapscore_seal_combined != CombinedSeal::VERSION {
        return Err(Error::Input(format!(
            "{}: combined seal record version {} is not supported",
            path.display(),
            c.gapscore_seal_combined
        )));
    }
    Ok(c)
}

/// True when the file is a combined record rather than a single suite's.
pub fn is_combined(path: &Path) -> Result<bool, Error> {
    text_is_combined(path, &read_text(path)?)
}

fn text_is_combined(path: &Path, text: &str) -> Result<bool, Error> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| Error::Input(format!("{}: not JSON: {e}", path.display())))?;
    Ok(v.get("gapscore_seal_combined").is_some())
}

/// The combined record at `path`, read once; `None` when the file is not one (a single
/// suite's record, or a file that cannot be read or is not JSON: its own check says what is
/// wrong with it). A file marked combined that is not a valid combined record is an error.
pub fn read_if_combined(path: &Path) -> Result<Option<CombinedSeal>, Error> {
    let Ok(text) = read_text(path) else {
        return Ok(None);
    };
    if !text_is_combined(path, &text).unwrap_or(false) {
        return Ok(None);
    }
    combined_from_text(path, &text).map(Some)
}

/// A seal record file of either kind, read once.
#[derive(Debug, Clone)]
pub enum AnyRecord {
    /// One suite's record (`gapscore seal`).
    Single(SealRecord),
    /// A combined record (`gapscore seal --combine`).
    Combined(CombinedSeal),
}

impl AnyRecord {
    /// Reads `path` once and parses it as whichever kind it is.
    pub fn read(path: &Path) -> Result<Self, Error> {
        let text = read_text(path)?;
        if text_is_combined(path, &text)? {
            return Ok(Self::Combined(combined_from_text(path, &text)?));
        }
        SealRecord::from_json(&text)
            .map(Self::Single)
            .map_err(|source| {
                Error::from(FsError::Record {
                    path: path.to_owned(),
                    source,
                })
            })
    }

    /// The seal author families it names: a single record's `author_family`, or every
    /// suite's of a combined one.
    pub fn author_families(&self) -> Vec<String> {
        match self {
            Self::Single(r) => r.author_family.iter().cloned().collect(),
            Self::Combined(c) => c.suites.iter().map(|s| s.author_family.clone()).collect(),
        }
    }

    /// The seal hash it stands for: a single record's hash, or a combined record's combined
    /// hash (what a report scored under it carries as `sealed_hash`).
    pub fn hash(&self) -> &str {
        match self {
            Self::Single(r) => &r.hash,
            Self::Combined(c) => &c.hash,
        }
    }
}

/// Combines single-suite records into one; each must name its author family. With a
/// contradictions file, the §4.6.2 spec ambiguity is computed and kept.
pub fn combine(
    records: &[PathBuf],
    contradictions: Option<&Path>,
    created: impl Into<String>,
) -> Result<CombinedSeal, Error> {
    let mut suites = Vec::new();
    for path in records {
        let r = sealed_dir::read_record(path)?;
        let Some(family) = r.author_family.clone() else {
            return Err(Error::Usage(format!(
                "{}: the record names no author family; seal the suite again with --author-family",
                path.display()
            )));
        };
        let mut suite = SuiteSeal::new(
            family,
            r.hash.clone(),
            r.directory.clone(),
            path.display().to_string(),
        );
        suite.record_sha256 = Some(format!("sha256:{}", sealed_dir::sha256_file(path)?));
        suites.push(suite);
    }
    let mut combined =
        CombinedSeal::new(suites, created).map_err(|e| Error::Usage(e.to_string()))?;
    // The suites' directories are as each was sealed (relative to the working directory):
    // one directory, or one set of files, is not sealed twice as two suites.
    let dirs: Vec<PathBuf> = combined
        .suites
        .iter()
        .map(|s| PathBuf::from(&s.directory))
        .collect();
    let layout: Vec<SuiteDir<'_>> = combined
        .suites
        .iter()
        .zip(&dirs)
        .map(|(suite, dir)| SuiteDir { suite, dir })
        .collect();
    if let Some(p) = coverage::suites_overlap(&layout).first() {
        return Err(Error::Usage(format!(
            "{p}; seal each suite from the directory the combined seal will be verified under"
        )));
    }
    if let Some(path) = contradictions {
        let c: Contradictions = serde_json::from_str(&read_text(path)?).map_err(|e| {
            Error::Input(format!(
                "{}: not a contradictions file: {e}",
                path.display()
            ))
        })?;
        combined.spec_ambiguity = Some(
            c.ambiguity()
                .map_err(|e| Error::Input(format!("{}: {e}", path.display())))?,
        );
    }
    Ok(combined)
}

/// One suite of a combined seal, checked against its directory.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SuiteCheck {
    /// The suite as the combined record lists it.
    pub suite: SuiteSeal,
    /// Its record file, as found (as given when combining, or beside the combined record).
    pub record_path: PathBuf,
    /// Its record.
    pub record: SealRecord,
    /// The SHA-256 of the record file found (`sha256:<hex>`).
    pub record_sha256: String,
    /// Its directory: the record's `directory`, relative to the base directory.
    pub dir: PathBuf,
    /// The directory checked against the record.
    pub verification: Verification,
}

impl SuiteCheck {
    /// The record's hash is the one the combined record lists for the suite, and so is its
    /// author's family (a family changed in the combined record alone is caught here).
    pub fn listed(&self) -> bool {
        self.record_is_bound()
            && self.record.hash == self.suite.hash
            && self
                .record
                .author_family
                .as_deref()
                .is_some_and(|f| gapscore_fold::same_name(f, &self.suite.author_family))
    }

    /// The record file found is the one the suite was combined from: the combined record keeps
    /// its SHA-256 and it matches. A record of the same name planted elsewhere is not taken for
    /// it, and a combined record without `record_sha256` binds no record file at all (any file
    /// would do, with any expected tests, excludes or time), so it binds nothing.
    pub fn record_is_bound(&self) -> bool {
        self.suite
            .record_sha256
            .as_ref()
            .is_some_and(|h| *h == self.record_sha256)
    }

    /// Listed and its directory matches.
    pub fn intact(&self) -> bool {
        self.listed() && self.verification.intact()
    }
}

/// A combined seal checked as a whole: its own hash and each of its suites.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CombinedCheck {
    /// The combined record.
    pub combined: CombinedSeal,
    /// The combined hash recomputed from the suites the record lists.
    pub recomputed: String,
    /// Each suite, in the record's order.
    pub suites: Vec<SuiteCheck>,
    /// How the suites' directories fail to cover the base ([`coverage::layout_problems`]): a
    /// directory outside it, the same or nested directories, two suites with the same files.
    pub layout: Vec<String>,
    /// Entries under the base in no suite ([`coverage::uncovered`]): neither hashed nor
    /// scanned, like files under excluded paths.
    pub uncovered: Vec<String>,
}

impl CombinedCheck {
    /// The combined hash is the hash of its suites' hashes.
    pub fn hash_holds(&self) -> bool {
        self.recomputed == self.combined.hash
    }

    /// The hash holds, the suites cover disjoint directories inside the base, the spec
    /// ambiguity holds together, and every suite is listed and intact.
    pub fn intact(&self) -> bool {
        self.hash_holds()
            && self.layout.is_empty()
            && self.ambiguity_problem().is_none()
            && self.suites.iter().all(SuiteCheck::intact)
    }

    /// Why the recorded spec ambiguity does not hold together, when it does not.
    pub fn ambiguity_problem(&self) -> Option<String> {
        self.combined.spec_ambiguity.as_ref()?.problem()
    }

    /// What is wrong, one sentence each: [`Self::record_problems`], then each suite directory
    /// that does not match its record.
    pub fn problems(&self, record: &Path) -> Vec<String> {
        let mut out = self.record_problems(record);
        for s in self.suites.iter().filter(|s| !s.verification.intact()) {
            out.push(format!(
                "`{}` ({}) does not match its seal: {}",
                s.dir.display(),
                s.suite.author_family,
                s.verification
            ));
        }
        out
    }

    /// What is wrong with the records themselves, one sentence each: a forged combined hash, a
    /// suite record whose hash or family is not the one the combined record lists.
    pub fn record_problems(&self, record: &Path) -> Vec<String> {
        let mut out = Vec::new();
        if !self.hash_holds() {
            out.push(format!(
                "`{}`: the combined hash {} is not the hash of its suites' hashes ({})",
                record.display(),
                self.combined.hash,
                self.recomputed
            ));
        }
        out.extend(self.layout.iter().cloned());
        if let Some(p) = self.ambiguity_problem() {
            out.push(format!("`{}`: its spec ambiguity: {p}", record.display()));
        }
        for s in &self.suites {
            if s.suite.record_sha256.is_none() {
                out.push(format!(
                    "`{}` ({}): the combined record keeps no record_sha256 for this suite, so it binds no record file (its expected tests, excludes and time could be any): combine the suite records again with `gapscore seal --combine`",
                    s.record_path.display(),
                    s.suite.author_family
                ));
            } else if !s.record_is_bound() {
                out.push(format!(
                    "`{}` ({}): this record file (sha256 {}) is not the one the combined seal was made from ({})",
                    s.record_path.display(),
                    s.suite.author_family,
                    s.record_sha256,
                    s.suite.record_sha256.as_deref().unwrap_or_default()
                ));
            }
            if s.record.hash != s.suite.hash {
                out.push(format!(
                    "`{}` ({}): its hash {} is not the one the combined record lists ({})",
                    s.record_path.display(),
                    s.suite.author_family,
                    s.record.hash,
                    s.suite.hash
                ));
            } else if !s
                .record
                .author_family
                .as_deref()
                .is_some_and(|f| gapscore_fold::same_name(f, &s.suite.author_family))
            {
                out.push(format!(
                    "`{}`: its author family is {}, not {} as the combined record lists",
                    s.record_path.display(),
                    s.record.author_family.as_deref().unwrap_or("not named"),
                    s.suite.author_family
                ));
            }
        }
        out
    }

    /// The suites' author families, in the record's order.
    pub fn families(&self) -> Vec<String> {
        self.suites
            .iter()
            .map(|s| s.suite.author_family.clone())
            .collect()
    }

    /// The suites' expected sealed tests, merged, when every suite's record lists them; `None`
    /// when none does. Some but not all is refused: the results of a suite without a list
    /// would be read as tests no record expects (not counted), and the tests of a listed suite
    /// that did not run would go unnoticed only in part.
    pub fn expected_tests(&self) -> Result<Option<Vec<String>>, Error> {
        let (listed, unlisted): (Vec<&SuiteCheck>, Vec<&SuiteCheck>) = self
            .suites
            .iter()
            .partition(|s| s.record.expected_tests.is_some());
        if listed.is_empty() {
            return Ok(None);
        }
        if let Some(u) = unlisted.first() {
            return Err(Error::Usage(format!(
                "`{}` ({}) records no expected tests but `{}` ({}) does: the missing sealed tests of a combined seal are counted across all its suites, so seal every suite with --expect, or none",
                u.record_path.display(),
                u.suite.author_family,
                listed[0].record_path.display(),
                listed[0].suite.author_family
            )));
        }
        let mut ids: Vec<String> = listed
            .iter()
            .flat_map(|s| s.record.expected_tests.iter().flatten().cloned())
            .collect();
        ids.sort();
        Ok(Some(ids))
    }
}

/// Checks a combined record (`seal --combine`) against the directories under `base`: the
/// combined hash recomputed from the suites it lists, each suite's record (as given when
/// combining, or beside the combined record) against the hash listed for it, and each suite's
/// directory (its record's `directory`, relative to `base`) against its record. The record
/// must hold at least two suites by different families (§4.6), as `seal --combine` made it.
pub fn verify_combined(
    path: &Path,
    base: &Path,
    opts: &VerifyOptions,
) -> Result<CombinedCheck, Error> {
    verify_combined_record(path, read_combined(path)?, base, opts)
}

/// An error reading or checking one suite of the combined record at `path`, naming the suite.
fn in_suite(suite: &SuiteSeal, path: &Path, e: &(dyn std::error::Error + 'static)) -> Error {
    Error::Input(format!(
        "the sealed suite by {} ({}): {}",
        suite.author_family,
        path.display(),
        sealed_dir::chain(e)
    ))
}

/// [`verify_combined`] for a record already read from `path` (by [`read_if_combined`]), so
/// that a caller which had to read it to learn its kind does not read it again.
pub fn verify_combined_record(
    path: &Path,
    combined: CombinedSeal,
    base: &Path,
    opts: &VerifyOptions,
) -> Result<CombinedCheck, Error> {
    CombinedSeal::new(combined.suites.clone(), "")
        .map_err(|e| Error::Input(format!("{}: not a plural seal: {e}", path.display())))?;
    let pairs: Vec<(String, String)> = combined
        .suites
        .iter()
        .map(|s| (s.author_family.clone(), s.hash.clone()))
        .collect();
    let recomputed = combined_hash(&pairs);
    let mut suites: Vec<SuiteCheck> = Vec::new();
    for suite in &combined.suites {
        // Beside the combined record first: the working directory is not the record keeper's
        // (a file of the same name planted there must not be taken for the suite's record).
        let given = PathBuf::from(&suite.record);
        let mut record_path = match path.parent() {
            Some(parent) if given.is_relative() && parent.join(&given).is_file() => {
                parent.join(&given)
            }
            _ => given,
        };
        if !record_path.is_file()
            && let (Some(parent), Some(name)) =
                (path.parent(), Path::new(&suite.record).file_name())
        {
            record_path = parent.join(name);
        }
        let record_sha256 = format!(
            "sha256:{}",
            sealed_dir::sha256_file(&record_path).map_err(|e| in_suite(suite, path, &e))?
        );
        let record =
            sealed_dir::read_record(&record_path).map_err(|e| in_suite(suite, path, &e))?;
        let dir = base.join(&suite.directory);
        let verification = verify_dir(&dir, &Expected::Record(Box::new(record.clone())), opts)
            .map_err(|e| in_suite(suite, path, &e))?;
        suites.push(SuiteCheck {
            suite: suite.clone(),
            record_path,
            record_sha256,
            record,
            dir,
            verification,
        });
    }
    let dirs: Vec<SuiteDir<'_>> = suites
        .iter()
        .map(|s| SuiteDir {
            suite: &s.suite,
            dir: &s.dir,
        })
        .collect();
    let layout = coverage::layout_problems(base, &dirs);
    let mut records: Vec<&Path> = suites.iter().map(|s| s.record_path.as_path()).collect();
    records.push(path);
    let uncovered = coverage::uncovered(base, &dirs, &records)?;
    Ok(CombinedCheck {
        combined,
        recomputed,
        suites,
        layout,
        uncovered,
    })
}
