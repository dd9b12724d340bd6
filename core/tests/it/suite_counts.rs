//! Per-suite counts: the tally keeps a few suites pending before its map (tests of a few
//! classes in turn cost no lookup); what it reports must be what one pending suite gave,
//! below and past `SUITE_LIMIT`, where which suites are kept apart depends on their order.

use std::collections::BTreeMap;

use gapscore_core::tally::{OTHER_SUITES, SUITE_LIMIT, SuiteCounts};
use gapscore_core::{EventSink, Status, StatusPolicy, Tally, TestCase};

/// The counts as the tally made them with one pending suite, flushed at each change.
fn one_pending(suites: &[(String, bool)]) -> (BTreeMap<String, SuiteCounts>, u64) {
    let (mut map, mut merged) = (BTreeMap::<String, SuiteCounts>::new(), 0u64);
    let mut add = |map: &mut BTreeMap<String, SuiteCounts>, key: &str, c: SuiteCounts| {
        let key = if map.len() >= SUITE_LIMIT && !map.contains_key(key) {
            merged += u64::from(key != OTHER_SUITES);
            OTHER_SUITES
        } else {
            key
        };
        let m = map.entry(key.to_owned()).or_default();
        m.total += c.total;
        m.passed += c.passed;
        m.failed += c.failed;
    };
    let mut pending: Option<(String, SuiteCounts)> = None;
    for (suite, failed) in suites {
        if pending.as_ref().is_none_or(|(k, _)| k != suite) {
            if let Some((k, c)) = pending.take() {
                add(&mut map, &k, c);
            }
            pending = Some((suite.clone(), SuiteCounts::default()));
        }
        if let Some((_, c)) = pending.as_mut() {
            c.total += 1;
            c.failed += u64::from(*failed);
            c.passed += u64::from(!*failed);
        }
    }
    if let Some((k, c)) = pending {
        add(&mut map, &k, c);
    }
    (map, merged)
}

#[test]
fn a_few_pending_suites_count_as_one_pending_suite_did() {
    // Classes in turn (7, then 11: more than are kept pending), runs of one suite, and
    // more suites than the limit, revisited after it was reached.
    let mut order: Vec<(String, bool)> = Vec::new();
    for i in 0..700 {
        order.push((format!("mod.Class{}", i % 7), i % 5 == 0));
    }
    for i in 0..700 {
        order.push((format!("other.Class{}", i % 11), i % 3 == 0));
    }
    for s in 0..(SUITE_LIMIT + 300) {
        for j in 0..2 {
            order.push((format!("pkg{s}"), j == 1 && s % 4 == 0));
        }
        if s % 1000 == 0 {
            order.push(("mod.Class3".to_owned(), true));
        }
    }
    for i in 0..50 {
        order.push((format!("pkg{}", SUITE_LIMIT + i * 3), false));
        order.push((format!("mod.Class{}", i % 7), false));
    }
    let mut tally = Tally::new(StatusPolicy::default());
    for (i, (suite, failed)) in order.iter().enumerate() {
        let status = if *failed {
            Status::Failed
        } else {
            Status::Passed
        };
        tally.test_finished_ref(
            TestCase::new(Some(suite.clone()), format!("t{i}"), status).borrowed(),
        );
    }
    tally.finish();
    let (want, merged) = one_pending(&order);
    assert!(merged > 0, "the test must reach the limit");
    assert_eq!(tally.suites_merged_away(), merged);
    assert_eq!(tally.suites.len(), want.len());
    assert_eq!(tally.suites, want);
}
