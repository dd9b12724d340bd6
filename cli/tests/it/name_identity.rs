//! One identity for names (issue 33): a model family or model disguised by letter case, a
//! zero-width space or a Cyrillic lookalike is the same name to `score` (the report is weak
//! and advisory) and to `check` (a report claiming strong independence for it fails level 4).

use std::fs;

use serde_json::json;

use crate::common::{code, json_of, run_in, stderr, stdout};

#[test]
fn disguised_families_and_models_are_one_name_in_score_and_check() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("results.json"),
        json!({"tests": [
            {"name": "test_a", "status": "passed", "category": "happy_path"},
            {"name": "test_b", "status": "failed", "category": "security", "message": "boom"}
        ]})
        .to_string(),
    )
    .unwrap();
    for (flag, implementer, seal_flag, seal) in [
        (
            "--implementer-family",
            "open\u{200b}ai",
            "--seal-author-family",
            "openai",
        ),
        (
            "--implementer-family",
            "\u{43e}penai",
            "--seal-author-family",
            "OpenAI",
        ),
    ] {
        let o = run_in(
            dir.path(),
            &[
                "score",
                "--sealed",
                "results.json",
                "--spec-version",
                "2",
                flag,
                implementer,
                seal_flag,
                seal,
            ],
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let r = json_of(&o);
        assert_eq!(r["report"]["independence"], "weak", "{implementer:?}");
        assert_eq!(r["report"]["advisory"], true, "{implementer:?}");
    }

    // The same disguise in another tool's report claiming strong independence.
    let report = fs::read_to_string(crate::common::repo_path(
        "conformance-tests/fixtures/reports/valid/l4-v2-strong-independence-plurality.json",
    ))
    .unwrap();
    let mut r: serde_json::Value = serde_json::from_str(&report).unwrap();
    r["report"]["implementer_model"] = json!("GPT-5.6-TERRA");
    fs::write(dir.path().join("report.json"), r.to_string()).unwrap();
    let o = run_in(dir.path(), &["check", "report.json", "--level", "4"]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    assert!(stdout(&o).contains("independence.strong"), "{}", stdout(&o));
    let o = run_in(dir.path(), &["check", "report.json", "--level", "3"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
}

/// A single seal record names its author's family (`seal --author-family`): `score` under it
/// takes that family as the seal author's, so an implementer of the same family (however
/// spelled) is weak independence and advisory, and a declared family that is not the record's
/// is refused, as under a combined record.
#[test]
fn a_single_records_author_family_is_the_seal_authors_in_score() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join("sealed")).unwrap();
    fs::write(root.join("sealed/test_a.py"), "def test_a():\n    pass\n").unwrap();
    fs::write(
        root.join("results.json"),
        json!({"tests": [{"name": "test_a", "status": "passed", "category": "happy_path"}]})
            .to_string(),
    )
    .unwrap();
    let o = run_in(
        root,
        &[
            "seal",
            "sealed",
            "--author-family",
            "OpenAI",
            "-o",
            "seal.json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let score = |extra: &[&str]| {
        let mut args = vec![
            "score",
            "--sealed",
            "results.json",
            "--spec-version",
            "2",
            "--seal",
            "seal.json",
            "--sealed-dir",
            "sealed",
        ];
        args.extend_from_slice(extra);
        run_in(root, &args)
    };
    let o = score(&["--implementer-family", "open\u{200b}ai"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(r["report"]["seal_author_families"], json!(["OpenAI"]));
    assert_eq!(r["report"]["independence"], "weak");
    assert_eq!(r["report"]["advisory"], true);
    let o = score(&["--implementer-family", "anthropic"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(json_of(&o)["report"]["independence"], "strong");
    let o = score(&[
        "--implementer-family",
        "anthropic",
        "--seal-author-family",
        "google",
    ]);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(
        stderr(&o).contains("not the seal record's"),
        "{}",
        stderr(&o)
    );
}
