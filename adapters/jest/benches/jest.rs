//! Benchmark: the Jest adapter reading a generated `jest --json` file from disk, as `gapscore`
//! reads it (`Adapter::parse_reader`: the whole document, then one typed, borrowed pass).
//!
//! `cargo bench -p gapscore-adapter-jest --bench jest` generates the file and, each mode in its
//! own process (so the peak RSS printed is that mode's own), skips it with serde_json alone
//! (`json`: the ceiling for a serde_json reader), reads it into a sink that drops
//! everything (`null`: the reader's own cost), into a `RunCollector` (`parse`: what
//! `gapscore parse` keeps) and into a `Tally` (`score`: what `gapscore score` keeps), through the
//! SDK's shared bench helpers (`gapscore_adapter_testing::run_mode`). Each mode prints the
//! best of three runs, wall and on-CPU (the thread's own time, the steadier figure on a loaded
//! machine), and checks every test was read with no problem or warning.
//! The file has Jest 30's full key set: ~85 MB, 200,000 tests in 1,000 files, two levels of
//! describe blocks; 90 % pass, 6 % fail with a message, a stack trace and a `matcherResult`,
//! 2 % pending, 1 % todo, 1 % passed after a retry.

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)] // A bench binary.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use gapscore_adapter_jest::Jest;
use gapscore_adapter_sdk::ParseOptions;
use gapscore_adapter_testing::{
    BenchResult, bench_args, file_mb, run_in_own_process, run_mode, time_best,
};

/// Runs per mode; the best wall and the best on-CPU time are kept.
const RUNS: usize = 3;

const FILES: usize = 1000;
const PER_FILE: usize = 200;

fn generate(path: &Path) {
    let mut w = BufWriter::new(File::create(path).unwrap());
    let total = FILES * PER_FILE;
    let (mut passed, mut failed, mut pending, mut todo) = (0, 0, 0, 0);
    for n in 0..total {
        match n % 100 {
            0..=5 => failed += 1,
            6 | 7 => pending += 1,
            8 => todo += 1,
            _ => passed += 1,
        }
    }
    write!(w, r#"{{"numFailedTestSuites":{FILES},"numFailedTests":{failed},"numPassedTestSuites":0,"numPassedTests":{passed},"numPendingTestSuites":0,"numPendingTests":{pending},"numRuntimeErrorTestSuites":0,"numTodoTests":{todo},"numTotalTestSuites":{FILES},"numTotalTests":{total},"openHandles":[],"snapshot":{{"added":0,"didUpdate":false,"failure":false,"filesAdded":0,"filesRemoved":0,"filesRemovedList":[],"filesUnmatched":0,"filesUpdated":0,"matched":0,"total":0,"unchecked":0,"uncheckedKeysByFile":[],"unmatched":0,"updated":0}},"startTime":1795337181510,"success":false,"testResults":["#).unwrap();
    let mut n = 0usize;
    for f in 0..FILES {
        if f > 0 {
            w.write_all(b",").unwrap();
        }
        w.write_all(br#"{"assertionResults":["#).unwrap();
        for c in 0..PER_FILE {
            if c > 0 {
                w.write_all(b",").unwrap();
            }
            let outer = format!("module{} behaviour", c / 50);
            let inner = format!("case group {}", c / 10);
            let title = format!("handles input number {c} correctly");
            let (status, duration, messages, details, retries, invocations) = match n % 100 {
                0..=5 => (
                    "failed",
                    "3",
                    format!(
                        r#""Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: {c}\nReceived: {}\n    at Object.toBe (/home/ci/project/src/module{f}.test.js:{c}:21)\n    at Promise.finally.completed (/home/ci/project/node_modules/jest-circus/build/jestAdapterInit.js:1834:28)\n    at new Promise (<anonymous>)\n    at callAsyncCircusFn (/home/ci/project/node_modules/jest-circus/build/jestAdapterInit.js:1774:10)\n    at _callCircusTest (/home/ci/project/node_modules/jest-circus/build/jestAdapterInit.js:1167:40)""#,
                        c + 1
                    ),
                    format!(
                        r#"{{"matcherResult":{{"actual":{},"expected":{c},"message":"expect(received).toBe(expected) // Object.is equality\n\nExpected: {c}\nReceived: {}","name":"toBe","pass":false}}}}"#,
                        c + 1,
                        c + 1
                    ),
                    String::new(),
                    1,
                ),
                6 | 7 => (
                    "pending",
                    "null",
                    String::new(),
                    String::new(),
                    String::new(),
                    1,
                ),
                8 => (
                    "todo",
                    "null",
                    String::new(),
                    String::new(),
                    String::new(),
                    1,
                ),
                9 => (
                    "passed",
                    "12",
                    String::new(),
                    String::new(),
                    r#""Error: timeout of 5000ms exceeded""#.to_owned(),
                    2,
                ),
                _ => (
                    "passed",
                    "2",
                    String::new(),
                    String::new(),
                    String::new(),
                    1,
                ),
            };
            write!(
                w,
                r#"{{"ancestorTitles":["{outer}","{inner}"],"duration":{duration},"failing":false,"failureDetails":[{details}],"failureMessages":[{messages}],"fullName":"{outer} {inner} {title}","invocations":{invocations},"location":null,"numPassingAsserts":1,"retryMessages":[],"retryReasons":[{retries}],"status":"{status}","title":"{title}","startAt":1795337181653}}"#
            )
            .unwrap();
            n += 1;
        }
        write!(w, r#"],"endTime":1795337181683,"message":"  ● some failures in this file\n\n    see above\n","name":"/home/ci/project/src/module{f}.test.js","startTime":1795337181591,"status":"failed","summary":""}}"#).unwrap();
    }
    w.write_all(br#"],"wasInterrupted":false}"#).unwrap();
}

fn run(mode: &str, path: &Path) {
    let result = if mode == "json" {
        // serde_json skipping the whole document: the ceiling for any serde_json reader.
        let timed = time_best(RUNS, || {
            let mut reader = BufReader::with_capacity(64 * 1024, File::open(path).unwrap());
            let mut bytes = Vec::new();
            reader.read_to_end(&mut bytes).unwrap();
            serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).unwrap();
            FILES * PER_FILE
        });
        BenchResult::new(file_mb(path), timed)
    } else {
        run_mode(
            &Jest::new(),
            &ParseOptions::default(),
            "jest-json",
            mode,
            path,
            RUNS,
        )
    };
    assert_eq!(result.tests, FILES * PER_FILE);
    assert!(result.problems == 0 && result.warnings == 0, "{result:?}");
    println!(
        "{:>6} {mode:>5}: {result}",
        path.file_stem().unwrap().to_string_lossy()
    );
}

fn main() {
    if let [mode, path] = bench_args().as_slice() {
        run(mode, Path::new(path));
        return;
    }
    let dir = std::env::temp_dir().join(format!("gapscore-jest-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("jest.json");
    generate(&file);
    for mode in ["json", "null", "parse", "score"] {
        run_in_own_process([std::ffi::OsStr::new(mode), file.as_os_str()]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
