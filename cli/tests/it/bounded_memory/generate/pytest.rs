//! pytest's three formats: pytest-json-report's document (with its `collectors`, which list
//! every test again), pytest-reportlog's record a phase, and the `-v` console output. Each as
//! pytest 9.2 writes it (compare `adapters/pytest/tests/fixtures/real`).

use super::out::{CAPTURED, Kind, Out, Plan, js, kind};

/// Tests per module.
const MODULE: u64 = 200;

fn nodeid(n: u64) -> String {
    format!("tests/test_m{}.py::test_case_{n}", n / MODULE)
}

const LONGREPR: &str = "def test_case():\n>       assert add(1, 1) == 3\nE       assert 2 == 3\nE        +  where 2 = add(1, 1)\n\ntests/test_m.py:12: AssertionError";

/// pytest-json-report 1.5: the session's keys and summary, `collectors` (the root, then each
/// module listing its tests), then `tests` with their setup, call and teardown.
pub fn json_report(o: &mut Out, tests: u64) {
    let plan = Plan::of(tests);
    o.put(&format!(
        "{{\"created\": 1795337176.27, \"duration\": 812.5, \"exitcode\": {}, \"root\": \"/ci/proj\", \"environment\": {{\"Python\": \"3.11.7\", \"Platform\": \"Linux-6.1.0-x86_64-with-glibc2.36\", \"Packages\": {{\"pytest\": \"9.2.0\", \"pluggy\": \"1.7.0\"}}, \"Plugins\": {{\"json-report\": \"1.5.0\", \"metadata\": \"3.1.1\"}}}}, \"summary\": {{\"passed\": {}, \"failed\": {}, \"skipped\": {}, \"total\": {tests}, \"collected\": {tests}}}, \"collectors\": [{{\"nodeid\": \"\", \"outcome\": \"passed\", \"result\": [{{\"nodeid\": \"tests\", \"type\": \"Dir\"}}]}}, {{\"nodeid\": \"tests\", \"outcome\": \"passed\", \"result\": [",
        u8::from(plan.failed > 0),
        plan.passed(),
        plan.failed,
        plan.skipped
    ));
    for m in 0..=tests / MODULE {
        if m > 0 {
            o.put(", ");
        }
        o.put(&format!(
            "{{\"nodeid\": \"tests/test_m{m}.py\", \"type\": \"Module\"}}"
        ));
    }
    o.put("]}");
    for m in 0..=tests / MODULE {
        o.put(&format!(
            ", {{\"nodeid\": \"tests/test_m{m}.py\", \"outcome\": \"passed\", \"result\": ["
        ));
        let first = (m * MODULE).max(1);
        let last = ((m + 1) * MODULE - 1).min(tests);
        for n in first..=last {
            if n > first {
                o.put(", ");
            }
            o.put(&format!(
                "{{\"nodeid\": \"{}\", \"type\": \"Function\", \"lineno\": {}}}",
                nodeid(n),
                n % MODULE * 4 + 10
            ));
        }
        o.put("]}");
    }
    o.put("], \"tests\": [");
    for n in 1..=tests {
        let id = nodeid(n);
        let name = format!("test_case_{n}");
        let head = format!(
            "{{\"nodeid\": \"{id}\", \"lineno\": {}, \"outcome\": \"{}\", \"keywords\": [\"{name}\", \"test_m{}.py\", \"tests\", \"proj\", \"\"], ",
            n % MODULE * 4 + 10,
            match kind(n) {
                Kind::Failed => "failed",
                Kind::Skipped => "skipped",
                Kind::Output | Kind::Passed => "passed",
            },
            n / MODULE
        );
        let setup = "\"setup\": {\"duration\": 0.00011751499994261394, \"outcome\": \"passed\"}";
        let teardown =
            "\"teardown\": {\"duration\": 8.431000003383815e-05, \"outcome\": \"passed\"}";
        let body = match kind(n) {
            Kind::Failed => format!(
                "{setup}, \"call\": {{\"duration\": 0.0002697720000242043, \"outcome\": \"failed\", \"crash\": {{\"path\": \"/ci/proj/tests/test_m.py\", \"lineno\": 12, \"message\": \"assert 2 == 3\\n +  where 2 = add(1, 1)\"}}, \"traceback\": [{{\"path\": \"tests/test_m.py\", \"lineno\": 12, \"message\": \"AssertionError\"}}], \"stdout\": {}, \"longrepr\": {}}}, {teardown}",
                js(CAPTURED),
                js(LONGREPR)
            ),
            Kind::Skipped => format!(
                "\"setup\": {{\"duration\": 5.80600000148479e-05, \"outcome\": \"skipped\", \"longrepr\": \"('/ci/proj/tests/test_m{}.py', 31, 'Skipped: requires network access')\"}}, {teardown}",
                n / MODULE
            ),
            Kind::Output => format!(
                "{setup}, \"call\": {{\"duration\": 7.407900000089285e-05, \"outcome\": \"passed\", \"stdout\": {}}}, {teardown}",
                js(CAPTURED)
            ),
            Kind::Passed => format!(
                "{setup}, \"call\": {{\"duration\": 7.407900000089285e-05, \"outcome\": \"passed\"}}, {teardown}"
            ),
        };
        o.put(if n > 1 { ", " } else { "" });
        o.put(&format!("{head}{body}}}"));
    }
    o.put("]}");
}

/// pytest-reportlog: `SessionStart`, a `CollectReport` per module, a `TestReport` per phase
/// of each test (a failure's `longrepr` as pytest serialises it, captured output in
/// `sections`, a skip's `[path, line, reason]`), `SessionFinish` with the exit status.
pub fn reportlog(o: &mut Out, tests: u64) {
    o.put("{\"pytest_version\": \"9.2.0\", \"$report_type\": \"SessionStart\"}\n");
    for m in 0..=tests / MODULE {
        o.put(&format!(
            "{{\"outcome\": \"passed\", \"longrepr\": null, \"result\": null, \"sections\": [], \"nodeid\": \"tests/test_m{m}.py\", \"$report_type\": \"CollectReport\"}}\n"
        ));
    }
    for n in 1..=tests {
        let id = nodeid(n);
        let m = n / MODULE;
        let line = n % MODULE * 4 + 10;
        let record = |when: &str, outcome: &str, longrepr: &str, sections: &str| {
            format!(
                "{{\"nodeid\": \"{id}\", \"location\": [\"tests/test_m{m}.py\", {line}, \"test_case_{n}\"], \"keywords\": {{\"test_case_{n}\": 1, \"test_m{m}.py\": 1, \"tests\": 1, \"proj\": 1, \"\": 1}}, \"outcome\": \"{outcome}\", \"longrepr\": {longrepr}, \"when\": \"{when}\", \"user_properties\": [], \"sections\": [{sections}], \"duration\": 0.00011152199999742152, \"start\": 1795337176.8940625, \"stop\": 1795337176.894175, \"$report_type\": \"TestReport\"}}\n"
            )
        };
        let out = format!("[\"Captured stdout call\", {}]", js(CAPTURED));
        match kind(n) {
            Kind::Skipped => {
                o.put(&record(
                    "setup",
                    "skipped",
                    &format!("[\"/ci/proj/tests/test_m{m}.py\", 31, \"Skipped: requires network access\"]"),
                    "",
                ));
                o.put(&record("teardown", "passed", "null", ""));
            }
            k => {
                o.put(&record("setup", "passed", "null", ""));
                match k {
                    Kind::Failed => o.put(&record(
                        "call",
                        "failed",
                        &format!(
                            "{{\"reprcrash\": {{\"path\": \"/ci/proj/tests/test_m{m}.py\", \"lineno\": 12, \"message\": \"assert 2 == 3\"}}, \"reprtraceback\": {{\"reprentries\": [{{\"type\": \"ReprEntry\", \"data\": {{\"lines\": [\"    def test_case():\", \">       assert add(1, 1) == 3\", \"E       assert 2 == 3\"], \"reprfuncargs\": {{\"args\": []}}, \"reprlocals\": null, \"reprfileloc\": {{\"path\": \"tests/test_m{m}.py\", \"lineno\": 12, \"message\": \"AssertionError\"}}, \"style\": \"long\"}}}}], \"extraline\": null, \"style\": \"long\"}}, \"sections\": [], \"chain\": null}}"
                        ),
                        &out,
                    )),
                    Kind::Output => o.put(&record("call", "passed", "null", &out)),
                    _ => o.put(&record("call", "passed", "null", "")),
                }
                o.put(&record(
                    "teardown",
                    "passed",
                    "null",
                    if k == Kind::Passed { "" } else { &out },
                ));
            }
        }
    }
    o.put(&format!(
        "{{\"exitstatus\": {}, \"$report_type\": \"SessionFinish\"}}\n",
        u8::from(Plan::of(tests).failed > 0)
    ));
}

/// `pytest -v` console output: the banner, a line per test with its progress, each failure's
/// section with its captured output, the short summary and the counts line.
pub fn text(o: &mut Out, tests: u64) {
    let plan = Plan::of(tests);
    o.put(&format!(
        "============================= test session starts ==============================\nplatform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.7.0 -- /venv/bin/python\ncachedir: .pytest_cache\nrootdir: /ci/proj\ncollecting ... collected {tests} items\n\n"
    ));
    for n in 1..=tests {
        let word = match kind(n) {
            Kind::Failed => "FAILED",
            Kind::Skipped => "SKIPPED (requires network access)",
            Kind::Output | Kind::Passed => "PASSED",
        };
        o.put(&format!("{} {word} [{:3}%]\n", nodeid(n), n * 100 / tests));
    }
    if plan.failed > 0 {
        o.put(
            "\n=================================== FAILURES ===================================\n",
        );
        for n in (1..=tests).filter(|&n| kind(n) == Kind::Failed) {
            o.put(&format!(
                "_______________________________ test_case_{n} ________________________________\n\n{LONGREPR}\n----------------------------- Captured stdout call -----------------------------\n{CAPTURED}"
            ));
        }
        o.put("=========================== short test summary info ============================\n");
        for n in (1..=tests).filter(|&n| kind(n) == Kind::Failed) {
            o.put(&format!("FAILED {} - assert 2 == 3\n", nodeid(n)));
        }
    }
    o.put(&format!(
        "============ {} failed, {} passed, {} skipped in 812.50s (0:13:32) =============\n",
        plan.failed,
        plan.passed(),
        plan.skipped
    ));
}
