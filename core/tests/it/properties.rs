//! Property tests of scoring and the model, on generated runs (tests with random statuses,
//! suites, ids, categories, retries; run-level problems). Bounded to run in seconds.
//!
//! - the score does not depend on the order tests arrive in, nor on how the input is split
//!   into per-file tallies that are merged (what parallel ingestion does);
//! - a canonical `TestRun` and a Gap Report survive serialising and re-reading;
//! - a tally counts a test it is given borrowed ([`EventSink::test_finished_ref`], the fast path)
//!   exactly as one it is given owned, with a manifest, category rules and names collected too;
//! - the level is never "perfect" when a failure, an unverified test (errored, skipped, todo,
//!   xfailed under the default policy) or a problem exists.

use std::sync::Arc;

use gapscore_core::categories::CategoryRules;
use gapscore_core::render::render_summary;
use gapscore_core::{
    Attempt, Category, Dialect, EventSink, FlakyPolicy, GapReport, Level, Manifest, Problem,
    ProblemKind, Producer, ReportOptions, SkippedPolicy, Status, StatusPolicy, Tally, TestCase,
    TestRun, XfailPolicy, build_report,
};
use proptest::prelude::*;

#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // Test data; a box would only add noise.
enum Event {
    Test(TestCase),
    Problem(Problem),
}

fn status() -> impl Strategy<Value = Status> {
    prop::sample::select(Status::ALL.to_vec())
}

fn category() -> impl Strategy<Value = Option<Category>> {
    prop::option::of(prop::sample::select(vec![
        Category::HappyPath,
        Category::EdgeCase,
        Category::ErrorHandling,
        Category::Security,
        Category::Unknown,
    ]))
}

/// Short text from a small alphabet (so names repeat and duplicates occur), with some
/// non-ASCII and JSON-hostile characters.
fn text() -> impl Strategy<Value = String> {
    "[ab\"\\\\/ é€\u{1F600}\n\t]{0,6}"
}

fn test_case() -> impl Strategy<Value = TestCase> {
    (
        prop::option::of(prop::sample::select(vec!["s1", "s2", "pkg > inner", ""])),
        text(),
        status(),
        category(),
        prop::option::of(text()),
        prop::collection::vec(status(), 0..3),
        prop::option::of(0u32..100_000),
        prop::option::of(prop_oneof![
            (0u32..1_000_000).prop_map(|ms| f64::from(ms) / 1000.0),
            (0.0..1e9f64),
        ]),
    )
        .prop_map(
            |(suite, name, status, category, message, attempts, line, duration)| {
                let mut t = TestCase::new(suite.map(str::to_owned), name, status);
                t.category = category;
                t.message = message;
                t.attempts = attempts.into_iter().map(Attempt::new).collect();
                t.line = line;
                t.duration = duration;
                t
            },
        )
}

fn problem() -> impl Strategy<Value = Problem> {
    (
        prop::sample::select(ProblemKind::ALL.to_vec()),
        text(),
        prop::option::of(prop::sample::select(vec!["s1", "pkg"])),
    )
        .prop_map(|(kind, detail, suite)| {
            let p = Problem::new(kind, detail);
            match suite {
                Some(s) => p.with_suite(s),
                None => p,
            }
        })
}

fn events() -> impl Strategy<Value = Vec<Event>> {
    prop::collection::vec(
        prop_oneof![
            8 => test_case().prop_map(Event::Test),
            1 => problem().prop_map(Event::Problem),
        ],
        0..60,
    )
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

fn feed(tally: &mut Tally, events: &[Event]) {
    for e in events {
        match e {
            Event::Test(t) => tally.test_finished(t.clone()),
            Event::Problem(p) => tally.problem(p.clone()),
        }
    }
}

fn tally_of(policy: StatusPolicy, events: &[Event]) -> Tally {
    let mut t = Tally::new(policy);
    feed(&mut t, events);
    t.finish();
    t
}

/// Everything a report is made of, with the lists sorted: equal for the same tests in any order.
fn order_free(t: &mut Tally) -> String {
    let mut failures: Vec<String> = t
        .failures
        .to_vec()
        .iter()
        .map(|f| format!("{f:?}"))
        .collect();
    failures.sort();
    let mut problems: Vec<String> = t.problems.iter().map(|p| format!("{p:?}")).collect();
    problems.sort();
    let mut flaky = t.flaky.clone();
    flaky.sort();
    let mut repeated = t.repeated();
    repeated.sort_unstable();
    format!(
        "{:?} {} {:?} {:?} {:?} {:?} {failures:?} {problems:?} {flaky:?} {repeated:?}",
        t.counts,
        t.excluded,
        t.by_status,
        t.categories,
        t.suites,
        t.score()
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn the_score_does_not_depend_on_test_order(
        (events, shuffled) in events().prop_flat_map(|e| (Just(e.clone()), Just(e).prop_shuffle())),
        policy in policy(),
    ) {
        let mut a = tally_of(policy, &events);
        let mut b = tally_of(policy, &shuffled);
        prop_assert_eq!(order_free(&mut a), order_free(&mut b));
        prop_assert_eq!(a.score().level(), b.score().level());
    }

    #[test]
    fn merging_per_file_tallies_in_any_split_equals_one_tally(
        events in events(),
        cuts in prop::collection::vec(0usize..=60, 0..5),
        policy in policy(),
    ) {
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(events.len())).collect();
        cuts.sort_unstable();
        let mut one = tally_of(policy, &events);
        let mut merged = Tally::new(policy);
        let mut from = 0;
        for to in cuts.into_iter().chain([events.len()]) {
            // One tally per "file", finished before the merge, as the host does.
            merged.merge(tally_of(policy, &events[from..to]));
            from = to;
        }
        merged.finish();
        prop_assert_eq!(merged.counts, one.counts);
        prop_assert_eq!(merged.excluded, one.excluded);
        prop_assert_eq!(merged.by_status, one.by_status);
        prop_assert_eq!(merged.categories, one.categories);
        prop_assert_eq!(&merged.suites, &one.suites);
        // Input order is kept across the merge.
        prop_assert_eq!(merged.failures.to_vec(), one.failures.to_vec());
        prop_assert_eq!(&merged.problems, &one.problems);
        prop_assert_eq!(&merged.flaky, &one.flaky);
        prop_assert_eq!(merged.repeated(), one.repeated());
    }

    #[test]
    fn the_level_is_never_perfect_with_a_failure_an_unverified_test_or_a_problem(
        events in events(),
        policy in policy(),
        dialect in prop::sample::select(vec![Dialect::Shadow, Dialect::Gap, Dialect::Both]),
    ) {
        let tally = tally_of(policy, &events);
        let default = tally_of(StatusPolicy::default(), &events);
        let unverified = events.iter().any(|e| match e {
            Event::Problem(_) => true,
            Event::Test(t) => !matches!(t.status, Status::Passed | Status::Xpassed),
        });
        let mut opts = ReportOptions::default();
        opts.dialect = dialect;
        for (t, must_fail) in [(&tally, tally.counts.failed > 0), (&default, unverified)] {
            let level = t.score().level();
            let report = build_report(t, None, &opts);
            if must_fail {
                prop_assert_ne!(level, Level::Perfect);
                prop_assert_ne!(report.report.level, Level::Perfect);
                prop_assert!(!render_summary(&report).contains("perfect"));
            }
            prop_assert_eq!(report.report.level, level);
        }
        // Problems always count, whatever the policy.
        if events.iter().any(|e| matches!(e, Event::Problem(_))) {
            prop_assert_ne!(tally.score().level(), Level::Perfect);
        }
    }

    #[test]
    fn a_borrowed_test_counts_exactly_as_an_owned_one(
        events in events(),
        policy in policy(),
        parents in prop::collection::vec(any::<bool>(), 60),
        listed in prop::collection::vec(any::<bool>(), 60),
        with_manifest in any::<bool>(),
    ) {
        let mut events = events;
        let mut ids = Vec::new();
        for (i, e) in events.iter_mut().enumerate() {
            if let Event::Test(t) = e {
                t.parent = parents[i];
                t.parent_id = (!parents[i]).then(|| format!("{}::p", t.suite.clone().unwrap_or_default()));
                t.file = t.suite.clone();
                if listed[i] {
                    ids.push(t.id.clone());
                }
            }
        }
        let rules = Arc::new(
            CategoryRules::from_toml("[[rule]]\ncategory = \"security\"\nsuite = \"s1\"\n").unwrap(),
        );
        let manifest = Arc::new(Manifest::new(ids));
        let new_tally = || {
            let mut t = if with_manifest {
                Tally::with_manifest(policy, manifest.clone())
            } else {
                Tally::new(policy)
            };
            t.set_rules(Some(rules.clone()));
            t.collect_names(true);
            t
        };
        let (mut owned, mut borrowed) = (new_tally(), new_tally());
        for e in &events {
            match e {
                Event::Test(t) => {
                    owned.test_finished(t.clone());
                    borrowed.test_finished_ref(t.borrowed());
                }
                Event::Problem(p) => {
                    owned.problem(p.clone());
                    borrowed.problem(p.clone());
                }
            }
        }
        for t in [&mut owned, &mut borrowed] {
            t.finish();
            t.apply_manifest();
        }
        prop_assert_eq!(owned.failures.to_vec(), borrowed.failures.to_vec());
        prop_assert_eq!(&owned.names, &borrowed.names);
        prop_assert_eq!(&owned.unexpected, &borrowed.unexpected);
        prop_assert_eq!(&owned.missing, &borrowed.missing);
        prop_assert_eq!(&owned.flaky, &borrowed.flaky);
        prop_assert_eq!(owned.repeated(), borrowed.repeated());
        prop_assert_eq!(order_free(&mut owned), order_free(&mut borrowed));
    }

    #[test]
    fn a_canonical_run_survives_serialising_and_reading_back(
        tests in prop::collection::vec(test_case(), 0..30),
        problems in prop::collection::vec(problem(), 0..4),
        warnings in prop::collection::vec(text(), 0..3),
        source in prop::option::of(text()),
        producer in prop::option::of((text(), prop::option::of(text()))),
        parents in prop::collection::vec(any::<bool>(), 30),
    ) {
        let mut run = TestRun::new("simple");
        run.source = source;
        run.producer = producer.map(|(name, version)| {
            let mut p = Producer::new(name);
            p.version = version;
            p
        });
        run.tests = tests;
        for (t, parent) in run.tests.iter_mut().zip(parents) {
            t.parent = parent;
            if !parent {
                t.parent_id = Some(format!("{}::parent", t.suite.clone().unwrap_or_default()));
            }
            t.expected = t.message.clone();
            t.output = t.message.clone().map(|m| m.repeat(3));
            t.file = t.suite.clone();
        }
        run.problems = problems;
        run.warnings = warnings;
        let json = serde_json::to_string_pretty(&run).unwrap();
        let back: TestRun = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &run);
        let compact: TestRun = serde_json::from_slice(&serde_json::to_vec(&run).unwrap()).unwrap();
        prop_assert_eq!(compact, run);
    }

    #[test]
    fn a_gap_report_survives_serialising_and_reading_back(
        sealed in events(),
        open in prop::option::of(events()),
        policy in policy(),
        dialect in prop::sample::select(vec![Dialect::Shadow, Dialect::Gap, Dialect::Both]),
        id in prop::option::of(text()),
    ) {
        let sealed = tally_of(policy, &sealed);
        let open = open.map(|o| tally_of(policy, &o));
        let mut opts = ReportOptions::default();
        opts.dialect = dialect;
        opts.id = id;
        opts.timestamp = Some("2026-11-22T08:00:00Z".into());
        let report = build_report(&sealed, open.as_ref(), &opts);
        let json = gapscore_core::render::render_json(&report);
        let back: GapReport = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &report);
        // And it prints the same again.
        prop_assert_eq!(gapscore_core::render::render_json(&back), json);
    }
}
