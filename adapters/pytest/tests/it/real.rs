//! The pytest adapter against the real-runner corpus: for every case, each test matches the
//! truth one for one — same node id, suite and name, a status the truth accepts — every
//! run-level problem kind the file shows is reported and no other; and the console text the
//! same runs printed, read as `pytest-text`, never contradicts the truth.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use gapscore_adapter_pytest::{FORMAT_TEXT, Pytest};
use gapscore_adapter_sdk::{
    Adapter, ParseOptions, ProblemKind, Status, TestCase, TestRun, parse_to_run,
};
use gapscore_adapter_testing::{Truth, accepted, compare_problems, compare_tests, real_cases};
use serde_json::Value;

fn real_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real")
}

fn cases() -> Vec<PathBuf> {
    let v = real_cases(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(
        v.len(),
        6,
        "4 pytest-json-report and 2 pytest-reportlog cases"
    );
    v
}

/// Problem kinds the truth lists that the file cannot show: the killed run's console says
/// "collected 5 items", but the report log has no record of the test that never started
/// (pytest-reportlog writes no list of collected items), so `missing-tests` cannot be known
/// from it. The run is still flagged (`killed`).
const NOT_IN_THE_FILE: &[(&str, &str)] = &[("reportlog-killed-mid-run", "missing-tests")];

/// The truncated json-report case is the standard run's report cut at byte 12166: its truth
/// lists no tests (the cut document is not valid JSON), but the tests written completely
/// before the cut are real results of that run, and the adapter keeps them (next to
/// `truncated`), so they are checked against the standard case's truth: each must be there
/// with the same status, and the cut one must not.
const TRUNCATED: &str = "json-report-standard-truncated";

/// The truncated case's tests against the standard run's truth: each kept one is in it, named
/// the same, with a status it accepts, and some but not all of them were kept.
fn compare_prefix(case: &str, run: &TestRun, failures: &mut Vec<String>) {
    let standard = Truth::load(&real_dir().join("json-report-standard"));
    let want = standard.entries();
    let by_id: HashMap<&str, &Value> = want
        .iter()
        .map(|w| (w["nodeid"].as_str().unwrap(), w))
        .collect();
    for t in &run.tests {
        let Some(w) = by_id.get(t.id.as_str()) else {
            failures.push(format!("{case}: `{}` read but not in the truth", t.id));
            continue;
        };
        same_names(case, t, w, failures);
        if !accepted(w).contains(&t.status.as_str()) {
            failures.push(format!(
                "{case}: `{}` is {}, truth says {:?}",
                t.id,
                t.status,
                accepted(w)
            ));
        }
    }
    if run.tests.is_empty() || run.tests.len() >= want.len() {
        failures.push(format!(
            "{case}: {} complete tests kept before the cut",
            run.tests.len()
        ));
    }
}

/// A test named as its truth entry: same suite and name.
fn same_names(case: &str, t: &TestCase, w: &Value, failures: &mut Vec<String>) {
    if t.name != w["name"].as_str().unwrap() || t.suite.as_deref() != w["suite"].as_str() {
        failures.push(format!(
            "{case}: `{}` named {:?} / {:?}",
            t.id, t.suite, t.name
        ));
    }
}

#[test]
fn every_real_case_matches_its_truth() {
    let adapter = Pytest::new();
    let mut failures = Vec::new();
    for dir in cases() {
        let truth = Truth::load(&dir);
        let case = truth.case.clone();
        let format = truth.format().unwrap();
        let (report, bytes) = truth.report();
        assert!(
            adapter.detect(&bytes, Some(&report)) >= 95,
            "{case}: not detected"
        );
        assert_eq!(
            adapter.detect_format(&bytes, Some(&report)).as_deref(),
            Some(format),
            "{case}"
        );
        // The host passes no format when it detected one itself; the adapter must agree.
        let run = match parse_to_run(&adapter, &bytes, &ParseOptions::default()) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{case}: {e}"));
                continue;
            }
        };
        if run.producer.as_ref().map(|p| p.name.as_str()) != Some("pytest") {
            failures.push(format!("{case}: producer {:?}", run.producer));
        }
        if case == TRUNCATED {
            compare_prefix(&case, &run, &mut failures);
        } else {
            // Every test of the run, one for one with the truth's leaves by node id.
            let tests: Vec<&TestCase> = run.tests.iter().collect();
            let pairs = compare_tests(
                &case,
                &tests,
                &truth.leaves(),
                |t, w| w["nodeid"].as_str() == Some(t.id.as_str()),
                &mut failures,
            );
            for (t, w) in pairs {
                same_names(&case, t, w, &mut failures);
            }
        }
        failures.extend(compare_problems(&run, &truth, NOT_IN_THE_FILE));
        // Complete, consistent files raise no warnings either.
        if truth.problem_kinds().is_empty() && !run.warnings.is_empty() {
            failures.push(format!("{case}: warnings {:?}", run.warnings));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_report_reads_the_same_through_parse_reader() {
    let adapter = Pytest::new();
    for dir in cases() {
        let truth = Truth::load(&dir);
        let report = if truth.format() == Some("pytest-reportlog") {
            "reportlog.jsonl"
        } else {
            "report.json"
        };
        let bytes = fs::read(dir.join(report)).unwrap();
        let whole = parse_to_run(&adapter, &bytes, &ParseOptions::default()).unwrap();
        // Small buffers, so records straddle refills; with 20 bytes detection cannot tell the
        // format from the first buffer and the adapter reads the input whole instead.
        for capacity in [100, 20] {
            let mut sink = gapscore_adapter_sdk::Normalizer::new(
                gapscore_adapter_sdk::RunCollector::new(whole.format.clone(), None),
            );
            let mut reader = std::io::BufReader::with_capacity(capacity, bytes.as_slice());
            adapter
                .parse_reader(&mut reader, &ParseOptions::default(), &mut sink)
                .unwrap();
            assert_eq!(sink.finish().into_run(), whole, "{}", dir.display());
        }
    }
}

fn read_text(path: &Path) -> TestRun {
    let bytes = fs::read(path).unwrap();
    let mut opts = ParseOptions::default();
    opts.format_id = Some(FORMAT_TEXT.into());
    parse_to_run(&Pytest::new(), &bytes, &opts).unwrap()
}

/// The consoles printed by the same runs (plain `pytest`, big-5000 with `-q`) name only their
/// failures and errors: those must match the truth, the passes are counted but not named
/// (one counted `unattributed-results` problem standing for them: issue 31, never a confident
/// score), and each run's trouble shows as its problems.
#[test]
fn console_text_of_the_same_runs_agrees_with_the_truth() {
    let adapter = Pytest::new();
    let mut checked = 0;
    for dir in cases() {
        let case = dir.file_name().unwrap().to_string_lossy().into_owned();
        let console = dir.join("console.txt");
        if !console.exists() {
            continue;
        }
        checked += 1;
        let bytes = fs::read(&console).unwrap();
        // `-q` prints neither the banner nor the platform line: no evidence, no claim.
        let want_detect = if case == "json-report-big-5000" {
            0
        } else {
            60
        };
        assert_eq!(adapter.detect(&bytes, None), want_detect, "{case}");
        let run = read_text(&console);
        let truth = Truth::load(&dir);
        let want: HashMap<&str, &Value> = truth
            .entries()
            .iter()
            .map(|w| (w["nodeid"].as_str().unwrap(), w))
            .collect();
        for t in &run.tests {
            let w = want
                .get(t.id.as_str())
                .unwrap_or_else(|| panic!("{case}: `{}` not in the truth", t.id));
            assert!(
                accepted(w).contains(&t.status.as_str()),
                "{case}: `{}` is {}",
                t.id,
                t.status
            );
            assert_eq!(t.name, w["name"].as_str().unwrap(), "{case}");
        }
        let named_bad = run
            .tests
            .iter()
            .filter(|t| matches!(t.status, Status::Failed | Status::Errored))
            .count();
        let kinds: Vec<ProblemKind> = run.problems.iter().map(|p| p.kind).collect();
        match case.as_str() {
            "json-report-standard" => {
                assert_eq!((run.tests.len(), named_bad), (3, 3), "{case}");
                assert_eq!(kinds, [ProblemKind::UnattributedResults], "{case}");
                assert_eq!(run.problems[0].count, Some(11), "{case}");
                assert!(
                    run.problems[0]
                        .detail
                        .contains("counts 14 test result(s) and the output names 3")
                );
            }
            "json-report-big-5000" => {
                assert_eq!((run.tests.len(), named_bad), (40, 40), "{case}");
                assert_eq!(kinds, [ProblemKind::UnattributedResults], "{case}");
            }
            "json-report-collection-error-continue" => {
                assert!(run.tests.is_empty());
                // The 2 passes are progress dots only.
                assert_eq!(
                    kinds,
                    [
                        ProblemKind::CollectionError,
                        ProblemKind::CollectionError,
                        ProblemKind::UnattributedResults
                    ]
                );
                assert!(
                    run.problems[0]
                        .detail
                        .contains("ImportError: cannot import name")
                );
                assert!(
                    run.problems[1]
                        .detail
                        .contains("SyntaxError: invalid syntax")
                );
            }
            "reportlog-killed-mid-run" => {
                assert!(run.tests.is_empty());
                assert_eq!(kinds, [ProblemKind::Truncated]);
                assert!(run.problems[0].detail.contains("2 passed, 1 failed"));
            }
            "reportlog-variant" => {
                // Plain output names the 4 failures (the strict xpass among them) and the
                // 3 errors only.
                assert_eq!(named_bad, 7, "{case}");
                assert_eq!(kinds, [ProblemKind::UnattributedResults], "{case}");
            }
            other => panic!("no expectation for {other}"),
        }
    }
    assert_eq!(checked, 5);
}
