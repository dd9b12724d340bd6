//! Issue 31 for Go (`go test -json` and `go test -v` text): every piece of evidence beside the
//! records is read and the worst wins, and the wild3 readings the issue lists are corrected.
//! Each file fails a `--threshold 15` gate with a problem whose code names the disagreeing
//! evidence, or reads the wild3 README's truth. The edited files are real go 1.19 runs
//! (`adapters/gotest/tests/fixtures/issue31/`, each edit in its README); the wild3 files are
//! public projects' fixtures (`adapters/gotest/tests/fixtures/wild/`). "Before" is the pre-issue
//! reader's (4492cfb) reading, from the issue text and the wild3 README.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::gate::{advisory, problems, score_gate, sealed};

fn fixtures(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("adapters/gotest/tests/fixtures")
        .join(sub)
}

/// `score --sealed FILE --format json --threshold 15` in `fixtures(sub)`.
fn gate(sub: &str, file: &str) -> (i32, Value) {
    score_gate(&fixtures(sub), file, "15", false)
}

/// The failures' test names.
fn failed_names(r: &Value) -> Vec<String> {
    r["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["test_name"].as_str().unwrap().to_owned())
        .collect()
}

/// `TestAddNeg`'s `fail` event and `--- FAIL` line edited to pass, the package's final `fail`
/// event and its `FAIL` lines kept. Before: the reader decided alone that this was a
/// `suite-error`; now the package's `fail` event is evidence judged by the one rule and named
/// by it, `exit-status`: 4 counted, 1 failed, exit 1.
#[test]
fn a_package_fail_event_kept_beside_passing_records_fails_the_gate() {
    let (c, r) = gate("issue31", "json-package-fail-kept.jsonl");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (4, 1));
    assert_eq!(problems(&r), ["exit-status x1"]);
    assert!(advisory(&r));
}

/// The package's final event edited to `pass` as well; its output still holds the binary's
/// `FAIL` and go's `FAIL pkg` lines. Before: 3 of 3 passed, score 0, exit 0 (the output lines
/// were not read). Now `exit-status` from the `FAIL` line: exit 1.
#[test]
fn a_fail_line_kept_in_a_passing_package_fails_the_gate() {
    let (c, r) = gate("issue31", "json-fail-line-kept.jsonl");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (4, 1));
    assert_eq!(problems(&r), ["exit-status x1"]);
    assert!(advisory(&r));
}

/// Every `fail` action edited to `pass` and the package's lines to `ok`; the test's own
/// `--- FAIL: TestAddNeg` output line kept. Before: 3 of 3 passed, score 0, exit 0. Now the
/// record's worst signal wins: TestAddNeg failed, 1 of 3, exit 1.
#[test]
fn a_tests_own_fail_line_overrules_its_pass_event() {
    let (c, r) = gate("issue31", "json-record-fail-line-kept.jsonl");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (3, 1));
    assert_eq!(failed_names(&r), ["example.com/ex/calc::TestAddNeg"]);
}

/// `go test -v` text with `--- FAIL: TestAddNeg` edited to `--- PASS` and its log line removed,
/// the binary's `FAIL` and `FAIL pkg` kept. Before: a `suite-error` decided by the reader alone;
/// now the `FAIL` line is evidence judged by the one rule: `exit-status`, exit 1.
#[test]
fn go_text_whose_fail_lines_outlive_its_records_fails_the_gate() {
    let (c, r) = gate("issue31", "text-fail-line-kept.txt");
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (4, 1));
    assert_eq!(problems(&r), ["exit-status x1"]);
    assert!(advisory(&r));
}

/// Invariant 5: an honest `go test ./calc ./twin` without -v names only the failed test.
/// Before: 1 of 1 failed, a warning, not advisory (a confident score of tests that cannot be
/// counted). Now each package's line without names is `unattributed-results`: advisory.
#[test]
fn go_text_without_names_is_advisory() {
    let (c, r) = gate("issue31", "text-without-v.txt");
    assert_eq!(c, 1, "{r}");
    assert_eq!(
        problems(&r),
        ["unattributed-results", "unattributed-results"]
    );
    assert!(advisory(&r));
}

/// A test in `twin` and one of the same name in `twin_test`, both parallel. Before: 3 tests,
/// one errored ("started again before it reported a result"): 33.3, exit 1 on an honest run.
/// Now two passing tests, no problem, exit 0.
#[test]
fn two_tests_of_one_name_are_two_passing_tests() {
    for file in ["json-twin-tests.jsonl", "text-twin-tests.txt"] {
        let (c, r) = gate("issue31", file);
        assert_eq!(c, 0, "{file}: {r}");
        assert_eq!(sealed(&r), (2, 0), "{file}");
        assert!(problems(&r).is_empty(), "{file}");
        assert!(!advisory(&r), "{file}");
    }
}

/// wild3: `go test -json ./...` with stderr merged and `FAIL    pkg [setup failed]` written
/// with spaces. Before: 1 of 1 passed, perfect, a warning. Truth 2/1, advisory.
#[test]
fn a_setup_failure_written_with_spaces_is_a_build_failure() {
    let (c, r) = gate(
        "wild",
        "go-test-json-buildfail__GoTestTools_gotestfmt__multipackage-syntax-json.txt",
    );
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (2, 1));
    assert_eq!(problems(&r), ["build-failure"]);
    assert!(advisory(&r));
}

/// wild3: go 1.4-era text, three packages that do not build and two that pass. Before: 5/3, but
/// TestA and TestB errored, a crash, the build failures missed. Now the two pass and the three
/// build failures are named.
#[test]
fn go_old_text_names_its_build_failures() {
    let (c, r) = gate(
        "wild",
        "go-test-text-buildfail__jstemmer_go-junit-report__013-syntax-error.txt",
    );
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (5, 3));
    assert_eq!(problems(&r), ["build-failure"; 3]);
    let names = failed_names(&r);
    for pkg in ["failing1", "failing2", "setupfailing1"] {
        assert!(
            names
                .iter()
                .any(|n| n.ends_with(&format!("package/name/{pkg}"))),
            "{pkg}: {names:?}"
        );
    }
}

/// wild3: two packages panicking in init, no goroutine dump, package lines with spaces.
/// Before: refused (exit 2). Truth 2/2: two crashes.
#[test]
fn go_text_of_init_panics_is_two_crashes() {
    let (c, r) = gate(
        "wild",
        "go-test-text-panic__jstemmer_go-junit-report__014-panic.txt",
    );
    assert_eq!(c, 1, "{r}");
    assert_eq!(sealed(&r), (2, 2));
    assert_eq!(problems(&r), ["crash", "crash"]);
}

/// wild3: gotestsum `--rerun-fails` whose rerun events have no `run` action. Before: 46/3 (the
/// parent TestEnvoy counted as a leaf). Truth 45/2.
#[test]
fn rerun_events_without_run_keep_their_parent() {
    let (_, r) = gate(
        "wild",
        "go-test-json-missing-run__gotestyourself_gotestsum__go-test-missing-run-events.out",
    );
    assert_eq!(sealed(&r), (45, 2));
    assert!(problems(&r).is_empty());
}
