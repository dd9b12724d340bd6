//! The end of a stream: whether every test binary ran to its summary and reported every test
//! it declared, and whether its verdict agrees with its results. What a binary does not show
//! becomes a problem, so a run cut short or a binary that crashed never reads as complete:
//!
//! - a binary whose suite never ended: `crash` when another binary's suite follows (cargo went
//!   on after it died: an abort, a segfault, a signal; `killed` when cargo's merged line names
//!   SIGKILL), `truncated` when the stream ends there;
//! - a libtest suite's summary (`passed + failed + ignored + measured`, `failed`, `ignored`)
//!   beside its `test_count` and the results the stream shows: summary-object evidence, judged
//!   by the one rule (declared and never reported: `missing-tests`; failures or ignores beyond
//!   the stream's: `summary-counts`);
//! - tests a suite without a summary (nextest's, or one cut short) declares in `test_count` and
//!   never started: one `missing-tests` problem counting them (those started and never finished
//!   are the Normalizer's `missing-results`);
//! - a suite that ended `failed` while none of its tests failed: `suite-error`;
//! - a libtest binary with more results than it declared: `suite-error` counting the extra
//!   ones (one libtest process writes exactly its declared results; more were written by
//!   something else, such as code under test printing event lines to the real stdout).

use gapscore_adapter_sdk::Code;
use gapscore_adapter_sdk::{
    Declared, DeclaredCount, Evidence, EvidenceSource, Problem, ProblemKind, ReadCounts,
};

use crate::binary::{Binary, Mode};

/// How the problems name a binary: its label, or its place in the stream.
fn binary_name(b: &Binary, index: usize) -> String {
    match &b.label {
        Some(l) => format!("test binary `{l}`"),
        None => format!("test binary #{}", index + 1),
    }
}

fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// nextest suites that name no binary (plain `libtest-json`), and whether any test failed.
#[derive(Debug, Default)]
pub struct Unattributed {
    /// Suites started.
    pub suites: u64,
    /// Suites started less suites ended.
    pub open: i64,
    /// One of them ended `failed`.
    pub failed_verdict: bool,
    /// A test of the stream failed.
    pub any_failure: bool,
}

/// What the end of a stream found.
#[derive(Debug, Default)]
pub struct Judged {
    /// Run-level problems, in order.
    pub problems: Vec<Problem>,
    /// Warnings.
    pub warnings: Vec<(Code, String)>,
    /// The suites' own counts, for the sink to judge.
    pub evidence: Vec<Evidence>,
}

/// Judges every binary's counts; `all_finished` is whether no test is left open, `cut` the byte
/// offset of a last line cut part way.
pub fn judge(
    binaries: &[Binary],
    mode: Mode,
    unattributed: &Unattributed,
    all_finished: bool,
    cut: Option<u64>,
) -> Judged {
    let nextest = mode == Mode::Nextest;
    let count = binaries.len();
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let mut evidence = Vec::new();
    let mut cut_reported = false;
    for (index, b) in binaries.iter().enumerate() {
        let who = binary_name(b, index);
        let suite = b.label.clone();
        let with_suite = |p: Problem| match &suite {
            Some(s) => p.with_suite(s.clone()),
            None => p,
        };
        let unended = b.started > b.ended;
        if unended {
            let last = index + 1 == count || nextest;
            let (kind, detail) = if last {
                cut_reported = true;
                let at = cut.map_or(String::new(), |at| {
                    format!(" (its last line is cut at byte {at})")
                });
                (
                    ProblemKind::Truncated,
                    format!(
                        "the stream ends before {who} reported its summary{at}: the run was cut"
                    ),
                )
            } else {
                let why = b
                    .exit
                    .as_ref()
                    .map_or(String::new(), |e| format!(": cargo says it exited {e}"));
                // cargo names the signal: SIGKILL is the OOM killer or a watchdog.
                let killed = b
                    .exit
                    .as_ref()
                    .is_some_and(|e| e.contains("(signal: 9, SIGKILL"));
                (
                    if killed {
                        ProblemKind::Killed
                    } else {
                        ProblemKind::Crash
                    },
                    format!("{who} stopped before its summary (it crashed or was killed){why}"),
                )
            };
            problems.push(with_suite(Problem::new(kind, detail)));
        }
        let seen = b.finished + b.open;
        // One libtest process writes exactly its declared results: more are lines the binary
        // did not write as results (code under test printing to the real stdout, two runs
        // mixed). Which are the extra ones is unknown, so each counts as failed: a problem of
        // this producer's, not a better claim.
        let summary_total = b.summary.filter(|_| !nextest).map(|s| s.total());
        let extra = match (b.declared, summary_total) {
            (Some(d), t) if !nextest => seen.saturating_sub(d.max(t.unwrap_or(0))),
            _ => 0,
        };
        let mut explained = false;
        match b.summary.filter(|_| !nextest) {
            Some(s) => {
                let declared = b.declared.map_or(s.total(), |d| d.max(s.total()));
                let e = Evidence::new(EvidenceSource::SummaryObject, format!("{who}'s summary"))
                    .declaring(
                        Declared::new()
                            .tests(DeclaredCount::Number(declared))
                            .failed(DeclaredCount::Number(s.failed))
                            .skipped(DeclaredCount::Number(s.ignored)),
                    )
                    .reading(ReadCounts::new(
                        seen - extra,
                        b.failures - b.allowed_fail,
                        b.ignored,
                    ));
                let e = match &suite {
                    Some(l) => e.with_scope(l.clone()),
                    None => e,
                };
                explained = !e.judge().problems.is_empty();
                evidence.push(e);
            }
            // nextest's suite summaries count only their own part of a binary; a suite cut
            // short has none: its `test_count` is what it declared.
            None => {
                if let Some(declared) = b.declared {
                    let missing = declared.saturating_sub(seen);
                    if missing > 0 {
                        explained = true;
                        let unfinished = if b.open > 0 {
                            format!(" and {} without a result", plural(b.open, "started test"))
                        } else {
                            String::new()
                        };
                        problems.push(with_suite(
                            Problem::new(
                                ProblemKind::MissingTests,
                                format!(
                                    "{who} declares {} and the stream holds {}{unfinished}: {} never reported, each counted as failed",
                                    plural(declared, "test"),
                                    plural(b.finished, "result"),
                                    plural(missing, "test"),
                                ),
                            )
                            .with_count(missing),
                        ));
                    } else if seen > declared && nextest {
                        // nextest may report a test again (retries): not evidence of forgery.
                        warnings.push((
                            Code::DeclaredCountMismatch,
                            format!(
                                "{who} declares {} and the stream holds {} results",
                                plural(declared, "test"),
                                seen
                            ),
                        ));
                    }
                }
            }
        }
        if extra > 0 {
            problems.push(with_suite(
                Problem::new(
                    ProblemKind::SuiteError,
                    format!(
                        "{who} declares {} and the stream holds {seen} results: {} not the binary's own, each counted as failed",
                        plural(seen - extra, "test"),
                        if extra == 1 {
                            "1 result is".to_owned()
                        } else {
                            format!("{extra} results are")
                        }
                    ),
                )
                .with_count(extra),
            ));
        }
        if b.failed_verdict && b.failures == 0 && !explained && b.open == 0 {
            problems.push(with_suite(Problem::new(
                ProblemKind::SuiteError,
                format!(
                    "{who}'s suite failed while none of its {} failed: what failed is not in the results",
                    plural(b.finished, "test")
                ),
            )));
        }
    }
    if nextest && unattributed.suites > 0 {
        if unattributed.open > 0 && !cut_reported {
            cut_reported = true;
            problems.push(Problem::new(
                ProblemKind::Truncated,
                format!(
                    "the stream ends with {} without a summary: the run was cut",
                    plural(unattributed.open.unsigned_abs(), "nextest suite")
                ),
            ));
        }
        if unattributed.failed_verdict && !unattributed.any_failure && all_finished {
            problems.push(Problem::new(
                ProblemKind::SuiteError,
                "a nextest suite failed while no test failed: what failed is not in the results",
            ));
        }
        warnings.push((Code::ResultsNotListed, format!(
            "nextest's libtest-json does not say which test binary each of its {} declares its count for, so missing tests are not counted; use --message-format libtest-json-plus",
            plural(unattributed.suites, "suite")
        )));
    }
    if let Some(at) = cut
        && !cut_reported
    {
        problems.push(Problem::new(
            ProblemKind::Truncated,
            format!("the stream's last line is cut at byte {at}"),
        ));
    }
    Judged {
        problems,
        warnings,
        evidence,
    }
}
