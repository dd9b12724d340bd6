//! Issue 35, the items of the `run` part (see `round2/mod.rs`): exit codes of a run that was
//! interrupted or did not fully run (1), no temporary path in any output (2), `--timeout`
//! reported against the limit given (3), pytest's plugin autoload named on standard error (4),
//! `run`'s flags that need others (9).

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{self, bin, code, runner_available, stderr, stdout};

const OK_TAP: &str = "TAP version 13\n1..1\nok 1 - adds\n";

/// A project holding `ok.tap` (one passing test) and `plan.tap` (a plan of 3, one result).
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ok.tap"), OK_TAP).unwrap();
    std::fs::write(
        dir.path().join("plan.tap"),
        "TAP version 13\n1..3\nok 1 - adds\n",
    )
    .unwrap();
    // Shell scripts run as `sh FILE` (a script given to `sh -c` is refused without
    // --trust-workspace-runner).
    for (name, script) in [
        ("slow.sh", "cat ok.tap\nsleep 30\n"),
        ("fail.sh", "cat ok.tap\nexit 3\n"),
        ("stubborn.sh", "trap '' TERM\ncat ok.tap\nsleep 30\n"),
    ] {
        std::fs::write(dir.path().join(name), script).unwrap();
    }
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    common::run_in(dir, args)
}

#[test]
fn item01_ctrl_c_exits_130_and_the_report_says_interrupted() {
    let dir = project();
    let child = Command::new(bin())
        .args([
            "run",
            "--results",
            "-",
            "--format",
            "summary",
            "--",
            "sh",
            "slow.sh",
        ])
        .current_dir(dir.path())
        .env_remove("GITHUB_ACTIONS")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Long enough for the copy and the command to start (the command then sleeps for 20 s).
    std::thread::sleep(Duration::from_millis(1500));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(code(&out), 130, "{}", stderr(&out));
    assert!(stdout(&out).contains("interrupted"), "{}", stdout(&out));
}

#[test]
fn item01_a_run_that_did_not_fully_run_exits_1_unless_allow_advisory() {
    let dir = project();
    // The runner exits 3 while its results show no failure: `runner-failed`, advisory.
    let failed = [
        "run",
        "--results",
        "-",
        "--format",
        "summary",
        "--",
        "sh",
        "fail.sh",
    ];
    let out = run(dir.path(), &failed);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--allow-advisory"),
        "{}",
        stderr(&out)
    );
    let mut allowed = failed.to_vec();
    allowed.insert(1, "--allow-advisory");
    assert_eq!(code(&run(dir.path(), &allowed)), 0);
    // No results at all: `missing-results`.
    let out = run(
        dir.path(),
        &[
            "run",
            "--results",
            "none.json",
            "--format",
            "summary",
            "--",
            "true",
        ],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    // A clean run still exits 0 without a threshold.
    let out = run(
        dir.path(),
        &[
            "run",
            "--results",
            "-",
            "--format",
            "summary",
            "--",
            "cat",
            "ok.tap",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn item01_a_timed_out_run_exits_1() {
    let dir = project();
    let out = run(
        dir.path(),
        &[
            "run",
            "--results",
            "-",
            "--timeout",
            "1",
            "--format",
            "summary",
            "--",
            "sh",
            "slow.sh",
        ],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
}

#[test]
fn item02_results_on_standard_output_name_no_temporary_path() {
    let dir = project();
    let project = dir.path().display().to_string();
    for (format, file) in [
        ("json", "r.json"),
        ("markdown", "r.md"),
        ("junit", "r.xml"),
        ("github", "r.gh"),
    ] {
        let out = run(
            dir.path(),
            &[
                "run",
                "--allow-advisory",
                "--results",
                "-",
                "--format",
                format,
                "-o",
                file,
                "--",
                "cat",
                "plan.tap",
            ],
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let mut all = stderr(&out);
        all.push_str(&std::fs::read_to_string(dir.path().join(file)).unwrap());
        // The project itself is a temporary directory here: only the run's own paths must go.
        let rest = all.replace(&project, "PROJECT");
        for leak in ["gapscore-run-", "/stdout", "/tmp/.tmp"] {
            assert!(!rest.contains(leak), "`{leak}` in {format}:\n{rest}");
        }
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let names: Vec<&str> = report["failures"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["test_name"].as_str())
        .collect();
    assert!(names.contains(&"[plan-mismatch] - (2 tests)"), "{names:?}");
}

#[test]
fn item03_timeout_names_the_limit_given() {
    let dir = project();
    // The runner ignores SIGTERM: without a sandbox (whose PID namespace ends with it) it ends
    // only on the SIGKILL the grace period ends in, so the run takes longer than the limit.
    let out = run(
        dir.path(),
        &[
            "run",
            "--results",
            "-",
            "--timeout",
            "1",
            "--",
            "sh",
            "stubborn.sh",
        ],
    );
    let report = common::json_of(&out);
    let detail = report["gapscore"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "timeout")
        .and_then(|p| p["detail"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert!(detail.contains("(--timeout 1 s)"), "{detail}");
    assert!(detail.contains("SIGTERM"), "{detail}");
}

#[test]
fn item03_timeout_ends_the_runner_at_the_limit() {
    let dir = project();
    let started = Instant::now();
    let out = run(
        dir.path(),
        &[
            "run",
            "--results",
            "-",
            "--timeout",
            "3",
            "--format",
            "summary",
            "--",
            "sleep",
            "30",
        ],
    );
    let took = started.elapsed();
    assert!(took < Duration::from_millis(3800), "{took:?}");
    assert!(stderr(&out).contains("--timeout 3 s"), "{}", stderr(&out));
}

#[test]
fn item04_a_plugin_option_pytest_refuses_is_explained_on_stderr() {
    if !runner_available("python3", &["-m", "pytest", "--version"]) {
        return;
    }
    let dir = project();
    std::fs::create_dir(dir.path().join("sealed")).unwrap();
    std::fs::write(
        dir.path().join("sealed/test_calc.py"),
        "def test_add():\n    assert 1 + 1 == 2\n",
    )
    .unwrap();
    let out = run(
        dir.path(),
        &[
            "run",
            "--results",
            "r.json",
            "--",
            "python3",
            "-m",
            "pytest",
            "--json-report",
            "--json-report-file=r.json",
            "sealed",
        ],
    );
    let err = stderr(&out);
    let note = err
        .lines()
        .find(|l| l.starts_with("gapscore: note: ") && l.contains("--json-report"))
        .unwrap_or_else(|| panic!("no note in:\n{err}"));
    assert!(note.contains("-p pytest_jsonreport"), "{note}");
    assert!(note.contains("PYTEST_DISABLE_PLUGIN_AUTOLOAD"), "{note}");
}

#[test]
fn item09_a_command_not_after_dashes_is_refused_with_where_it_goes() {
    let dir = project();
    let out = run(dir.path(), &["run", "--results", "-", "prove", "t/"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("after `--`"), "{}", stderr(&out));
    // Several result files: one --results each.
    let out = run(
        dir.path(),
        &[
            "run",
            "--results",
            "-",
            "--results",
            "none.json",
            "--allow-advisory",
            "--format",
            "summary",
            "--",
            "cat",
            "ok.tap",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = run(
        dir.path(),
        &["seal", "--expect-run", "--results", "-", "prove", "t/"],
    );
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("after `--`"), "{}", stderr(&out));
}

#[test]
fn item09_sealed_dir_without_seal_says_nothing_is_verified() {
    let dir = project();
    std::fs::create_dir(dir.path().join("sealed")).unwrap();
    std::fs::write(dir.path().join("sealed/ok.tap"), OK_TAP).unwrap();
    let out = run(
        dir.path(),
        &[
            "run",
            "--sealed-dir",
            "sealed",
            "--results",
            "-",
            "--format",
            "summary",
            "--",
            "cat",
            "ok.tap",
        ],
    );
    assert!(
        stderr(&out).contains("gapscore: note: --sealed-dir without --seal"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn item01_the_exit_1_of_an_advisory_run_has_a_code_of_its_own() {
    let dir = project();
    let out = run(
        dir.path(),
        &[
            "run",
            "--results",
            "-",
            "--format",
            "summary",
            "--",
            "sh",
            "fail.sh",
        ],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    // Names what did not fully run, the way out, and a code that is not the threshold's.
    assert!(err.contains("runner-failed"), "{err}");
    assert!(err.contains("--allow-advisory"), "{err}");
    assert!(err.contains("gapscore explain E013"), "{err}");
    let explained = run(dir.path(), &["explain", "E013"]);
    assert_eq!(code(&explained), 0, "{}", stderr(&explained));
    let text = stdout(&explained);
    assert!(text.contains("did not fully run"), "{text}");
    assert!(text.contains("--allow-advisory"), "{text}");
    assert!(!text.contains("does not meet the `--threshold`"), "{text}");
}

#[test]
fn item01_ctrl_c_during_seal_expect_run_exits_130() {
    let dir = project();
    std::fs::create_dir(dir.path().join("sealed")).unwrap();
    std::fs::write(dir.path().join("sealed/ok.tap"), OK_TAP).unwrap();
    let child = Command::new(bin())
        .args([
            "seal",
            "sealed",
            "--expect-run",
            "--results",
            "-",
            "-o",
            "seal.json",
            "--",
            "sh",
            "slow.sh",
        ])
        .current_dir(dir.path())
        .env_remove("GITHUB_ACTIONS")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 130, "{}", stderr(&out));
    assert!(!dir.path().join("seal.json").exists());
}

/// A project of `files` small files besides `ok.tap`.
fn project_of(files: usize) -> tempfile::TempDir {
    let dir = project();
    let many = dir.path().join("many");
    std::fs::create_dir(&many).unwrap();
    for i in 0..files {
        std::fs::write(many.join(format!("f{i}.txt")), "x").unwrap();
    }
    dir
}

#[test]
fn item12_a_large_copy_is_announced_once_with_its_size() {
    let args = [
        "run",
        "--results",
        "-",
        "--format",
        "summary",
        "--",
        "cat",
        "ok.tap",
    ];
    let large = project_of(2_100);
    let out = run(large.path(), &args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    let notes: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("gapscore: note: copying"))
        .collect();
    // 2,100 files and the project's five others.
    assert_eq!(notes.len(), 1, "{err}");
    assert!(notes[0].contains("2,105 files"), "{err}");
    assert!(notes[0].contains("MB"), "{err}");
    assert!(notes[0].contains("--workspace"), "{err}");
    // A small project is copied without a word.
    let out = run(project().path(), &args);
    assert!(!stderr(&out).contains("note: copying"), "{}", stderr(&out));
}
