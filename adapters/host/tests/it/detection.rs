//! Detection across every built-in adapter: each adapter's valid fixtures, and each real-runner
//! file with its `truth.json`, are recognised as their own format by the whole registry — no
//! other adapter claims them as strongly (no tie) and none claims them more strongly.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_adapter_sdk::DETECT_PREFIX_LEN;
use gapscore_adapters::Registry;

fn adapters_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn prefix(path: &Path) -> Vec<u8> {
    let mut bytes = fs::read(path).unwrap();
    bytes.truncate(DETECT_PREFIX_LEN);
    bytes
}

/// The adapter and format the registry picks for a file, or why it picks none.
fn detected(reg: &Registry, path: &Path) -> Result<(String, String), String> {
    let bytes = prefix(path);
    let name = path.file_name().and_then(|n| n.to_str());
    let entry = reg.detect(&bytes, name).map_err(|e| e.to_string())?;
    let adapter = entry.adapter.as_ref();
    let format = adapter
        .detect_format(&bytes, name)
        .or_else(|| adapter.info().formats.first().cloned())
        .unwrap_or_default();
    Ok((entry.name().to_owned(), format))
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn every_valid_fixture_is_detected_as_its_own_adapter() {
    let reg = Registry::builtin();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for entry in reg.entries() {
        let name = entry.name();
        let mut files = Vec::new();
        walk(
            &adapters_dir().join(name).join("tests/fixtures/valid"),
            &mut files,
        );
        for f in files.iter().filter(|f| !f.ends_with("README.md")) {
            checked += 1;
            match detected(&reg, f) {
                Ok((got, _)) if got == name => {}
                other => wrong.push(format!("{}: {other:?}", f.display())),
            }
        }
    }
    assert!(checked >= 40, "only {checked} fixtures found");
    assert!(wrong.is_empty(), "misdetected:\n{}", wrong.join("\n"));
}

#[test]
fn every_real_runner_file_is_detected_as_its_format() {
    let reg = Registry::builtin();
    let mut truths = Vec::new();
    for entry in reg.entries() {
        walk(
            &adapters_dir()
                .join(entry.name())
                .join("tests/fixtures/real"),
            &mut truths,
        );
    }
    truths.retain(|p| p.ends_with("truth.json"));
    assert!(truths.len() >= 16, "only {} real cases found", truths.len());
    let mut wrong = Vec::new();
    for truth in &truths {
        let t: serde_json::Value = serde_json::from_slice(&fs::read(truth).unwrap()).unwrap();
        let format = t["format"].as_str().unwrap();
        let dir = truth.parent().unwrap();
        for (file, role) in t["files"].as_object().unwrap() {
            let path = dir.join(file);
            if role != "report" || !path.exists() {
                continue;
            }
            match detected(&reg, &path) {
                Ok((_, got)) if got == format => {}
                other => wrong.push(format!("{} ({format}): {other:?}", path.display())),
            }
        }
    }
    assert!(wrong.is_empty(), "misdetected:\n{}", wrong.join("\n"));
}
