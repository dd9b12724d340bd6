//! Level 4 (`--level 4`) on the cases the fixture suite cannot hold to one rule: weak
//! independence (a level-1 error too, whichever way it is written), provenance at the wrong
//! depth or under the superseded name (the v2 schema rejects those as well), and level 4 left
//! unjudged below `--level 4`.

use gapscore_check::{Evidence, FileResult, RequirementVerdict, Severity, check_value};
use serde_json::{Value, json};

/// The valid level-4 fixture, edited by `edit`.
fn report(edit: impl FnOnce(&mut serde_json::Map<String, Value>)) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../conformance-tests/fixtures/reports/valid/l4-v2-strong-independence-plurality.json",
    );
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(doc.as_object_mut().unwrap());
    doc
}

fn check(doc: &Value, level: u8) -> FileResult {
    check_value("r.json", doc, &Evidence::default(), level)
}

fn verdict(r: &FileResult, id: &str) -> RequirementVerdict {
    r.requirements.iter().find(|q| q.id == id).unwrap().verdict
}

fn error_messages(r: &FileResult, rule: &str) -> Vec<String> {
    r.findings
        .iter()
        .filter(|f| f.rule == rule && f.severity == Severity::Error)
        .map(|f| format!("{}: {}", f.pointer, f.message))
        .collect()
}

fn meta(root: &mut serde_json::Map<String, Value>) -> &mut serde_json::Map<String, Value> {
    root.get_mut("report").unwrap().as_object_mut().unwrap()
}

#[test]
fn the_valid_fixture_holds_level_4_only_when_asked() {
    let doc = report(|_| {});
    let r = check(&doc, 4);
    assert_eq!(r.level_met, 4);
    assert!(r.holds);
    assert_eq!(
        verdict(&r, "L4.before-dispatch"),
        RequirementVerdict::Attested
    );
    let r = check(&doc, 3);
    assert_eq!(r.level_met, 3);
    assert!(r.requirements.iter().all(|q| q.level <= 3));
}

#[test]
fn weak_independence_fails_level_4_whether_advisory_or_not() {
    for advisory in [true, false] {
        let doc = report(|root| {
            let m = meta(root);
            m.insert("independence".into(), json!("weak"));
            m.remove("conformance_level");
            if advisory {
                m.insert("advisory".into(), json!(true));
                m.insert(
                    "advisory_reason".into(),
                    json!("seal author and implementer share a model family"),
                );
            }
        });
        let r = check(&doc, 4);
        assert_eq!(r.level_met, 0, "advisory {advisory}");
        assert_eq!(verdict(&r, "L4.independence"), RequirementVerdict::Failed);
        assert_eq!(verdict(&r, "L4.advisory"), RequirementVerdict::Failed);
        assert_eq!(error_messages(&r, "independence.strong").len(), 1);
        let level1 = if advisory {
            "report.advisory"
        } else {
            "schema.upstream"
        };
        assert!(!error_messages(&r, level1).is_empty(), "{advisory}");
    }
}

#[test]
fn provenance_at_the_root_or_misspelt_is_absent() {
    let doc = report(|root| {
        let family = meta(root).remove("implementer_family").unwrap();
        let seal = meta(root).remove("seal_author_families").unwrap();
        meta(root).insert("seal_families".into(), seal);
        meta(root).remove("conformance_level");
        root.insert("implementer_family".into(), family);
    });
    let r = check(&doc, 4);
    assert_eq!(verdict(&r, "L4.provenance"), RequirementVerdict::Failed);
    let errors = error_messages(&r, "provenance.present");
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("/implementer_family: `implementer_family` is at the root")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.starts_with(
            "/report/seal_families: `report.seal_families` is the superseded spelling"
        )),
        "{errors:?}"
    );
    // The v2 schema rejects both as well (a level-1 error).
    assert!(!error_messages(&r, "schema.upstream").is_empty());
}

#[test]
fn a_v1_report_cannot_hold_level_4() {
    let doc = report(|root| {
        root.insert("shadow_score_spec_version".into(), json!("1.0.0"));
    });
    let r = check(&doc, 4);
    assert!(r.level_met < 4);
    let errors = error_messages(&r, "level4.version");
    assert_eq!(errors.len(), 1);
    assert!(errors[0].contains("cannot hold level 4"), "{errors:?}");
    assert!(
        r.requirements
            .iter()
            .filter(|q| q.level == 4)
            .all(|q| q.verdict == RequirementVerdict::Failed)
    );
}
