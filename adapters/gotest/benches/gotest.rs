//! Benchmark: the Go test adapter streaming generated `go test -json` files from disk, as
//! `gapscore` reads them.
//!
//! `cargo bench -p gapscore-adapter-gotest --bench gotest` generates two files in the shape go
//! 1.19 writes (every event with its `Time`, `=== RUN`/`--- PASS` output events per test) and,
//! each mode in its own process (so the peak RSS printed is that mode's own), reads them with
//! serde_json alone into the same borrowed event struct (`serde`: what the reader would cost
//! without its fast path for go's own lines),
//! with the adapter's `parse_reader` (format named: straight to `json::parse_reader`) into a sink
//! that drops everything (`null`), into a `RunCollector` (`parse`: what `gapscore parse` keeps)
//! and into a `Tally` (`score`: what `gapscore score` keeps), through the SDK's shared bench
//! helpers (`gapscore_adapter_testing::run_mode`). Each mode runs five times; it prints the
//! best wall time and the best on-CPU time of the thread (`/proc/thread-self/schedstat`), which
//! on a shared, loaded machine is the steadier measure of the reader's own cost:
//! - `mixed`: ~65 MB, 50 packages of 1,000 tests: 80 % plain passes, 8 % parent tests with
//!   three parallel subtests (run/pause/cont), 5 % passes that log two lines, 4 % failures with a
//!   `file_test.go:NN:` message and a `got X, want Y` line, 3 % skips;
//! - `large`: the same shape, 150 packages (~195 MB): score-mode memory must stay flat.

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)] // A bench binary.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use gapscore_adapter_gotest::{GoTest, JSON_FORMAT};
use gapscore_adapter_sdk::ParseOptions;
use gapscore_adapter_testing::{
    BenchResult, bench_args, file_mb, run_in_own_process, run_mode, time_best,
};

/// Runs per mode; the best wall and the best on-CPU time are kept.
const RUNS: usize = 5;

struct Gen<W: Write> {
    w: W,
    nanos: u64,
}

impl<W: Write> Gen<W> {
    fn ev(&mut self, action: &str, pkg: &str, test: Option<&str>, tail: &str) {
        self.nanos += 1_733;
        let t = self.nanos;
        write!(
            self.w,
            r#"{{"Time":"2026-11-22T08:{:02}:{:02}.{:09}Z","Action":"{action}","Package":"{pkg}""#,
            (t / 60_000_000_000) % 60,
            (t / 1_000_000_000) % 60,
            t % 1_000_000_000
        )
        .unwrap();
        if let Some(test) = test {
            write!(self.w, r#","Test":"{test}""#).unwrap();
        }
        writeln!(self.w, "{tail}}}").unwrap();
    }

    fn out(&mut self, pkg: &str, test: Option<&str>, text: &str) {
        let tail = format!(r#","Output":"{text}\n""#);
        self.ev("output", pkg, test, &tail);
    }

    fn simple(&mut self, pkg: &str, name: &str, verb: &str, body: &[String]) {
        self.ev("run", pkg, Some(name), "");
        self.out(pkg, Some(name), &format!("=== RUN   {name}"));
        for line in body {
            self.out(pkg, Some(name), line);
        }
        self.out(
            pkg,
            Some(name),
            &format!("--- {}: {name} (0.00s)", verb.to_uppercase()),
        );
        self.ev(verb, pkg, Some(name), r#","Elapsed":0"#);
    }
}

fn generate(path: &Path, packages: usize) {
    let mut g = Gen {
        w: BufWriter::new(File::create(path).unwrap()),
        nanos: 0,
    };
    for p in 0..packages {
        let pkg = format!("example.com/project/internal/module{p}/service");
        let mut failed = false;
        for c in 0..1000 {
            let name = format!("TestService_Handle{c}_ReturnsExpectedValue");
            match c % 100 {
                0..=79 => g.simple(&pkg, &name, "pass", &[]),
                80..=87 => {
                    g.ev("run", &pkg, Some(&name), "");
                    g.out(&pkg, Some(&name), &format!("=== RUN   {name}"));
                    let subs: Vec<String> = (0..3).map(|i| format!("{name}/case_{i}")).collect();
                    for s in &subs {
                        g.ev("run", &pkg, Some(s), "");
                        g.out(&pkg, Some(s), &format!("=== RUN   {s}"));
                        g.ev("pause", &pkg, Some(s), "");
                        g.out(&pkg, Some(s), &format!("=== PAUSE {s}"));
                    }
                    for s in &subs {
                        g.ev("cont", &pkg, Some(s), "");
                        g.out(&pkg, Some(s), &format!("=== CONT  {s}"));
                    }
                    g.out(&pkg, Some(&name), &format!("--- PASS: {name} (0.01s)"));
                    for s in &subs {
                        g.out(&pkg, Some(s), &format!("    --- PASS: {s} (0.00s)"));
                        g.ev("pass", &pkg, Some(s), r#","Elapsed":0"#);
                    }
                    g.ev("pass", &pkg, Some(&name), r#","Elapsed":0.01"#);
                }
                88..=92 => g.simple(
                    &pkg,
                    &name,
                    "pass",
                    &[
                        format!("    service_test.go:{c}: handled request {c} in 3 steps"),
                        "    service_test.go:88: cache hit ratio 0.93".to_owned(),
                    ],
                ),
                93..=96 => {
                    failed = true;
                    g.simple(
                        &pkg,
                        &name,
                        "fail",
                        &[
                            format!("    service_test.go:{c}: Handle({c}) = 41; want 42"),
                            "        request id \\u003cabc-123\\u003e \\u0026 retry".to_owned(),
                        ],
                    )
                }
                _ => g.simple(
                    &pkg,
                    &name,
                    "skip",
                    &[format!("    service_test.go:{c}: requires a database")],
                ),
            }
        }
        let verb = if failed { "FAIL" } else { "PASS" };
        g.out(&pkg, None, verb);
        if failed {
            g.out(&pkg, None, &format!("FAIL\\t{pkg}\\t0.431s"));
            g.ev("fail", &pkg, None, r#","Elapsed":0.431"#);
        } else {
            g.out(&pkg, None, &format!("ok  \\t{pkg}\\t0.431s"));
            g.ev("pass", &pkg, None, r#","Elapsed":0.431"#);
        }
    }
    g.w.flush().unwrap();
}

#[derive(serde::Deserialize)]
#[allow(dead_code)] // Fields are read by serde only.
struct Event<'a> {
    #[serde(rename = "Action", borrow)]
    action: Cow<'a, str>,
    #[serde(rename = "Package", borrow, default)]
    package: Option<Cow<'a, str>>,
    #[serde(rename = "Test", borrow, default)]
    test: Option<Cow<'a, str>>,
    #[serde(rename = "Output", borrow, default)]
    output: Option<Cow<'a, str>>,
    #[serde(rename = "Elapsed", default)]
    elapsed: Option<f64>,
}

/// serde_json alone, line by line, into the event struct.
fn json_only(reader: &mut BufReader<File>) -> usize {
    let mut buf = Vec::new();
    let mut n = 0;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).unwrap() == 0 {
            break;
        }
        let ev: Event = serde_json::from_slice(buf.trim_ascii()).unwrap();
        n += usize::from(ev.action == "pass");
        std::hint::black_box(ev);
    }
    n
}

fn run(mode: &str, path: &Path) {
    let result = if mode == "serde" {
        let timed = time_best(RUNS, || {
            json_only(&mut BufReader::with_capacity(
                64 * 1024,
                File::open(path).unwrap(),
            ))
        });
        BenchResult::new(file_mb(path), timed)
    } else {
        // With the format named, `GoTest::parse_reader` goes straight to `json::parse_reader`.
        let mut opts = ParseOptions::default();
        opts.format_id = Some(JSON_FORMAT.to_owned());
        run_mode(&GoTest::new(), &opts, JSON_FORMAT, mode, path, RUNS)
    };
    println!(
        "{:>6} {mode:>5}: {result}",
        path.file_stem().unwrap().to_string_lossy()
    );
}

fn main() {
    if let [mode, path] = bench_args().as_slice() {
        if mode == "gen" {
            // `gen FILE`: only write the mixed file (for profiling).
            generate(Path::new(path), 50);
            return;
        }
        run(mode, Path::new(path));
        return;
    }
    let dir = std::env::temp_dir().join(format!("gapscore-gotest-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = [dir.join("mixed.jsonl"), dir.join("large.jsonl")];
    generate(&files[0], 50);
    generate(&files[1], 150);
    for f in &files {
        // `parse` keeps every test; on the large file that only shows memory growing.
        let modes: &[&str] = if f == &files[1] {
            &["null", "score"]
        } else {
            &["serde", "null", "parse", "score"]
        };
        for mode in modes {
            run_in_own_process([std::ffi::OsStr::new(mode), f.as_os_str()]);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
