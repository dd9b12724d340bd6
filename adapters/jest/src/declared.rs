//! What a Jest or Vitest document declares beside its tests (`numTotalTests`,
//! `numFailedTests`, `numPendingTests`, `numTodoTests`, `numTotalTestSuites`, a file's
//! `numFailingTests`), as evidence for the one rule that judges it
//! ([`Evidence::judge`](gapscore_adapter_sdk::Evidence::judge)): the reader says what the
//! document claims and what its tests read, never whether a difference is a warning.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use gapscore_adapter_sdk::{Declared, DeclaredCount, Evidence, EvidenceSource, ReadCounts};

/// A declared count as written: a number, or the JSON text that should have been one (`10.0`,
/// `"10"`, `-1`), kept so that it is a problem, never dropped.
pub(crate) fn count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DeclaredCount>, D::Error> {
    let v = Option::<Value>::deserialize(d)?;
    Ok(v.map(|v| match v.as_u64() {
        Some(n) => DeclaredCount::Number(n),
        None => DeclaredCount::Unreadable(v.to_string()),
    }))
}

/// The root's declared test counts.
#[derive(Debug, Default)]
pub(crate) struct RootCounts {
    pub(crate) total: Option<DeclaredCount>,
    pub(crate) failed: Option<DeclaredCount>,
    pub(crate) pending: Option<DeclaredCount>,
    pub(crate) todo: Option<DeclaredCount>,
    pub(crate) total_suites: Option<DeclaredCount>,
}

/// What the tests of the document read, counted as the runner counts them.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Read {
    pub(crate) total: u64,
    /// Failed tests, a `passed` contradicted by its own failure records among them (the
    /// runner counted it failed before the edit).
    pub(crate) failed: u64,
    /// Pending, skipped, disabled and todo tests.
    pub(crate) not_run: u64,
    pub(crate) files: u64,
    /// Files that failed to run (`suite-error` problems already reported).
    pub(crate) suite_errors: u64,
}

/// The root's counts as evidence. Jest and Vitest both count a todo test in `numTodoTests`
/// or `numPendingTests` depending on its state, so the two are compared as one sum with every
/// test that did not run. The files declared (`numTotalTestSuites`) are evidence of their own,
/// Jest's only: Vitest counts describe blocks there too. Each missing file counts as one missing
/// test (it held at least one); when tests are missing they already stand for the files.
pub(crate) fn root(c: RootCounts, read: Read, vitest: bool) -> Vec<Evidence> {
    let mut out = Vec::new();
    let mut declared = Declared::new();
    let mut said = Vec::new();
    if let Some(t) = c.total {
        said.push("numTotalTests");
        declared = declared.tests(t);
    }
    if let Some(f) = c.failed {
        said.push("numFailedTests");
        declared = declared.failed(f);
    }
    if c.pending.is_some() || c.todo.is_some() {
        said.push("numPendingTests + numTodoTests");
    }
    if let Some(k) = DeclaredCount::saturating_sum(c.pending, c.todo) {
        declared = declared.skipped(k);
    }
    if said.is_empty() && c.total_suites.is_none() {
        return out;
    }
    let place = format!("the document's `{}`", said.join("`, `"));
    let tests = Evidence::new(EvidenceSource::SummaryObject, place)
        .declaring(declared)
        .reading(
            ReadCounts::new(read.total, read.failed, read.not_run).with_problems(read.suite_errors),
        );
    let tests_missing = tests
        .judge()
        .problems
        .iter()
        .any(|p| p.kind == gapscore_adapter_sdk::ProblemKind::MissingTests);
    if !said.is_empty() {
        out.push(tests);
    }
    if !vitest && let Some(files) = c.total_suites {
        let read_files = match &files {
            // Missing tests already count for the files that held them.
            DeclaredCount::Number(n) if tests_missing => read.files.max(*n),
            _ => read.files,
        };
        out.push(
            Evidence::new(
                EvidenceSource::SummaryObject,
                "`numTotalTestSuites` (test files, each counted as one test)",
            )
            .declaring(Declared::new().tests(files))
            .reading(ReadCounts::new(read_files, 0, 0)),
        );
    }
    out
}

/// A file's `numFailingTests` (the raw result shape) beside the failures its tests read.
pub(crate) fn file(
    scope: Option<&str>,
    declared: DeclaredCount,
    tests: u64,
    failed: u64,
) -> Evidence {
    let e = Evidence::new(
        EvidenceSource::SummaryObject,
        "the file's `numFailingTests`",
    )
    .declaring(Declared::new().failed(declared))
    .reading(ReadCounts::new(tests, failed, 0));
    match scope {
        Some(s) => e.with_scope(s),
        None => e,
    }
}
