//! Regressions found by the bad-input corpus (tests/bad-input at the repository root).

use std::time::{Duration, Instant};

use gapscore_adapter_junit::JUnit;
use gapscore_adapter_sdk::{ParseOptions, parse_to_run};

fn read(xml: &str) -> gapscore_core::TestRun {
    parse_to_run(&JUnit::new(), xml.as_bytes(), &ParseOptions::default()).unwrap()
}

#[test]
fn an_empty_testsuite_element_leaves_the_enclosing_suite_open() {
    // `<testsuite/>` used to close its parent: the next testcase lost its suite, and the empty
    // suite's declared count went unchecked.
    let run = read(
        r#"<testsuites><testsuite name="a"><testsuite name="empty" tests="3"/><testcase name="t"/></testsuite></testsuites>"#,
    );
    assert_eq!(run.tests.len(), 1);
    assert_eq!(run.tests[0].suite.as_deref(), Some("a"));
    assert_eq!(run.tests[0].id, "a::t");
    // Issue 18: the 3 declared tests it does not hold are missing, each counted as failed.
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
    assert_eq!(run.problems.len(), 1);
    assert_eq!(run.problems[0].kind.as_str(), "missing-tests");
    assert_eq!(run.problems[0].weight(), 3);
    assert_eq!(run.problems[0].suite.as_deref(), Some("empty"));
}

#[test]
fn deep_nesting_reads_in_linear_time() {
    // The suite path was rebuilt from every level on each push and pop: 20,000 nested suites
    // took 50 s. 100,000 now take well under a second in release builds.
    let n = 100_000;
    let xml = format!(
        "<testsuites>{}<testcase name=\"t\"/>{}</testsuites>",
        "<testsuite name=\"s\">".repeat(n),
        "</testsuite>".repeat(n)
    );
    let start = Instant::now();
    let run = read(&xml);
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(run.tests.len(), 1);
    let suite = run.tests[0].suite.as_deref().unwrap();
    assert_eq!(suite.len(), n * 4 - 3, "`s > s > ... > s`");
    // Leaving every level restores the path: a testcase after them has none.
    let run = read(&format!(
        "<testsuites>{}{}<testcase name=\"after\"/></testsuites>",
        "<testsuite name=\"s\">".repeat(1000),
        "</testsuite>".repeat(1000)
    ));
    assert_eq!(run.tests[0].suite, None);
}

#[test]
fn messages_never_carry_raw_nul_bytes_or_quick_xml_ranges() {
    let utf16 = "<testsuites/>"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect::<Vec<u8>>();
    let err = parse_to_run(&JUnit::new(), &utf16, &ParseOptions::default())
        .unwrap_err()
        .to_string();
    assert!(!err.contains('\0'), "{err:?}");
    assert!(err.contains("UTF-16 without a byte-order mark"), "{err}");

    let lol =
        "<!DOCTYPE t [<!ENTITY lol \"lol\">]><testsuites><testsuite name=\"&lol;\"/></testsuites>";
    let err = parse_to_run(&JUnit::new(), lol.as_bytes(), &ParseOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("undefined entity `&lol;`"), "{err}");
    assert!(!err.contains(".."), "{err}");

    let err = parse_to_run(
        &JUnit::new(),
        b"<?xml version=\"1.0\"?>\n  \n",
        &ParseOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        "3:1: end of file before any <testsuites> or <testsuite> element"
    );
}

/// Issue 31: pytest records where a skip was decided (`path:line: reason` as the skip's text):
/// it becomes the test's `decided_at`; an xfail records none. A real pytest 9.2.0 run whose
/// skip is raised in a helper module outside the test directory.
#[test]
fn a_pytest_skip_records_where_it_was_decided() {
    let xml = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/issue31/pytest-skip-in-helper.xml"
    ))
    .unwrap();
    let run = read(&xml);
    let by_name = |n: &str| run.tests.iter().find(|t| t.name == n).unwrap();
    assert_eq!(
        by_name("test_feature").decided_at.as_deref(),
        Some("/tmp/i31j/py/src/helper.py:5")
    );
    assert_eq!(by_name("test_known_bug").decided_at, None);
    assert!(
        run.tests
            .iter()
            .all(|t| t.name == "test_feature" || t.decided_at.is_none())
    );
}

/// Issue 31: per record the worst signal wins. A `failure="…"` attribute without a child, a
/// failing `status`, and a not-run `status="ignored"`.
#[test]
fn a_records_worst_signal_wins() {
    let run = read(
        r#"<testsuites><testsuite name="s">
        <testcase classname="c" name="attr" failure="boom"/>
        <testcase classname="c" name="status" status="failed"/>
        <testcase classname="c" name="ignored" status="ignored"/>
        <testcase classname="c" name="ok" status="run"/>
        </testsuite></testsuites>"#,
    );
    let status: Vec<_> = run
        .tests
        .iter()
        .map(|t| (t.name.as_str(), t.status.as_str()))
        .collect();
    assert_eq!(
        status,
        [
            ("attr", "failed"),
            ("status", "failed"),
            ("ignored", "skipped"),
            ("ok", "passed")
        ]
    );
    assert_eq!(run.tests[0].message.as_deref(), Some("boom"));
    assert!(run.problems.is_empty(), "{:?}", run.problems);
}

/// Issue 31: a nested suite whose declaration was judged settles its counts for the outer
/// suite and the root, so one lost test is counted once, not at every level.
#[test]
fn a_judged_count_is_not_judged_again_above() {
    let run = read(
        r#"<testsuites tests="3" failures="1"><testsuite name="outer" tests="3" failures="1">
        <testsuite name="inner" tests="3" failures="1"><testcase classname="c" name="a"/>
        <testcase classname="c" name="b"/></testsuite></testsuite></testsuites>"#,
    );
    let kinds: Vec<_> = run
        .problems
        .iter()
        .map(|p| (p.kind.as_str(), p.weight()))
        .collect();
    assert_eq!(kinds, [("missing-tests", 1)]);
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
}
