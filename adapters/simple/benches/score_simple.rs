//! Benchmark: the simple adapter reading a generated file from disk, as `gapscore` reads it
//! (`Adapter::parse_reader`: the file read whole, then the reader over the slice).
//!
//! `cargo bench -p gapscore-adapter-simple --bench score_simple [-- TESTS]` writes a file of
//! TESTS tests (default 1,000,000, ~77 MB, 1 % failing) and, each mode in its own process (so
//! the peak RSS printed is that mode's own), reads it with serde_json into a `Value` tree
//! (`value`: the naive baseline) and with the adapter into a sink that drops everything (`null`:
//! the reader's own cost), into a `Tally` (`score`: what `gapscore score` keeps) and into a
//! `RunCollector` (`parse`: what `gapscore parse` keeps), through the SDK's shared bench helpers
//! (`gapscore_adapter_testing::run_mode`). Each mode prints the best of three runs, wall
//! and on-CPU (the thread's own time, the steadier figure on a loaded machine).

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)] // A bench binary reports on stdout.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use gapscore_adapter_sdk::ParseOptions;
use gapscore_adapter_simple::{FORMAT_ID, Simple};
use gapscore_adapter_testing::{
    BenchResult, bench_args, file_mb, run_in_own_process, run_mode, time_best,
};

/// Runs per mode; the best wall and the best on-CPU time are kept.
const RUNS: usize = 3;

fn generate(n: usize) -> Vec<u8> {
    let mut s = String::with_capacity(n * 120);
    s.push_str("{\"tests\": [\n");
    let cats = ["happy_path", "edge_case", "error_handling", "security"];
    for i in 0..n {
        if i > 0 {
            s.push_str(",\n");
        }
        if i % 97 == 0 {
            s.push_str(&format!(
                "{{\"name\": \"test_case_{i}\", \"status\": \"failed\", \"category\": \"{}\", \"expected\": \"HTTP 409\", \"actual\": \"HTTP 500\", \"message\": \"duplicate email causes an unhandled error\"}}",
                cats[i % 4]
            ));
        } else {
            s.push_str(&format!(
                "{{\"name\": \"test_case_{i}\", \"status\": \"passed\", \"category\": \"{}\"}}",
                cats[i % 4]
            ));
        }
    }
    s.push_str("\n]}\n");
    s.into_bytes()
}

fn run(mode: &str, path: &Path) {
    let result = if mode == "value" {
        // Baseline: serde_json building a full `Value` tree of the file read whole.
        let timed = time_best(RUNS, || {
            let mut reader = BufReader::with_capacity(64 * 1024, File::open(path).unwrap());
            let mut bytes = Vec::new();
            reader.read_to_end(&mut bytes).unwrap();
            let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            v["tests"].as_array().map_or(0, Vec::len)
        });
        BenchResult::new(file_mb(path), timed)
    } else {
        run_mode(
            &Simple::new(),
            &ParseOptions::default(),
            FORMAT_ID,
            mode,
            path,
            RUNS,
        )
    };
    println!("{mode:>5}: {result}");
}

fn main() {
    let args = bench_args();
    if let [mode, path] = args.as_slice() {
        run(mode, Path::new(path));
        return;
    }
    let n: usize = args
        .iter()
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let dir = std::env::temp_dir().join(format!("gapscore-simple-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("simple.json");
    std::fs::write(&file, generate(n)).unwrap();
    for mode in ["value", "null", "score", "parse"] {
        run_in_own_process([std::ffi::OsStr::new(mode), file.as_os_str()]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
