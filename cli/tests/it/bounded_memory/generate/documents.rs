//! Formats that are one document: JUnit XML, the spec's `simple` JSON, Jest and Vitest JSON,
//! CTRF and Mocha's JSON reporter. Each is written as its tool writes it (compare the
//! adapters' `fixtures/real` and `fixtures/valid`), counts declared before the tests where
//! the tool declares them.

use super::out::{CAPTURED, Kind, Out, Plan, js, kind};

/// Tests per JUnit suite and per Jest/Vitest file.
const GROUP: u64 = 200;

/// The groups of `tests` tests: (first test's number, group index, tests in it).
fn groups(tests: u64) -> impl Iterator<Item = (u64, u64, u64)> {
    (0..tests.div_ceil(GROUP)).map(move |g| {
        let first = g * GROUP + 1;
        (first, g, GROUP.min(tests + 1 - first))
    })
}

const TRACEBACK: &str = "Traceback (most recent call last):\n  File \"tests/test_x.py\", line 12, in test_case\n    assert add(1, 1) == 3\nAssertionError: assert 2 == 3\n";

/// JUnit XML in pytest's shape: suites of 200 testcases in classes of 20, a failure's
/// traceback in CDATA, a skip's message, captured output in `system-out`.
pub fn junit(o: &mut Out, tests: u64) {
    o.put("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"big\">\n");
    for (first, s, len) in groups(tests) {
        let plan = Plan::range(first, len);
        o.put(&format!(
            "  <testsuite name=\"pkg{s}.Suite\" tests=\"{len}\" failures=\"{}\" skipped=\"{}\">\n",
            plan.failed, plan.skipped
        ));
        for n in first..first + len {
            let c = n - first;
            o.put(&format!(
                "    <testcase classname=\"pkg{s}.Class{}\" name=\"test_case_{c}\" time=\"0.{:03}\"",
                c / 20,
                n % 1000
            ));
            o.put(match kind(n) {
                Kind::Failed => {
                    "><failure message=\"assert 2 == 3\" type=\"AssertionError\"><![CDATA["
                }
                Kind::Skipped => "><skipped message=\"not on linux\"/></testcase>\n",
                Kind::Output => "><system-out>",
                Kind::Passed => "/>\n",
            });
            match kind(n) {
                Kind::Failed => o.put(&format!("{TRACEBACK}]]></failure></testcase>\n")),
                Kind::Output => o.put(&format!("{CAPTURED}</system-out></testcase>\n")),
                Kind::Skipped | Kind::Passed => {}
            }
        }
        o.put("  </testsuite>\n");
    }
    o.put("</testsuites>\n");
}

/// The spec's simple format: `{"tests": [...]}`, one object a line as the reference example
/// writes it, a failure with `expected`, `actual` and `message`, a category on each.
pub fn simple(o: &mut Out, tests: u64) {
    o.put("{\n  \"tests\": [\n");
    for n in 1..=tests {
        let category = ["happy_path", "edge_case", "error_handling", "security"][(n % 4) as usize];
        let name = format!("test_module_{}_case_{n}", n / 200);
        o.put(&match kind(n) {
            Kind::Failed => format!(
                "    {{\"name\": \"{name}\", \"status\": \"failed\", \"category\": \"{category}\", \"expected\": \"CLI exits with code 2\", \"actual\": \"CLI exits with code 0\", \"message\": \"GPL dependency not blocked\"}}"
            ),
            Kind::Skipped => format!(
                "    {{\"name\": \"{name}\", \"status\": \"skipped\", \"category\": \"{category}\", \"message\": \"needs the network\"}}"
            ),
            Kind::Output | Kind::Passed => format!(
                "    {{\"name\": \"{name}\", \"status\": \"passed\", \"category\": \"{category}\"}}"
            ),
        });
        o.put(if n < tests { ",\n" } else { "\n" });
    }
    o.put("  ]\n}\n");
}

/// Jest's `--json` output: the root's counts, then a result per file (its assertion results,
/// the file's formatted failure message), `failureDetails` beside each failure message.
pub fn jest(o: &mut Out, tests: u64) {
    let plan = Plan::of(tests);
    let files = tests.div_ceil(GROUP);
    let failed_files = groups(tests)
        .filter(|&(first, _, len)| Plan::range(first, len).failed > 0)
        .count() as u64;
    o.put(&format!(
        "{{\"numFailedTestSuites\":{failed_files},\"numFailedTests\":{},\"numPassedTestSuites\":{},\"numPassedTests\":{},\"numPendingTestSuites\":0,\"numPendingTests\":{},\"numRuntimeErrorTestSuites\":0,\"numTodoTests\":0,\"numTotalTestSuites\":{files},\"numTotalTests\":{tests},\"openHandles\":[],\"snapshot\":{{\"added\":0,\"didUpdate\":false,\"failure\":false,\"filesAdded\":0,\"filesRemoved\":0,\"filesRemovedList\":[],\"filesUnmatched\":0,\"filesUpdated\":0,\"matched\":0,\"total\":0,\"unchecked\":0,\"uncheckedKeysByFile\":[],\"unmatched\":0,\"updated\":0}},\"startTime\":1795465382764,\"success\":{},\"testResults\":[",
        plan.failed,
        files - failed_files,
        plan.passed(),
        plan.skipped,
        plan.failed == 0
    ));
    for (first, f, len) in groups(tests) {
        let file = format!("/ci/shop/src/__tests__/module{f}.test.js");
        let failed = Plan::range(first, len).failed > 0;
        o.put(if f == 0 {
            "{\"assertionResults\":["
        } else {
            ",{\"assertionResults\":["
        });
        for n in first..first + len {
            let title = format!("case {n}");
            let (status, messages, details) = match kind(n) {
                Kind::Failed => (
                    "failed",
                    js(&format!(
                        "Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 3\nReceived: 2\n    at Object.toBe ({file}:9:25)\n    at Promise.finally.completed (/ci/shop/node_modules/jest-circus/build/jestAdapterInit.js:1834:28)"
                    )),
                    "{\"matcherResult\":{\"actual\":2,\"expected\":3,\"message\":\"expect(received).toBe(expected) // Object.is equality\\n\\nExpected: 3\\nReceived: 2\",\"name\":\"toBe\",\"pass\":false}}",
                ),
                Kind::Skipped => ("pending", String::new(), ""),
                Kind::Output | Kind::Passed => ("passed", String::new(), ""),
            };
            if n > first {
                o.put(",");
            }
            o.put(&format!(
                "{{\"ancestorTitles\":[\"module {f}\"],\"duration\":3,\"failing\":false,\"failureDetails\":[{details}],\"failureMessages\":[{messages}],\"fullName\":\"module {f} {title}\",\"invocations\":1,\"location\":null,\"numPassingAsserts\":1,\"retryReasons\":[],\"status\":\"{status}\",\"title\":\"{title}\"}}"
            ));
        }
        let message = if failed {
            js(&format!(
                "  ● module {f} › a failing case\n\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: 3\n    Received: 2\n\n      at Object.toBe ({file}:9:25)\n"
            ))
        } else {
            "\"\"".into()
        };
        o.put(&format!(
            "],\"endTime\":1795465383336,\"message\":{message},\"name\":\"{file}\",\"startTime\":1795465382952,\"status\":\"{}\",\"summary\":\"\"}}",
            if failed { "failed" } else { "passed" }
        ));
    }
    o.put("],\"wasInterrupted\":false}\n");
}

/// Vitest's `--reporter=json`: Jest's shape with Vitest's own keys (`meta`, `location`, no
/// `openHandles`), `numTotalTestSuites` counting describe blocks too.
pub fn vitest(o: &mut Out, tests: u64) {
    let plan = Plan::of(tests);
    let files = tests.div_ceil(GROUP);
    let failed_files = groups(tests)
        .filter(|&(first, _, len)| Plan::range(first, len).failed > 0)
        .count() as u64;
    o.put(&format!(
        "{{\"numTotalTestSuites\":{},\"numPassedTestSuites\":{},\"numFailedTestSuites\":{},\"numPendingTestSuites\":0,\"numTotalTests\":{tests},\"numPassedTests\":{},\"numFailedTests\":{},\"numPendingTests\":{},\"numTodoTests\":0,\"snapshot\":{{\"added\":0,\"failure\":false,\"filesAdded\":0,\"filesRemoved\":0,\"filesRemovedList\":[],\"filesUnmatched\":0,\"filesUpdated\":0,\"matched\":0,\"total\":0,\"unchecked\":0,\"uncheckedKeysByFile\":[],\"unmatched\":0,\"updated\":0,\"didUpdate\":false}},\"startTime\":1700000000000,\"success\":{},\"testResults\":[",
        2 * files,
        2 * (files - failed_files),
        2 * failed_files,
        plan.passed(),
        plan.failed,
        plan.skipped,
        plan.failed == 0
    ));
    for (first, f, len) in groups(tests) {
        let file = format!("/ci/app/src/module{f}.test.ts");
        let failed = Plan::range(first, len).failed > 0;
        o.put(if f == 0 {
            "{\"assertionResults\":["
        } else {
            ",{\"assertionResults\":["
        });
        for n in first..first + len {
            let title = format!("case {n}");
            let (status, messages) = match kind(n) {
                Kind::Failed => (
                    "failed",
                    js(&format!(
                        "AssertionError: expected 2 to be 3 // Object.is equality\n    at {file}:8:22"
                    )),
                ),
                Kind::Skipped => ("skipped", String::new()),
                Kind::Output | Kind::Passed => ("passed", String::new()),
            };
            if n > first {
                o.put(",");
            }
            o.put(&format!(
                "{{\"ancestorTitles\":[\"module {f}\"],\"fullName\":\"module {f} {title}\",\"status\":\"{status}\",\"title\":\"{title}\",\"duration\":1.5,\"failureMessages\":[{messages}],\"meta\":{{}},\"location\":{{\"line\":{},\"column\":5}}}}",
                n - first + 4
            ));
        }
        o.put(&format!(
            "],\"startTime\":1700000000000,\"endTime\":1700000000100,\"status\":\"{}\",\"message\":\"\",\"name\":\"{file}\"}}",
            if failed { "failed" } else { "passed" }
        ));
    }
    o.put("]}\n");
}

/// CTRF as the jest-ctrf-json-reporter writes it (pretty, two spaces): the summary before the
/// tests, a failure's `message` and `trace`, captured output in `stdout` lines.
pub fn ctrf(o: &mut Out, tests: u64) {
    let plan = Plan::of(tests);
    o.put(&format!(
        "{{\n  \"reportFormat\": \"CTRF\",\n  \"specVersion\": \"0.0.0\",\n  \"reportId\": \"6e7f2b9a-3c4d-4e5f-8a9b-0c1d2e3f4a5b\",\n  \"timestamp\": \"2026-11-22T08:00:00.000Z\",\n  \"generatedBy\": \"jest-ctrf-json-reporter\",\n  \"results\": {{\n    \"tool\": {{ \"name\": \"jest\" }},\n    \"summary\": {{ \"tests\": {tests}, \"passed\": {}, \"failed\": {}, \"pending\": 0, \"skipped\": {}, \"other\": 0, \"start\": 1795334400000, \"stop\": 1795334400750 }},\n    \"tests\": [\n",
        plan.passed(),
        plan.failed,
        plan.skipped
    ));
    for n in 1..=tests {
        let f = n / GROUP;
        let status = match kind(n) {
            Kind::Failed => "failed",
            Kind::Skipped => "skipped",
            Kind::Output | Kind::Passed => "passed",
        };
        o.put(&format!(
            "      {{\n        \"name\": \"Module {f} case {n}\",\n        \"duration\": 4,\n        \"status\": \"{status}\",\n"
        ));
        match kind(n) {
            Kind::Failed => o.put(&format!(
                "        \"message\": \"Error: expect(received).toBe(expected) // Object.is equality\\n\\nExpected: 3\\nReceived: 2\\n\",\n        \"trace\": \"at Object.toBe (/home/ci/shop/src/__tests__/module{f}.test.js:19:31)\\nat Promise.then.completed (/home/ci/shop/node_modules/jest-circus/build/utils.js:298:28)\",\n"
            )),
            Kind::Output => o.put(
                "        \"stdout\": [\n          \"captured line one\",\n          \"captured line two\"\n        ],\n",
            ),
            Kind::Skipped | Kind::Passed => {}
        }
        o.put(&format!(
            "        \"rawStatus\": \"{}\",\n        \"type\": \"unit\",\n        \"filePath\": \"/home/ci/shop/src/__tests__/module{f}.test.js\",\n        \"retries\": 0,\n        \"flaky\": false,\n        \"suite\": \"module{f}.test.js > Module {f}\"\n      }}{}\n",
            if status == "skipped" { "pending" } else { status },
            if n < tests { "," } else { "" }
        ));
    }
    o.put("    ]\n  }\n}\n");
}

/// Mocha's JSON reporter: `stats`, then `tests`, `pending`, `failures` and `passes`, each
/// test as the reporter cleans it (a failure's `err` with its stack and assertion fields).
pub fn mocha(o: &mut Out, tests: u64) {
    let plan = Plan::of(tests);
    o.put(&format!(
        "{{\n  \"stats\": {{\n    \"suites\": {},\n    \"tests\": {tests},\n    \"passes\": {},\n    \"pending\": {},\n    \"failures\": {},\n    \"start\": \"2026-11-29T06:32:57.826Z\",\n    \"end\": \"2026-11-29T06:34:12.833Z\",\n    \"duration\": 75007\n  }},\n",
        tests.div_ceil(GROUP),
        plan.passed(),
        plan.skipped,
        plan.failed
    ));
    let entry = |n: u64| {
        let f = n / GROUP;
        let head = format!(
            "    {{\n      \"title\": \"case {n}\",\n      \"fullTitle\": \"module {f} case {n}\",\n      \"file\": \"/ci/app/test/module{f}.spec.js\",\n"
        );
        match kind(n) {
            Kind::Failed => format!(
                "{head}      \"duration\": 1,\n      \"currentRetry\": 0,\n      \"err\": {{\n        \"stack\": \"AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\\n\\n2 !== 3\\n\\n    at Context.<anonymous> (test/module{f}.spec.js:8:12)\\n    at process.processImmediate (node:internal/timers:483:21)\",\n        \"message\": \"Expected values to be strictly equal:\\n\\n2 !== 3\\n\",\n        \"generatedMessage\": true,\n        \"name\": \"AssertionError\",\n        \"code\": \"ERR_ASSERTION\",\n        \"actual\": \"2\",\n        \"expected\": \"3\",\n        \"operator\": \"strictEqual\"\n      }}\n    }}"
            ),
            Kind::Skipped => {
                format!("{head}      \"currentRetry\": 0,\n      \"err\": {{}}\n    }}")
            }
            Kind::Output | Kind::Passed => format!(
                "{head}      \"duration\": 0,\n      \"currentRetry\": 0,\n      \"speed\": \"fast\",\n      \"err\": {{}}\n    }}"
            ),
        }
    };
    let list = |o: &mut Out, key: &str, keep: &dyn Fn(Kind) -> bool, last: bool| {
        o.put(&format!("  \"{key}\": ["));
        let mut first = true;
        for n in (1..=tests).filter(|&n| keep(kind(n))) {
            o.put(if first { "\n" } else { ",\n" });
            first = false;
            o.put(&entry(n));
        }
        o.put(if first { "]" } else { "\n  ]" });
        o.put(if last { "\n}\n" } else { ",\n" });
    };
    list(o, "tests", &|_| true, false);
    list(o, "pending", &|k| k == Kind::Skipped, false);
    list(o, "failures", &|k| k == Kind::Failed, false);
    list(
        o,
        "passes",
        &|k| matches!(k, Kind::Output | Kind::Passed),
        true,
    );
}
