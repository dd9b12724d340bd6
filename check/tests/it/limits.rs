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
