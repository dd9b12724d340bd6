//! docs/design.md's crate graph is the manifests' (issue 30): the block after
//! `<!-- crate-graph -->` names each shipped crate, lowest first, with the workspace crates it
//! depends on, and every `Cargo.toml` of the workspace is read to hold it to that.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const READERS: [&str; 9] = [
    "simple", "junit", "pytest", "jest", "ctrf", "gotest", "tap", "libtest", "mocha",
];

/// Crates of the workspace that ship nothing (test helpers, fixtures, a template): not drawn.
const NOT_DRAWN: [&str; 4] = [
    "gapscore-adapter-testing",
    "gapscore-fixture-plugins",
    "gapscore-adapter-template",
    "gapscore-conformance",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the cli crate sits in the workspace root")
        .to_path_buf()
}

fn read_toml(path: &Path) -> toml::Table {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every workspace crate's name and its normal dependencies on other workspace crates.
fn manifests() -> BTreeMap<String, BTreeSet<String>> {
    let root = root();
    let workspace = read_toml(&root.join("Cargo.toml"));
    let members = workspace["workspace"]["members"]
        .as_array()
        .expect("workspace members");
    let mut crates = BTreeMap::new();
    for m in members {
        let manifest = read_toml(&root.join(m.as_str().expect("a path")).join("Cargo.toml"));
        let name = manifest["package"]["name"]
            .as_str()
            .expect("a name")
            .to_owned();
        let deps = manifest
            .get("dependencies")
            .and_then(toml::Value::as_table)
            .map(|t| {
                t.keys()
                    .filter(|k| k.starts_with("gapscore"))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        crates.insert(name, deps);
    }
    crates
}

/// A name as the block writes it (`core`, `adapters (the host)`, `gapscore (cli)`,
/// `adapter-{a,b}`, `the nine readers`) as crate names.
fn crate_names(word: &str) -> Vec<String> {
    let word = word.split(" (").next().unwrap_or(word).trim();
    if word == "the nine readers" {
        return READERS
            .iter()
            .map(|r| format!("gapscore-adapter-{r}"))
            .collect();
    }
    if let Some((head, rest)) = word.split_once('{') {
        let inner = rest.trim_end_matches('}');
        return inner
            .split(',')
            .map(|r| format!("gapscore-{head}{}", r.trim()))
            .collect();
    }
    if word == "gapscore" {
        return vec!["gapscore".to_owned()];
    }
    vec![format!("gapscore-{word}")]
}

/// The block's lines in order: each line's crates and what they depend on.
fn drawn() -> Vec<(Vec<String>, BTreeSet<String>)> {
    let path = root().join("docs/design.md");
    let text = fs::read_to_string(&path).expect("docs/design.md");
    let after = text
        .split_once("<!-- crate-graph -->")
        .expect("design.md marks its crate graph with <!-- crate-graph -->")
        .1;
    let body = after
        .split_once("```text\n")
        .and_then(|(_, b)| b.split_once("```"))
        .expect("a ```text block after the marker")
        .0;
    body.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let (lhs, rhs) = line
                .split_once('─')
                .map_or((line, ""), |(l, r)| (l, r.trim_start_matches(['─', '▶'])));
            let deps = rhs
                .split(", ")
                .filter(|d| !d.trim().is_empty())
                .flat_map(crate_names)
                .collect();
            (crate_names(lhs.trim()), deps)
        })
        .collect()
}

#[test]
fn the_design_docs_crate_graph_is_the_manifests() {
    let manifests = manifests();
    let drawn = drawn();
    let mut seen = BTreeSet::new();
    for (line, (names, deps)) in drawn.iter().enumerate() {
        for name in names {
            let actual = manifests
                .get(name)
                .unwrap_or_else(|| panic!("design.md draws `{name}`, which is no workspace crate"));
            assert_eq!(
                actual,
                deps,
                "design.md's crate graph, line {}: `{name}` depends on {actual:?} in its Cargo.toml",
                line + 1
            );
            for d in deps {
                assert!(
                    seen.contains(d),
                    "design.md's crate graph: `{name}` depends on `{d}`, which is not drawn above it"
                );
            }
        }
        seen.extend(names.iter().cloned());
    }
    let undrawn: Vec<&String> = manifests
        .keys()
        .filter(|k| !seen.contains(*k) && !NOT_DRAWN.contains(&k.as_str()))
        .collect();
    assert!(
        undrawn.is_empty(),
        "design.md's crate graph leaves out {undrawn:?}"
    );
}
