//! The tally's unit tests.

use super::*;
use crate::policy::{FlakyPolicy, SkippedPolicy, XfailPolicy};
use gapscore_model::Attempt;
use gapscore_model::ProblemKind;

fn t(name: &str, status: Status) -> TestCase {
    TestCase::new(None, name, status)
}

#[test]
fn default_policy_counts_everything_unverified_as_failed() {
    let mut tally = Tally::new(StatusPolicy::default());
    for (n, s) in [
        ("a", Status::Passed),
        ("b", Status::Xpassed),
        ("c", Status::Failed),
        ("d", Status::Errored),
        ("e", Status::Skipped),
        ("f", Status::Xfailed),
        ("g", Status::Todo),
    ] {
        tally.test_finished(t(n, s));
    }
    tally.finish();
    assert_eq!(
        tally.counts,
        SuiteCounts {
            total: 7,
            passed: 2,
            failed: 5
        }
    );
    assert_eq!(tally.failures.len(), 5);
    assert_eq!(
        tally.failures.to_vec()[2].message.as_deref(),
        Some("sealed test not verified: skipped")
    );
}

#[test]
fn skipped_exclude_and_xfail_pass() {
    let policy = StatusPolicy::new(SkippedPolicy::Exclude, XfailPolicy::Pass, FlakyPolicy::Pass);
    let mut tally = Tally::new(policy);
    tally.test_finished(t("a", Status::Skipped));
    tally.test_finished(t("b", Status::Todo));
    tally.test_finished(t("c", Status::Xfailed));
    tally.test_finished(t("d", Status::Passed));
    assert_eq!(tally.counts.total, 2);
    assert_eq!(tally.counts.failed, 0);
    assert_eq!(tally.excluded, 2);
}

#[test]
fn flaky_passes_by_default_and_fails_on_request() {
    let mut flaky = t("f", Status::Passed);
    flaky.attempts.push(Attempt::new(Status::Failed));
    let mut tally = Tally::new(StatusPolicy::default());
    tally.test_finished(flaky.clone());
    assert_eq!(tally.counts.failed, 0);
    assert_eq!(tally.flaky, vec!["f".to_owned()]);

    let mut strict = Tally::new(StatusPolicy::new(
        SkippedPolicy::Fail,
        XfailPolicy::Fail,
        FlakyPolicy::Fail,
    ));
    strict.test_finished(flaky);
    assert_eq!(strict.counts.failed, 1);
    assert!(
        strict.failures.to_vec()[0]
            .message
            .as_deref()
            .unwrap()
            .starts_with("flaky")
    );
}

#[test]
fn a_manifest_fails_missing_tests_and_ignores_injected_ones() {
    let m = Arc::new(Manifest::new(
        ["a", "b", "c"].iter().map(|s| (*s).to_owned()),
    ));
    let mut first = Tally::with_manifest(StatusPolicy::default(), m.clone());
    first.test_finished(t("a", Status::Passed));
    first.test_finished(t("injected", Status::Passed));
    let mut second = Tally::with_manifest(StatusPolicy::default(), m.clone());
    second.test_finished(t("b", Status::Failed));
    first.finish();
    second.finish();
    let mut all = Tally::with_manifest(StatusPolicy::default(), m);
    all.merge(first);
    all.merge(second);
    all.finish();
    all.apply_manifest();
    assert_eq!(all.missing, ["c"]);
    assert_eq!(all.unexpected, ["injected"]);
    // a passed, b failed, c did not run: 2 of 3, the injected pass not counted.
    assert_eq!((all.counts.failed, all.counts.total), (2, 3));
    let last = all.failures.to_vec().last().unwrap().clone();
    assert_eq!(last.test_name, "c");
    assert_eq!(last.message.as_deref(), Some("sealed test did not run"));
    assert_eq!(all.suites[MISSING_SUITE].failed, 1);
}

/// A failure under a name the record does not list (a file-level `not ok`, a failing
/// hook) is counted, through either finishing path; a pass under such a name is not (found
/// by an attack on the build: an after-hook failure read as a perfect score).
#[test]
fn a_manifest_counts_failures_it_does_not_list() {
    let m = Arc::new(Manifest::new(["a", "b"].iter().map(|s| (*s).to_owned())));
    let mut tally = Tally::with_manifest(StatusPolicy::default(), m);
    tally.test_finished(t("a", Status::Passed));
    tally.test_finished(t("b", Status::Passed));
    tally.test_finished(t("/tmp/ws/a.test.js", Status::Failed));
    tally.test_finished(t("after all hook", Status::Errored));
    tally.test_finished(t("injected", Status::Passed));
    tally.finish();
    tally.apply_manifest();
    assert_eq!(tally.unexpected, ["injected"]);
    assert_eq!(
        tally.unexpected_failed,
        ["/tmp/ws/a.test.js", "after all hook"]
    );
    assert_eq!((tally.counts.failed, tally.counts.total), (2, 4));
    let names: Vec<String> = tally
        .failures
        .to_vec()
        .into_iter()
        .map(|f| f.test_name)
        .collect();
    assert_eq!(names, ["/tmp/ws/a.test.js", "after all hook"]);
}

/// Twins: four passing results registered under each sealed test's id (issue 32) must not
/// dilute the score. Five expected tests, three failing, each with four passing twins, across
/// two inputs merged: the surplus passes are taken back, one `surplus-results` problem counts,
/// and the failures stand (3 of 5, plus the problem: 4 of 6).
#[test]
fn passing_twins_beyond_the_manifest_are_not_counted() {
    let ids = ["a", "b", "c", "d", "e"];
    let m = Arc::new(Manifest::new(ids.iter().map(|s| (*s).to_owned())));
    let mut first = Tally::with_manifest(StatusPolicy::default(), m.clone());
    let mut second = Tally::with_manifest(StatusPolicy::default(), m.clone());
    for (i, id) in ids.iter().enumerate() {
        let status = if i < 3 {
            Status::Failed
        } else {
            Status::Passed
        };
        first.test_finished(t(id, status));
        for _ in 0..2 {
            first.test_finished_ref(t(id, Status::Passed).borrowed());
            second.test_finished(t(id, Status::Passed));
        }
    }
    first.finish();
    second.finish();
    let mut all = Tally::with_manifest(StatusPolicy::default(), m);
    all.merge(first);
    all.merge(second);
    all.finish();
    all.apply_manifest();
    assert_eq!((all.counts.failed, all.counts.total), (4, 6));
    assert_eq!(all.counts.passed, 2);
    let suite_total: u64 = all.suites.values().map(|c| c.total).sum();
    assert_eq!(suite_total, all.counts.total, "per-suite counts add up");
    assert_eq!(all.problems.len(), 1);
    assert_eq!(all.problems[0].kind, ProblemKind::SurplusResults);
    assert!(
        all.problems[0].detail.contains("20 passing results"),
        "{}",
        all.problems[0].detail
    );
}

#[test]
fn duplicates_each_count() {
    let mut tally = Tally::new(StatusPolicy::default());
    tally.test_finished(t("x", Status::Failed));
    tally.test_finished(t("x", Status::Passed));
    assert_eq!(tally.counts.total, 2);
    assert_eq!(tally.counts.failed, 1);
    let repeated = tally.repeated();
    assert_eq!(repeated, vec![crate::id_fingerprint("x")]);
    let mut finder = crate::IdFinder::new(&repeated);
    for id in ["x", "y", "x"] {
        finder.see(id);
    }
    assert_eq!(finder.into_repeated(), vec![("x".to_owned(), 2)]);
}

#[test]
fn merging_per_file_tallies_equals_one_tally() {
    let tests = [
        ("a", Status::Passed),
        ("b", Status::Failed),
        ("c", Status::Skipped),
        ("a", Status::Failed),
    ];
    let mut one = Tally::new(StatusPolicy::default());
    for (n, s) in tests {
        one.test_finished(t(n, s));
    }
    one.finish();
    let mut first = Tally::new(StatusPolicy::default());
    let mut second = Tally::new(StatusPolicy::default());
    second.set_source(Some("second.json".into()));
    for (i, (n, s)) in tests.iter().enumerate() {
        if i < 2 { &mut first } else { &mut second }.test_finished(t(n, *s));
    }
    first.finish();
    second.finish();
    first.merge(second);
    assert_eq!(first.counts, one.counts);
    assert_eq!(first.failures.to_vec(), one.failures.to_vec());
    assert_eq!(first.by_status, one.by_status);
    // A repeat across the two files is found after the merge, as in one tally.
    assert_eq!(first.repeated(), one.repeated());
    assert_eq!(first.repeated(), [crate::id_fingerprint("a")]);
}

#[test]
fn problems_add_failure_entries() {
    let mut tally = Tally::new(StatusPolicy::default());
    tally.set_source(Some("go.jsonl".into()));
    tally.test_finished(t("ok", Status::Passed));
    tally.problem(Problem::new(ProblemKind::BuildFailure, "undefined: x").with_suite("pkg/x"));
    assert_eq!(tally.score(), Score::new(1, 2));
    let f = &tally.failures.to_vec()[0];
    assert_eq!(f.test_name, "[build-failure] pkg/x");
    assert_eq!(
        f.message.as_deref(),
        Some("suite failed to run: build failure in pkg/x")
    );
    tally.problem(Problem::new(ProblemKind::Truncated, ""));
    let all = tally.failures.to_vec();
    assert_eq!(all[1].test_name, "[truncated] go.jsonl");
    assert_eq!(all[1].actual, None);
}

#[test]
fn a_problem_standing_for_many_tests_counts_each_as_failed() {
    // A TAP plan of 50 with 11 results: the 39 missing tests are 39 failures, not one.
    let mut tally = Tally::new(StatusPolicy::default());
    for i in 0..11 {
        tally.test_finished(t(&format!("t{i}"), Status::Passed));
    }
    tally.problem(Problem::new(ProblemKind::MissingTests, "plan 1..50, 11 results").with_count(39));
    tally.finish();
    assert_eq!(tally.score(), Score::new(39, 50));
    let entries = tally.failures.to_vec();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].test_name, "[missing-tests] run (39 tests)");
    let run = &tally.suites["run"];
    assert_eq!((run.total, run.failed), (50, 39));
}

#[test]
fn parents_count_only_when_no_child_carries_the_failure() {
    let mut tally = Tally::new(StatusPolicy::default());
    let mut child = TestCase::new(Some("p".into()), "T/a", Status::Failed);
    child.parent_id = Some("p::T".into());
    let mut parent = TestCase::new(Some("p".into()), "T", Status::Failed);
    parent.parent = true;
    tally.test_finished(child);
    tally.test_finished(parent);
    // A parent failing after passing children (cleanup failure) is still counted.
    let mut child2 = TestCase::new(Some("p".into()), "U/a", Status::Passed);
    child2.parent_id = Some("p::U".into());
    let mut parent2 = TestCase::new(Some("p".into()), "U", Status::Failed);
    parent2.parent = true;
    let mut parent3 = TestCase::new(Some("p".into()), "V", Status::Passed);
    parent3.parent = true;
    tally.test_finished(child2);
    tally.test_finished(parent2);
    tally.test_finished(parent3);
    tally.finish();
    assert_eq!(
        tally.counts,
        SuiteCounts {
            total: 3,
            passed: 1,
            failed: 2
        }
    );
    assert_eq!(tally.failures.to_vec()[1].test_name, "p::U");
}

#[test]
fn a_declared_failure_among_passes_turns_passes_into_failures() {
    // A suite edited to all-pass that still declares failures="3": 10 tests, 3 failed,
    // whichever comes first.
    for problem_first in [false, true] {
        let mut tally = Tally::new(StatusPolicy::default());
        let p = Problem::new(ProblemKind::DeclaredCounts, "failures=3")
            .with_suite("s")
            .with_count(3);
        if problem_first {
            tally.problem(p.clone());
        }
        for i in 0..10 {
            tally.test_finished(TestCase::new(
                Some("s".into()),
                format!("t{i}"),
                Status::Passed,
            ));
        }
        if !problem_first {
            tally.problem(p);
        }
        tally.finish();
        tally.apply_manifest();
        assert_eq!(tally.score(), Score::new(3, 10));
        let s = &tally.suites["s"];
        assert_eq!((s.total, s.passed, s.failed), (10, 7, 3));
    }
    // More declared than there are passes: the rest are added.
    let mut tally = Tally::new(StatusPolicy::default());
    tally.test_finished(t("a", Status::Passed));
    tally.problem(Problem::new(ProblemKind::SummaryLine, "# fail 3").with_count(3));
    tally.finish();
    tally.apply_manifest();
    assert_eq!(tally.score(), Score::new(3, 3));
}

#[test]
fn a_lenient_policy_is_refused_for_skips_outside_the_sealed_directory() {
    let policy = StatusPolicy::new(SkippedPolicy::Exclude, XfailPolicy::Pass, FlakyPolicy::Pass);
    let mut tally = Tally::new(policy);
    tally.set_source(Some("junit.xml".into()));
    tally.set_skip_scope(Arc::new(SkipScope::new(
        vec!["tests/sealed".into()],
        "/nonexistent/repo".into(),
        false,
    )));
    let mut inside = t("inside", Status::Skipped);
    inside.decided_at = Some("tests/sealed/test_a.py:3".into());
    let mut outside = t("outside", Status::Skipped);
    outside.decided_at = Some("src/app.py:9".into());
    let unlocated = t("unlocated", Status::Xfailed);
    tally.test_finished(inside);
    tally.test_finished_ref(outside.borrowed());
    tally.test_finished(unlocated);
    tally.test_finished(t("ok", Status::Passed));
    tally.finish();
    assert_eq!(tally.excluded, 1);
    assert_eq!(tally.score(), Score::new(2, 3));
    let entries = tally.failures.to_vec();
    assert!(
        entries[0]
            .actual
            .as_deref()
            .unwrap()
            .contains("src/app.py:9, outside the sealed directory")
    );
    let w = tally.warnings.messages();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].0, gapscore_model::Code::LenientPolicyRefused);
    assert!(
        w[0].1
            .starts_with("junit.xml: 2 skipped or xfailed test(s) counted as failed"),
        "{}",
        w[0].1
    );
}

#[test]
fn the_listing_holds_every_test_not_failed_by_either_path_and_failures_keep_their_place() {
    let policy = StatusPolicy::new(SkippedPolicy::Exclude, XfailPolicy::Fail, FlakyPolicy::Pass);
    let mut owned = Tally::new(policy);
    let mut borrowed = Tally::new(policy);
    owned.list_tests(None);
    borrowed.list_tests(None);
    let mut tests = vec![
        t("a", Status::Passed),
        t("b", Status::Failed),
        t("c", Status::Skipped),
        t("d", Status::Xfailed),
    ];
    for (i, test) in tests.iter_mut().enumerate() {
        test.suite = Some("s".to_owned());
        test.file = Some(format!("t/{i}.py"));
        test.line = Some(u32::try_from(i).unwrap_or(0) + 10);
        test.duration = Some(0.5);
    }
    for test in &tests {
        owned.test_finished(test.clone());
        borrowed.test_finished_ref(test.borrowed());
    }
    for tally in [&mut owned, &mut borrowed] {
        tally.finish();
        let listed: Vec<ListedTest> = tally
            .listing
            .as_ref()
            .map_or_else(Vec::new, |l| l.iter().collect());
        assert_eq!(
            listed,
            vec![
                ListedTest::of(&tests[0].borrowed(), false),
                ListedTest::of(&tests[2].borrowed(), true),
            ]
        );
        assert_eq!(listed[1].name, "s::c");
        assert_eq!(listed[1].file.as_deref(), Some("t/2.py"));
        // The failures are the failure entries, with their file and line.
        let failures = tally.failures.to_vec();
        assert_eq!(failures.len(), 2);
        assert_eq!(failures[0].file.as_deref(), Some("t/1.py"));
        assert_eq!(failures[1].line, Some(13));
    }
    // Off by default: no listing, nothing kept.
    let mut plain = Tally::new(policy);
    plain.test_finished(t("a", Status::Passed));
    assert!(plain.listing.is_none());
}

/// A pass listed under another id (pytest's JUnit `sealed.test_calc::test_add` for the listed
/// `sealed/test_calc.py::test_add`) is counted once through either finishing path: its status
/// (what a runner's console summary is checked against) and its count alike (found by an attack
/// on the build: an honest run read as 100% advisory).
#[test]
fn a_pass_listed_under_another_id_is_counted_once_by_either_path() {
    let m = Arc::new(Manifest::new(
        [
            "sealed/test_calc.py::test_add",
            "sealed/test_calc.py::test_sub",
        ]
        .iter()
        .map(|s| (*s).to_owned()),
    ));
    let mut owned = Tally::with_manifest(StatusPolicy::default(), m.clone());
    let mut borrowed = Tally::with_manifest(StatusPolicy::default(), m);
    let tests = [
        t("sealed.test_calc::test_add", Status::Passed),
        t("sealed.test_calc::test_sub", Status::Failed),
    ];
    for test in &tests {
        owned.test_finished(test.clone());
        borrowed.test_finished_ref(test.borrowed());
    }
    for tally in [&mut owned, &mut borrowed] {
        tally.finish();
        tally.apply_manifest();
        assert_eq!(tally.by_status.get(Status::Passed), 1);
        assert_eq!(tally.by_status.get(Status::Failed), 1);
        assert_eq!((tally.counts.passed, tally.counts.total), (1, 2));
        assert!(tally.missing.is_empty() && tally.unexpected.is_empty());
        assert!(tally.repeated().is_empty());
    }
}
