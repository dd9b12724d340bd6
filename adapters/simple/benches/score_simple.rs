//! Benchmark: read a generated simple-format file and score it (the `gapscore score` path) or
//! collect it (the `parse` path), printing MB/s and the process's peak RSS.
//!
//! `cargo bench -p gapscore-adapter-simple --bench score_simple [-- TESTS]` (default 1,000,000 tests).
//! Each mode runs in a fresh child process so its peak RSS is its own.

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)] // A bench binary reports on stdout.

use std::process::Command;
use std::time::Instant;

use gapscore_adapter_sdk::testing::peak_rss_mib;
use gapscore_adapter_sdk::{EventSink, Normalizer, RunCollector};
use gapscore_adapter_simple::{SimpleOptions, parse};
use gapscore_core::{StatusPolicy, Tally};

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

struct NullSink(u64);

impl EventSink for NullSink {
    fn producer(&mut self, _: gapscore_adapter_sdk::Producer) {}
    fn test_finished(&mut self, _: gapscore_adapter_sdk::TestCase) {
        self.0 += 1;
    }
    fn problem(&mut self, _: gapscore_adapter_sdk::Problem) {}
    fn warning(&mut self, _: String) {}
}

fn run_mode(mode: &str, n: usize) {
    let input = generate(n);
    let base = peak_rss_mib();
    let mb = input.len() as f64 / 1e6;
    let mut best = f64::MAX;
    let mut counted = 0;
    for _ in 0..3 {
        let t = Instant::now();
        match mode {
            "score" => {
                let mut tally = Tally::new(StatusPolicy::default());
                let mut sink = Normalizer::new(&mut tally);
                parse(&input, &SimpleOptions::default(), &mut sink).unwrap();
                sink.finish();
                tally.finish();
                counted = tally.counts.total;
            }
            "value" => {
                // Baseline: serde_json building a full `Value` tree.
                let v: serde_json::Value = serde_json::from_slice(&input).unwrap();
                counted = v["tests"].as_array().map_or(0, |a| a.len() as u64);
            }
            "read" => {
                // Only the reader: a sink that drops everything.
                let mut sink = NullSink(0);
                parse(&input, &SimpleOptions::default(), &mut sink).unwrap();
                counted = sink.0;
            }
            _ => {
                let mut sink = Normalizer::new(RunCollector::new("simple", None));
                parse(&input, &SimpleOptions::default(), &mut sink).unwrap();
                counted = sink.finish().into_run().tests.len() as u64;
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{mode:>5}: {n} tests, {mb:.1} MB in {best:.3} s = {:.0} MB/s; peak RSS {:.1} MiB ({:.1} MiB of it the input buffer and generator); {counted} counted",
        mb / best,
        peak_rss_mib(),
        base,
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if let Some(mode) = args.iter().find_map(|a| a.strip_prefix("--mode=")) {
        let n = args
            .iter()
            .find_map(|a| a.parse().ok())
            .unwrap_or(1_000_000);
        run_mode(mode, n);
        return;
    }
    let n: usize = args
        .iter()
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let exe = std::env::current_exe().unwrap();
    for mode in ["value", "read", "score", "parse"] {
        let out = Command::new(&exe)
            .arg(format!("--mode={mode}"))
            .arg(n.to_string())
            .output()
            .unwrap();
        print!("{}", String::from_utf8_lossy(&out.stdout));
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
    }
}
