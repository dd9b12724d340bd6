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
        if inside && let Some(long) = line.split_whitespace().find(|w| w.starts_with("--")) {
            flags.push(long.trim_end_matches(',').to_owned());
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
            flags_under(&help, heading)
                .iter()
                .any(|f| f.starts_with(flag)),
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
            flags_under(&help, heading)
                .iter()
                .any(|f| f.starts_with(flag)),
            "{command}: {flag} is not under {heading}:\n{help}"
        );
        let ungrouped = flags_under(&help, "Options");
        assert!(
            ungrouped.iter().all(|f| f == "--help" || f == "--version"),
            "{command}: {ungrouped:?}"
        );
    }
}

/// The help of one flag (`--name`) in a help text: its lines up to the next flag or heading.
fn flag_help(help: &str, flag: &str) -> String {
    let mut text = String::new();
    let mut inside = false;
    for line in help.lines() {
        let trimmed = line.trim_start();
        // A flag's own line is indented by 2 or 6 spaces; its text by more.
        let indent = line.len() - trimmed.len();
        let starts_flag = trimmed.starts_with('-') && (2..=6).contains(&indent);
        if starts_flag || !line.starts_with(' ') {
            inside = starts_flag
                && trimmed
                    .split_whitespace()
                    .any(|w| w.trim_end_matches(',') == flag);
        }
        if inside {
            text.push_str(trimmed);
            text.push(' ');
        }
    }
    assert!(!text.is_empty(), "no {flag} in:\n{help}");
    text
}

#[test]
fn item09_score_history_help_says_it_needs_max_cycles() {
    let help = stdout(&gapscore(&["score", "--help"]));
    assert!(
        flag_help(&help, "--history").contains("--max-cycles"),
        "{}",
        flag_help(&help, "--history")
    );
    // And the error says what is missing.
    let o = gapscore(&[
        "score",
        "--sealed",
        "conformance-tests/upstream/examples/02-minor-gaps/sealed-results.json",
        "--history",
        "history.json",
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--max-cycles"), "{}", stderr(&o));
}

#[test]
fn item09_score_seal_record_alone_is_accepted_as_in_batch() {
    let record = "conformance-tests/fixtures/evidence/l3-seal-record-only/seal.json";
    let o = gapscore(&[
        "score",
        "--sealed",
        "conformance-tests/upstream/examples/02-minor-gaps/sealed-results.json",
        "--seal",
        record,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let seal: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(common::repo_path(record)).unwrap()).unwrap();
    let hash = seal["hash"].as_str().unwrap();
    assert!(
        report["report"]["sealed_hash"]
            .as_str()
            .unwrap()
            .ends_with(hash.trim_start_matches("sha256:")),
        "{report}"
    );
    assert!(
        stderr(&o).contains("no directory was checked"),
        "{}",
        stderr(&o)
    );
    let help = stdout(&gapscore(&["score", "--help"]));
    assert!(flag_help(&help, "--seal").contains("Without --sealed-dir"));
}

#[test]
fn item09_score_with_a_bare_file_suggests_sealed() {
    let o = gapscore(&["score", "node.tap"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("tip:") && stderr(&o).contains("--sealed node.tap"),
        "{}",
        stderr(&o)
    );
}

/// A report `gapscore score` writes for these sealed results (no seal, no hardening: level 1
/// holds, levels 2 and 3 do not).
fn level1_report(dir: &std::path::Path) -> std::path::PathBuf {
    let report = dir.join("rep.json");
    let o = gapscore(&[
        "score",
        "--sealed",
        "conformance-tests/upstream/examples/03-critical-gaps/sealed-results.json",
        "-o",
        report.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    report
}

#[test]
fn item10_check_level_1_shows_only_what_bears_on_level_1() {
    let dir = tempfile::tempdir().unwrap();
    let report = level1_report(dir.path());
    let o = gapscore(&["check", report.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let text = stdout(&o);
    assert!(!text.contains("[X ]"), "{text}");
    assert!(
        !text.contains("Level 2") && !text.contains("Level 3"),
        "{text}"
    );
    assert!(!text.contains("error "), "{text}");
    assert!(
        text.contains("findings above level 1 not shown (--level 3 to see them)"),
        "{text}"
    );
    // Asked for level 3, they are shown.
    let o = gapscore(&["check", "--level", "3", report.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("[X ] failed"), "{}", stdout(&o));
}

#[test]
fn item10_check_github_annotates_only_the_level_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let report = level1_report(dir.path());
    let o = gapscore(&["check", "--format", "github", report.to_str().unwrap()]);
    assert_eq!(code(&o), 0);
    let text = stdout(&o);
    assert!(!text.contains("::error"), "{text}");
    assert!(text.contains("above level 1 not shown"), "{text}");
    let o = gapscore(&[
        "check",
        "--format",
        "github",
        "--level",
        "2",
        report.to_str().unwrap(),
    ]);
    assert!(stdout(&o).contains("::error"), "{}", stdout(&o));
}

/// `ROOT/<name>/sealed/results.json` from an upstream example, for each name.
fn batch_tree(root: &std::path::Path, names: &[&str]) {
    let results =
        common::repo_path("conformance-tests/upstream/examples/02-minor-gaps/sealed-results.json");
    for name in names {
        let sealed = root.join(name).join("sealed");
        std::fs::create_dir_all(&sealed).unwrap();
        std::fs::copy(&results, sealed.join("results.json")).unwrap();
    }
}

/// `gapscore ARGS` in `dir`.
fn gapscore_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(common::bin())
        .args(args)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap()
}

#[test]
fn item08_batch_leaves_out_notes_beside_results_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("runs");
    batch_tree(&root, &["alpha"]);
    std::fs::write(
        root.join("alpha/sealed/notes.txt"),
        "Run on the CI box, 3 May.\n",
    )
    .unwrap();
    std::fs::write(root.join("alpha/sealed/README.md"), "# Sealed results\n").unwrap();
    let o = gapscore_in(dir.path(), &["batch", "runs", "-o", "out"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("alpha: runs/alpha/sealed/notes.txt: not read")
            && err.contains("runs/alpha/sealed/README.md: not read"),
        "{err}"
    );
    let csv = std::fs::read_to_string(dir.path().join("out/summary.csv")).unwrap();
    assert!(
        csv.contains("alpha,11.1,minor,18,16,2,,,,false,left-out:2,"),
        "{csv}"
    );
    let rows = std::fs::read_to_string(dir.path().join("out/results.ndjson")).unwrap();
    let row: serde_json::Value = serde_json::from_str(rows.lines().next().unwrap()).unwrap();
    assert_eq!(row["left_out"].as_array().map(Vec::len), Some(2), "{row}");
}

#[test]
fn item08_batch_anything_that_may_be_results_stays_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("runs");
    batch_tree(&root, &["alpha"]);
    // Test output no reader recognises, named like notes: it may hold the failures.
    std::fs::write(root.join("alpha/sealed/notes.txt"), "test_a FAILED\n").unwrap();
    // A repository of notes only has no results.
    std::fs::create_dir_all(root.join("beta/sealed")).unwrap();
    std::fs::write(root.join("beta/sealed/README.md"), "# nothing yet\n").unwrap();
    let o = gapscore_in(dir.path(), &["batch", "runs", "-o", "out"]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    let csv = std::fs::read_to_string(dir.path().join("out/summary.csv")).unwrap();
    assert!(csv.contains("notes.txt: no adapter recognises it"), "{csv}");
    assert!(csv.contains("beta,,,,,,,,,,,\"no sealed results"), "{csv}");
}

/// The GitHub Actions workflow shown in docs/batch.md.
fn batch_workflow() -> String {
    let doc = std::fs::read_to_string(common::repo_path("docs/batch.md")).unwrap();
    let at = doc.find("A CI matrix (GitHub Actions").unwrap();
    let start = doc[at..].find("```yaml").unwrap() + at + "```yaml".len();
    let end = doc[start..].find("```").unwrap() + start;
    doc[start..end].to_owned()
}

#[test]
fn item08_batch_actions_example_is_complete() {
    let yaml = batch_workflow();
    // Each job: a runner, an install step; the scoring job checks the repository out.
    let mut jobs: Vec<String> = Vec::new();
    let after = &yaml[yaml.find("\njobs:\n").unwrap() + 7..];
    for line in after.lines() {
        // A job opens at two spaces of indentation.
        if line.starts_with("  ") && !line.starts_with("   ") {
            jobs.push(String::new());
        }
        if let Some(job) = jobs.last_mut() {
            job.push_str(line);
            job.push('\n');
        }
    }
    assert!(jobs.len() >= 2, "{yaml}");
    for job in &jobs {
        assert!(job.contains("runs-on:"), "no runs-on in:\n{job}");
        assert!(
            job.contains("install gapscore"),
            "no install step in:\n{job}"
        );
    }
    assert!(jobs[0].contains("uses: actions/checkout@"), "{yaml}");
    // No flow mapping holding `${{ }}`: that is not YAML.
    assert!(
        !yaml.lines().any(|l| l.contains(": {") && l.contains("${{")),
        "{yaml}"
    );
    // Its gapscore steps run, for every shard, then the merge.
    let dir = tempfile::tempdir().unwrap();
    batch_tree(
        &dir.path().join("runs"),
        &["alpha", "beta", "gamma", "delta", "epsilon"],
    );
    let steps: Vec<String> = yaml
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("- run: gapscore "))
        .map(|l| l.split(" || ").next().unwrap().to_owned())
        .collect();
    assert_eq!(steps.len(), 2, "{yaml}");
    for shard in 1..=4 {
        let cmd = steps[0].replace("${{ matrix.shard }}", &shard.to_string());
        let args: Vec<&str> = cmd.split_whitespace().collect();
        let o = gapscore_in(dir.path(), &args);
        assert_ne!(code(&o), 2, "{cmd}: {}", stderr(&o));
    }
    let args: Vec<&str> = steps[1].split_whitespace().collect();
    let o = gapscore_in(dir.path(), &args);
    assert_eq!(code(&o), 0, "{}: {}", steps[1], stderr(&o));
    assert!(dir.path().join("batch/summary.md").is_file());
}

/// A JUnit file: per suite, its name, its number of tests and how many of them fail.
fn junit(suites: &[(&str, usize, usize)]) -> String {
    let mut xml = String::from("<testsuites>\n");
    for (name, tests, failed) in suites {
        xml.push_str(&format!("<testsuite name=\"{name}\">\n"));
        for i in 0..*tests {
            if i < *failed {
                xml.push_str(&format!(
                    "<testcase classname=\"{name}\" name=\"t{i}\"><failure message=\"no\"/></testcase>\n"
                ));
            } else {
                xml.push_str(&format!("<testcase classname=\"{name}\" name=\"t{i}\"/>\n"));
            }
        }
        xml.push_str("</testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

#[test]
fn item12_counts_people_read_have_thousands_separators() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.xml"), junit(&[("big", 1500, 500)])).unwrap();
    let o = gapscore_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            "big.xml",
            "--format",
            "summary",
            "--max-failures",
            "1",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Sealed: 1,000/1,500 passed"), "{text}");
    assert!(text.contains("Failures (500)"), "{text}");
    let o = gapscore_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            "big.xml",
            "--format",
            "markdown",
            "--max-failures",
            "1",
        ],
    );
    assert!(
        stdout(&o).contains("| Sealed | 1,500 | 1,000 | 500 |"),
        "{}",
        stdout(&o)
    );
    // JSON keeps plain numbers.
    let o = gapscore_in(dir.path(), &["score", "--sealed", "big.xml"]);
    assert!(stdout(&o).contains("\"total\": 1500"), "{}", stdout(&o));
}

#[test]
fn item12_markdown_suites_by_failures_then_natural_name() {
    let dir = tempfile::tempdir().unwrap();
    let xml = junit(&[
        ("suite0", 2, 0),
        ("suite1", 2, 1),
        ("suite10", 4, 3),
        ("suite2", 2, 1),
    ]);
    std::fs::write(dir.path().join("s.xml"), xml).unwrap();
    let o = gapscore_in(
        dir.path(),
        &["score", "--sealed", "s.xml", "--format", "markdown"],
    );
    let md = stdout(&o);
    let table = &md[md.find("## Sealed suites").expect(&md)..];
    let order: Vec<&str> = table
        .lines()
        .take_while(|l| !l.starts_with("## Failures"))
        .filter(|l| l.starts_with("| "))
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter(|w| w.starts_with("suite"))
        .collect();
    assert_eq!(order, ["suite10", "suite1", "suite2", "suite0"], "{table}");
}

#[test]
fn item12_ascii_marks_and_colour_on_request_never_in_files() {
    let sealed = "conformance-tests/upstream/examples/02-minor-gaps/sealed-results.json";
    let o = gapscore(&[
        "score", "--sealed", sealed, "--format", "summary", "--ascii",
    ]);
    let text = stdout(&o);
    assert!(text.contains("  [x] test_rejects_gpl_dependency"), "{text}");
    assert!(!text.contains('❌') && !text.contains('🟢'), "{text}");
    let o = gapscore(&[
        "score", "--sealed", sealed, "--format", "summary", "--color", "always",
    ]);
    assert!(
        stdout(&o).contains("\u{1b}[31m❌\u{1b}[0m"),
        "{}",
        stdout(&o)
    );
    // A pipe gets none by default, and NO_COLOR is honoured.
    let o = gapscore(&["score", "--sealed", sealed, "--format", "summary"]);
    assert!(!stdout(&o).contains('\u{1b}'));
    let o = Command::new(common::bin())
        .args(["score", "--sealed", sealed, "--format", "summary"])
        .current_dir(common::repo_path(""))
        .env("CLICOLOR_FORCE", "1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!stdout(&o).contains('\u{1b}'), "{}", stdout(&o));
    // A file never does, even when forced; JSON never changes.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.txt");
    let o = gapscore(&[
        "score",
        "--sealed",
        sealed,
        "--format",
        "summary",
        "--color",
        "always",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!std::fs::read_to_string(&out).unwrap().contains('\u{1b}'));
    let o = gapscore(&["score", "--sealed", sealed, "--color", "always", "--ascii"]);
    assert!(!stdout(&o).contains('\u{1b}') && stdout(&o).contains("\"shadow_score\""));
}

#[test]
fn item12_a_terminal_without_utf8_gets_ascii_marks_in_colour() {
    // A pseudo-terminal through util-linux `script`.
    if !common::runner_available("script", &["--version"]) {
        return;
    }
    let sealed = "conformance-tests/upstream/examples/02-minor-gaps/sealed-results.json";
    let o = Command::new("script")
        .args([
            "-qec",
            &format!("{} score --sealed {sealed} --format summary", common::bin()),
            "/dev/null",
        ])
        .current_dir(common::repo_path(""))
        .env("LANG", "C")
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE")
        .env_remove("NO_COLOR")
        .env("TERM", "xterm")
        .output()
        .unwrap();
    let text = stdout(&o);
    assert!(
        text.contains("\u{1b}[31m[x]\u{1b}[0m test_rejects_gpl_dependency"),
        "{text}"
    );
    assert!(!text.contains('❌'), "{text}");
}
