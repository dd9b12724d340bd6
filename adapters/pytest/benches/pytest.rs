//! Benchmark: the pytest adapter reading generated files from disk, as `gapscore` reads them.
//!
//! `cargo bench -p gapscore-adapter-pytest --bench pytest` generates two files shaped like the
//! corpus's real output (pytest 9.2 with pytest-json-report 1.5 and pytest-reportlog 1.0: every
//! test with keywords and three phases; 96 % pass, 2.5 % fail with a traceback, 1 % skipped,
//! 0.5 % setup errors) and, each mode in its own process (so the peak RSS printed is that mode's
//! own), reads them with `parse_reader` into a sink that drops everything (`null`: the reader's
//! own cost), into a `RunCollector` (`parse`: what `gapscore parse` keeps) and into a `Tally`
//! (`score`: what `gapscore score` keeps), through the SDK's shared bench helpers
//! (`gapscore_adapter_testing::run_mode`). Each mode prints the best of three runs, wall
//! and on-CPU (the thread's own time, the steadier figure on a loaded machine):
//! - `report.json`: pytest-json-report, 240,000 tests (~100 MB, one line);
//! - `reportlog.jsonl`: pytest-reportlog, 100,000 tests, 300,000 records (~100 MB).

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)] // A bench binary.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use gapscore_adapter_pytest::{FORMAT_JSON_REPORT, FORMAT_REPORTLOG, Pytest};
use gapscore_adapter_sdk::ParseOptions;
use gapscore_adapter_testing::{bench_args, run_in_own_process, run_mode};

/// Runs per mode; the best wall and the best on-CPU time are kept.
const RUNS: usize = 3;

const LONGREPR: &str = "n = 3\\n\\n    @pytest.mark.parametrize('n', CASES)\\n    def test_case(n):\\n        if n % 125 == 3:\\n>           assert n * 2 == n + 1, f'case {n}'\\nE           AssertionError: case 3\\nE           assert (3 * 2) == (3 + 1)\\n\\ntests/test_big.py:10: AssertionError";

fn json_report(path: &Path, n: usize) {
    let mut w = BufWriter::new(File::create(path).unwrap());
    write!(w, r#"{{"created": 1795337176.27, "duration": 812.5, "exitcode": 1, "root": "/proj", "environment": {{}}, "summary": {{"passed": {}, "failed": {}, "skipped": {}, "error": {}, "total": {n}, "collected": {n}}}, "collectors": [{{"nodeid": "", "outcome": "passed", "result": [{{"nodeid": "tests/test_big.py", "type": "Module"}}]}}], "tests": ["#,
        n - n / 40 - n / 100 - n / 200, n / 40, n / 100, n / 200).unwrap();
    for i in 0..n {
        if i > 0 {
            w.write_all(b", ").unwrap();
        }
        let id = format!("tests/test_big.py::TestSuite{}::test_case[{i}]", i / 1000);
        let head = format!(r#"{{"nodeid": "{id}", "lineno": 4, "outcome": "#);
        let kw = format!(
            r#""keywords": ["test_case[{i}]", "parametrize", "pytestmark", "{i}", "TestSuite{}", "test_big.py", "tests", "proj", ""]"#,
            i / 1000
        );
        let ok = |d: f64| format!(r#"{{"duration": {d}, "outcome": "passed"}}"#);
        match i % 200 {
            0..=4 => write!(w, r#"{head}"failed", {kw}, "setup": {}, "call": {{"duration": 0.00030028799994852307, "outcome": "failed", "crash": {{"path": "/proj/tests/test_big.py", "lineno": 10, "message": "AssertionError: case {i}\nassert (3 * 2) == (3 + 1)"}}, "traceback": [{{"path": "tests/test_big.py", "lineno": 10, "message": "AssertionError"}}], "longrepr": "{LONGREPR}"}}, "teardown": {}}}"#, ok(0.00010148199999093777), ok(0.00010789100008423702)).unwrap(),
            5 | 6 => write!(w, r#"{head}"skipped", {kw}, "setup": {}, "call": {{"duration": 0.0010338050000200383, "outcome": "skipped", "longrepr": "('/proj/tests/test_big.py', 8, 'Skipped: skip {i}')"}}, "teardown": {}}}"#, ok(0.00010115700001733785), ok(8.376999994652579e-05)).unwrap(),
            7 => write!(w, r#"{head}"error", {kw}, "setup": {{"duration": 0.000198554000007789, "outcome": "failed", "crash": {{"path": "/proj/tests/conftest.py", "lineno": 11, "message": "FileNotFoundError: config.ini"}}, "longrepr": "E   FileNotFoundError: config.ini\n\ntests/conftest.py:11: FileNotFoundError"}}, "teardown": {}}}"#, ok(9.345000000848813e-05)).unwrap(),
            _ => write!(w, r#"{head}"passed", {kw}, "setup": {}, "call": {}, "teardown": {}}}"#, ok(0.0003694429999541171), ok(9.371699991334026e-05), ok(0.00013200399996549095)).unwrap(),
        }
    }
    w.write_all(b"]}\n").unwrap();
}

fn reportlog(path: &Path, n: usize) {
    let mut w = BufWriter::new(File::create(path).unwrap());
    writeln!(
        w,
        r#"{{"pytest_version": "9.2.0", "$report_type": "SessionStart"}}"#
    )
    .unwrap();
    writeln!(w, r#"{{"outcome": "passed", "longrepr": null, "result": null, "sections": [], "nodeid": "tests/test_big.py", "$report_type": "CollectReport"}}"#).unwrap();
    for i in 0..n {
        let id = format!("tests/test_big.py::test_case[{i}]");
        let common = format!(
            r#"{{"location": ["tests/test_big.py", 4, "test_case[{i}]"], "keywords": {{"test_case[{i}]": 1, "parametrize": 1, "pytestmark": 1, "{i}": 1, "test_big.py": 1, "tests": 1, "proj": 1, "": 1}}, "#
        );
        let tail = |when: &str, extra: &str| {
            format!(
                r#""when": "{when}", "user_properties": [], "sections": [], "duration": 0.00021226499995918857, "start": 1795337177.6643085, "stop": 1795337177.6645207, {extra}"nodeid": "{id}", "$report_type": "TestReport"}}"#
            )
        };
        let passed = r#""outcome": "passed", "longrepr": null, "#;
        writeln!(
            w,
            "{common}{passed}{}",
            tail("setup", r#""_json_report_extra": {"setup": {"log": []}}, "#)
        )
        .unwrap();
        let call = match i % 100 {
            0..=2 => format!(
                r#""outcome": "failed", "longrepr": {{"reprcrash": {{"path": "/proj/tests/test_big.py", "lineno": 10, "message": "AssertionError: case {i}"}}, "reprtraceback": {{"reprentries": [{{"type": "ReprEntry", "data": {{"lines": ["    def test_case(n):", ">       assert n * 2 == n + 1", "E       AssertionError: case {i}"], "reprfuncargs": {{"args": [["n", "{i}"]]}}, "reprlocals": null, "reprfileloc": {{"path": "tests/test_big.py", "lineno": 10, "message": "AssertionError"}}, "style": "long"}}}}], "extraline": null, "style": "long"}}, "sections": [], "chain": []}}, "#
            ),
            3 => format!(
                r#""outcome": "skipped", "longrepr": ["/proj/tests/test_big.py", 8, "Skipped: skip {i}"], "#
            ),
            _ => passed.to_owned(),
        };
        writeln!(
            w,
            "{common}{call}{}",
            tail(
                "call",
                r#""_json_report_extra": {"setup": {"log": []}, "call": {"log": []}}, "#
            )
        )
        .unwrap();
        writeln!(w, "{common}{passed}{}", tail("teardown", r#""_json_report_extra": {"setup": {"log": []}, "call": {"log": []}, "teardown": {"log": []}}, "#)).unwrap();
    }
    writeln!(w, r#"{{"exitstatus": 1, "$report_type": "SessionFinish"}}"#).unwrap();
}

fn run(mode: &str, path: &Path) {
    let format = if path.extension().is_some_and(|e| e == "jsonl") {
        FORMAT_REPORTLOG
    } else {
        FORMAT_JSON_REPORT
    };
    let mut opts = ParseOptions::default();
    opts.format_id = Some(format.to_owned());
    let result = run_mode(&Pytest::new(), &opts, format, mode, path, RUNS);
    println!(
        "{:>16} {mode:>5}: {result}",
        path.file_name().unwrap().to_string_lossy()
    );
}

fn main() {
    if let [mode, path] = bench_args().as_slice() {
        run(mode, Path::new(path));
        return;
    }
    // `PYTEST_BENCH_DIR` keeps the generated files there (for profiling a single mode).
    let keep = std::env::var_os("PYTEST_BENCH_DIR");
    let dir = keep.clone().map_or_else(
        || std::env::temp_dir().join(format!("gapscore-pytest-bench-{}", std::process::id())),
        Into::into,
    );
    std::fs::create_dir_all(&dir).unwrap();
    let files = [dir.join("report.json"), dir.join("reportlog.jsonl")];
    json_report(&files[0], 240_000);
    reportlog(&files[1], 100_000);
    for f in &files {
        for mode in ["null", "parse", "score"] {
            run_in_own_process([std::ffi::OsStr::new(mode), f.as_os_str()]);
        }
    }
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
