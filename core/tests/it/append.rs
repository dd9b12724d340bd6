//! `Tally::can_append(_all)` and `merge` of unfinished tallies of one input read in parts
//! (the split JUnit read): the result must be the one tally that read both halves in order,
//! at every cut, with ids repeated across the halves, a failing Go parent in one half and its
//! failing child in the other, problems, warnings and a producer.

use gapscore_core::{
    EventSink, Problem, ProblemKind, Producer, Status, StatusPolicy, Tally, TestCase,
};

#[allow(clippy::large_enum_variant)] // A test list: size does not matter.
enum Ev {
    Test(TestCase),
    Problem(Problem),
    Warning(String),
    Producer(Producer),
}

fn events() -> Vec<Ev> {
    let t = |suite: &str, name: &str, status| TestCase::new(Some(suite.into()), name, status);
    let mut parent = t("pkg", "TestP", Status::Failed);
    parent.parent = true;
    let mut child = t("pkg", "TestP/c", Status::Failed);
    child.parent_id = Some(parent.id.clone());
    let mut lone = t("pkg", "TestQ", Status::Failed);
    lone.parent = true;
    vec![
        Ev::Test(t("a", "one", Status::Passed)),
        Ev::Test(parent),
        Ev::Test(lone),
        Ev::Test(t("a", "two", Status::Failed)),
        Ev::Problem(Problem::new(ProblemKind::SuiteError, "boom").with_suite("b")),
        Ev::Warning("first".into()),
        Ev::Test(t("a", "one", Status::Passed)),
        Ev::Test(child),
        Ev::Test(t("b", "three", Status::Skipped)),
        Ev::Test(t("a", "two", Status::Errored)),
        Ev::Warning("second".into()),
        Ev::Producer(Producer::new("gotestsum")),
    ]
}

fn feed(t: &mut Tally, evs: &[Ev]) {
    for e in evs {
        match e {
            Ev::Test(x) => t.test_finished(x.clone()),
            Ev::Problem(p) => t.problem(p.clone()),
            Ev::Warning(w) => t.warning(w.clone()),
            Ev::Producer(p) => t.producer(p.clone()),
        }
    }
}

/// Everything a report is made from.
fn seen(mut t: Tally) -> String {
    t.finish();
    let failures: Vec<String> = t.failures.iter().map(|f| format!("{f:?}")).collect();
    let repeated = t.repeated();
    format!(
        "{:?} {} {:?} {:?} {:?} {failures:?} {:?} {:?} {:?} {:?} {:?} {repeated:?} {:?}",
        t.counts,
        t.excluded,
        t.by_status,
        t.categories,
        t.suites,
        t.flaky,
        t.problems,
        t.warnings,
        t.producers,
        t.names,
        t.score()
    )
}

#[test]
fn two_halves_appended_are_the_tally_of_one_pass() {
    let evs = events();
    let mut one = Tally::new(StatusPolicy::default());
    one.collect_names(true);
    feed(&mut one, &evs);
    let want = seen(one);
    for cut in 0..=evs.len() {
        let (mut a, mut b) = (
            Tally::new(StatusPolicy::default()),
            Tally::new(StatusPolicy::default()),
        );
        a.collect_names(true);
        b.collect_names(true);
        feed(&mut a, &evs[..cut]);
        feed(&mut b, &evs[cut..]);
        assert!(a.can_append(&b));
        a.merge(b);
        assert_eq!(seen(a), want, "cut at {cut}");
    }
    // Not vacuous: one pass finds the repeated ids and counts the lone failing parent.
    let mut one = Tally::new(StatusPolicy::default());
    feed(&mut one, &evs);
    one.finish();
    assert_eq!(one.repeated().len(), 2);
    assert!(one.failures.iter().any(|f| f.test_name.contains("TestQ")));
}

#[test]
fn three_parts_appended_in_order_are_the_tally_of_one_pass() {
    let evs = events();
    let mut one = Tally::new(StatusPolicy::default());
    one.collect_names(true);
    feed(&mut one, &evs);
    let want = seen(one);
    let tally = |evs: &[_]| {
        let mut t = Tally::new(StatusPolicy::default());
        t.collect_names(true);
        feed(&mut t, evs);
        t
    };
    for first in 0..=evs.len() {
        for second in first..=evs.len() {
            let mut a = tally(&evs[..first]);
            let (b, c) = (tally(&evs[first..second]), tally(&evs[second..]));
            assert!(a.can_append_all(&[&b, &c]));
            a.merge(b);
            a.merge(c);
            assert_eq!(seen(a), want, "cut at {first} and {second}");
        }
    }
}

/// The suite bound holds for the parts together: two parts of 6,000 suites each may be
/// appended, a third takes the sum past `SUITE_LIMIT` (which suites are kept apart would then
/// depend on the order of arrival) and is refused.
#[test]
fn appending_parts_is_refused_when_their_suites_together_reach_the_bound() {
    let part = |from: usize| {
        let mut t = Tally::new(StatusPolicy::default());
        for i in from..from + 6_000 {
            t.test_finished(TestCase::new(Some(format!("s{i}")), "t", Status::Passed));
        }
        t
    };
    let (a, b, c) = (part(0), part(6_000), part(12_000));
    const { assert!(6_000 * 3 > gapscore_core::tally::SUITE_LIMIT) };
    assert!(a.can_append(&b));
    assert!(a.can_append_all(&[&b]));
    assert!(!a.can_append_all(&[&b, &c]));
}
