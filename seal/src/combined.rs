//! The combined record of seal plurality (spec v2 §4.6: [`CombinedSeal`], [`combined_hash`]) and
//! the spec ambiguity metric (§4.6.2: [`Contradictions`], [`SpecAmbiguity`]). Pure: reading,
//! combining and verifying records on disk is [`crate::plurality`]'s.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::digest::sha256_hex;

/// The rule of [`combined_hash`], as records and docs state it.
pub const COMBINED_HASH_RULE: &str = "SHA-256 over the lines `<family> <hash>\\n` (hash as sha256:<hex>, family trimmed and lowercased), one per sealed suite, sorted by bytes";

/// The combined hash of several sealed suites: SHA-256 over the lines `<family> <hash>\n`, one
/// per suite, with the family trimmed and lowercased and the hash as `sha256:<hex>`, sorted by
/// bytes. The order the records are given in does not matter; a change to any suite or to
/// which family wrote it changes the hash.
pub fn combined_hash(suites: &[(String, String)]) -> String {
    let mut lines: Vec<String> = suites
        .iter()
        .map(|(family, hash)| format!("{} {}\n", family.trim().to_lowercase(), hash))
        .collect();
    lines.sort_unstable();
    format!("sha256:{}", sha256_hex(lines.concat().as_bytes()))
}

/// One sealed suite of a combined seal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct SuiteSeal {
    /// The model family of its seal author.
    pub author_family: String,
    /// Its seal hash (`sha256:<hex>`).
    pub hash: String,
    /// Its directory, as its record names it.
    pub directory: String,
    /// The record file it was read from, as given.
    pub record: String,
    /// The SHA-256 of that record file's bytes (`sha256:<hex>`), written when combining: the
    /// record a verification finds must be this one, whatever its path resolves to, since the
    /// suite's hash does not cover the record's expected tests. `None` in combined records made
    /// before it was kept (their records are found beside the combined record first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_sha256: Option<String>,
}

impl SuiteSeal {
    /// A suite of a combined seal.
    pub fn new(
        author_family: impl Into<String>,
        hash: impl Into<String>,
        directory: impl Into<String>,
        record: impl Into<String>,
    ) -> Self {
        SuiteSeal {
            author_family: author_family.into(),
            hash: hash.into(),
            directory: directory.into(),
            record: record.into(),
            record_sha256: None,
        }
    }
}

/// What `gapscore seal --combine` writes: several independently authored suites (§4.6) under
/// one hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct CombinedSeal {
    /// The combined record format's version (1).
    pub gapscore_seal_combined: u32,
    /// The [`combined_hash`] of the suites.
    pub hash: String,
    /// How the hash is computed ([`COMBINED_HASH_RULE`]).
    pub hash_rule: String,
    /// The suites, sorted by author family.
    pub suites: Vec<SuiteSeal>,
    /// §4.6.2, when contradictions were given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_ambiguity: Option<SpecAmbiguity>,
    /// When the record was made (RFC 3339, UTC).
    pub created: String,
    /// The tool and version that made it.
    pub tool: String,
}

/// Why suites cannot be combined.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CombineError {
    /// Fewer than two suites.
    #[error("seal plurality needs at least two sealed suites, got {0}")]
    TooFew(usize),
    /// Two suites of one family: §4.6 asks for a different family per suite.
    #[error(
        "two sealed suites are by the family `{0}`: §4.6 asks for suites authored independently by different model families"
    )]
    SameFamily(String),
}

impl CombinedSeal {
    /// The current combined record format version.
    pub const VERSION: u32 = 1;

    /// Combines suites; refused for fewer than two or a repeated family.
    pub fn new(
        mut suites: Vec<SuiteSeal>,
        created: impl Into<String>,
    ) -> Result<Self, CombineError> {
        if suites.len() < 2 {
            return Err(CombineError::TooFew(suites.len()));
        }
        // One family is one name by its fold (`OpenAI` and `open\u{200b}ai` are one).
        suites.sort_by_key(|s| gapscore_fold::name_fold(&s.author_family));
        for w in suites.windows(2) {
            if gapscore_fold::same_name(&w[0].author_family, &w[1].author_family) {
                return Err(CombineError::SameFamily(w[1].author_family.clone()));
            }
        }
        let pairs: Vec<(String, String)> = suites
            .iter()
            .map(|s| (s.author_family.clone(), s.hash.clone()))
            .collect();
        Ok(CombinedSeal {
            gapscore_seal_combined: Self::VERSION,
            hash: combined_hash(&pairs),
            hash_rule: COMBINED_HASH_RULE.to_owned(),
            suites,
            spec_ambiguity: None,
            created: created.into(),
            tool: format!("gapscore {}", env!("CARGO_PKG_VERSION")),
        })
    }
}

/// The kind of a disagreement between suites (§4.6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Disagreement {
    /// Two suites assert on the same behaviour, incompatibly: counts toward spec ambiguity.
    Contradiction,
    /// One suite tests a behaviour the other did not: does not count.
    Divergence,
}

/// One disagreement, named by the acceptance criterion it concerns and the disputed behaviour
/// (§4.6.3: behaviours only, never test source, names or values).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Finding {
    /// The acceptance criterion (`AC-3`).
    pub criterion: String,
    /// The disputed behaviour, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behaviour: Option<String>,
    /// Contradiction or divergence (default: contradiction).
    #[serde(default = "contradiction")]
    pub kind: Disagreement,
}

fn contradiction() -> Disagreement {
    Disagreement::Contradiction
}

/// The input of the spec ambiguity metric (`seal --combine --contradictions FILE`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Contradictions {
    /// How many acceptance criteria the specification has.
    pub total_acceptance_criteria: u64,
    /// The disagreements found between the suites.
    #[serde(default)]
    pub findings: Vec<Finding>,
}

/// §4.6.2: `contradicting_acceptance_criteria / total_acceptance_criteria`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct SpecAmbiguity {
    /// The ratio, 0–1, three decimals.
    pub value: f64,
    /// Distinct criteria with at least one contradiction.
    pub contradicting_acceptance_criteria: u64,
    /// The specification's acceptance criteria.
    pub total_acceptance_criteria: u64,
    /// Divergences listed (not counted).
    pub divergences: u64,
    /// The contradicting criteria, sorted.
    pub criteria: Vec<String>,
}

/// Why the metric cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AmbiguityError {
    /// No criteria: the ratio is undefined.
    #[error("total_acceptance_criteria is 0: spec ambiguity is undefined")]
    NoCriteria,
    /// More contradicting criteria than criteria.
    #[error("{0} criteria contradict but the specification has only {1}")]
    TooMany(u64, u64),
}

impl SpecAmbiguity {
    /// The value rounded from the counts as [`Contradictions::ambiguity`] computes it.
    pub fn recomputed(&self) -> Option<f64> {
        (self.total_acceptance_criteria > 0).then(|| {
            let exact = self.contradicting_acceptance_criteria as f64
                / self.total_acceptance_criteria as f64;
            (exact * 1000.0).round() / 1000.0
        })
    }

    /// Why this record of the metric does not hold together, when it does not: a recorded
    /// ratio is recomputed from its counts, never read by its `value` alone (an edited value
    /// with the counts left as they were is a forged record).
    pub fn problem(&self) -> Option<String> {
        let (n, total) = (
            self.contradicting_acceptance_criteria,
            self.total_acceptance_criteria,
        );
        let distinct: BTreeSet<&str> = self.criteria.iter().map(|c| c.trim()).collect();
        if total == 0 {
            Some("its total_acceptance_criteria is 0: spec ambiguity is undefined".to_owned())
        } else if n > total {
            Some(format!(
                "{n} criteria contradict but the specification has only {total}"
            ))
        } else if distinct.len() as u64 != n || distinct.len() != self.criteria.len() {
            Some(format!(
                "it counts {n} contradicting criteria but lists {} ({} distinct)",
                self.criteria.len(),
                distinct.len()
            ))
        } else if self
            .recomputed()
            .is_some_and(|r| (r - self.value).abs() > 1e-9)
        {
            Some(format!(
                "its value {} is not {n} / {total} = {} (§4.6.2)",
                self.value,
                self.recomputed().unwrap_or_default()
            ))
        } else {
            None
        }
    }
}

impl Contradictions {
    /// Computes the metric: each criterion counts once, however many contradictions name it;
    /// divergences never count (§4.6.1).
    pub fn ambiguity(&self) -> Result<SpecAmbiguity, AmbiguityError> {
        let total = self.total_acceptance_criteria;
        if total == 0 {
            return Err(AmbiguityError::NoCriteria);
        }
        let criteria: BTreeSet<&str> = self
            .findings
            .iter()
            .filter(|f| f.kind == Disagreement::Contradiction)
            .map(|f| f.criterion.trim())
            .collect();
        let n = criteria.len() as u64;
        if n > total {
            return Err(AmbiguityError::TooMany(n, total));
        }
        Ok(SpecAmbiguity {
            value: ((n as f64 / total as f64) * 1000.0).round() / 1000.0,
            contradicting_acceptance_criteria: n,
            total_acceptance_criteria: total,
            divergences: self
                .findings
                .iter()
                .filter(|f| f.kind == Disagreement::Divergence)
                .count() as u64,
            criteria: criteria.into_iter().map(str::to_owned).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_combined_hash_ignores_order_and_spelling_of_families() {
        let a = ("Claude".to_owned(), "sha256:aa".to_owned());
        let b = ("gpt".to_owned(), "sha256:bb".to_owned());
        let h = combined_hash(&[a.clone(), b.clone()]);
        assert_eq!(h, combined_hash(&[b.clone(), a]));
        assert_eq!(
            h,
            format!(
                "sha256:{}",
                sha256_hex(b"claude sha256:aa\ngpt sha256:bb\n")
            )
        );
        let s = |f: &str| SuiteSeal::new(f, "sha256:aa", "d", "r");
        // One family by its fold: case, spacing, a zero-width space, a Cyrillic `о`.
        for (a, b) in [
            ("x", " X"),
            ("openai", "open\u{200b}ai"),
            ("openai", "\u{43e}penai"),
        ] {
            assert!(
                matches!(
                    CombinedSeal::new(vec![s(a), s(b)], "t"),
                    Err(CombineError::SameFamily(_))
                ),
                "{a:?} {b:?}"
            );
        }
        assert!(matches!(
            CombinedSeal::new(vec![s("x")], "t"),
            Err(CombineError::TooFew(1))
        ));
    }

    #[test]
    fn ambiguity_counts_contradicting_criteria_once() {
        let c: Contradictions = serde_json::from_str(
            r#"{"total_acceptance_criteria": 8, "findings": [
                {"criterion": "AC-2", "behaviour": "empty name"},
                {"criterion": "AC-2", "kind": "contradiction"},
                {"criterion": "AC-5", "kind": "divergence"},
                {"criterion": "AC-7"}]}"#,
        )
        .unwrap();
        let a = c.ambiguity().unwrap();
        assert_eq!(a.contradicting_acceptance_criteria, 2);
        assert_eq!(a.value, 0.25);
        assert_eq!(a.divergences, 1);
        assert_eq!(a.criteria, ["AC-2", "AC-7"]);
        assert_eq!(a.problem(), None);
        // A value edited with its counts left as they were does not hold together.
        let mut edited = a.clone();
        edited.value = 0.0;
        assert!(edited.problem().unwrap().contains("is not 2 / 8"));
        let mut listed = a.clone();
        listed.criteria.pop();
        assert!(listed.problem().is_some());
        let mut over = a;
        over.total_acceptance_criteria = 1;
        assert!(over.problem().is_some());
    }
}
