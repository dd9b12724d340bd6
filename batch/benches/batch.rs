//! Batch benchmark: generates 10,000 repositories (sealed + open results each, JUnit XML and
//! the simple JSON format mixed, every 7th with a run-level problem) and scores them with
//! `--jobs 1` and `--jobs 2`, printing wall time, repositories/s and the speed-up.
//! `cargo bench -p gapscore-batch` (argument: the number of repositories, default 10000).

#![allow(clippy::print_stdout, clippy::unwrap_used)] // A benchmark reports on stdout.

use std::time::Instant;

use gapscore_adapters::Registry;
use gapscore_batch::generate::{GenerateOptions, generate};
use gapscore_batch::{BatchOptions, NoProgress, discover, run_batch};

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    let mut gen_opts = GenerateOptions::new(n);
    gen_opts.broken = 0;
    let t = Instant::now();
    generate(&root, &gen_opts).unwrap();
    println!(
        "generated {n} repositories ({} files) in {:.2} s",
        n * 2,
        t.elapsed().as_secs_f64()
    );
    let registry = Registry::builtin();
    let mut best = [f64::MAX; 2];
    // Four rounds, alternating, so both thread counts see a warm page cache. Before each run the
    // dirty pages of the previous one are written out (`sync`, outside the timing): otherwise a
    // run competes with the kernel's writeback of the 10,000 reports the last one wrote, and
    // the system time swings by a factor of five from run to run on this VM.
    for round in 0..4 {
        for (i, jobs) in [1usize, 2].into_iter().enumerate() {
            let repos = discover::from_root(&root, false).unwrap();
            let mut opts = BatchOptions::new(dir.path().join(format!("out-{jobs}-{round}")));
            opts.jobs = jobs;
            opts.timestamp = Some("2023-11-14T22:13:20Z".to_owned());
            let _ = std::process::Command::new("sync").status();
            let t = Instant::now();
            let run = run_batch(&repos, &registry, &opts, &NoProgress).unwrap();
            let secs = t.elapsed().as_secs_f64();
            assert_eq!(run.rows.len(), n);
            assert_eq!(run.errors(), 0);
            println!(
                "round {round}: --jobs {jobs}: {secs:.2} s wall, {:.0} repos/s",
                n as f64 / secs
            );
            best[i] = best[i].min(secs);
        }
    }
    println!(
        "best: --jobs 1 {:.2} s ({:.0} repos/s), --jobs 2 {:.2} s ({:.0} repos/s), speed-up {:.2}x",
        best[0],
        n as f64 / best[0],
        best[1],
        n as f64 / best[1],
        best[0] / best[1]
    );
}
