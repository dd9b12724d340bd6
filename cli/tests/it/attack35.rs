//! The attack on issue 35's build, fixer A's part: a result listed under another id counted
//! once (an honest pytest JUnit run against a pytest-json listing read as 100% advisory), sealed
//! tests without a result making the report advisory (finding 4), and a listed absolute Jest
//! path never matched by a relative result, while two absolute results ending in one listed
//! relative path both count, the worse standing (finding 5). Data: `cli/tests/data/attack35/`.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{code, copy_dir, json_of, repo_path, run_in, runner_available, stderr, stdout};

/// A temporary directory holding `cli/tests/data/attack35/<topic>`'s files.
fn fixture(topic: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo_path(&format!("cli/tests/data/attack35/{topic}")),
        dir.path(),
    );
    dir
}

fn seal(dir: &Path, sealed_dir: &str, expect: &str, record: &str) {
    let o = run_in(dir, &["seal", sealed_dir, "--expect", expect, "-o", record]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

fn advisory_codes(r: &Value) -> Vec<String> {
    r["gapscore"]["advisory_reasons"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| x["code"].as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn pytest_here() -> bool {
    runner_available("python3", &["-m", "pytest", "--version"])
}

/// Six passing pytest tests, listed from pytest-json and read from JUnit: counted once each.
#[test]
fn double_count_a_renamed_pass_is_counted_once_through_score() {
    let dir = fixture("pytest");
    seal(dir.path(), "tests/sealed", "honest.json", "json.seal");
    let o = run_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            "honest.xml",
            "--seal",
            "json.seal",
            "--sealed-dir",
            "tests/sealed",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(r["sealed_tests"]["total"], 6, "{r}");
    assert_eq!(r["sealed_tests"]["failed"], 0, "{r}");
    // The statuses read (what a runner's console summary is checked against): 6, not 12.
    assert_eq!(r["gapscore"]["sealed_statuses"]["passed"], 6, "{r}");
    assert_eq!(r["report"]["advisory"], Value::Null, "{r}");
}

/// The same through `run`: pytest prints `6 passed`, and the tally agrees (it read 12 before).
#[test]
fn double_count_an_honest_junit_run_against_a_json_listing_scores_zero_through_run() {
    if !pytest_here() {
        return;
    }
    let dir = fixture("pytest");
    fs::copy(
        dir.path().join("calc-honest.py"),
        dir.path().join("calc.py"),
    )
    .unwrap();
    seal(dir.path(), "tests/sealed", "honest.json", "json.seal");
    let o = run_in(
        dir.path(),
        &[
            "run",
            "--seal",
            "json.seal",
            "--sealed-dir",
            "tests/sealed",
            "--results",
            "j.xml",
            "--",
            "python3",
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--junitxml=j.xml",
            "tests/sealed",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(r["sealed_tests"]["failed"], 0, "{r}");
    assert_eq!(r["sealed_tests"]["total"], 6, "{r}");
    assert_eq!(r["report"]["advisory"], Value::Null, "{}", stderr(&o));
}

/// Finding 4 read back: two of six listed tests have no result (skipped at import): advisory
/// (A010), so `--threshold` fails whatever the score.
#[test]
fn f4_listed_tests_without_a_result_make_the_report_advisory_and_fail_a_gate() {
    let dir = fixture("pytest");
    seal(dir.path(), "tests/sealed", "honest.xml", "junit.seal");
    let args = [
        "score",
        "--sealed",
        "skipped.xml",
        "--seal",
        "junit.seal",
        "--sealed-dir",
        "tests/sealed",
    ];
    let o = run_in(dir.path(), &args);
    assert_eq!(
        code(&o),
        0,
        "score stays a reporting command: {}",
        stderr(&o)
    );
    let r = json_of(&o);
    assert_eq!(r["report"]["advisory"], true, "{r}");
    assert!(advisory_codes(&r).contains(&"A010".to_owned()), "{r}");
    let gated = run_in(dir.path(), &[&args[..], &["--threshold", "50"]].concat());
    assert_eq!(code(&gated), 1, "{}", stderr(&gated));
    let allowed = run_in(
        dir.path(),
        &[&args[..], &["--threshold", "50", "--allow-advisory"]].concat(),
    );
    assert_eq!(code(&allowed), 0, "{}", stderr(&allowed));
}

/// Finding 4 through `run`: a sealed module skipped at import exits 1 (E013) by default.
#[test]
fn f4_a_run_whose_listed_tests_did_not_all_run_exits_1() {
    if !pytest_here() {
        return;
    }
    let dir = fixture("pytest");
    fs::copy(dir.path().join("calc-skip.py"), dir.path().join("calc.py")).unwrap();
    seal(dir.path(), "tests/sealed", "honest.xml", "junit.seal");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--seal",
            "junit.seal",
            "--sealed-dir",
            "tests/sealed",
            "--results",
            "j.xml",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&[
            "--",
            "python3",
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--junitxml=j.xml",
            "tests/sealed",
        ]);
        run_in(dir.path(), &args)
    };
    let o = run(&[]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("E013"), "{}", stderr(&o));
    let r = json_of(&o);
    assert!(advisory_codes(&r).contains(&"A010".to_owned()), "{r}");
    assert_eq!(code(&run(&["--allow-advisory"])), 0);
}

/// Finding 5: a root-level `calc.test.js` does not stand in for the listed absolute
/// `…/test/sealed/calc.test.js`, whose tests never ran (its file throws at `require`).
#[test]
fn f5_a_relative_result_never_stands_for_a_listed_absolute_path() {
    let jest = dirs_jest();
    if !runner_available("node", &["--version"]) || !jest.exists() {
        return;
    }
    let dir = fixture("jest");
    seal(dir.path(), "test/sealed", "stub.json", "abs.seal");
    let jest = jest.to_string_lossy().into_owned();
    let o = run_in(
        dir.path(),
        &[
            "run",
            "--seal",
            "abs.seal",
            "--sealed-dir",
            "test/sealed",
            "--results",
            "r.json",
            "--",
            &jest,
            "--ci",
            "--json",
            "--outputFile=r.json",
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(r["sealed_tests"]["passed"], 0, "{r}");
    assert_eq!(r["report"]["advisory"], true, "{r}");
}

fn dirs_jest() -> std::path::PathBuf {
    let home = std::env::var_os("HOME").unwrap_or_default();
    Path::new(&home).join(".cache/gapscore-ci/node_modules/.bin/jest")
}

/// Finding 5's forward direction: the sealed file's `muls` fails, a nested copy
/// `z/test/sealed/calc.test.js` passes it; both end in the listed relative path, both count,
/// and the failure stands (the surplus pass is taken back, the report advisory).
#[test]
fn f5_a_nested_copy_of_a_sealed_file_is_not_the_listed_file() {
    // `nested.json` holds the sealed file's results (adds passed, muls failed) and a copy's at
    // `z/test/sealed/calc.test.js` (both passed), which also ends in the listed path. Read from
    // the directory gapscore runs in (where the project now is), only the sealed file is the
    // listed one: the copy's passes are unlisted and never count, and muls stays failed.
    let dir = fixture("jest");
    let nested = dir.path().join("nested.json");
    let text = fs::read_to_string(&nested).unwrap();
    fs::write(
        &nested,
        text.replace("/tmp/gapscore-attack35-jest", dir.path().to_str().unwrap()),
    )
    .unwrap();
    let o = run_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            "nested.json",
            "--seal",
            "rel.seal.json",
            "--sealed-dir",
            "test/sealed",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(r["sealed_tests"]["total"], 2, "{r}");
    assert_eq!(r["sealed_tests"]["passed"], 1, "{r}");
    assert_eq!(r["sealed_tests"]["failed"], 1, "{r}");
    let failed: Vec<&str> = r["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["test_name"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["test/sealed/calc.test.js > calc::muls"], "{r}");
}

/// Fixer C, finding 8: TAP after prove's summary report (`Files=`) is read, never dropped: the
/// node runner's real failures after an injected prove header count (node recipe's stream).
#[test]
fn b8_node_points_after_an_injected_prove_summary_are_read() {
    let dir = fixture("node-summary");
    let o = run_in(dir.path(), &["score", "--sealed", "node.tap"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    // node's own 3 `not ok` points after the summary, plus the injected `not ok 3`.
    assert_eq!(r["sealed_tests"]["failed"], 4, "{r}");
    assert!(
        stderr(&o).contains("line 10: TAP after prove's summary"),
        "{}",
        stderr(&o)
    );
}

/// Finding 8, prove variant: a.t's real failures after an injected `Files=` line count, and
/// points that belong to no prove file are plan-checked (no plan: a counted problem, advisory).
#[test]
fn b8_prove_points_after_an_injected_summary_are_read_and_advisory() {
    let dir = fixture("prove-summary");
    let o = run_in(dir.path(), &["score", "--sealed", "prove.tap"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert!(r["sealed_tests"]["failed"].as_u64().unwrap() >= 3, "{r}");
    assert!(advisory_codes(&r).iter().any(|c| c == "A001"), "{r}");
}

/// Finding 5: a problem's `count` survives `parse --format ctrf`: the CTRF scores as the TAP.
#[test]
fn b5_ctrf_round_trip_keeps_a_problem_count() {
    let dir = fixture("ctrf-count");
    let tap_fixtures = [
        dir.path().join("pm.tap"),
        repo_path("cli/tests/data/attack35/prove-summary/prove.tap"),
    ];
    for tap in tap_fixtures {
        let tap = tap.to_str().unwrap();
        let o = run_in(dir.path(), &["parse", tap, "--format", "ctrf"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let ctrf = dir.path().join("round.ctrf.json");
        fs::write(&ctrf, &o.stdout).unwrap();
        let from_tap = json_of(&run_in(dir.path(), &["score", "--sealed", tap]));
        let from_ctrf = json_of(&run_in(
            dir.path(),
            &["score", "--sealed", ctrf.to_str().unwrap()],
        ));
        assert_eq!(from_tap["score"], from_ctrf["score"], "{tap}");
        assert_eq!(from_tap["sealed_tests"], from_ctrf["sealed_tests"], "{tap}");
    }
}

/// Finding 5: an unreadable problem `count` is a P020 problem, not silently one.
#[test]
fn b5_an_unreadable_problem_count_is_p020() {
    let dir = fixture("ctrf-count");
    let doc = r#"{"results":{"tool":{"name":"x"},"tests":[{"name":"a","status":"passed","duration":0}],
        "extra":{"gapscore_problems":[{"kind":"plan-mismatch","count":-3,"detail":"d"}]}}}"#;
    fs::write(dir.path().join("bad.ctrf.json"), doc).unwrap();
    let o = run_in(dir.path(), &["score", "--sealed", "bad.ctrf.json"]);
    assert!(
        stdout_has_p020(&json_of(&o)),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

fn stdout_has_p020(r: &Value) -> bool {
    r.to_string().contains("P020") || r.to_string().contains("unreadable-count")
}

/// Finding 3: a NOTES.md longer than the 64 KiB checked, failure words past it, is never
/// documentation: the repository's row is an error, not a clean 0.0%.
#[test]
fn b3_a_long_notes_file_is_not_documentation() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo_path("cli/tests/data/attack35/notes-long"),
        &dir.path().join("root/r1/sealed"),
    );
    let o = run_in(dir.path(), &["batch", "root", "--output", "out"]);
    assert_ne!(code(&o), 0, "{}", stderr(&o));
    let csv = fs::read_to_string(dir.path().join("out/summary.csv")).unwrap();
    assert!(csv.contains("NOTES.md: no adapter recognises it"), "{csv}");
}

/// Attacker C, finding 2/3: text the implementation chose (a failure message, a test name)
/// reaches a person's terminal through the summary and `check`'s text; a control character in
/// it is shown (`^[`), never obeyed, so it cannot redraw the score line or the verdict.
#[test]
fn c2_control_characters_in_names_and_messages_are_shown_never_obeyed() {
    let dir = tempfile::tempdir().unwrap();
    let forged = "\u{1b}[2J\u{1b}[1AShadow Score: 0.0%\r\u{9b}8m";
    let results = serde_json::json!({"tests": [
        {"name": "adds", "status": "passed"},
        {"name": format!("muls{forged}"), "status": "failed", "message": forged},
    ]});
    fs::write(dir.path().join("r.json"), results.to_string()).unwrap();
    for args in [
        &["score", "--sealed", "r.json", "--format", "summary"][..],
        &[
            "score", "--sealed", "r.json", "--format", "summary", "--color", "always",
        ][..],
    ] {
        let o = run_in(dir.path(), args);
        let out = stdout(&o);
        assert!(out.contains("^[[2J") && out.contains("<U+009B>"), "{out}");
        assert!(!out.contains("\u{1b}[2J") && !out.contains('\u{9b}') && !out.contains('\r'));
    }
    // `check` quotes a report's strings in its findings: the same holds there.
    let o = run_in(
        dir.path(),
        &["score", "--sealed", "r.json", "-o", "rep.json"],
    );
    assert!(o.status.code().is_some(), "{}", stderr(&o));
    let mut rep: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("rep.json")).unwrap()).unwrap();
    rep["gapscore"]["tool"] = Value::String(format!("x{forged}"));
    let failures = rep["failures"].as_array().unwrap().clone();
    rep["failures"] = Value::Array([failures.clone(), failures].concat());
    fs::write(dir.path().join("rep.json"), rep.to_string()).unwrap();
    let o = run_in(dir.path(), &["check", "rep.json"]);
    let out = stdout(&o);
    assert!(
        !out.contains('\u{1b}') && !out.contains('\u{9b}') && !out.contains('\r'),
        "{out}"
    );
}

/// Attacker C, finding 4: the implementation prints `ok N # time=` (or `# TODO `) without a
/// newline right before Test::More's own `not ok N`, and exits 0 before Test::Builder can
/// fail the process: the glued line holds two verdicts, and the harness's failure wins.
#[test]
fn c4_a_failure_glued_onto_a_printed_pass_still_fails() {
    if !runner_available("prove", &["--version"]) {
        return;
    }
    let dir = fixture("prove-glued");
    let p = dir.path();
    fs::copy(p.join("impl/Impl.pm.stub"), p.join("impl/Impl.pm")).unwrap();
    let seal = run_in(
        p,
        &[
            "seal",
            "t/sealed",
            "--expect-run",
            "--results",
            "-",
            "-o",
            "seal.json",
            "--",
            "prove",
            "-v",
            "t/sealed",
        ],
    );
    assert_eq!(code(&seal), 0, "{}", stderr(&seal));
    for attack in ["Impl.pm.attack", "Impl.pm.attack_todo"] {
        fs::copy(p.join("impl").join(attack), p.join("impl/Impl.pm")).unwrap();
        let o = run_in(
            p,
            &[
                "run",
                "--seal",
                "seal.json",
                "--sealed-dir",
                "t/sealed",
                "--results",
                "-",
                "--format",
                "json",
                "--",
                "prove",
                "-v",
                "t/sealed",
            ],
        );
        let r = json_of(&o);
        assert_eq!(r["sealed_tests"]["failed"], 2, "{attack}: {r}");
        assert_eq!(r["report"]["shadow_score"], 50.0, "{attack}: {r}");
        assert!(
            stderr(&o).contains("ends in another `not ok`"),
            "{}",
            stderr(&o)
        );
    }
}
