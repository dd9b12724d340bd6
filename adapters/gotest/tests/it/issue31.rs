//! Issue 31 in the Go reader: every piece of evidence beside the records is reported and the
//! worst wins (a package's `fail` event or `FAIL` line against passing records, a test's own
//! `--- FAIL` line against its `pass` event, a run without -v whose passes have no names), and
//! the shapes the wild corpus showed misread: two tests of one name (`pkg` and `pkg_test`), a
//! setup failure told twice, rerun events without `run` actions. Fixtures in
//! `tests/fixtures/issue31/` (real go 1.19 runs, edits in its README); the rest hand-made from
//! the documented shapes, as each test says.

use std::path::Path;

use gapscore_adapter_gotest::GoTest;
use gapscore_adapter_sdk::{ParseOptions, ProblemKind, Status, TestRun, parse_to_run};

fn read(bytes: &[u8]) -> TestRun {
    parse_to_run(&GoTest::new(), bytes, &ParseOptions::default()).unwrap()
}

fn fixture(name: &str) -> TestRun {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/issue31")
        .join(name);
    read(&std::fs::read(&path).unwrap())
}

fn kinds(run: &TestRun) -> Vec<ProblemKind> {
    run.problems.iter().map(|p| p.kind).collect()
}

fn statuses(run: &TestRun) -> Vec<(&str, Status)> {
    run.tests
        .iter()
        .map(|t| (t.name.as_str(), t.status))
        .collect()
}

#[test]
fn a_package_fail_event_against_passing_records_is_an_exit_status_problem() {
    let run = fixture("json-package-fail-kept.jsonl");
    assert!(run.tests.iter().all(|t| t.status == Status::Passed));
    assert_eq!(kinds(&run), vec![ProblemKind::ExitStatus]);
    assert_eq!(
        run.problems[0].suite.as_deref(),
        Some("example.com/ex/calc")
    );
    assert!(run.problems[0].detail.contains("final `fail` event"));
}

#[test]
fn a_fail_line_in_a_passing_package_output_is_an_exit_status_problem() {
    let run = fixture("json-fail-line-kept.jsonl");
    assert_eq!(kinds(&run), vec![ProblemKind::ExitStatus]);
    assert!(run.problems[0].detail.contains("`FAIL` line"));
}

#[test]
fn a_tests_own_fail_line_overrules_its_pass_event() {
    let run = fixture("json-record-fail-line-kept.jsonl");
    let neg = run.tests.iter().find(|t| t.name == "TestAddNeg").unwrap();
    assert_eq!(neg.status, Status::Failed);
    assert!(neg.message.as_deref().unwrap().contains("`--- FAIL` line"));
    assert_eq!(kinds(&run), vec![]);
}

#[test]
fn text_whose_fail_lines_outlive_its_records_is_an_exit_status_problem() {
    let run = fixture("text-fail-line-kept.txt");
    assert!(run.tests.iter().all(|t| t.status == Status::Passed));
    assert_eq!(kinds(&run), vec![ProblemKind::ExitStatus]);
    assert_eq!(
        run.problems[0].suite.as_deref(),
        Some("example.com/ex/calc")
    );
}

#[test]
fn text_without_v_has_unattributed_results_per_package() {
    let run = fixture("text-without-v.txt");
    assert_eq!(statuses(&run), vec![("TestAddNeg", Status::Failed)]);
    assert_eq!(
        kinds(&run),
        vec![
            ProblemKind::UnattributedResults,
            ProblemKind::UnattributedResults
        ]
    );
    // `ok pkg [no tests to run]` and `?   pkg [no test files]` name nothing to name.
    let run = read(
        b"?   \texample.com/a\t[no test files]\nok  \texample.com/b\t0.002s [no tests to run]\n",
    );
    assert_eq!(kinds(&run), vec![]);
    // A benchmark-only run prints no `=== RUN` line either; its measurements say what ran.
    let run = read(
        b"goos: linux\ngoarch: amd64\npkg: ex/b\nBenchmarkX-2   \t 1000000\t      1043 ns/op\nPASS\nok  \tex/b\t1.2s\n",
    );
    assert_eq!(kinds(&run), vec![]);
}

#[test]
fn two_tests_of_one_name_are_two_tests_not_a_restart() {
    for name in ["json-twin-tests.jsonl", "text-twin-tests.txt"] {
        let run = fixture(name);
        assert_eq!(
            statuses(&run),
            vec![
                ("TestDouble", Status::Passed),
                ("TestDouble", Status::Passed)
            ],
            "{name}"
        );
        assert_eq!(kinds(&run), vec![], "{name}");
    }
}

/// go 1.24's shape of a setup failure (as go-junit-report's and other tools' fixtures record
/// it, hand-made here: go 1.19 writes text): the `build-fail` event names the test main
/// `pkg.test`, the package's final event names it as `FailedBuild`. One build failure, not
/// one for `bf.test` and one for `bf`.
#[test]
fn a_go124_setup_failure_is_one_build_failure() {
    let run = read(
        br##"{"ImportPath":"bf.test","Action":"build-output","Output":"# bf\n"}
{"ImportPath":"bf.test","Action":"build-output","Output":"b_test.go:6:7: expected ';', found is\n"}
{"ImportPath":"bf.test","Action":"build-fail"}
{"Action":"start","Package":"bf"}
{"Action":"output","Package":"bf","Output":"FAIL\tbf [setup failed]\n"}
{"Action":"fail","Package":"bf","Elapsed":0,"FailedBuild":"bf.test"}
"##,
    );
    assert_eq!(kinds(&run), vec![ProblemKind::BuildFailure]);
    let p = &run.problems[0];
    assert_eq!(p.suite.as_deref(), Some("bf"));
    assert!(p.detail.contains("expected ';'"), "{}", p.detail);
    assert!(!p.detail.contains("dependency"), "{}", p.detail);
}

/// stderr's text (`FAIL pkg [setup failed]`) merged before the package's own `start`/`fail`
/// events, whose output does not repeat the line: one build failure, and the package's fail
/// event is explained by it (hand-made from go 1.19's text and go's package events).
#[test]
fn a_setup_failure_in_text_and_events_is_one_problem() {
    let run = read(
        b"# ex/bf\nbf_test.go:6:2: cannot find module providing package ex/nosuch\n\
          FAIL\tex/bf [setup failed]\n\
          {\"Action\":\"start\",\"Package\":\"ex/bf\"}\n\
          {\"Action\":\"fail\",\"Package\":\"ex/bf\",\"Elapsed\":0}\n",
    );
    assert_eq!(kinds(&run), vec![ProblemKind::BuildFailure]);
}

/// gotestsum `--rerun-fails`: the rerun's events have no `run` action (as in its
/// `go-test-missing-run-events.out`); the parent is paired with its children by name and stays
/// a parent, so it is not one more failed leaf.
#[test]
fn rerun_events_without_run_pair_parents_by_name() {
    let run = read(
        br#"{"Action":"run","Package":"p","Test":"TestE"}
{"Action":"run","Package":"p","Test":"TestE/a"}
{"Action":"run","Package":"p","Test":"TestE/b"}
{"Action":"pass","Package":"p","Test":"TestE/a"}
{"Action":"fail","Package":"p","Test":"TestE/b"}
{"Action":"fail","Package":"p","Test":"TestE"}
{"Action":"fail","Package":"p"}
{"Action":"fail","Package":"p","Test":"TestE/b"}
{"Action":"fail","Package":"p","Test":"TestE"}
{"Action":"fail","Package":"p"}
"#,
    );
    let parent = run.tests.iter().find(|t| t.name == "TestE").unwrap();
    assert!(parent.parent);
    let leaves: Vec<_> = run.tests.iter().filter(|t| !t.parent).collect();
    assert_eq!(leaves.len(), 2);
    assert_eq!(kinds(&run), vec![]);
    // The same, with no `run` event at all: still a parent.
    let run = read(
        br#"{"Action":"fail","Package":"p","Test":"TestE/b"}
{"Action":"fail","Package":"p","Test":"TestE"}
{"Action":"fail","Package":"p"}
"#,
    );
    assert!(run.tests.iter().find(|t| t.name == "TestE").unwrap().parent);
}
