//! The Rust plugin template, loaded as a real plugin file through `--plugin`, `--plugin-dir` and
//! `GAPSCORE_PLUGIN_PATH`, then used by `score` and `parse` with format detection.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_gapscore");

/// The template's cdylib, built by cargo because the crate is a dev-dependency, copied into a
/// fresh directory (a loaded library must never be overwritten in place).
fn plugin() -> (tempfile::TempDir, PathBuf) {
    let built = gapscore_adapter_testing::built_cdylib("gapscore-adapter-template");
    let file = built.file_name().unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join(&file);
    std::fs::copy(built, &dest).unwrap();
    (dir, dest)
}

fn fixture(kind: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../adapters/examples/rust-template/tests/fixtures")
        .join(kind)
        .join(name)
}

fn run(args: &[&str], env: Option<(&str, &Path)>) -> Output {
    let mut c = Command::new(BIN);
    c.args(args).env_remove("GAPSCORE_PLUGIN_PATH");
    if let Some((k, v)) = env {
        c.env(k, v);
    }
    c.output().unwrap()
}

#[test]
fn the_template_plugin_scores_through_every_discovery_route() {
    let (dir, so) = plugin();
    let csv = fixture("valid", "standard.template.csv");
    let (so_s, csv_s, dir_s) = (
        so.to_str().unwrap(),
        csv.to_str().unwrap(),
        dir.path().to_str().unwrap(),
    );
    for (args, env) in [
        (
            vec![
                "score", "--plugin", so_s, "--sealed", csv_s, "--format", "summary",
            ],
            None,
        ),
        (
            vec![
                "score",
                "--plugin-dir",
                dir_s,
                "--sealed",
                csv_s,
                "--format",
                "summary",
            ],
            None,
        ),
        (
            vec!["score", "--sealed", csv_s, "--format", "summary"],
            Some(("GAPSCORE_PLUGIN_PATH", dir.path())),
        ),
    ] {
        let o = run(&args, env);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            out.starts_with("Shadow Score: 75.0% 🔴 (critical)\nSealed: 1/4 passed\n"),
            "{out}"
        );
    }
    let o = run(&["adapters", "--plugin", so_s], None);
    let list = String::from_utf8(o.stdout).unwrap();
    assert!(
        list.lines().any(|l| l.starts_with("template ")
            && l.contains("template-csv")
            && l.ends_with(&format!("plugin {so_s}"))),
        "{list}"
    );
    // Without the plugin the file is not recognised.
    let o = run(&["score", "--sealed", csv_s], None);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn plugin_parse_errors_name_the_file_and_place() {
    let (_dir, so) = plugin();
    let bad = fixture("invalid", "unknown-status.template.csv");
    let o = run(
        &[
            "parse",
            "--plugin",
            so.to_str().unwrap(),
            "--input-format",
            "template-csv",
            bad.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains(&format!(
            "error: {}:2:3: unknown status `great`",
            bad.display()
        )),
        "{err}"
    );
}
