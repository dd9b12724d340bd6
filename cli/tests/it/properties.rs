//! Property tests across the host and the checker, on generated result files (the simple
//! format: random names, statuses, categories, messages and run-level problems, in 1–5 files):
//!
//! - reading a suite through the adapter host gives the same tally with one thread and with two
//!   (`--jobs 1` vs `--jobs 2`), and the same report;
//! - every report gapscore emits from them, in each dialect, passes the conformance checker's
//!   level 1 (`gapscore_check`);
//! - every spec v2 report, whatever its provenance, validates against the bundled v2 schema
//!   and passes level 1.

use std::path::PathBuf;

use gapscore_adapters::{IngestOptions, Registry};
use gapscore_check::{Evidence, Severity, check_bytes};
use gapscore_core::{
    Dialect, FlakyPolicy, ProblemKind, Provenance, ReportOptions, SkippedPolicy, SpecVersion,
    Status, StatusPolicy, Tally, WorkspaceIsolation, XfailPolicy, build_report,
    render::render_json,
};
use gapscore_engine::{SuiteOptions, tally_suite};
use gapscore_schema::{SchemaId, validate};
use proptest::prelude::*;
use serde_json::{Value, json};

fn test_entry() -> impl Strategy<Value = Value> {
    (
        "[a-c\"é ]{0,4}",
        prop::sample::select(Status::ALL.to_vec()),
        prop::option::of(prop::sample::select(vec![
            "happy_path",
            "edge_case",
            "error_handling",
            "security",
            "performance",
        ])),
        prop::option::of("[a-z\\n]{0,8}"),
    )
        .prop_map(|(name, status, category, message)| {
            let mut t = json!({"name": name, "status": status.as_str()});
            if let Some(c) = category {
                t["category"] = json!(c);
            }
            if let Some(m) = message {
                t["message"] = json!(m);
            }
            t
        })
}

fn file() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(test_entry(), 0..25),
        prop::collection::vec(
            (
                prop::sample::select(ProblemKind::ALL.to_vec()),
                "[a-z ]{0,10}",
            ),
            0..2,
        ),
    )
        .prop_map(|(tests, problems)| {
            let problems: Vec<Value> = problems
                .into_iter()
                .map(|(k, d)| json!({"kind": k.as_str(), "detail": d}))
                .collect();
            json!({"tests": tests, "problems": problems})
        })
}

fn policy() -> impl Strategy<Value = StatusPolicy> {
    (
        prop::sample::select(vec![
            SkippedPolicy::Pass,
            SkippedPolicy::Fail,
            SkippedPolicy::Exclude,
        ]),
        prop::sample::select(vec![XfailPolicy::Pass, XfailPolicy::Fail]),
        prop::sample::select(vec![FlakyPolicy::Pass, FlakyPolicy::Fail]),
    )
        .prop_map(|(s, x, f)| StatusPolicy::new(s, x, f))
}

/// What a report is made of, in order.
fn summary(t: &mut Tally) -> String {
    let repeated = t.repeated();
    format!(
        "{:?} {} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        t.counts,
        t.excluded,
        t.by_status,
        t.categories,
        t.suites,
        t.failures.to_vec(),
        t.problems,
        t.warnings,
        repeated
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn one_thread_or_two_give_the_same_tally_and_every_report_passes_level_1(
        files in prop::collection::vec(file(), 1..6),
        policy in policy(),
        open in any::<bool>(),
        dialect in prop::sample::select(vec![Dialect::Shadow, Dialect::Gap, Dialect::Both]),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let p = dir.path().join(format!("results-{i}.json"));
                std::fs::write(&p, serde_json::to_vec(f).unwrap()).unwrap();
                p
            })
            .collect();
        let registry = Registry::builtin();
        let suite = |jobs: usize, paths: &[PathBuf]| {
            let mut opts = SuiteOptions::new(policy);
            opts.ingest = IngestOptions::new(None, jobs);
            let s = tally_suite(&registry, "sealed", paths, &opts);
            assert_eq!(s.failed, 0, "{:?}", s.diagnostics);
            s.tally
        };
        let mut one = suite(1, &paths);
        let mut two = suite(2, &paths);
        prop_assert_eq!(summary(&mut one), summary(&mut two));

        let open_tally = open.then(|| suite(2, &paths[..1]));
        let mut opts = ReportOptions::default();
        opts.dialect = dialect;
        opts.id = Some("run-1".into());
        opts.timestamp = Some("2026-11-22T08:00:00Z".into());
        let a = render_json(&build_report(&one, open_tally.as_ref(), &opts));
        let b = render_json(&build_report(&two, open_tally.as_ref(), &opts));
        prop_assert_eq!(&a, &b);

        let result = check_bytes("report.json", a.as_bytes(), &Evidence::default(), 1);
        let errors: Vec<String> = result
            .with_severity(Severity::Error)
            .filter(|f| f.level <= 1)
            .map(|f| format!("{f:?}"))
            .collect();
        prop_assert!(result.holds, "level 1 does not hold: {errors:?}\n{a}");
        prop_assert!(result.level_met >= 1);
        prop_assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn every_v2_report_validates_against_the_v2_schema(
        files in prop::collection::vec(file(), 1..4),
        policy in policy(),
        open in any::<bool>(),
        implementer in prop::option::of(prop::sample::select(vec!["anthropic", "openai", "google"])),
        seal_authors in prop::collection::vec(prop::sample::select(vec!["anthropic", "openai", "google", "OpenAI"]), 0..3),
        models in prop::collection::vec("[a-z]{1,3}", 0..3),
        isolation in prop::option::of(prop::sample::select(vec![WorkspaceIsolation::Strict, WorkspaceIsolation::Legacy])),
        level in prop::option::of(1u8..=4),
        truncated in any::<bool>(),
        broken in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let p = dir.path().join(format!("results-{i}.json"));
                std::fs::write(&p, serde_json::to_vec(f).unwrap()).unwrap();
                p
            })
            .collect();
        let registry = Registry::builtin();
        let tally = |paths: &[PathBuf]| {
            let opts = SuiteOptions::new(policy);
            tally_suite(&registry, "sealed", paths, &opts).tally
        };
        let sealed = tally(&paths);
        let open_tally = open.then(|| tally(&paths[..1]));
        let mut declared = Provenance::default();
        declared.implementer_family = implementer.map(str::to_owned);
        declared.seal_author_families = seal_authors.iter().map(|s| (*s).to_owned()).collect();
        declared.seal_author_models = models.clone();
        declared.workspace_isolation = isolation;
        declared.conformance_level = level;
        if !models.is_empty() && seal_authors.is_empty() {
            declared.families = models.iter().map(|m| (m.clone(), "meta".to_owned())).collect();
        }
        let resolved = match declared.resolve() {
            Ok(r) => r,
            // Level 4 without both sides' families is refused, never written.
            Err(e) => {
                prop_assert!(level == Some(4), "{e}");
                return Ok(());
            }
        };
        let mut opts = ReportOptions::default();
        opts.spec_version = SpecVersion::V2;
        opts.provenance = resolved;
        opts.spec_truncated = truncated;
        if broken {
            opts.seal = gapscore_core::SealCheck::Broken("1 file changed".into());
        }
        opts.id = Some("run-1".into());
        opts.timestamp = Some("2026-11-22T08:00:00Z".into());
        let report = build_report(&sealed, open_tally.as_ref(), &opts);
        let text = render_json(&report);
        let value: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&value["shadow_score_spec_version"], "2.0.0");
        prop_assert!(value["report"].get("seal_families").is_none());
        let errors = validate(SchemaId::ShadowV2, &value).unwrap();
        prop_assert!(errors.is_empty(), "{errors:?}\n{text}");
        // gapscore's own schema, with the v2 conditionals, accepts it too.
        let errors = validate(SchemaId::Report, &value).unwrap();
        prop_assert!(errors.is_empty(), "{errors:?}\n{text}");
        if value["report"]["independence"] == "weak" || truncated || broken {
            prop_assert_eq!(&value["report"]["advisory"], true);
        }
        let result = check_bytes("report.json", text.as_bytes(), &Evidence::default(), 1);
        let errors: Vec<String> = result
            .with_severity(Severity::Error)
            .filter(|f| f.level <= 1)
            .map(|f| format!("{f:?}"))
            .collect();
        // The checker holds an advisory v2 report to no level (§5.4): that, and only that, may
        // keep level 1 from holding.
        if value["report"]["advisory"] == true {
            prop_assert!(!result.holds);
            prop_assert!(errors.iter().all(|e| e.contains("report.advisory")), "{errors:?}");
        } else {
            prop_assert!(result.holds, "level 1 does not hold: {errors:?}\n{text}");
        }
    }
}
