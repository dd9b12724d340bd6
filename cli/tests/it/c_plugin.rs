//! The C example plugin (adapters/examples/c-lines), compiled with the system C compiler, used
//! by the `gapscore` binary through `--plugin`, `--plugin-dir` and `GAPSCORE_PLUGIN_PATH`:
//! listed by `adapters`, scored by `score`, printed by `parse`, and its parse errors shown as
//! `file:line:col: message`. Skipped (with a note on stderr) when there is no C compiler.

#![allow(clippy::print_stderr)] // Test code.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const BIN: &str = env!("CARGO_BIN_EXE_gapscore");

fn example_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters/examples/c-lines")
}

/// Compiles the plugin once per test binary; `None` when no C compiler is installed.
fn plugin() -> Option<&'static Path> {
    static PLUGIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    PLUGIN.get_or_init(compile).as_deref()
}

fn compile() -> Option<PathBuf> {
    // A directory holding nothing but the plugin, for `--plugin-dir` and GAPSCORE_PLUGIN_PATH.
    gapscore_fixture_plugins::compile_c_lines(
        &PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c-lines"),
    )
}

fn fixture(kind: &str, name: &str) -> PathBuf {
    example_dir().join("tests/fixtures").join(kind).join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs gapscore with a clean plugin environment, plus `env` when given.
fn run(args: &[&str], env: Option<(&str, &Path)>) -> Output {
    let mut c = Command::new(BIN);
    c.args(args).env_remove("GAPSCORE_PLUGIN_PATH");
    if let Some((k, v)) = env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn adapters_lists_the_c_plugin_with_its_origin() {
    let Some(so) = plugin() else { return };
    let o = run(&["adapters", "--plugin", s(so)], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let list = stdout(&o);
    let row = list
        .lines()
        .find(|l| l.starts_with("c-lines "))
        .unwrap_or_else(|| panic!("no c-lines row:\n{list}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[..3], ["c-lines", "0.1.0", "lines"], "{row}");
    assert!(row.ends_with(&format!("plugin {}", so.display())), "{row}");
    assert_eq!(stderr(&o), "");
    // Without it, it is not there.
    let o = run(&["adapters"], None);
    assert_eq!(o.status.code(), Some(0));
    assert!(!stdout(&o).contains("c-lines"));
}

/// The summary of all-statuses.lines: 2 of 9 tests pass (skipped and todo count as failures
/// by default).
fn assert_all_statuses_summary(o: &Output, what: &str) {
    assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(o));
    let out = stdout(o);
    let mut lines = out.lines();
    assert!(
        lines.next().unwrap().starts_with("Shadow Score: 77.8% "),
        "{what}: {out}"
    );
    assert_eq!(lines.next(), Some("Sealed: 2/9 passed"), "{what}: {out}");
    assert!(out.contains("\nFailures (7):\n"), "{what}: {out}");
    for failure in [
        "  ❌ divides by zero: expected an error, got 0",
        "  ❌ connects to the database: ConnectionRefused: port 5432",
        "  ❌ uploads a file: needs network",
        "  ❌ handles overflow",
    ] {
        assert!(out.contains(failure), "{what}: no `{failure}` in\n{out}");
    }
}

#[test]
fn score_reads_a_lines_file_through_every_discovery_route() {
    let Some(so) = plugin() else { return };
    let dir = so.parent().unwrap();
    let results = fixture("valid", "all-statuses.lines");
    let summary = ["--sealed", s(&results), "--format", "summary"];
    let with = |extra: &[&str]| -> Vec<String> {
        let mut v = vec!["score".to_owned()];
        v.extend(extra.iter().map(|a| (*a).to_owned()));
        v.extend(summary.iter().map(|a| (*a).to_owned()));
        v
    };
    for (args, env, what) in [
        (with(&["--plugin", s(so)]), None, "--plugin"),
        (with(&["--plugin-dir", s(dir)]), None, "--plugin-dir"),
        (
            with(&[]),
            Some(("GAPSCORE_PLUGIN_PATH", dir)),
            "GAPSCORE_PLUGIN_PATH",
        ),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_all_statuses_summary(&run(&args, env), what);
    }
    // Without the plugin no adapter recognises the file.
    let o = run(&["score", "--sealed", s(&results)], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no adapter recognises this file"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn parse_prints_the_canonical_run() {
    let Some(so) = plugin() else { return };
    let file = fixture("valid", "unicode-and-escapes.lines");
    let o = run(&["parse", "--plugin", s(so), s(&file)], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let runs: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run0 = &runs[0];
    assert_eq!(run0["format"], "lines");
    assert_eq!(run0["source"], s(&file));
    let tests = run0["tests"].as_array().unwrap();
    let got: Vec<(&str, &str, Option<&str>)> = tests
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap(),
                t["status"].as_str().unwrap(),
                t.get("message").and_then(|m| m.as_str()),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("ünïcödé 名前 🎉", "passed", None),
            (
                "\"quoted\" name",
                "failed",
                Some("expected \"a\" but got \"b\"")
            ),
            (
                "back\\slash\\path",
                "errored",
                Some("C:\\temp\\file.txt not found")
            ),
            ("tab\tinside", "skipped", Some("reason with\ttab")),
            ("name with: colon in a PASS line", "passed", None),
            ("résumé: a TODO name with a colon", "todo", None),
            ("control", "failed", Some("bell\u{7} and DEL\u{7f}")),
        ]
    );
    assert_eq!(tests[1]["id"], "\"quoted\" name", "the host derives ids");

    // An empty file claims no format, so it is read with --format: zero tests.
    let empty = fixture("valid", "empty.lines");
    let o = run(
        &[
            "parse",
            "--plugin",
            s(so),
            "--input-format",
            "lines",
            s(&empty),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let runs: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(runs[0]["format"], "lines");
    assert_eq!(runs[0]["tests"], serde_json::json!([]));
}

#[test]
fn invalid_input_names_the_file_line_and_column() {
    let Some(so) = plugin() else { return };
    for (name, place, message) in [
        (
            "unknown-keyword.lines",
            "3:1",
            "unknown keyword \"WARN\" (expected PASS, FAIL, ERROR, SKIP or TODO)",
        ),
        ("invalid-utf8.lines", "2:9", "invalid UTF-8 (byte 0xC3)"),
        ("empty-name.lines", "2:6", "empty test name"),
    ] {
        let bad = fixture("invalid", name);
        // Named with --input-format: detection reads only the first real line, and some of
        // these files start with a valid one.
        let o = run(
            &[
                "score",
                "--plugin",
                s(so),
                "--input-format",
                "lines",
                "--sealed",
                s(&bad),
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(2), "{name}");
        assert!(o.stdout.is_empty(), "{name}: no report is written");
        let err = stderr(&o);
        assert!(
            err.contains(&format!("{}:{place}: {message}", bad.display())),
            "{name}: {err}"
        );
    }
    // Detected rather than named, the same place.
    let bad = fixture("invalid", "unknown-keyword.lines");
    let o = run(&["score", "--plugin", s(so), "--sealed", s(&bad)], None);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "{}:3:1: unknown keyword \"WARN\" (expected PASS, FAIL, ERROR, SKIP or TODO)",
            bad.display()
        )),
        "{err}"
    );
}
