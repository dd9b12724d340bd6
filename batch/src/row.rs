//! One line of `results.ndjson`: a repository's score, or why it has none.

use std::collections::BTreeMap;

use gapscore_core::{Level, ProblemKind, Score, SuiteCounts, Threshold, Verdict};
use gapscore_engine::gate::decide;
use serde::{Deserialize, Serialize};

/// A run-level problem of one suite of a repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RowProblem {
    /// `sealed` or `open`: the suite of results it was found in.
    pub role: String,
    /// The suite, package or file the problem belongs to, when the input names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<String>,
    /// What went wrong.
    pub kind: ProblemKind,
    /// The producer's words.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// One repository's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RepoRow {
    /// The repository.
    pub name: String,
    /// The displayed score (one decimal); `None` for an error row.
    pub score: Option<f64>,
    /// The exact score (failed / total × 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_exact: Option<f64>,
    /// The §3.4 level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// Sealed suite counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed: Option<SuiteCounts>,
    /// Open suite counts, when the repository has open results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<SuiteCounts>,
    /// The report is advisory (a suite did not run, flaky passes, no tests, broken seal).
    #[serde(default)]
    pub advisory: bool,
    /// Why it is advisory.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// The code of each of `reasons`, in the same order (`gapscore explain CODE`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reason_codes: Vec<gapscore_core::Code>,
    /// Run-level problems of both suites.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<RowProblem>,
    /// Failed sealed tests per category.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub failing_categories: BTreeMap<String, u64>,
    /// The `--threshold` gate's verdict on the repository, when a threshold was given (its
    /// report's `gapscore.gate` says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<Verdict>,
    /// Why the repository could not be scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Files found in its result directories and left out, each with why (a README or notes
    /// file beside the results: docs/batch.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    /// SHA-256 over the repository's input files (names and contents), its seal record and
    /// options: `--resume` re-scores a repository only when it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs_sha256: Option<String>,
}

/// `n repositories`, or `1 repository`.
pub fn repositories(n: impl Into<u64>) -> String {
    match n.into() {
        1 => "1 repository".to_owned(),
        n => format!(
            "{} repositories",
            gapscore_core::render::numbers::grouped(n)
        ),
    }
}

impl RepoRow {
    /// An error row.
    pub fn error(name: impl Into<String>, reason: impl Into<String>) -> Self {
        RepoRow {
            name: name.into(),
            score: None,
            score_exact: None,
            level: None,
            sealed: None,
            open: None,
            advisory: false,
            reasons: Vec::new(),
            reason_codes: Vec::new(),
            problems: Vec::new(),
            failing_categories: BTreeMap::new(),
            gate: None,
            error: Some(reason.into()),
            left_out: Vec::new(),
            inputs_sha256: None,
        }
    }

    /// True when the repository was scored.
    pub fn is_scored(&self) -> bool {
        self.error.is_none() && self.score.is_some()
    }

    /// The `--threshold` gate's verdict on this repository, decided by the engine's one rule
    /// ([`gapscore_engine::gate::decide`]) on its sealed counts and advisory reasons, as
    /// `gapscore score` decides it (a scored row records the same verdict in `gate`; a merge
    /// under another threshold asks again). `None` for a row that was not scored. `batch` reads
    /// no hardening history, so no escalation applies.
    pub fn gate_verdict(&self, threshold: Threshold, allow_advisory: bool) -> Option<Verdict> {
        if self.error.is_some() {
            return None;
        }
        let c = self.sealed?;
        let reason = self.advisory.then(|| self.reasons.join("; "));
        let score = Score::new(c.failed, c.total);
        Some(decide(&score, reason.as_deref(), threshold, allow_advisory).verdict)
    }
}
