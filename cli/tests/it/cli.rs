//! End-to-end tests of `gapscore score` and `gapscore schema`, running the built binary.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gapscore_schema::{SchemaId, validate};
use serde_json::{Value, json};

use crate::common;
use common::{BIN, code, json_of, stderr, stdout};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn examples() -> PathBuf {
    workspace().join("conformance-tests/upstream/examples")
}

fn simple_fixture(kind: &str, name: &str) -> PathBuf {
    workspace()
        .join("adapters/simple/tests/fixtures")
        .join(kind)
        .join(name)
}

fn run(args: &[&str]) -> Output {
    run_in(args, &workspace())
}

fn run_in(args: &[&str], dir: &Path) -> Output {
    common::run_in(dir, args)
}

/// Writes a simple-format file with `failed` failures out of `total` tests.
fn counts_file(dir: &Path, failed: usize, total: usize) -> PathBuf {
    let tests: Vec<Value> = (0..total)
        .map(|i| {
            json!({"name": format!("t{i}"), "status": if i < failed { "failed" } else { "passed" }})
        })
        .collect();
    let p = dir.join(format!("{failed}-of-{total}.json"));
    fs::write(&p, json!({ "tests": tests }).to_string()).unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn summary_matches_the_upstream_example_readmes() {
    for ex in ["01-perfect-score", "02-minor-gaps", "03-critical-gaps"] {
        let dir = examples().join(ex);
        let readme = fs::read_to_string(dir.join("README.md")).unwrap();
        let block = readme
            .split("**Expected output:**\n```\n")
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .unwrap();
        let o = run(&[
            "score",
            "--sealed",
            s(&dir.join("sealed-results.json")),
            "--open",
            s(&dir.join("open-results.json")),
            "--format",
            "summary",
        ]);
        assert_eq!(code(&o), 0, "{ex}");
        assert_eq!(stdout(&o), block, "{ex}");
    }
}

#[test]
fn levels_are_decided_on_exact_counts() {
    let tmp = tempfile::tempdir().unwrap();
    for (failed, total, score, level) in [
        (1, 3000, 0.0, "minor"),
        (3, 20, 15.0, "minor"),
        (4, 25, 16.0, "moderate"),
        (17, 113, 15.0, "moderate"),
        (1, 16, 6.2, "minor"),
        (1, 2, 50.0, "significant"),
        (9, 15, 60.0, "critical"),
        (0, 7, 0.0, "perfect"),
    ] {
        let f = counts_file(tmp.path(), failed, total);
        let o = run(&["score", "--sealed", s(&f)]);
        assert_eq!(code(&o), 0);
        let r = json_of(&o);
        assert_eq!(
            r["report"]["shadow_score"],
            json!(score),
            "{failed}/{total}"
        );
        assert_eq!(r["report"]["level"], level, "{failed}/{total}");
        assert_eq!(r["sealed_tests"]["failed"], failed);
        assert_eq!(r["failures"].as_array().unwrap().len(), failed);
    }
    // The unrounded score keeps a failure visible when it displays as 0.0.
    let f = counts_file(tmp.path(), 1, 3000);
    let r = json_of(&run(&["score", "--sealed", s(&f)]));
    assert!(r["gapscore"]["score_exact"].as_f64().unwrap() > 0.03);
}

#[test]
fn threshold_exit_codes() {
    let tmp = tempfile::tempdir().unwrap();
    let minor = examples().join("02-minor-gaps/sealed-results.json");
    let perfect = examples().join("01-perfect-score/sealed-results.json");
    let tiny = counts_file(tmp.path(), 1, 3000);
    for (file, threshold, want) in [
        (&minor, "15", 0),
        (&minor, "10", 1),
        (&minor, "11.1", 0),
        (&minor, "11.0", 1),
        (&perfect, "0", 0),
        (&tiny, "0", 1),
        (&tiny, "0.05", 0),
        (&minor, "100", 0),
        (&minor, "1e2", 0),
    ] {
        let o = run(&["score", "--sealed", s(file), "--threshold", threshold]);
        assert_eq!(code(&o), want, "{} vs {threshold}", file.display());
        // The report is written whatever the verdict.
        assert!(json_of(&o)["report"]["level"].is_string());
    }
    for bad in ["nan", "inf", "-inf", "-5", "abc", ""] {
        let o = run(&[
            "score",
            "--sealed",
            s(&minor),
            &format!("--threshold={bad}"),
        ]);
        assert_eq!(code(&o), 2, "threshold {bad:?}");
        assert!(stdout(&o).is_empty());
        assert!(stderr(&o).contains("threshold"), "{}", stderr(&o));
    }
}

#[test]
fn skipped_errored_and_xfailed_sealed_tests_are_not_passes() {
    let f = simple_fixture("valid", "all-statuses.json");
    let r = json_of(&run(&["score", "--sealed", s(&f)]));
    assert_eq!(
        r["sealed_tests"],
        json!({"total": 7, "passed": 2, "failed": 5})
    );
    let statuses: Vec<&str> = r["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["failed", "errored", "skipped", "xfailed", "todo"]
    );
    assert_eq!(
        r["failures"][2]["message"], "no network",
        "a skip keeps its reason"
    );
    assert_eq!(
        r["failures"][4]["message"],
        "sealed test not verified: todo"
    );

    // The simple format records no place for a skip: a lenient policy is refused for it
    // (only the sealed tests may decide not to run) unless the operator trusts such skips.
    for lenient in [
        ["--skipped", "pass"],
        ["--skipped", "exclude"],
        ["--xfail", "pass"],
    ] {
        let mut args = vec!["score", "--sealed", s(&f)];
        args.extend(lenient);
        let r = json_of(&run(&args));
        assert_eq!(
            r["sealed_tests"],
            json!({"total": 7, "passed": 2, "failed": 5}),
            "{lenient:?}"
        );
        assert!(
            r["gapscore"]["warning_codes"]
                .as_array()
                .unwrap()
                .contains(&json!("W115")),
            "{lenient:?}: {r}"
        );
    }
    let r = json_of(&run(&[
        "score",
        "--sealed",
        s(&f),
        "--skipped",
        "pass",
        "--trust-unlocated-skips",
    ]));
    assert_eq!(
        r["sealed_tests"],
        json!({"total": 7, "passed": 4, "failed": 3})
    );
    let r = json_of(&run(&[
        "score",
        "--sealed",
        s(&f),
        "--skipped",
        "exclude",
        "--trust-unlocated-skips",
    ]));
    assert_eq!(
        r["sealed_tests"],
        json!({"total": 5, "passed": 2, "failed": 3})
    );
    assert_eq!(r["gapscore"]["sealed_excluded"], 2);
    let r = json_of(&run(&[
        "score",
        "--sealed",
        s(&f),
        "--xfail",
        "pass",
        "--trust-unlocated-skips",
    ]));
    assert_eq!(
        r["sealed_tests"],
        json!({"total": 7, "passed": 3, "failed": 4})
    );
    assert_eq!(r["gapscore"]["status_policy"]["xfail"], "pass");
}

#[test]
fn a_suite_that_did_not_run_is_never_perfect() {
    let f = simple_fixture("valid", "problems.json");
    // The fixture declares a truncated input too: a counted problem, and the report is
    // advisory, so --threshold fails whatever the score (issue 18).
    let o = run(&["score", "--sealed", s(&f), "--threshold", "100"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("--allow-advisory"), "{}", stderr(&o));
    assert_eq!(
        code(&run(&[
            "score",
            "--sealed",
            s(&f),
            "--threshold",
            "100",
            "--allow-advisory"
        ])),
        0
    );
    let o = run(&["score", "--sealed", s(&f), "--threshold", "0"]);
    assert_eq!(code(&o), 1);
    let r = json_of(&o);
    assert_eq!(
        r["sealed_tests"],
        json!({"total": 3, "passed": 1, "failed": 2})
    );
    assert_eq!(r["report"]["level"], "critical");
    assert_eq!(r["report"]["advisory"], true);
    let reason = r["report"]["advisory_reason"].as_str().unwrap();
    assert!(
        reason.contains("build-failure in example.com/buildfail/broken"),
        "{reason}"
    );
    assert_eq!(
        r["failures"][0]["test_name"],
        "[build-failure] example.com/buildfail/broken"
    );
    assert_eq!(
        r["failures"][0]["message"],
        "suite failed to run: build failure in example.com/buildfail/broken"
    );
    assert_eq!(r["failures"][0]["problem"], "build-failure");
    assert!(
        r["failures"][1]["test_name"]
            .as_str()
            .unwrap()
            .starts_with("[truncated] ")
    );
    assert!(stderr(&o).contains("advisory report"));
}

#[test]
fn zero_sealed_tests_warn_and_strict_refuses() {
    let f = simple_fixture("valid", "empty-tests.json");
    let o = run(&["score", "--sealed", s(&f)]);
    assert_eq!(code(&o), 0);
    let r = json_of(&o);
    assert_eq!(r["report"]["shadow_score"], json!(0.0));
    assert_eq!(r["report"]["level"], "perfect");
    assert_eq!(r["report"]["advisory"], true);
    assert!(stderr(&o).contains("no sealed tests were counted"));

    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("report.json");
    let o = run(&["score", "--sealed", s(&f), "--strict", "-o", s(&out)]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--strict"));
    assert!(!out.exists());
}

#[test]
fn dialects() {
    let f = examples().join("02-minor-gaps/sealed-results.json");
    let shadow = json_of(&run(&["score", "--sealed", s(&f)]));
    assert_eq!(shadow["shadow_score_spec_version"], "1.0.0");
    assert!(shadow.get("gap_score_spec_version").is_none());
    assert_eq!(shadow["report"]["shadow_score"], json!(11.1));
    assert!(shadow["report"].get("gap_score").is_none());

    let gap = json_of(&run(&["score", "--sealed", s(&f), "--dialect", "gap"]));
    assert_eq!(gap["gap_score_spec_version"], "1.0.0");
    assert!(gap.get("shadow_score_spec_version").is_none());
    assert_eq!(gap["report"]["gap_score"], json!(11.1));
    assert!(gap["report"].get("shadow_score").is_none());

    let both = json_of(&run(&["score", "--sealed", s(&f), "--dialect", "both"]));
    assert_eq!(
        both["gap_score_spec_version"],
        both["shadow_score_spec_version"]
    );
    assert_eq!(both["report"]["gap_score"], both["report"]["shadow_score"]);

    let summary = run(&[
        "score",
        "--sealed",
        s(&f),
        "--dialect",
        "gap",
        "--format",
        "summary",
    ]);
    assert!(stdout(&summary).starts_with("Gap Score: 11.1% 🟢 (minor)\n"));
}

#[test]
fn every_emitted_report_validates_against_our_schema_and_its_dialects() {
    let mut inputs: Vec<PathBuf> =
        fs::read_dir(workspace().join("adapters/simple/tests/fixtures/valid"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
    inputs.sort();
    let open = examples().join("03-critical-gaps/open-results.json");
    let hash = "ab".repeat(32);
    for input in &inputs {
        for (dialect, schemas) in [
            ("shadow", vec![SchemaId::ShadowV1, SchemaId::ShadowV2]),
            ("gap", vec![SchemaId::GapPreRename]),
            (
                "both",
                vec![
                    SchemaId::ShadowV1,
                    SchemaId::ShadowV2,
                    SchemaId::GapPreRename,
                ],
            ),
        ] {
            for extra in [
                &[][..],
                &["--open", s(&open)][..],
                &["--skipped", "exclude"][..],
            ] {
                let mut args = vec!["score", "--sealed", s(input), "--dialect", dialect];
                args.extend_from_slice(extra);
                args.extend_from_slice(&[
                    "--spec",
                    "PRD.md",
                    "--sealed-hash",
                    &hash,
                    "--allow-truncated",
                ]);
                let o = run(&args);
                assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
                let r = json_of(&o);
                for schema in schemas.iter().chain([&SchemaId::Report]) {
                    let errors = validate(*schema, &r).unwrap();
                    assert!(
                        errors.is_empty(),
                        "{args:?} against {}: {errors:?}",
                        schema.name()
                    );
                }
            }
        }
    }
}

#[test]
fn provenance_fields() {
    let f = examples().join("02-minor-gaps/sealed-results.json");
    let hex = "AB".repeat(32);
    let r = json_of(&run(&[
        "score",
        "--sealed",
        s(&f),
        "--spec",
        "PRD.md",
        "--sealed-hash",
        &format!("{hex}  -"),
        "--open",
        s(&examples().join("02-minor-gaps/open-results.json")),
    ]));
    assert_eq!(r["report"]["id"], "run-20231114-221320");
    assert_eq!(r["report"]["timestamp"], "2023-11-14T22:13:20Z");
    assert_eq!(r["report"]["specification"], "PRD.md");
    assert_eq!(
        r["report"]["sealed_hash"],
        format!("sha256:{}", hex.to_lowercase())
    );
    assert_eq!(
        r["open_tests"],
        json!({"total": 12, "passed": 12, "failed": 0})
    );
    assert_eq!(
        r["coverage_comparison"]["security"],
        json!({"sealed": 1, "open": 0, "delta": 1})
    );
    assert_eq!(r["gapscore"]["coverage_delta"], 1);

    let o = run(&[
        "score",
        "--sealed",
        s(&f),
        "--sealed-hash",
        "sha256:a1b2c3d4...",
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("invalid sealed hash"));
}

#[test]
fn unknown_categories_are_counted_not_dropped() {
    let f = simple_fixture("valid", "categories.json");
    let open = examples().join("01-perfect-score/open-results.json");
    let o = run(&["score", "--sealed", s(&f), "--open", s(&open)]);
    let r = json_of(&o);
    assert_eq!(
        r["coverage_comparison"]["unknown"],
        json!({"sealed": 4, "open": 0, "delta": 4})
    );
    assert_eq!(r["failures"][0]["category"], "unknown");
    assert!(stderr(&o).contains("unknown category `performance`"));
}

#[test]
fn duplicate_names_warn_and_every_entry_counts() {
    let f = simple_fixture("valid", "duplicates.json");
    let o = run(&["score", "--sealed", s(&f)]);
    let r = json_of(&o);
    assert_eq!(
        r["sealed_tests"],
        json!({"total": 3, "passed": 2, "failed": 1})
    );
    assert_eq!(r["gapscore"]["duplicates"], json!(["test_login"]));
    assert!(stderr(&o).contains("sealed test id `test_login` occurs 3 times"));
}

#[test]
fn duplicates_across_files_are_named() {
    let f = simple_fixture("valid", "duplicates.json");
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    fs::copy(&f, &a).unwrap();
    fs::copy(&f, &b).unwrap();
    let o = run(&["score", "--sealed", s(&a), s(&b)]);
    let r = json_of(&o);
    assert_eq!(r["sealed_tests"]["total"], json!(6));
    let dups = r["gapscore"]["duplicates"].as_array().unwrap();
    assert!(dups.contains(&json!("test_login")), "{dups:?}");
    assert!(stderr(&o).contains("sealed test id `test_login` occurs 6 times"));
}

#[test]
fn several_files_make_one_suite() {
    let a = examples().join("02-minor-gaps/sealed-results.json");
    let b = examples().join("03-critical-gaps/sealed-results.json");
    let r = json_of(&run(&["score", "--sealed", s(&a), s(&b)]));
    assert_eq!(
        r["sealed_tests"],
        json!({"total": 33, "passed": 22, "failed": 11})
    );
    assert_eq!(r["gapscore"]["inputs"].as_array().unwrap().len(), 2);
    // Repeating the flag works too, as do the `--x=v` form and unique prefixes (argparse-style).
    let o = run(&[
        "score",
        &format!("--sealed={}", s(&a)),
        "--sealed",
        s(&b),
        "--thr",
        "30",
    ]);
    assert_eq!(code(&o), 1);
    assert_eq!(json_of(&o)["sealed_tests"], r["sealed_tests"]);
}

#[test]
fn every_invalid_fixture_is_an_input_error_naming_file_and_place() {
    let dir = workspace().join("adapters/simple/tests/fixtures/invalid");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in &files {
        // Forced format: the reader's own errors, not detection's.
        let o = run(&["score", "--sealed", s(f), "--input-format", "simple"]);
        assert_eq!(code(&o), 2, "{}", f.display());
        assert!(
            stdout(&o).is_empty(),
            "{}: no report on bad input",
            f.display()
        );
        let err = stderr(&o);
        let first = err.lines().next().unwrap();
        assert!(first.starts_with(&format!("error: {}", s(f))), "{first}");
        let empty = fs::metadata(f).unwrap().len() < 8;
        if !empty {
            // `file:line:col: message`
            let rest = &first[format!("error: {}", s(f)).len()..];
            let mut parts = rest.splitn(4, ':');
            assert_eq!(parts.next(), Some(""), "{first}");
            assert!(parts.next().unwrap().parse::<u32>().is_ok(), "{first}");
            assert!(parts.next().unwrap().parse::<u32>().is_ok(), "{first}");
        }
    }
}

#[test]
fn undetectable_and_empty_inputs_are_errors() {
    let garbage = simple_fixture("invalid", "binary-garbage.json");
    let o = run(&["score", "--sealed", s(&garbage)]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains(&format!(
            "{}: binary data (a NUL byte at byte 0), not test results",
            s(&garbage)
        )),
        "{}",
        stderr(&o)
    );
    let empty = tempfile::tempdir().unwrap();
    let o = run(&["score", "--sealed", s(empty.path())]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("directory contains no files"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn all_bad_files_are_reported_in_one_run_and_no_output_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("report.json");
    fs::write(&out, "previous report\n").unwrap();
    let empty_dir = tmp.path().join("empty");
    fs::create_dir(&empty_dir).unwrap();
    let good = examples().join("02-minor-gaps/sealed-results.json");
    let unknown = simple_fixture("invalid", "unknown-status.json");
    let null = simple_fixture("invalid", "tests-null.json");
    let missing = tmp.path().join("missing.json");
    let o = run(&[
        "score",
        "--sealed",
        s(&good),
        s(&unknown),
        s(&missing),
        s(&empty_dir),
        "--open",
        s(&null),
        "-o",
        s(&out),
    ]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.contains(&format!("{}:3:35: unknown status `broken`", s(&unknown))),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{}: cannot read: no such file or directory",
            s(&missing)
        )),
        "{err}"
    );
    assert!(err.contains("directory contains no files"), "{err}");
    assert!(
        err.contains(&format!("{}:1:14: invalid type: null", s(&null))),
        "{err}"
    );
    assert!(err.contains("(open results)"), "{err}");
    assert!(
        err.contains("4 input files or plugins could not be read; no report written"),
        "{err}"
    );
    // No report was made, so none stands at the path: the previous one is removed rather than
    // left to be read as this run's (attack i34 A, F3).
    assert!(!out.exists(), "a stale JSON report stands");
    assert_eq!(
        fs::read_dir(tmp.path()).unwrap().count(),
        1,
        "no temp files left behind (empty/ only)"
    );
}

#[test]
fn output_file_is_written_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("report.md");
    let f = examples().join("03-critical-gaps/sealed-results.json");
    let o = run(&[
        "score",
        "--sealed",
        s(&f),
        "--format",
        "markdown",
        "-o",
        s(&out),
        "--threshold",
        "50",
    ]);
    assert_eq!(code(&o), 1, "threshold verdict still applies with -o");
    assert!(stdout(&o).is_empty());
    let md = fs::read_to_string(&out).unwrap();
    assert!(md.starts_with("# Shadow Report\n"));
    assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);

    let o = run(&["score", "--sealed", s(&f), "-o", s(tmp.path())]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("is a directory"));
    let o = run(&[
        "score",
        "--sealed",
        s(&f),
        "-o",
        s(&tmp.path().join("no/such/dir/r.json")),
    ]);
    assert_eq!(code(&o), 2);
}

#[test]
fn markdown_report() {
    let dir = examples().join("03-critical-gaps");
    let problems = simple_fixture("valid", "problems.json");
    let o = run_in(
        &[
            "score",
            "--sealed",
            "sealed-results.json",
            s(&problems),
            "--open",
            "open-results.json",
            "--format",
            "markdown",
            "--spec",
            "PRD.md",
            "--allow-truncated",
        ],
        &dir,
    );
    assert_eq!(code(&o), 0);
    let md = stdout(&o).replace(s(&problems), "[problems.json]");
    insta::assert_snapshot!(md);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["score"][..],
        &["score", "--sealed"][..],
        &["score", "--sealed", "x.json", "--format", "xml"][..],
        &["score", "--sealed", "x.json", "--dialect", "klingon"][..],
        &["score", "--sealed", "x.json", "--skipped", "maybe"][..],
        &["frobnicate"][..],
    ] {
        let o = run(args);
        assert_eq!(code(&o), 2, "{args:?}");
    }
    assert_eq!(code(&run(&["--help"])), 0);
    assert_eq!(code(&run(&["--version"])), 0);
}

#[test]
fn schema_command_prints_the_shipped_schemas() {
    for (arg, id) in [
        ("report", SchemaId::Report),
        ("results", SchemaId::Results),
        ("seal-record", SchemaId::SealRecord),
        ("shadow-v1", SchemaId::ShadowV1),
        ("shadow-v2", SchemaId::ShadowV2),
        ("gap", SchemaId::GapPreRename),
    ] {
        let o = run(&["schema", arg]);
        assert_eq!(code(&o), 0);
        let committed =
            fs::read_to_string(workspace().join("schema").join(id.file_name())).unwrap();
        assert_eq!(stdout(&o), committed, "{arg}");
    }
    let o = run(&["schema", "check-output"]);
    assert_eq!(code(&o), 0);
    let committed = fs::read_to_string(workspace().join("check/check-output.schema.json")).unwrap();
    assert_eq!(stdout(&o), committed);
}

#[test]
fn schema_and_adapters_write_to_o_file() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("report.schema.json");
    let o = run(&["schema", "report", "-o", s(&out)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let committed = fs::read_to_string(
        workspace()
            .join("schema")
            .join(SchemaId::Report.file_name()),
    )
    .unwrap();
    assert_eq!(fs::read_to_string(&out).unwrap(), committed);
    let list = tmp.path().join("adapters.txt");
    let o = run(&["adapters", "--output", s(&list)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert_eq!(
        fs::read_to_string(&list).unwrap(),
        stdout(&run(&["adapters"]))
    );
    // A directory is not replaced.
    let o = run(&["schema", "report", "-o", s(tmp.path())]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(tmp.path().is_dir());
}

#[test]
fn closed_stdout_is_not_an_error() {
    use std::process::Stdio;
    let f = examples().join("03-critical-gaps/sealed-results.json");
    let mut child = Command::new(BIN)
        .args(["score", "--sealed", s(&f), "--format", "markdown"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).is_empty());
}

#[test]
fn a_directory_with_no_readable_results_is_an_error_not_an_empty_suite() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.md"), "# nothing to see").unwrap();
    fs::write(
        dir.path().join("package.json"),
        r#"{"name": "x", "files": ["tests"]}"#,
    )
    .unwrap();
    let o = run(&["score", "--sealed", s(dir.path())]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    // Each file nothing can read is named, as it would be when named or globbed (issue 18).
    assert!(
        stderr(&o).contains("package.json: no adapter recognises it (found in a directory"),
        "{}",
        stderr(&o)
    );
    // Documentation beside the results is named too, left out with a warning (issue 35).
    assert!(
        stderr(&o).contains("notes.md: not read: documentation"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_directory_scan_reads_results_once_and_never_drops_a_file_silently() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let results = d.join("results");
    fs::create_dir(&results).unwrap();
    // The structured results, pytest's console log of the same session, and ground truth.
    fs::write(
        results.join("report.json"),
        r#"{"tests": [{"name": "a", "status": "passed"}, {"name": "b", "status": "failed"}]}"#,
    )
    .unwrap();
    fs::write(
        results.join("console.txt"),
        "============================= test session starts ==============================\nplatform linux -- Python 3.11.7, pytest-8.3.3, pluggy-1.5.0\ncollected 2 items\n\ntest_x.py .F                                                              [100%]\n\n=========================== short test summary info ============================\nFAILED test_x.py::b - assert 1 == 2\n========================= 1 failed, 1 passed in 0.01s ==========================\n",
    )
    .unwrap();
    fs::write(
        results.join("truth.json"),
        r#"{"case": "x", "complete": true, "tests": [{"name": "a", "status": "passed"}, {"name": "b", "status": "passed"}]}"#,
    )
    .unwrap();
    let o = run(&["score", "--sealed", s(&results), "--threshold", "60"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("console text beside structured results is not read"),
        "{err}"
    );
    assert!(err.contains("truth.json: not read"), "{err}");
    let r = json_of(&o);
    assert_eq!(
        r["sealed_tests"],
        json!({"total": 2, "passed": 1, "failed": 1})
    );
    // Named, the console text is read; alone in a directory, it is read too.
    let alone = d.join("console-only");
    fs::create_dir(&alone).unwrap();
    fs::copy(results.join("console.txt"), alone.join("console.txt")).unwrap();
    let r = json_of(&run(&["score", "--sealed", s(&alone)]));
    assert_eq!(r["gapscore"]["inputs"][0]["format"], "pytest-text", "{r}");
    // Two copies of the same run in one directory: both counted, and said so.
    fs::copy(
        results.join("report.json"),
        results.join("report-copy.json"),
    )
    .unwrap();
    let o = run(&["score", "--sealed", s(&results)]);
    assert!(
        stderr(&o).contains("hold 2 of the same test ids: two copies of one run?"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn summary_lines_without_a_message_have_no_dangling_colon() {
    let f = simple_fixture("valid", "non-string-values.json");
    let o = run(&["score", "--sealed", s(&f), "--format", "summary"]);
    assert!(stdout(&o).contains("  ❌ numbers\n"), "{}", stdout(&o));
}

#[cfg(unix)]
#[test]
fn output_files_get_ordinary_permissions() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let f = examples().join("02-minor-gaps/sealed-results.json");
    let fresh = tmp.path().join("new.json");
    assert_eq!(
        code(&run(&["score", "--sealed", s(&f), "-o", s(&fresh)])),
        0
    );
    assert_eq!(
        fs::metadata(&fresh).unwrap().permissions().mode() & 0o777,
        0o644
    );
    let kept = tmp.path().join("kept.json");
    fs::write(&kept, "old").unwrap();
    fs::set_permissions(&kept, fs::Permissions::from_mode(0o640)).unwrap();
    assert_eq!(code(&run(&["score", "--sealed", s(&f), "-o", s(&kept)])), 0);
    assert_eq!(
        fs::metadata(&kept).unwrap().permissions().mode() & 0o777,
        0o640
    );
    let o = run(&[
        "score",
        "--sealed",
        s(&f),
        "-o",
        s(&tmp.path().join("no/such/r.json")),
    ]);
    assert!(
        stderr(&o).contains("cannot write") && stderr(&o).contains("/no/such` does not exist"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("os error"), "{}", stderr(&o));
}
