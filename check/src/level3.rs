//! Level 3 (spec §6.3): the hardening loop with its initial and final scores, velocity and
//! per-cycle history, and failure texts free of sealed test source.

use gapscore_core::{Level, Score};
use gapscore_seal::digest::canonical_sha256;
use serde_json::{Map, Value};

use crate::checker::{Checker, GAP, SHADOW, count, ptr, verdict_of};
use crate::model::{RequirementVerdict, Severity};
use crate::numbers::{ScoreMatch, match_score, parse_level, same, show, velocity_fits};
use crate::rules;
use crate::time::parse_rfc3339;

/// The level-3 requirements that fail together when there is no `hardening` object.
const L3_REQUIREMENTS: [(&str, &str, &str); 4] = [
    (
        "L3.hardening-loop",
        "§4.4",
        "the hardening loop is implemented",
    ),
    (
        "L3.initial-final",
        "§4.4",
        "initial and final scores are recorded",
    ),
    ("L3.velocity", "§3.5", "hardening velocity is tracked"),
    (
        "L3.recomputed",
        "§6.3",
        "the score is recomputed after each hardening cycle",
    ),
];

impl Checker<'_> {
    pub(crate) fn level3(&mut self) {
        let Some(h) = self.hardening() else {
            let msg = "no `hardening` object: the hardening loop is not reported".to_owned();
            self.err(&rules::HARDENING_PRESENT, "", msg.clone());
            for (id, spec, title) in L3_REQUIREMENTS {
                self.require(id, 3, spec, title, RequirementVerdict::Failed, msg.clone());
            }
            let (v, d) = self.leak_scan();
            self.require(
                "L3.no-source",
                3,
                "§4.4",
                "failure messages shared with the implementer hold no test source",
                v,
                d,
            );
            return;
        };
        let cycles = count(h.get("cycles_completed"));
        let max = count(h.get("max_cycles"));
        let loop_ok = match (cycles, max) {
            (Some(c), Some(m)) if c > m => {
                let msg = format!("cycles_completed {c} is more than max_cycles {m}");
                self.err(
                    &rules::HARDENING_CYCLES,
                    "/hardening/cycles_completed",
                    msg.clone(),
                );
                Err(msg)
            }
            (Some(c), Some(m)) => Ok(format!("{c} of at most {m} cycles")),
            // v2 §5.2 requires cycles_completed at level 3, not max_cycles.
            (Some(c), None) if self.major >= 2 => Ok(format!(
                "{c} cycles (max_cycles not reported: spec v2 §5.2 does not require it)"
            )),
            _ => {
                let required: &[&str] = if self.major >= 2 {
                    &["cycles_completed"]
                } else {
                    &["cycles_completed", "max_cycles"]
                };
                let missing: Vec<&str> = required
                    .iter()
                    .copied()
                    .filter(|k| count(h.get(*k)).is_none())
                    .collect();
                let msg = format!("the hardening object lacks {}", missing.join(" and "));
                self.err(&rules::HARDENING_PRESENT, "/hardening", msg.clone());
                Err(msg)
            }
        };
        let (v, d) = verdict_of(loop_ok);
        self.require(
            "L3.hardening-loop",
            3,
            "§4.4",
            "the hardening loop is implemented",
            v,
            d,
        );

        // Initial and final scores.
        let pick = |a: &str, b: &str| -> Option<(f64, String)> {
            h.get(a)
                .and_then(Value::as_f64)
                .map(|x| (x, ptr(&["hardening", a])))
                .or_else(|| {
                    h.get(b)
                        .and_then(Value::as_f64)
                        .map(|x| (x, ptr(&["hardening", b])))
                })
        };
        let initial = pick("initial_shadow_score", "initial_gap_score");
        // v2 §5.2 requires the initial score at level 3, not the final one: the final score is
        // the report's own (v1 has no required hardening fields; its level 3 keeps both).
        let fin = pick("final_shadow_score", "final_gap_score")
            .or_else(|| (self.major >= 2).then(|| self.score.clone()).flatten());
        let scores_ok = match (&initial, &fin) {
            (Some((i, _)), Some((f, fp))) => match &self.score {
                Some((s, _)) if !same(*s, *f) => {
                    let msg = format!(
                        "the final hardening score {} is not the report's score {}",
                        show(*f),
                        show(*s)
                    );
                    self.err(&rules::HARDENING_SCORES, fp, msg.clone());
                    Err(msg)
                }
                _ if cycles == Some(0) && !same(*i, *f) => {
                    let msg = format!(
                        "no cycle ran (cycles_completed 0), so the initial score {} must be the final score {}",
                        show(*i),
                        show(*f)
                    );
                    self.err(&rules::HARDENING_SCORES, fp, msg.clone());
                    Err(msg)
                }
                _ => Ok(format!("initial {}, final {}", show(*i), show(*f))),
            },
            _ => {
                let missing: Vec<&str> = [("initial", &initial), ("final", &fin)]
                    .into_iter()
                    .filter(|(_, v)| v.is_none())
                    .map(|(k, _)| k)
                    .collect();
                let msg = format!(
                    "no {} score in the hardening object",
                    missing.join(" and no ")
                );
                self.err(&rules::HARDENING_SCORES, "/hardening", msg.clone());
                Err(msg)
            }
        };
        let (v, d) = verdict_of(scores_ok);
        self.require(
            "L3.initial-final",
            3,
            "§4.4",
            "initial and final scores are recorded",
            v,
            d,
        );

        // Velocity.
        // v1 names velocity only as `gap_reduction_per_cycle` (§3.5, a supplementary metric)
        // and neither its §5.2 nor its schema has a field for it: a v1 report's velocity is
        // judged when written under either name and derived from the scores it records
        // otherwise. v2 §5.2 requires `hardening_velocity` at level 3.
        let found = ["hardening_velocity", "gap_reduction_per_cycle"]
            .into_iter()
            .take(if self.major < 2 { 2 } else { 1 })
            .find_map(|k| h.get(k).and_then(Value::as_f64).map(|v| (k, v)));
        let velocity = found.map(|(_, v)| v);
        let velocity_ptr = ptr(&["hardening", found.map_or("hardening_velocity", |(k, _)| k)]);
        let vel = match (velocity, &initial, &fin, cycles) {
            (Some(v), Some((i, ip)), Some((f, fp)), Some(c)) => {
                // No cycle ran: velocity is undefined; Dark Factory's `/max(n, 1)` writes 0.
                let want = if c == 0 { 0.0 } else { (i - f) / c as f64 };
                let written = (
                    self.written(&velocity_ptr, v),
                    self.written(ip, *i),
                    self.written(fp, *f),
                );
                let fits = match written {
                    (Some(wv), Some(wi), Some(wf)) => velocity_fits(wv, wi, wf, c),
                    _ => same(v, want),
                };
                if fits {
                    Ok(format!(
                        "{} points per cycle = ({} - {}) / {}",
                        show(v),
                        show(*i),
                        show(*f),
                        c.max(1)
                    ))
                } else {
                    let shown = written.0.map_or_else(|| show(v), |w| w.to_string());
                    let msg = format!(
                        "hardening_velocity {shown} is not (initial {} - final {}) / {} cycles = {want:.4} rounded to the decimals it is written with",
                        show(*i),
                        show(*f),
                        c.max(1)
                    );
                    self.err(&rules::HARDENING_VELOCITY, &velocity_ptr, msg.clone());
                    Err(msg)
                }
            }
            (Some(v), _, _, _) => Ok(format!(
                "{} points per cycle (not checkable without initial, final and cycles)",
                show(v)
            )),
            (None, _, _, Some(0)) => Ok("no cycle ran yet: velocity is undefined".to_owned()),
            (None, Some((i, _)), Some((f, _)), Some(c)) if self.major < 2 => Ok(format!(
                "{} points per cycle = ({} - {}) / {}, derived from the recorded scores (v1 has no velocity field)",
                show((i - f) / c as f64),
                show(*i),
                show(*f),
                c
            )),
            (None, _, _, _) => {
                let msg = "no `hardening_velocity`: velocity is not tracked".to_owned();
                self.err(&rules::HARDENING_VELOCITY, "/hardening", msg.clone());
                Err(msg)
            }
        };
        let (v, d) = verdict_of(vel);
        self.require(
            "L3.velocity",
            3,
            "§3.5",
            "hardening velocity is tracked",
            v,
            d,
        );

        // Per-cycle recomputation.
        let (v, d) = self.history(h, cycles, initial.map(|x| x.0), fin.map(|x| x.0));
        self.require(
            "L3.recomputed",
            3,
            "§6.3",
            "the score is recomputed after each hardening cycle",
            v,
            d,
        );

        let (v, d) = self.leak_scan();
        self.require(
            "L3.no-source",
            3,
            "§4.4",
            "failure messages shared with the implementer hold no test source",
            v,
            d,
        );
    }

    fn history(
        &mut self,
        h: &Map<String, Value>,
        cycles: Option<u64>,
        initial: Option<f64>,
        fin: Option<f64>,
    ) -> (RequirementVerdict, String) {
        let list = match h.get("history") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) if !a.is_empty() => Some(a),
            Some(other) => {
                let what = match other {
                    Value::Array(_) => "an empty list",
                    Value::Object(_) => "an object, not a list",
                    _ => "not a list",
                };
                let msg = format!(
                    "`hardening.history` is present but {what}: a history holds cycle 0 and one entry per cycle; a malformed one is not an absent one"
                );
                self.err(&rules::HARDENING_HISTORY, "/hardening/history", msg.clone());
                return (RequirementVerdict::Failed, msg);
            }
        };
        let Some(list) = list else {
            return match (cycles, initial, fin) {
                (Some(c), Some(_), Some(_)) => (
                    RequirementVerdict::Attested,
                    format!(
                        "claimed by cycles_completed {c} with initial and final scores; no per-cycle history to check"
                    ),
                ),
                _ => (
                    RequirementVerdict::Failed,
                    "neither a per-cycle history nor cycles with initial and final scores".into(),
                ),
            };
        };
        let before = self.findings.len();
        let mut last_time: Option<(i128, String)> = None;
        let mut scores = Vec::new();
        let mut prev_total: Option<(usize, u64)> = None;
        let mut last_counts: Option<(u64, u64)> = None;
        for (i, c) in list.iter().enumerate() {
            let idx = i.to_string();
            let p = ptr(&["hardening", "history", &idx]);
            let Some(o) = c.as_object() else {
                self.err(
                    &rules::HARDENING_HISTORY,
                    &p,
                    "a history entry is not an object".into(),
                );
                continue;
            };
            match count(o.get("cycle")) {
                Some(n) if n == i as u64 => {}
                Some(n) => self.err(
                    &rules::HARDENING_HISTORY,
                    &format!("{p}/cycle"),
                    format!(
                        "entry {i} is numbered cycle {n}: cycles run 0, 1, 2, ... with none missing"
                    ),
                ),
                None => self.err(
                    &rules::HARDENING_HISTORY,
                    &p,
                    "entry without a cycle number".into(),
                ),
            }
            let score = [("score"), (SHADOW), (GAP)]
                .iter()
                .find_map(|k| o.get(*k).and_then(Value::as_f64).map(|x| (x, *k)));
            let (failed, total) = (count(o.get("sealed_failed")), count(o.get("sealed_total")));
            match (score, failed, total) {
                (Some((s, key)), Some(f), Some(t)) => {
                    let written = self.written(&format!("{p}/{key}"), s);
                    if written.is_none_or(|w| matches!(match_score(w, f, t), ScoreMatch::Mismatch))
                    {
                        self.err(
                            &rules::HARDENING_HISTORY,
                            &format!("{p}/{key}"),
                            format!("cycle {i}: score {} is not {f}/{t} x 100", show(s)),
                        );
                    }
                    if let Some(name) = o.get("level").and_then(Value::as_str)
                        && parse_level(name) != Some(Level::from_counts(f, t))
                    {
                        self.err(
                            &rules::HARDENING_HISTORY,
                            &format!("{p}/level"),
                            format!(
                                "cycle {i}: level `{name}` does not follow from {f} of {t} (exact rule: `{}`)",
                                Score::new(f, t).level()
                            ),
                        );
                    }
                    scores.push(s);
                }
                (Some((s, _)), _, _) => {
                    self.err(
                        &rules::HARDENING_HISTORY,
                        &p,
                        format!("cycle {i}: score {} without sealed_failed and sealed_total, so it cannot be recomputed", show(s)),
                    );
                    scores.push(s);
                }
                _ => self.err(
                    &rules::HARDENING_HISTORY,
                    &p,
                    format!("cycle {i} has no score"),
                ),
            }
            if let Some(ts) = o.get("timestamp").and_then(Value::as_str)
                && let Some(t) = parse_rfc3339(ts)
            {
                if let Some((prev, prev_s)) = &last_time
                    && t < *prev
                {
                    self.err(
                        &rules::HARDENING_HISTORY,
                        &format!("{p}/timestamp"),
                        format!("cycle {i} at {ts} is earlier than the cycle before it ({prev_s})"),
                    );
                }
                last_time = Some((t, ts.to_owned()));
            }
            // Under `--skipped exclude` a test skipped in one cycle is left out of its count,
            // so only a suite scored with every test counted keeps one size.
            if let (Some(t), Some((prev_i, prev_t))) = (total, prev_total)
                && t != prev_t
                && !self.skips_excluded()
            {
                self.err(
                    &rules::HARDENING_HISTORY,
                    &format!("{p}/sealed_total"),
                    format!("cycle {i} counts {t} sealed tests, cycle {prev_i} counted {prev_t} under the same seal: a sealed suite does not change size between cycles"),
                );
            }
            if let Some(t) = total {
                prev_total = Some((i, t));
            }
            last_counts = failed.zip(total);
            if o.get("sealed_hash").is_none() && self.hash.is_some() {
                self.err(
                    &rules::HARDENING_HISTORY,
                    &p,
                    format!("cycle {i} records no sealed_hash: it cannot be shown to be validated under the report's seal"),
                );
            }
            if let (Some(ch), Some(rh)) = (
                o.get("sealed_hash").and_then(Value::as_str),
                self.hash.clone(),
            ) && canonical_sha256(ch).ok() != canonical_sha256(&rh).ok()
            {
                self.err(
                    &rules::HARDENING_HISTORY,
                    &format!("{p}/sealed_hash"),
                    format!("cycle {i} was validated under sealed hash {ch}, the report under {rh}: the scores are not comparable"),
                );
            }
        }
        let n = list.len() as u64;
        let last_p = ptr(&["hardening", "history", &(list.len() - 1).to_string()]);
        if let (Some((f, t)), Some(rep)) = (last_counts, self.sealed)
            && (f, t) != (rep.failed, rep.total)
        {
            self.err(
                &rules::HARDENING_HISTORY,
                &last_p,
                format!(
                    "the last cycle counted {f} of {t} sealed tests failed, the report {} of {}: the last validation is the report's",
                    rep.failed, rep.total
                ),
            );
        }
        if let Some(c) = cycles
            && c + 1 != n
        {
            self.err(
                &rules::HARDENING_HISTORY,
                "/hardening/history",
                format!("{n} validations recorded, but cycles_completed {c} means {} (cycle 0 and one per cycle)", c + 1),
            );
        }
        if let (Some(i), Some(first)) = (initial, scores.first())
            && !same(i, *first)
        {
            self.err(
                &rules::HARDENING_HISTORY,
                "/hardening/history/0",
                format!(
                    "the first cycle's score {} is not the initial score {}",
                    show(*first),
                    show(i)
                ),
            );
        }
        if let (Some(f), Some(last)) = (fin, scores.last())
            && !same(f, *last)
        {
            self.err(
                &rules::HARDENING_HISTORY,
                &last_p,
                format!(
                    "the last cycle's score {} is not the final score {}",
                    show(*last),
                    show(f)
                ),
            );
        }
        match self.findings[before..]
            .iter()
            .find(|f| f.severity == Severity::Error)
        {
            Some(f) => (
                RequirementVerdict::Failed,
                format!("{}: {}", f.pointer, f.message),
            ),
            None => (
                RequirementVerdict::Verified,
                format!(
                    "{n} validation{} recorded, each score recomputed from its counts",
                    if n == 1 { "" } else { "s" }
                ),
            ),
        }
    }
}
