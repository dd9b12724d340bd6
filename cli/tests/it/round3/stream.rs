//! Issue 36, the items of the `stream` part: the SDK's streaming JSON reader (item 3) and the
//! Jest/Vitest and Mocha readers on it (item 4's first half). The bounded-memory test of every
//! format on 1 GB inputs is the `formats` part's (`.ci/run`); here a file of a few tens of MB
//! shows memory no longer follows the file, on the debug build the tests run.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use crate::common::{self, code, json_of, run_in, stderr};

const TIME: &str = "/usr/bin/time";

/// Writes a Jest `--json` document of about `mb` MB: files of 100 tests, every 10th failing.
fn jest_file(path: &Path, mb: usize) -> (u64, u64) {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let (mut total, mut failed, mut size, mut file) = (0u64, 0u64, 0usize, 0u64);
    let mut body = Vec::new();
    while size < mb << 20 {
        body.clear();
        if file > 0 {
            body.push(b',');
        }
        write!(body, "{{\"assertionResults\":[").unwrap();
        for i in 0..100u64 {
            let fails = (file * 100 + i) % 10 == 3;
            write!(
                body,
                "{}{{\"ancestorTitles\":[\"Module{file}\"],\"duration\":3,\"failureMessages\":[{}],\"fullName\":\"Module{file} case {i}\",\"status\":\"{}\",\"title\":\"case {i}\"}}",
                if i > 0 { "," } else { "" },
                if fails { "\"Error: expected 1\\nReceived: 2\"" } else { "" },
                if fails { "failed" } else { "passed" },
            )
            .unwrap();
            total += 1;
            failed += u64::from(fails);
        }
        write!(
            body,
            "],\"message\":\"\",\"name\":\"/p/m{file}.test.js\",\"status\":\"failed\"}}"
        )
        .unwrap();
        size += body.len();
        file += 1;
        if file == 1 {
            write!(
                w,
                "{{\"numTotalTests\":TOTAL_PLACEHOLDER,\"success\":false,\"testResults\":["
            )
            .unwrap();
        }
        w.write_all(&body).unwrap();
    }
    w.write_all(b"]}\n").unwrap();
    drop(w);
    // The declared total, written now that it is known (same width: padded with spaces).
    let text = std::fs::read(path).unwrap();
    let placeholder = b"TOTAL_PLACEHOLDER";
    let at = text
        .windows(placeholder.len())
        .position(|w| w == placeholder)
        .unwrap();
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    use std::io::{Seek, SeekFrom};
    f.seek(SeekFrom::Start(at as u64)).unwrap();
    write!(f, "{:<17}", total).unwrap();
    (total, failed)
}

/// Peak resident MiB of `gapscore score --sealed FILE --format json -o OUT`, and its report.
fn peak_of_score(dir: &Path, file: &Path) -> (f64, serde_json::Value) {
    let report = dir.join("report.json");
    let out = Command::new(TIME)
        .args(["-f", "peak-kib=%M"])
        .arg(common::bin())
        .args(["score", "--format", "json", "--sealed"])
        .arg(file)
        .arg("-o")
        .arg(&report)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{err}");
    let kib: f64 = err
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("peak-kib="))
        .unwrap_or_else(|| panic!("no peak from {TIME}: {err}"))
        .trim()
        .parse()
        .unwrap();
    let r = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    (kib / 1024.0, r)
}

/// Before: the Jest reader held the whole document (its bytes, then what it parsed), so a
/// 48 MB file peaked above 48 MiB. After: one test file entry at a time.
#[test]
fn item04_a_jest_document_is_read_in_memory_that_does_not_follow_its_size() {
    if !Path::new(TIME).exists() {
        eprintln!("skipped: no {TIME}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("jest.json");
    let (total, failed) = jest_file(&file, 48);
    let (peak, r) = peak_of_score(dir.path(), &file);
    assert_eq!(r["sealed_tests"]["total"], total);
    assert_eq!(r["sealed_tests"]["failed"], failed);
    assert!(
        peak < 40.0,
        "peak {peak:.1} MiB on a 48 MB Jest document: memory follows the file"
    );
}

/// A Jest document cut inside a test file, read through a pipe: the tests before the cut are
/// kept (those of the cut file without its name, which comes after them), and the cut is a
/// `truncated` problem placed at the end of the input.
#[test]
fn item04_a_cut_jest_document_keeps_what_was_read() {
    let dir = tempfile::tempdir().unwrap();
    let doc = "{\"numTotalTests\": 3, \"testResults\": [\n{\"assertionResults\": [{\"ancestorTitles\": [], \"title\": \"a\", \"status\": \"passed\"}], \"name\": \"/p/one.test.js\", \"status\": \"passed\"},\n{\"assertionResults\": [{\"ancestorTitles\": [], \"title\": \"b\", \"status\": \"failed\"}, {\"ancestorTitles\": [], \"title\": \"c\", \"sta";
    std::fs::write(dir.path().join("cut.json"), doc).unwrap();
    let o = run_in(
        dir.path(),
        &[
            "parse",
            "cut.json",
            "--input-format",
            "jest-json",
            "--allow-truncated",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let run = &json_of(&o)[0];
    let names: Vec<&str> = run["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b"]);
    let detail = run["problems"][0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("the document ends at line 3 column 121 before it is complete"),
        "{detail}"
    );
    assert!(detail.contains("without their file name"), "{detail}");
}

/// Invalid UTF-8 deep in a Mocha document read as a stream: refused at its line and column
/// (in characters), which the host works out from the reader's byte offset.
#[test]
fn item03_invalid_utf8_in_a_streamed_document_is_placed_at_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let doc = b"{\n  \"stats\": {\"tests\": 1},\n  \"tests\": [\n    {\"title\": \"caf\xC3\xA9 \xFF\"}\n  ]\n}\n";
    std::fs::write(dir.path().join("m.json"), doc).unwrap();
    let o = run_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            "m.json",
            "--input-format",
            "mocha-json",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("m.json:4:21: invalid UTF-8 at byte 61"),
        "{}",
        stderr(&o)
    );
}

/// A key given twice deep inside a Jest test file, past anything held: refused at the second
/// key's place naming the first's, as before the reader streamed.
#[test]
fn item03_a_duplicate_key_inside_a_streamed_element_is_refused_with_both_places() {
    let dir = tempfile::tempdir().unwrap();
    let doc = "{\"numTotalTests\": 1, \"testResults\": [{\"assertionResults\": [\n  {\"title\": \"a\",\n   \"status\": \"failed\", \"status\": \"passed\"}],\n \"name\": \"/p/a.test.js\"}]}\n";
    std::fs::write(dir.path().join("j.json"), doc).unwrap();
    let o = run_in(
        dir.path(),
        &["score", "--sealed", "j.json", "--input-format", "jest-json"],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("j.json:3:24: duplicate key `status` in one object (first at 3:4)"),
        "{}",
        stderr(&o)
    );
}
