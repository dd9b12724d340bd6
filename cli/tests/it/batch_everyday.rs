//! `gapscore batch` in everyday use (issue 20): the page's bars on the level boundaries in the
//! level colours, the threshold, links to the reports and the footer; Markdown-safe names in
//! `summary.md`; problems with their suite; an `--out` inside ROOT; a bad `gapscore.toml` with
//! its line and column; a ROOT named `merge`; singular counts.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{code, run_in, stderr};

/// A repository `root/name` whose sealed results are `total` tests, `failed` of them failing.
fn repo(root: &Path, name: &str, total: usize, failed: usize) {
    let dir = root.join(name).join("sealed");
    fs::create_dir_all(&dir).unwrap();
    let tests: Vec<String> = (0..total)
        .map(|i| {
            let status = if i < failed { "failed" } else { "passed" };
            format!(r#"{{"name": "t{i}", "status": "{status}"}}"#)
        })
        .collect();
    fs::write(
        dir.join("results.json"),
        format!(r#"{{"tests": [{}]}}"#, tests.join(", ")),
    )
    .unwrap();
}

fn rows(out: &Path) -> Vec<Value> {
    fs::read_to_string(out.join("results.ndjson"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_page_has_level_bars_the_threshold_links_and_a_footer() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("runs");
    repo(&root, "perfect", 10, 0);
    repo(&root, "minor", 10, 1); // 10.0
    repo(&root, "moderate", 5, 1); // 20.0
    repo(&root, "significant", 5, 2); // 40.0
    repo(&root, "critical a", 5, 3); // 60.0
    fs::create_dir_all(root.join("broken/sealed")).unwrap();
    fs::write(root.join("broken/sealed/x.log"), "not a result").unwrap();
    let o = run_in(
        tmp.path(),
        &["batch", "runs", "-o", "out", "--threshold", "15"],
    );
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    let html = fs::read_to_string(tmp.path().join("out/report.html")).unwrap();
    for (label, level, colour) in [
        ("0", "perfect", "#2e7d32"),
        ("≤15", "minor", "#7cb342"),
        ("≤30", "moderate", "#fbc02d"),
        ("≤50", "significant", "#f57c00"),
        ("&gt;50", "critical", "#c62828"),
        ("error", "error", "#757575"),
    ] {
        let bar = format!("fill=\"{colour}\"><title>{label} ({level}): 1 repository</title>");
        assert!(html.contains(&bar), "no bar {bar}:\n{html}");
    }
    assert!(
        html.contains("<p id=\"threshold\">Threshold 15: 3 repositories above it.</p>"),
        "{html}"
    );
    assert!(
        html.contains("<a href=\"reports/critical%20a.json\">critical a</a>"),
        "{html}"
    );
    assert!(tmp.path().join("out/reports/critical a.json").is_file());
    // An error row has no report to link to.
    assert!(!html.contains("reports/broken.json"), "{html}");
    let footer = format!(
        "<footer><p>Written by gapscore {}; batch run at 2023-11-14T22:13:20Z.</p></footer>",
        env!("CARGO_PKG_VERSION")
    );
    assert!(html.contains(&footer), "{html}");

    // A merged run shows the same footer: the time comes from the reports.
    let o = run_in(tmp.path(), &["batch", "merge", "out", "-o", "merged"]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    let merged = fs::read_to_string(tmp.path().join("merged/report.html")).unwrap();
    assert!(merged.contains(&footer), "{merged}");
}

#[test]
fn summary_md_escapes_markdown_and_html_in_names() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("runs");
    let name = "a_b*c [x](javascript:y) <img src=z> |p`q";
    repo(&root, name, 2, 1);
    let o = run_in(tmp.path(), &["batch", "runs", "-o", "out"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let md = fs::read_to_string(tmp.path().join("out/summary.md")).unwrap();
    let escaped = r"a\_b\*c \[x\](javascript:y) &lt;img src=z&gt; \|p\`q";
    assert!(md.contains(&format!("| {escaped} | 50.0 |")), "{md}");
    assert!(!md.contains("<img"), "{md}");
}

#[test]
fn problems_carry_the_suite_and_the_role() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("runs/r/sealed");
    fs::create_dir_all(&dir).unwrap();
    // A JUnit suite that declares three tests and holds one.
    fs::write(
        dir.join("junit.xml"),
        r#"<testsuites><testsuite name="pkg.calc" tests="3"><testcase classname="pkg.calc" name="adds"/></testsuite></testsuites>"#,
    )
    .unwrap();
    let o = run_in(tmp.path(), &["batch", "runs", "-o", "out"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let row = &rows(&tmp.path().join("out"))[0];
    let p = &row["problems"][0];
    assert_eq!(p["role"], "sealed", "{row}");
    assert_eq!(p["suite"], "pkg.calc", "{row}");
}

#[test]
fn an_out_directory_inside_root_is_not_a_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("runs");
    repo(&root, "alpha", 2, 0);
    for _ in 0..2 {
        let o = run_in(tmp.path(), &["batch", "runs", "-o", "runs/out"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let rows = rows(&root.join("out"));
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert_eq!(rows[0]["name"], "alpha");
    }
}

#[test]
fn a_bad_gapscore_toml_names_its_line_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("runs");
    repo(&root, "alpha", 2, 0);
    fs::write(
        root.join("alpha/gapscore.toml"),
        "xfail = \"fail\"\nskipped = \"sometimes\"\n",
    )
    .unwrap();
    let o = run_in(tmp.path(), &["batch", "runs", "-o", "out"]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    let row = &rows(&tmp.path().join("out"))[0];
    let error = row["error"].as_str().unwrap();
    assert!(error.contains("gapscore.toml:2:11: "), "{error}");
}

#[test]
fn a_root_named_merge_is_scored_and_counts_are_singular() {
    let tmp = tempfile::tempdir().unwrap();
    repo(&tmp.path().join("merge"), "alpha", 2, 1);
    let o = run_in(tmp.path(), &["batch", "merge", "-o", "out"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.starts_with("1 repository: 1 scored"), "{err}");
    assert_eq!(rows(&tmp.path().join("out"))[0]["name"], "alpha");
    let md = fs::read_to_string(tmp.path().join("out/summary.md")).unwrap();
    assert!(md.starts_with("## Gap Score batch: 1 repository\n"), "{md}");
    let html = fs::read_to_string(tmp.path().join("out/report.html")).unwrap();
    assert!(
        html.contains("<h1>Gap Score batch: 1 repository</h1>"),
        "{html}"
    );
    // `batch merge DIR...` is still the subcommand.
    let o = run_in(tmp.path(), &["batch", "merge", "out", "-o", "merged"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(rows(&tmp.path().join("merged"))[0]["name"], "alpha");
}
