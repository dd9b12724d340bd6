//! The "wild" corpus check: result files that other projects committed (not written for gapscore),
//! each with the counts a reader of the file expects, written by hand in
//! `<crate>/tests/fixtures/wild/expected.toml`:
//!
//! ```toml
//! [[file]]
//! name = "ant-junit-suite-error__jenkinsci_junit-plugin__junit-report-6700.xml"
//! # Scored tests (leaves, parents left out) by status; a status left out means 0.
//! failed = 0
//! # Run-level problems by kind, each the sum of its problems' counts; a kind left out means none.
//! problems = { suite-error = 1 }
//! # Optional: the producer the reader names, and how many warnings it gives.
//! producer = "ant"
//! warnings = 0
//! why = "a class failed to load: one suite-level <error>, no <testcase>"
//! ```
//!
//! A file the reader must refuse has `error = "…"` instead of counts: its reading must fail
//! with an error whose text holds that string.
//!
//! Every file in the folder (but `expected.toml` and `README.md`) must have an entry and every
//! entry a file, so a file added without expectations fails the test.

use std::collections::BTreeMap;
use std::path::Path;

use gapscore_adapter_sdk::{Adapter, ParseOptions, Status, parse_to_run};

/// Reads every file of `<crate_dir>/tests/fixtures/wild` with `adapter` and compares the scored
/// tests by status, the run-level problems (summed counts by kind), and optionally the producer
/// and the number of warnings with `expected.toml`. Panics at the end with every difference of
/// every file, each naming its file; returns how many files were checked.
pub fn check_wild(crate_dir: &str, adapter: &dyn Adapter) -> usize {
    let dir = Path::new(crate_dir).join("tests/fixtures/wild");
    let expected_path = dir.join("expected.toml");
    let text = std::fs::read_to_string(&expected_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", expected_path.display()));
    let table: toml::Table = toml::from_str(&text)
        .unwrap_or_else(|e| panic!("{}: not TOML: {e}", expected_path.display()));
    let entries = table
        .get("file")
        .and_then(toml::Value::as_array)
        .unwrap_or_else(|| panic!("{}: no [[file]] entries", expected_path.display()));

    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "expected.toml" && n != "README.md")
        .collect();
    on_disk.sort();

    let mut diffs = Vec::new();
    let mut named = Vec::new();
    for entry in entries {
        let Some(entry) = entry.as_table() else {
            diffs.push("an entry that is not a table".to_owned());
            continue;
        };
        let Some(name) = entry.get("name").and_then(toml::Value::as_str) else {
            diffs.push("an entry without a name".to_owned());
            continue;
        };
        named.push(name.to_owned());
        let path = dir.join(name);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                diffs.push(format!("{name}: cannot read: {e}"));
                continue;
            }
        };
        for d in compare_file(adapter, name, &bytes, entry) {
            diffs.push(format!("{name}: {d}"));
        }
    }
    for file in &on_disk {
        if !named.contains(file) {
            diffs.push(format!("{file}: in the folder but not in expected.toml"));
        }
    }
    assert!(
        diffs.is_empty(),
        "{} difference(s) in {}:\n  {}",
        diffs.len(),
        dir.display(),
        diffs.join("\n  ")
    );
    named.len()
}

fn compare_file(
    adapter: &dyn Adapter,
    name: &str,
    bytes: &[u8],
    entry: &toml::Table,
) -> Vec<String> {
    let mut diffs = Vec::new();
    let opts = ParseOptions::with_source(name);
    let want_error = entry.get("error").and_then(toml::Value::as_str);
    let run = match (parse_to_run(adapter, bytes, &opts), want_error) {
        (Ok(run), None) => run,
        (Err(e), None) => return vec![format!("not read: {e}")],
        (Ok(_), Some(want)) => return vec![format!("read, but expected an error with `{want}`")],
        (Err(e), Some(want)) if e.to_string().contains(want) => return Vec::new(),
        (Err(e), Some(want)) => {
            return vec![format!(
                "refused with `{e}`, expected an error with `{want}`"
            )];
        }
    };

    let mut by_status: BTreeMap<&str, u64> = BTreeMap::new();
    for t in run.tests.iter().filter(|t| !t.parent) {
        *by_status.entry(t.status.as_str()).or_default() += 1;
    }
    for status in Status::ALL {
        let want = int(entry, status.as_str());
        let got = by_status.get(status.as_str()).copied().unwrap_or(0);
        if want != got {
            diffs.push(format!(
                "{} tests: expected {want}, read {got}",
                status.as_str()
            ));
        }
    }

    let mut problems: BTreeMap<String, u64> = BTreeMap::new();
    for p in &run.problems {
        *problems.entry(p.kind.as_str().to_owned()).or_default() += p.weight();
    }
    let mut want_problems: BTreeMap<String, u64> = BTreeMap::new();
    if let Some(table) = entry.get("problems").and_then(toml::Value::as_table) {
        for (kind, n) in table {
            want_problems.insert(kind.clone(), n.as_integer().map_or(0, |n| n as u64));
        }
    }
    if problems != want_problems {
        let details: Vec<String> = run
            .problems
            .iter()
            .map(|p| format!("{} ({})", p.kind.as_str(), p.detail))
            .collect();
        diffs.push(format!(
            "problems: expected {want_problems:?}, read {problems:?}: {}",
            details.join("; ")
        ));
    }

    if let Some(want) = entry.get("producer").and_then(toml::Value::as_str) {
        let got = run.producer.as_ref().map(|p| p.name.as_str());
        if got != Some(want) {
            diffs.push(format!("producer: expected {want}, read {got:?}"));
        }
    }
    if let Some(want) = entry.get("warnings").and_then(toml::Value::as_integer)
        && run.warnings.len() as i64 != want
    {
        diffs.push(format!(
            "warnings: expected {want}, read {}: {:?}",
            run.warnings.len(),
            run.warnings
        ));
    }
    diffs
}

fn int(entry: &toml::Table, key: &str) -> u64 {
    entry
        .get(key)
        .and_then(toml::Value::as_integer)
        .map_or(0, |n| n as u64)
}
