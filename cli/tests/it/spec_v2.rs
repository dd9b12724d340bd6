//! Spec v2 reports (issue 21): `--spec-version 2` writes every v2 field at its §5.2 path and
//! validates against the bundled v2 schema; weak independence, a broken seal, a truncated
//! specification and a sealed suite that did not run make it advisory (§5.4), and an advisory
//! v2 report is never shown as conformant; level 4 without provenance is refused; a provenance
//! file works families out from its `[families]` table; `run` reports its own workspace
//! isolation; `batch` writes v2 reports too.

use std::fs;
use std::path::Path;

use gapscore_schema::{SchemaId, validate};
use serde_json::{Value, json};

use crate::common::{code, json_of, run_in, stderr, stdout};

const NOT_CONFORMANT: &str = "advisory) — not a conformant Shadow Score (§5.4)";

/// A directory with `results.json`: one passed and one failed sealed test.
fn results() -> tempfile::TempDir {
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
    dir
}

/// `gapscore score --sealed results.json --spec-version 2 EXTRA` in `dir`.
fn score_v2(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["score", "--sealed", "results.json", "--spec-version", "2"];
    args.extend_from_slice(extra);
    run_in(dir, &args)
}

/// Asserts the report validates against the bundled v2 schema and claims 2.0.0.
fn assert_v2(r: &Value) {
    assert_eq!(r["shadow_score_spec_version"], "2.0.0");
    assert!(r["report"].get("seal_families").is_none());
    let errors = validate(SchemaId::ShadowV2, r).unwrap();
    assert!(errors.is_empty(), "{errors:?}\n{r:#}");
}

#[test]
fn strong_independence_writes_every_provenance_field_at_its_path() {
    let dir = results();
    let o = score_v2(
        dir.path(),
        &[
            "--implementer-family",
            "anthropic",
            "--implementer-model",
            "claude-x",
            "--seal-author-family",
            "openai",
            "--seal-author-family",
            "google",
            "--seal-author-model",
            "gpt-y",
            "--workspace-isolation",
            "strict",
            "--conformance-level",
            "4",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_v2(&r);
    let m = &r["report"];
    assert_eq!(m["independence"], "strong");
    assert_eq!(m["implementer_family"], "anthropic");
    assert_eq!(m["implementer_model"], "claude-x");
    assert_eq!(m["seal_author_families"], json!(["openai", "google"]));
    assert_eq!(m["seal_author_models"], json!(["gpt-y"]));
    assert_eq!(m["workspace_isolation"], "strict");
    assert_eq!(m["conformance_level"], 4);
    assert!(m.get("advisory").is_none(), "{r:#}");
    for key in ["independence", "conformance_level", "implementer_family"] {
        assert!(r.get(key).is_none(), "{key} at the root");
    }
}

#[test]
fn the_default_stays_v1_without_provenance() {
    let dir = results();
    let o = run_in(dir.path(), &["score", "--sealed", "results.json"]);
    assert_eq!(code(&o), 0);
    let r = json_of(&o);
    assert_eq!(r["shadow_score_spec_version"], "1.0.0");
    assert!(r["report"].get("independence").is_none());
    // Provenance is a v2 field: asked for without v2 it is refused, not dropped.
    let o = run_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            "results.json",
            "--implementer-family",
            "x",
        ],
    );
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--spec-version 2"), "{}", stderr(&o));
}

#[test]
fn weak_independence_is_advisory_and_never_shown_as_conformant() {
    let dir = results();
    let weak = [
        "--implementer-family",
        "anthropic",
        "--seal-author-family",
        "Anthropic",
        "--seal-author-family",
        "openai",
    ];
    let o = score_v2(dir.path(), &weak);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_v2(&r);
    assert_eq!(r["report"]["independence"], "weak");
    assert_eq!(r["report"]["advisory"], true);
    let reason = r["report"]["advisory_reason"].as_str().unwrap();
    assert!(reason.contains("weak authorship independence"), "{reason}");
    // An advisory report fails a threshold gate it would pass on its score.
    let mut gated = weak.to_vec();
    gated.extend(["--threshold", "60"]);
    assert_eq!(code(&score_v2(dir.path(), &gated)), 1);
    for format in ["summary", "markdown"] {
        let mut args = weak.to_vec();
        args.extend(["--format", format]);
        let o = score_v2(dir.path(), &args);
        assert!(
            stdout(&o).contains(NOT_CONFORMANT),
            "{format}:\n{}",
            stdout(&o)
        );
        assert!(stdout(&o).contains("Independence: weak"), "{}", stdout(&o));
    }
}

#[test]
fn level_4_without_provenance_is_refused() {
    let dir = results();
    for extra in [
        &["--conformance-level", "4"][..],
        &["--conformance-level", "4", "--implementer-family", "a"][..],
        &["--conformance-level", "4", "--seal-author-family", "b"][..],
    ] {
        let o = score_v2(dir.path(), extra);
        assert_eq!(code(&o), 2, "{extra:?}");
        assert!(stdout(&o).is_empty());
        assert!(
            stderr(&o).contains("conformance level 4 needs"),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn a_provenance_file_works_families_out_from_its_table() {
    let dir = results();
    let p = dir.path();
    fs::write(
        p.join("provenance.toml"),
        r#"implementer_model = "claude-x"
seal_author_models = ["gpt-y", "gemini-z"]
workspace_isolation = "legacy"
conformance_level = 4

[families]
"claude-x" = "anthropic"
"gpt-y" = "openai"
"gemini-z" = "google"
"#,
    )
    .unwrap();
    let o = score_v2(p, &["--provenance", "provenance.toml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_v2(&r);
    assert_eq!(r["report"]["implementer_family"], "anthropic");
    assert_eq!(
        r["report"]["seal_author_families"],
        json!(["openai", "google"])
    );
    assert_eq!(r["report"]["independence"], "strong");
    assert_eq!(r["report"]["workspace_isolation"], "legacy");

    // The same table with one seal author of the implementer's family: weak, advisory.
    fs::write(
        p.join("weak.toml"),
        "implementer_model = \"claude-x\"\nseal_author_models = [\"claude-y\"]\n[families]\n\"claude-x\" = \"anthropic\"\n\"claude-y\" = \"anthropic\"\n",
    )
    .unwrap();
    let r = json_of(&score_v2(p, &["--provenance", "weak.toml"]));
    assert_v2(&r);
    assert_eq!(r["report"]["independence"], "weak");
    assert_eq!(r["report"]["advisory"], true);

    // The old spelling is refused, never written.
    fs::write(p.join("old.toml"), "seal_families = [\"openai\"]\n").unwrap();
    let o = score_v2(p, &["--provenance", "old.toml"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("seal_families"), "{}", stderr(&o));
}

#[test]
fn a_truncated_spec_and_a_suite_that_did_not_run_are_advisory() {
    let dir = results();
    let r = json_of(&score_v2(dir.path(), &["--spec-truncated"]));
    assert_v2(&r);
    assert_eq!(r["report"]["advisory"], true);
    assert!(
        r["report"]["advisory_reason"]
            .as_str()
            .unwrap()
            .contains("truncated or summarised")
    );

    fs::write(
        dir.path().join("results.json"),
        json!({"tests": [{"name": "test_a", "status": "passed"}],
               "problems": [{"kind": "build-failure", "detail": "does not compile"}]})
        .to_string(),
    )
    .unwrap();
    let r = json_of(&score_v2(dir.path(), &[]));
    assert_v2(&r);
    assert_eq!(r["report"]["advisory"], true);
    assert!(
        r["report"]["advisory_reason"]
            .as_str()
            .unwrap()
            .contains("did not fully run")
    );
}

#[test]
fn an_allowed_broken_seal_is_advisory_and_validates() {
    let dir = results();
    let p = dir.path();
    fs::create_dir(p.join("sealed")).unwrap();
    fs::write(p.join("sealed/test_a.py"), "def test_a():\n    pass\n").unwrap();
    assert_eq!(code(&run_in(p, &["seal", "sealed", "-o", "rec.json"])), 0);
    fs::write(p.join("sealed/test_a.py"), "def test_a():\n    1\n").unwrap();
    let seal = ["--seal", "rec.json", "--sealed-dir", "sealed"];
    assert_eq!(code(&score_v2(p, &seal)), 2);
    let mut allowed = seal.to_vec();
    allowed.push("--allow-broken-seal");
    let r = json_of(&score_v2(p, &allowed));
    assert_v2(&r);
    assert_eq!(r["report"]["seal_broken"], true);
    assert_eq!(r["report"]["advisory"], true);
}

#[test]
fn run_reports_its_own_workspace_isolation() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::write(
        p.join("run.sh"),
        "echo '{\"tests\":[{\"name\":\"a\",\"status\":\"passed\"}]}' > r.json\n",
    )
    .unwrap();
    for (workspace, isolation) in [("copy", "strict"), ("inplace", "legacy")] {
        let o = run_in(
            p,
            &[
                "run",
                "--spec-version",
                "2",
                "--workspace",
                workspace,
                "--results",
                "r.json",
                "--",
                "sh",
                "run.sh",
            ],
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let r = json_of(&o);
        assert_v2(&r);
        assert_eq!(r["report"]["workspace_isolation"], isolation);
        // No provenance declared: said on standard error, not guessed.
        assert!(
            stderr(&o).contains("cannot be interpreted"),
            "{}",
            stderr(&o)
        );
    }
    // A declared isolation that is not the workspace the command ran in is refused.
    let o = run_in(
        p,
        &[
            "run",
            "--spec-version",
            "2",
            "--workspace-isolation",
            "strict",
            "--workspace",
            "inplace",
            "--results",
            "r.json",
            "--",
            "sh",
            "run.sh",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("contradicts"), "{}", stderr(&o));
    // Refused before the command ran: it left no result file behind.
    fs::remove_file(p.join("r.json")).unwrap();
    let o = run_in(
        p,
        &[
            "run",
            "--conformance-level",
            "4",
            "--spec-version",
            "2",
            "--workspace",
            "inplace",
            "--results",
            "r.json",
            "--",
            "sh",
            "run.sh",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(!p.join("r.json").exists(), "the command ran");
}

#[test]
fn batch_writes_v2_reports_and_resume_rescores_for_them() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::create_dir_all(p.join("tree/alpha/sealed")).unwrap();
    fs::write(
        p.join("tree/alpha/sealed/r.json"),
        json!({"tests": [{"name": "a", "status": "passed"}]}).to_string(),
    )
    .unwrap();
    let o = run_in(p, &["batch", "tree", "-o", "out", "--quiet"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // `--resume` does not keep the v1 report once v2 is asked for.
    let o = run_in(
        p,
        &[
            "batch",
            "tree",
            "-o",
            "out",
            "--quiet",
            "--resume",
            "--spec-version",
            "2",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r: Value =
        serde_json::from_str(&fs::read_to_string(p.join("out/reports/alpha.json")).unwrap())
            .unwrap();
    assert_v2(&r);
    let o = run_in(
        p,
        &[
            "batch",
            "tree",
            "-o",
            "out2",
            "--spec-version",
            "2",
            "--dialect",
            "gap",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

/// A v2 report's `hardening.max_reveal` uses the v2 schema's names: gapscore's `assertion` level
/// (§4.4.1 `failure_messages`) is the schema's `message`, `assertions` its `assertion`.
#[test]
fn a_v2_hardening_object_names_the_reveal_level_as_the_v2_schema_does() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    for (i, status) in ["failed", "passed"].iter().enumerate() {
        fs::write(
            p.join(format!("c{i}.json")),
            json!({"tests": [{"name": "a", "status": status}, {"name": "b", "status": "passed"}]})
                .to_string(),
        )
        .unwrap();
    }
    for (reveal, v2) in [("assertion", "message"), ("assertions", "assertion")] {
        let _ = fs::remove_file(p.join("h.json"));
        for i in 0..2 {
            let c = format!("c{i}.json");
            let o = run_in(p, &["harden", "record", "h.json", &c, "--reveal", reveal]);
            assert_eq!(code(&o), 0, "{}", stderr(&o));
        }
        let o = run_in(
            p,
            &[
                "score",
                "--sealed",
                "c1.json",
                "--history",
                "h.json",
                "--max-cycles",
                "3",
                "--spec-version",
                "2",
            ],
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let r: Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(r["hardening"]["max_reveal"], v2, "{r}");
        assert_eq!(validate(SchemaId::ShadowV2, &r).unwrap(), vec![], "{r}");
    }
}

/// Seal plurality (§4.6.2): with the contradictions found between the suites, the report carries
/// `report.spec_ambiguity` (1 contradicting criterion of 6 → 0.167); v1 refuses the option.
#[test]
fn contradictions_write_the_spec_ambiguity() {
    let dir = results();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples/v2");
    let file = examples.join("contradictions.json");
    let file = file.to_str().unwrap();
    let o = score_v2(
        dir.path(),
        &[
            "--implementer-family",
            "mistral",
            "--seal-author-family",
            "anthropic",
            "--seal-author-family",
            "openai",
            "--contradictions",
            file,
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json_of(&o);
    assert_v2(&r);
    assert_eq!(r["report"]["spec_ambiguity"], 0.167, "{r}");
    let o = run_in(
        dir.path(),
        &[
            "score",
            "--sealed",
            "results.json",
            "--contradictions",
            file,
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("add --spec-version 2"),
        "{}",
        stderr(&o)
    );
}

/// §4.4.1: the `assertions` disclosure level may be used at the final cycle only. Revealed
/// earlier, `score --history` warns, and a v2 report records the note in its `hardening` object
/// (the v2 schema allows further keys there); at the final cycle nothing is said.
#[test]
fn assertions_revealed_before_the_final_cycle_are_warned_about_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    for (i, status) in ["failed", "failed", "passed"].iter().enumerate() {
        fs::write(
            p.join(format!("c{i}.json")),
            json!({"tests": [{"name": "a", "status": status}, {"name": "b", "status": "passed"}]})
                .to_string(),
        )
        .unwrap();
    }
    for (history, reveals, early) in [
        ("early.json", ["assertions", "assertion", "assertion"], true),
        (
            "final.json",
            ["assertion", "assertions", "assertion"],
            false,
        ),
    ] {
        for (i, reveal) in reveals.iter().enumerate() {
            let c = format!("c{i}.json");
            let o = run_in(p, &["harden", "record", history, &c, "--reveal", reveal]);
            assert_eq!(code(&o), 0, "{}", stderr(&o));
        }
        for version in ["2", "1"] {
            let o = run_in(
                p,
                &[
                    "score",
                    "--sealed",
                    "c2.json",
                    "--history",
                    history,
                    "--max-cycles",
                    "2",
                    "--spec-version",
                    version,
                ],
            );
            assert_eq!(code(&o), 0, "{}", stderr(&o));
            let warned = stderr(&o).contains(
                "the `assertions` disclosure level (the text of the failing assertion) was revealed before the final cycle: handed out for cycle 1 of 2",
            );
            assert_eq!(warned, early, "{history}: {}", stderr(&o));
            let r = json_of(&o);
            let note = r["hardening"].get("disclosure_warning");
            // Recorded in v2 reports only: v1 output is unchanged.
            assert_eq!(note.is_some(), early && version == "2", "{r:#}");
            if version == "2" {
                assert_v2(&r);
                assert_eq!(validate(SchemaId::Report, &r).unwrap(), vec![], "{r:#}");
            }
        }
    }
}
