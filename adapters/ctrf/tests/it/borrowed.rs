//! The borrowed fast path (issue 22): every test reaches the sink through
//! `EventSink::test_finished_ref`, its name, file and ids borrowed from the input and its suite
//! path from a buffer kept between tests, and reads exactly as the owned reading
//! (`parse_to_run`), in the same order.

use gapscore_adapter_ctrf::Ctrf;
use gapscore_adapter_sdk::{Adapter, ParseOptions, Status, TestCase, parse_to_run};
use gapscore_adapter_testing::RouteSink as Routes;

#[test]
fn tests_go_borrowed_and_read_as_the_owned_path() {
    let doc = br#"{"results": {"tool": {"name": "jest"}, "tests": [
        {"name": "adds", "status": "passed", "duration": 5, "suite": ["math.test.js", "", "add"], "filePath": "math.test.js", "line": 3},
        {"name": "no suite", "status": "passed", "duration": 1},
        {"name": "old suite", "status": "skipped", "duration": 0, "suite": "a > b"},
        {"name": "divides", "status": "failed", "duration": 2, "suite": ["math.test.js"], "message": "boom", "trace": "at x", "retries": 1,
         "stdout": ["out"], "stderr": "err"},
        {"name": "ours", "status": "failed", "duration": 2, "extra": {"gapscore_status": "errored", "gapscore_id": "own::id", "expected": 2, "actual": "3"}}
        ]}}"#;
    let mut routes = Routes::default();
    Ctrf::new()
        .parse(doc, &ParseOptions::default(), &mut routes)
        .unwrap();
    assert!(routes.0.iter().all(|(b, _)| *b), "every test borrowed");
    let tests: Vec<&TestCase> = routes.0.iter().map(|(_, t)| t).collect();
    assert_eq!(tests[0].suite.as_deref(), Some("math.test.js > add"));
    assert_eq!(tests[0].id, "math.test.js > add::adds");
    assert_eq!(tests[1].suite, None);
    assert_eq!(tests[1].id, "no suite");
    assert_eq!(tests[2].suite.as_deref(), Some("a > b"));
    assert_eq!(tests[2].duration, None);
    assert_eq!(tests[3].output.as_deref(), Some("out\nerr"));
    assert_eq!(tests[3].attempts.len(), 1);
    assert_eq!(
        (tests[4].id.as_str(), tests[4].status),
        ("own::id", Status::Errored)
    );
    assert_eq!(tests[4].expected.as_deref(), Some("2"));
    let owned = parse_to_run(&Ctrf::new(), doc, &ParseOptions::default()).unwrap();
    let seen: Vec<TestCase> = routes.0.into_iter().map(|(_, t)| t).collect();
    assert_eq!(seen, owned.tests);
}
