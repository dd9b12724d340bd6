//! The size limit: a report over the limit is refused unread, naming the file, its size and
//! the limit; a stream stops at the first byte past the limit.

use std::fs;
use std::io::Read;
use std::path::PathBuf;

use gapscore_check::{Document, Evidence, check_path, check_path_limited, read_limited};

/// A fresh folder under the system's temporary directory (removed by the caller).
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gapscore-check-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn error_of(r: &gapscore_check::FileResult) -> &str {
    match &r.document {
        Document::Unreadable { error } => error,
        other => panic!("not unreadable: {other:?}"),
    }
}

#[test]
fn a_ten_gigabyte_report_is_refused_unread() {
    let dir = temp_dir("huge");
    let path = dir.join("huge.json");
    // Sparse: no disk is used and, refused from its size, none of it is read.
    fs::File::create(&path)
        .unwrap()
        .set_len(10 * 1024 * 1024 * 1024)
        .unwrap();
    let r = check_path(&path, &Evidence::default(), 1);
    let error = error_of(&r).to_owned();
    fs::remove_dir_all(&dir).unwrap();
    assert!(r.unreadable() && !r.holds);
    assert!(error.contains("huge.json"), "{error}");
    assert!(error.contains("too large to check: 10240 MiB"), "{error}");
    assert!(error.contains("over the 32 MiB limit"), "{error}");
    assert!(error.contains("--max-size"), "{error}");
}

#[test]
fn a_report_at_the_limit_is_read_and_one_byte_more_is_not() {
    let dir = temp_dir("limit");
    let path = dir.join("report.json");
    let text = br#"{"shadow_score_spec_version": "1.0.0"}"#;
    fs::write(&path, text).unwrap();
    let n = text.len() as u64;
    let at = check_path_limited(&path, &Evidence::default(), 1, n);
    let over = check_path_limited(&path, &Evidence::default(), 1, n - 1);
    fs::remove_dir_all(&dir).unwrap();
    assert!(!at.unreadable(), "{:?}", at.document);
    let error = error_of(&over);
    assert!(
        error.contains(&format!("{n} bytes, over the {} bytes limit", n - 1)),
        "{error}"
    );
}

/// Counts the bytes taken from an endless stream.
struct Endless {
    taken: u64,
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        buf.fill(b' ');
        self.taken += buf.len() as u64;
        Ok(buf.len())
    }
}

#[test]
fn a_stream_stops_at_the_first_byte_past_the_limit() {
    let mut endless = Endless { taken: 0 };
    let limit = 1024 * 1024;
    let refused = read_limited(&mut endless, "<stdin>", None, limit).unwrap();
    let error = refused.unwrap_err();
    assert_eq!(
        error,
        "`<stdin>` is too large to check: more than 1 MiB, over the 1 MiB limit (a Gap Report is a few megabytes; `--max-size BYTES` raises the limit)"
    );
    assert_eq!(endless.taken, limit + 1);
}

#[test]
fn one_fault_repeated_makes_at_most_a_hundred_findings_and_a_count() {
    let items = vec!["0"; 500].join(",");
    let text = format!(r#"{{"shadow_score_spec_version": "1.0.0", "failures": [{items}]}}"#);
    let r = gapscore_check::check_bytes("r.json", text.as_bytes(), &Evidence::default(), 1);
    let upstream: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.rule == "schema.upstream")
        .collect();
    assert_eq!(upstream.len(), 101, "{upstream:?}");
    assert!(
        upstream.iter().any(|f| f
            .message
            .ends_with("more error findings of this rule not listed (the first 100 are)")),
        "{upstream:?}"
    );
}

/// A Level-1 report with `depth` levels of arrays nesting at `place` (a JSON text with `DEEP`
/// where the nesting goes).
fn nested_report_at(place: &str, depth: usize) -> Vec<u8> {
    let deep = format!("{}\"x\"{}", "[".repeat(depth - 3), "]".repeat(depth - 3));
    let report = r#"{"shadow_score_spec_version": "1.0.0",
  "report": {"id": "r", "timestamp": "2026-03-01T12:00:00Z", "specification": "PRD.md", "shadow_score": 50.0, "level": "significant"},
  "sealed_tests": {"total": 2, "passed": 1, "failed": 1},
  "failures": [{"test_name": "t", "category": "security", "expected": "a", "actual": "b", "message": "m"PLACE}]}"#;
    report
        .replace("PLACE", &place.replace("DEEP", &deep))
        .into_bytes()
}

/// A Level-1 report with `depth` levels of arrays under an extra field of its failure.
fn nested_report(depth: usize) -> Vec<u8> {
    nested_report_at(r#", "details": DEEP"#, depth)
}

#[test]
fn a_report_nested_ten_thousand_levels_deep_is_read() {
    let r =
        gapscore_check::check_bytes("deep.json", &nested_report(10_000), &Evidence::default(), 1);
    assert!(!r.unreadable(), "{:?}", r.document);
    assert!(r.holds, "{:?}", r.findings);
}

/// The deepest document read with every recursive walk: the failure's strings (leak scan,
/// with a sealed directory) and level 4.
#[test]
fn the_deepest_readable_report_is_read_without_overflowing_the_stack() {
    let r = gapscore_check::check_bytes(
        "deep.json",
        &nested_report(gapscore_check::MAX_READ_DEPTH),
        &sealed_evidence(),
        4,
    );
    assert!(!r.unreadable(), "{:?}", r.document);
}

fn sealed_evidence() -> Evidence {
    let source = b"assert add(1, 2) == 3\n";
    let sealed = gapscore_check::SealedDir::from_files("sealed", [("test_a.py", &source[..])]);
    Evidence::new(Some(sealed), None)
}

/// The deepest document with the nesting at every kind of place a walk goes: a field the
/// schemas judge, the hardening history, gapscore's extension, the open counts. Ignored by
/// `cargo test` (about 16 s of a debug build) and run by `.ci/run` on the debug build, whose
/// frames are the largest: the stack given per level is sized by it.
#[test]
#[ignore]
fn deep_nesting_at_every_place_is_read_on_the_stack_given() {
    let evidence = sealed_evidence();
    for place in [
        r#"}], "hardening": {"history": [DEEP]}, "x": [{"#,
        r#"}], "coverage_comparison": {"happy_path": DEEP}, "x": [{"#,
        r#"}], "gapscore": {"tool": DEEP}, "x": [{"#,
        r#"}], "open_tests": DEEP, "x": [{"#,
    ] {
        let report = nested_report_at(place, gapscore_check::MAX_READ_DEPTH);
        let r = gapscore_check::check_bytes("deep.json", &report, &evidence, 4);
        assert!(!r.unreadable(), "{place}: {:?}", r.document);
    }
}

#[test]
fn a_report_deeper_than_the_checker_reads_is_refused_with_its_depth() {
    let depth = gapscore_check::MAX_READ_DEPTH + 1;
    let r =
        gapscore_check::check_bytes("deep.json", &nested_report(depth), &Evidence::default(), 1);
    let error = error_of(&r);
    assert!(error.contains("deep.json"), "{error}");
    assert!(
        error.contains(&format!(
            "{depth} levels deep, deeper than the 20000 levels"
        )),
        "{error}"
    );
    // A million levels: refused from the count alone, in linear time.
    let text = "[".repeat(1_000_000);
    let r = gapscore_check::check_bytes("million.json", text.as_bytes(), &Evidence::default(), 1);
    assert!(
        error_of(&r).contains("1000000 levels deep"),
        "{:?}",
        r.document
    );
}
