//! `gapscore run`'s sandbox, watched sealed files, time limit and stale results (issue 32),
//! through the real binary with `sh` scripts standing in for a hostile implementation: a
//! `setsid` child that holds the output open, a sealed file rewritten and put back, a write to the
//! sealed tests and a connection out of the sandbox, a stale result file touched forward.
//!
//! The bubblewrap tests need `bwrap` working here; without it they say so and pass, unless
//! GAPSCORE_REQUIRE_RUNNERS is set (CI sets it and installs bubblewrap).

#![allow(clippy::print_stderr)] // Test code: the skip note.

use std::fs;
use std::io::Read;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use crate::common::{BIN, code, json_of, run_in, stderr};

const PASSING: &str = r#"{"tests":[{"name":"test_a","status":"passed"}]}"#;

/// A project with a sealed directory, its seal record and a script `run.sh`.
fn project(script: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::create_dir(p.join("sealed")).unwrap();
    fs::write(
        p.join("sealed/test_a.py"),
        "def test_a():\n    assert True\n",
    )
    .unwrap();
    let o = run_in(p, &["seal", "sealed", "-o", "seal.json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    fs::write(p.join("run.sh"), script).unwrap();
    dir
}

/// `gapscore run --seal seal.json --sealed-dir sealed --results results.json EXTRA -- sh run.sh`.
fn run(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "--seal",
        "seal.json",
        "--sealed-dir",
        "sealed",
        "--results",
        "results.json",
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "sh", "run.sh"]);
    run_in(dir, &args)
}

fn problems(report: &Value) -> Vec<String> {
    report["gapscore"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap().to_owned())
        .collect()
}

/// Whether bubblewrap works here; when it does not, the reason is printed, and the test may
/// pass without it only when GAPSCORE_REQUIRE_RUNNERS is unset.
fn bwrap_works() -> bool {
    let ok = Command::new("bwrap")
        .args([
            "--ro-bind",
            "/",
            "/",
            "--unshare-pid",
            "--unshare-net",
            "true",
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("GAPSCORE_REQUIRE_RUNNERS").is_none(),
            "bubblewrap (bwrap) does not work here and GAPSCORE_REQUIRE_RUNNERS is set"
        );
        eprintln!("skipped: bubblewrap (bwrap) does not work here");
    }
    ok
}

#[test]
fn a_setsid_child_holding_the_output_does_not_hold_the_run_past_its_timeout() {
    // The child leaves the process group and keeps stdout open for 20 s.
    let dir = project(&format!(
        "echo '{PASSING}' > results.json\nsetsid sh -c 'sleep 20' &\nsleep 20\n"
    ));
    for sandbox in ["none", "auto"] {
        let started = Instant::now();
        let o = run(dir.path(), &["--timeout", "2", "--sandbox", sandbox]);
        let took = started.elapsed();
        assert!(
            took < Duration::from_secs(9),
            "--sandbox {sandbox}: {took:?}"
        );
        let r = json_of(&o);
        assert_eq!(r["gapscore"]["runner"]["timed_out"], true, "{r}");
        assert!(problems(&r).contains(&"timeout".to_owned()), "{r}");
        if r["gapscore"]["runner"]["sandbox"] == "none" {
            // Out of reach without a PID namespace: not waited for, and said so.
            assert_eq!(r["gapscore"]["runner"]["output_held_open"], true, "{r}");
        } else {
            // In its own PID namespace the child ended with the command.
            assert!(
                r["gapscore"]["runner"].get("output_held_open").is_none(),
                "{r}"
            );
        }
    }
}

/// A run that rewrites a sealed test before the runner would read it and puts back its content
/// and mtime at exit: only its ctime (and, as root, nothing else) tells.
const REWRITE_AND_RESTORE: &str = "cp -p sealed/test_a.py keep.py
chmod u+w sealed/test_a.py
printf 'def test_a():\\n    assert False\\n' > sealed/test_a.py
cat keep.py > sealed/test_a.py
touch -r keep.py sealed/test_a.py
chmod a-w sealed/test_a.py
";

#[test]
fn a_sealed_file_rewritten_and_restored_is_a_broken_seal() {
    let dir = project(&format!(
        "echo '{PASSING}' > results.json\n{REWRITE_AND_RESTORE}"
    ));
    for workspace in ["copy", "inplace"] {
        let o = run(dir.path(), &["--sandbox", "none", "--workspace", workspace]);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "--workspace {workspace}: {err}");
        assert!(o.stdout.is_empty());
        assert!(
            err.contains("refusing to score against a broken seal"),
            "{err}"
        );
        assert!(err.contains("test_a.py (ctime"), "{err}");
        // The content is the sealed one: only the watch saw it.
        let o = run_in(dir.path(), &["seal", "--verify", "seal.json", "sealed"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    // With --allow-broken-seal: an advisory report that says the seal is broken.
    let o = run(dir.path(), &["--sandbox", "none", "--allow-broken-seal"]);
    let r = json_of(&o);
    assert_eq!(r["report"]["seal_broken"], true, "{r}");
    assert_eq!(r["report"]["advisory"], true, "{r}");
    // The in-place run gave the sealed files their modes back.
    let mode = fs::metadata(dir.path().join("sealed/test_a.py"))
        .unwrap()
        .permissions();
    assert!(!mode.readonly(), "{mode:?}");
}

#[test]
fn under_bwrap_the_sealed_tests_are_read_only_and_the_network_is_down() {
    if !bwrap_works() {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = project(&format!(
        "echo '{PASSING}' > results.json
echo 'def test_a(): pass' > sealed/test_a.py || echo SEALED-WRITE-REFUSED >&2
python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), timeout=2)' 2>/dev/null \
  && echo NET-UP >&2 || echo NET-DOWN >&2
echo outside > {outside} || echo OUTSIDE-WRITE-REFUSED >&2
",
        outside = std::env::temp_dir().join("gapscore-sandbox-escape").display()
    ));
    for workspace in ["copy", "inplace"] {
        let o = run(
            dir.path(),
            &[
                "--sandbox",
                "bwrap",
                "--workspace",
                workspace,
                "--spec-version",
                "2",
            ],
        );
        let err = stderr(&o);
        assert_eq!(code(&o), 0, "--workspace {workspace}: {err}");
        assert!(err.contains("SEALED-WRITE-REFUSED"), "{err}");
        assert!(err.contains("Read-only file system"), "{err}");
        assert!(err.contains("NET-DOWN"), "{err}");
        let r = json_of(&o);
        assert_eq!(r["gapscore"]["runner"]["sandbox"], "bwrap", "{r}");
        let isolation = if workspace == "copy" {
            "strict"
        } else {
            "legacy"
        };
        assert_eq!(r["report"]["workspace_isolation"], isolation, "{r}");
        assert_eq!(r["report"]["shadow_score"], 0.0, "{r}");
    }
    // The sandbox's /tmp is its own: the write above went nowhere.
    assert!(
        !std::env::temp_dir()
            .join("gapscore-sandbox-escape")
            .exists()
    );
    // --share-net keeps the network.
    let o = run(dir.path(), &["--sandbox", "bwrap", "--share-net"]);
    assert!(stderr(&o).contains("NET-UP"), "{}", stderr(&o));
    let mut buf = Vec::new();
    let (mut conn, _) = listener.accept().unwrap();
    conn.read_to_end(&mut buf).unwrap();
}

#[test]
fn without_a_sandbox_the_report_says_so_and_the_isolation_is_legacy() {
    let dir = project(&format!("echo '{PASSING}' > results.json\n"));
    let o = run(dir.path(), &["--sandbox", "none", "--spec-version", "2"]);
    let r = json_of(&o);
    assert_eq!(r["gapscore"]["runner"]["sandbox"], "none", "{r}");
    assert_eq!(r["report"]["workspace_isolation"], "legacy", "{r}");
    let notes = r["gapscore"]["runner"]["notes"].to_string();
    assert!(notes.contains("sandbox none (--sandbox none)"), "{notes}");
    // A strict isolation cannot be declared for an unsandboxed run.
    let o = run(
        dir.path(),
        &[
            "--sandbox",
            "none",
            "--spec-version",
            "2",
            "--workspace-isolation",
            "strict",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

#[test]
fn auto_runs_without_bwrap_where_it_is_missing_and_bwrap_refuses() {
    let dir = project(&format!("echo '{PASSING}' > results.json\n"));
    // No bwrap on this PATH (the command is given by its path).
    let with_path = |sandbox: &str| {
        Command::new(BIN)
            .args([
                "run",
                "--seal",
                "seal.json",
                "--sealed-dir",
                "sealed",
                "--results",
                "results.json",
                "--sandbox",
                sandbox,
                "--",
                "/bin/sh",
                "run.sh",
            ])
            .current_dir(dir.path())
            .env("PATH", "/nonexistent")
            .output()
            .unwrap()
    };
    let o = with_path("auto");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(r["gapscore"]["runner"]["sandbox"], "none", "{r}");
    assert!(
        r["gapscore"]["runner"]["notes"]
            .to_string()
            .contains("sandbox none (--sandbox auto)"),
        "{r}"
    );
    let o = with_path("bwrap");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--sandbox bwrap"), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
}

#[test]
fn a_stale_result_touched_forward_is_still_stale() {
    // The project holds an earlier run's results, their mtime moved a year ahead; the command
    // writes nothing. By the clock they would be this run's.
    let dir = project("exit 0\n");
    let p = dir.path();
    fs::write(p.join("results.json"), PASSING).unwrap();
    fs::File::options()
        .write(true)
        .open(p.join("results.json"))
        .unwrap()
        .set_modified(SystemTime::now() + Duration::from_secs(365 * 24 * 3600))
        .unwrap();
    for workspace in ["copy", "inplace"] {
        let o = run(p, &["--workspace", workspace]);
        let r = json_of(&o);
        assert_eq!(
            problems(&r),
            ["missing-results"],
            "--workspace {workspace}: {r}"
        );
        assert_eq!(r["gapscore"]["runner"]["results"][0]["freshness"], "stale");
        assert!(
            stderr(&o).contains("was there before the run and the run did not write it"),
            "{}",
            stderr(&o)
        );
        assert_eq!(r["report"]["shadow_score"], 100.0, "{r}");
    }
    // Rewritten by the run, with the same content: this run's.
    fs::write(
        p.join("run.sh"),
        format!("echo '{PASSING}' > results.json\n"),
    )
    .unwrap();
    let r = json_of(&run(p, &["--workspace", "inplace"]));
    assert!(problems(&r).is_empty(), "{r}");
}

/// a/F2 and a/F3 through the binary: the command cannot move the sealed tests' parent away (to
/// run weakened tests at the same path and put the original back), and a `--results` path
/// through a link the project holds does not make the link's target writable.
#[test]
fn under_bwrap_the_sealed_path_is_pinned_and_results_through_a_link_are_not_writable() {
    if !bwrap_works() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::create_dir_all(p.join("tests/sealed")).unwrap();
    fs::write(
        p.join("tests/sealed/test_a.py"),
        "def test_a():\n    assert True\n",
    )
    .unwrap();
    let o = run_in(p, &["seal", "tests/sealed", "-o", "seal.json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    std::os::unix::fs::symlink(outside.path(), p.join("reports")).unwrap();
    fs::write(
        p.join("run.sh"),
        format!(
            "mv tests .tests_sealed && echo MOVED >&2 || echo MOVE-REFUSED >&2
echo '{PASSING}' > reports/r.json || echo RESULTS-REFUSED >&2
echo '{PASSING}' > results.json
"
        ),
    )
    .unwrap();
    for workspace in ["inplace", "copy"] {
        let o = run_in(
            p,
            &[
                "run",
                "--seal",
                "seal.json",
                "--sealed-dir",
                "tests/sealed",
                "--workspace",
                workspace,
                "--sandbox",
                "bwrap",
                "--results",
                "results.json",
                "--results",
                "reports/r.json",
                "--",
                "sh",
                "run.sh",
            ],
        );
        let err = stderr(&o);
        assert!(
            err.contains("MOVE-REFUSED"),
            "--workspace {workspace}: {err}"
        );
        assert!(!err.contains("MOVED\n"), "{err}");
        assert!(err.contains("RESULTS-REFUSED"), "{err}");
        assert!(!outside.path().join("r.json").exists());
        if workspace == "inplace" {
            // (The copy leaves out a link out of the project: no such directory there.)
            let r = json_of(&o);
            let notes = r["gapscore"]["runner"]["notes"].to_string();
            assert!(notes.contains("reads as missing"), "{notes}");
        }
    }
    assert!(p.join("tests/sealed/test_a.py").is_file());
}
