//! Benchmark: the TAP adapter streaming generated files from disk, as `gapscore` reads them.
//!
//! `cargo bench -p gapscore-adapter-tap --bench tap` generates two files and, each mode in its
//! own process (so the peak RSS printed is that mode's own), reads them with the adapter's
//! `parse_reader` into a sink that drops everything (`null`: the reader's own cost), into a
//! `RunCollector` (`parse`: what `gapscore parse` keeps) and into a `Tally` (`score`: what
//! `gapscore score` keeps), through the SDK's shared bench helpers
//! (`gapscore_adapter_testing::run_mode`). Each mode prints the best of three runs, wall
//! and on-CPU (the thread's own time, the steadier figure on a loaded machine):
//! - `mixed`: ~60 MB, TAP 13 with node-style `# Subtest:` groups of 50 points (so every group is
//!   a parent with children); 92 % plain `ok N - desc` lines, 4 % failures with a YAML block
//!   (message, found/wanted, at, duration_ms), 2 % `# SKIP`, 2 % `# TODO`; a comment line
//!   every 25 points;
//! - `large`: the same shape, three times as long (~180 MB): score-mode memory must stay flat.

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)] // A bench binary.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use gapscore_adapter_sdk::ParseOptions;
use gapscore_adapter_tap::{FORMAT_ID, Tap};
use gapscore_adapter_testing::{bench_args, run_in_own_process, run_mode};

/// Runs per mode; the best wall and the best on-CPU time are kept.
const RUNS: usize = 3;

fn mixed(path: &Path, groups: usize) {
    let mut w = BufWriter::new(File::create(path).unwrap());
    writeln!(w, "TAP version 13").unwrap();
    for g in 0..groups {
        writeln!(w, "# Subtest: module_{g} behaves").unwrap();
        for c in 1..=50u64 {
            let n = g as u64 * 50 + c;
            match n % 50 {
                0 | 13 => {
                    writeln!(w, "    not ok {c} - module_{g} case_{c} compares values").unwrap();
                    writeln!(w, "      ---").unwrap();
                    writeln!(w, "      message: 'expected values to be equal'").unwrap();
                    writeln!(w, "      severity: fail").unwrap();
                    writeln!(w, "      found: {}", n % 7).unwrap();
                    writeln!(w, "      wanted: {}", n % 5).unwrap();
                    writeln!(w, "      at:").unwrap();
                    writeln!(w, "        file: test/module_{g}.js").unwrap();
                    writeln!(w, "        line: {}", c + 10).unwrap();
                    writeln!(w, "      duration_ms: 1.25").unwrap();
                    writeln!(w, "      ...").unwrap();
                }
                7 => writeln!(
                    w,
                    "    ok {c} - module_{g} case_{c} needs network # SKIP offline"
                )
                .unwrap(),
                21 => writeln!(
                    w,
                    "    not ok {c} - module_{g} case_{c} known bug # TODO later"
                )
                .unwrap(),
                _ => writeln!(
                    w,
                    "    ok {c} - module_{g} case_{c} returns the right thing"
                )
                .unwrap(),
            }
            if c % 25 == 0 {
                writeln!(w, "    # progress: {c} of 50").unwrap();
            }
        }
        writeln!(w, "    1..50").unwrap();
        writeln!(w, "not ok {} - module_{g} behaves", g + 1).unwrap();
    }
    writeln!(w, "1..{groups}").unwrap();
}

fn run(mode: &str, path: &Path) {
    // `Tap::parse_reader` is `parser::parse_reader` itself: the same code path.
    let result = run_mode(
        &Tap::new(),
        &ParseOptions::default(),
        FORMAT_ID,
        mode,
        path,
        RUNS,
    );
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
    let dir = std::env::temp_dir().join(format!("gapscore-tap-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = [dir.join("mixed.tap"), dir.join("large.tap")];
    mixed(&files[0], 20_000);
    mixed(&files[1], 60_000);
    for f in &files {
        // `parse` keeps every test; on the large file that only shows memory growing.
        let modes: &[&str] = if f == &files[1] {
            &["null", "score"]
        } else {
            &["null", "parse", "score"]
        };
        for mode in modes {
            run_in_own_process([std::ffi::OsStr::new(mode), f.as_os_str()]);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
