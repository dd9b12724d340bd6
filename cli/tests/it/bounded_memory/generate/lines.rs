//! Formats read a line at a time: `go test -json` and `go test -v`, TAP, libtest's JSON
//! events. Each is written as its tool writes it (compare the adapters' `fixtures/real`).

use super::out::{CAPTURED, Kind, Out, Plan, js, kind};

/// Tests per Go package, TAP file and libtest binary.
const GROUP: u64 = 500;

/// The groups of `tests` tests: (first test's number, group index, tests in it).
fn groups(tests: u64) -> impl Iterator<Item = (u64, u64, u64)> {
    (0..tests.div_ceil(GROUP)).map(move |g| {
        let first = g * GROUP + 1;
        (first, g, GROUP.min(tests + 1 - first))
    })
}

/// A `go test -json` stream: each test's run, output and result events; a failure's located
/// message, a skip's reason; each package's verdict line and result.
pub fn go_json(o: &mut Out, tests: u64) {
    let t = "\"Time\":\"2026-11-23T05:00:00.123456789Z\"";
    for (first, p, len) in groups(tests) {
        let pkg = format!("example.com/big/pkg{p}");
        let plan = Plan::range(first, len);
        for n in first..first + len {
            let test = format!("TestCase{n}");
            let ev = |action: &str, extra: &str| {
                format!(
                    "{{{t},\"Action\":\"{action}\",\"Package\":\"{pkg}\",\"Test\":\"{test}\"{extra}}}\n"
                )
            };
            let out = |text: &str| ev("output", &format!(",\"Output\":{}", js(text)));
            o.put(&ev("run", ""));
            o.put(&out(&format!("=== RUN   {test}\n")));
            match kind(n) {
                Kind::Failed => {
                    o.put(&out("    calc_test.go:42: Add(1, 2) = 3; want 2\n"));
                    o.put(&out(&format!("--- FAIL: {test} (0.00s)\n")));
                    o.put(&ev("fail", ",\"Elapsed\":0"));
                }
                Kind::Skipped => {
                    o.put(&out("    calc_test.go:50: needs the network\n"));
                    o.put(&out(&format!("--- SKIP: {test} (0.00s)\n")));
                    o.put(&ev("skip", ",\"Elapsed\":0"));
                }
                k => {
                    if k == Kind::Output {
                        for line in CAPTURED.lines() {
                            o.put(&out(&format!("    calc_test.go:61: {line}\n")));
                        }
                    }
                    o.put(&out(&format!("--- PASS: {test} (0.00s)\n")));
                    o.put(&ev("pass", ",\"Elapsed\":0"));
                }
            }
        }
        let verdict = if plan.failed > 0 { "fail" } else { "pass" };
        o.put(&format!(
            "{{{t},\"Action\":\"output\",\"Package\":\"{pkg}\",\"Output\":\"{}\\n\"}}\n",
            verdict.to_uppercase()
        ));
        o.put(&format!(
            "{{{t},\"Action\":\"{verdict}\",\"Package\":\"{pkg}\",\"Elapsed\":1.5}}\n"
        ));
    }
}

/// `go test -v ./...` console output: `=== RUN`, the test's log lines, `--- PASS/FAIL/SKIP`,
/// then each package's `PASS`/`FAIL` and `ok`/`FAIL` line.
pub fn go_text(o: &mut Out, tests: u64) {
    for (first, p, len) in groups(tests) {
        let pkg = format!("example.com/big/pkg{p}");
        let plan = Plan::range(first, len);
        for n in first..first + len {
            let test = format!("TestCase{n}");
            o.put(&format!("=== RUN   {test}\n"));
            let verdict = match kind(n) {
                Kind::Failed => {
                    o.put("    calc_test.go:42: Add(1, 2) = 3; want 2\n");
                    "FAIL"
                }
                Kind::Skipped => {
                    o.put("    calc_test.go:50: needs the network\n");
                    "SKIP"
                }
                Kind::Output => {
                    for line in CAPTURED.lines() {
                        o.put(&format!("    calc_test.go:61: {line}\n"));
                    }
                    "PASS"
                }
                Kind::Passed => "PASS",
            };
            o.put(&format!("--- {verdict}: {test} (0.00s)\n"));
        }
        if plan.failed > 0 {
            o.put(&format!("FAIL\nFAIL\t{pkg}\t1.502s\n"));
        } else {
            o.put(&format!("PASS\nok  \t{pkg}\t1.502s\n"));
        }
    }
    if Plan::of(tests).failed > 0 {
        o.put("FAIL\n");
    }
}

/// `prove -v` over test files: each file's plan, its points (a failure's YAML diagnostics as
/// node-tap writes them, Test::More's `#` comments for output, `# SKIP` with a reason), and
/// prove's summary.
pub fn tap(o: &mut Out, tests: u64) {
    let mut failed_files = Vec::new();
    for (first, f, len) in groups(tests) {
        let file = format!("t/unit{f}.t");
        o.put(&format!("{file} .. \n1..{len}\n"));
        let plan = Plan::range(first, len);
        for (i, n) in (first..first + len).enumerate() {
            let point = i + 1;
            match kind(n) {
                Kind::Failed => o.put(&format!(
                    "not ok {point} - test_case_{n}\n  ---\n  message: 'assert 2 == 3'\n  severity: fail\n  at:\n    file: {file}\n    line: 12\n  ...\n#   Failed test 'test_case_{n}'\n#   at {file} line 12.\n#          got: '2'\n#     expected: '3'\n"
                )),
                Kind::Skipped => o.put(&format!("ok {point} # SKIP needs the network\n")),
                Kind::Output => {
                    for line in CAPTURED.lines() {
                        o.put(&format!("# {line}\n"));
                    }
                    o.put(&format!("ok {point} - test_case_{n}\n"));
                }
                Kind::Passed => o.put(&format!("ok {point} - test_case_{n}\n")),
            }
        }
        if plan.failed > 0 {
            o.put(&format!(
                "# Looks like you failed {} tests of {len}.\nDubious, test returned {} (wstat 256, 0x100)\nFailed {}/{len} subtests \n",
                plan.failed, plan.failed, plan.failed
            ));
            failed_files.push((file, len, plan.failed));
        } else {
            o.put("ok\n");
        }
    }
    if !failed_files.is_empty() {
        o.put("\nTest Summary Report\n-------------------\n");
        for (file, len, failed) in &failed_files {
            o.put(&format!(
                "{file} (Wstat: 256 (exited {failed}) Tests: {len} Failed: {failed})\n  Non-zero exit status: {failed}\n"
            ));
        }
    }
    o.put(&format!(
        "Files={}, Tests={tests}, 12 wallclock secs\nResult: {}\n",
        tests.div_ceil(GROUP),
        if failed_files.is_empty() {
            "PASS"
        } else {
            "FAIL"
        }
    ));
}

/// `cargo test -- -Z unstable-options --format json --show-output` over several test
/// binaries: each suite's start with its count, each test's start and result (a panic's
/// message in `stdout`), the suite's end with its counts.
pub fn libtest(o: &mut Out, tests: u64) {
    for (first, _, len) in groups(tests) {
        let plan = Plan::range(first, len);
        o.put(&format!(
            "{{ \"type\": \"suite\", \"event\": \"started\", \"test_count\": {len} }}\n"
        ));
        for n in first..first + len {
            let name = format!("tests::module_{}::test_case_{n}", n / 20);
            o.put(&format!(
                "{{ \"type\": \"test\", \"event\": \"started\", \"name\": \"{name}\" }}\n"
            ));
            let rest = match kind(n) {
                Kind::Failed => format!(
                    "\"event\": \"failed\", \"exec_time\": 0.000412, \"stdout\": {}",
                    js(&format!(
                        "\nthread '{name}' panicked at src/lib.rs:42:9:\nassertion `left == right` failed\n  left: 2\n right: 3\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
                    ))
                ),
                Kind::Skipped => {
                    "\"event\": \"ignored\", \"message\": \"needs the network\"".into()
                }
                Kind::Output => format!(
                    "\"event\": \"ok\", \"exec_time\": 0.000107, \"stdout\": {}",
                    js(CAPTURED)
                ),
                Kind::Passed => "\"event\": \"ok\", \"exec_time\": 0.000107".into(),
            };
            o.put(&format!(
                "{{ \"type\": \"test\", \"name\": \"{name}\", {rest} }}\n"
            ));
        }
        o.put(&format!(
            "{{ \"type\": \"suite\", \"event\": \"{}\", \"passed\": {}, \"failed\": {}, \"ignored\": {}, \"measured\": 0, \"filtered_out\": 0, \"exec_time\": 1.25 }}\n",
            if plan.failed > 0 { "failed" } else { "ok" },
            plan.passed(),
            plan.failed,
            plan.skipped
        ));
    }
}
