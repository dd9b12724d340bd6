//! Issue 36, the `plugins` part (see `round3/mod.rs`): `adapters --explain FILE` (item 5),
//! process-adapter detection rules with several substrings or a regex and a configurable exec
//! timeout (item 5), `--plugin-isolate` containing a plugin's crash to the file it was reading
//! (item 6), and a plugin's `GAPSCORE_ERR_PARSE` without `error()` named.

use std::path::{Path, PathBuf};

use crate::common::{code, json_of, repo_path, run_in, stderr, stdout};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn python() -> bool {
    crate::common::runner_available("python3", &["--version"])
}

/// The rules process adapter (cli/tests/data/round3-plugins/rules_adapter.py).
fn rules_cmd() -> String {
    format!(
        "python3 '{}'",
        repo_path("cli/tests/data/round3-plugins/rules_adapter.py").display()
    )
}

/// The fixture plugin library copied into `dir` as the plugin `name`
/// (`libgapscore_adapter_<name>.so`, whose entry symbol it exports).
fn fixture_plugin(dir: &Path, name: &str) -> PathBuf {
    let built = gapscore_adapter_testing::built_cdylib("gapscore-fixture-plugins");
    let dest = dir.join(format!(
        "{}gapscore_adapter_{name}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    std::fs::copy(built, &dest).unwrap();
    dest
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Before: `unexpected argument '--explain'`, exit 2. After: every adapter's score and the
/// conditions behind it, and the choice with its rule, in text and in the JSON listing.
#[test]
fn item05_explain_shows_every_score_its_reasons_and_the_choice() {
    let dir = tempfile::tempdir().unwrap();
    let file = repo_path("adapters/jest/tests/fixtures/valid/all-statuses.json");
    let o = run_in(dir.path(), &["adapters", "--explain", s(&file)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("(named on the command line; UTF-8;"),
        "{text}"
    );
    let jest = text
        .lines()
        .find(|l| l.trim_start().starts_with("jest "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(jest.contains(" 98  built-in"), "{jest}");
    assert!(text.contains("yes  a \"testResults\" key (98)"), "{text}");
    assert!(
        text.contains("chosen: `jest` as jest-json: the highest score (98), alone at the top"),
        "{text}"
    );

    let o = run_in(
        dir.path(),
        &["adapters", "--format", "json", "--explain", s(&file)],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = json_of(&o);
    assert_eq!(v["version"], 1);
    assert_eq!(v["adapters"].as_array().unwrap().len(), 9, "{v}");
    let f = &v["files"][0];
    assert_eq!(f["explicit"], true);
    assert_eq!(f["encoding"], "UTF-8");
    let detections = f["detections"].as_array().unwrap();
    assert_eq!(detections.len(), 9);
    for d in detections {
        // Every built-in says why: its checks are there, the last one decisive.
        assert!(!d["checks"].as_array().unwrap().is_empty(), "{d}");
    }
    let simple = detections.iter().find(|d| d["name"] == "simple").unwrap();
    assert_eq!(simple["score"], 0, "{simple}");
    assert_eq!(f["decision"]["kind"], "read");
    assert_eq!(f["decision"]["adapter"], "jest");
    assert_eq!(f["decision"]["format"], "jest-json");
    assert_eq!(f["decision"]["score"], 98);
    // Without --explain the listing has no `files`.
    let o = run_in(dir.path(), &["adapters", "--format", "json"]);
    assert!(json_of(&o).get("files").is_none());
}

/// Files found in a directory: the SURE threshold, documentation and the decoding the host
/// applied first, each said.
#[test]
fn item05_explain_a_directory_says_what_is_left_out_and_what_was_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    std::fs::create_dir(&results).unwrap();
    write(
        &results,
        "truth.json",
        r#"{"tests": [{"name": "a", "status": "passed"}], "expected": 0}"#,
    );
    write(
        &results,
        "README.md",
        "# Notes\n\nHow these results were made.\n",
    );
    std::fs::copy(
        repo_path("adapters/junit/tests/fixtures/valid/utf16le-bom.xml"),
        results.join("utf16.xml"),
    )
    .unwrap();
    let o = run_in(
        dir.path(),
        &["adapters", "--format", "json", "--explain", "results"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = json_of(&o);
    let file = |name: &str| {
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name}: {v}"))
            .clone()
    };
    let truth = file("truth.json");
    assert_eq!(truth["explicit"], false);
    assert_eq!(truth["decision"]["kind"], "left-out", "{truth}");
    assert!(
        truth["decision"]["reason"]
            .as_str()
            .unwrap()
            .contains("only as a guess (20/100"),
        "{truth}"
    );
    assert_eq!(file("README.md")["decision"]["kind"], "left-out");
    let xml = file("utf16.xml");
    assert_eq!(xml["encoding"], "UTF-16LE", "{xml}");
    assert_eq!(xml["decision"]["adapter"], "junit", "{xml}");
    // The text says the threshold.
    let o = run_in(dir.path(), &["adapters", "--explain", "results"]);
    let text = stdout(&o);
    assert!(
        text.contains("UTF-16LE, decoded to UTF-8 before detection"),
        "{text}"
    );
    assert!(
        text.contains("A file found in a directory needs 50 or more."),
        "{text}"
    );
}

/// Before: `prefix_contains` took one string and an array (or `prefix_regex`) refused the
/// adapter. After: every string of the array must occur; a regex rule works; `--explain` says
/// which condition failed.
#[test]
fn item05_process_rules_take_several_substrings_or_a_regex() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let both = write(dir.path(), "both.txt", "RULES-A\nRULES-B\nPASS adds\n");
    let one = write(dir.path(), "one.txt", "RULES-B\nPASS adds\n");
    let regex = write(dir.path(), "r.rules", "rules v3\nFAIL divides\n");
    let cmd = rules_cmd();
    let o = run_in(
        dir.path(),
        &["parse", "--plugin-exec", &cmd, s(&both), s(&regex)],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let runs = json_of(&o);
    assert_eq!(runs[0]["format"], "rules", "{runs}");
    assert_eq!(runs[0]["tests"][0]["name"], "adds");
    assert_eq!(runs[1]["format"], "rules", "{runs}");
    assert_eq!(runs[1]["tests"][0]["status"], "failed");
    // One of the two strings is not enough.
    let o = run_in(dir.path(), &["parse", "--plugin-exec", &cmd, s(&one)]);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(
        stderr(&o).contains("no adapter recognises this file"),
        "{}",
        stderr(&o)
    );
    let o = run_in(
        dir.path(),
        &["adapters", "--plugin-exec", &cmd, "--explain", s(&one)],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("no   detect[0]: the first 64 KiB contain \"RULES-A\""),
        "{text}"
    );
    assert!(
        text.contains("no   rule detect[0] matches (confidence 88)"),
        "{text}"
    );
    assert!(
        text.contains("no   detect[1]: the file name ends with \".rules\""),
        "{text}"
    );
}

/// Before: the limit was 600 s, fixed. After: `--plugin-exec-timeout SECS`, named in the error.
#[test]
fn item05_the_exec_timeout_is_a_flag_and_its_error_names_it() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let slow = write(dir.path(), "slow.txt", "RULES-A\nRULES-B\nSLEEP\n");
    let o = run_in(
        dir.path(),
        &[
            "parse",
            "--plugin-exec",
            &rules_cmd(),
            "--plugin-exec-timeout",
            "1",
            s(&slow),
        ],
    );
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(
        stderr(&o).contains(
            "did not finish within 1 s (--plugin-exec-timeout SECS sets the limit); stopped"
        ),
        "{}",
        stderr(&o)
    );
}

/// Before: a plugin's segfault killed gapscore (signal 11, nothing written). After, with
/// `--plugin-isolate`: that file fails naming the plugin and the signal, exit 2, and the other
/// files' results are written.
#[test]
fn item06_isolate_contains_a_crash_to_its_file_and_keeps_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = fixture_plugin(dir.path(), "v2_crash");
    let good = write(dir.path(), "good.crash", "adds\nsubtracts\n");
    let segv = write(dir.path(), "segv.crash", "adds\nSEGV\n");
    let abort = write(dir.path(), "abort.crash", "ABORT\n");
    let o = run_in(
        dir.path(),
        &[
            "parse",
            "--plugin",
            s(&plugin),
            "--plugin-isolate",
            "--format",
            "ndjson",
            s(&good),
            s(&segv),
            s(&abort),
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "test")
        .map(|l| l["test"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["adds", "subtracts"], "{}", stdout(&o));
    let err = stderr(&o);
    for (file, signal) in [
        ("segv.crash", "11 (SIGSEGV)"),
        ("abort.crash", "6 (SIGABRT)"),
    ] {
        let line = err
            .lines()
            .find(|l| l.contains(file))
            .unwrap_or_else(|| panic!("{file}: {err}"));
        assert!(line.contains("plugin `v2_crash` ("), "{line}");
        assert!(
            line.contains(&format!(
                "crashed in its isolated process (--plugin-isolate): killed by signal {signal}"
            )),
            "{line}"
        );
    }
    // Scored, an isolated plugin gives what it gives in-process.
    let score = |isolate: bool| {
        let mut args = vec![
            "score",
            "--plugin",
            s(&plugin),
            "--sealed",
            s(&good),
            "--format",
            "summary",
        ];
        if isolate {
            args.push("--plugin-isolate");
        }
        let o = run_in(dir.path(), &args);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        stdout(&o)
    };
    assert_eq!(score(true), score(false));
}

/// A plugin can crash in `detect` too: under isolation that fails the file (named, with the
/// signal), shown by `--explain`, and the other files are read. Never "no claim": found in a
/// directory, a file whose bytes crash the plugin's detection would otherwise be skipped as
/// unrecognised, its failures uncounted.
#[test]
fn item06_a_crash_in_detect_is_contained_and_explained() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = fixture_plugin(dir.path(), "v2_crash");
    let good = write(dir.path(), "good.crash", "adds\n");
    let bad = write(dir.path(), "bad.crash", "SEGV-IN-DETECT\n");
    let o = run_in(
        dir.path(),
        &[
            "adapters",
            "--plugin",
            s(&plugin),
            "--plugin-isolate",
            "--format",
            "json",
            "--explain",
            s(&bad),
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = json_of(&o);
    let d = v["files"][0]["detections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "v2_crash")
        .cloned()
        .unwrap();
    assert_eq!(d["origin"], "plugin");
    assert_eq!(d["score"], 0);
    assert!(
        d["note"]
            .as_str()
            .unwrap()
            .contains("while detecting the file's format: killed by signal 11 (SIGSEGV)"),
        "{d}"
    );
    let o = run_in(
        dir.path(),
        &[
            "parse",
            "--plugin",
            s(&plugin),
            "--plugin-isolate",
            s(&good),
            s(&bad),
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("bad.crash: plugin `v2_crash`")
            && stderr(&o).contains("SIGSEGV")
            && stderr(&o).contains("the file is not read"),
        "{}",
        stderr(&o)
    );
    assert_eq!(json_of(&o)[0]["tests"][0]["name"], "adds", "{}", stdout(&o));
    // Found in a directory, the file is not skipped as unrecognised: `score` fails (exit 2)
    // rather than score the other file alone.
    let results = dir.path().join("results");
    std::fs::create_dir(&results).unwrap();
    std::fs::copy(&good, results.join("good.crash")).unwrap();
    std::fs::copy(&bad, results.join("bad.crash")).unwrap();
    let o = run_in(
        dir.path(),
        &[
            "score",
            "--plugin",
            s(&plugin),
            "--plugin-isolate",
            "--sealed",
            "results",
        ],
    );
    assert_eq!(code(&o), 2, "{}\n{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("bad.crash"), "{}", stderr(&o));
}

/// Before: `good.crash: no message`. After: the plugin, its file and what it did.
#[test]
fn item06_err_parse_without_error_names_the_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = fixture_plugin(dir.path(), "v2_silent_parse_error");
    let file = write(dir.path(), "x.txt", "adds\n");
    for isolate in [false, true] {
        let mut args = vec![
            "parse",
            "--plugin",
            s(&plugin),
            "--input-format",
            "broken",
            s(&file),
        ];
        if isolate {
            args.push("--plugin-isolate");
        }
        let o = run_in(dir.path(), &args);
        assert_eq!(code(&o), 2, "{}", stdout(&o));
        let err = stderr(&o);
        assert!(
            err.contains("x.txt: plugin `v2_silent_parse_error` ("),
            "{err}"
        );
        assert!(
            err.contains("returned GAPSCORE_ERR_PARSE without calling error(); no reason given"),
            "{err}"
        );
        assert!(!err.contains("no message"), "{err}");
    }
}
