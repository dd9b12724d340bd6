//! The seal a score runs under, checked before any result is read: a single suite's record
//! (through [`crate::verify::verify_dir`]) or a combined record of several suites (spec v2 §4.6,
//! through [`crate::plurality::verify_combined`], the check `seal --verify COMBINED DIR` makes).
//! `score`, `run` and `batch` see both the same way: one hash for the report, one verdict, the
//! directories to scrub sealed source from, and the expected tests.

use std::path::{Path, PathBuf};

use crate::combined::SpecAmbiguity;
use crate::error::Error;
use crate::plurality;
use crate::sealed_dir;
use crate::verify::{Expected, Verification, VerifyOptions, verify_dir};

/// What a combined seal adds to a score.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Plural {
    /// The suites' author families, as the combined record tags them.
    pub families: Vec<String>,
    /// The record's §4.6.2 spec ambiguity, when it was combined with contradictions.
    pub spec_ambiguity: Option<SpecAmbiguity>,
}

/// A seal checked against its directory or directories.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CheckedSeal {
    /// The report's `sealed_hash`: the record's hash, or the combined hash.
    pub hash: String,
    /// Every sealed directory with its verification.
    pub dirs: Vec<(PathBuf, Verification)>,
    /// What is wrong, one sentence each; empty when the seal holds.
    pub problems: Vec<String>,
    /// Those of [`Self::problems`] that concern the records rather than a directory (a combined
    /// hash that is not its suites', a suite record it does not list): a directory's mismatch
    /// is shown file by file from [`Self::broken_dirs`].
    pub record_problems: Vec<String>,
    /// The expected sealed tests (merged across the suites of a combined seal).
    pub expected_tests: Option<Vec<String>>,
    /// Set for a combined seal.
    pub plural: Option<Plural>,
    /// Under a combined seal, the entries under the directory it is checked under that lie in
    /// none of its suites (the seal's records aside): not vouched for by the seal.
    pub uncovered: Vec<String>,
}

impl CheckedSeal {
    /// The seal holds: every directory matches and, for a combined seal, the combined record
    /// is consistent with its suites.
    pub fn intact(&self) -> bool {
        self.problems.is_empty()
    }

    /// What differs, on one line: a single seal says it as `seal --verify` does; a combined
    /// one names each broken suite.
    pub fn summary(&self) -> String {
        match (&self.plural, self.dirs.as_slice()) {
            (None, [(_, v)]) => v.to_string(),
            _ => self.problems.join("; "),
        }
    }

    /// The directories that do not match their records.
    pub fn broken_dirs(&self) -> Vec<(PathBuf, Verification)> {
        self.dirs
            .iter()
            .filter(|(_, v)| !v.intact())
            .cloned()
            .collect()
    }

    /// Files under the paths the seals exclude; under a combined seal, each path is prefixed
    /// with its suite's directory.
    pub fn excluded_present(&self) -> Vec<String> {
        match (&self.plural, self.dirs.as_slice()) {
            (None, [(_, v)]) => v.excluded_present.clone(),
            _ => self
                .dirs
                .iter()
                .flat_map(|(d, v)| {
                    v.excluded_present
                        .iter()
                        .map(move |p| format!("{}/{p}", d.display()))
                })
                .collect(),
        }
    }
}

/// Checks `record` (a single suite's seal record or a combined record) against `dir` (for a
/// combined record, the directory its suites' directories are relative to).
pub fn check(record: &Path, dir: &Path, opts: &VerifyOptions) -> Result<CheckedSeal, Error> {
    // Not JSON or unreadable: read as a single record, whose error says what is wrong.
    if let Some(combined) = plurality::read_if_combined(record)? {
        let c = plurality::verify_combined_record(record, combined, dir, opts)?;
        return Ok(CheckedSeal {
            hash: c.combined.hash.clone(),
            problems: c.problems(record),
            record_problems: c.record_problems(record),
            expected_tests: c.expected_tests()?,
            uncovered: c.uncovered.clone(),
            plural: Some(Plural {
                families: c.families(),
                spec_ambiguity: c.combined.spec_ambiguity.clone(),
            }),
            dirs: c
                .suites
                .into_iter()
                .map(|s| (s.dir, s.verification))
                .collect(),
        });
    }
    let r = sealed_dir::read_record(record)?;
    let v = verify_dir(dir, &Expected::Record(Box::new(r.clone())), opts)?;
    Ok(CheckedSeal {
        hash: r.hash,
        problems: if v.intact() {
            Vec::new()
        } else {
            vec![format!("`{}` does not match its seal: {v}", dir.display())]
        },
        expected_tests: r.expected_tests,
        record_problems: Vec::new(),
        plural: None,
        uncovered: Vec::new(),
        dirs: vec![(dir.to_owned(), v)],
    })
}
