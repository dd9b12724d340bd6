//! Writing canonical runs as one CTRF document (Common Test Report Format, ctrf-io), so anything
//! gapscore reads can feed CTRF tooling.
//!
//! CTRF has five statuses; ours map to the nearest, and the original is always kept in the
//! test's `extra.gapscore_status`:
//!
//! | gapscore | CTRF |
//! |---|---|
//! | passed, xpassed | passed |
//! | failed, errored | failed |
//! | skipped | skipped |
//! | todo | pending |
//! | xfailed | other |
//!
//! Run-level problems (a suite that did not run) have no CTRF field; they are listed in
//! `results.extra.gapscore_problems` and never dropped.
//!
//! The tests are the ones `score` counts: a parent (a TAP subtest point, a Go test with
//! subtests) is represented by its children and written only when it did not pass while none of
//! its children failed (a cleanup failure after passing subtests), as the tally counts it under
//! the default policy; so `parse --format ctrf` and `score` agree on the number of tests.

use serde_json::{Map, Value, json};

use gapscore_adapter_sdk::{Status, TestCase, TestRun};

/// The CTRF status for one of ours.
pub fn ctrf_status(s: Status) -> &'static str {
    match s {
        Status::Passed | Status::Xpassed => "passed",
        Status::Failed | Status::Errored => "failed",
        Status::Skipped => "skipped",
        Status::Todo => "pending",
        Status::Xfailed => "other",
    }
}

/// True for a status the default policy counts as a pass.
fn passes(s: Status) -> bool {
    matches!(s, Status::Passed | Status::Xpassed)
}

/// Whether a parent stands as a test of its own: it did not pass and no child of it failed (a
/// failing child already carries the failure; a passing parent is only its children).
fn parent_counted(run: &TestRun, parent: &TestCase) -> bool {
    !passes(parent.status)
        && !run
            .tests
            .iter()
            .any(|c| c.parent_id.as_deref() == Some(parent.id.as_str()) && !passes(c.status))
}

/// One CTRF document holding the tests of every run, in order.
pub fn to_ctrf(runs: &[TestRun]) -> Value {
    let mut tests = Vec::new();
    let mut summary = [0u64; 5]; // passed, failed, skipped, pending, other
    let mut problems = Vec::new();
    for run in runs {
        for t in &run.tests {
            if t.parent && !parent_counted(run, t) {
                continue;
            }
            let status = ctrf_status(t.status);
            let idx = ["passed", "failed", "skipped", "pending", "other"]
                .iter()
                .position(|s| *s == status)
                .unwrap_or(4);
            summary[idx] += 1;
            let mut test = Map::new();
            test.insert("name".into(), json!(t.name));
            test.insert("status".into(), json!(status));
            // CTRF requires a duration in milliseconds; an unknown one is written as 0 and
            // flagged in `extra` rather than passed off as a measurement.
            test.insert(
                "duration".into(),
                json!(t.duration.map_or(0, |d| (d * 1000.0).round() as u64)),
            );
            if let Some(m) = &t.message {
                test.insert("message".into(), json!(m));
            }
            if let Some(s) = &t.suite {
                test.insert("suite".into(), json!(s));
            }
            if let Some(f) = t.file.as_ref().or(run.source.as_ref()) {
                test.insert("filePath".into(), json!(f));
            }
            if let Some(l) = t.line {
                test.insert("line".into(), json!(l));
            }
            if !t.attempts.is_empty() {
                test.insert("retries".into(), json!(t.attempts.len()));
                test.insert("flaky".into(), json!(t.is_flaky()));
                // The earlier attempts themselves, so their statuses and messages survive.
                let attempts: Vec<Value> = t
                    .attempts
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        let mut o = json!({"attempt": i + 1, "status": ctrf_status(a.status)});
                        if let Some(m) = &a.message {
                            o["message"] = json!(m);
                        }
                        if let Some(d) = a.duration {
                            o["duration"] = json!((d * 1000.0).round() as u64);
                        }
                        o
                    })
                    .collect();
                test.insert("retryAttempts".into(), Value::Array(attempts));
            }
            let mut extra = Map::new();
            extra.insert("gapscore_status".into(), json!(t.status));
            extra.insert("gapscore_id".into(), json!(t.id));
            if t.duration.is_none() {
                extra.insert("duration_unknown".into(), json!(true));
            }
            if t.parent {
                extra.insert("gapscore_parent".into(), json!(true));
            }
            if let Some(p) = &t.parent_id {
                extra.insert("gapscore_parent_id".into(), json!(p));
            }
            if let Some(c) = t.category {
                extra.insert("category".into(), json!(c));
                test.insert("tags".into(), json!([c.as_str()]));
            }
            if let Some(e) = &t.expected {
                extra.insert("expected".into(), json!(e));
            }
            if let Some(a) = &t.actual {
                extra.insert("actual".into(), json!(a));
            }
            test.insert("extra".into(), Value::Object(extra));
            tests.push(Value::Object(test));
        }
        for p in &run.problems {
            let mut v = serde_json::to_value(p).unwrap_or(Value::Null);
            if let (Value::Object(o), Some(src)) = (&mut v, &run.source) {
                o.insert("source".into(), json!(src));
            }
            problems.push(v);
        }
    }
    let tool = runs.iter().find_map(|r| r.producer.as_ref()).map_or_else(
        || json!({"name": "gapscore"}),
        |p| {
            let mut t = json!({"name": p.name});
            if let Some(v) = &p.version {
                t["version"] = json!(v);
            }
            t
        },
    );
    json!({
        "reportFormat": "CTRF",
        "specVersion": "0.0.0",
        "generatedBy": concat!("gapscore ", env!("CARGO_PKG_VERSION")),
        "results": {
            "tool": tool,
            "summary": {
                "tests": tests.len(),
                "passed": summary[0],
                "failed": summary[1],
                "skipped": summary[2],
                "pending": summary[3],
                "other": summary[4],
                "start": 0,
                "stop": 0
            },
            "tests": tests,
            "extra": {
                "gapscore_problems": problems,
                "gapscore_formats": runs.iter().map(|r| r.format.clone()).collect::<Vec<_>>()
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gapscore_adapter_sdk::{Problem, ProblemKind, TestCase};

    #[test]
    fn every_status_maps_and_problems_survive() {
        let mut run = TestRun::new("simple");
        for s in Status::ALL {
            run.tests.push(TestCase::new(None, s.as_str(), s));
        }
        run.problems
            .push(Problem::new(ProblemKind::BuildFailure, "undefined: x"));
        let doc = to_ctrf(&[run]);
        let summary = &doc["results"]["summary"];
        assert_eq!(summary["tests"], 7);
        assert_eq!(summary["passed"], 2);
        assert_eq!(summary["failed"], 2);
        assert_eq!(summary["skipped"], 1);
        assert_eq!(summary["pending"], 1);
        assert_eq!(summary["other"], 1);
        assert_eq!(
            doc["results"]["tests"][4]["extra"]["gapscore_status"],
            "xfailed"
        );
        assert_eq!(
            doc["results"]["extra"]["gapscore_problems"][0]["kind"],
            "build-failure"
        );
    }
}
