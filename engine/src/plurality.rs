//! Seal plurality (spec v2 §4.6): reading single and combined seal records, combining several
//! suites' records into one, and the spec ambiguity metric from a contradictions file.

use std::path::{Path, PathBuf};

use gapscore_core::envelope::{CombinedSeal, Contradictions, SuiteSeal};

use crate::error::Error;
use crate::fs;

fn read_text(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| Error::Input(format!("`{}`: {e}", path.display())))
}

/// Reads a combined record (`gapscore seal --combine`).
pub fn read_combined(path: &Path) -> Result<CombinedSeal, Error> {
    let c: CombinedSeal = serde_json::from_str(&read_text(path)?).map_err(|e| {
        Error::Input(format!(
            "{}: not a combined seal record: {e}",
            path.display()
        ))
    })?;
    if c.gapscore_seal_combined != CombinedSeal::VERSION {
        return Err(Error::Input(format!(
            "{}: combined seal record version {} is not supported",
            path.display(),
            c.gapscore_seal_combined
        )));
    }
    Ok(c)
}

/// True when the file is a combined record rather than a single suite's.
pub fn is_combined(path: &Path) -> Result<bool, Error> {
    let v: serde_json::Value = serde_json::from_str(&read_text(path)?)
        .map_err(|e| Error::Input(format!("{}: not JSON: {e}", path.display())))?;
    Ok(v.get("gapscore_seal_combined").is_some())
}

/// The seal author families a record names: a single record's `author_family`, or every
/// suite's of a combined one.
pub fn author_families(path: &Path) -> Result<Vec<String>, Error> {
    if is_combined(path)? {
        return Ok(read_combined(path)?
            .suites
            .into_iter()
            .map(|s| s.author_family)
            .collect());
    }
    Ok(fs::read_record(path)?.author_family.into_iter().collect())
}

/// Combines single-suite records into one; each must name its author family. With a
/// contradictions file, the §4.6.2 spec ambiguity is computed and kept.
pub fn combine(
    records: &[PathBuf],
    contradictions: Option<&Path>,
    created: impl Into<String>,
) -> Result<CombinedSeal, Error> {
    let mut suites = Vec::new();
    for path in records {
        let r = fs::read_record(path)?;
        let Some(family) = r.author_family.clone() else {
            return Err(Error::Usage(format!(
                "{}: the record names no author family; seal the suite again with --author-family",
                path.display()
            )));
        };
        suites.push(SuiteSeal::new(
            family,
            r.hash.clone(),
            r.directory.clone(),
            path.display().to_string(),
        ));
    }
    let mut combined =
        CombinedSeal::new(suites, created).map_err(|e| Error::Usage(e.to_string()))?;
    if let Some(path) = contradictions {
        let c: Contradictions = serde_json::from_str(&read_text(path)?).map_err(|e| {
            Error::Input(format!(
                "{}: not a contradictions file: {e}",
                path.display()
            ))
        })?;
        combined.spec_ambiguity = Some(
            c.ambiguity()
                .map_err(|e| Error::Input(format!("{}: {e}", path.display())))?,
        );
    }
    Ok(combined)
}
