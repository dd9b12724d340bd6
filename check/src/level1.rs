//! Level 1 (spec §6.1): the score follows the §3.3 formula, the report has every §5.2 field
//! with consistent counts, and the level is on the §3.4 scale.

use gapscore_core::Level;
use serde_json::Value;

use crate::checker::{Checker, counts, ptr};
use crate::model::{RequirementVerdict, Severity};
use crate::numbers::{self, LevelRule, Rounding, ScoreMatch, match_score, parse_level, same, show};
use crate::rules;

impl Checker<'_> {
    pub(crate) fn level1(&mut self) {
        if let Some(c) = self.sealed
            && c.passed.checked_add(c.failed) != Some(c.total)
        {
            self.err(
                &rules::COUNTS_SUM,
                "/sealed_tests",
                format!(
                    "sealed passed {} + failed {} = {}, not total {}",
                    c.passed,
                    c.failed,
                    u128::from(c.passed) + u128::from(c.failed),
                    c.total
                ),
            );
        }
        if let Some(c) = counts(self.root.get("open_tests"))
            && c.passed.checked_add(c.failed) != Some(c.total)
        {
            self.err(
                &rules::COUNTS_SUM,
                "/open_tests",
                format!(
                    "open passed {} + failed {} = {}, not total {}",
                    c.passed,
                    c.failed,
                    u128::from(c.passed) + u128::from(c.failed),
                    c.total
                ),
            );
        }
        let listed = self
            .root
            .get("failures")
            .and_then(Value::as_array)
            .map(Vec::len);
        if let (Some(c), Some(n)) = (self.sealed, listed)
            && n as u64 != c.failed
        {
            self.err(
                &rules::COUNTS_FAILURES,
                "/failures",
                format!(
                    "{n} failure entr{} listed, but sealed_tests.failed is {}",
                    if n == 1 { "y" } else { "ies" },
                    c.failed
                ),
            );
        }
        if let Some(c) = self.sealed
            && c.total == 0
        {
            self.warn(
                &rules::ZERO_TESTS,
                "/sealed_tests/total",
                "zero sealed tests: a score over zero tests proves nothing".into(),
            );
        }

        // §3.3: the formula.
        let formula = match (self.score.clone(), self.sealed) {
            (Some((score, p)), Some(c)) => {
                let exact = Rounding::Unrounded.apply(c.failed, c.total);
                let written = self.written(&p, score);
                match written.map(|w| (w, match_score(w, c.failed, c.total))) {
                    Some((_, ScoreMatch::Roundings(rs))) => {
                        let names: Vec<&str> = rs
                            .iter()
                            .filter(|r| **r != Rounding::Unrounded || rs.len() == 1)
                            .map(|r| r.name())
                            .collect();
                        Ok(format!(
                            "{} = {}/{} x 100 ({})",
                            show(score),
                            c.failed,
                            c.total,
                            names.join(", ")
                        ))
                    }
                    Some((w, ScoreMatch::Rounded(d))) => Ok(format!(
                        "{w} is {}/{} x 100 = {exact:.4} rounded to {d} decimal{} (not a reference rounding)",
                        c.failed,
                        c.total,
                        if d == 1 { "" } else { "s" }
                    )),
                    _ => {
                        let variants: Vec<String> = [
                            Rounding::PythonHalfEven,
                            Rounding::GoHalfUp,
                            Rounding::Truncated,
                            Rounding::WholePercent,
                        ]
                        .iter()
                        .map(|r| format!("{} {}", r.name(), show(r.apply(c.failed, c.total))))
                        .collect();
                        let shown = written.map_or_else(|| show(score), |w| w.to_string());
                        let precision = written.map_or(String::new(), |w| {
                            format!(
                                ", nor a rounding of the exact value to the {} decimal{} it is written with",
                                w.decimals,
                                if w.decimals == 1 { "" } else { "s" }
                            )
                        });
                        let msg = format!(
                            "score {shown} is not {}/{} x 100 = {exact:.4} under any reference rounding ({}){precision}",
                            c.failed,
                            c.total,
                            variants.join(", ")
                        );
                        self.err(&rules::SCORE_FORMULA, &p, msg.clone());
                        Err(msg)
                    }
                }
                .inspect(|_| {
                    if c.failed > 0 && score == 0.0 {
                        self.warn(
                            &rules::SCORE_ZERO,
                            &p,
                            format!(
                                "{} of {} sealed tests failed, yet the score reads 0",
                                c.failed, c.total
                            ),
                        );
                    }
                })
            }
            (None, _) => Err("no score to check".to_owned()),
            (_, None) => {
                Err("no complete sealed_tests counts to check the score against".to_owned())
            }
        };
        // Hardening scores are on the same 0-100 scale.
        if let Some(h) = self.hardening() {
            for key in [
                "initial_shadow_score",
                "final_shadow_score",
                "initial_gap_score",
                "final_gap_score",
            ] {
                let p = ptr(&["hardening", key]);
                // The upstream schema of the dialect already bounds its own keys.
                let said = self
                    .findings
                    .iter()
                    .any(|f| f.rule == rules::SCHEMA_UPSTREAM.id && f.pointer == p);
                if let Some(x) = h.get(key).and_then(Value::as_f64)
                    && !(0.0..=100.0).contains(&x)
                    && !said
                {
                    self.err(
                        &rules::HARDENING_RANGE,
                        &p,
                        format!("{key} is {}, outside 0-100", show(x)),
                    );
                }
            }
            for (s, g) in [
                ("initial_shadow_score", "initial_gap_score"),
                ("final_shadow_score", "final_gap_score"),
            ] {
                if let (Some(a), Some(b)) = (
                    h.get(s).and_then(Value::as_f64),
                    h.get(g).and_then(Value::as_f64),
                ) && !same(a, b)
                {
                    self.err(
                        &rules::DIALECTS,
                        &ptr(&["hardening", g]),
                        format!("{g} is {} but {s} is {}", show(b), show(a)),
                    );
                }
            }
        }
        let formula = match (formula, self.errors_of(&rules::HARDENING_RANGE)) {
            (Ok(_), Some(f)) => Err(f.message.clone()),
            (r, _) => r,
        };
        let (verdict, detail) = match formula {
            Ok(d) => (RequirementVerdict::Verified, d),
            Err(d) => (RequirementVerdict::Failed, d),
        };
        self.require(
            "L1.formula",
            1,
            "§3.3",
            "computes the score with the §3.3 formula",
            verdict,
            detail,
        );

        // §5.2: required fields, schema and counts.
        let field_error = self
            .findings
            .iter()
            .find(|f| {
                f.level == 1
                    && f.severity == Severity::Error
                    && ![
                        rules::SCORE_FORMULA.id,
                        rules::LEVEL_SCALE.id,
                        rules::HARDENING_RANGE.id,
                    ]
                    .contains(&f.rule.as_str())
            })
            .map(|f| {
                if f.pointer.is_empty() {
                    f.message.clone()
                } else {
                    format!("{}: {}", f.pointer, f.message)
                }
            });
        let binding: Vec<String> = self
            .schemas
            .iter()
            .filter(|s| s.binding)
            .map(|s| s.schema.clone())
            .collect();
        match field_error {
            Some(d) => self.require(
                "L1.fields",
                1,
                "§5.2",
                "produces a Gap Report with every required field",
                RequirementVerdict::Failed,
                d,
            ),
            None => self.require(
                "L1.fields",
                1,
                "§5.2",
                "produces a Gap Report with every required field",
                RequirementVerdict::Verified,
                format!(
                    "required fields present, counts consistent, valid against {}",
                    binding.join(" and ")
                ),
            ),
        }

        // §3.4: the level.
        let level_v = self
            .meta_get("level")
            .map(|v| (v, "/report/level"))
            .or_else(|| self.root.get("level").map(|v| (v, "/level")));
        let scale = match (level_v, self.sealed) {
            (Some((Value::String(name), p)), Some(c)) => match parse_level(name) {
                Some(reported) => {
                    let exact = Level::from_counts(c.failed, c.total);
                    if reported == exact {
                        Ok(format!(
                            "`{name}` follows from {} of {} under the exact rule",
                            c.failed, c.total
                        ))
                    } else {
                        let mut why: Vec<&str> = LevelRule::ALL
                            .iter()
                            .filter(|r| {
                                **r != LevelRule::Exact && r.apply(c.failed, c.total) == reported
                            })
                            .map(|r| r.name())
                            .collect();
                        if let Some((s, _)) = self.score
                            && numbers::classify(s) == reported
                        {
                            why.push("level of the reported score");
                        }
                        let matched = if why.is_empty() {
                            "no reference rule gives it".to_owned()
                        } else {
                            format!("it matches the {}", why.join(", the "))
                        };
                        let msg = format!(
                            "level `{name}` does not follow from {} of {} failed: the exact rule gives `{exact}`; {matched}",
                            c.failed, c.total
                        );
                        self.err(&rules::LEVEL_SCALE, p, msg.clone());
                        Err(msg)
                    }
                }
                None => Err(format!("level `{name}` is not on the §3.4 scale")),
            },
            (Some(_), Some(_)) => Err("the level is not a string".to_owned()),
            (None, _) => Err("no level".to_owned()),
            (_, None) => {
                Err("no complete sealed_tests counts to check the level against".to_owned())
            }
        };
        let (verdict, detail) = match scale {
            Ok(d) => (RequirementVerdict::Verified, d),
            Err(d) => (RequirementVerdict::Failed, d),
        };
        self.require(
            "L1.scale",
            1,
            "§3.4",
            "uses the §3.4 interpretation scale",
            verdict,
            detail,
        );
    }
}
