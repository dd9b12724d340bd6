//! Results read from a pipe: `go test -json | gapscore score --sealed -`, and process
//! substitution, `--sealed <(go test -json)`, which the shell passes as `/dev/fd/N`. Both are
//! copied to a temporary file in `TMPDIR` (removed afterwards), so everything a file gets works
//! for them too: detection, UTF-16, line and column in errors, a second read to name repeated ids.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::{BIN, code, json_of, stderr};

/// Runs `gapscore ARGS` with `input` on standard input and `TMPDIR` set to `tmp`.
fn piped(tmp: &Path, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .env("TMPDIR", tmp)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // A thread writes, so a child that stops reading early cannot block the test.
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn go_stream(tests: &[(&str, &str)]) -> String {
    tests
        .iter()
        .map(|(t, action)| {
            format!(
                "{{\"Action\":\"run\",\"Package\":\"ex/p\",\"Test\":\"{t}\"}}\n\
                 {{\"Action\":\"{action}\",\"Package\":\"ex/p\",\"Test\":\"{t}\",\"Elapsed\":0.01}}\n"
            )
        })
        .collect::<String>()
        + "{\"Action\":\"fail\",\"Package\":\"ex/p\",\"Elapsed\":0.02}\n"
}

fn assert_no_temporary_left(tmp: &Path) {
    let left: Vec<_> = std::fs::read_dir(tmp).unwrap().collect();
    assert!(left.is_empty(), "temporary copies left behind: {left:?}");
}

#[test]
fn a_go_test_stream_on_standard_input_is_detected_and_scored() {
    let tmp = tempfile::tempdir().unwrap();
    let stream = go_stream(&[("TestA", "pass"), ("TestB", "fail"), ("TestC", "pass")]);
    let out = piped(tmp.path(), &["score", "--sealed", "-"], stream.as_bytes());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report = json_of(&out);
    assert_eq!(report["sealed_tests"]["total"], 3);
    assert_eq!(report["sealed_tests"]["failed"], 1);
    let input = &report["gapscore"]["inputs"][0];
    assert_eq!(input["path"], "<stdin>");
    assert_eq!(input["format"], "go-test-json");
    assert_no_temporary_left(tmp.path());
}

#[test]
fn utf16_on_standard_input_is_decoded() {
    let tmp = tempfile::tempdir().unwrap();
    let stream = go_stream(&[("TestA", "pass"), ("TestB", "fail")]);
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(stream.encode_utf16().flat_map(u16::to_le_bytes));
    let out = piped(tmp.path(), &["score", "--sealed", "-"], &bytes);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(json_of(&out)["sealed_tests"]["failed"], 1);
}

#[test]
fn an_error_on_standard_input_names_it_with_line_and_column_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let report = out_dir.path().join("report.json");
    let doc = "{\"tests\": [\n  {\"name\": \"a\" \"status\": \"passed\"}\n]}\n";
    let out = piped(
        tmp.path(),
        &["score", "--sealed", "-", "-o", report.to_str().unwrap()],
        doc.as_bytes(),
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("<stdin>:2:16: expected `,` or `}` (simple adapter)"),
        "{}",
        stderr(&out)
    );
    assert!(!report.exists());
    assert_eq!(std::fs::read_dir(out_dir.path()).unwrap().count(), 0);
    assert_no_temporary_left(tmp.path());
}

#[test]
fn repeated_ids_on_standard_input_are_named_from_the_copy() {
    // Naming repeated ids takes a second read, which a pipe cannot give: the copy does.
    let tmp = tempfile::tempdir().unwrap();
    let stream = go_stream(&[("TestA", "pass"), ("TestA", "fail")]);
    let out = piped(tmp.path(), &["score", "--sealed", "-"], stream.as_bytes());
    assert!(
        stderr(&out).contains("sealed test id `ex/p::TestA` occurs 2 times"),
        "{}",
        stderr(&out)
    );
    assert_eq!(json_of(&out)["sealed_tests"]["total"], 2);
}

#[test]
fn standard_input_is_read_once() {
    let tmp = tempfile::tempdir().unwrap();
    let stream = go_stream(&[("TestA", "pass")]);
    let out = piped(
        tmp.path(),
        &["score", "--sealed", "-", "--open", "-"],
        stream.as_bytes(),
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains(
            "<stdin>: cannot read: standard input (`-`) was already read for another argument (open results)"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn parse_reads_standard_input() {
    let tmp = tempfile::tempdir().unwrap();
    let out = piped(
        tmp.path(),
        &["parse", "-"],
        b"TAP version 13\n1..2\nok 1 - a\nnot ok 2 - b\n",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let runs = json_of(&out);
    assert_eq!(runs[0]["source"], "<stdin>");
    assert_eq!(runs[0]["format"], "tap");
    assert_eq!(runs[0]["tests"].as_array().unwrap().len(), 2);
}

/// Runs `gapscore ARGS <(a three-test TAP stream)` through bash, with `TMPDIR` set to `tmp`;
/// `None` (said on stderr) when there is no bash to do the substitution.
#[cfg(unix)]
#[allow(clippy::print_stderr)] // Test code: the skip note.
fn with_tap_substituted(tmp: &Path, args: &str) -> Option<Output> {
    let script = format!(
        "exec '{BIN}' {args} <(printf 'TAP version 13\\n1..3\\nok 1 - a\\nnot ok 2 - b\\nok 3 - c\\n')"
    );
    let out = Command::new("bash")
        .args(["-c", &script])
        .env("TMPDIR", tmp)
        .output();
    if out.is_err() {
        eprintln!("no bash: process substitution not tried");
    }
    out.ok()
}

#[cfg(unix)]
#[test]
fn process_substitution_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(out) = with_tap_substituted(tmp.path(), "score --sealed") else {
        return;
    };
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report = json_of(&out);
    assert_eq!(report["sealed_tests"]["total"], 3);
    assert_eq!(report["sealed_tests"]["failed"], 1);
    let path = report["gapscore"]["inputs"][0]["path"].as_str().unwrap();
    assert!(path.starts_with("/dev/fd/"), "{path}");
    assert_no_temporary_left(tmp.path());
}

/// `harden record` looks at its one input as a possible Gap Report before reading it as result
/// files: a pipe is copied once, so both looks read the same bytes (before, the look emptied the
/// pipe and the results read as an empty file).
#[test]
fn harden_record_reads_results_and_reports_from_standard_input() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let history = work.path().join("history.json");
    let stream = go_stream(&[("TestA", "pass"), ("TestB", "fail"), ("TestC", "pass")]);
    let h = history.to_str().unwrap();
    let out = piped(tmp.path(), &["harden", "record", h, "-"], stream.as_bytes());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report = br#"{"sealed_tests":{"total":4,"passed":1,"failed":3},"failures":[]}"#;
    let out = piped(tmp.path(), &["harden", "record", h, "-"], report);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let h: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&history).unwrap()).unwrap();
    let cycles = h["cycles"].as_array().unwrap();
    let counts: Vec<_> = cycles
        .iter()
        .map(|c| (c["sealed_total"].clone(), c["sealed_failed"].clone()))
        .collect();
    assert_eq!(counts, [(3.into(), 1.into()), (4.into(), 3.into())], "{h}");
    assert_no_temporary_left(tmp.path());
}

#[cfg(unix)]
#[test]
fn harden_record_reads_results_from_process_substitution() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let history = work.path().join("history.json");
    let args = format!("harden record '{}'", history.display());
    let Some(out) = with_tap_substituted(tmp.path(), &args) else {
        return;
    };
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let h: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&history).unwrap()).unwrap();
    let cycle = &h["cycles"][0];
    assert_eq!(
        (&cycle["sealed_total"], &cycle["sealed_failed"]),
        (&3.into(), &1.into()),
        "{h}"
    );
    assert_no_temporary_left(tmp.path());
}
