//! `gapscore score` and `gapscore batch` score through the one engine: the same repository gives
//! byte-identical reports either way (issue 17).

use std::fs;
use std::path::Path;

use crate::common::{code, run_in, stdout};

fn copy(from: &str, to: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    fs::copy(root.join(from), to).unwrap();
}

/// One repository in batch's layout: sealed results in two formats (with failures, a skip and a
/// run-level problem), open results, a seal record over its sealed tests, category rules and a
/// status policy in `gapscore.toml`.
fn repository(root: &Path) {
    let repo = root.join("tree/acme");
    copy(
        "adapters/junit/tests/fixtures/valid/declared-counts-disagree.xml",
        &repo.join("sealed/junit.xml"),
    );
    copy(
        "adapters/pytest/tests/fixtures/valid/json-report-collection-error-zero-total.json",
        &repo.join("sealed/pytest.json"),
    );
    copy(
        "conformance-tests/upstream/examples/02-minor-gaps/open-results.json",
        &repo.join("open/open.json"),
    );
    fs::create_dir_all(repo.join("sealed-tests")).unwrap();
    fs::write(
        repo.join("sealed-tests/test_api.py"),
        "def test_api():\n    assert True\n",
    )
    .unwrap();
    fs::write(
        repo.join("rules.toml"),
        "[[rule]]\ncategory = \"edge_case\"\nname = \".\"\n",
    )
    .unwrap();
    fs::write(
        repo.join("gapscore.toml"),
        "skipped = \"exclude\"\ncategories = \"rules.toml\"\nsealed_dir = \"sealed-tests\"\n",
    )
    .unwrap();
    let sealed = run_in(
        root,
        &[
            "seal",
            "tree/acme/sealed-tests",
            "-o",
            "tree/acme/seal.json",
        ],
    );
    assert_eq!(code(&sealed), 0, "{sealed:?}");
}

/// `gapscore batch tree -o out -q EXTRA`: the report it wrote for `acme`.
fn batch_report(root: &Path, extra: &[&str]) -> String {
    // The operator's policy is the repository's: a repository may tighten it, never loosen it.
    let mut args = vec!["batch", "tree", "-o", "out", "-q", "--skipped", "exclude"];
    args.extend_from_slice(extra);
    let batch = run_in(root, &args);
    assert!(
        code(&batch) <= 1,
        "{}",
        String::from_utf8_lossy(&batch.stderr)
    );
    fs::read_to_string(root.join("out/reports/acme.json")).unwrap()
}

/// `gapscore score` with what `acme`'s `gapscore.toml` says and EXTRA: its report.
fn score_report(root: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "score",
        "--sealed",
        "tree/acme/sealed/junit.xml",
        "--sealed",
        "tree/acme/sealed/pytest.json",
        "--open",
        "tree/acme/open/open.json",
        "--skipped",
        "exclude",
        "--categories",
        "tree/acme/rules.toml",
        "--seal",
        "tree/acme/seal.json",
        "--sealed-dir",
        "tree/acme/sealed-tests",
        "--id",
        "acme",
    ];
    args.extend_from_slice(extra);
    let score = run_in(root, &args);
    assert!(
        code(&score) <= 1,
        "{}",
        String::from_utf8_lossy(&score.stderr)
    );
    stdout(&score)
}

#[test]
fn score_and_batch_give_identical_reports_for_one_repository() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    repository(root);

    let from_batch = batch_report(root, &[]);
    let from_score = score_report(root, &["--allow-truncated"]);
    // The repository is not a trivial one: failures, an advisory problem, a seal, categories.
    let report: serde_json::Value = serde_json::from_str(&from_score).unwrap();
    assert!(
        report["sealed_tests"]["failed"].as_u64().unwrap() > 0,
        "{report}"
    );
    assert!(report["report"]["sealed_hash"].is_string(), "{report}");
    assert_eq!(from_score, from_batch);
}

/// Spec v2: a repository's provenance (a file named in its `gapscore.toml`) gives the same
/// report through `batch` as through `score --provenance`.
#[test]
fn score_and_batch_give_identical_v2_reports_with_a_repositorys_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    repository(root);
    fs::write(
        root.join("tree/acme/provenance.toml"),
        "implementer_model = \"m-impl\"\nseal_author_families = [\"openai\"]\nworkspace_isolation = \"strict\"\n[families]\n\"m-impl\" = \"anthropic\"\n",
    )
    .unwrap();
    let config = root.join("tree/acme/gapscore.toml");
    let text = fs::read_to_string(&config).unwrap();
    fs::write(&config, format!("{text}provenance = \"provenance.toml\"\n")).unwrap();

    let from_batch = batch_report(root, &["--spec-version", "2"]);
    let from_score = score_report(
        root,
        &[
            "--spec-version",
            "2",
            "--provenance",
            "tree/acme/provenance.toml",
        ],
    );
    let report: serde_json::Value = serde_json::from_str(&from_score).unwrap();
    assert_eq!(report["report"]["independence"], "strong", "{report}");
    assert_eq!(
        report["report"]["implementer_family"], "anthropic",
        "{report}"
    );
    assert_eq!(from_score, from_batch);
}
