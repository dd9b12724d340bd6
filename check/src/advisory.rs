//! Advisory status held against the records that decide it (spec v2 §5.2, §5.4): a reason
//! without the flag, a suite that did not run reported as authoritative, and a report naming
//! gapscore as its producer whose own records (problems, zero tests, planted files, flaky passes,
//! advisory reasons) make it advisory while it says it is not. The flag is a claim; these are the
//! evidence.

use serde_json::Value;

use crate::checker::Checker;
use crate::rules;

impl Checker<'_> {
    /// Whether the report says `advisory: true`.
    pub(crate) fn advisory_flag(&self) -> bool {
        self.meta_get("advisory") == Some(&Value::Bool(true))
    }

    /// The §5.4 conditions shown by the report's own fields other than `independence` and
    /// `seal_broken` (those two the v2 schema's conditionals judge): each with its pointer.
    /// Under v1 only the producer's records count: v1 has no advisory rule of its own, but
    /// gapscore marks its reports advisory under both versions.
    pub(crate) fn advisory_evidence(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if self.major >= 2
            && let Some(c) = self.sealed
            && c.total == 0
        {
            out.push((
                "/sealed_tests/total".to_owned(),
                "zero sealed tests were counted (a suite that did not run is not a suite that passed)".to_owned(),
            ));
        }
        let Some(ext) = self.root.get("gapscore").and_then(Value::as_object) else {
            return out;
        };
        let non_empty = |k: &str| ext.get(k).and_then(Value::as_array).map_or(0, Vec::len);
        for (key, one, many) in [
            (
                "problems",
                "run-level problem (the sealed suite did not fully run)",
                "run-level problems (the sealed suite did not fully run)",
            ),
            ("advisory_reasons", "advisory reason", "advisory reasons"),
            (
                "sealed_dir_excluded_present",
                "file present under the seal's excludes",
                "files present under the seal's excludes",
            ),
        ] {
            let n = non_empty(key);
            if n > 0 {
                out.push((
                    format!("/gapscore/{key}"),
                    format!(
                        "its producer's record `gapscore.{key}` lists {n} {}",
                        if n == 1 { one } else { many }
                    ),
                ));
            }
        }
        // gapscore lists each run-level problem among the failures too, tagged with its kind: the
        // tag stays when the `problems` list is removed.
        let tagged = self
            .root
            .get("failures")
            .and_then(Value::as_array)
            .map_or(0, |f| {
                f.iter()
                    .filter(|e| e.get("problem").and_then(Value::as_str).is_some())
                    .count()
            });
        if tagged > 0 && non_empty("problems") == 0 {
            out.push((
                "/failures".to_owned(),
                format!(
                    "{tagged} failure entr{} carr{} a run-level `problem` kind (its producer lists each problem of the sealed suite there too)",
                    if tagged == 1 { "y" } else { "ies" },
                    if tagged == 1 { "ies" } else { "y" }
                ),
            ));
        }
        let flaky_pass = ext
            .get("status_policy")
            .and_then(|p| p.get("flaky"))
            .and_then(Value::as_str)
            == Some("pass");
        let flaky = non_empty("flaky");
        if flaky_pass && flaky > 0 {
            out.push((
                "/gapscore/flaky".to_owned(),
                format!("its producer's record `gapscore.flaky` lists {flaky} sealed test{} that passed only on a retry", if flaky == 1 { "" } else { "s" }),
            ));
        }
        out
    }

    /// `advisory_reason` only with `advisory: true` (a row of the claims table).
    pub(crate) fn claim_advisory_reason(&mut self) {
        if !self.advisory_flag()
            && let Some(reason) = self.meta_get("advisory_reason")
            && reason.as_str().is_none_or(|r| !r.trim().is_empty())
        {
            let msg = format!(
                "`report.advisory_reason` is {reason} but the report is not marked `advisory: true`: a reason why the score is not authoritative is one (§5.4); mark it advisory or remove the reason"
            );
            self.err(&rules::ADVISORY_REASON, "/report/advisory_reason", msg);
        }
    }

    /// Every §5.4 condition the report's records show comes with `advisory: true` (a row of
    /// the claims table).
    pub(crate) fn claim_not_advisory(&mut self) {
        if self.advisory_flag() {
            return;
        }
        for (pointer, what) in self.advisory_evidence() {
            let msg = format!(
                "the report is not marked `advisory: true`, but {what}: §5.4 makes such a score advisory{}",
                if self.tool.is_some() || pointer.starts_with("/gapscore") {
                    ", and the tool it names as producer marks it so"
                } else {
                    ""
                }
            );
            self.err(&rules::ADVISORY_CONDITIONS, &pointer, msg);
        }
    }
}
