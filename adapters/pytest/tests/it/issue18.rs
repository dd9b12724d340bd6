//! Issue 18 (score integrity) on real pytest output and edited copies of it
//! (`tests/fixtures/issue18/`, provenance and commands in its README): declared counts,
//! interrupted runs, contradictory phases, duplicate keys, module-level skips. Each result file
//! is read and a compact form of its canonical run snapshotted (every test's id and status,
//! every problem with its count, every warning); the rules are asserted one by one.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_adapter_pytest::{FORMAT_JSON_REPORT, FORMAT_REPORTLOG, FORMAT_TEXT, Pytest};
use gapscore_adapter_sdk::{ParseOptions, ProblemKind, Status, TestRun, parse_to_run};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/issue18")
}

fn read(name: &str) -> Result<TestRun, String> {
    let format = if name.ends_with(".jsonl") {
        FORMAT_REPORTLOG
    } else if name.ends_with(".txt") {
        FORMAT_TEXT
    } else {
        FORMAT_JSON_REPORT
    };
    let mut o = ParseOptions::default();
    o.format_id = Some(format.to_owned());
    let bytes = fs::read(dir().join(name)).unwrap();
    parse_to_run(&Pytest::new(), &bytes, &o).map_err(|e| e.to_string())
}

fn load(name: &str) -> TestRun {
    read(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn kinds(run: &TestRun) -> Vec<ProblemKind> {
    run.problems.iter().map(|p| p.kind).collect()
}

fn status(run: &TestRun, id: &str) -> Status {
    run.tests
        .iter()
        .find(|t| t.id == id)
        .unwrap_or_else(|| panic!("no test `{id}`"))
        .status
}

/// The run in a few lines: tests (id and status), problems (kind, count, first line),
/// warnings.
fn compact(run: &TestRun) -> String {
    let mut out = String::new();
    for t in &run.tests {
        out.push_str(&format!("test {} {}\n", t.id, t.status));
    }
    for p in &run.problems {
        let n = p.count.map(|n| format!(" x{n}")).unwrap_or_default();
        let head = p.detail.lines().next().unwrap_or("");
        out.push_str(&format!("problem {}{n}: {head}\n", p.kind));
    }
    for w in &run.warnings {
        out.push_str(&format!("warning {w}\n"));
    }
    out
}

/// Every result file, read or refused, as snapshots.
#[test]
fn every_file_snapshotted() {
    let mut names: Vec<String> = fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json") || n.ends_with(".jsonl") || n.ends_with(".txt"))
        .collect();
    names.sort();
    assert!(names.len() > 30, "{names:?}");
    for name in names {
        let shown = match read(&name) {
            Ok(run) => compact(&run),
            Err(e) => format!("error: {e}\n"),
        };
        insta::assert_snapshot!(name.clone(), shown);
    }
}

/// Complete real runs raise no run-level problem: deselected tests (`-k`), xdist (no
/// collectors, a worker line in every phase's `longrepr`), subtests, skips and xfails.
#[test]
fn complete_real_runs_have_no_problem() {
    for name in [
        "issue18-complete.json",
        "issue18-complete.jsonl",
        "issue18-deselected.json",
        "issue18-deselected.jsonl",
        "issue18-xdist.json",
        "issue18-xdist.jsonl",
        "issue18-subtests.json",
        "issue18-subtests.jsonl",
    ] {
        let run = load(name);
        assert!(run.problems.is_empty(), "{name}: {:?}", run.problems);
        assert!(run.warnings.is_empty(), "{name}: {:?}", run.warnings);
    }
    let run = load("issue18-xdist.json");
    assert_eq!(status(&run, "test_mixed.py::test_pass"), Status::Passed);
    assert_eq!(status(&run, "test_mixed.py::test_xpass"), Status::Xpassed);
}

/// Declared more than held: the missing ones count as failed, one problem with the number.
#[test]
fn declared_tests_without_results_are_missing() {
    for (name, held, missing) in [
        ("issue18-maxfail.json", 2, 8),
        ("issue18-summary-only.json", 0, 10),
        ("issue18-summary-only-wild.report.json", 0, 16),
        ("issue18-collection-error.json", 0, 2),
        ("issue18-interrupted-keyboard.json", 2, 1),
    ] {
        let run = load(name);
        assert_eq!(run.tests.len(), held, "{name}");
        let p: Vec<_> = run
            .problems
            .iter()
            .filter(|p| p.kind == ProblemKind::MissingTests)
            .collect();
        assert_eq!(p.len(), 1, "{name}: {:?}", run.problems);
        assert_eq!(p[0].count, Some(missing), "{name}");
    }
}

/// KeyboardInterrupt and pytest.exit(): the test stopped in is errored, never passed, and the
/// run is `interrupted` (in place of exit status 2's `aborted`).
#[test]
fn interrupted_runs() {
    for stem in ["issue18-interrupted-keyboard", "issue18-interrupted-exit"] {
        let test = if stem.ends_with("keyboard") {
            "test_kb.py::test_interrupt"
        } else {
            "test_exit.py::test_exit"
        };
        let run = load(&format!("{stem}.json"));
        assert_eq!(status(&run, test), Status::Errored, "{stem}.json");
        assert_eq!(
            kinds(&run),
            [ProblemKind::MissingTests, ProblemKind::Interrupted],
            "{stem}.json"
        );
        let run = load(&format!("{stem}.jsonl"));
        assert_eq!(status(&run, test), Status::Errored, "{stem}.jsonl");
        assert_eq!(kinds(&run), [ProblemKind::Interrupted], "{stem}.jsonl");
        let run = load(&format!("{stem}.console.txt"));
        assert!(
            kinds(&run).contains(&ProblemKind::Interrupted),
            "{stem}.console.txt: {:?}",
            run.problems
        );
    }
}

/// More collector items than declared and held is a warning, never a problem (a conftest may
/// drop items without deselecting them).
#[test]
fn collector_items_beyond_the_declared_count_are_a_warning() {
    let run = load("issue18-collectors-list-more.json");
    assert!(run.problems.is_empty(), "{:?}", run.problems);
    assert_eq!(
        run.warnings,
        ["the report's collectors list 10 items to run but it holds results for 4"]
    );
}

/// `outcome: "passed"` with a failed call phase, or a `crash`, is failed.
#[test]
fn contradictory_phases_are_never_a_pass() {
    let run = load("issue18-passed-with-failed-call.json");
    assert_eq!(status(&run, "test_mixed.py::test_fail"), Status::Failed);
    let run = load("issue18-passed-with-crash.json");
    assert_eq!(status(&run, "test_mixed.py::test_param[3]"), Status::Failed);
}

/// A key written twice in one object, at the root or nested, is an input error.
#[test]
fn duplicate_keys_are_input_errors() {
    for (name, what) in [
        (
            "issue18-duplicate-test-outcome.json",
            "duplicate key `outcome`",
        ),
        (
            "issue18-duplicate-call-outcome.json",
            "duplicate key `outcome`",
        ),
        (
            "issue18-duplicate-summary-key.json",
            "duplicate key `failed`",
        ),
        (
            "issue18-duplicate-exitcode.json",
            "duplicate key `exitcode`",
        ),
        ("issue18-duplicate-outcome.jsonl", "duplicate key `outcome`"),
        (
            "issue18-duplicate-reprcrash-message.jsonl",
            "duplicate key `message`",
        ),
    ] {
        let e = read(name).expect_err(name);
        assert!(e.contains(what), "{name}: {e}");
    }
}

/// A module-level skip is one skipped test whose id is the module path (no `::`), and (issue 31)
/// a suite that did not run: how many tests the module held is not recorded.
#[test]
fn module_level_skip_is_one_skipped_test() {
    for name in [
        "issue18-module-level-skip.json",
        "issue18-module-level-skip.jsonl",
        "issue18-module-level-skip-collect-only.json",
        "issue18-module-level-skip-collect-only.jsonl",
    ] {
        let run = load(name);
        let t = run
            .tests
            .iter()
            .find(|t| t.id == "tests/test_net.py")
            .unwrap_or_else(|| panic!("{name}: {:?}", run.tests));
        assert_eq!(t.status, Status::Skipped, "{name}");
        assert_eq!(t.suite, None, "{name}");
        assert_eq!(t.file.as_deref(), Some("tests/test_net.py"), "{name}");
        assert_eq!(
            t.message.as_deref(),
            Some("Skipped: needs the network"),
            "{name}"
        );
    }
    // The collect-only json-report holds no result for the collected `test_local`.
    // Issue 31: the skipped module is also a suite that did not run.
    let run = load("issue18-module-level-skip-collect-only.json");
    assert_eq!(
        kinds(&run),
        [ProblemKind::SuiteError, ProblemKind::MissingTests]
    );
    assert_eq!(run.problems[1].count, Some(1));
}
