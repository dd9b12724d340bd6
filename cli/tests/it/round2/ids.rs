//! Issue 35, the items of the `ids` part (see `round2/mod.rs`): a test is named in every report
//! (5), one pytest run names its tests alike from JUnit and pytest-json, and a listing no result
//! matches says what to do (6), one `node --test` run scores alike from JUnit, TAP and CTRF (7),
//! and the TAP reader's warning names the lines it means (12). The inputs are real runner output
//! (`cli/tests/data/ids/README.md`).

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{code, copy_dir, json_of, repo_path, run_in, stderr, stdout};

/// A temporary directory holding the fixture folder `cli/tests/data/ids/<topic>`'s files.
fn fixture(topic: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo_path(&format!("cli/tests/data/ids/{topic}")),
        dir.path(),
    );
    // Jest's and Vitest's JSON name files by absolute path, read relative to the directory
    // gapscore runs in: the project the runner ran in moves to where the fixture now is.
    for (json, root) in [
        ("jest.json", "/tmp/gapscore-jest-demo"),
        ("vitest.json", "/tmp/gapscore-jest-demo"),
        ("vitest.json", "/tmp/gapscore-vitest-nested"),
    ] {
        let path = dir.path().join(json);
        if let Ok(text) = fs::read_to_string(&path) {
            fs::write(&path, text.replace(root, dir.path().to_str().unwrap())).unwrap();
        }
    }
    dir
}

/// The failure entries' `test_name`s of a JSON report.
fn failure_names(report: &Value) -> Vec<String> {
    report["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["test_name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn item05_unnamed_tap_points_are_named_by_their_number_in_every_format() {
    let dir = fixture("tap");
    let json = run_in(dir.path(), &["score", "--sealed", "results.tap"]);
    assert_eq!(code(&json), 0, "{}", stderr(&json));
    // `ok 1 # skip no network` and `not ok 3`: Test::More wrote no names.
    assert_eq!(failure_names(&json_of(&json)), ["#1", "#3"]);
    for format in ["summary", "markdown", "github", "junit"] {
        let o = run_in(
            dir.path(),
            &["score", "--sealed", "results.tap", "--format", format],
        );
        let out = stdout(&o);
        assert!(out.contains("#1") && out.contains("#3"), "{format}:\n{out}");
        for empty in ["❌ :", "❌ \n", "name=\"\"", "title=::"] {
            assert!(!out.contains(empty), "{format} shows an empty name:\n{out}");
        }
    }
    let parsed = json_of(&run_in(dir.path(), &["parse", "results.tap"]));
    let names: Vec<&str> = parsed[0]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["#1", "works", "#3"]);
}

#[test]
fn item06_pytest_junit_scores_against_a_pytest_json_listing_and_back() {
    let dir = fixture("pytest");
    let seal = |expect: &str, record: &str| {
        let o = run_in(
            dir.path(),
            &["seal", "--expect", expect, "-o", record, "sealed"],
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    };
    seal("results.json", "from-json.seal");
    seal("results.xml", "from-junit.seal");
    for (results, record, names) in [
        (
            "results.xml",
            "from-json.seal",
            [
                "sealed/test_calc.py::test_sub",
                "sealed/test_calc.py::TestX::test_div",
            ],
        ),
        (
            "results.json",
            "from-junit.seal",
            [
                "sealed.test_calc::test_sub",
                "sealed.test_calc.TestX::test_div",
            ],
        ),
    ] {
        let o = run_in(
            dir.path(),
            &[
                "score",
                "--sealed",
                results,
                "--seal",
                record,
                "--sealed-dir",
                "sealed",
            ],
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let r = json_of(&o);
        // 2 of the 6 fail, whichever format was sealed and which scored; named as sealed.
        assert_eq!(r["sealed_tests"]["total"], 6, "{results}: {}", stderr(&o));
        assert_eq!(r["sealed_tests"]["failed"], 2, "{results}: {}", stderr(&o));
        assert_eq!(failure_names(&r), names, "{results}");
        assert_eq!(r["report"]["advisory"], Value::Null, "{results}: {r}");
        assert!(
            !stderr(&o).contains("did not run") && !stderr(&o).contains("does not list"),
            "{results}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn item06_a_listing_no_result_matches_says_what_to_do() {
    // The listing is of the run from the project (`sealed/test_calc.py::test_add`), the results
    // of a run from inside `sealed/` (`test_calc::test_add`): no id is shared.
    let dir = fixture("pytest");
    let o = run_in(
        dir.path(),
        &[
            "seal",
            "--expect",
            "results.json",
            "-o",
            "json.seal",
            "sealed",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            "inside.xml",
            "--seal",
            "json.seal",
            "--sealed-dir",
            "sealed",
        ],
    );
    let err = stderr(&o);
    assert!(
        err.contains("none of the 6 sealed results is a test the seal record lists")
            && err.contains("`sealed/test_calc.py::TestX::test_div`")
            && err.contains("`test_calc::test_add`")
            && err.contains("seal with `seal --expect` on results in the format you score"),
        "{err}"
    );
    // Said, never passed: every listed test still counts as failed.
    let r = json_of(&o);
    assert_eq!(r["report"]["advisory"], true);
    assert_eq!(r["sealed_tests"]["passed"], 0);
    let explain = run_in(dir.path(), &["explain", "W224"]);
    assert_eq!(code(&explain), 0, "{}", stderr(&explain));
    assert!(stdout(&explain).contains("seal with `seal --expect`"));
}

#[test]
fn item07_node_names_a_test_alike_in_junit_and_tap() {
    // Sealed from the TAP, scored from the JUnit of the same run: every listed test is found.
    let dir = fixture("node");
    fs::create_dir(dir.path().join("sealed")).unwrap();
    fs::rename(
        dir.path().join("calc.test.js"),
        dir.path().join("sealed/calc.test.js"),
    )
    .unwrap();
    let o = run_in(
        dir.path(),
        &[
            "seal",
            "--expect",
            "results.tap",
            "-o",
            "tap.seal",
            "sealed",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            "results.xml",
            "--seal",
            "tap.seal",
            "--sealed-dir",
            "sealed",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("did not run"), "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(r["sealed_tests"]["total"], 7);
    assert_eq!(r["sealed_tests"]["passed"], 4);
}

#[test]
fn item07_one_node_run_scores_alike_from_junit_tap_and_ctrf() {
    let dir = fixture("node");
    let ctrf = run_in(dir.path(), &["parse", "--format", "ctrf", "results.tap"]);
    assert_eq!(code(&ctrf), 0, "{}", stderr(&ctrf));
    fs::write(dir.path().join("results.ctrf.json"), &ctrf.stdout).unwrap();
    let score = |file: &str| {
        let o = run_in(dir.path(), &["score", "--sealed", file]);
        assert_eq!(code(&o), 0, "{file}: {}", stderr(&o));
        let r = json_of(&o);
        (
            r["report"]["shadow_score"].clone(),
            r["sealed_tests"].clone(),
        )
    };
    let junit = score("results.xml");
    assert_eq!(junit, score("results.tap"));
    assert_eq!(junit, score("results.ctrf.json"));
    // The passing todo passes, the failing todo, the skip and the failure fail; the parent is
    // its two subtests.
    assert_eq!(junit.1["total"], 7);
    assert_eq!(junit.1["passed"], 4);
    // CTRF's own count is the same set of tests.
    let doc: Value = serde_json::from_slice(&ctrf.stdout).unwrap();
    assert_eq!(doc["results"]["summary"]["tests"], 7);
    assert_eq!(doc["results"]["tests"].as_array().unwrap().len(), 7);
}

#[test]
fn item12_the_not_tap_warning_names_its_line() {
    let dir = fixture("tap");
    let o = run_in(dir.path(), &["score", "--sealed", "results.tap"]);
    let err = stderr(&o);
    assert!(
        err.contains("results.tap: line 4 is not TAP"),
        "the warning should name the file and line:\n{err}"
    );
}

/// Seals the `sealed/` folder of `dir` with the tests `expect` lists, then scores `results`
/// against the record; the report and stderr.
fn seal_then_score(dir: &Path, expect: &str, results: &str) -> (Value, String) {
    let record = format!("{expect}.seal");
    let o = run_in(dir, &["seal", "--expect", expect, "-o", &record, "sealed"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run_in(
        dir,
        &[
            "score",
            "--sealed",
            results,
            "--seal",
            &record,
            "--sealed-dir",
            "sealed",
        ],
    );
    assert_eq!(code(&o), 0, "{results}: {}", stderr(&o));
    (json_of(&o), stderr(&o))
}

/// The fixture `js` (one project: Jest and Vitest, each as JSON with absolute file paths and
/// as JUnit with paths from the project root) scores 6 tests, 3 failing (a failure, another,
/// a skip), whichever form was sealed and which scored, named as sealed, and nothing said.
fn assert_scores_as_sealed(expect: &str, results: &str, names: [&str; 3]) {
    let dir = fixture("js");
    let (r, err) = seal_then_score(dir.path(), expect, results);
    assert_eq!(r["sealed_tests"]["total"], 6, "{expect} → {results}: {err}");
    assert_eq!(
        r["sealed_tests"]["failed"], 3,
        "{expect} → {results}: {err}"
    );
    assert_eq!(failure_names(&r), names, "{expect} → {results}");
    assert_eq!(r["report"]["advisory"], Value::Null, "{results}: {r}");
    assert!(
        !err.contains("did not run") && !err.contains("does not list"),
        "{expect} → {results}: {err}"
    );
}

/// A listing of absolute paths (Jest's or Vitest's JSON) scored from relative JUnit results: no
/// result is matched, the report is advisory (A009).
fn assert_absolute_listing_unmatched(expect: &str, results: &str) {
    let dir = fixture("js");
    let (r, err) = seal_then_score(dir.path(), expect, results);
    assert_eq!(r["report"]["advisory"], true, "{expect} → {results}: {err}");
    assert_eq!(
        r["sealed_tests"]["passed"], 0,
        "{expect} → {results}: {err}"
    );
    let codes: Vec<&str> = r["gapscore"]["advisory_reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"A009"), "{expect} → {results}: {r}");
}

#[test]
fn item06_jest_json_and_jest_junit_score_alike_either_way() {
    // A listed absolute path is never matched by a relative result (its root is unknown: a
    // root-level file of the same name could stand in, attack 35 finding 5): told, advisory.
    assert_absolute_listing_unmatched("jest.json", "jest-junit.xml");
    assert_scores_as_sealed(
        "jest-junit.xml",
        "jest.json",
        [
            "sealed/calc.test.js:: > subtracts",
            "sealed/calc.test.js::group > skipped one",
            "sealed/ops/div.test.js::div > by zero is Infinity",
        ],
    );
}

#[test]
fn item06_vitest_json_and_vitest_junit_score_alike_either_way() {
    // A listed absolute path is never matched by a relative result (its root is unknown: a
    // root-level file of the same name could stand in, attack 35 finding 5): told, advisory.
    assert_absolute_listing_unmatched("vitest.json", "vitest-junit.xml");
    assert_scores_as_sealed(
        "vitest-junit.xml",
        "vitest.json",
        [
            "sealed/calc.test.js::subtracts",
            "sealed/calc.test.js::group > skipped one",
            "sealed/ops/div.test.js::div > by zero is Infinity",
        ],
    );
}

#[test]
fn item06_vitest_a_nested_path_is_matched_to_its_own_listed_file_only() {
    // Listed: `sealed/x.test.js::works` and `sealed/sub/sealed/x.test.js::works`; the JSON's
    // `/…/sealed/sub/sealed/x.test.js` ends in both but is, from the directory gapscore runs
    // in, only the second: it stands for that one (it failed: the failure is not lost), and
    // nothing is ambiguous. Before the root rule it was matched to neither (W226).
    let dir = fixture("js-nested");
    let (r, err) = seal_then_score(dir.path(), "vitest-junit.xml", "vitest.json");
    assert!(!err.contains("could be any of the listed tests"), "{err}");
    assert_ne!(r["report"]["advisory"], true, "{r}\n{err}");
    assert_eq!(r["sealed_tests"]["total"], 2, "{err}");
    assert_eq!(r["sealed_tests"]["passed"], 1, "{err}");
    assert_eq!(
        failure_names(&r),
        ["sealed/sub/sealed/x.test.js::works".to_owned()],
        "{r}"
    );
    let explain = run_in(dir.path(), &["explain", "W226"]);
    assert_eq!(code(&explain), 0, "{}", stderr(&explain));
    assert!(stdout(&explain).contains("matched to neither"));
}
