//! Benchmark: parallel ingestion of many files, and the cost of the plugin path.
//!
//! `cargo bench -p gapscore-engine --bench ingest [-- FILES]` writes FILES (default 2,000)
//! simple-format result files of 200 tests each into a temporary directory, then scores them all
//! (read → detect → parse → normalise → tally, merged in input order) with 1 and 2 threads,
//! through the built-in adapter and through the same adapter loaded as its cdylib plugin. Prints
//! MB/s, files/s, the speed-up and the process's peak RSS.

#![allow(clippy::print_stdout, clippy::unwrap_used)] // A bench binary reports on stdout.

use std::sync::Arc;
use std::time::Instant;

use gapscore_adapter_testing::{built_cdylib, peak_rss_mib};
use gapscore_engine::adapters::{
    IngestOptions, Input, Origin, Outcome, Registry, expand_inputs, ingest, load_plugin,
};
use gapscore_engine::core::{StatusPolicy, Tally};

fn score(registry: &Registry, inputs: &[Input], jobs: usize) -> (f64, u64) {
    let mut best = f64::MAX;
    let mut total = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let outcomes = ingest(
            registry,
            inputs,
            &IngestOptions::new(None, jobs),
            |src, _| {
                let mut t = Tally::new(StatusPolicy::default());
                t.set_source(Some(src.to_owned()));
                t
            },
        );
        let mut tally = Tally::new(StatusPolicy::default());
        for o in outcomes {
            if let Outcome::Parsed(mut p) = o {
                p.consumer.finish();
                tally.merge(p.consumer);
            }
        }
        tally.finish();
        total = tally.counts.total;
        best = best.min(t.elapsed().as_secs_f64());
    }
    (best, total)
}

fn main() {
    let files: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2000);
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = 0u64;
    for i in 0..files {
        let tests: Vec<String> = (0..200)
            .map(|k| {
                let status = if (i + k) % 41 == 0 { "failed" } else { "passed" };
                format!(
                    r#"{{"name": "test_{i}_{k}", "status": "{status}", "category": "edge_case", "message": "expected 2, got 3"}}"#
                )
            })
            .collect();
        let doc = format!("{{\"tests\": [\n{}\n]}}\n", tests.join(",\n"));
        bytes += doc.len() as u64;
        std::fs::write(dir.path().join(format!("r{i:05}.json")), doc).unwrap();
    }
    let (inputs, errors) = expand_inputs(&[dir.path().to_path_buf()]);
    assert!(errors.is_empty());
    let mb = bytes as f64 / 1e6;
    println!("{files} files, {mb:.1} MB, {} tests", files * 200);

    let builtin = Registry::builtin();
    let mut plugin = Registry::empty();
    plugin
        .add(
            Arc::new(load_plugin(&built_cdylib("gapscore-adapter-simple")).unwrap()),
            Origin::BuiltIn,
        )
        .unwrap();
    for (label, registry) in [("built-in", &builtin), ("plugin  ", &plugin)] {
        let (t1, n1) = score(registry, &inputs, 1);
        let (t2, n2) = score(registry, &inputs, 2);
        assert_eq!(n1, n2);
        println!(
            "{label}: jobs 1 {t1:.3} s ({:.0} MB/s, {:.0} files/s); jobs 2 {t2:.3} s ({:.0} MB/s); speed-up {:.2}x",
            mb / t1,
            files as f64 / t1,
            mb / t2,
            t1 / t2
        );
    }
    println!("peak RSS {:.1} MiB", peak_rss_mib());
}
