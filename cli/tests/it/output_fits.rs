//! Output fits where it goes (issue 20): the Markdown report stays within GitHub's 65,536
//! characters for a comment or job summary, with the failures past its budget counted per suite
//! inside `<details>`; `--max-failures N` cuts the Markdown and summary lists (and is refused
//! for JSON, whose `failures` must list every failed sealed test); the summary cuts long
//! messages with a note.

use std::fs;
use std::path::Path;

use crate::common::{code, json_of, run_in, stderr, stdout};

/// A simple-format file with `n` failing tests spread over three suites, each message
/// `msg_len` bytes long.
fn write_failures(dir: &Path, n: usize, msg_len: usize) {
    let tests: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let suite = ["api", "cli", "core"][i % 3];
            serde_json::json!({
                "name": format!("test_{i:05}"),
                "suite": suite,
                "status": "failed",
                "message": format!("{i}: {}", "x".repeat(msg_len)),
                "expected": "exit 0",
                "actual": "exit 1",
            })
        })
        .collect();
    fs::write(
        dir.join("sealed.json"),
        serde_json::json!({ "tests": tests }).to_string(),
    )
    .unwrap();
}

#[test]
fn markdown_stays_under_githubs_limit_and_counts_the_rest_per_suite() {
    let dir = tempfile::tempdir().unwrap();
    write_failures(dir.path(), 3000, 100);
    let o = run_in(
        dir.path(),
        &["score", "--sealed", "sealed.json", "--format", "markdown"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let md = stdout(&o);
    assert!(
        md.chars().count() < 65_536,
        "{} characters",
        md.chars().count()
    );
    // Counts people read group thousands (issue 35).
    assert!(md.contains("## Failures (3,000)"), "{md}");
    let grouped = |n: usize| {
        let s = n.to_string();
        if n >= 1000 {
            format!("{},{}", &s[..s.len() - 3], &s[s.len() - 3..])
        } else {
            s
        }
    };
    let shown = md.matches("### ❌ `").count();
    assert!(shown > 50 && shown < 3000, "{shown} shown");
    let rest = 3000 - shown;
    assert!(
        md.contains(&format!("_{} more failures are not shown in full (GitHub's limit of 65536 characters for a comment or job summary); the JSON report lists every one._", grouped(rest))),
        "{md}"
    );
    assert!(md.contains(&format!(
        "<details><summary>{} more failures in 3 suites</summary>",
        grouped(rest)
    )));
    // The three suites' counts add up to what was left out.
    let counted: u64 = ["api", "cli", "core"]
        .iter()
        .map(|s| {
            let row = md
                .lines()
                .find(|l| l.starts_with(&format!("| {s} | ")))
                .unwrap();
            row.trim_end_matches(" |")
                .rsplit(' ')
                .next()
                .unwrap()
                .replace(',', "")
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    assert_eq!(counted as usize, rest);
    assert!(md.trim_end().ends_with("</sub>"), "the footer is kept");
    // The JSON report still lists every failure.
    let o = run_in(dir.path(), &["score", "--sealed", "sealed.json"]);
    assert_eq!(json_of(&o)["failures"].as_array().unwrap().len(), 3000);
}

#[test]
fn max_failures_cuts_markdown_and_summary_and_is_refused_for_json() {
    let dir = tempfile::tempdir().unwrap();
    write_failures(dir.path(), 7, 10);
    let o = run_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            "sealed.json",
            "--format",
            "summary",
            "--max-failures",
            "2",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Failures (7):"), "{text}");
    assert_eq!(text.matches("  ❌ ").count(), 2, "{text}");
    assert!(
        text.contains("  … 5 more not shown (--max-failures 2); the JSON report lists every one"),
        "{text}"
    );
    let o = run_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            "sealed.json",
            "--format",
            "markdown",
            "--max-failures",
            "2",
        ],
    );
    let md = stdout(&o);
    assert_eq!(md.matches("### ❌ `").count(), 2, "{md}");
    assert!(
        md.contains("_5 more failures are not shown in full (`--max-failures 2`)"),
        "{md}"
    );
    assert!(
        md.contains("<details><summary>5 more failures in 3 suites</summary>"),
        "{md}"
    );
    let o = run_in(
        dir.path(),
        &["score", "--sealed", "sealed.json", "--max-failures", "2"],
    );
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("--max-failures 2 cuts only the Markdown and summary formats"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());
}

#[test]
fn summary_cuts_a_long_message_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    write_failures(dir.path(), 1, 5000);
    let o = run_in(
        dir.path(),
        &["score", "--sealed", "sealed.json", "--format", "summary"],
    );
    let text = stdout(&o);
    let line = text.lines().find(|l| l.starts_with("  ❌ ")).unwrap();
    assert!(line.len() < 300, "{line}");
    assert!(line.ends_with("… [cut: 4803 more characters]"), "{line}");
}
