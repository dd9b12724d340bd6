//! Benchmark: the JUnit adapter streaming generated files from disk, as `gapscore` reads them.
//!
//! `cargo bench -p gapscore-adapter-junit --bench junit` generates three files and, each mode in
//! its own process (so the peak RSS printed is that mode's own), reads them with
//! quick-xml alone, iterating each testcase's attributes (`xml`: the ceiling for any reader
//! built on it), and with the adapter's `parse_reader` into a sink that drops everything
//! (`null`: the reader's own cost), into a `RunCollector` (`parse`: what `gapscore parse` keeps)
//! and into a `Tally` (`score`: what `gapscore score` keeps), through the SDK's shared bench
//! helpers (`gapscore_adapter_testing::run_mode`). Each mode prints the best of three runs,
//! wall and on-CPU (the thread's own time, the steadier figure on a loaded machine):
//! - `mixed`: ~32 MB, 297,200 testcases in 1,486 suites with properties; 85 % pass (10 % of
//!   them with system-out), 8 % failure with a CDATA trace and system-err, 3 % error, 4 % skipped;
//! - `compact`: ~58 MB, 1,000,000 testcases; 93 % self-closing passes, 5 % CDATA failures,
//!   2 % skipped with text;
//! - `large`: the same shape, 3,000,000 testcases (~177 MB): score-mode memory must stay flat.

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)] // A bench binary.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

use gapscore_adapter_junit::{FORMAT_ID, JUnit};
use gapscore_adapter_sdk::ParseOptions;
use gapscore_adapter_testing::{
    BenchResult, bench_args, file_mb, run_in_own_process, run_mode, time_best,
};

/// Runs per mode; the best wall and the best on-CPU time are kept.
const RUNS: usize = 3;

fn mixed(path: &Path) {
    let mut w = BufWriter::new(File::create(path).unwrap());
    writeln!(w, r#"<?xml version="1.0" encoding="UTF-8"?>"#).unwrap();
    writeln!(w, r#"<testsuites name="bench" tests="297200">"#).unwrap();
    let mut n = 0u64;
    for s in 0..1486 {
        writeln!(
            w,
            r#"  <testsuite name="pkg{s}.suite" tests="200" timestamp="2026-11-22T08:00:00">"#
        )
        .unwrap();
        writeln!(w, r#"    <properties><property name="os" value="linux"/><property name="run" value="{s}"/></properties>"#).unwrap();
        for c in 0..200 {
            n += 1;
            let head = format!(
                r#"    <testcase classname="pkg{s}.Class{}" name="test_case_{c}" time="0.{:03}""#,
                c / 20,
                n % 1000
            );
            match n % 100 {
                0..=84 if n.is_multiple_of(10) => writeln!(w, "{head}><system-out>captured line one\ncaptured line two</system-out></testcase>").unwrap(),
                0..=84 => writeln!(w, "{head}/>").unwrap(),
                85..=92 => writeln!(w, "{head}><failure message=\"assert 2 == 3\" type=\"AssertionError\"><![CDATA[Traceback (most recent call last):\n  File \"tests/test_x.py\", line 12, in test_case\n    assert add(1, 1) == 3\nAssertionError: assert 2 == 3\n]]></failure><system-err>warning: deprecated call</system-err></testcase>").unwrap(),
                93..=95 => writeln!(w, "{head}><error message=\"ValueError: boom\" type=\"ValueError\">ValueError: boom at setup</error></testcase>").unwrap(),
                _ => writeln!(w, "{head}><skipped/></testcase>").unwrap(),
            }
        }
        writeln!(w, "  </testsuite>").unwrap();
    }
    writeln!(w, "</testsuites>").unwrap();
}

fn compact(path: &Path, suites: usize) {
    let mut w = BufWriter::new(File::create(path).unwrap());
    writeln!(w, r#"<?xml version="1.0" encoding="UTF-8"?><testsuites>"#).unwrap();
    for s in 0..suites {
        writeln!(w, r#"<testsuite name="s{s}">"#).unwrap();
        for c in 0..1000 {
            let head = format!(r#"<testcase classname="s{s}" name="t{c}" time="0.001""#);
            match c % 100 {
                0..=92 => writeln!(w, "{head}/>").unwrap(),
                93..=97 => writeln!(w, "{head}><failure message=\"boom\"><![CDATA[at x.rs:1\nat y.rs:2]]></failure></testcase>").unwrap(),
                _ => writeln!(w, "{head}><skipped>not today</skipped></testcase>").unwrap(),
            }
        }
        writeln!(w, "</testsuite>").unwrap();
    }
    writeln!(w, "</testsuites>").unwrap();
}

/// quick-xml alone, every testcase's attributes iterated: the ceiling for any reader on it.
fn xml_only(reader: &mut BufReader<File>) -> usize {
    use quick_xml::events::Event;
    let mut r = quick_xml::Reader::from_reader(reader);
    let mut buf = Vec::new();
    let mut n = 0;
    loop {
        match r.read_event_into(&mut buf).unwrap() {
            Event::Eof => break,
            Event::Empty(e) | Event::Start(e) if e.local_name().as_ref() == "testcase" => {
                n += 1;
                for a in e.attributes().with_checks(false) {
                    std::hint::black_box(a.unwrap());
                }
            }
            _ => {}
        }
        buf.clear();
    }
    n
}

fn run(mode: &str, path: &Path) {
    let result = if mode == "xml" {
        let timed = time_best(RUNS, || {
            xml_only(&mut BufReader::with_capacity(
                64 * 1024,
                File::open(path).unwrap(),
            ))
        });
        BenchResult::new(file_mb(path), timed)
    } else {
        // `JUnit::parse_reader` is `parser::parse_reader` itself: the same code path.
        run_mode(
            &JUnit::new(),
            &ParseOptions::default(),
            FORMAT_ID,
            mode,
            path,
            RUNS,
        )
    };
    println!(
        "{:>8} {mode:>5}: {result}",
        path.file_stem().unwrap().to_string_lossy()
    );
}

fn main() {
    if let [mode, path] = bench_args().as_slice() {
        run(mode, Path::new(path));
        return;
    }
    let dir = std::env::temp_dir().join(format!("gapscore-junit-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = [
        dir.join("mixed.xml"),
        dir.join("compact.xml"),
        dir.join("large.xml"),
    ];
    mixed(&files[0]);
    compact(&files[1], 1000);
    compact(&files[2], 3000);
    for f in &files {
        // `parse` keeps every test; on the large file that only shows memory growing.
        let modes: &[&str] = if f == &files[2] {
            &["null", "score"]
        } else {
            &["xml", "null", "parse", "score"]
        };
        for mode in modes {
            run_in_own_process([std::ffi::OsStr::new(mode), f.as_os_str()]);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
