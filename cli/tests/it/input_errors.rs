//! Errors say what is wrong (issue 20): an empty, whitespace-only or binary file and the known
//! formats gapscore does not read are named; `go test -json` re-encoded with spaces after the
//! colons is read; `--threshold 50%` is accepted and `--threshold 150` refused; `-o` into a
//! missing directory says the directory is missing.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{code, json_of, run_in, stderr};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/bad-input")
}

fn run(args: &[&str]) -> std::process::Output {
    run_in(&corpus(), args)
}

#[test]
fn unread_formats_and_empty_files_are_named() {
    for (file, says) in [
        (
            "unread/results.trx",
            "a Visual Studio TRX file, which gapscore does not read; convert it to JUnit XML with `trx2junit FILE`",
        ),
        (
            "unread/nunit3.xml",
            "an NUnit 3 XML file (`<test-run>`), which gapscore does not read; rerun with `dotnet test --logger junit`",
        ),
        (
            "unread/nunit2.xml",
            "an NUnit 2 XML file (`<test-results>`)",
        ),
        (
            "unread/xunit2.xml",
            "an xUnit.net v2 XML file (`<assemblies>`)",
        ),
        (
            "unread/results.csv",
            "a CSV file, which gapscore does not read",
        ),
        (
            "unread/whitespace.json",
            "the file holds only whitespace (7 bytes)",
        ),
        ("simple/detect-empty.json", "the file is empty"),
        (
            "simple/detect-binary-garbage.bin",
            "binary data (a NUL byte at byte 211)",
        ),
    ] {
        let o = run(&["score", "--sealed", file]);
        assert_eq!(code(&o), 2, "{file}");
        let want = format!("error: {file}: {says}");
        assert!(stderr(&o).contains(&want), "{file}: {}", stderr(&o));
        assert!(
            !stderr(&o).contains("no adapter recognises"),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn a_named_file_found_in_a_directory_keeps_the_directory_note() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(
        corpus().join("unread/results.trx"),
        dir.path().join("results.trx"),
    )
    .unwrap();
    let o = run_in(dir.path(), &["score", "--sealed", "."]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("results.trx: a Visual Studio TRX file")
            && stderr(&o).contains("(found in a directory"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn go_test_json_with_spaces_after_colons_is_read() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("go.jsonl"),
        concat!(
            "{\"Action\": \"run\", \"Package\": \"ex/calc\", \"Test\": \"TestAdd\"}\n",
            "{\"Action\": \"pass\", \"Package\": \"ex/calc\", \"Test\": \"TestAdd\", \"Elapsed\": 0.01}\n",
            "{\"Action\": \"run\", \"Package\": \"ex/calc\", \"Test\": \"TestDivide\"}\n",
            "{\"Action\": \"fail\", \"Package\": \"ex/calc\", \"Test\": \"TestDivide\", \"Elapsed\": 0.01}\n",
            "{\"Action\": \"fail\", \"Package\": \"ex/calc\", \"Elapsed\": 0.02}\n",
        ),
    )
    .unwrap();
    let o = run_in(dir.path(), &["score", "--sealed", "go.jsonl"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(r["sealed_tests"]["total"], 2);
    assert_eq!(r["sealed_tests"]["failed"], 1);
    assert_eq!(r["gapscore"]["inputs"][0]["format"], "go-test-json");
}

#[test]
fn threshold_takes_a_percent_sign_and_refuses_more_than_100() {
    let minor = "../../conformance-tests/upstream/examples/02-minor-gaps/sealed-results.json";
    // 11.1 %: above 10 %, within 15 %.
    let o = run(&["score", "--sealed", minor, "--threshold", "10%"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let o = run(&["score", "--sealed", minor, "--threshold=15%"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for bad in ["150", "100.5%"] {
        let o = run(&["score", "--sealed", minor, "--threshold", bad]);
        assert_eq!(code(&o), 2, "{bad}");
        assert!(
            stderr(&o).contains(&format!("threshold `{bad}` is above 100")),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn output_into_a_missing_directory_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let minor = corpus()
        .join("../../conformance-tests/upstream/examples/02-minor-gaps/sealed-results.json");
    let o = run_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            minor.to_str().unwrap(),
            "-o",
            "missing-dir/x.json",
        ],
    );
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains(
            "cannot write `missing-dir/x.json`: the directory `missing-dir` does not exist (create it first: mkdir -p missing-dir)"
        ),
        "{}",
        stderr(&o)
    );
    assert!(!dir.path().join("missing-dir").exists());
}
