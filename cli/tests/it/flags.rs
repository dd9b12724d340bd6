//! Flags mean the same in every command: `--format` the output format, `--input-format` the
//! input format, `-o/--output` the output file (or directory, for `batch`); the old spellings
//! still work, with a warning naming the flag to use. `-j` is offered only where it does
//! something, with help saying what it parallelises.

use std::fs;

use crate::common::{code, repo_path, run_in, stderr, stdout};

const SIMPLE: &str = "conformance-tests/upstream/examples/02-minor-gaps/sealed-results.json";

#[test]
fn parse_new_and_old_spellings_write_the_same_file() {
    let tmp = tempfile::tempdir().unwrap();
    let input = repo_path(SIMPLE);
    let input = input.to_str().unwrap();
    let new = run_in(
        tmp.path(),
        &[
            "parse",
            input,
            "--input-format",
            "simple",
            "--format",
            "ctrf",
            "-o",
            "new.json",
        ],
    );
    assert_eq!(code(&new), 0, "{}", stderr(&new));
    assert_eq!(stderr(&new), "", "the new spellings warn about nothing");
    let old = run_in(
        tmp.path(),
        &[
            "parse", input, "--format", "simple", "--output", "ctrf", "--out", "old.json",
        ],
    );
    assert_eq!(code(&old), 0, "{}", stderr(&old));
    let warned = stderr(&old);
    for flag in ["--input-format simple", "--format ctrf", "-o/--output FILE"] {
        assert!(
            warned.contains(flag),
            "no warning naming `{flag}`: {warned}"
        );
    }
    let new = fs::read_to_string(tmp.path().join("new.json")).unwrap();
    let old = fs::read_to_string(tmp.path().join("old.json")).unwrap();
    assert_eq!(new, old);
    assert!(new.contains("\"reportFormat\": \"CTRF\""), "{new}");
    // `--long` output with the new `--output FILE`; a wrong output format is a usage error.
    let o = run_in(tmp.path(), &["parse", input, "--output", "runs.json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        fs::read_to_string(tmp.path().join("runs.json"))
            .unwrap()
            .starts_with('[')
    );
    let o = run_in(
        tmp.path(),
        &[
            "parse",
            input,
            "--input-format",
            "simple",
            "--format",
            "xml",
        ],
    );
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("`json`, `ndjson` or `ctrf`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_no_adapter_message_names_input_format() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("x.json"), "[1, 2]").unwrap();
    for args in [
        &["parse", "x.json"][..],
        &["score", "--sealed", "x.json"][..],
    ] {
        let o = run_in(tmp.path(), args);
        assert_eq!(code(&o), 2);
        assert!(
            stderr(&o).contains("no adapter recognises this file")
                && stderr(&o).contains("name one with --input-format ID"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn check_writes_its_output_file_atomically_with_o() {
    let tmp = tempfile::tempdir().unwrap();
    let report = repo_path("conformance-tests/fixtures/evidence/l3-seal-record-only/report.json");
    let report = report.to_str().unwrap();
    let to_stdout = run_in(tmp.path(), &["check", report, "--format", "json"]);
    let to_file = run_in(
        tmp.path(),
        &["check", report, "--format", "json", "-o", "check.json"],
    );
    assert_eq!(code(&to_file), code(&to_stdout));
    assert_eq!(stdout(&to_file), "");
    let written = fs::read_to_string(tmp.path().join("check.json")).unwrap();
    assert_eq!(written, stdout(&to_stdout));
    let long = run_in(tmp.path(), &["check", report, "--output", "check.txt"]);
    assert_eq!(code(&long), code(&to_stdout));
    assert!(
        fs::read_to_string(tmp.path().join("check.txt"))
            .unwrap()
            .contains("checked for level 1")
    );
}

#[test]
fn batch_output_directory_old_and_new_spelling() {
    let tmp = tempfile::tempdir().unwrap();
    let manifest = repo_path("conformance-tests/batch-examples.toml");
    let manifest = manifest.to_str().unwrap();
    let new = run_in(tmp.path(), &["batch", manifest, "-o", "new", "-q"]);
    assert_eq!(code(&new), 0, "{}", stderr(&new));
    assert_eq!(stderr(&new), "");
    let old = run_in(tmp.path(), &["batch", manifest, "--out", "old", "-q"]);
    assert_eq!(code(&old), 0, "{}", stderr(&old));
    assert!(
        stderr(&old).contains("use `-o/--output DIR`"),
        "{}",
        stderr(&old)
    );
    for dir in ["new", "old"] {
        assert!(tmp.path().join(dir).join("summary.csv").is_file(), "{dir}");
    }
    let merged = run_in(tmp.path(), &["batch", "merge", "new", "--out", "m", "-q"]);
    assert_eq!(code(&merged), 0, "{}", stderr(&merged));
    assert!(stderr(&merged).contains("-o/--output DIR"));
    // Both spellings at once: a usage error, not a guess.
    let both = run_in(tmp.path(), &["batch", manifest, "-o", "a", "--out", "b"]);
    assert_eq!(code(&both), 2);
}

#[test]
fn jobs_is_offered_where_it_does_something_and_says_what() {
    let tmp = tempfile::tempdir().unwrap();
    let help = |args: &[&str]| stdout(&run_in(tmp.path(), args));
    let adapters = help(&["adapters", "--help"]);
    assert!(!adapters.contains("--jobs"), "{adapters}");
    // Still accepted, as before.
    assert_eq!(code(&run_in(tmp.path(), &["adapters", "-j", "2"])), 0);
    for (args, says) in [
        (&["score", "--help"][..], "Threads reading input files"),
        (&["parse", "--help"][..], "Threads reading input files"),
        (
            &["seal", "--help"][..],
            "Threads reading the --expect files",
        ),
        (&["batch", "--help"][..], "Threads scoring repositories"),
    ] {
        let text = help(args);
        assert!(text.contains("-j, --jobs <N>"), "{args:?}: {text}");
        assert!(text.contains(says), "{args:?}: {text}");
    }
}
