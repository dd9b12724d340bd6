//! Checking a repository's sealed test directory against its seal record, with the host's
//! sealed-directory reader (the same files `gapscore seal` and `score --seal` see).

use std::path::Path;

use gapscore_adapters::sealdir;
use gapscore_core::seal::{Excludes, SealRecord, diff_files, seal_hash};

/// Reads and checks a seal record file.
pub(crate) fn load_record(path: &Path) -> Result<SealRecord, String> {
    sealdir::read_record(path).map_err(|e| e.to_string())
}

/// `Ok(None)` when `dir` matches the record, `Ok(Some(what differs))` when it does not.
pub(crate) fn check(dir: &Path, record: &SealRecord) -> Result<Option<String>, String> {
    let excludes = Excludes::new(&record.excludes).map_err(|e| format!("seal record: {e}"))?;
    let files = sealdir::scan(dir, &excludes)
        .map_err(|e| e.to_string())?
        .files;
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
