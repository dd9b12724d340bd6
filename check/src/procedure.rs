//! The v2 hardening procedure held against the report's own records: a `legacy` copy-in
//! workspace while hardening (§4.3 MUST NOT) and the `assertions` disclosure level before the
//! final cycle (§4.4.1). Both are level 3 (the hardening loop) under spec v2; v1 has neither
//! a workspace field nor disclosure levels. Both are rows of the claims table (`claims.rs`).

use serde_json::Value;

use crate::checker::{Checker, count, ptr};
use crate::rules;

impl Checker<'_> {
    /// The history's entries, when it is a list.
    fn history_entries(&self) -> &[Value] {
        self.hardening()
            .and_then(|h| h.get("history"))
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// §4.3: "Implementations that harden MUST use a disposable workspace"; `legacy` is for
    /// a validation that is terminal.
    pub(crate) fn claim_legacy_not_hardening(&mut self) {
        if self.major < 2 {
            return;
        }
        if self.meta_get("workspace_isolation").and_then(Value::as_str) != Some("legacy") {
            return;
        }
        let cycles = self
            .hardening()
            .and_then(|h| count(h.get("cycles_completed")))
            .unwrap_or(0);
        let validations = self.history_entries().len();
        let evidence = if cycles > 0 {
            format!("cycles_completed is {cycles}")
        } else if validations > 1 {
            format!("the history records {validations} validations")
        } else {
            return;
        };
        self.err(
            &rules::WORKSPACE_HARDENING,
            "/report/workspace_isolation",
            format!(
                "`workspace_isolation: legacy` while hardening ({evidence}): the implementer is re-invoked after validation with the sealed tests copied into its workspace; implementations that harden MUST use a disposable workspace (§4.3)"
            ),
        );
    }

    /// §4.4.1: `assertions` "MAY be used at the final cycle only". Feedback handed out after
    /// validation `k` serves cycle `k + 1`, the final one only when the budget allows no more
    /// and none was recorded after it (gapscore's own rule, `gapscore_core::hardening`). Without
    /// a history, `max_reveal` at the assertions level with fewer cycles completed than
    /// `max_cycles` was handed out with cycles left. The level has one reading
    /// ([`is_assertions_level`]): §4.4.1 and gapscore's history say `assertions`, the v2
    /// schema's enum and gapscore's own `hardening.max_reveal` say `assertion`.
    pub(crate) fn claim_assertions_at_final_cycle(&mut self) {
        if self.major < 2 {
            return;
        }
        let Some(h) = self.hardening() else { return };
        let max = count(h.get("max_cycles"));
        let cycles = count(h.get("cycles_completed"));
        let entries = self.history_entries();
        let last = entries
            .iter()
            .filter_map(|c| count(c.get("cycle")))
            .max()
            .unwrap_or(0);
        let mut early = Vec::new();
        for (i, c) in entries.iter().enumerate() {
            let level = |k: &str| c.get(k).and_then(Value::as_str);
            if !level("reveal").is_some_and(is_assertions_level)
                && !level("disclosure").is_some_and(is_assertions_level)
            {
                continue;
            }
            let used_in = count(c.get("cycle")).unwrap_or(i as u64) + 1;
            if max.is_some_and(|m| used_in < m) || used_in < last {
                early.push((i, used_in));
            }
        }
        for (i, used_in) in early {
            self.err(
                &rules::DISCLOSURE_ASSERTIONS,
                &ptr(&["hardening", "history", &i.to_string(), "reveal"]),
                format!(
                    "the `assertions` disclosure level was handed out for cycle {used_in}{}, not the final cycle: §4.4.1 allows it at the final cycle only",
                    max.map(|m| format!(" of {m}")).unwrap_or_default()
                ),
            );
        }
        let max_reveal = h.get("max_reveal").and_then(Value::as_str);
        if let (Some(true), Some(m), Some(c)) = (max_reveal.map(is_assertions_level), max, cycles)
            && c < m
        {
            self.err(
                &rules::DISCLOSURE_ASSERTIONS,
                "/hardening/max_reveal",
                format!(
                    "`max_reveal` is the assertions level, but only {c} of {m} cycles were completed: the assertions were handed out with cycles left, before the final cycle (§4.4.1)"
                ),
            );
        }
        if let Some(warning) = h.get("disclosure_warning").filter(|v| !v.is_null()) {
            self.err(
                &rules::DISCLOSURE_ASSERTIONS,
                "/hardening/disclosure_warning",
                format!("the report's own `hardening.disclosure_warning` says so: {warning}"),
            );
        }
    }
}

/// Whether a disclosure level names the assertions level: `assertions` (§4.4.1, gapscore's
/// history) or `assertion` (the v2 schema's enum, gapscore's own `hardening.max_reveal`), read
/// through the one fold so a respelling (`Assertions`, `assert\u{200b}ions`) is the same level.
/// A second reading of the names is a way around §4.4.1.
pub(crate) fn is_assertions_level(name: &str) -> bool {
    let folded = gapscore_core::fold::fold(name);
    folded == "assertions" || folded == "assertion"
}

#[cfg(test)]
mod tests {
    use super::is_assertions_level;

    #[test]
    fn both_spellings_of_the_assertions_level_are_one_level() {
        for name in ["assertions", "assertion", "Assertion", "assert\u{200b}ions"] {
            assert!(is_assertions_level(name), "{name:?}");
        }
        for name in ["count", "name", "category", "message", "assert"] {
            assert!(!is_assertions_level(name), "{name:?}");
        }
    }
}
