//! `gapscore parse` writes as it reads: the JSON layout keeps its bytes, NDJSON marks each
//! file's run and its end, and `-o FILE` is still all or nothing.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{code, repo_path, run_in, stderr, stdout};

/// A JUnit file whose first two tests are complete and whose XML then breaks: the adapter has
/// reported tests when the error comes.
const BREAKS_HALF_WAY: &str = r#"<?xml version="1.0"?>
<testsuite name="s">
  <testcase classname="s" name="one"/>
  <testcase classname="s" name="two"><failure message="no"/></testcase>
  <testcase classname="s" name="three">
</testsuite>
"#;

fn valid_dirs() -> Vec<String> {
    ["simple", "junit", "tap", "gotest", "jest", "pytest", "ctrf"]
        .iter()
        .map(|a| {
            repo_path(&format!("adapters/{a}/tests/fixtures/valid"))
                .display()
                .to_string()
        })
        .collect()
}

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

#[test]
fn json_written_as_read_is_the_pretty_print_of_its_own_value() {
    let tmp = tempfile::tempdir().unwrap();
    let mut args = vec!["parse", "--allow-truncated"];
    let dirs = valid_dirs();
    args.extend(dirs.iter().map(String::as_str));
    let o = run_in(tmp.path(), &args);
    let text = stdout(&o);
    let runs: Value = serde_json::from_str(&text).unwrap();
    assert!(runs.as_array().unwrap().len() > 50, "{}", stderr(&o));
    // What `parse` printed when it held every run: the pretty print of the runs as a `Value`.
    let mut whole = serde_json::to_string_pretty(&runs).unwrap();
    whole.push('\n');
    assert!(
        text == whole,
        "the streamed bytes differ from the whole-array print"
    );
    // And `-o` writes the same bytes.
    let out = tmp.path().join("runs.json");
    let mut with_o = args.clone();
    with_o.extend(["-o", out.to_str().unwrap()]);
    assert_eq!(code(&run_in(tmp.path(), &with_o)), code(&o));
    assert!(fs::read_to_string(&out).unwrap() == text);
}

#[test]
fn ndjson_marks_each_files_run_its_tests_and_its_end_in_input_order() {
    let tmp = tempfile::tempdir().unwrap();
    let a = repo_path("adapters/simple/tests/fixtures/valid/all-statuses.json");
    let b = repo_path("adapters/junit/tests/fixtures/valid/bare-testsuite.xml");
    let dup = tmp.path().join("dup.json");
    fs::write(
        &dup,
        r#"{"tests": [{"name": "t", "status": "passed"}, {"name": "t", "status": "failed"}]}"#,
    )
    .unwrap();
    let (a, b, d) = (
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        dup.to_str().unwrap(),
    );
    let o = run_in(tmp.path(), &["parse", "--format", "ndjson", a, b, d]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let recs = lines(&stdout(&o));
    // The same runs as the JSON layout, in the same order.
    let json: Vec<Value> =
        serde_json::from_str(&stdout(&run_in(tmp.path(), &["parse", a, b, d]))).unwrap();
    let mut at = 0;
    for (i, run) in json.iter().enumerate() {
        let r = &recs[at];
        assert_eq!(r["type"], "run");
        assert_eq!(r["run"], i);
        assert_eq!(r["source"], run["source"]);
        assert_eq!(r["format"], run["format"]);
        at += 1;
        let mut tests = Vec::new();
        let mut warnings = Vec::new();
        while recs[at]["type"] != "end" {
            assert_eq!(recs[at]["run"], i, "{}", recs[at]);
            match recs[at]["type"].as_str().unwrap() {
                "test" => tests.push(recs[at]["test"].clone()),
                "warning" => warnings.push(recs[at]["warning"].clone()),
                other => panic!("unexpected record {other}"),
            }
            at += 1;
        }
        assert_eq!(&Value::Array(tests.clone()), &run["tests"]);
        assert_eq!(recs[at]["tests"], tests.len());
        assert_eq!(recs[at]["problems"], 0);
        assert_eq!(recs[at]["warnings"], warnings.len());
        assert_eq!(
            Value::Array(warnings),
            run.get("warnings").cloned().unwrap_or(Value::Array(vec![]))
        );
        at += 1;
    }
    assert_eq!(at, recs.len());
    // The repeated id is named, after a second read of its file.
    assert!(
        recs[at - 2]["warning"]
            .as_str()
            .unwrap()
            .starts_with("duplicate test id `t` occurs 2 times"),
        "{}",
        recs[at - 2]
    );
}

#[test]
fn a_file_that_breaks_half_way_is_an_error_record_in_ndjson_and_absent_from_json() {
    let tmp = tempfile::tempdir().unwrap();
    let good = repo_path("adapters/junit/tests/fixtures/valid/bare-testsuite.xml");
    let bad = tmp.path().join("bad.xml");
    fs::write(&bad, BREAKS_HALF_WAY).unwrap();
    let (g, b) = (good.to_str().unwrap(), bad.to_str().unwrap());
    let o = run_in(tmp.path(), &["parse", "--format", "ndjson", b, g]);
    assert_eq!(code(&o), 2);
    let recs = lines(&stdout(&o));
    let types: Vec<&str> = recs.iter().map(|r| r["type"].as_str().unwrap()).collect();
    // The tests read before the break (how many the adapter had finished), then the error in
    // place of `end`; then the next file whole.
    let error = types.iter().position(|t| *t == "error").unwrap();
    assert!(error >= 2, "{types:?}");
    assert_eq!(types[0], "run");
    assert!(types[1..error].iter().all(|t| *t == "test"), "{types:?}");
    assert_eq!(types[error + 1..], ["run", "test", "test", "test", "end"]);
    assert_eq!(recs[0]["source"], b);
    let message = recs[error]["error"].as_str().unwrap();
    assert!(message.contains("bad.xml:"), "{message}");
    assert_eq!(recs[error]["run"], 0);
    assert_eq!(recs[error + 1]["run"], 1);
    // The JSON layout prints the runs that were read whole, and no trace of the other.
    let o = run_in(tmp.path(), &["parse", b, g]);
    assert_eq!(code(&o), 2);
    let runs: Vec<Value> = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["source"], g);
    assert!(stderr(&o).contains("bad.xml:"), "{}", stderr(&o));
    // Only the broken file: nothing on standard output, not `[]` (read, no tests).
    let o = run_in(tmp.path(), &["parse", b]);
    assert_eq!(code(&o), 2);
    assert_eq!(stdout(&o), "");
    assert!(stderr(&o).contains("bad.xml:"), "{}", stderr(&o));
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    n.sort();
    n
}

#[test]
fn with_o_a_file_that_breaks_half_way_means_no_output_file_in_either_layout() {
    let tmp = tempfile::tempdir().unwrap();
    let good = repo_path("adapters/junit/tests/fixtures/valid/bare-testsuite.xml");
    let bad = tmp.path().join("bad.xml");
    fs::write(&bad, BREAKS_HALF_WAY).unwrap();
    let (g, b) = (good.to_str().unwrap(), bad.to_str().unwrap());
    let kept = tmp.path().join("kept.json");
    fs::write(&kept, "old").unwrap();
    for format in ["json", "ndjson"] {
        for order in [[g, b], [b, g]] {
            let new = tmp.path().join("new.out");
            for out in [&new, &kept] {
                let o = run_in(
                    tmp.path(),
                    &[
                        "parse",
                        "--format",
                        format,
                        order[0],
                        order[1],
                        "-o",
                        out.to_str().unwrap(),
                    ],
                );
                assert_eq!(code(&o), 2);
                assert!(stdout(&o).is_empty());
                assert!(stderr(&o).contains("not written"), "{}", stderr(&o));
            }
            assert!(!new.exists(), "{format}: an output file was made");
            assert_eq!(fs::read_to_string(&kept).unwrap(), "old");
            // No temporary file is left beside the target.
            assert_eq!(names(tmp.path()), ["bad.xml", "kept.json"]);
        }
    }
    // A FIFO given as the output gets nothing either.
    let fifo = tmp.path().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    let o = run_in(tmp.path(), &["parse", g, b, "-o", fifo.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert_eq!(reader.join().unwrap(), b"");
}

#[test]
fn a_spool_that_cannot_be_written_is_an_error_naming_the_file_and_the_directory() {
    let tmp = tempfile::tempdir().unwrap();
    // More than the 4 MiB of tests a run holds in memory before it needs a temporary file.
    let mut xml = String::from("<testsuite name=\"s\">\n");
    for i in 0..40_000 {
        xml.push_str(&format!(
            "<testcase classname=\"pkg.module.Class\" name=\"test_{i}\" time=\"0.5\"/>\n"
        ));
    }
    xml.push_str("</testsuite>\n");
    let big = tmp.path().join("big.xml");
    fs::write(&big, xml).unwrap();
    let out = tmp.path().join("out.json");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_gapscore"))
        .args(["parse", big.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .env("TMPDIR", tmp.path().join("missing"))
        .output()
        .unwrap();
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.contains("cannot hold the tests of `")
            && err.contains("big.xml")
            && err.contains("missing: no such file or directory"),
        "{err}"
    );
    assert!(!out.exists());
}
