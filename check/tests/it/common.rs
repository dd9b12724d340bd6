//! Helpers the checker's integration tests share: where an evidence fixture lies, and which
//! rules a result has errors of.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use gapscore_check::{FileResult, Severity};

/// A path under `conformance-tests/fixtures/evidence/`.
pub(crate) fn evidence_fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance-tests/fixtures/evidence")
        .join(rel)
}

/// The rules with at least one error in `r`.
pub(crate) fn error_rules(r: &FileResult) -> BTreeSet<String> {
    r.findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| f.rule.clone())
        .collect()
}
