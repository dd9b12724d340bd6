//! The borrowed fast path (issue 22): json-report and reportlog hand every test to the sink
//! through `EventSink::test_finished_ref`, its id, suite, name and file slices of the node id
//! (a passing test costs no allocation), and the tests read exactly as the owned reading
//! (`parse_to_run`), in the same order.

use gapscore_adapter_pytest::{FORMAT_REPORTLOG, Pytest};
use gapscore_adapter_sdk::{Adapter, ParseOptions, Status, TestCase, parse_to_run};
use gapscore_adapter_testing::RouteSink as Routes;

fn routes(input: &[u8], opts: &ParseOptions) -> Vec<(bool, TestCase)> {
    let mut routes = Routes::default();
    Pytest::new().parse(input, opts, &mut routes).unwrap();
    let owned = parse_to_run(&Pytest::new(), input, opts).unwrap();
    let seen: Vec<TestCase> = routes.0.iter().map(|(_, t)| t.clone()).collect();
    assert_eq!(seen, owned.tests);
    routes.0
}

#[test]
fn json_report_tests_go_borrowed_and_read_as_the_owned_path() {
    let doc = br#"{"exitcode": 1, "tests": [
        {"nodeid": "t.py::C::test_a[p::q]", "lineno": 4, "outcome": "passed", "keywords": ["security"],
         "setup": {"duration": 0.5, "outcome": "passed"}, "call": {"duration": 1.0, "outcome": "passed", "stdout": "o"},
         "teardown": {"duration": 0.25, "outcome": "passed", "stderr": "e"}},
        {"nodeid": "t.py::test_b", "outcome": "failed", "call": {"outcome": "failed", "longrepr": "E  boom\nline"},
         "teardown": {"outcome": "failed", "crash": {"message": "td\"x"}}},
        {"nodeid": "t.py::test_c", "outcome": "skipped", "setup": {"outcome": "skipped", "longrepr": "('t.py', 3, 'Skipped: no')"}},
        {"nodeid": "t.py::test_d", "outcome": "passed", "call": {"outcome": "failed", "longrepr": "said"}}
        ]}"#;
    let tests = routes(doc, &ParseOptions::default());
    assert!(tests.iter().all(|(b, _)| *b), "every test borrowed");
    let t: Vec<&TestCase> = tests.iter().map(|(_, t)| t).collect();
    assert_eq!(t[0].suite.as_deref(), Some("t.py::C"));
    assert_eq!(t[0].name, "test_a[p::q]");
    assert_eq!(t[0].file.as_deref(), Some("t.py"));
    assert_eq!((t[0].line, t[0].duration), (Some(5), Some(1.75)));
    assert_eq!(t[0].output.as_deref(), Some("oe"));
    assert_eq!(t[0].message, None);
    assert_eq!(t[1].status, Status::Errored);
    assert_eq!(
        t[1].message.as_deref(),
        Some("E  boom\nline\n\nerror at teardown:\ntd\"x")
    );
    assert_eq!(
        (t[2].status, t[2].message.as_deref()),
        (Status::Skipped, Some("Skipped: no"))
    );
    assert_eq!(t[3].status, Status::Failed);
}

#[test]
fn reportlog_tests_go_borrowed_and_read_as_the_owned_path() {
    let log = br#"{"pytest_version": "8.3.3", "$report_type": "SessionStart"}
{"nodeid": "t.py::test_a", "location": ["t.py", 2, "test_a"], "keywords": {"edge_case": 1}, "outcome": "passed", "longrepr": null, "when": "setup", "sections": [], "duration": 0.5, "$report_type": "TestReport"}
{"nodeid": "t.py::test_a", "location": ["t.py", 2, "test_a"], "keywords": {}, "outcome": "passed", "longrepr": null, "when": "call", "sections": [["Captured stdout call", "hi"]], "duration": 1.0, "$report_type": "TestReport"}
{"nodeid": "t.py::test_a", "location": ["t.py", 2, "test_a"], "keywords": {}, "outcome": "passed", "longrepr": null, "when": "teardown", "sections": [], "duration": 0.25, "$report_type": "TestReport"}
{"nodeid": "t.py::test_b", "location": ["t.py", 9, "test_b"], "keywords": {}, "outcome": "passed", "longrepr": null, "when": "setup", "sections": [], "duration": 0.5, "$report_type": "TestReport"}
{"nodeid": "t.py::test_b", "location": ["t.py", 9, "test_b"], "keywords": {}, "outcome": "failed", "longrepr": "E boom", "when": "call", "sections": [], "duration": 1.0, "$report_type": "TestReport"}
{"nodeid": "t.py::test_b", "location": ["t.py", 9, "test_b"], "keywords": {}, "outcome": "passed", "longrepr": null, "when": "teardown", "sections": [], "duration": 0.25, "$report_type": "TestReport"}
{"nodeid": "t.py::test_c", "location": ["t.py", 12, "test_c"], "keywords": {}, "outcome": "passed", "longrepr": null, "when": "setup", "sections": [], "duration": 0.5, "$report_type": "TestReport"}
{"exitstatus": 1, "$report_type": "SessionFinish"}
"#;
    let mut opts = ParseOptions::default();
    opts.format_id = Some(FORMAT_REPORTLOG.into());
    let tests = routes(log, &opts);
    assert!(tests.iter().all(|(b, _)| *b), "every test borrowed");
    let t: Vec<&TestCase> = tests.iter().map(|(_, t)| t).collect();
    let ways: Vec<(&str, Status)> = t.iter().map(|t| (t.id.as_str(), t.status)).collect();
    assert_eq!(
        ways,
        [
            ("t.py::test_a", Status::Passed),
            ("t.py::test_b", Status::Failed),
            ("t.py::test_c", Status::Errored),
        ]
    );
    assert_eq!((t[0].line, t[0].duration), (Some(3), Some(1.75)));
    assert_eq!(t[0].output.as_deref(), Some("hi"));
    assert_eq!(t[1].message.as_deref(), Some("E boom"));
}
