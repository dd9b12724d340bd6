//! Benchmark: the TAP adapter streaming generated files from disk, as `gapscore` reads them.
//!
//! `cargo bench -p gapscore-adapter-tap --bench tap` generates two files and, each mode in its
//! own process (so the peak RSS printed is that mode's own), reads them with `parse_reader` into
//! a sink that drops everything (`null`: the reader's own cost), into a `RunCollector` (what
//! `gapscore parse` keeps) and into a `Tally` (what `gapscore score` keeps):
//! - `mixed`: ~60 MB, TAP 13 with node-style `# Subtest:` groups of 50 points (so every group is
//!   a parent with children); 92 % plain `ok N - desc` lines, 4 % failures with a YAML block
//!   (message, found/wanted, at, duration_ms), 2 % `# SKIP`, 2 % `# TODO`; a comment line
//!   every 25 points;
//! - `large`: the same shape, three times as long (~180 MB): score-mode memory must stay flat.

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)] // A bench binary.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use gapscore_adapter_sdk::testing::peak_rss_mib;
use gapscore_adapter_sdk::{Normalizer, RunCollector};
use gapscore_adapter_tap::parser::parse_reader;
use gapscore_core::{StatusPolicy, Tally};

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
    let mut best = f64::MAX;
    let mut count = 0;
    for _ in 0..3 {
        let mut reader = BufReader::with_capacity(64 * 1024, File::open(path).unwrap());
        let t = Instant::now();
        count = if mode == "null" {
            let mut sink = Null(0);
            parse_reader(&mut reader, &mut sink).unwrap();
            sink.0
        } else if mode == "score" {
            let mut tally = Tally::new(StatusPolicy::default());
            let mut sink = Normalizer::new(&mut tally);
            parse_reader(&mut reader, &mut sink).unwrap();
            sink.finish();
            tally.finish();
            tally.counts.total as usize
        } else {
            let mut sink = Normalizer::new(RunCollector::new("tap", None));
            parse_reader(&mut reader, &mut sink).unwrap();
            sink.finish().into_run().tests.len()
        };
        best = best.min(t.elapsed().as_secs_f64());
    }
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
    let dir = std::env::temp_dir().join(format!("gapscore-tap-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = [dir.join("mixed.tap"), dir.join("large.tap")];
    mixed(&files[0], 20_000);
    mixed(&files[1], 60_000);
    let exe = std::env::current_exe().unwrap();
    for f in &files {
        // `parse` keeps every test; on the large file that only shows memory growing.
        let modes: &[&str] = if f == &files[1] {
            &["null", "score"]
        } else {
            &["null", "parse", "score"]
        };
        for mode in modes {
            let out = Command::new(&exe).arg(mode).arg(f).output().unwrap();
            print!("{}", String::from_utf8_lossy(&out.stdout));
            eprint!("{}", String::from_utf8_lossy(&out.stderr));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
