//! A re-implementation of the upstream conformance runner (`run_conformance.py` of the Shadow /
//! Gap Score spec repository): [`Suite`] loads a `fixtures.json`, [`Fixture::args`] builds the
//! validator command line, [`Fixture::check`] judges the validator's exit code and output.
//!
//! The upstream runner checks the presence of the four required top-level keys (this one also
//! compares the spec version's value; [`Suite::version_args`] selects it), the exact
//! score and level, the sealed counts, the number of failures, the presence of the four
//! `coverage_comparison` keys and the exit code. [`Strictness::Strict`] additionally compares
//! every failure entry, `open_tests` and every coverage number.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// A conformance suite (`fixtures.json`).
#[derive(Debug, Clone)]
pub struct Suite {
    /// `conformance_suite_version`.
    pub version: String,
    /// The fixtures, in file order.
    pub fixtures: Vec<Fixture>,
}

/// One fixture.
#[derive(Debug, Clone)]
pub struct Fixture {
    /// Its id.
    pub id: String,
    /// `input`: `sealed`/`open` paths, `sealed_inline`, `threshold`.
    pub input: Value,
    /// The expected JSON output, when the fixture checks output.
    pub expected_output: Option<Value>,
    /// The expected exit code.
    pub expected_exit_code: i32,
}

/// How much of the output to compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// Exactly what the upstream runner checks.
    Upstream,
    /// Also failure contents, open counts and coverage numbers.
    Strict,
}

impl Suite {
    /// Parses a `fixtures.json`.
    pub fn parse(text: &str) -> Result<Suite, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("fixtures.json: {e}"))?;
        let version = v["conformance_suite_version"]
            .as_str()
            .ok_or("fixtures.json: missing `conformance_suite_version`")?
            .to_owned();
        let list = v["fixtures"]
            .as_array()
            .ok_or("fixtures.json: missing `fixtures` array")?;
        let mut fixtures = Vec::new();
        for (i, f) in list.iter().enumerate() {
            fixtures.push(Fixture {
                id: f["id"]
                    .as_str()
                    .ok_or(format!("fixtures[{i}]: missing `id`"))?
                    .to_owned(),
                input: f["input"].clone(),
                expected_output: f.get("expected_output").cloned(),
                expected_exit_code: f["expected_exit_code"]
                    .as_i64()
                    .ok_or(format!("fixtures[{i}]: missing `expected_exit_code`"))?
                    as i32,
            });
        }
        Ok(Suite { version, fixtures })
    }

    /// The score key prefix this suite expects (`gap` for 1.x suites, `shadow` for 2.x), judged
    /// from the first fixture with expected output, as the upstream runners hard-code it.
    pub fn prefix(&self) -> &'static str {
        let gap = self
            .fixtures
            .iter()
            .filter_map(|f| f.expected_output.as_ref())
            .any(|o| o.get("gap_score_spec_version").is_some());
        if gap { "gap" } else { "shadow" }
    }
}

impl Suite {
    /// The spec major version the suite's expected outputs claim (`1` for 1.x, `2` for 2.x),
    /// as gapscore's `--spec-version` takes it.
    pub fn spec_major(&self) -> &'static str {
        let v2 = self
            .fixtures
            .iter()
            .filter_map(|f| f.expected_output.as_ref())
            .filter_map(|o| {
                o.get("shadow_score_spec_version")
                    .or_else(|| o.get("gap_score_spec_version"))
            })
            .any(|v| v.as_str().is_some_and(|v| v.starts_with("2.")));
        if v2 { "2" } else { "1" }
    }

    /// The validator arguments that select the suite's spec version (`--spec-version 2` for a
    /// 2.x suite; nothing for 1.x, gapscore's default).
    pub fn version_args(&self) -> Vec<String> {
        match self.spec_major() {
            "1" => Vec::new(),
            n => vec!["--spec-version".to_owned(), n.to_owned()],
        }
    }
}

impl Fixture {
    /// The validator arguments for this fixture: `--sealed` (absolute; an inline suite is written
    /// to `tmp`), `--open`, `--threshold` formatted as Python's `str()` would.
    pub fn args(&self, base: &Path, tmp: &Path) -> Result<Vec<String>, String> {
        let mut args = Vec::new();
        let sealed: PathBuf = if let Some(inline) = self.input.get("sealed_inline") {
            let p = tmp.join(format!("{}.sealed.json", self.id));
            fs::write(&p, inline.to_string()).map_err(|e| format!("{}: {e}", p.display()))?;
            p
        } else {
            let rel = self.input["sealed"]
                .as_str()
                .ok_or(format!("{}: no sealed input", self.id))?;
            base.join(rel)
        };
        args.push("--sealed".to_owned());
        args.push(sealed.display().to_string());
        if let Some(open) = self.input.get("open").and_then(Value::as_str) {
            args.push("--open".to_owned());
            args.push(base.join(open).display().to_string());
        }
        if let Some(t) = self.input.get("threshold") {
            args.push("--threshold".to_owned());
            args.push(t.to_string());
        }
        Ok(args)
    }

    /// Judges a validator run; returns every mismatch (empty when the fixture passes).
    pub fn check(
        &self,
        exit_code: i32,
        stdout: &str,
        prefix: &str,
        strictness: Strictness,
    ) -> Vec<String> {
        let mut problems = Vec::new();
        if exit_code != self.expected_exit_code {
            problems.push(format!(
                "exit code {exit_code}, expected {}",
                self.expected_exit_code
            ));
        }
        let Some(expected) = &self.expected_output else {
            return problems;
        };
        let out: Value = match serde_json::from_str(stdout) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("output is not JSON: {e}"));
                return problems;
            }
        };
        let version_key = format!("{prefix}_score_spec_version");
        for key in [version_key.as_str(), "report", "sealed_tests", "failures"] {
            if out.get(key).is_none() {
                problems.push(format!("missing top-level key `{key}`"));
            }
        }
        // The upstream runner only checks the key is there; a report claiming another spec
        // version than the suite's is not a pass.
        if let (Some(got), Some(want)) = (out.get(&version_key), expected.get(&version_key))
            && got != want
        {
            problems.push(format!("{version_key}: got {got}, expected {want}"));
        }
        let score_key = format!("{prefix}_score");
        let mut same = |what: &str, got: &Value, want: &Value| {
            if !json_eq(got, want) {
                problems.push(format!("{what}: got {got}, expected {want}"));
            }
        };
        same(
            &format!("report.{score_key}"),
            &out["report"][&score_key],
            &expected["report"][&score_key],
        );
        same(
            "report.level",
            &out["report"]["level"],
            &expected["report"]["level"],
        );
        for k in ["total", "passed", "failed"] {
            same(
                &format!("sealed_tests.{k}"),
                &out["sealed_tests"][k],
                &expected["sealed_tests"][k],
            );
        }
        let n = |v: &Value| v.as_array().map_or(0, Vec::len);
        if n(&out["failures"]) != n(&expected["failures"]) {
            problems.push(format!(
                "{} failures, expected {}",
                n(&out["failures"]),
                n(&expected["failures"])
            ));
        }
        if let Some(cc) = expected
            .get("coverage_comparison")
            .and_then(Value::as_object)
        {
            for k in cc.keys() {
                if out["coverage_comparison"].get(k).is_none() {
                    problems.push(format!("missing coverage_comparison.{k}"));
                }
            }
        }
        if strictness == Strictness::Strict {
            let fields = ["test_name", "category", "expected", "actual", "message"];
            let got = out["failures"].as_array().cloned().unwrap_or_default();
            let want = expected["failures"].as_array().cloned().unwrap_or_default();
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                for f in fields {
                    if g.get(f) != w.get(f) {
                        problems.push(format!(
                            "failures[{i}].{f}: got {}, expected {}",
                            g[f], w[f]
                        ));
                    }
                }
            }
            if let Some(open) = expected.get("open_tests")
                && !json_eq(&out["open_tests"], open)
            {
                problems.push(format!(
                    "open_tests: got {}, expected {open}",
                    out["open_tests"]
                ));
            }
            if let Some(cc) = expected
                .get("coverage_comparison")
                .and_then(Value::as_object)
            {
                for (k, v) in cc {
                    if !json_eq(&out["coverage_comparison"][k], v) {
                        problems.push(format!(
                            "coverage_comparison.{k}: got {}, expected {v}",
                            out["coverage_comparison"][k]
                        ));
                    }
                }
            }
        }
        problems
    }
}

/// Equality as Python's `!=` sees JSON numbers: `0 == 0.0`; objects compared key by key.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| json_eq(v, w))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_like_python() {
        assert!(json_eq(&serde_json::json!(0), &serde_json::json!(0.0)));
        assert!(!json_eq(&serde_json::json!(11.1), &serde_json::json!(11.0)));
    }

    #[test]
    fn check_reports_every_mismatch() {
        let suite = Suite::parse(
            r#"{"conformance_suite_version":"1.0.0","fixtures":[{"id":"x","input":{"sealed":"s.json"},
            "expected_output":{"gap_score_spec_version":"1.0.0","report":{"gap_score":11.1,"level":"minor"},
            "sealed_tests":{"total":18,"passed":16,"failed":2},"failures":[{},{}]},"expected_exit_code":0}]}"#,
        )
        .unwrap();
        assert_eq!(suite.prefix(), "gap");
        let f = &suite.fixtures[0];
        let out = r#"{"report":{"gap_score":11.2,"level":"minor"},"sealed_tests":{"total":18,"passed":16,"failed":2},"failures":[]}"#;
        let p = f.check(1, out, "gap", Strictness::Upstream);
        assert_eq!(p.len(), 4, "{p:?}");
    }

    #[test]
    fn the_version_value_is_compared() {
        let suite = Suite::parse(
            r#"{"conformance_suite_version":"2.0.0","fixtures":[{"id":"x","input":{"sealed":"s.json"},
            "expected_output":{"shadow_score_spec_version":"2.0.0","report":{"shadow_score":0.0,"level":"perfect"},
            "sealed_tests":{"total":1,"passed":1,"failed":0},"failures":[]},"expected_exit_code":0}]}"#,
        )
        .unwrap();
        assert_eq!(suite.version_args(), ["--spec-version", "2"]);
        let out = r#"{"shadow_score_spec_version":"1.0.0","report":{"shadow_score":0.0,"level":"perfect"},"sealed_tests":{"total":1,"passed":1,"failed":0},"failures":[]}"#;
        let p = suite.fixtures[0].check(0, out, "shadow", Strictness::Upstream);
        assert_eq!(
            p,
            ["shadow_score_spec_version: got \"1.0.0\", expected \"2.0.0\""]
        );
    }
}
