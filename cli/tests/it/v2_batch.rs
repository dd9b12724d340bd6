//! `gapscore batch --spec-version 2` with provenance per repository: a provenance file named in
//! a repository's `gapscore.toml`, an inline `[provenance]` table, or the batch's flags as the
//! default. Weak independence in one repository makes only that repository's report advisory.

use std::fs;
use std::path::Path;

use gapscore_schema::{SchemaId, validate};
use serde_json::{Value, json};

use crate::common::{code, run_in, stderr};

fn repo(root: &Path, name: &str, config: Option<&str>) {
    let dir = root.join("tree").join(name);
    fs::create_dir_all(dir.join("sealed")).unwrap();
    fs::write(
        dir.join("sealed/results.json"),
        json!({"tests": [{"name": "a", "status": "passed"}, {"name": "b", "status": "failed"}]})
            .to_string(),
    )
    .unwrap();
    if let Some(c) = config {
        fs::write(dir.join("gapscore.toml"), c).unwrap();
    }
}

fn report(root: &Path, name: &str) -> Value {
    let text = fs::read_to_string(root.join("out/reports").join(format!("{name}.json"))).unwrap();
    let r: Value = serde_json::from_str(&text).unwrap();
    for id in [SchemaId::ShadowV2, SchemaId::Report] {
        let errors = validate(id, &r).unwrap();
        assert!(
            errors.is_empty(),
            "{name}: {}: {errors:?}\n{r:#}",
            id.name()
        );
    }
    r
}

const BATCH: [&str; 10] = [
    "batch",
    "tree",
    "-o",
    "out",
    "-q",
    "--spec-version",
    "2",
    "--implementer-family",
    "mistral",
    "--seal-author-family",
];

#[test]
fn each_repository_has_its_own_provenance_and_weak_makes_only_its_report_advisory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    repo(root, "from-file", Some("provenance = \"who.toml\"\n"));
    fs::write(
        root.join("tree/from-file/who.toml"),
        "implementer_model = \"claude-x\"\nseal_author_models = [\"gpt-y\"]\nconformance_level = 2\n[families]\n\"claude-x\" = \"anthropic\"\n\"gpt-y\" = \"openai\"\n",
    )
    .unwrap();
    repo(
        root,
        "inline-weak",
        Some(
            "skipped = \"fail\"\n\n[provenance]\nimplementer_family = \"openai\"\nseal_author_families = [\"OpenAI\", \"google\"]\n",
        ),
    );
    repo(root, "default", None);
    let o = run_in(root, &[&BATCH[..], &["google"]].concat());
    assert_eq!(code(&o), 0, "{}", stderr(&o));

    let r = report(root, "from-file");
    assert_eq!(r["report"]["implementer_family"], "anthropic");
    assert_eq!(r["report"]["seal_author_families"], json!(["openai"]));
    assert_eq!(r["report"]["independence"], "strong");
    assert_eq!(r["report"]["conformance_level"], 2);
    assert!(r["report"].get("advisory").is_none(), "{r:#}");

    let r = report(root, "inline-weak");
    assert_eq!(r["report"]["independence"], "weak");
    assert_eq!(r["report"]["advisory"], true);
    assert!(
        r["report"]["advisory_reason"]
            .as_str()
            .unwrap()
            .contains("weak authorship independence"),
        "{r:#}"
    );

    let r = report(root, "default");
    assert_eq!(r["report"]["implementer_family"], "mistral");
    assert_eq!(r["report"]["seal_author_families"], json!(["google"]));
    assert_eq!(r["report"]["independence"], "strong");
    assert!(r["report"].get("advisory").is_none(), "{r:#}");

    // Only the weak repository's row is advisory.
    let rows = fs::read_to_string(root.join("out/results.ndjson")).unwrap();
    let advisory: Vec<String> = rows
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|row| row["advisory"] == true)
        .map(|row| row["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(advisory, ["inline-weak"], "{rows}");

    // The default changes: --resume scores the repositories that use it again, and only those.
    let o = run_in(root, &[&BATCH[..], &["cohere", "--resume"]].concat());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        report(root, "default")["report"]["seal_author_families"],
        json!(["cohere"])
    );
}

#[test]
fn bad_provenance_is_an_error_naming_the_file_and_place() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    repo(root, "good", None);
    repo(
        root,
        "unknown-key",
        Some("[provenance]\nseal_families = [\"openai\"]\n"),
    );
    repo(root, "missing-file", Some("provenance = \"nope.toml\"\n"));
    repo(root, "not-a-table", Some("provenance = 3\n"));
    let o = run_in(
        root,
        &["batch", "tree", "-o", "out", "-q", "--spec-version", "2"],
    );
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    let rows = fs::read_to_string(root.join("out/results.ndjson")).unwrap();
    let error_of = |name: &str| -> String {
        rows.lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|row| row["name"] == name)
            .and_then(|row| row["error"].as_str().map(str::to_owned))
            .unwrap_or_default()
    };
    let e = error_of("unknown-key");
    assert!(
        e.contains("gapscore.toml: [provenance]") && e.contains("seal_families"),
        "{e}"
    );
    let e = error_of("missing-file");
    assert!(e.contains("nope.toml"), "{e}");
    let e = error_of("not-a-table");
    assert!(e.contains("a file name or a [provenance] table"), "{e}");
    assert_eq!(error_of("good"), "");

    // A v1 batch refuses provenance: the batch's at once, a repository's in its row.
    let o = run_in(
        root,
        &[
            "batch",
            "tree",
            "-o",
            "out1",
            "-q",
            "--implementer-family",
            "x",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("add --spec-version 2"),
        "{}",
        stderr(&o)
    );
    fs::write(
        root.join("tree/good/gapscore.toml"),
        "[provenance]\nimplementer_family = \"x\"\n",
    )
    .unwrap();
    let o = run_in(root, &["batch", "tree", "-o", "out2", "-q"]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    let rows = fs::read_to_string(root.join("out2/results.ndjson")).unwrap();
    assert!(rows.contains("add --spec-version 2"), "{rows}");
    // Level 4 claimed without the seal authors is refused at once.
    let o = run_in(
        root,
        &[
            "batch",
            "tree",
            "-o",
            "out3",
            "-q",
            "--spec-version",
            "2",
            "--conformance-level",
            "4",
            "--implementer-family",
            "x",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("conformance level 4"), "{}", stderr(&o));
}
