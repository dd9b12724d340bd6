//! The borrowed fast path (issue 22): a test with nothing but its name, suite, status, place and
//! time reaches the sink through `EventSink::test_finished_ref`, without an owned copy; a test
//! with failure text or retries is built owned. Either way the sink sees the same tests as the
//! owned reading (`parse_to_run`), in the same order.

use gapscore_adapter_jest::Jest;
use gapscore_adapter_sdk::{Adapter, ParseOptions, Status, TestCase, parse_to_run};
use gapscore_adapter_testing::RouteSink as Routes;

#[test]
fn plain_tests_go_borrowed_and_read_as_the_owned_path() {
    let doc = br#"{"numTotalTests": 4, "testResults": [{"assertionResults": [
        {"ancestorTitles": ["math", "add"], "title": "adds [edge_case]", "status": "passed", "duration": 5, "location": {"line": 3}},
        {"ancestorTitles": [], "title": "esc\"aped", "status": "pending"},
        {"ancestorTitles": ["math"], "title": "divides", "status": "failed", "failureMessages": ["boom"]},
        {"ancestorTitles": ["math"], "title": "retried", "status": "passed", "invocations": 2}
        ], "name": "/p/math.test.js", "status": "failed"}]}"#;
    let mut routes = Routes::default();
    Jest::new()
        .parse(doc, &ParseOptions::default(), &mut routes)
        .unwrap();
    let ways: Vec<(bool, &str, Status)> = routes
        .0
        .iter()
        .map(|(b, t)| (*b, t.name.as_str(), t.status))
        .collect();
    assert_eq!(
        ways,
        [
            (true, "adds [edge_case]", Status::Passed),
            (true, "esc\"aped", Status::Skipped),
            (false, "divides", Status::Failed),
            (false, "retried", Status::Passed),
        ]
    );
    let first = &routes.0[0].1;
    assert_eq!(first.id, "/p/math.test.js > math > add::adds [edge_case]");
    assert_eq!(first.file.as_deref(), Some("/p/math.test.js"));
    assert_eq!((first.line, first.duration), (Some(3), Some(0.005)));
    let owned = parse_to_run(&Jest::new(), doc, &ParseOptions::default()).unwrap();
    let seen: Vec<TestCase> = routes.0.into_iter().map(|(_, t)| t).collect();
    assert_eq!(seen, owned.tests);
}
