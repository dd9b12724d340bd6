//! Benchmark: the Jest adapter reading a generated `jest --json` file from disk, as `gapscore`
//! reads it (`Adapter::parse_reader`: the whole document, then one typed, borrowed pass).
//!
//! `cargo bench -p gapscore-adapter-jest --bench jest` generates the file and, each mode in its
//! own process (so the peak RSS printed is that mode's own), skips it with serde_json alone
//! (`json`: the ceiling for a serde_json reader), reads it into a sink that drops
//! everything (`null`: the reader's own cost), into a `RunCollector` (`parse`: what
//! `gapscore parse` keeps) and into a `Tally` (`score`: what `gapscore score` keeps).
//! The file has Jest 30's full key set: ~85 MB, 200,000 tests in 1,000 files, two levels of
//! describe blocks; 90 % pass, 6 % fail with a message, a stack trace and a `matcherResult`,
//! 2 % pending, 1 % todo, 1 % passed after a retry.

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)] // A bench binary.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use gapscore_adapter_jest::Jest;
use gapscore_adapter_sdk::testing::peak_rss_mib;
use gapscore_adapter_sdk::{Adapter, Normalizer, ParseOptions, RunCollector};
use gapscore_core::{StatusPolicy, Tally};

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

/// Drops every event: the reader's own cost.
struct Null(usize);

impl gapscore_adapter_sdk::EventSink for Null {
    fn producer(&mut self, _: gapscore_adapter_sdk::Producer) {}
    fn test_finished(&mut self, _: gapscore_adapter_sdk::TestCase) {
        self.0 += 1;
    }
    fn problem(&mut self, _: gapscore_adapter_sdk::Problem) {}
    fn warning(&mut self, _: String) {}
}

fn run(mode: &str, path: &Path) {
    let mb = std::fs::metadata(path).unwrap().len() as f64 / 1e6;
    let adapter = Jest::new();
    let opts = ParseOptions::default();
    let mut best = f64::MAX;
    let mut count = 0;
    for _ in 0..3 {
        let mut reader = BufReader::with_capacity(64 * 1024, File::open(path).unwrap());
        let t = Instant::now();
        count = if mode == "json" {
            // serde_json skipping the whole document: the ceiling for any serde_json reader.
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut reader, &mut bytes).unwrap();
            serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).unwrap();
            FILES * PER_FILE
        } else if mode == "null" {
            let mut sink = Null(0);
            adapter.parse_reader(&mut reader, &opts, &mut sink).unwrap();
            sink.0
        } else if mode == "score" {
            let mut tally = Tally::new(StatusPolicy::default());
            let mut sink = Normalizer::new(&mut tally);
            adapter.parse_reader(&mut reader, &opts, &mut sink).unwrap();
            sink.finish();
            tally.finish();
            tally.counts.total as usize
        } else {
            let mut sink = Normalizer::new(RunCollector::new("jest-json", None));
            adapter.parse_reader(&mut reader, &opts, &mut sink).unwrap();
            let run = sink.finish().into_run();
            assert!(run.problems.is_empty() && run.warnings.is_empty());
            run.tests.len()
        };
        best = best.min(t.elapsed().as_secs_f64());
    }
    assert_eq!(count, FILES * PER_FILE);
    println!(
        "{:>6} {mode:>5}: {count} tests, {mb:.1} MB in {best:.3} s = {:.0} MB/s; peak RSS {:.1} MiB",
        path.file_stem().unwrap().to_string_lossy(),
        mb / best,
        peak_rss_mib()
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if let [mode, path] = args.as_slice() {
        run(mode, Path::new(path));
        return;
    }
    let dir = std::env::temp_dir().join(format!("gapscore-jest-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("jest.json");
    generate(&file);
    let exe = std::env::current_exe().unwrap();
    for mode in ["json", "null", "parse", "score"] {
        let out = Command::new(&exe).arg(mode).arg(&file).output().unwrap();
        print!("{}", String::from_utf8_lossy(&out.stdout));
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
