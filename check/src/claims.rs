//! The claims table (issue 33): every claim a report makes that a level needs, the records
//! that can confirm or contradict it, and the rule a contradiction breaks. The checker walks
//! the table ([`Checker::walk_claims`]), so each claim is held against every record given; a
//! claim no record confirms stays as its level's requirement says (attested, which caps the
//! level where the requirement does), and a record that disagrees is an error of the row's
//! rule. docs/conformance.md shows the table ([`table_markdown`]; a test keeps them in step).
//!
//! Some claims are judged inside a level's requirement, which needs the outcome for its
//! verdict (the stored hash against the records and the directory, the seal time against the
//! records and every validation): those rows name the requirement ([`Judged::Requirement`]),
//! and the walk leaves them to it, so no cross-check is written twice.

use crate::checker::Checker;
use crate::model::{RequirementVerdict, Severity};
use crate::rules::{self, Rule};

/// A record a claim can be held against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Record {
    /// A single suite's seal record (`--seal`).
    Seal,
    /// A combined seal record (`--seal COMBINED`, §4.6), with each suite's record.
    Combined,
    /// A seal record's `expected_tests` (single, or every suite's of a combined record).
    ExpectedTests,
    /// The sealed directory (`--sealed-dir`), read now.
    SealedDir,
    /// The report's hardening history.
    History,
    /// The report's own other fields.
    Report,
}

impl Record {
    fn name(self) -> &'static str {
        match self {
            Record::Seal => "seal record",
            Record::Combined => "combined seal record",
            Record::ExpectedTests => "record's expected tests",
            Record::SealedDir => "sealed directory",
            Record::History => "hardening history",
            Record::Report => "report's other fields",
        }
    }
}

/// Where a claim is judged.
#[derive(Clone, Copy)]
pub(crate) enum Judged {
    /// By the walk, through this check.
    Walk(fn(&mut Checker<'_>)),
    /// Inside this requirement, whose verdict is the outcome.
    Requirement(&'static str),
}

/// One row: a claim, the level that needs it, the records that can confirm or contradict it,
/// and the rule a contradiction breaks.
pub(crate) struct Claim {
    /// The report field (or what the report implies), as the docs show it.
    pub(crate) claim: &'static str,
    /// The records it is held against.
    pub(crate) records: &'static [Record],
    /// The rule a disagreement breaks (its level is the row's).
    pub(crate) rule: &'static Rule,
    /// Where it is judged.
    pub(crate) judged: Judged,
}

/// Every claim, in the order the walk holds them.
pub(crate) const CLAIMS: &[Claim] = &[
    Claim {
        claim: "`report.sealed_hash` (the seal the report was made under)",
        records: &[Record::Seal, Record::Combined, Record::SealedDir],
        rule: &rules::SEAL_RECORD,
        judged: Judged::Requirement("L2.hash-recomputed"),
    },
    Claim {
        claim: "`report.sealed_hash` (the directory is unchanged)",
        records: &[Record::Seal, Record::Combined, Record::SealedDir],
        rule: &rules::HASH_RECOMPUTED,
        judged: Judged::Requirement("L2.hash-recomputed"),
    },
    Claim {
        claim: "`report.seal_broken` absent or false",
        records: &[Record::Report],
        rule: &rules::SEAL_BROKEN,
        judged: Judged::Requirement("L2.hash-recomputed"),
    },
    Claim {
        claim: "`report.sealed_at` (sealed before implementation and every validation)",
        records: &[
            Record::Seal,
            Record::Combined,
            Record::History,
            Record::Report,
        ],
        rule: &rules::SEAL_ORDER,
        judged: Judged::Requirement("L2.sealed-first"),
    },
    Claim {
        claim: "the hash covers the sealed tests (the record's `excludes`)",
        records: &[Record::Seal, Record::Combined, Record::SealedDir],
        rule: &rules::SEAL_EXCLUDES,
        judged: Judged::Walk(|c: &mut Checker<'_>| c.claim_excludes()),
    },
    Claim {
        claim: "nothing lies under the excluded paths",
        records: &[Record::Seal, Record::Combined, Record::SealedDir],
        rule: &rules::SEAL_EXCLUDED_PRESENT,
        judged: Judged::Walk(|c: &mut Checker<'_>| c.claim_excluded_present()),
    },
    Claim {
        claim: "the sealed directory is regular files (what the hash covers is all there is)",
        records: &[Record::SealedDir],
        rule: &rules::SEAL_NOT_REGULAR,
        judged: Judged::Walk(|c: &mut Checker<'_>| c.claim_regular_files()),
    },
    Claim {
        claim: "`sealed_tests.total`",
        records: &[Record::ExpectedTests],
        rule: &rules::SEAL_EXPECTED_TESTS,
        judged: Judged::Walk(|c: &mut Checker<'_>| c.claim_expected_total()),
    },
    Claim {
        claim: "`failures[].test_name`",
        records: &[Record::ExpectedTests],
        rule: &rules::SEAL_EXPECTED_TESTS,
        judged: Judged::Walk(|c: &mut Checker<'_>| c.claim_expected_names()),
    },
    Claim {
        claim: "`report.spec_ambiguity`",
        records: &[Record::Combined],
        rule: &rules::SEAL_AMBIGUITY,
        judged: Judged::Walk(|c: &mut Checker<'_>| c.claim_ambiguity()),
    },
    Claim {
        claim: "`report.seal_author_families` (and `implementer_family` not among the records')",
        records: &[Record::Seal, Record::Combined],
        rule: &rules::SEAL_FAMILIES,
        judged: Judged::Walk(|c: &mut Checker<'_>| c.claim_families()),
    },
    // issue 33, arith: the counts, scores and times of one report against each other.
    Claim {
        claim: "the score (`report.shadow_score` / `gap_score`), at the precision it is written with",
        records: &[Record::Report],
        rule: &rules::SCORE_FORMULA,
        judged: Judged::Requirement("L1.formula"),
    },
    Claim {
        claim: "`failures[]` (each failed test once)",
        records: &[Record::Report],
        rule: &rules::COUNTS_DUPLICATE,
        judged: Judged::Requirement("L1.fields"),
    },
    Claim {
        claim: "`failures[].category` (within the category's sealed tests)",
        records: &[Record::Report],
        rule: &rules::COVERAGE_FAILURES,
        judged: Judged::Requirement("L1.fields"),
    },
    Claim {
        claim: "`coverage_comparison` sealed and open counts",
        records: &[Record::Report],
        rule: &rules::COVERAGE_SUM,
        judged: Judged::Requirement("L1.fields"),
    },
    Claim {
        claim: "`report.implementation_started_at` (before the first validation)",
        records: &[Record::History, Record::Report],
        rule: &rules::SEAL_ORDER,
        judged: Judged::Walk(|c: &mut Checker<'_>| c.claim_implementation_first()),
    },
    Claim {
        claim: "`hardening.history[]` scores (recomputed from each cycle's counts)",
        records: &[Record::History, Record::Report],
        rule: &rules::HARDENING_HISTORY,
        judged: Judged::Requirement("L3.recomputed"),
    },
    Claim {
        claim: "`hardening.history[]` counts, second score keys and times (not after the report)",
        records: &[Record::History, Record::Report],
        rule: &rules::HARDENING_HISTORY,
        judged: Judged::Walk(|c: &mut Checker<'_>| c.claim_history_cycles()),
    },
    Claim {
        claim: "`hardening.hardening_velocity`, at the precision it is written with",
        records: &[Record::Report],
        rule: &rules::HARDENING_VELOCITY,
        judged: Judged::Requirement("L3.velocity"),
    },
    Claim {
        claim: "`hardening.initial_*_score` (a score the first cycle's suite can give)",
        records: &[Record::History, Record::Report],
        rule: &rules::HARDENING_INITIAL,
        judged: Judged::Walk(|c: &mut Checker<'_>| c.claim_initial_possible()),
    },
    // issue 33, prov:
    Claim {
        claim: "`report.advisory_reason` (only with `advisory: true`)",
        records: &[Record::Report],
        rule: &rules::ADVISORY_REASON,
        judged: Judged::Walk(|c: &mut Checker<'_>| c.claim_advisory_reason()),
    },
    Claim {
        claim: "`report.advisory` absent or false (no §5.4 condition: zero sealed tests under v2; a gapscore-produced report's problems, problem-tagged failures, advisory reasons, planted files, flaky passes)",
        records: &[Record::Report],
        rule: &rules::ADVISORY_CONDITIONS,
        judged: Judged::Walk(|c: &mut Checker<'_>| c.claim_not_advisory()),
    },
    Claim {
        claim: "`report.workspace_isolation: legacy` (validated once, not hardening; v2)",
        records: &[Record::History, Record::Report],
        rule: &rules::WORKSPACE_HARDENING,
        judged: Judged::Walk(|c: &mut Checker<'_>| c.claim_legacy_not_hardening()),
    },
    Claim {
        claim: "the disclosure levels handed out (`assertions` at the final cycle only; v2)",
        records: &[Record::History, Record::Report],
        rule: &rules::DISCLOSURE_ASSERTIONS,
        judged: Judged::Walk(|c: &mut Checker<'_>| c.claim_assertions_at_final_cycle()),
    },
    Claim {
        claim: "`report.independence: strong` (families and models compared by the identity fold)",
        records: &[Record::Report],
        rule: &rules::INDEPENDENCE,
        judged: Judged::Requirement("L4.independence"),
    },
    Claim {
        claim: "no escalation into a seal author's family (each cycle's implementer)",
        records: &[Record::History, Record::Report],
        rule: &rules::ESCALATION_FAMILY,
        judged: Judged::Requirement("L4.escalation"),
    },
    // issue 33, leak:
    Claim {
        claim: "no sealed source in what the report shares (every string and key, decoded and joined; a literal-only sealed line that is the failure's `expected`/`actual` excepted)",
        records: &[Record::SealedDir, Record::Report],
        rule: &rules::FEEDBACK_LEAK,
        judged: Judged::Requirement("L3.no-source"),
    },
];

impl Checker<'_> {
    /// Holds every claim of the table against the records given (level-4 claims when level 4
    /// is judged); the rows a requirement judges are left to it. Each level with claims the
    /// walk holds gets one requirement, `L<n>.claims`, failed with the first contradiction, so
    /// the requirements say what the level's verdict says.
    pub(crate) fn walk_claims(&mut self) {
        // A v1 report cannot hold level 4 at all (`level4.version`): its level-4 claims are
        // not there to hold.
        let top = if self.judge4 && self.major >= 2 { 4 } else { 3 };
        for level in 1..=top {
            let walked: Vec<&Claim> = CLAIMS
                .iter()
                .filter(|c| c.rule.level == level && matches!(c.judged, Judged::Walk(_)))
                .collect();
            if walked.is_empty() {
                continue;
            }
            let (listed, errors) = (self.findings.len(), self.errors_at(level));
            for claim in &walked {
                if let Judged::Walk(check) = claim.judged {
                    check(self);
                }
            }
            let found = self.errors_at(level) - errors;
            let (verdict, detail) = if found == 0 {
                let (held, unheld): (Vec<&&Claim>, Vec<&&Claim>) = walked
                    .iter()
                    .partition(|c| c.records.iter().any(|r| self.has_record(*r)));
                let mut records: Vec<&str> = held
                    .iter()
                    .flat_map(|c| c.records.iter().filter(|r| self.has_record(**r)))
                    .map(|r| r.name())
                    .collect();
                records.sort_unstable();
                records.dedup();
                let held_text = format!(
                    "{} claim{} held against the {}, none contradicted",
                    held.len(),
                    if held.len() == 1 { "" } else { "s" },
                    if records.is_empty() {
                        "records given".to_owned()
                    } else {
                        records.join(", ")
                    }
                );
                if unheld.is_empty() {
                    (RequirementVerdict::Verified, held_text)
                } else {
                    let names: Vec<&str> = unheld.iter().map(|c| c.claim).collect();
                    (
                        RequirementVerdict::Attested,
                        format!(
                            "{held_text}; {} taken on trust, no record that could contradict {} was given: {}",
                            unheld.len(),
                            if unheld.len() == 1 { "it" } else { "them" },
                            names.join("; ")
                        ),
                    )
                }
            } else {
                let first = self.findings[listed..]
                    .iter()
                    .find(|f| f.level == level && f.severity == Severity::Error)
                    .map(|f| format!("{}: {}", f.rule, f.message))
                    .unwrap_or_default();
                (
                    RequirementVerdict::Failed,
                    format!(
                        "{found} contradiction{} of the report's claims; the first: {first}",
                        if found == 1 { "" } else { "s" }
                    ),
                )
            };
            self.require(
                &format!("L{level}.claims"),
                level,
                "§6",
                "every claim is held against every record that can confirm or contradict it",
                verdict,
                detail,
            );
        }
    }
}

impl Checker<'_> {
    /// Whether a record of this kind was given (or, for the report's own, is there).
    fn has_record(&self, record: Record) -> bool {
        let e = self.evidence;
        match record {
            Record::Seal => e.seal.is_some(),
            Record::Combined => e.combined.is_some(),
            Record::ExpectedTests => {
                e.seal.as_ref().is_some_and(|s| s.expected_tests.is_some())
                    || e.combined
                        .as_ref()
                        .is_some_and(|c| c.expected_tests.is_some())
            }
            Record::SealedDir => e.sealed_dir.is_some(),
            Record::History => self
                .hardening()
                .and_then(|h| h.get("history"))
                .and_then(serde_json::Value::as_array)
                .is_some_and(|h| !h.is_empty()),
            Record::Report => true,
        }
    }
}

/// The claims table as docs/conformance.md shows it (between its `<!-- claims -->` markers):
/// one Markdown row per claim.
pub fn table_markdown() -> String {
    let mut out = String::from(
        "| Claim | Level | Held against | Rule on disagreement | Judged |\n|---|---|---|---|---|\n",
    );
    for c in CLAIMS {
        let records: Vec<&str> = c.records.iter().map(|r| r.name()).collect();
        let judged = match c.judged {
            Judged::Walk(_) => "the walk".to_owned(),
            Judged::Requirement(id) => format!("`{id}`"),
        };
        out.push_str(&format!(
            "| {} | {} | {} | `{}` | {judged} |\n",
            c.claim,
            c.rule.level,
            records.join(", "),
            c.rule.id
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Test code.

    use super::*;

    /// docs/conformance.md shows the table as the code has it
    /// (`GAPSCORE_UPDATE_FIXTURES=1` rewrites it).
    #[test]
    fn the_docs_show_the_claims_table() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/conformance.md");
        let doc = std::fs::read_to_string(&path).unwrap();
        let block = doc
            .split("<!-- claims -->\n")
            .nth(1)
            .and_then(|rest| rest.split("<!-- /claims -->").next())
            .unwrap_or_default();
        let want = table_markdown();
        if std::env::var_os("GAPSCORE_UPDATE_FIXTURES").is_some() && block != want {
            let updated = doc.replacen(
                &format!("<!-- claims -->\n{block}<!-- /claims -->"),
                &format!("<!-- claims -->\n{want}<!-- /claims -->"),
                1,
            );
            std::fs::write(path, updated).unwrap();
            return;
        }
        assert_eq!(
            block, want,
            "docs/conformance.md's claims table is out of date; write between the markers:\n{want}"
        );
    }

    /// A row judged inside a requirement names one the checker makes.
    #[test]
    fn requirement_rows_name_real_requirements() {
        let report = br#"{"shadow_score_spec_version": "1.0.0",
            "report": {"id": "r", "timestamp": "2026-03-01T12:00:00Z", "specification": "PRD.md",
                       "shadow_score": 0.0, "level": "none"},
            "sealed_tests": {"total": 1, "passed": 1, "failed": 0}, "failures": []}"#;
        // Judged at level 4, so the level-4 requirements (independence, escalation) are made too.
        let r = crate::check_bytes("r.json", report, &crate::Evidence::default(), 4);
        for c in CLAIMS {
            if let Judged::Requirement(id) = c.judged {
                assert!(r.requirements.iter().any(|q| q.id == id), "{id}");
            }
        }
    }
}
