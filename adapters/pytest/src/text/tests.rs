//! The bounded window (`named`) against holding every test: the same tests and problems on
//! every committed console fixture with tiny limits, and contradictions past the window read no
//! better than before.

use std::path::Path;

use gapscore_adapter_sdk::{ProblemKind, RunCollector, Status, TestRun};

use super::named::Named;

fn read(input: &[u8], named: Named) -> TestRun {
    let mut c = RunCollector::new("pytest-text", None);
    let mut r = input;
    super::read_with(&mut r, &mut c, named).expect("reads");
    c.into_run()
}

/// Tests sorted by id, each without what an emitted test may legitimately lose (its `-rs`
/// place, and with `keep_messages` false its summary message), and the problems.
fn comparable(mut run: TestRun, keep_messages: bool) -> (Vec<String>, Vec<String>) {
    run.tests.sort_by(|a, b| a.id.cmp(&b.id));
    let tests = run
        .tests
        .into_iter()
        .map(|mut t| {
            t.decided_at = None;
            if !keep_messages {
                t.message = None;
            }
            format!("{t:?}")
        })
        .collect();
    let problems = run
        .problems
        .iter()
        .map(|p| format!("{:?} {} {}", p.kind, p.weight(), p.detail))
        .collect();
    (tests, problems)
}

fn console_fixtures() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut found = Vec::new();
    for dir in ["valid", "issue18", "issue31"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "txt") {
                found.push(p);
            }
        }
    }
    for e in std::fs::read_dir(root.join("real")).unwrap() {
        let p = e.unwrap().path().join("console.txt");
        if p.exists() {
            found.push(p);
        }
    }
    assert!(found.len() >= 20, "fixtures not found: {found:?}");
    found
}

#[test]
fn a_window_of_two_reads_every_fixture_as_holding_every_test() {
    for path in console_fixtures() {
        let input = std::fs::read(&path).unwrap();
        let whole = read(&input, Named::with_limits(usize::MAX, usize::MAX));
        // Failures kept whole: every message too.
        let kept = read(&input, Named::with_limits(2, usize::MAX));
        assert_eq!(
            comparable(kept, true),
            comparable(whole.clone(), true),
            "{}",
            path.display()
        );
        // Nothing kept: every test emitted as it leaves the window, the summary's messages
        // lost, every status and problem the same.
        let emitted = read(&input, Named::with_limits(2, 0));
        assert_eq!(
            comparable(emitted, false),
            comparable(whole, false),
            "{}",
            path.display()
        );
    }
}

/// A `-v -rA` output of `n` passing tests, with `extra` lines in the short summary.
fn verbose_run(n: usize, extra: &str, counts: &str) -> String {
    let mut s = String::from(
        "============================= test session starts ==============================\n\
         platform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.7.0\n",
    );
    for i in 0..n {
        s.push_str(&format!("t.py::test_{i} PASSED [ 50%]\n"));
    }
    s.push_str(
        "=========================== short test summary info ============================\n",
    );
    s.push_str(extra);
    s.push_str(&format!("============ {counts} in 0.50s =============\n"));
    s
}

fn failed_weight(run: &TestRun) -> u64 {
    let tests = run
        .tests
        .iter()
        .filter(|t| matches!(t.status, Status::Failed | Status::Errored))
        .count() as u64;
    tests + run.problems.iter().map(|p| p.weight()).sum::<u64>()
}

#[test]
fn a_summary_failure_for_an_emitted_pass_counts_as_failed_among_the_tests() {
    // The verbose line edited to PASSED, the summary and the counts line left: before, the test
    // read failed. Past the window it reads passed, with a summary-line problem counting it
    // among the tests read: the same failures of the same number of tests.
    let input = verbose_run(
        10,
        "FAILED t.py::test_0 - assert 1 == 2\n",
        "1 failed, 9 passed",
    );
    let whole = read(input.as_bytes(), Named::default());
    let windowed = read(input.as_bytes(), Named::with_limits(2, 0));
    assert_eq!(whole.tests.len(), 10);
    assert_eq!(windowed.tests.len(), 10);
    assert_eq!(failed_weight(&whole), 1);
    assert_eq!(failed_weight(&windowed), 1);
    let kinds: Vec<_> = windowed.problems.iter().map(|p| p.kind).collect();
    assert_eq!(kinds, [ProblemKind::SummaryLine], "{:?}", windowed.problems);
    assert!(windowed.problems[0].kind.counts_within_read());

    // The counts line edited too: the summary line alone still counts the failure.
    let input = verbose_run(10, "FAILED t.py::test_0 - assert 1 == 2\n", "10 passed");
    let windowed = read(input.as_bytes(), Named::with_limits(2, 0));
    assert_eq!(failed_weight(&windowed), 1, "{:?}", windowed.problems);
    assert_eq!(windowed.tests.len(), 10);
}

#[test]
fn a_summary_pass_for_an_emitted_pass_is_no_new_test() {
    let input = verbose_run(
        10,
        "PASSED t.py::test_0\nPASSED t.py::test_9\n",
        "10 passed",
    );
    let windowed = read(input.as_bytes(), Named::with_limits(2, 0));
    assert_eq!(windowed.tests.len(), 10);
    assert!(windowed.problems.is_empty(), "{:?}", windowed.problems);
}

#[test]
fn a_teardown_error_for_an_emitted_failure_is_counted_as_pytest_counts_it() {
    // test_0 failed, then errored at teardown: pytest counts it as failed and as error.
    let mut input = verbose_run(10, "", "x").replace(
        "t.py::test_0 PASSED [ 50%]\n",
        "t.py::test_0 FAILED [ 50%]\n",
    );
    input = input.replace(
        "============ x in 0.50s =============\n",
        "FAILED t.py::test_0 - assert 1 == 2\nERROR t.py::test_0 - teardown\n\
         ============ 1 failed, 9 passed, 1 error in 0.50s =============\n",
    );
    let whole = read(input.as_bytes(), Named::default());
    let windowed = read(input.as_bytes(), Named::with_limits(2, 0));
    assert!(whole.problems.is_empty(), "{:?}", whole.problems);
    assert!(windowed.problems.is_empty(), "{:?}", windowed.problems);
    assert_eq!(failed_weight(&windowed), 1);
    assert_eq!(windowed.tests.len(), 10);
    // Kept whole (the budget allows), it gets the summary's message and the error.
    let kept = read(input.as_bytes(), Named::with_limits(2, usize::MAX));
    let t = kept.tests.iter().find(|t| t.id == "t.py::test_0").unwrap();
    assert_eq!(t.status, Status::Errored);
    assert_eq!(t.message.as_deref(), Some("teardown"));
}

#[test]
fn no_skip_is_placed_when_an_emitted_skip_may_be_the_one() {
    let mut input = String::from("=== test session starts ===\n");
    input.push_str("t.py::test_a SKIPPED (needs net) [ 10%]\n");
    for i in 0..5 {
        input.push_str(&format!("t.py::test_{i} PASSED [ 50%]\n"));
    }
    input.push_str("t.py::test_b SKIPPED (needs net) [ 90%]\n");
    input.push_str("=== short test summary info ===\nSKIPPED [1] t.py:3: needs net\n");
    input.push_str("=== 5 passed, 2 skipped in 0.1s ===\n");
    let windowed = read(input.as_bytes(), Named::with_limits(2, 0));
    assert!(windowed.tests.iter().all(|t| t.decided_at.is_none()));
}
