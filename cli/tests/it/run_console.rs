//! `gapscore run`'s second channel (issue 32): the runner's console summary held against the
//! result files, the recognisers reading the whole output, and results read from a stream the
//! code under test shares marked in the report. With real pytest where installed (CI installs
//! it and sets `GAPSCORE_REQUIRE_RUNNERS`, which turns a missing runner into a failure), and
//! scripted stand-ins otherwise.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{code, json_of, run_in, runner_available, stderr};

/// Whether `python3 -m pytest` runs here (a note, or a failure under
/// `GAPSCORE_REQUIRE_RUNNERS`, when not).
fn have_pytest() -> bool {
    runner_available("python3", &["-m", "pytest", "--version"])
}

/// Five sealed tests of `impl.add`; `impl.py` gets `add` wrong for 2 + 2 and 2 + 3, so two of
/// them fail.
const SEALED: &str = r"import os, sys
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import impl

def test_one():
    assert impl.add(1, 1) == 2

def test_two():
    assert impl.add(1, 2) == 3

def test_three():
    assert impl.add(3, 3) == 6

def test_four():
    assert impl.add(2, 2) == 4

def test_five():
    assert impl.add(2, 3) == 5
";

const IMPL: &str = "def add(a, b):\n    return a + b + (1 if a == 2 else 0)\n";

/// The attack of the issue: at exit, after pytest wrote its JUnit file, the implementation
/// removes `keep_from`.. of its failures (all of them from 0) and sets the suite's declared
/// failures to match, then ends the interpreter with `exit`.
fn forger(keep: usize, exit: i32) -> String {
    format!(
        r#"
import atexit, os, re

def _forge():
    try:
        text = open("junit.xml").read()
    except OSError:
        return
    failures = re.findall(r"<failure[^>]*>.*?</failure>", text, flags=re.S)
    for f in failures[{keep}:]:
        text = text.replace(f, "")
    text = re.sub(r'failures="\d+"', 'failures="{keep}"', text)
    open("junit.xml", "w").write(text)
    os._exit({exit})

atexit.register(_forge)
"#
    )
}

/// A project with `sealed/test_five.py` sealed and `impl.py` as given.
fn project(impl_py: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::create_dir(p.join("sealed")).unwrap();
    fs::write(p.join("sealed/test_five.py"), SEALED).unwrap();
    fs::write(p.join("impl.py"), impl_py).unwrap();
    let o = run_in(
        p,
        &[
            "seal",
            "sealed",
            "--exclude",
            "__pycache__",
            "-o",
            "seal.json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    dir
}

/// `gapscore run ... --threshold 15 -- python3 -m pytest --junitxml=junit.xml sealed`.
fn run_pytest(dir: &Path) -> (i32, Value) {
    let o = run_in(
        dir,
        &[
            "run",
            "--seal",
            "seal.json",
            "--sealed-dir",
            "sealed",
            "--workspace",
            "inplace",
            "--results",
            "junit.xml",
            "--threshold",
            "15",
            "--",
            "python3",
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--junitxml=junit.xml",
            "sealed",
        ],
    );
    (code(&o), json_of(&o))
}

fn problems(r: &Value) -> Vec<(String, u64)> {
    r["gapscore"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["kind"].as_str().unwrap().to_owned(),
                p["count"].as_u64().unwrap_or(1),
            )
        })
        .collect()
}

#[test]
fn an_honest_pytest_run_agrees_with_its_console() {
    if !have_pytest() {
        return;
    }
    let dir = project(IMPL);
    let (code, r) = run_pytest(dir.path());
    assert_eq!(r["sealed_tests"]["failed"], 2, "{r}");
    assert_eq!(problems(&r), [], "{r}");
    assert_eq!(code, 1, "40% is over the 15% threshold: {r}");
    let console = &r["gapscore"]["runner"]["console"][0];
    assert_eq!(console["runner"], "pytest", "{r}");
    assert_eq!(console["failed"], 2, "{r}");
    assert_eq!(console["passed"], 3, "{r}");
    assert_eq!(console["compared"], true, "{r}");
}

#[test]
fn junit_rewritten_to_all_pass_with_a_clean_exit_fails_the_gate() {
    if !have_pytest() {
        return;
    }
    let dir = project(&format!("{IMPL}{}", forger(0, 0)));
    let (code, r) = run_pytest(dir.path());
    assert_eq!(r["gapscore"]["runner"]["exit_code"], 0, "{r}");
    // pytest's own "2 failed, 3 passed" on the console is held against the forged file.
    assert_eq!(problems(&r), [("summary-line".to_owned(), 2)], "{r}");
    assert_eq!(r["sealed_tests"]["failed"], 2, "{r}");
    assert_eq!(code, 1, "{r}");
}

#[test]
fn junit_rewritten_to_keep_one_failure_fails_the_gate() {
    if !have_pytest() {
        return;
    }
    // pytest's exit status 1 is "explained" by the failure kept; the console says two.
    let dir = project(&format!("{IMPL}{}", forger(1, 1)));
    let (code, r) = run_pytest(dir.path());
    assert_eq!(r["gapscore"]["runner"]["exit_code"], 1, "{r}");
    assert_eq!(problems(&r), [("summary-line".to_owned(), 1)], "{r}");
    assert_eq!(r["sealed_tests"]["failed"], 2, "{r}");
    assert_eq!(code, 1, "{r}");
}

/// A project whose command is `sh run.sh`, with a sealed file and its seal.
fn scripted(script: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::create_dir(p.join("sealed")).unwrap();
    fs::write(p.join("sealed/a.txt"), "sealed\n").unwrap();
    let o = run_in(p, &["seal", "sealed", "-o", "seal.json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    fs::write(p.join("run.sh"), script).unwrap();
    dir
}

fn run_script(dir: &Path, results: &str) -> Value {
    json_of(&run_in(
        dir,
        &[
            "run",
            "--seal",
            "seal.json",
            "--sealed-dir",
            "sealed",
            "--results",
            results,
            "--",
            "sh",
            "run.sh",
        ],
    ))
}

#[test]
fn a_build_failure_before_80_kib_of_logging_is_recognised() {
    let dir = scripted(
        "echo '{\"tests\":[{\"name\":\"a\",\"status\":\"failed\"}]}' > results.json\n\
         echo 'FAIL\texample.com/pkg [build failed]'\n\
         i=0; while [ $i -lt 3000 ]; do echo \"log line $i of some length here\"; i=$((i+1)); done\n\
         exit 1\n",
    );
    let r = run_script(dir.path(), "results.json");
    let kinds: Vec<String> = problems(&r).into_iter().map(|(k, _)| k).collect();
    assert!(kinds.contains(&"build-failure".to_owned()), "{r}");
}

#[test]
fn results_read_from_standard_output_are_marked_as_a_shared_stream() {
    // The forged-stdout case: a test binary that prints libtest's passing events and exits 0.
    let dir = scripted(
        "echo '{ \"type\": \"suite\", \"event\": \"started\", \"test_count\": 2 }'\n\
         echo '{ \"type\": \"test\", \"event\": \"started\", \"name\": \"a\" }'\n\
         echo '{ \"type\": \"test\", \"name\": \"a\", \"event\": \"ok\" }'\n\
         echo '{ \"type\": \"test\", \"event\": \"started\", \"name\": \"b\" }'\n\
         echo '{ \"type\": \"test\", \"name\": \"b\", \"event\": \"ok\" }'\n\
         echo '{ \"type\": \"suite\", \"event\": \"ok\", \"passed\": 2, \"failed\": 0, \"ignored\": 0, \"measured\": 0, \"filtered_out\": 0, \"exec_time\": 0.001 }'\n\
         echo 'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s' >&2\n",
    );
    let r = run_script(dir.path(), "-");
    let runner = &r["gapscore"]["runner"];
    assert_eq!(runner["results_on_shared_stream"], true, "{r}");
    let notes = runner["notes"].as_array().unwrap();
    assert!(
        notes.iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("which the code under test shares")),
        "{r}"
    );
    assert_eq!(r["sealed_tests"]["passed"], 2, "{r}");
    // A summary on standard error is held against them (and agrees).
    assert_eq!(runner["console"][0]["runner"], "cargo", "{r}");
    assert_eq!(runner["console"][0]["compared"], true, "{r}");
    // A result file is no shared stream.
    let dir =
        scripted("echo '{\"tests\":[{\"name\":\"a\",\"status\":\"passed\"}]}' > results.json\n");
    let r = run_script(dir.path(), "results.json");
    assert!(
        r["gapscore"]["runner"]
            .get("results_on_shared_stream")
            .is_none(),
        "{r}"
    );
}

#[test]
fn a_console_summary_on_standard_error_is_held_against_stdout_results() {
    // Results on standard output say all passed; the runner's summary on standard error says
    // one failed (jest prints its summary there).
    let dir = scripted(
        "echo 'ok 1 - a'\necho 'ok 2 - b'\necho '1..2'\n\
         echo 'Tests:       1 failed, 1 passed, 2 total' >&2\n",
    );
    let r = run_script(dir.path(), "-");
    assert_eq!(problems(&r), [("summary-line".to_owned(), 1)], "{r}");
}

#[test]
fn node_subtests_are_no_console_disagreement() {
    if !runner_available("node", &["--version"]) {
        return;
    }
    // node's `fail` counts the parent of a failing subtest too; its JUnit file records the
    // parent as a suite.
    let dir = scripted("");
    let p = dir.path();
    fs::write(
        p.join("sub.test.js"),
        "const { test } = require('node:test');\n\
         test('parent', async (t) => {\n\
           await t.test('one', () => {});\n\
           await t.test('two', () => { throw new Error('x'); });\n\
         });\n\
         test('plain', () => {});\n",
    )
    .unwrap();
    let o = run_in(
        p,
        &[
            "run",
            "--seal",
            "seal.json",
            "--sealed-dir",
            "sealed",
            "--results",
            "junit.xml",
            "--",
            "node",
            "--test",
            "--test-reporter=spec",
            "--test-reporter-destination=stdout",
            "--test-reporter=junit",
            "--test-reporter-destination=junit.xml",
            "sub.test.js",
        ],
    );
    let r = json_of(&o);
    let console = &r["gapscore"]["runner"]["console"][0];
    assert_eq!(console["runner"], "node", "{r}");
    assert_eq!(console["failed"], 2, "{r}");
    assert!(
        !problems(&r).iter().any(|(k, _)| k == "summary-line"),
        "{r}"
    );
}
