//! The expected sealed tests of a seal record (`gapscore seal --expect`): the leaf tests of a
//! stub run's result files. Here rather than in the seal crate because it reads result files
//! through the adapters.

use std::path::PathBuf;

use gapscore_adapters::{
    IngestError, IngestOptions, Input, Outcome, Registry, expand_inputs, ingest,
};
use gapscore_core::{Code, RunCollector};

use crate::expect_place::{Place, SealedPlace};
use crate::suite::Diagnostic;

/// The ids of the leaf tests in a stub run's result files, for a record's expected-test list,
/// with a diagnostic for each file that cannot be used. A file that reports run-level problems
/// (a collection error) would give an incomplete list: that is an error diagnostic too. The ids
/// are `None` when any file could not be used.
pub fn expected_ids(
    registry: &Registry,
    paths: &[PathBuf],
    ingest_opts: &IngestOptions,
) -> (Option<Vec<String>>, Vec<Diagnostic>) {
    let (inputs, errors) = expand_inputs(paths);
    expected_ids_in(registry, inputs, errors, ingest_opts, None)
}

/// [`expected_ids`] of inputs already expanded (a stub run's standard output named `-`). With
/// `sealed`, a result whose file lies outside the sealed directory is left out (`W227`; `E014`
/// when that leaves none), and results with no known place are kept but noted (`W228`).
pub(crate) fn expected_ids_in(
    registry: &Registry,
    inputs: Vec<Input>,
    errors: Vec<IngestError>,
    ingest_opts: &IngestOptions,
    sealed: Option<&SealedPlace>,
) -> (Option<Vec<String>>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let mut failed = errors.len();
    for e in errors {
        diagnostics.push(Diagnostic::error(
            Code::InputUnreadable,
            format!("{e} (--expect)"),
        ));
    }
    // Every leaf, repeats kept: an id that occurs twice in the stub run is expected twice.
    let mut ids = Vec::new();
    let mut outside: Vec<String> = Vec::new();
    let mut unplaced = 0usize;
    for o in ingest(registry, &inputs, ingest_opts, |source, format| {
        RunCollector::new(format, Some(source.to_owned()))
    }) {
        match o {
            Outcome::Parsed(p) => {
                let run = p.consumer.into_run();
                let source = run.source.clone().unwrap_or_default();
                if !run.problems.is_empty() {
                    let kinds: Vec<String> =
                        run.problems.iter().map(|p| p.kind.to_string()).collect();
                    diagnostics.push(Diagnostic::error(
                        Code::ExpectIncomplete,
                        format!(
                            "{source}: reports {} ({}); its test list may be incomplete (--expect)",
                            if kinds.len() == 1 {
                                "a problem"
                            } else {
                                "problems"
                            },
                            kinds.join(", ")
                        ),
                    ));
                    failed += 1;
                    continue;
                }
                // A module-level skip (`pytest.skip(..., allow_module_level=True)`) is recorded
                // as one pseudo-test named after the module: the tests in it are not listed, so
                // the record would not expect them. Refuse the list, naming the module.
                if let Some(t) = run.tests.iter().find(|t| module_level_skip(&run.format, t)) {
                    diagnostics.push(Diagnostic::error(Code::ExpectModuleSkipped, format!(
                        "{source}: `{}` is skipped as a whole module, so its tests are not listed; run the stub without the module-level skip to record them (--expect)",
                        t.id
                    )));
                    failed += 1;
                    continue;
                }
                for t in run.tests.into_iter().filter(|t| !t.parent) {
                    match sealed.map(|s| s.of(&run.format, &t)) {
                        Some(Place::Outside(file)) => outside.push(format!("{} ({file})", t.id)),
                        Some(Place::Unknown) => {
                            unplaced += 1;
                            ids.push(t.id);
                        }
                        Some(Place::Inside) | None => ids.push(t.id),
                    }
                }
            }
            Outcome::Skipped { path, reason } => {
                diagnostics.push(Diagnostic::error(
                    Code::InputNotResults,
                    format!("{path}: {reason} (--expect)"),
                ));
                failed += 1;
            }
            Outcome::LeftOut { path, reason } => {
                diagnostics.push(Diagnostic::warning(
                    Code::InputLeftOut,
                    format!("{path}: not read: {reason} (--expect)"),
                ));
            }
            Outcome::Failed(e) => {
                diagnostics.push(Diagnostic::error(
                    Code::InputUnreadable,
                    format!("{e} (--expect)"),
                ));
                failed += 1;
            }
        }
    }
    if failed > 0 {
        diagnostics.push(Diagnostic::error(
            Code::ExpectUnusable,
            format!(
                "{failed} --expect input{} could not be used; no seal written",
                if failed == 1 { "" } else { "s" }
            ),
        ));
        return (None, diagnostics);
    }
    if !outside.is_empty() {
        outside.sort();
        let shown: Vec<&str> = outside.iter().take(3).map(String::as_str).collect();
        let more = outside.len() - shown.len();
        diagnostics.push(Diagnostic::warning(
            Code::ExpectOutsideDir,
            format!(
                "{} test{} the stub run reported lie{} outside the sealed directory and {} not listed: {}{} (--expect-run)",
                outside.len(),
                if outside.len() == 1 { "" } else { "s" },
                if outside.len() == 1 { "s" } else { "" },
                if outside.len() == 1 { "is" } else { "are" },
                shown.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() }
            ),
        ));
        if ids.is_empty() {
            diagnostics.push(Diagnostic::error(
                Code::ExpectNoneInside,
                "no test the stub run reported lies inside the sealed directory; no seal written (--expect-run)",
            ));
            return (None, diagnostics);
        }
    }
    if unplaced > 0 {
        diagnostics.push(Diagnostic::warning(
            Code::ExpectPlaceUnknown,
            format!(
                "{unplaced} listed test{} name{} no file, so nothing checks that {} in the sealed directory (--expect-run)",
                if unplaced == 1 { "" } else { "s" },
                if unplaced == 1 { "s" } else { "" },
                if unplaced == 1 { "it lies" } else { "they lie" },
            ),
        ));
    }
    ids.sort();
    (Some(ids), diagnostics)
}

/// A pytest entry that stands for a whole module skipped at collection. pytest-json-report and
/// pytest-reportlog record it as a skipped test whose id is the module's file
/// (`tests/test_x.py`, no `::` test part); `--junitxml` as a skipped testcase whose message
/// begins `collection skipped` (its name is the dotted module, `tests.test_x`).
fn module_level_skip(format: &str, t: &gapscore_core::TestCase) -> bool {
    if t.status != gapscore_core::Status::Skipped {
        return false;
    }
    let collection_skip = t
        .message
        .as_deref()
        .is_some_and(|m| m.starts_with("collection skipped"));
    (format.starts_with("pytest") && !t.id.contains("::") && t.id.ends_with(".py"))
        || (format == "junit-xml" && collection_skip)
}
