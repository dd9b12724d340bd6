//! What `gapscore run` adds to a score (issue 19): the runner's evidence becomes counted
//! problems, and the result files are checked for this run's writing before they are read.
//!
//! The score itself is still made by [`crate::score()`]: a run is a [`crate::ScoreRequest`] with
//! [`crate::ScoreRequest::runner`] set, whose problems are added to the sealed suite like any
//! problem a result file reports (each one failure, and the report advisory).

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use gapscore_adapters::{IngestError, Input, expand_inputs};
use gapscore_core::WorkspaceIsolation;
use gapscore_core::runner_report::{ConsoleSummaryReport, Freshness, ResultFile, RunnerReport};
use gapscore_core::{EventSink, Problem, ProblemKind, Tally};
use gapscore_runner::exec::RunEvidence;
use gapscore_runner::recognise::Recognised;
use gapscore_runner::sandbox::SandboxKind;
use gapscore_runner::watch::{FileIdentity, TouchedFile};

use crate::console::{self, ConsoleCheck};

/// The note a report read from the command's standard output carries (`--results -`).
pub const SHARED_STREAM_NOTE: &str = "the results were read from the command's standard output (--results -), which the code under test shares: a test can print lines that read as results; docs/run.md says how to have the runner write them to a file instead";

/// The place runner problems are filed under in the report (`[timeout] runner`).
pub const RUNNER_PLACE: &str = "runner";

/// The most of a stream's end quoted in a problem's detail.
const DETAIL_BYTES: usize = 2048;

/// The most lines quoted in a problem's detail.
const DETAIL_LINES: usize = 20;

/// Everything a run adds to its score.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunnerInput {
    /// What running the command showed.
    pub evidence: RunEvidence,
    /// The result files looked for, and the problems of those not this run's.
    pub results: ResultsCheck,
    /// `copy` or `inplace`.
    pub isolation: String,
    /// The sandbox the command ran in.
    pub sandbox: SandboxKind,
    /// Sealed files whose identity (inode, size, mtime, ctime) changed during the run, even if
    /// their content was put back: the seal is broken.
    pub sealed_touched: Vec<TouchedFile>,
    /// What was done to isolate the run.
    pub notes: Vec<String>,
    /// What `--trust-workspace-runner` let the command load from the workspace.
    pub trusted_workspace_runner: Vec<String>,
    /// Failure lines recognised in the command's output.
    pub recognised: Vec<Recognised>,
    /// The file the command's standard output was copied to (`--results -`): named `-` in the
    /// report.
    pub stdout_copy: Option<PathBuf>,
    /// Temporary paths of this run, new every time, each with what it is written as in the
    /// report instead (the copy the command ran in, `dir/` as nothing, so a path in a stack
    /// trace reads relative to the project; the scratch directory as a placeholder): a test's
    /// message, a problem and a note read the same on every run.
    pub temporary_paths: Vec<(String, String)>,
    /// Python modules outside the sealed directory with a sealed test module's dotted path:
    /// `(sealed module, twin)`, relative to where the command ran.
    pub dotted_twins: Vec<(String, String)>,
}

impl RunnerInput {
    /// The evidence of a run and its result files.
    pub fn new(evidence: RunEvidence, results: ResultsCheck, isolation: impl Into<String>) -> Self {
        RunnerInput {
            evidence,
            results,
            isolation: isolation.into(),
            sandbox: SandboxKind::None,
            sealed_touched: Vec::new(),
            notes: Vec::new(),
            trusted_workspace_runner: Vec::new(),
            recognised: Vec::new(),
            stdout_copy: None,
            temporary_paths: Vec::new(),
            dotted_twins: Vec::new(),
        }
    }
}

impl RunnerInput {
    /// `report.workspace_isolation` (spec v2 §4.3): `strict` only for a disposable copy the
    /// command could not reach out of (bubblewrap); a copy without a sandbox is `legacy`, since
    /// the command could write the project, the sealed tests' source or anything else.
    pub fn workspace_isolation(&self) -> WorkspaceIsolation {
        if self.isolation == "copy" && self.sandbox == SandboxKind::Bwrap {
            WorkspaceIsolation::Strict
        } else {
            WorkspaceIsolation::Legacy
        }
    }

    /// The sealed files changed during the run, in one line, when any were.
    pub fn sealed_touched_summary(&self) -> Option<String> {
        if self.sealed_touched.is_empty() {
            return None;
        }
        let shown: Vec<String> = self
            .sealed_touched
            .iter()
            .take(5)
            .map(|t| format!("{} ({})", t.path, t.changes.join(", ")))
            .collect();
        let more = self.sealed_touched.len() - shown.len();
        Some(format!(
            "sealed files changed during the run, whatever their content now: {}{}",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ))
    }
}

/// What the result files were before the run: the freshness bound, and the identity of every
/// file the `--results` arguments led to then.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ResultsBaseline {
    /// Files last written before this are an earlier run's (a stamp taken before the workspace
    /// was prepared).
    pub fresh_after: SystemTime,
    /// Each file present before the run, with its identity.
    pub before: Vec<(PathBuf, FileIdentity)>,
}

impl ResultsBaseline {
    /// Only a clock: no file is known from before the run.
    pub fn after(fresh_after: SystemTime) -> Self {
        ResultsBaseline {
            fresh_after,
            before: Vec::new(),
        }
    }

    /// Takes the identity of every file `args` lead to now (relative to the current
    /// directory, as [`check_results`] reads them), before the command runs.
    pub fn take(args: &[PathBuf], fresh_after: SystemTime) -> Self {
        let mut before = Vec::new();
        for arg in args.iter().filter(|a| a.as_os_str() != "-") {
            let (found, _errors) = expand_inputs(std::slice::from_ref(arg));
            for input in found {
                if let Ok(id) = FileIdentity::of_result(&input.path) {
                    before.push((input.path, id));
                }
            }
        }
        ResultsBaseline {
            fresh_after,
            before,
        }
    }

    /// Whether `path` is the very file that was there before the run.
    fn unchanged(&self, path: &Path) -> bool {
        self.before.iter().any(|(p, id)| {
            p == path && FileIdentity::of_result(path).is_ok_and(|now| id.same_result(&now))
        })
    }
}

/// The result files after a run: which to score, and what was found of each.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ResultsCheck {
    /// The inputs to score: an argument as given when every file it leads to is fresh,
    /// otherwise its fresh files one by one.
    pub scored: Vec<PathBuf>,
    /// Every file looked for.
    pub files: Vec<ResultFile>,
    /// A `missing-results` problem per stale or missing file.
    pub problems: Vec<Problem>,
}

/// RFC 3339 UTC with microseconds.
fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_micros(t).to_string()
}

/// Whether a file last written at `modified` was written by a command started at `after`. A
/// time without a fraction of a second comes from a filesystem that keeps whole seconds only:
/// it is compared to the second.
fn is_fresh(modified: SystemTime, after: SystemTime) -> bool {
    let m = modified.duration_since(UNIX_EPOCH).unwrap_or_default();
    let a = after.duration_since(UNIX_EPOCH).unwrap_or_default();
    if m.subsec_nanos() == 0 {
        m.as_secs() >= a.as_secs()
    } else {
        m >= a
    }
}

/// Looks at every result file `args` leads to (files, directories, globs; `-` is the command's
/// standard output, copied to `stdout_copy`): a file last written before the baseline's
/// `fresh_after`, or present before the run and unchanged since (inode, size, mtime, content:
/// whatever the clocks say), is an earlier run's and a missing one is no run's; neither is
/// scored, and each is a `missing-results` problem.
pub fn check_results(
    args: &[PathBuf],
    stdout_copy: Option<&Path>,
    baseline: &ResultsBaseline,
) -> ResultsCheck {
    let fresh_after = baseline.fresh_after;
    let mut check = ResultsCheck::default();
    for arg in args {
        let shown = arg.display().to_string();
        if arg == Path::new("-") {
            let size = stdout_copy
                .and_then(|p| std::fs::metadata(p).ok())
                .map(|m| m.len());
            match (stdout_copy, size) {
                (Some(copy), Some(n)) if n > 0 => {
                    check.scored.push(copy.to_owned());
                    check
                        .files
                        .push(ResultFile::new("-", None, Freshness::Fresh));
                }
                _ => {
                    check
                        .files
                        .push(ResultFile::new("-", None, Freshness::Missing));
                    check.problems.push(
                        Problem::new(
                            ProblemKind::MissingResults,
                            "the command wrote nothing on its standard output, which --results - names as its results",
                        )
                        .with_suite("-"),
                    );
                }
            }
            continue;
        }
        let (found, _errors) = expand_inputs(std::slice::from_ref(arg));
        if found.is_empty() {
            check
                .files
                .push(ResultFile::new(shown.clone(), None, Freshness::Missing));
            check.problems.push(
                Problem::new(
                    ProblemKind::MissingResults,
                    format!("`{shown}` was not there after the run (nothing the command wrote matches it)"),
                )
                .with_suite(shown),
            );
            continue;
        }
        let mut fresh = Vec::new();
        let mut all_fresh = true;
        for input in found {
            let path = input.path;
            let name = path.display().to_string();
            let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
            // Stale by the clock, or else by identity (an mtime moved forward before the run).
            let by_clock = modified.is_some_and(|m| is_fresh(m, fresh_after));
            let untouched = by_clock && baseline.unchanged(&path);
            let freshness = match modified {
                None => Freshness::Missing,
                Some(_) if by_clock && !untouched => Freshness::Fresh,
                Some(_) => Freshness::Stale,
            };
            let stamp = modified.map(rfc3339);
            match freshness {
                Freshness::Fresh => fresh.push(path),
                Freshness::Stale if untouched => {
                    all_fresh = false;
                    check.problems.push(
                        Problem::new(
                            ProblemKind::MissingResults,
                            format!(
                                "`{name}` was there before the run and the run did not write it (same inode, size, mtime and content; its mtime {} says nothing): an earlier run's results, not scored",
                                stamp.as_deref().unwrap_or("?")
                            ),
                        )
                        .with_suite(name.clone()),
                    );
                }
                Freshness::Stale => {
                    all_fresh = false;
                    check.problems.push(
                        Problem::new(
                            ProblemKind::MissingResults,
                            format!(
                                "`{name}` was last written at {}, before the run began at {}: an earlier run's results, not scored",
                                stamp.as_deref().unwrap_or("?"),
                                rfc3339(fresh_after)
                            ),
                        )
                        .with_suite(name.clone()),
                    );
                }
                Freshness::Missing => {
                    all_fresh = false;
                    check.problems.push(
                        Problem::new(
                            ProblemKind::MissingResults,
                            format!("`{name}` could not be looked at after the run"),
                        )
                        .with_suite(name.clone()),
                    );
                }
            }
            check.files.push(ResultFile::new(name, stamp, freshness));
        }
        if all_fresh {
            check.scored.push(arg.clone());
        } else {
            check.scored.extend(fresh);
        }
    }
    check
}

/// The end of a stream, for a problem's detail: at most [`DETAIL_LINES`] lines and
/// [`DETAIL_BYTES`] bytes.
fn tail_for_detail(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let start = lines.len().saturating_sub(DETAIL_LINES);
    let mut out = lines[start..].join("\n");
    if out.len() > DETAIL_BYTES {
        let mut cut = out.len() - DETAIL_BYTES;
        while !out.is_char_boundary(cut) {
            cut += 1;
        }
        out = format!("…{}", &out[cut..]);
    }
    out
}

/// The command's stderr tail (its stdout tail when stderr is empty), introduced.
fn output_detail(e: &RunEvidence) -> String {
    let (name, text) = if e.stderr_tail.trim().is_empty() {
        ("standard output", &e.stdout_tail)
    } else {
        ("standard error", &e.stderr_tail)
    };
    if text.trim().is_empty() {
        return "it printed nothing".to_owned();
    }
    format!("the end of its {name}:\n{}", tail_for_detail(text))
}

/// Whether the sealed results, as read and held against the seal's manifest, show a failure
/// that explains a failing exit status: a failed expected test, an expected test that did not
/// run, or a problem the results report. A failing result the seal does not list explains
/// nothing (it is counted as failed, but an implementation can forge one to "explain" the
/// status), and neither do surplus results.
fn results_show_failure(sealed: &Tally) -> bool {
    let unlisted = sealed.unexpected_failed.len() as u64;
    let surplus: u64 = sealed
        .problems
        .iter()
        .filter(|p| p.kind == ProblemKind::SurplusResults)
        .map(Problem::weight)
        .sum();
    sealed
        .counts
        .failed
        .saturating_sub(unlisted)
        .saturating_sub(surplus)
        > 0
}

/// The runners' console summaries held against every record read (the second channel,
/// [`crate::console`]): the problems, and the report's view of each summary.
fn console_judgement(
    input: &RunnerInput,
    sealed: &Tally,
) -> (Vec<Problem>, Vec<ConsoleSummaryReport>) {
    let check = ConsoleCheck {
        read: &sealed.by_status,
        results_on_stdout: input.stdout_copy.is_some(),
        comparable: input.evidence.exit_code.is_some()
            && !input.evidence.timed_out
            && !input.evidence.interrupted
            && input.results.problems.is_empty()
            && !input.results.scored.is_empty(),
        expected: gapscore_runner::summary::expected_ecosystem(&input.evidence.command),
    };
    console::judge(&input.evidence.summaries, check, RUNNER_PLACE)
}

/// The time limit as given: `--timeout 3 s`.
pub fn limit_phrase(e: &RunEvidence) -> String {
    match e.limit_secs {
        Some(l) => format!("--timeout {l} s"),
        None => "--timeout".to_owned(),
    }
}

/// How the process group ended once told to stop: at once on `SIGTERM`, or killed after the
/// grace period, with the time it took (so a limit of 3 s that took 6 s says why).
pub fn stop_phrase(e: &RunEvidence) -> String {
    let after = e.stop_secs.unwrap_or(0.0);
    if e.killed_after_grace {
        format!(
            "its process group was sent SIGTERM, did not end, and was killed (SIGKILL) {after:.1} s later"
        )
    } else {
        format!("its process group was sent SIGTERM and ended {after:.1} s later")
    }
}

/// The problems the runner's evidence stands for, judged against the sealed results as read.
pub fn runner_problems(input: &RunnerInput, sealed: &Tally) -> Vec<Problem> {
    let e = &input.evidence;
    let mut out = Vec::new();
    let place = |p: Problem| p.with_suite(RUNNER_PLACE);
    // The console's failures explain a failing exit status as the results' would.
    let (console_problems, _) = console_judgement(input, sealed);
    if e.timed_out {
        out.push(place(Problem::new(
            ProblemKind::Timeout,
            format!(
                "the command was still running at the time limit ({}); {}; {}",
                limit_phrase(e),
                stop_phrase(e),
                output_detail(e)
            ),
        )));
    } else if e.interrupted {
        out.push(place(Problem::new(
            ProblemKind::Interrupted,
            "gapscore was interrupted (Ctrl-C) and passed it on to the command's process group; the tests after the interruption never ran",
        )));
    } else if let Some(sig) = e.signal_name() {
        out.push(place(Problem::new(
            ProblemKind::Killed,
            format!("the command was killed by {sig}; {}", output_detail(e)),
        )));
    } else if let Some(code) = e.exit_code
        && code != 0
        && !results_show_failure(sealed)
        && console_problems.is_empty()
    {
        out.push(place(Problem::new(
            ProblemKind::RunnerFailed,
            format!(
                "the command exited with status {code} while its results show no failure; {}",
                output_detail(e)
            ),
        )));
    }
    // A twin's results carry the sealed module's JUnit names: the sealed tests may never have
    // run. One problem per twin, naming both files.
    for (sealed_module, twin) in &input.dotted_twins {
        out.push(place(Problem::new(
            ProblemKind::DottedTwin,
            format!(
                "`{twin}`, outside the sealed directory, has the dotted path of the sealed `{sealed_module}`: pytest's JUnit XML names their tests alike, so a result under a sealed test's name may be the twin's"
            ),
        )));
    }
    // One problem per ecosystem and kind, naming its lines: one failure to build prints several
    // (Go's `FAIL pkg [build failed]` and the compiler's `# pkg` header; rustc one `error[E…]` per
    // error), and each is evidence of the same thing, not of one more failed test.
    let mut groups: Vec<(&str, ProblemKind, &str, Vec<&str>)> = Vec::new();
    for r in &input.recognised {
        match groups
            .iter_mut()
            .find(|g| g.0 == r.ecosystem && g.1 == r.kind)
        {
            Some(g) => {
                if !g.3.contains(&r.line.as_str()) {
                    g.3.push(&r.line);
                }
            }
            None => groups.push((r.ecosystem, r.kind, r.stream, vec![&r.line])),
        }
    }
    for (ecosystem, kind, stream, lines) in groups {
        let shown: Vec<&str> = lines.iter().take(5).copied().collect();
        let more = match lines.len().saturating_sub(shown.len()) {
            0 => String::new(),
            n => format!(" (and {n} more line{})", if n == 1 { "" } else { "s" }),
        };
        out.push(place(Problem::new(
            kind,
            format!(
                "{} ({ecosystem}, {stream}): {}{more}",
                kind.phrase(),
                shown.join(" | ")
            ),
        )));
    }
    out.extend(console_problems);
    out.extend(input.results.problems.iter().cloned());
    out
}

/// Adds the run's problems to the sealed suite and returns the report's `gapscore.runner`.
/// Files the command made under the seal's excluded paths (`__pycache__`) during the run are the
/// runner's own (the run refuses to start beside any): they are named in the notes instead of
/// making the report advisory.
///
/// The problems' details (stderr tails, recognised lines) are scrubbed of sealed source with
/// every other failure entry, by the engine (`score::scrub_sealed_source`).
pub(crate) fn apply(
    input: &RunnerInput,
    sealed: &mut Tally,
    excluded_present: &mut Vec<String>,
) -> RunnerReport {
    let console = console_judgement(input, sealed).1;
    for p in runner_problems(input, sealed) {
        sealed.problem(p);
    }
    // Runner evidence counted among the tests read (a console summary worse than the results)
    // is settled now that it is in.
    sealed.settle();
    forget_temporary_paths(&input.temporary_paths, sealed);
    let e = &input.evidence;
    let mut report = RunnerReport::new(
        e.command.clone(),
        e.started_at.clone(),
        e.duration_secs,
        input.isolation.clone(),
    );
    report.exit_code = e.exit_code;
    report.signal = e.signal_name();
    report.timed_out = e.timed_out;
    report.interrupted = e.interrupted;
    report.leftovers_killed = e.leftovers_killed;
    report.output_held_open = e.output_held_open;
    input.sandbox.as_str().clone_into(&mut report.sandbox);
    report.results.clone_from(&input.results.files);
    report.notes = input
        .notes
        .iter()
        .map(|n| without_temporary_paths(&input.temporary_paths, n))
        .collect();
    report.console = console;
    if input.stdout_copy.is_some() {
        report.results_on_shared_stream = true;
        report.notes.push(SHARED_STREAM_NOTE.to_owned());
    }
    report
        .trusted_workspace_runner
        .clone_from(&input.trusted_workspace_runner);
    if !excluded_present.is_empty() {
        report.notes.push(format!(
            "the command made {} file{} under paths the seal excludes in the sealed directory during the run ({}); none were there before it",
            excluded_present.len(),
            if excluded_present.len() == 1 { "" } else { "s" },
            excluded_present
                .iter()
                .take(3)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        ));
        excluded_present.clear();
    }
    report
}

/// `text` with each temporary path replaced by what the report writes instead.
fn without_temporary_paths(paths: &[(String, String)], text: &str) -> String {
    paths.iter().fold(text.to_owned(), |t, (from, to)| {
        t.replace(from.as_str(), to)
    })
}

/// Rewrites the temporary paths out of every failure's texts and every problem's detail.
fn forget_temporary_paths(paths: &[(String, String)], sealed: &mut Tally) {
    if paths.is_empty() {
        return;
    }
    let clean = |text: &mut String| {
        if paths.iter().any(|(from, _)| text.contains(from.as_str())) {
            *text = without_temporary_paths(paths, text);
        }
    };
    for p in &mut sealed.problems {
        clean(&mut p.detail);
    }
    sealed.failures.rewrite(|e| {
        for text in [&mut e.message, &mut e.expected, &mut e.actual]
            .into_iter()
            .flatten()
        {
            clean(text);
        }
    });
}

/// The result files to score, expanded (directories walked, globs matched), with the copy of
/// the command's standard output named `-`, as `--results -` names it: the copy's temporary
/// path, new on every run, never reaches a report, a test's suite or a problem.
pub(crate) fn results_inputs(
    paths: &[PathBuf],
    stdout_copy: Option<&Path>,
) -> (Vec<Input>, Vec<IngestError>) {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        if stdout_copy == Some(p.as_path()) {
            inputs.push(Input::shown_as("-", p));
            continue;
        }
        let (found, errs) = expand_inputs(std::slice::from_ref(p));
        inputs.extend(found);
        errors.extend(errs);
    }
    (inputs, errors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates() {
        let t = UNIX_EPOCH + Duration::from_micros(1_700_000_000_123_456);
        assert_eq!(rfc3339(t), "2023-11-14T22:13:20.123456Z");
    }

    #[test]
    fn freshness_to_the_second_on_coarse_filesystems() {
        let after = UNIX_EPOCH + Duration::from_millis(10_500);
        assert!(is_fresh(UNIX_EPOCH + Duration::from_secs(10), after));
        assert!(!is_fresh(UNIX_EPOCH + Duration::from_millis(10_400), after));
        assert!(is_fresh(UNIX_EPOCH + Duration::from_millis(10_600), after));
        assert!(!is_fresh(UNIX_EPOCH + Duration::from_secs(9), after));
    }

    #[test]
    fn detail_tail_is_bounded() {
        let text: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let t = tail_for_detail(&text);
        assert!(t.starts_with("line 80"));
        assert!(t.ends_with("line 99"));
        let long = "é".repeat(5000);
        assert!(tail_for_detail(&long).len() <= DETAIL_BYTES + 4);
    }
}
