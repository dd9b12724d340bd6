//! Shell completions, the man page, and each command's help closing on examples that work:
//! every example line is run, in order, from a scratch directory with the repository's files
//! given by absolute path.

use std::fs;

use crate::common::{code, repo_path, run_in, stderr, stdout};

/// Every command with examples, in an order in which each one's examples find what an earlier
/// one wrote (`batch merge` merges the shards `batch` wrote).
const COMMANDS: &[&[&str]] = &[
    &["score"],
    &["run"],
    &["parse"],
    &["adapters"],
    &["seal"],
    &["schema"],
    &["feedback"],
    &["harden", "record"],
    &["check"],
    &["batch"],
    &["batch", "merge"],
    &["completions"],
    &["man"],
    &["explain"],
    &["new-adapter"],
];

/// The examples at the end of a help text: `  gapscore ...` after `Examples`, each going on
/// over the lines that follow a ` \`, indented further.
fn examples(help: &str) -> Vec<String> {
    let Some(start) = help.find("Examples") else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    for line in help[start..].lines().skip(1) {
        if open && line.starts_with("    ") {
            out.last_mut().unwrap().push_str(line.trim());
        } else if line.starts_with("  gapscore ") {
            out.push(line.trim().to_owned());
        } else {
            break;
        }
        open = line.ends_with(" \\");
        if open {
            let last = out.last_mut().unwrap();
            last.truncate(last.len() - 1);
        }
    }
    out
}

#[test]
fn every_help_ends_with_examples_that_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for command in COMMANDS {
        let mut args = command.to_vec();
        args.push("--help");
        let o = run_in(dir, &args);
        assert_eq!(code(&o), 0, "{command:?}");
        let help = stdout(&o);
        let lines = examples(&help);
        assert!(
            (1..=3).contains(&lines.len()),
            "{command:?}: {} examples:\n{help}",
            lines.len()
        );
        for line in lines {
            // Repository files by absolute path; everything written lands in `dir`.
            let words: Vec<String> = line
                .split_whitespace()
                .skip(1)
                .map(|w| {
                    let shipped = repo_path(w);
                    if w.contains('/') && shipped.exists() {
                        shipped.to_str().unwrap().to_owned()
                    } else {
                        w.to_owned()
                    }
                })
                .collect();
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            let o = run_in(dir, &words);
            assert!(
                code(&o) <= 1 && !stderr(&o).contains("error:"),
                "`{line}` exited {}:\n{}",
                code(&o),
                stderr(&o)
            );
        }
    }
    assert!(dir.join("report.md").is_file());
    assert!(dir.join("merged/summary.csv").is_file());
    assert!(dir.join("man/gapscore-score.1").is_file());
}

#[test]
fn completions_for_every_shell() {
    let tmp = tempfile::tempdir().unwrap();
    for (shell, sign) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef gapscore"),
        ("fish", "complete -c gapscore"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let o = run_in(tmp.path(), &["completions", shell]);
        assert_eq!(code(&o), 0, "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        assert!(script.contains(sign), "{shell}: {script}");
        for word in ["score", "--input-format", "check"] {
            assert!(script.contains(word), "{shell}: no `{word}`");
        }
    }
    let o = run_in(tmp.path(), &["completions", "tcsh"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn man_page_printed_or_written_per_command() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run_in(tmp.path(), &["man"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.contains(".TH gapscore 1"), "{page}");
    for word in ["score", "check", "completions"] {
        assert!(page.contains(word), "no `{word}`");
    }
    let o = run_in(tmp.path(), &["man", "--dir", "pages"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let pages = tmp.path().join("pages");
    for name in [
        "gapscore.1",
        "gapscore-score.1",
        "gapscore-check.1",
        "gapscore-harden-record.1",
    ] {
        let text = fs::read_to_string(pages.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(text.starts_with(".ie") || text.contains(".TH"), "{name}");
    }
    // The check page carries its examples.
    let check = fs::read_to_string(pages.join("gapscore-check.1")).unwrap();
    assert!(check.contains("Examples"), "{check}");
}

/// `--version` names the commit the binary was built from (cli/build.rs): in a git checkout,
/// HEAD's 12-digit abbreviation, which the build script reruns for when HEAD moves.
#[test]
fn version_names_the_commit_it_was_built_from() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run_in(tmp.path(), &["--version"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let line = stdout(&o);
    let shape = regex::Regex::new(&format!(
        r"^gapscore {} \((commit [0-9a-zA-Z._-]+|unknown commit)\)\n$",
        regex::escape(env!("CARGO_PKG_VERSION"))
    ))
    .unwrap();
    assert!(shape.is_match(&line), "{line:?}");
    assert_eq!(stdout(&run_in(tmp.path(), &["-V"])), line);

    let root = repo_path("");
    let head = std::process::Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["rev-parse", "--short=12", "HEAD"])
        .output();
    if let Ok(head) = head
        && head.status.success()
        && root.join(".git").exists()
    {
        let head = String::from_utf8(head.stdout).unwrap();
        let built_from = format!("(commit {}", head.trim());
        assert!(line.contains(&built_from), "{line:?} is not HEAD {head}");
    }
}
