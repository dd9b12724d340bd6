//! The hardening loop's record (spec §4.4, Level 3): a [`History`] of validation cycles kept
//! between runs, the report's `hardening` object built from it ([`hardening_from`]), and the
//! §3.5 overlap ratio between sealed and open test names ([`overlap`]).

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::feedback::Reveal;
use crate::fold::same_name;
use crate::level::{Level, Score};

/// One validation of the sealed suite: cycle 0 is the validation before the first fix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Cycle {
    /// 0 for the validation before the first hardening cycle, then 1, 2, ...
    pub cycle: u64,
    /// When it was recorded (RFC 3339, UTC).
    pub timestamp: String,
    /// Sealed tests counted.
    pub sealed_total: u64,
    /// Sealed failures (run-level problems included).
    pub sealed_failed: u64,
    /// The score, rounded to one decimal as reports show it.
    #[schemars(range(min = 0.0, max = 100.0))]
    pub score: f64,
    /// Its level.
    pub level: Level,
    /// The reveal level of the feedback handed to the implementer after this validation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reveal: Option<Reveal>,
    /// The sealed hash the validation was made under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed_hash: Option<String>,
    /// The model family of the implementer whose code this validation scored (§4.4.2: an
    /// escalation must never move into a seal author's family).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementer_family: Option<String>,
}

/// The cycles of one hardening loop, as `gapscore harden record` keeps them in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct History {
    /// The history format's version (1).
    pub gapscore_history: u32,
    /// Every validation, in order. Cycle 0 is the validation before the first fix: its score
    /// is the report's `initial_shadow_score`.
    pub cycles: Vec<Cycle>,
    /// The model families of the seal authors (§4.6: one per sealed suite), as far as known;
    /// no cycle's implementer may belong to one of them (§4.4.2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seal_author_families: Vec<String>,
}

impl Default for History {
    fn default() -> Self {
        History {
            gapscore_history: History::VERSION,
            cycles: Vec::new(),
            seal_author_families: Vec::new(),
        }
    }
}

/// Why a history cannot take another cycle.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// The sealed tests changed between cycles: the scores are not comparable.
    #[error(
        "cycle {cycle} was validated under sealed hash {before}, this one under {now}: the sealed tests changed, so the scores cannot be compared"
    )]
    SealChanged {
        /// The earlier cycle.
        cycle: u64,
        /// Its hash.
        before: String,
        /// This validation's hash.
        now: String,
    },
    /// The implementer of this cycle is of a seal author's family (§4.4.2).
    #[error(
        "the implementer family `{family}` is a seal author's family: §4.4.2 forbids hardening (or escalating) with a model of the family that wrote the sealed tests, since it reproduces teach-to-test through model correlation"
    )]
    SealAuthorFamily {
        /// The family, as given.
        family: String,
    },
}

impl History {
    /// The current history format version.
    pub const VERSION: u32 = 1;

    /// Adds seal author families (kept once each, as first given).
    pub fn add_seal_author_families<S: AsRef<str>>(&mut self, families: &[S]) {
        for f in families {
            let f = f.as_ref().trim();
            if !f.is_empty()
                && !self
                    .seal_author_families
                    .iter()
                    .any(|known| same_name(known, f))
            {
                self.seal_author_families.push(f.to_owned());
            }
        }
    }

    /// Appends a validation as the next cycle and returns it. Refused when the sealed hash
    /// changed, or when `implementer_family` is a known seal author's family (§4.4.2).
    pub fn record(
        &mut self,
        score: &Score,
        timestamp: impl Into<String>,
        reveal: Option<Reveal>,
        sealed_hash: Option<String>,
        implementer_family: Option<&str>,
    ) -> Result<&Cycle, HistoryError> {
        if let Some(f) = implementer_family
            && self
                .seal_author_families
                .iter()
                .any(|author| same_name(author, f))
        {
            return Err(HistoryError::SealAuthorFamily {
                family: f.trim().to_owned(),
            });
        }
        if let (Some(now), Some(prev)) = (
            &sealed_hash,
            self.cycles.iter().rev().find(|c| c.sealed_hash.is_some()),
        ) && prev.sealed_hash.as_ref() != Some(now)
        {
            return Err(HistoryError::SealChanged {
                cycle: prev.cycle,
                before: prev.sealed_hash.clone().unwrap_or_default(),
                now: now.clone(),
            });
        }
        let cycle = self.cycles.last().map_or(0, |c| c.cycle + 1);
        self.cycles.push(Cycle {
            cycle,
            timestamp: timestamp.into(),
            sealed_total: score.total,
            sealed_failed: score.failed,
            score: score.rounded(),
            level: score.level(),
            reveal,
            sealed_hash,
            implementer_family: implementer_family
                .map(|f| f.trim().to_owned())
                .filter(|f| !f.is_empty()),
        });
        Ok(&self.cycles[self.cycles.len() - 1])
    }
}

/// The report's `hardening` figures, dialect-free.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HardeningFigures {
    /// Cycles run (the last recorded cycle's number).
    pub cycles_completed: u64,
    /// Cycles allowed.
    pub max_cycles: u64,
    /// The score before the first cycle (cycle 0).
    pub initial: f64,
    /// The score of this report.
    pub final_score: f64,
    /// (initial − final) / cycles; `None` before any cycle ran.
    pub velocity: Option<f64>,
    /// The highest reveal level handed out.
    pub max_reveal: Option<Reveal>,
    /// Every recorded cycle.
    pub history: Vec<Cycle>,
    /// Set when the score is still above 0 after the allowed cycles (§4.4 step 6).
    pub escalation: Option<String>,
    /// Set when this report's score differs from the last recorded cycle's.
    pub mismatch: Option<String>,
    /// Set when the `assertions` disclosure level was handed out for a cycle that was not the
    /// final one (§4.4.1: it "MAY be used at the final cycle only").
    pub early_assertions: Option<String>,
}

/// §4.4.1: the `assertions` level "MAY be used at the final cycle only". Feedback handed out
/// after validation `k` is what the implementer works from in cycle `k + 1`; that cycle is the
/// final one only when the budget allows no further cycle and none was recorded after it.
fn early_assertions(history: &History, max_cycles: u64) -> Option<String> {
    let last = history.cycles.last()?.cycle;
    let early: Vec<u64> = history
        .cycles
        .iter()
        .filter(|c| c.reveal == Some(Reveal::Assertions))
        .map(|c| c.cycle + 1)
        .filter(|&used_in| used_in < max_cycles || used_in < last)
        .collect();
    let first = *early.first()?;
    Some(format!(
        "the `assertions` disclosure level (the text of the failing assertion) was revealed before the final cycle: handed out for cycle{} {} of {max_cycles}, but §4.4.1 allows it at the final cycle only; an implementer that sees assertions with cycles left can pattern-match against them",
        if early.len() == 1 { "" } else { "s" },
        if early.len() == 1 {
            first.to_string()
        } else {
            early
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        }
    ))
}

/// Builds the `hardening` figures for a report scoring `current`; `None` for an empty history.
pub fn hardening_from(
    history: &History,
    current: &Score,
    max_cycles: u64,
) -> Option<HardeningFigures> {
    let first = history.cycles.first()?;
    let last = history.cycles.last()?;
    let cycles = last.cycle;
    let final_score = current.rounded();
    let velocity = (cycles > 0).then(|| {
        // One decimal, like the scores it is computed from.
        (((first.score - final_score) / cycles as f64) * 10.0).round() / 10.0
    });
    let escalation = (cycles >= max_cycles && current.failed > 0).then(|| {
        format!(
            "the score is still {final_score:.1} after {cycles} of {max_cycles} hardening cycles: escalate to human review (§4.4)"
        )
    });
    let mismatch = (last.sealed_failed != current.failed || last.sealed_total != current.total)
        .then(|| {
            format!(
                "this report counts {}/{} sealed failures but the last recorded cycle ({}) counted {}/{}: record this validation with `gapscore harden record`",
                current.failed, current.total, last.cycle, last.sealed_failed, last.sealed_total
            )
        });
    Some(HardeningFigures {
        cycles_completed: cycles,
        max_cycles,
        initial: first.score,
        final_score,
        velocity,
        max_reveal: history.cycles.iter().filter_map(|c| c.reveal).max(),
        history: history.cycles.clone(),
        escalation,
        mismatch,
        early_assertions: early_assertions(history, max_cycles),
    })
}

/// The overlap rule: names split into lowercase word tokens (at non-alphanumerics and camelCase
/// boundaries), minus filler words; two names match when the Jaccard similarity of their token
/// sets is at least the threshold.
pub const OVERLAP_RULE: &str = "names split into lowercase word tokens at non-alphanumerics and camelCase boundaries, filler words (test, it, should, the, a, an, to, of, and, is, when, with, for, in, on, that, does, correctly) removed; a sealed test matches the open test with the highest Jaccard similarity of token sets when it reaches the threshold";

/// The default similarity threshold.
pub const DEFAULT_OVERLAP_THRESHOLD: f64 = 0.5;

const FILLER: [&str; 18] = [
    "test",
    "it",
    "should",
    "the",
    "a",
    "an",
    "to",
    "of",
    "and",
    "is",
    "when",
    "with",
    "for",
    "in",
    "on",
    "that",
    "does",
    "correctly",
];

/// The tokens of a test name under [`OVERLAP_RULE`].
pub fn name_tokens(name: &str) -> BTreeSet<String> {
    let mut tokens = BTreeSet::new();
    let mut word = String::new();
    let mut prev_lower = false;
    let flush = |w: &mut String, tokens: &mut BTreeSet<String>| {
        if !w.is_empty() {
            let t = w.to_lowercase();
            if !FILLER.contains(&t.as_str()) {
                tokens.insert(t);
            }
            w.clear();
        }
    };
    for c in name.chars() {
        if !c.is_alphanumeric() {
            flush(&mut word, &mut tokens);
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            flush(&mut word, &mut tokens);
        }
        prev_lower = c.is_lowercase() || c.is_numeric();
        word.push(c);
    }
    flush(&mut word, &mut tokens);
    tokens
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    let inter = a.intersection(b).count() as f64;
    let union = a.union(b).count() as f64;
    inter / union
}

/// A sealed test and the open test that anticipated it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OverlapPair {
    /// The sealed test's name.
    pub sealed: String,
    /// The open test's name.
    pub open: String,
    /// Their similarity, 0–1, two decimals.
    pub similarity: f64,
}

/// The §3.5 overlap ratio, approximated from test names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Overlap {
    /// Always true: names are only a proxy for scenarios.
    pub approximate: bool,
    /// matched / sealed tests.
    pub ratio: f64,
    /// Sealed tests with a matching open test.
    pub matched: u64,
    /// Sealed tests considered.
    pub sealed_total: u64,
    /// The similarity threshold used.
    pub threshold: f64,
    /// How names are compared.
    pub rule: String,
    /// Every match.
    pub pairs: Vec<OverlapPair>,
}

/// Matches sealed test names to open test names.
pub fn overlap(sealed: &[String], open: &[String], threshold: f64) -> Overlap {
    let open_tokens: Vec<BTreeSet<String>> = open.iter().map(|n| name_tokens(n)).collect();
    let mut pairs = Vec::new();
    for s in sealed {
        let st = name_tokens(s);
        let best = open_tokens
            .iter()
            .enumerate()
            .map(|(i, ot)| (i, jaccard(&st, ot)))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((i, sim)) = best
            && sim >= threshold
            && sim > 0.0
        {
            pairs.push(OverlapPair {
                sealed: s.clone(),
                open: open[i].clone(),
                similarity: (sim * 100.0).round() / 100.0,
            });
        }
    }
    let matched = pairs.len() as u64;
    let total = sealed.len() as u64;
    Overlap {
        approximate: true,
        ratio: if total == 0 {
            0.0
        } else {
            ((matched as f64 / total as f64) * 1000.0).round() / 1000.0
        },
        matched,
        sealed_total: total,
        threshold,
        rule: OVERLAP_RULE.to_owned(),
        pairs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_cycles_give_the_velocity() {
        let mut h = History::default();
        for (i, failed) in [4u64, 2, 1, 0].iter().enumerate() {
            let c = h
                .record(
                    &Score::new(*failed, 20),
                    format!("2026-11-22T0{i}:00:00Z"),
                    Some(Reveal::Message),
                    Some("sha256:ab".into()),
                    Some("gpt"),
                )
                .unwrap();
            assert_eq!(c.cycle, i as u64);
        }
        let f = hardening_from(&h, &Score::new(0, 20), 3).unwrap();
        assert_eq!(f.cycles_completed, 3);
        assert_eq!((f.initial, f.final_score), (20.0, 0.0));
        assert_eq!(f.velocity, Some(6.7));
        assert_eq!(f.escalation, None);
        assert_eq!(f.mismatch, None);
        assert_eq!(f.max_reveal, Some(Reveal::Message));
        // Still failing after the allowed cycles: escalate.
        let f = hardening_from(&h, &Score::new(1, 20), 3).unwrap();
        assert!(f.escalation.unwrap().contains("escalate to human review"));
        assert!(f.mismatch.is_some());
        // A changed seal breaks the chain.
        let e = h
            .record(
                &Score::new(0, 20),
                "t",
                None,
                Some("sha256:cd".into()),
                None,
            )
            .unwrap_err();
        assert!(matches!(e, HistoryError::SealChanged { cycle: 3, .. }));
        // An implementer of a seal author's family is refused, whatever the spelling.
        h.add_seal_author_families(&["Claude", "claude "]);
        assert_eq!(h.seal_author_families, ["Claude"]);
        let e = h
            .record(&Score::new(0, 20), "t", None, None, Some(" CLAUDE"))
            .unwrap_err();
        assert!(matches!(e, HistoryError::SealAuthorFamily { .. }));
        // Disguised by a zero-width space or a Cyrillic letter, it is still that family.
        for disguised in ["cla\u{200b}ude", "\u{441}laude"] {
            let e = h
                .record(&Score::new(0, 20), "t", None, None, Some(disguised))
                .unwrap_err();
            assert!(
                matches!(e, HistoryError::SealAuthorFamily { .. }),
                "{disguised:?}"
            );
        }
        assert_eq!(h.cycles[0].implementer_family.as_deref(), Some("gpt"));
    }

    #[test]
    fn assertions_before_the_final_cycle_are_noted() {
        let history = |reveals: &[Option<Reveal>]| {
            let mut h = History::default();
            for (i, r) in reveals.iter().enumerate() {
                h.record(&Score::new(1, 4), format!("t{i}"), *r, None, None)
                    .unwrap();
            }
            h
        };
        let m = Some(Reveal::Assertion);
        let a = Some(Reveal::Assertions);
        // After validation 2 of a 3-cycle budget: for cycle 3, the final one.
        let f = hardening_from(&history(&[m, m, a]), &Score::new(1, 4), 3).unwrap();
        assert_eq!(f.early_assertions, None);
        // After validation 0: for cycle 1 of 3.
        let f = hardening_from(&history(&[a, m, m]), &Score::new(1, 4), 3).unwrap();
        let note = f.early_assertions.unwrap();
        assert!(note.contains("for cycle 1 of 3"), "{note}");
        assert!(note.contains("final cycle only"), "{note}");
        // The budget spent, but a later cycle was recorded after the one it was for.
        let f = hardening_from(&history(&[a, m, m]), &Score::new(1, 4), 1).unwrap();
        assert!(f.early_assertions.is_some());
        // Handed out after the last validation: no cycle used it.
        let f = hardening_from(&history(&[m, a]), &Score::new(1, 4), 1).unwrap();
        assert_eq!(f.early_assertions, None);
    }

    #[test]
    fn names_tokenise_and_match_by_similarity() {
        assert_eq!(
            name_tokens("test_rejectsExpiredToken[2]"),
            ["2", "expired", "rejects", "token"]
                .iter()
                .map(|s| (*s).to_owned())
                .collect()
        );
        let o = overlap(
            &[
                "rejects expired token".into(),
                "handles unicode names".into(),
            ],
            &["test_rejects_expired_token".into(), "adds numbers".into()],
            DEFAULT_OVERLAP_THRESHOLD,
        );
        assert_eq!(o.matched, 1);
        assert_eq!(o.ratio, 0.5);
        assert_eq!(o.pairs[0].open, "test_rejects_expired_token");
        assert_eq!(o.pairs[0].similarity, 1.0);
    }
}
