//! `--plugin-exec` and `--plugin-debug` through the `gapscore` binary: the Python example
//! adapter (adapters/examples/python-lines) is listed by `adapters`, read by `parse` and `score`;
//! an adapter whose event stream is cut makes the command fail (exit 2) naming the command, and
//! `--plugin-debug` shows the rejected line. Skipped (with a note) when python3 is missing.

#![allow(clippy::print_stderr)] // Test code: the skip note.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_gapscore");

fn python() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: no python3");
    }
    ok
}

fn example_cmd() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../adapters/examples/python-lines/gapscore_python_lines.py");
    format!("python3 '{}'", p.display())
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("GAPSCORE_PLUGIN_PATH")
        .output()
        .unwrap()
}

fn results(dir: &Path, text: &str) -> PathBuf {
    let f = dir.join("run.lines");
    std::fs::write(&f, text).unwrap();
    f
}

#[test]
fn the_python_example_is_listed_parsed_and_scored() {
    if !python() {
        return;
    }
    let cmd = example_cmd();
    let o = run(&["adapters", "--plugin-exec", &cmd]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    let row = out.lines().find(|l| l.contains("python-lines")).unwrap();
    assert!(
        row.contains("lines-py") && row.ends_with(&format!("plugin-exec {cmd}")),
        "{row}"
    );

    let dir = tempfile::tempdir().unwrap();
    let file = results(dir.path(), "PASS adds\nFAIL divides: by zero\n");
    let f = file.to_str().unwrap();
    let o = run(&["parse", "--plugin-exec", &cmd, f]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let runs: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(runs[0]["format"], "lines-py");
    assert_eq!(runs[0]["tests"][1]["message"], "by zero");

    let o = run(&[
        "score",
        "--plugin-exec",
        &cmd,
        "--sealed",
        f,
        "--format",
        "summary",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Sealed: 1/2 passed"), "{out}");
    assert!(out.contains("  ❌ divides: by zero"), "{out}");

    // An input error keeps its place.
    let bad = results(dir.path(), "PASS a\nWARN b\n");
    let o = run(&["parse", "--plugin-exec", &cmd, bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("run.lines:2:1: unknown keyword \"WARN\""),
        "{err}"
    );
}

#[test]
fn a_cut_stream_fails_the_command_and_debug_shows_the_line() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("cut.py");
    std::fs::write(
        &script,
        "import json, sys\nif sys.argv[1] == '--gapscore-info':\n    print(json.dumps({'gapscore_exec_adapter': 1, 'name': 'cut', 'version': '1', 'formats': ['cut'], 'detect': [{'confidence': 90, 'file_suffix': '.lines'}]}))\n    sys.exit(0)\nsys.stdin.buffer.read()\nsys.stdout.write(json.dumps({'event': 'test_finished', 'test': {'name': 'a', 'status': 'passed'}}) + '\\n{\"event\": \"te')\n",
    )
    .unwrap();
    let cmd = format!("python3 {}", script.display());
    let file = results(dir.path(), "PASS a\n");
    let f = file.to_str().unwrap();
    let o = run(&["score", "--plugin-exec", &cmd, "--sealed", f]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "plugin-exec `{cmd}` (cut): stdout line 2: the last line has no newline: the event stream was cut (run with --plugin-debug to see what it returned)"
        )),
        "{err}"
    );
    let o = run(&[
        "score",
        "--plugin-exec",
        &cmd,
        "--plugin-debug",
        "--sealed",
        f,
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("it returned: \"{\\\"event\\\": \\\"te\" (13 bytes)"),
        "{err}"
    );
}
