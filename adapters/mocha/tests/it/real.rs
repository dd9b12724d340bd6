//! The Mocha adapter against real `mocha --reporter json` output (tests/fixtures/real; the
//! commands are in the README there): each run snapshotted, and the rules that matter pinned.

use gapscore_adapter_mocha::Mocha;
use gapscore_adapter_sdk::{Adapter, ParseOptions, ProblemKind, Status, TestRun, parse_to_run};

fn read(case: &str) -> TestRun {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/real")
        .join(format!("{case}.json"));
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        Mocha::new().detect(&bytes, None),
        96,
        "{case}: not detected"
    );
    let run = parse_to_run(&Mocha::new(), &bytes, &ParseOptions::default()).unwrap();
    insta::assert_json_snapshot!(case.to_owned(), run);
    run
}

fn status(run: &TestRun, full: &str) -> Status {
    let t = run
        .tests
        .iter()
        .find(|t| t.id.ends_with(full))
        .unwrap_or_else(|| panic!("no test {full}"));
    t.status
}

#[test]
fn basic_statuses_messages_and_retries() {
    let run = read("basic");
    assert_eq!(run.producer.as_ref().unwrap().name, "mocha");
    assert_eq!(run.tests.len(), 10);
    assert_eq!(status(&run, "calc::adds"), Status::Passed);
    assert_eq!(status(&run, "calc::subtracts"), Status::Failed);
    assert_eq!(status(&run, "calc::divides (skipped)"), Status::Skipped);
    assert_eq!(
        status(&run, "calc::multiplies (pending, no function)"),
        Status::Skipped
    );
    assert_eq!(
        status(&run, "calc nested deeper::works at depth"),
        Status::Passed
    );
    let sub = run
        .tests
        .iter()
        .find(|t| t.id.ends_with("calc::subtracts"))
        .unwrap();
    assert_eq!(
        (sub.expected.as_deref(), sub.actual.as_deref()),
        (Some("3"), Some("2"))
    );
    assert!(
        sub.id
            .starts_with("/tmp/mocha-scratch/basic/test/calc.spec.js > calc::"),
        "{}",
        sub.id
    );
    // Passed on its second try: one failed attempt before the pass (flaky, never clean).
    let flaky = run
        .tests
        .iter()
        .find(|t| t.name == "passes on the second try")
        .unwrap();
    assert_eq!((flaky.status, flaky.attempts.len()), (Status::Passed, 1));
    assert_eq!(flaky.attempts[0].status, Status::Failed);
    assert!(run.problems.is_empty(), "{:?}", run.problems);
}

#[test]
fn failing_hooks_are_suite_errors_not_tests() {
    let run = read("hooks");
    assert_eq!(run.tests.len(), 3);
    assert!(run.tests.iter().all(|t| t.status == Status::Passed));
    let errors: Vec<_> = run
        .problems
        .iter()
        .filter(|p| p.kind == ProblemKind::SuiteError)
        .map(|p| p.suite.clone().unwrap_or_default())
        .collect();
    assert_eq!(errors.len(), 3, "{:?}", run.problems);
    assert!(errors[0].ends_with("hooks.spec.js > db"), "{errors:?}");
    assert!(errors[1].ends_with("hooks.spec.js > cache"), "{errors:?}");
    // `stats.failures` counts the hooks: no disagreement beyond them.
    assert_eq!(run.problems.len(), 3, "{:?}", run.problems);
}

#[test]
fn bail_and_uncaught_read_what_ran() {
    let run = read("bail");
    assert_eq!(run.tests.len(), 2);
    assert_eq!(status(&run, "bail::second fails"), Status::Failed);
    assert!(run.problems.is_empty(), "{:?}", run.problems);
    let run = read("uncaught");
    assert_eq!(status(&run, "uncaught::throws later"), Status::Failed);
    assert_eq!(status(&run, "uncaught::after the throw"), Status::Passed);
}
