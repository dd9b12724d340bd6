//! Issue 35, the items of the `ux` part (see `round2/mod.rs`).

use std::process::Command;

use crate::common::{self, code, stderr, stdout};

/// `gapscore ARGS` in the repository's root, without the caller's colour and locale settings.
fn gapscore(args: &[&str]) -> std::process::Output {
    Command::new(common::bin())
        .args(args)
        .current_dir(common::repo_path(""))
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("GITHUB_ACTIONS")
        .env("LANG", "C.UTF-8")
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE")
        .output()
        .unwrap()
}

/// The flags (`--name`) listed under `heading:` in a help text, up to the next heading.
fn flags_under(help: &str, heading: &str) -> Vec<String> {
    let mut flags = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            inside = line == format!("{heading}:");
            continue;
        }
        if inside {
            if let Some(long) = line.trim_start().split_whitespace().find(|w| w.starts_with("--")) {
                flags.push(long.trim_end_matches(',').to_owned());
            }
        }
    }
    flags
}

#[test]
fn item10_score_help_is_grouped_under_headings() {
    let o = gapscore(&["score", "-h"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let help = stdout(&o);
    for (heading, flag) in [
        ("Inputs", "--sealed"),
        ("Inputs", "--open"),
        ("Scoring policy", "--threshold"),
        ("Scoring policy", "--skipped"),
        ("Seal", "--seal"),
        ("Seal", "--sealed-dir"),
        ("Output", "--format"),
        ("Output", "--output"),
        ("Provenance", "--implementer-family"),
        ("Plugins", "--plugin"),
    ] {
        assert!(
            flags_under(&help, heading).iter().any(|f| f.starts_with(flag)),
            "{flag} is not under {heading}:\n{help}"
        );
    }
    // Nothing but help and version is left ungrouped.
    let ungrouped = flags_under(&help, "Options");
    assert!(
        ungrouped.iter().all(|f| f == "--help" || f == "--version"),
        "{ungrouped:?}"
    );
}

#[test]
fn item10_run_batch_check_seal_help_are_grouped() {
    for (command, heading, flag) in [
        ("run", "Running", "--timeout"),
        ("run", "Inputs", "--results"),
        ("batch", "Scoring policy", "--threshold"),
        ("batch", "Output", "--output"),
        ("check", "Seal", "--sealed-dir"),
        ("check", "Output", "--format"),
        ("seal", "Seal", "--verify"),
        ("seal", "Output", "--emit"),
    ] {
        let o = gapscore(&[command, "-h"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let help = stdout(&o);
        assert!(
            flags_under(&help, heading).iter().any(|f| f.starts_with(flag)),
            "{command}: {flag} is not under {heading}:\n{help}"
        );
        let ungrouped = flags_under(&help, "Options");
        assert!(
            ungrouped.iter().all(|f| f == "--help" || f == "--version"),
            "{command}: {ungrouped:?}"
        );
    }
}
