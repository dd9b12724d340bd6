//! Scoring one suite (the sealed or the open results of a run): expand the inputs, read every
//! file in parallel into a [`Tally`] and merge them in input order ([`tally_suite`]). Shared by
//! `gapscore score`, batch scoring and the validations `feedback` and `harden record` read
//! ([`crate::validation`]), so the same files score the same whichever command reads them.
//!
//! Nothing is printed here: every note is returned as a [`Diagnostic`], in the order it arose,
//! and the caller prints (or records) them.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use gapscore_core::Code;
use gapscore_core::categories::CategoryRules;
use gapscore_core::skip_scope::SkipScope;
use gapscore_core::{
    EventSink, IdFinder, InputInfo, Manifest, Problem, ProblemKind, Spill, StatusPolicy, Tally,
};

use gapscore_adapters::{
    AppendParts, IngestError, IngestOptions, Input, Outcome, Registry, expand_inputs, ingest,
    ingest_appendable,
};

/// Formats that are a runner's console text: read from a directory only when no structured
/// result file was found there (see [`tally_suite`]).
pub const CONSOLE_TEXT_FORMATS: [&str; 2] = ["pytest-text", "go-test-text"];

/// How the tallies of a file's parts, read on several threads, become the file's tally: the
/// tally's own rules, handed to the host (which depends on no scoring crate).
const TALLY_PARTS: AppendParts<Tally> = AppendParts {
    fits: Tally::parts_may_append,
    can_append: Tally::can_append_all,
    append: Tally::merge,
};

/// How the tallies of one suite are made.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SuiteOptions {
    /// What skipped, xfailed and flaky tests count as.
    pub policy: StatusPolicy,
    /// Expected test ids (sealed suite with a seal record listing them).
    pub manifest: Option<Arc<Manifest>>,
    /// Category rules applied after the adapters' own categories.
    pub rules: Option<Arc<CategoryRules>>,
    /// Keep test names (for the overlap ratio).
    pub names: bool,
    /// List every test that did not fail (for an output that lists every test: JUnit), spilled
    /// like the failure entries.
    pub list_tests: bool,
    /// How files are read: forced format, threads.
    pub ingest: IngestOptions,
    /// Where failure entries past a memory budget go (each file's tally and the suite's own),
    /// so that memory does not grow with the number of failures; `None` keeps them in memory.
    pub spill: Option<Spill>,
    /// Where a lenient policy applies (see [`SkipScope`]); the default trusts every decision.
    pub skip_scope: Arc<SkipScope>,
    /// The input that is the command's own standard output (`run --results -`), which the
    /// implementation can print to: lines in it that are not TAP, in a stream read as TAP, make
    /// the run's report advisory (`foreign-content`), not only a warning.
    pub shared_stream: Option<PathBuf>,
}

impl SuiteOptions {
    /// Options with a policy; no manifest, no rules, names not kept, default ingestion.
    pub fn new(policy: StatusPolicy) -> Self {
        SuiteOptions {
            policy,
            manifest: None,
            rules: None,
            names: false,
            list_tests: false,
            ingest: IngestOptions::default(),
            spill: None,
            skip_scope: Arc::default(),
            shared_stream: None,
        }
    }
}

/// How much a [`Diagnostic`] weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Something that keeps the suite from being scored completely (an unreadable file).
    Error,
    /// Something the user should know; the score still stands.
    Warning,
    /// What happened, told as it happened (how `gapscore run`'s command ended).
    Note,
}

/// A note about a score, in the order it arose: its stable code decides what it is (batch
/// and grouping read the code), the message says it to a person.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The registry code (`gapscore explain CODE`).
    pub code: Code,
    /// The text shown.
    pub message: String,
}

impl Diagnostic {
    /// An error.
    pub fn error(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
        }
    }

    /// A warning.
    pub fn warning(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            code,
            message: message.into(),
        }
    }

    /// A note.
    pub fn note(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Note,
            code,
            message: message.into(),
        }
    }

    /// Whether it is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// One suite, scored.
#[derive(Debug)]
#[non_exhaustive]
pub struct SuiteScore {
    /// The merged, finished tally.
    pub tally: Tally,
    /// Every file read, in input order.
    pub inputs: Vec<InputInfo>,
    /// Files that were cut off (a `truncated` problem).
    pub cut: Vec<String>,
    /// Inputs that could not be read (each also has an error [`Diagnostic`]).
    pub failed: usize,
    /// Errors and warnings, in order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads and scores every file of one suite, in parallel, into one tally (merged in input
/// order). Each file that cannot be read is an error diagnostic and counted in
/// [`SuiteScore::failed`]; the others are still read, so every error shows in one run. A suite
/// whose files were all skipped (nothing recognised them) counts as failed too: it did not run
/// as far as anyone can tell.
pub fn tally_suite(
    registry: &Registry,
    role: &str,
    paths: &[PathBuf],
    opts: &SuiteOptions,
) -> SuiteScore {
    let (expanded, errors) = expand_inputs(paths);
    tally_inputs(registry, role, expanded, errors, opts)
}

/// [`tally_suite`] for arguments already expanded (by [`expand_inputs`]: directories walked,
/// globs matched, pipes and standard input copied), for a caller that looks at an input before
/// it is scored (`harden record` asks whether its one input is a Gap Report; a pipe can be read
/// only once).
pub fn tally_inputs(
    registry: &Registry,
    role: &str,
    expanded: Vec<Input>,
    errors: Vec<IngestError>,
    opts: &SuiteOptions,
) -> SuiteScore {
    let mut diagnostics = Vec::new();
    let mut failed = 0usize;
    let mut inputs = Vec::new();
    let mut cut = Vec::new();
    for e in errors {
        diagnostics.push(Diagnostic::error(
            Code::InputUnreadable,
            format!("{e} ({role} results)"),
        ));
        failed += 1;
    }
    let new_tally = || {
        let mut t = match &opts.manifest {
            Some(m) => Tally::with_manifest(opts.policy, m.clone()),
            None => Tally::new(opts.policy),
        };
        t.set_rules(opts.rules.clone());
        t.set_skip_scope(opts.skip_scope.clone());
        t.collect_names(opts.names);
        if let Some(spill) = &opts.spill {
            t.spill_failures(spill.clone());
        }
        if opts.list_tests {
            t.list_tests(opts.spill.clone());
        }
        t
    };
    let outcomes = ingest_appendable(
        registry,
        &expanded,
        &opts.ingest,
        TALLY_PARTS,
        |source, _format| {
            let mut t = new_tally();
            t.set_source(Some(source.to_owned()));
            t
        },
    );
    let mut tally = new_tally();
    // Console text found in a directory is read only when nothing structured was found: beside
    // a junit.xml, pytest's console log is a second copy of the same tests.
    let structured_found = expanded.iter().zip(&outcomes).any(|(input, o)| {
        !input.explicit
            && matches!(o, Outcome::Parsed(p) if !CONSOLE_TEXT_FORMATS.contains(&p.format.as_str()))
    });
    let mut left_out = Vec::new();
    // The files whose tests were counted, for the second look at repeated ids.
    let mut read = Vec::new();
    for (input, outcome) in expanded.iter().zip(outcomes) {
        match outcome {
            Outcome::Parsed(p)
                if structured_found
                    && !input.explicit
                    && CONSOLE_TEXT_FORMATS.contains(&p.format.as_str()) =>
            {
                left_out.push(input.path.display().to_string());
            }
            Outcome::Parsed(mut p) => {
                read.push(input.clone());
                if opts.shared_stream.as_deref() == Some(input.source()) {
                    foreign_lines_on_shared_stream(&p.format, &mut p.consumer);
                }
                p.consumer.finish();
                if let Some(x) = p
                    .consumer
                    .problems
                    .iter()
                    .find(|x| x.kind == ProblemKind::Truncated)
                {
                    cut.push(cut_place(&input.path, &x.detail));
                }
                let mut info =
                    InputInfo::new(role, input.path.display().to_string(), p.format.clone());
                info.producer = p.consumer.producers.first().cloned();
                inputs.push(info);
                tally.merge(p.consumer);
            }
            // A file found in a directory that nothing can read is an error, as it is when
            // named or matched by a glob: it may be the results of the tests that failed.
            Outcome::Skipped { path, reason } => {
                diagnostics.push(Diagnostic::error(Code::InputNotResults, format!(
                    "{path}: {reason} (found in a directory; name the result files, or a glob of them, to leave other files out: on the command line, or as `{role} = [...]` in a batch manifest) ({role} results)"
                )));
                failed += 1;
            }
            Outcome::LeftOut { path, reason } => {
                diagnostics.push(Diagnostic::warning(
                    Code::InputLeftOut,
                    format!("{path}: not read: {reason} ({role} results)"),
                ));
            }
            Outcome::Failed(e) => {
                diagnostics.push(Diagnostic::error(
                    Code::InputUnreadable,
                    format!("{e} ({role} results)"),
                ));
                failed += 1;
            }
        }
    }
    if !left_out.is_empty() {
        diagnostics.push(Diagnostic::warning(Code::ConsoleBesideStructured, format!(
            "{role} results: console text beside structured results is not read as a second copy of the same tests: {} (name a file to read it)",
            left_out.join(", ")
        )));
    }
    tally.finish();
    if let Some(n) = tally.duplicate_check_stopped_after() {
        diagnostics.push(Diagnostic::warning(Code::DuplicateCheckStopped, format!(
            "{role} results: the duplicate-id check stopped after {n} tests to keep memory bounded; later repeats are not named (every entry is still counted)"
        )));
    }
    if tally.suites_merged_away() > 0 {
        let w = format!(
            "{role} results: {} suites past the first {} are counted together under `{}` in the per-suite counts (the totals are exact)",
            tally.suites_merged_away(),
            gapscore_core::tally::SUITE_LIMIT,
            gapscore_core::tally::OTHER_SUITES
        );
        // Kept with the report's warnings (and printed with them).
        tally.warnings.push(Code::SuitesMergedAway, w);
    }
    if let Some(e) = tally.failures.spill_error() {
        diagnostics.push(Diagnostic::warning(Code::SpillUnavailable, format!(
            "{role} results: cannot write failure entries to a temporary file ({e}); they are kept in memory"
        )));
    }
    // The tally knows repeated ids only by fingerprint (8 bytes per test); when there are any,
    // a second read of the same files names them.
    let repeated = tally.repeated();
    if !repeated.is_empty() {
        let mut finder = IdFinder::new(&repeated);
        let mut per_file: Vec<(String, HashSet<String>)> = Vec::new();
        for (input, outcome) in read
            .iter()
            .zip(ingest(registry, &read, &opts.ingest, |_, _| {
                IdFinder::new(&repeated)
            }))
        {
            if let Outcome::Parsed(p) = outcome {
                let ids = p.consumer.seen().map(|(id, _)| id.to_owned()).collect();
                per_file.push((input.path.display().to_string(), ids));
                finder.merge(p.consumer);
            }
        }
        copies_warning(role, &per_file, &mut diagnostics);
        tally.duplicates = finder
            .into_repeated()
            .into_iter()
            .map(|(id, n)| {
                diagnostics.push(Diagnostic::warning(
                    Code::DuplicateTestId,
                    format!("{role} test id `{id}` occurs {n} times; every entry is counted"),
                ));
                id
            })
            .collect();
    }
    SuiteScore {
        tally,
        inputs,
        cut,
        failed,
        diagnostics,
    }
}

/// The warnings the inputs raised while being read (each suite's kept messages, the open
/// suite's marked `open:`), and a note of how many more were not kept: what a score shows on
/// stderr once its inputs were all read, and what a hardening cycle shows for the same files.
pub fn tally_warnings(sealed: &Tally, open: Option<&Tally>) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = sealed
        .warnings
        .messages()
        .iter()
        .map(|(code, w)| Diagnostic::warning(*code, w.clone()))
        .collect();
    if let Some(o) = open {
        out.extend(
            o.warnings
                .messages()
                .iter()
                .map(|(code, w)| Diagnostic::warning(*code, format!("open: {w}"))),
        );
    }
    let not_kept = sealed.warnings.not_kept() + open.map_or(0, |o| o.warnings.not_kept());
    if not_kept > 0 {
        out.push(Diagnostic::warning(Code::WarningsNotKept, format!(
            "{not_kept} more warnings were raised and not kept (the first {} of each suite are shown); the report's gapscore.warning_counts counts every one by kind",
            gapscore_core::warnings::KEPT_WARNINGS
        )));
    }
    out
}

/// A cut file for the message that names it: its path and where it is cut, from the
/// reader's detail when that gives a byte offset, else the file's size (`cut.jsonl at byte
/// 1234: the stream ends before …`).
fn cut_place(path: &std::path::Path, detail: &str) -> String {
    let detail = detail.lines().next().unwrap_or("").trim();
    let detail: String = detail.chars().take(200).collect();
    let at = if detail.contains("byte") {
        String::new()
    } else {
        std::fs::metadata(path)
            .map(|m| format!(" at byte {}", m.len()))
            .unwrap_or_default()
    };
    match detail.is_empty() {
        true => format!("{}{at}", path.display()),
        false => format!("{}{at}: {detail}", path.display()),
    }
}

/// Two files that hold the same tests are most likely two copies of one run (a junit.xml and a
/// JSON report of the same pytest session, a results file copied twice): say so once per pair,
/// at most a few pairs. Every entry is still counted; the per-id warnings follow.
fn copies_warning(role: &str, per_file: &[(String, HashSet<String>)], out: &mut Vec<Diagnostic>) {
    const PAIRS: usize = 5;
    let mut said = 0;
    for (i, (a, ids_a)) in per_file.iter().enumerate() {
        for (b, ids_b) in per_file.iter().skip(i + 1) {
            let shared = ids_a.intersection(ids_b).count();
            if shared == 0 {
                continue;
            }
            if said == PAIRS {
                out.push(Diagnostic::warning(
                    Code::IdsSharedAcrossFiles,
                    format!(
                        "{role} results: more files share test ids; see the repeated ids below"
                    ),
                ));
                return;
            }
            said += 1;
            let msg = if a == b {
                format!(
                    "{role} results: `{a}` is given twice ({shared} test ids read twice); every entry is counted: pass it once"
                )
            } else {
                format!(
                    "{role} results: `{a}` and `{b}` hold {shared} of the same test ids: two copies of one run? Every entry is counted; pass one of them"
                )
            };
            out.push(Diagnostic::warning(Code::IdsSharedAcrossFiles, msg));
        }
    }
}

/// A TAP stream read from the command's own standard output with lines that are not TAP (the
/// reader's `W104`): the implementation printed into the stream the results are read from (a
/// forged TAP prefix makes Mocha's JSON after it read as TAP), so the report is advisory.
fn foreign_lines_on_shared_stream(format: &str, tally: &mut Tally) {
    if format != "tap" {
        return;
    }
    let unread: u64 = tally
        .warnings
        .counts()
        .iter()
        .filter(|c| c.code == Some(Code::UnreadLines))
        .map(|c| c.count)
        .sum();
    if unread > 0 {
        tally.problem(Problem::new(
            ProblemKind::ForeignContent,
            "the command's standard output, read as TAP, holds lines that are not TAP: something besides the runner printed into the stream the results are read from (have the runner write its results to a file)",
        ));
    }
}
