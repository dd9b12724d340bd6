//! `explain`, the detection that `gapscore adapters --explain` shows: every adapter's explained
//! score is its `detect` score (one code path, [`Why`](gapscore_adapter_sdk::detect::Why)), on
//! every fixture of every built-in; the decision names the adapter that `ingest` reads the file
//! with; a file found in a directory below `SURE` is left out in both; and executable adapters'
//! rules (several `prefix_contains` strings, a `prefix_regex`) say which condition failed.

#![allow(clippy::print_stderr)] // Test code: the skip note.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_adapter_sdk::{DETECT_PREFIX_LEN, RunCollector};
use gapscore_adapters::exec::load_exec;
use gapscore_adapters::{Decision, IngestOptions, Input, Outcome, Registry, explain, ingest};

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for adapter in [
        "simple", "junit", "pytest", "jest", "ctrf", "gotest", "tap", "libtest", "mocha",
    ] {
        walk(&root.join(adapter).join("tests/fixtures"), &mut out);
    }
    out.sort();
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn every_explained_score_is_the_detect_score_and_the_choice_is_ingests() {
    let reg = Registry::builtin();
    let files = fixtures();
    assert!(files.len() > 200, "{} fixtures", files.len());
    let inputs: Vec<Input> = files.iter().map(|p| Input::new(p, true)).collect();
    let explained = explain(&reg, &inputs);
    let read = ingest(&reg, &inputs, &IngestOptions::new(None, 2), |s, f| {
        RunCollector::new(f.to_owned(), Some(s.to_owned()))
    });
    let mut checked = 0;
    for ((path, e), outcome) in files.iter().zip(&explained).zip(&read) {
        let Ok(e) = e else { continue };
        // The host judged the same (decoded) prefix; a UTF-8 file's is its first bytes.
        if !e.decoded {
            let mut bytes = fs::read(path).unwrap();
            bytes.truncate(DETECT_PREFIX_LEN);
            let name = path.file_name().and_then(|n| n.to_str());
            for a in &e.adapters {
                assert_eq!(
                    a.detection.score,
                    a.entry.adapter.detect(&bytes, name).min(100),
                    "{}: {}",
                    path.display(),
                    a.entry.name()
                );
                // A built-in says why: at least one condition for every score.
                assert!(
                    !a.detection.checks.is_empty(),
                    "{}: {}",
                    path.display(),
                    a.entry.name()
                );
            }
        }
        let chosen = match &e.decision {
            Decision::Read { adapter, .. } => Some(adapter.as_str()),
            _ => None,
        };
        let ingested = match outcome {
            Outcome::Parsed(p) => Some(p.adapter.as_str()),
            Outcome::Failed(gapscore_adapters::IngestError::Parse { adapter, .. }) => {
                Some(adapter.as_str())
            }
            _ => None,
        };
        assert_eq!(chosen, ingested, "{}", path.display());
        checked += 1;
    }
    assert!(checked > 200);
}

#[test]
fn a_guess_found_in_a_directory_is_left_out_by_both() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("truth.json");
    fs::write(
        &file,
        r#"{"tests": [{"name": "a", "status": "passed"}], "expected_score": 0}"#,
    )
    .unwrap();
    let reg = Registry::builtin();
    let found = [Input::new(&file, false)];
    let e = explain(&reg, &found).pop().unwrap().unwrap();
    let Decision::LeftOut { reason } = &e.decision else {
        panic!("{:?}", e.decision);
    };
    assert!(reason.contains("only as a guess (20/100"), "{reason}");
    let simple = e
        .adapters
        .iter()
        .find(|a| a.entry.name() == "simple")
        .unwrap();
    assert_eq!(simple.detection.score, 20);
    assert!(
        simple
            .detection
            .checks
            .iter()
            .any(|c| !c.held && c.condition.starts_with("no top-level keys but")),
        "{:?}",
        simple.detection.checks
    );
    let read = ingest(&reg, &found, &IngestOptions::new(None, 1), |s, f| {
        RunCollector::new(f.to_owned(), Some(s.to_owned()))
    });
    assert!(matches!(read[0], Outcome::LeftOut { .. }));
    // Named, the same file is read.
    let e = explain(&reg, &[Input::new(&file, true)])
        .pop()
        .unwrap()
        .unwrap();
    assert!(matches!(&e.decision, Decision::Read { adapter, .. } if adapter == "simple"));
}

fn python() -> bool {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: no python3");
    }
    ok
}

/// A process adapter whose info document declares `detect` (a JSON array).
fn rules_adapter(dir: &Path, detect: &str) -> String {
    let path = dir.join("rules.py");
    fs::write(
        &path,
        format!(
            "import sys\nif sys.argv[1] == '--gapscore-info':\n    print('{{\"gapscore_exec_adapter\": 1, \"name\": \"rules\", \"version\": \"1\", \"formats\": [\"rules\"], \"detect\": {detect}}}')\n"
        ),
    )
    .unwrap();
    format!("python3 {}", path.display())
}

#[test]
fn process_rules_take_several_substrings_or_a_regex_and_say_which_failed() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cmd = rules_adapter(
        dir.path(),
        r#"[{"confidence": 88, "prefix_contains": ["ALPHA", "BETA"]}, {"confidence": 77, "file_suffix": ".r", "prefix_regex": "(?m)^rules v[0-9]+$"}, {"confidence": 20, "prefix_contains": "ALPHA"}]"#,
    );
    let a = load_exec(&cmd).unwrap();
    use gapscore_adapter_sdk::Adapter as _;
    assert_eq!(a.detect(b"ALPHA then BETA", None), 88);
    assert_eq!(a.detect(b"ALPHA alone", None), 20);
    assert_eq!(a.detect(b"x\nrules v12\n", Some("f.r")), 77);
    assert_eq!(a.detect(b"x\nrules v12\n", Some("f.txt")), 0);
    assert_eq!(a.detect(b"x\nrules vX\n", Some("f.r")), 0);
    let d = a.explain_detect(b"ALPHA alone", Some("f.r"));
    assert_eq!(d.score, 20);
    let failed: Vec<&str> = d
        .checks
        .iter()
        .filter(|c| !c.held)
        .map(|c| c.condition.as_str())
        .collect();
    assert_eq!(
        failed,
        [
            "detect[0]: the first 64 KiB contain \"BETA\"",
            "rule detect[0] matches (confidence 88)",
            "detect[1]: the first 64 KiB match /(?m)^rules v[0-9]+$/",
            "rule detect[1] matches (confidence 77)",
        ]
    );
}

#[test]
fn a_bad_rule_refuses_the_adapter_at_load_naming_the_rule() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let err = |detect: &str| load_exec(&rules_adapter(dir.path(), detect)).unwrap_err();
    let e = err(
        r#"[{"confidence": 50, "file_suffix": ".r"}, {"confidence": 60, "prefix_regex": "(unclosed"}]"#,
    );
    assert!(
        e.starts_with("detect[1].prefix_regex is not a valid regular expression: "),
        "{e}"
    );
    // Over the size limit: refused, not compiled into a huge program.
    let e = err(r#"[{"confidence": 60, "prefix_regex": "([a-z]{100}){1000}"}]"#);
    assert!(
        e.starts_with("detect[0].prefix_regex is not a valid regular expression: "),
        "{e}"
    );
    assert!(e.contains("size limit"), "{e}");
    assert_eq!(
        err(r#"[{"confidence": 60, "prefix_contains": []}]"#),
        "detect[0].prefix_contains is an empty array or holds an empty string"
    );
    assert_eq!(
        err(r#"[{"confidence": 60}]"#),
        "detect[0] names no condition (file_suffix, prefix_contains or prefix_regex)"
    );
    // A version 1 info document of before (one string) still loads.
    assert!(
        load_exec(&rules_adapter(
            dir.path(),
            r#"[{"confidence": 60, "prefix_contains": "X"}]"#
        ))
        .is_ok()
    );
}

/// Every fixture's decision (adapter and format, or why none), one line per file, as recorded
/// in `tests/data/chosen-formats.txt`: a change to how the host chooses (issue 36's head rule)
/// must leave every real file read as it was; `(head)` marks the files the head rule decided.
/// `GAPSCORE_UPDATE_CHOSEN=1` rewrites the record.
#[test]
fn every_fixtures_chosen_format_is_as_recorded() {
    let reg = Registry::builtin();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = fixtures();
    let inputs: Vec<Input> = files.iter().map(|p| Input::new(p, true)).collect();
    let mut table = String::new();
    for (path, e) in files.iter().zip(explain(&reg, &inputs)) {
        let rel = path.strip_prefix(&root).unwrap().display().to_string();
        let decision = match e.map(|e| e.decision) {
            Ok(Decision::Read {
                adapter,
                format,
                why,
                ..
            }) => {
                let head = if why.contains("head rule") {
                    " (head)"
                } else {
                    ""
                };
                format!("{adapter} {format}{head}")
            }
            Ok(Decision::Failed { .. }) | Err(_) => "failed".to_owned(),
            Ok(other) => format!("{other:?}"),
        };
        table.push_str(&format!("{rel}\t{decision}\n"));
    }
    let record = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/chosen-formats.txt");
    if std::env::var_os("GAPSCORE_UPDATE_CHOSEN").is_some() {
        fs::create_dir_all(record.parent().unwrap()).unwrap();
        fs::write(&record, &table).unwrap();
    }
    let want = fs::read_to_string(&record).unwrap();
    for (got, want) in table.lines().zip(want.lines()) {
        assert_eq!(got, want, "a fixture's chosen format changed");
    }
    assert_eq!(table.lines().count(), want.lines().count());
}
