//! Benchmark: the CTRF adapter reading generated documents from disk, as `gapscore` reads them
//! (`parse_reader`: the file read whole, then parsed from the slice).
//!
//! `cargo bench -p gapscore-adapter-ctrf --bench ctrf` generates two files and, each mode in its
//! own process (so the peak RSS printed is that mode's own), reads them with serde_json alone
//! skipping every value (`json`: the ceiling for a serde_json reader), into a sink that drops
//! everything (`null`: the reader's own cost), into a `RunCollector` (`parse`: what
//! `gapscore parse` keeps) and into a `Tally` (`score`: what `gapscore score` keeps), through the
//! SDK's shared bench helpers (`gapscore_adapter_testing::run_mode`). Each mode prints the
//! best of three runs, wall and on-CPU (the thread's own time, the steadier figure on a loaded
//! machine):
//! - `jest`: ~71 MB, 200,000 tests in jest-ctrf-json-reporter's shape (suite string, rawStatus,
//!   type, filePath, retries, flaky); 90 % pass, 6 % fail with message and trace, 2 % skipped,
//!   1 % `other`/todo, 1 % flaky with retries;
//! - `playwright`: ~76 MB, 120,000 tests in playwright-ctrf-json-reporter's shape (suite
//!   array, tags, steps, attachments, stdout, browser, ids; retryAttempts on flaky tests).

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)] // A bench binary.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use gapscore_adapter_ctrf::Ctrf;
use gapscore_adapter_sdk::ParseOptions;
use gapscore_adapter_testing::{
    BenchResult, bench_args, file_mb, run_in_own_process, run_mode, time_best,
};

/// Runs per mode; the best wall and the best on-CPU time are kept.
const RUNS: usize = 3;

fn jest(path: &Path, n: usize) {
    let mut w = BufWriter::new(File::create(path).unwrap());
    write!(
        w,
        r#"{{"reportFormat":"CTRF","specVersion":"0.0.0","reportId":"6e7f2b9a-3c4d-4e5f-8a9b-0c1d2e3f4a5b","timestamp":"2026-11-22T08:00:00.000Z","generatedBy":"jest-ctrf-json-reporter","results":{{"tool":{{"name":"jest","version":"29.7.0"}},"summary":{{"tests":{n},"passed":0,"failed":0,"skipped":0,"pending":0,"other":0,"start":1795334400000,"stop":1795334500000}},"tests":["#
    )
    .unwrap();
    for i in 0..n {
        if i > 0 {
            w.write_all(b",").unwrap();
        }
        let file = i / 50;
        let head = format!(
            "\n    {{\n      \"name\": \"Module{file} feature {} handles case number {i}\",\n      \"duration\": {},\n",
            i % 7,
            i % 300
        );
        let tail = format!(
            "      \"type\": \"unit\",\n      \"filePath\": \"/home/ci/app/src/__tests__/module{file}.test.js\",\n      \"suite\": \"module{file}.test.js > Module{file} > feature {}\"\n    }}",
            i % 7
        );
        let (status, extra) = match i % 100 {
            0..=89 => (
                "passed",
                "\"retries\": 0,\n      \"flaky\": false,\n".to_owned(),
            ),
            90..=95 => (
                "failed",
                format!(
                    "\"message\": \"Error: expect(received).toBe(expected) // Object.is equality\\n\\nExpected: {i}\\nReceived: {}\\n\",\n      \"trace\": \"at Object.toBe (/home/ci/app/src/__tests__/module{file}.test.js:{}:20)\\nat Promise.then.completed (/home/ci/app/node_modules/jest-circus/build/utils.js:298:28)\",\n      \"retries\": 0,\n      \"flaky\": false,\n",
                    i + 1,
                    i % 400
                ),
            ),
            96 | 97 => ("skipped", String::new()),
            98 => ("other", String::new()),
            _ => (
                "passed",
                "\"retries\": 2,\n      \"flaky\": true,\n".to_owned(),
            ),
        };
        let raw = if status == "other" { "todo" } else { status };
        write!(
            w,
            "{head}      \"status\": \"{status}\",\n      {extra}      \"rawStatus\": \"{raw}\",\n{tail}"
        )
        .unwrap();
    }
    writeln!(w, "\n  ]\n}}}}").unwrap();
}

fn playwright(path: &Path, n: usize) {
    let mut w = BufWriter::new(File::create(path).unwrap());
    write!(
        w,
        r#"{{"reportFormat":"CTRF","specVersion":"0.0.0","generatedBy":"playwright-ctrf-json-reporter","results":{{"tool":{{"name":"playwright","version":"1.49.1"}},"summary":{{"tests":{n},"passed":0,"failed":0,"skipped":0,"pending":0,"other":0,"start":1795334400000,"stop":1795334500000}},"tests":["#
    )
    .unwrap();
    for i in 0..n {
        if i > 0 {
            w.write_all(b",").unwrap();
        }
        let spec = i / 20;
        let (status, raw, more) = match i % 100 {
            0..=91 => ("passed", "passed", String::new()),
            92..=96 => (
                "failed",
                "failed",
                format!(r#","message":"Error: expect(locator).toBeVisible() failed\n\nLocator: getByRole('button', {{ name: 'Save {i}' }})\nExpected: visible\nTimeout: 5000ms","trace":"Error: expect(locator).toBeVisible() failed\n    at /home/ci/site/tests/spec{spec}.spec.ts:{}:74","snippet":"> 18 |   await expect(page.getByRole('button')).toBeVisible();","attachments":[{{"name":"screenshot","contentType":"image/png","path":"/home/ci/site/test-results/spec{spec}-{i}/test-failed-1.png"}}]"#, i % 300),
            ),
            97 => ("skipped", "skipped", String::new()),
            98 => ("failed", "timedOut", r#","message":"Test timeout of 30000ms exceeded.""#.to_owned()),
            _ => (
                "passed",
                "passed",
                r#","retryAttempts":[{"attempt":1,"status":"failed","duration":1500,"message":"Error: locator.click: Target closed","trace":"at tests/x.spec.ts:14:11","attachments":[]}]"#.to_owned(),
            ),
        };
        let retries = u8::from(i % 100 == 99);
        write!(
            w,
            r#"{{"testId":"{i:08x}-5f1c","executionId":"2d1f0c8e-1111-4a2b-9c3d-{i:012x}","name":"spec {spec} case {i} [edge_case] renders the widget","status":"{status}","duration":{},"start":1795334400100,"stop":1795334401532,"rawStatus":"{raw}","tags":["@smoke","@ui"],"type":"e2e","filePath":"/home/ci/site/tests/spec{spec}.spec.ts","retries":{retries},"flaky":{},"steps":[{{"name":"Before Hooks","status":"passed"}},{{"name":"page.goto(https://example.test/)","status":"passed"}},{{"name":"After Hooks","status":"passed"}}],"suite":["chromium","spec{spec}.spec.ts","Widget"],"browser":"chromium 131.0.6778.33","stdout":["rendering"],"stderr":[]{more}}}"#,
            i % 5000,
            retries == 1,
        )
        .unwrap();
    }
    writeln!(w, "]}}}}").unwrap();
}

fn run(mode: &str, path: &Path) {
    let result = if mode == "json" {
        // serde_json skipping every value: the ceiling for any serde_json reader.
        let timed = time_best(RUNS, || {
            let mut reader = BufReader::with_capacity(64 * 1024, File::open(path).unwrap());
            let mut bytes = Vec::new();
            reader.read_to_end(&mut bytes).unwrap();
            let v: serde::de::IgnoredAny = serde_json::from_slice(&bytes).unwrap();
            std::hint::black_box(v);
            0
        });
        BenchResult::new(file_mb(path), timed)
    } else {
        run_mode(
            &Ctrf::new(),
            &ParseOptions::default(),
            "ctrf-json",
            mode,
            path,
            RUNS,
        )
    };
    println!(
        "{:>10} {mode:>5}: {result}",
        path.file_stem().unwrap().to_string_lossy()
    );
}

fn main() {
    if let [mode, path] = bench_args().as_slice() {
        if mode == "gen" {
            // Only write the files into `path` (for profiling one mode by hand).
            let dir = Path::new(path);
            jest(&dir.join("jest.json"), 200_000);
            playwright(&dir.join("playwright.json"), 120_000);
        } else {
            run(mode, Path::new(path));
        }
        return;
    }
    let dir = std::env::temp_dir().join(format!("gapscore-ctrf-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = [dir.join("jest.json"), dir.join("playwright.json")];
    jest(&files[0], 200_000);
    playwright(&files[1], 120_000);
    for f in &files {
        for mode in ["json", "null", "parse", "score"] {
            run_in_own_process([std::ffi::OsStr::new(mode), f.as_os_str()]);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
