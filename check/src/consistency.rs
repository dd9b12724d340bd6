//! Consistency between the records one report carries: the failures list against itself and
//! against `coverage_comparison`, each hardening cycle against its own counts and the report's
//! time, the initial score against the suite it was measured on, and implementation against
//! the first validation. Each field is held against every other field that can confirm it;
//! one that disagrees is an error, whatever the field itself says.

use std::collections::{BTreeMap, HashMap};

use gapscore_core::fold::fold;
use serde_json::{Map, Value};

use crate::checker::{Checker, GAP, SHADOW, count, ptr};
use crate::numbers::{ScoreMatch, match_score, possible_score, same, show};
use crate::rules;
use crate::time::parse_rfc3339;

/// The keys a history entry may give its score under.
const HISTORY_SCORE_KEYS: [&str; 3] = ["score", SHADOW, GAP];

impl Checker<'_> {
    /// `failures[]`: every failed test listed once.
    pub(crate) fn claim_failures_once(&mut self) {
        let failures = self.root.get("failures").and_then(Value::as_array);
        // Ids the runner itself gave more than once, which gapscore counts each time and
        // discloses in its extension (`gapscore.duplicates`): a repeat of one is not a forgery.
        let disclosed: Vec<String> = self
            .root
            .get("gapscore")
            .and_then(|g| g.get("duplicates"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(fold)
            .collect();
        let is_disclosed = |name: &str| {
            disclosed
                .iter()
                .any(|d| *d == name || d.ends_with(&format!("::{name}")))
        };
        let mut seen: HashMap<String, (usize, &str)> = HashMap::new();
        for (i, f) in failures.into_iter().flatten().enumerate() {
            let Some(o) = f.as_object() else { continue };
            if let Some(name) = o.get("test_name").and_then(Value::as_str)
                && !name.trim().is_empty()
            {
                // Folded as every name is compared: `Test_A` and `test_a\u{200b}` are one test.
                let folded = fold(name);
                match seen.get(&folded) {
                    Some(_) if is_disclosed(&folded) => {}
                    // The same id twice: one failure listed twice.
                    Some((first, first_name)) if *first_name == name => self.err(
                        &rules::COUNTS_DUPLICATE,
                        &ptr(&["failures", &i.to_string(), "test_name"]),
                        format!(
                            "failure #{i} `{name}` is the test of failure #{first}: a failed test is listed once"
                        ),
                    ),
                    // Names that read the same but differ (`b` and `b `, `Test_A`): a runner
                    // may well give two such tests, so a warning, not an error.
                    Some((first, first_name)) => self.warn(
                        &rules::COUNTS_DUPLICATE,
                        &ptr(&["failures", &i.to_string(), "test_name"]),
                        format!(
                            "failure #{i} `{name}` reads the same as failure #{first} `{first_name}`: two tests, or one listed twice in disguise"
                        ),
                    ),
                    None => {
                        seen.insert(folded, (i, name));
                    }
                }
            }
        }
    }

    /// `failures[].category`: no category has more failures than it has sealed tests.
    pub(crate) fn claim_failure_categories(&mut self) {
        let failures = self.root.get("failures").and_then(Value::as_array);
        let mut per_category: BTreeMap<&str, (u64, usize)> = BTreeMap::new();
        for (i, f) in failures.into_iter().flatten().enumerate() {
            if let Some(cat) = f.get("category").and_then(Value::as_str) {
                let e = per_category.entry(cat).or_insert((0, i));
                e.0 += 1;
            }
        }
        let Some(cc) = self
            .root
            .get("coverage_comparison")
            .and_then(Value::as_object)
        else {
            return;
        };
        let sealed_of = |cat: &str| cc.get(cat).and_then(|c| count(c.get("sealed")));
        // The four §5.3 categories only: run-level problems are failure entries in `unknown`
        // without being tests of any category.
        let four = ["happy_path", "edge_case", "error_handling", "security"];
        for (cat, (n, first)) in &per_category {
            if four.contains(cat)
                && let Some(s) = sealed_of(cat)
                && *n > s
            {
                self.err(
                    &rules::COVERAGE_FAILURES,
                    &ptr(&["failures", &first.to_string(), "category"]),
                    format!(
                        "{n} failure{} in category `{cat}`, which coverage_comparison gives {s} sealed test{}",
                        if *n == 1 { "" } else { "s" },
                        if s == 1 { "" } else { "s" }
                    ),
                );
            }
        }
    }

    /// `coverage_comparison`: the categories' counts within the suites' totals.
    pub(crate) fn claim_coverage_sums(&mut self) {
        if let Some(cc) = self
            .root
            .get("coverage_comparison")
            .and_then(Value::as_object)
        {
            self.coverage_sums(cc, "sealed", "sealed_tests");
            self.coverage_sums(cc, "open", "open_tests");
        }
    }

    /// The categories' `key` counts never exceed the suite's total. (They may fall short of
    /// it: tests without a category are in none of the four, and gapscore writes all four,
    /// zeros included, whatever the tests' categories.)
    fn coverage_sums(&mut self, cc: &Map<String, Value>, key: &str, suite: &str) {
        let Some(total) = self.root.get(suite).and_then(|s| count(s.get("total"))) else {
            return;
        };
        let sum: u128 = cc
            .values()
            .filter_map(|c| count(c.get(key)))
            .map(u128::from)
            .sum();
        if sum > u128::from(total) {
            self.err(
                &rules::COVERAGE_SUM,
                "/coverage_comparison",
                format!(
                    "the categories' {key} counts add up to {sum}, more than {suite}.total {total}: each test is in one category at most"
                ),
            );
        }
    }

    /// `hardening.history[]`: each cycle's counts and scores agree with each other, and no
    /// cycle comes after the report.
    pub(crate) fn claim_history_cycles(&mut self) {
        let Some(h) = self.hardening() else { return };
        let report_time = self
            .meta_get("timestamp")
            .and_then(Value::as_str)
            .and_then(|s| parse_rfc3339(s).map(|t| (t, s)));
        let list = h.get("history").and_then(Value::as_array);
        for (i, c) in list.into_iter().flatten().enumerate() {
            let Some(o) = c.as_object() else { continue };
            let p = ptr(&["hardening", "history", &i.to_string()]);
            let (failed, total) = (count(o.get("sealed_failed")), count(o.get("sealed_total")));
            let passed = count(o.get("sealed_passed"));
            if let (Some(f), Some(t)) = (failed, total)
                && f > t
            {
                self.err(
                    &rules::HARDENING_HISTORY,
                    &format!("{p}/sealed_failed"),
                    format!("cycle {i}: {f} of {t} sealed tests failed, more than ran"),
                );
            }
            if let (Some(ps), Some(f), Some(t)) = (passed, failed, total)
                && u128::from(ps) + u128::from(f) != u128::from(t)
            {
                self.err(
                    &rules::HARDENING_HISTORY,
                    &format!("{p}/sealed_passed"),
                    format!("cycle {i}: passed {ps} + failed {f} is not total {t}"),
                );
            }
            // Every score key the entry gives says the same, and each is its counts' score
            // (level3 judges the first one against the counts).
            let scores: Vec<(f64, &str)> = HISTORY_SCORE_KEYS
                .iter()
                .filter_map(|k| o.get(*k).and_then(Value::as_f64).map(|x| (x, *k)))
                .collect();
            if let Some((first, first_key)) = scores.first() {
                for (x, key) in &scores[1..] {
                    if !same(*x, *first) {
                        self.err(
                            &rules::HARDENING_HISTORY,
                            &format!("{p}/{key}"),
                            format!(
                                "cycle {i}: {key} is {} but {first_key} is {}: one validation, two scores",
                                show(*x),
                                show(*first)
                            ),
                        );
                    } else if let (Some(f), Some(t)) = (failed, total)
                        && self
                            .written(&format!("{p}/{key}"), *x)
                            .is_none_or(|w| matches!(match_score(w, f, t), ScoreMatch::Mismatch))
                    {
                        self.err(
                            &rules::HARDENING_HISTORY,
                            &format!("{p}/{key}"),
                            format!("cycle {i}: {key} {} is not {f}/{t} x 100", show(*x)),
                        );
                    }
                }
            }
            if let (Some((rt, rs)), Some(ts)) =
                (report_time, o.get("timestamp").and_then(Value::as_str))
                && let Some(t) = parse_rfc3339(ts)
                && t > rt
            {
                self.err(
                    &rules::HARDENING_HISTORY,
                    &format!("{p}/timestamp"),
                    format!(
                        "cycle {i} at {ts} is after the report ({rs}): a report cannot record a later validation"
                    ),
                );
            }
        }
    }

    /// `hardening.initial_*_score`: a score the suite of the first cycle can give.
    pub(crate) fn claim_initial_possible(&mut self) {
        let Some(h) = self.hardening() else { return };
        let list = h.get("history").and_then(Value::as_array);
        self.initial_possible(h, list);
    }

    /// The initial score is k/total x 100 for a whole k, total being the suite's size when
    /// the first cycle ran (its `sealed_total`, else the report's: a sealed suite keeps its
    /// size).
    fn initial_possible(&mut self, h: &Map<String, Value>, list: Option<&Vec<Value>>) {
        let total = list
            .and_then(|l| l.first())
            .and_then(|c| count(c.get("sealed_total")))
            .or(self.sealed.map(|c| c.total));
        // Zero tests give no score at all (`report.zero-tests` says so).
        let Some(total) = total.filter(|t| *t > 0) else {
            return;
        };
        for key in ["initial_shadow_score", "initial_gap_score"] {
            let Some(x) = h.get(key).and_then(Value::as_f64) else {
                continue;
            };
            if !(0.0..=100.0).contains(&x) {
                continue; // hardening.range says so
            }
            let p = ptr(&["hardening", key]);
            if self
                .written(&p, x)
                .is_none_or(|w| !possible_score(w, total))
            {
                self.err(
                    &rules::HARDENING_INITIAL,
                    &p,
                    format!(
                        "{key} {} is no score of {total} sealed tests: none of 0/{total} .. {total}/{total} x 100 rounds to it",
                        show(x)
                    ),
                );
            }
        }
    }

    /// Level 2: implementation began before the first validation (the report's own time or
    /// the earliest recorded cycle's). Unreadable times are `time.format`'s.
    pub(crate) fn claim_implementation_first(&mut self) {
        let implementation = [
            "implementation_started_at",
            "implementation_started",
            "implementation_start",
        ]
        .iter()
        .find_map(|k| {
            let s = self.meta_get(k)?.as_str()?;
            Some((parse_rfc3339(s)?, s, *k))
        });
        let Some((it, is, ikey)) = implementation else {
            return;
        };
        let mut first: Option<(i128, String, String)> = self
            .meta_get("timestamp")
            .and_then(Value::as_str)
            .and_then(|s| Some((parse_rfc3339(s)?, s.to_owned(), "the report".to_owned())));
        let history = self
            .hardening()
            .and_then(|h| h.get("history"))
            .and_then(Value::as_array);
        for (i, c) in history.into_iter().flatten().enumerate() {
            if let Some(s) = c.get("timestamp").and_then(Value::as_str)
                && let Some(t) = parse_rfc3339(s)
                && first.as_ref().is_none_or(|f| t < f.0)
            {
                first = Some((t, s.to_owned(), format!("recorded validation {i}")));
            }
        }
        if let Some((vt, vs, vwhere)) = first
            && it > vt
        {
            self.err(
                &rules::SEAL_ORDER,
                &ptr(&["report", ikey]),
                format!(
                    "implementation began {is} (report.{ikey}), after {vwhere} at {vs}: a validation tests an implementation that exists"
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::Severity;
    use crate::{Evidence, check_bytes};

    /// The `counts.duplicate-failure` findings of a 2-of-2 report whose failures are named
    /// `a` and `b`, with `extra` at the root.
    fn duplicates(a: &str, b: &str, extra: &str) -> Vec<Severity> {
        let json = |s: &str| serde_json::Value::from(s).to_string();
        let (a, b) = (json(a), json(b));
        let text = format!(
            r#"{{"shadow_score_spec_version": "1.0.0",
  "report": {{"id": "r", "timestamp": "2026-03-01T12:00:00Z", "specification": "PRD.md", "shadow_score": 100.0, "level": "critical"}},
  "sealed_tests": {{"total": 2, "passed": 0, "failed": 2}},
  "failures": [{{"test_name": {a}, "category": "security", "expected": "", "actual": "", "message": ""}},
               {{"test_name": {b}, "category": "security", "expected": "", "actual": "", "message": ""}}]{extra}}}"#
        );
        check_bytes("r.json", text.as_bytes(), &Evidence::default(), 1)
            .findings
            .iter()
            .filter(|f| f.rule == "counts.duplicate-failure")
            .map(|f| f.severity)
            .collect()
    }

    #[test]
    fn one_id_twice_is_an_error_unless_disclosed_and_lookalike_names_a_warning() {
        assert_eq!(duplicates("t", "u", ""), vec![]);
        assert_eq!(duplicates("t", "t", ""), vec![Severity::Error]);
        assert_eq!(duplicates("t", "T\u{200b} ", ""), vec![Severity::Warning]);
        let disclosed = r#", "gapscore": {"duplicates": ["suite::t"]}"#;
        assert_eq!(duplicates("t", "t", disclosed), vec![]);
    }
}
