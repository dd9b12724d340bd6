//! `gapscore ... | head -1`: a reader that closes standard output early is not an error. The
//! command stops writing, prints nothing about it and keeps the exit code it would have had
//! (documented in docs/score.md §6).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_gapscore");

/// A simple document with enough failing tests that every output is far bigger than a pipe's
/// buffer (64 KiB), so the writes after the first line really meet a closed pipe.
fn big_results(dir: &Path) -> String {
    let tests: Vec<String> = (0..5000)
        .map(|i| {
            format!(
                r#"{{"name": "test number {i}", "status": "failed", "message": "{}"}}"#,
                "m".repeat(60)
            )
        })
        .collect();
    let path = dir.join("big.json");
    std::fs::write(&path, format!(r#"{{"tests": [{}]}}"#, tests.join(","))).unwrap();
    path.to_str().unwrap().to_owned()
}

/// Runs gapscore, reads one line of its standard output, closes the pipe and waits.
fn first_line_then_close(args: &[&str]) -> (String, Option<i32>, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // The reader is dropped here: the pipe is closed with most of the output unwritten.
    let out = child.wait_with_output().unwrap();
    (
        line,
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn parse_into_a_closed_pipe_exits_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let f = big_results(dir.path());
    let (line, code, stderr) = first_line_then_close(&["parse", &f]);
    assert_eq!(line, "[\n");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn score_summary_into_a_closed_pipe_exits_quietly_with_its_own_code() {
    let dir = tempfile::tempdir().unwrap();
    let f = big_results(dir.path());
    for (extra, want) in [(&[][..], 0), (&["--threshold", "10"][..], 1)] {
        let mut args = vec!["score", "--sealed", f.as_str(), "--format", "summary"];
        args.extend(extra);
        let (line, code, stderr) = first_line_then_close(&args);
        assert!(line.starts_with("Shadow Score: 100.0%"), "{line}");
        assert_eq!(code, Some(want), "{args:?}: {stderr}");
        // Only the gate's verdict, when it fails; nothing about the closed pipe.
        let said = if want == 1 {
            "error: score 100.0% is above the threshold 10%\n"
        } else {
            ""
        };
        assert_eq!(stderr, said);
    }
    for format in ["json", "markdown"] {
        let (_, code, stderr) =
            first_line_then_close(&["score", "--sealed", &f, "--format", format]);
        assert_eq!(code, Some(0), "{format}: {stderr}");
        assert!(stderr.is_empty(), "{stderr}");
    }
}

#[cfg(unix)]
#[test]
fn through_a_shell_pipeline_with_pipefail() {
    let bash = Path::new("/bin/bash");
    if !bash.exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = big_results(dir.path());
    for cmd in [
        format!("'{BIN}' parse '{f}' | head -1"),
        format!("'{BIN}' score --sealed '{f}' --format summary | head -1"),
    ] {
        let out = Command::new(bash)
            .args(["-c", &format!("set -o pipefail; {cmd}")])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{cmd}: {:?}", out);
        assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
        assert!(out.stderr.is_empty(), "{cmd}: {:?}", out);
    }
}
