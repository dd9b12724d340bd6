//! Checking a repository's sealed test directory against its seal record: every regular file
//! (links neither followed nor hashed, as `gapscore seal` does), hashed as a stream.

use std::fs::{self, File};
use std::io::Read;
use std::path::Path;

use gapscore_core::hash::canonical_sha256;
use gapscore_core::seal::{Excludes, FileHasher, SealRecord, SealedFile, diff_files, seal_hash};

/// Reads and checks a seal record file.
pub(crate) fn load_record(path: &Path) -> Result<SealRecord, String> {
    let text = fs::read_to_string(path).map_err(|e| {
        format!(
            "cannot read seal record `{}`: {}",
            path.display(),
            gapscore_adapters::io_reason(&e)
        )
    })?;
    let record: SealRecord = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}:{}:{}: not a seal record: {e}",
            path.display(),
            e.line(),
            e.column()
        )
    })?;
    if record.gapscore_seal != SealRecord::VERSION {
        return Err(format!(
            "{}: seal record version {} is not supported",
            path.display(),
            record.gapscore_seal
        ));
    }
    canonical_sha256(&record.hash)
        .map_err(|e| format!("{}: the record's hash: {e}", path.display()))?;
    Ok(record)
}

/// `Ok(None)` when `dir` matches the record, `Ok(Some(what differs))` when it does not.
pub(crate) fn check(dir: &Path, record: &SealRecord) -> Result<Option<String>, String> {
    let excludes = Excludes::new(&record.excludes).map_err(|e| format!("seal record: {e}"))?;
    let mut files = Vec::new();
    walk(dir, "", &excludes, 0, &mut files)?;
    files.sort_unstable_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    let now = seal_hash(&files, &record.options());
    if now.hash == record.hash {
        return Ok(None);
    }
    let d = diff_files(&record.files, &files);
    let mut parts = Vec::new();
    for (list, what) in [
        (&d.changed, "changed"),
        (&d.added, "added"),
        (&d.removed, "removed"),
    ] {
        if let Some(first) = list.first() {
            parts.push(format!(
                "{} {what} ({first}{})",
                list.len(),
                if list.len() > 1 { ", ..." } else { "" }
            ));
        }
    }
    if parts.is_empty() {
        parts.push(format!("hash {} instead of {}", now.hash, record.hash));
    }
    Ok(Some(parts.join(", ")))
}

fn walk(
    dir: &Path,
    rel: &str,
    excludes: &Excludes,
    depth: usize,
    out: &mut Vec<SealedFile>,
) -> Result<(), String> {
    if depth > 64 {
        return Err(format!("`{}`: directories nested too deep", dir.display()));
    }
    let fail = |p: &Path, e: &std::io::Error| {
        format!(
            "cannot read `{}`: {}",
            p.display(),
            gapscore_adapters::io_reason(e)
        )
    };
    let entries = fs::read_dir(dir).map_err(|e| fail(dir, &e))?;
    for entry in entries {
        let entry = entry.map_err(|e| fail(dir, &e))?;
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            return Err(format!("`{}`: file name is not UTF-8", path.display()));
        };
        let child = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        if excludes.matches(&child) {
            continue;
        }
        let kind = entry.file_type().map_err(|e| fail(&path, &e))?;
        if kind.is_dir() {
            walk(&path, &child, excludes, depth + 1, out)?;
        } else if kind.is_file() {
            let mut file = File::open(&path).map_err(|e| fail(&path, &e))?;
            let mut hasher = FileHasher::new();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match file.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => hasher.update(buf.get(..n).unwrap_or_default()),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(fail(&path, &e)),
                }
            }
            out.push(SealedFile {
                sha256: hasher.finish(),
                path: child,
            });
        }
    }
    Ok(())
}
