//! The one score pipeline: seal check → category rules → expected-test manifest → tally both
//! suites → hardening and overlap → report. `gapscore score` and `gapscore batch` score through
//! [`score`], and `feedback` and `harden` read result files through the same
//! [`tally_suite`] ([`crate::validation`]), so a scoring rule is written once and a repository
//! scores the same whichever command reads it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gapscore_adapters::{IngestOptions, Registry};
use gapscore_core::categories::{CategoryRules, RulesError};
use gapscore_core::failures::DEFAULT_BUDGET;
use gapscore_core::feedback::{DEFAULT_MIN_LINE_LEN, SealedSource, scrub};
use gapscore_core::hardening::{DEFAULT_OVERLAP_THRESHOLD, hardening_from, overlap};
use gapscore_core::provenance::Resolved;
use gapscore_core::skip_scope::SkipScope;
use gapscore_core::{
    Dialect, GapReport, Gate, Manifest, Provenance, ReportOptions, SealCheck, SpecVersion, Spill,
    StatusPolicy, Tally, Threshold, Verdict, build_report_from,
};
use gapscore_seal::checked_seal;
use gapscore_seal::combined::Contradictions;
use gapscore_seal::digest::canonical_sha256;
use gapscore_seal::plurality;
use gapscore_seal::sealed_dir::{self, FsError};
use gapscore_seal::verify::VerifyOptions;

use crate::error::Error;
use crate::fs;
use crate::gate::{self, GateDecision};
use crate::manifest_notes;
use crate::outcome::{Refusal, ScoreOutcome, Scored};
use crate::runner_evidence::{self, RunnerInput};
use crate::suite::{Diagnostic, SuiteOptions, tally_inputs, tally_suite, tally_warnings};
use crate::validation::load_history;
use gapscore_core::Code;

/// The seal a run is scored under: the record `gapscore seal` wrote and the directory it seals.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SealInput {
    /// The seal record file.
    pub record: PathBuf,
    /// The sealed test directory, checked against the record before anything is read.
    pub sealed_dir: PathBuf,
    /// Globs left out of the check besides the record's own.
    pub excludes: Vec<String>,
    /// Score against a broken seal (the report is advisory and says so) instead of refusing.
    pub allow_broken: bool,
}

impl SealInput {
    /// A seal record and its directory; a broken seal is refused.
    pub fn new(record: impl Into<PathBuf>, sealed_dir: impl Into<PathBuf>) -> Self {
        SealInput {
            record: record.into(),
            sealed_dir: sealed_dir.into(),
            excludes: Vec::new(),
            allow_broken: false,
        }
    }
}

/// Everything one score depends on.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ScoreRequest {
    /// Sealed result inputs: files, directories, globs, `-`.
    pub sealed: Vec<PathBuf>,
    /// Open result inputs; empty for no open suite.
    pub open: Vec<PathBuf>,
    /// What skipped, xfailed and flaky tests count as.
    pub policy: StatusPolicy,
    /// A category rules file (TOML).
    pub categories: Option<PathBuf>,
    /// The seal to check first and score under.
    pub seal: Option<SealInput>,
    /// A seal record whose sealed directory is not at hand (`batch` with `seal.json` and no
    /// sealed test directory): its hash is the report's `sealed_hash` and its expected tests
    /// the manifest, but no directory is verified (a warning says so). A combined record needs
    /// its directories and is refused. Not with `seal`.
    pub seal_record_only: Option<PathBuf>,
    /// The sealed hash given by the user (`--sealed-hash`); must agree with the seal record's.
    pub sealed_hash: Option<String>,
    /// A hardening history and the cycle budget, for the report's `hardening` object.
    pub history: Option<(PathBuf, u64)>,
    /// The overlap ratio between sealed and open test names, with this threshold (`None` in
    /// the pair: the default).
    pub overlap: Option<Option<f64>>,
    /// The report's dialect.
    pub dialect: Dialect,
    /// The spec version of the report; v2 needs the Shadow dialect.
    pub spec_version: SpecVersion,
    /// v2: who wrote the implementation and the sealed tests (§3.6, §5.2).
    pub provenance: Provenance,
    /// v2: a provenance file (TOML) to read instead of `provenance`.
    pub provenance_file: Option<PathBuf>,
    /// v2: the contradictions found between the sealed suites of a plural seal (the JSON file
    /// `seal --contradictions` reads): `report.spec_ambiguity` is computed from it (§4.6.2).
    pub contradictions: Option<PathBuf>,
    /// v2: the specification was truncated or summarised (§5.4): the report is advisory.
    pub spec_truncated: bool,
    /// The report id; default `run-YYYYMMDD-HHMMSS` from the timestamp.
    pub id: Option<String>,
    /// The report time, RFC 3339.
    pub timestamp: Option<String>,
    /// The specification the sealed tests come from.
    pub specification: Option<String>,
    /// How files are read: forced format, threads.
    pub ingest: IngestOptions,
    /// Spill failure entries past a memory budget to a temporary file.
    pub spill: bool,
    /// List every sealed test that did not fail in [`Scored::listing`] (an output that lists
    /// every sealed test asks for it: JUnit). Off by default, so scoring's memory does not grow
    /// with the suite; spilled like the failure entries when `spill` is on.
    pub list_sealed_tests: bool,
    /// Plugins the caller could not load (each already reported): they fail the run like an
    /// unreadable input.
    pub plugin_failures: usize,
    /// Refuse to report on zero sealed tests.
    pub strict: bool,
    /// Exit 1 above this displayed score, or when the report is advisory.
    pub threshold: Option<Threshold>,
    /// Let an advisory report pass the `threshold` gate on its score alone.
    pub allow_advisory: bool,
    /// An advisory report exits 1 even without a `threshold` (unless `allow_advisory`):
    /// `gapscore run`'s rule, since its report is advisory when the suite did not fully run.
    /// `score` leaves it off and stays a reporting command.
    pub advisory_fails: bool,
    /// Directories of sealed tests besides the seal's own (`--sealed-dir` without `--seal`):
    /// a lenient policy (`--skipped exclude|pass`, `--xfail pass`) applies only to a skip or
    /// xfail decided inside one of them or the seal's directory; relative places are read
    /// from the current directory, where the runner ran.
    pub skip_dirs: Vec<PathBuf>,
    /// Trust a lenient policy for skips and xfails whose place the format does not record
    /// (`--trust-unlocated-skips`).
    pub trust_unlocated_skips: bool,
    /// Warnings the caller found before scoring (batch: a repository's config key that would
    /// loosen the operator's policy, ignored); they lead the report's warnings.
    pub warnings: Vec<(Code, String)>,
    /// `gapscore run`: the command's evidence, whose problems join the sealed suite's, and
    /// the report's `gapscore.runner`.
    pub runner: Option<RunnerInput>,
}

impl ScoreRequest {
    /// Scores `sealed` under the default policy, with nothing else.
    pub fn new(sealed: Vec<PathBuf>) -> Self {
        ScoreRequest {
            sealed,
            open: Vec::new(),
            policy: StatusPolicy::default(),
            categories: None,
            seal: None,
            seal_record_only: None,
            sealed_hash: None,
            history: None,
            overlap: None,
            dialect: Dialect::default(),
            spec_version: SpecVersion::default(),
            provenance: Provenance::default(),
            provenance_file: None,
            contradictions: None,
            spec_truncated: false,
            id: None,
            timestamp: None,
            specification: None,
            ingest: IngestOptions::default(),
            spill: false,
            list_sealed_tests: false,
            plugin_failures: 0,
            strict: false,
            threshold: None,
            allow_advisory: false,
            advisory_fails: false,
            skip_dirs: Vec::new(),
            trust_unlocated_skips: false,
            warnings: Vec::new(),
            runner: None,
        }
    }
}

/// `run-YYYYMMDD-HHMMSS` from an RFC 3339 UTC stamp, in the style of the spec's example id.
fn default_id(stamp: &str) -> String {
    let digits: String = stamp.chars().filter(char::is_ascii_digit).collect();
    match (digits.get(..8), digits.get(8..14)) {
        (Some(d), Some(t)) => format!("run-{d}-{t}"),
        _ => format!("run-{digits}"),
    }
}

/// Reads a category rules file.
pub fn read_rules(path: &Path) -> Result<CategoryRules, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| FsError::read(path, e))?;
    CategoryRules::from_toml(&text).map_err(|e| {
        Error::Input(match e {
            RulesError::Syntax { location, message } => {
                format!("{}:{location}: {message}", path.display())
            }
            other => format!("{}: {other}", path.display()),
        })
    })
}

/// Scrubs the sealed suite's failure entries (message, expected, actual) and problem details of
/// the sealed tests' source, as `gapscore feedback` scrubs them: runners quote the line a test
/// failed on (pytest's `>       assert add(1, 2) == 2`), and a report that carries sealed source
/// leaks it to whoever reads the report (`gapscore check --level 3` rejects it).
fn scrub_sealed_source(sealed: &mut Tally, source: &mut SealedSource) {
    let mut clean = |text: &mut String| {
        let s = scrub(text, Some(&mut *source));
        if s.redacted + s.locations > 0 {
            *text = s.text;
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

/// Checks the spec v2 options before anything is read: v2 is written in the Shadow dialect
/// only, provenance and `--spec-truncated` need v2, and the provenance must resolve (level 4
/// needs both sides' families). `gapscore run` fills `workspace_isolation` from its workspace.
/// [`score`] calls it first; a caller may too, to refuse before doing anything costly.
pub fn spec_v2(req: &ScoreRequest) -> Result<Resolved, Error> {
    let usage = |m: String| Err(Error::Usage(m));
    if req.spec_version == SpecVersion::V1 {
        if !req.provenance.is_empty()
            || req.provenance_file.is_some()
            || req.spec_truncated
            || req.contradictions.is_some()
        {
            return usage(
                "provenance, --spec-truncated and --contradictions are spec v2 fields (§4.6.2, §5.2, §5.4): add --spec-version 2".into(),
            );
        }
        if let Some(seal) = &req.seal
            && plurality::is_combined(&seal.record).unwrap_or(false)
        {
            return usage(format!(
                "{}: a combined seal (seal plurality, spec v2 §4.6) is scored in a spec v2 report only, which records its suites' author families and spec ambiguity; a v1 report's sealed_hash is one directory's: add --spec-version 2, or score each suite under its own record",
                seal.record.display()
            ));
        }
        return Ok(Resolved::default());
    }
    if req.dialect != Dialect::Shadow {
        return usage(
            "spec v2 is written in the Shadow dialect only (shadow_score_spec_version, report.shadow_score): drop --dialect or use --spec-version 1".into(),
        );
    }
    let mut declared = match &req.provenance_file {
        Some(path) => {
            let at = |e: String| Error::Usage(format!("{}: {e}", path.display()));
            let text = std::fs::read_to_string(path).map_err(|e| at(e.to_string()))?;
            Provenance::from_toml(&text).map_err(at)?
        }
        None => req.provenance.clone(),
    };
    // A seal record names its authors' families (a combined one each suite's, a single one its
    // `author_family`): those are the seal authors' families (declared ones must be the same),
    // and a combined seal's spec ambiguity is the report's. A single record that cannot be read
    // is refused where the seal is verified.
    let record = match &req.seal {
        Some(seal) => match plurality::AnyRecord::read(&seal.record) {
            Ok(r) => Some(r),
            // A combined record that does not hold together is refused here; a single one
            // where the seal is verified.
            Err(e) if plurality::is_combined(&seal.record).unwrap_or(false) => return Err(e.into()),
            Err(_) => None,
        },
        None => None,
    };
    let families = record
        .as_ref()
        .map(plurality::AnyRecord::author_families)
        .unwrap_or_default();
    let combined = match record {
        Some(plurality::AnyRecord::Combined(c)) => Some(c),
        _ => None,
    };
    if !families.is_empty() && declared.seal_author_families.is_empty() {
        declared.seal_author_families.clone_from(&families);
    }
    let mut resolved = declared.resolve().map_err(Error::Usage)?;
    if !families.is_empty() {
        resolved
            .adopt_seal_families(&families)
            .map_err(Error::Usage)?;
    }
    if let Some(r) = &req.runner {
        let used = r.workspace_isolation();
        if resolved.workspace_isolation.is_some_and(|w| w != used) {
            return usage(format!(
                "--workspace-isolation contradicts the workspace the command ran in ({}, sandbox {}): gapscore run reports it itself",
                r.isolation, r.sandbox
            ));
        }
        resolved.workspace_isolation = Some(used);
    }
    if let Some(path) = &req.contradictions {
        let at = |e: String| Error::Usage(format!("{}: {e}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| at(e.to_string()))?;
        let c: Contradictions = serde_json::from_str(&text).map_err(|e| at(e.to_string()))?;
        let a = c.ambiguity().map_err(|e| at(e.to_string()))?;
        resolved.spec_ambiguity = Some(a.value);
    }
    if let Some(a) = combined.as_ref().and_then(|c| c.spec_ambiguity.as_ref()) {
        match resolved.spec_ambiguity {
            Some(v) if v != a.value => {
                return usage(format!(
                    "--contradictions gives a spec ambiguity of {v}, but the combined seal records {}: give the contradictions once",
                    a.value
                ));
            }
            _ => resolved.spec_ambiguity = Some(a.value),
        }
    }
    Ok(resolved)
}

/// Scores one run: checks the seal, reads both suites through `registry`, and builds the Gap
/// Report. Never prints; every note is in the outcome.
pub fn score(req: &ScoreRequest, registry: &Registry) -> ScoreOutcome {
    let mut diagnostics = Vec::new();
    let provenance = match spec_v2(req) {
        Ok(p) => p,
        Err(e) => return ScoreOutcome::refused(Refusal::Usage(e), diagnostics),
    };
    let mut sealed_hash = match req.sealed_hash.as_deref().map(canonical_sha256).transpose() {
        Ok(h) => h,
        Err(e) => return ScoreOutcome::refused(Refusal::Usage(e.into()), diagnostics),
    };
    // The seal is checked before anything is read: a broken seal means the results may be
    // those of other tests than the sealed ones.
    let mut seal_check = SealCheck::NotChecked;
    let mut broken_seal = Vec::new();
    let mut manifest = None;
    let mut excluded_present = Vec::new();
    let mut seal_advisories = Vec::new();
    let mut sealed_dirs = Vec::new();
    let mut unread_canaries = Vec::new();
    if let Some(seal) = &req.seal {
        let mut opts = VerifyOptions::default();
        opts.excludes.clone_from(&seal.excludes);
        let checked = match checked_seal::check(&seal.record, &seal.sealed_dir, &opts) {
            Ok(c) => c,
            Err(e) => return ScoreOutcome::refused(Refusal::SealUnreadable(e.into()), diagnostics),
        };
        excluded_present = checked.excluded_present();
        if !checked.uncovered.is_empty() {
            diagnostics.push(Diagnostic::warning(
                Code::SealUncovered,
                format!(
                    "{} entr{} under `{}` lie{} in none of the combined seal's suites ({}): not covered by the seal",
                    checked.uncovered.len(),
                    if checked.uncovered.len() == 1 { "y" } else { "ies" },
                    seal.sealed_dir.display(),
                    if checked.uncovered.len() == 1 { "s" } else { "" },
                    checked.uncovered.iter().take(3).cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        for (_, v) in &checked.dirs {
            if let Some(c) = &v.canary {
                diagnostics.extend(
                    c.policy
                        .warning(&c.mount)
                        .map(|w| Diagnostic::warning(Code::SealPolicy, w)),
                );
                seal_advisories.extend(c.problem());
            }
        }
        if checked.intact() {
            seal_check = SealCheck::Intact;
        } else if seal.allow_broken {
            seal_check = SealCheck::Broken(checked.summary());
            broken_seal = checked.broken_dirs();
            diagnostics.extend(
                checked
                    .record_problems
                    .iter()
                    .cloned()
                    .map(|p| Diagnostic::error(Code::SealRecordProblem, p)),
            );
        } else {
            let refusal = match (checked.plural.is_some(), checked.dirs.first()) {
                (false, Some((dir, verification))) => Refusal::BrokenSeal {
                    dir: dir.clone(),
                    verification: Box::new(verification.clone()),
                },
                _ => Refusal::BrokenSeals {
                    problems: checked.record_problems.clone(),
                    broken: checked.broken_dirs(),
                },
            };
            return ScoreOutcome::refused(refusal, diagnostics);
        }
        if sealed_hash.as_ref().is_some_and(|h| *h != checked.hash) {
            return ScoreOutcome::refused(
                Refusal::Usage(Error::Usage(
                    "--sealed-hash differs from the --seal record's hash; give one of them"
                        .to_owned(),
                )),
                diagnostics,
            );
        }
        sealed_hash = Some(checked.hash.clone());
        manifest = checked
            .expected_tests
            .map(|ids| Arc::new(Manifest::new(ids)));
        // Canaries found unread: the leak scan's read of the directory below is set back.
        unread_canaries = checked
            .dirs
            .iter()
            .filter_map(|(d, v)| {
                let c = v.canary.as_ref().filter(|c| !c.read)?;
                Some((d.clone(), c.canary.clone()))
            })
            .collect();
        sealed_dirs = checked.dirs.into_iter().map(|(d, _)| d).collect();
    }
    // A sealed file changed during the run and put back is a broken seal, though its content
    // hashes as sealed: the runner may have read the changed one.
    if let Some(touched) = req
        .runner
        .as_ref()
        .and_then(RunnerInput::sealed_touched_summary)
    {
        if req.seal.as_ref().is_some_and(|s| s.allow_broken) {
            seal_check = SealCheck::Broken(touched);
        } else {
            return ScoreOutcome::refused(Refusal::SealedFilesTouched(touched), diagnostics);
        }
    }
    if let Some(path) = &req.seal_record_only {
        let refuse = |m: String| ScoreOutcome::refused(Refusal::Usage(Error::Usage(m)), Vec::new());
        if req.seal.is_some() {
            return refuse("a seal record is given twice (with and without its directory)".into());
        }
        if plurality::is_combined(path).unwrap_or(false) {
            return refuse(format!(
                "{}: a combined seal is checked suite by suite against its directories: give the sealed test directory",
                path.display()
            ));
        }
        let record = match sealed_dir::read_record(path) {
            Ok(r) => r,
            Err(e) => {
                return ScoreOutcome::refused(Refusal::SealUnreadable(e.into()), diagnostics);
            }
        };
        if sealed_hash.as_ref().is_some_and(|h| *h != record.hash) {
            return refuse(
                "--sealed-hash differs from the seal record's hash; give one of them".into(),
            );
        }
        diagnostics.push(Diagnostic::warning(
            Code::SealNotVerified,
            format!(
                "{}: the seal record is used without its sealed directory: its hash and expected tests count, but no directory was checked against it",
                path.display()
            ),
        ));
        sealed_hash = Some(record.hash.clone());
        manifest = record
            .expected_tests
            .map(|ids| Arc::new(Manifest::new(ids)));
    }
    let rules = match &req.categories {
        None => None,
        Some(path) => match read_rules(path) {
            Ok(r) => Some(Arc::new(r)),
            Err(e) => return ScoreOutcome::refused(Refusal::Rules(e), diagnostics),
        },
    };

    let mut suite_opts = SuiteOptions::new(req.policy);
    suite_opts.rules = rules;
    suite_opts.names = req.overlap.is_some();
    suite_opts.ingest = req.ingest.clone();
    if req.spill {
        // Failure entries past a budget go to a temporary file: memory stays bounded.
        suite_opts.spill = Some(Spill::new(DEFAULT_BUDGET, Arc::new(tempfile::tempfile)));
    }
    let mut sealed_opts = suite_opts.clone();
    sealed_opts.manifest = manifest;
    sealed_opts.list_tests = req.list_sealed_tests;
    sealed_opts.skip_scope = Arc::new(skip_scope(req));
    let mut inputs = Vec::new();
    let mut failed = req.plugin_failures;
    let mut cut = Vec::new();

    let stdout_copy = req.runner.as_ref().and_then(|r| r.stdout_copy.as_deref());
    sealed_opts.shared_stream = stdout_copy.map(Path::to_path_buf);
    let (expanded, errors) = runner_evidence::results_inputs(&req.sealed, stdout_copy);
    let suite = tally_inputs(registry, "sealed", expanded, errors, &sealed_opts);
    diagnostics.extend(suite.diagnostics);
    failed += suite.failed;
    inputs.extend(suite.inputs);
    cut.extend(suite.cut);
    let mut sealed = suite.tally;
    // The caller's warnings (batch: a repository key that would loosen the policy) are the
    // sealed suite's: in the report, and said with the rest.
    for (code, w) in &req.warnings {
        sealed.warnings.push(*code, w.clone());
    }
    // The manifest is applied before any runner evidence is weighed: a result the seal does
    // not list never explains a failing exit status (issue 32).
    sealed.apply_manifest();
    let runner = req
        .runner
        .as_ref()
        .map(|r| runner_evidence::apply(r, &mut sealed, &mut excluded_present));
    if !sealed_dirs.is_empty() {
        // Unreadable sealed files already refused the run when the seal was verified.
        let dirs: Vec<&Path> = sealed_dirs.iter().map(PathBuf::as_path).collect();
        let read = fs::sealed_source_of(&dirs, DEFAULT_MIN_LINE_LEN);
        // gapscore's own read does not count as the implementer's (§4.5), as in verify_dir.
        for (dir, canary) in &unread_canaries {
            gapscore_seal::canary::settle_again(dir, canary);
        }
        if let Ok(mut source) = read {
            scrub_sealed_source(&mut sealed, &mut source);
        }
    }
    diagnostics.extend(manifest_notes::notes(&sealed));
    let open: Option<Tally> = (!req.open.is_empty()).then(|| {
        let suite = tally_suite(registry, "open", &req.open, &suite_opts);
        diagnostics.extend(suite.diagnostics);
        failed += suite.failed;
        inputs.extend(suite.inputs);
        cut.extend(suite.cut);
        suite.tally
    });
    if failed > 0 {
        return ScoreOutcome::refused(Refusal::Unreadable { failed }, diagnostics);
    }

    diagnostics.extend(tally_warnings(&sealed, open.as_ref()));
    let score = sealed.score();
    if score.total == 0 {
        if req.strict {
            return ScoreOutcome::refused(Refusal::NoSealedTests, diagnostics);
        }
        diagnostics.push(Diagnostic::warning(Code::NoSealedTests,
            "no sealed tests were counted: the report says 0.0 but is advisory (use --strict to fail instead)".to_owned(),
        ));
    }

    let mut opts = ReportOptions::default();
    opts.dialect = req.dialect;
    opts.spec_version = req.spec_version;
    opts.provenance = provenance;
    opts.spec_truncated = req.spec_truncated;
    opts.id = req
        .id
        .clone()
        .or_else(|| req.timestamp.as_deref().map(default_id));
    opts.timestamp.clone_from(&req.timestamp);
    opts.specification.clone_from(&req.specification);
    opts.sealed_hash = sealed_hash;
    opts.inputs = inputs;
    opts.seal = seal_check;
    opts.excluded_present = excluded_present;
    opts.seal_advisories = seal_advisories;
    if let Some((path, max)) = &req.history {
        let history = match load_history(path) {
            Ok(h) => h,
            Err(e) => return ScoreOutcome::refused(Refusal::Usage(e), diagnostics),
        };
        match hardening_from(&history, &score, *max) {
            Some(h) => {
                // A `hardening` object whose last cycle is not this report contradicts itself:
                // `gapscore check` rejects it at level 3, so it is never written.
                if let Some(m) = &h.mismatch {
                    return ScoreOutcome::refused(
                        Refusal::Usage(Error::Usage(format!("{}: {m}", path.display()))),
                        diagnostics,
                    );
                }
                if let Some(w) = &h.early_assertions {
                    diagnostics.push(Diagnostic::warning(
                        Code::HistoryNote,
                        format!("{}: {w}", path.display()),
                    ));
                }
                opts.hardening = Some(h);
            }
            None => diagnostics.push(Diagnostic::warning(
                Code::NoHardeningCycles,
                format!(
                    "{}: no cycles recorded yet; the report has no `hardening` object",
                    path.display()
                ),
            )),
        }
    }
    if let (Some(threshold), Some(o)) = (req.overlap, &open) {
        let threshold = threshold.unwrap_or(DEFAULT_OVERLAP_THRESHOLD);
        if !(0.0..=1.0).contains(&threshold) {
            return ScoreOutcome::refused(
                Refusal::Usage(Error::Usage(format!(
                    "--overlap-threshold must be between 0 and 1, not {threshold}"
                ))),
                diagnostics,
            );
        }
        opts.overlap = Some(overlap(&sealed.names, &o.names, threshold));
    }
    opts.runner = runner;
    let listing = sealed.listing.take();
    let mut report = build_report_from(sealed, open.as_ref(), &opts);

    let mut after = Vec::new();
    if let Some(reason) = &report.report.advisory_reason {
        after.push(Diagnostic::warning(
            Code::AdvisoryReport,
            format!("advisory report: {reason}"),
        ));
    }
    let escalate = report.hardening.as_ref().and_then(|h| h.escalation.clone());
    if let Some(e) = &escalate {
        after.push(Diagnostic::warning(Code::HardeningEscalation, e.clone()));
    }
    if !cut.is_empty() {
        // Named here: the report's problem says `truncated`, the user needs the file.
        after.push(Diagnostic::warning(
            Code::InputCut,
            format!(
                "{} cut off ({}); each cut counts as a failed test and makes the report advisory",
                if cut.len() == 1 {
                    "an input file was"
                } else {
                    "input files were"
                },
                match cut.len() {
                    n if n > 3 => format!("{} and {} more", cut[..3].join("; "), n - 3),
                    _ => cut.join("; "),
                }
            ),
        ));
    }
    let gate = apply_gate(req, &mut report, &score, &mut after);
    let ungated_advisory = gate.is_none()
        && req.advisory_fails
        && !req.allow_advisory
        && report.report.advisory_reason.is_some();
    if ungated_advisory {
        let why = report.report.advisory_reason.as_deref().unwrap_or_default();
        after.push(Diagnostic::error(
            Code::RunNotComplete,
            format!(
                "exit 1: {why}, so the run's report is advisory and does not pass even without --threshold; pass --allow-advisory to exit 0 (gapscore explain E013)"
            ),
        ));
    }
    let verdict = gate
        .as_ref()
        .map(|g| g.verdict)
        .or(ungated_advisory.then_some(Verdict::Advisory));
    let (verdict, exit) = gate::conclude(verdict, escalate.is_some());
    ScoreOutcome {
        stopped: None,
        diagnostics,
        result: Ok(Scored {
            report,
            broken_seal,
            after,
            gate,
            verdict,
            exit,
            listing,
        }),
    }
}

/// Applies the `--threshold` gate ([`gate::decide`]) to a report, records its decision in the
/// report (`gapscore.gate`) and, when it fails, says why after the report.
fn apply_gate(
    req: &ScoreRequest,
    report: &mut GapReport,
    score: &gapscore_core::Score,
    after: &mut Vec<Diagnostic>,
) -> Option<GateDecision> {
    let t = req.threshold?;
    let decision = gate::decide(
        score,
        report.report.advisory_reason.as_deref(),
        t,
        req.allow_advisory,
    );
    if decision.verdict != Verdict::Passed {
        after.push(Diagnostic::error(Code::GateFailed, decision.reason.clone()));
    }
    if let Some(ext) = report.gapscore.as_mut() {
        ext.gate = Some(Gate::new(
            t.value(),
            decision.verdict,
            decision.reason.clone(),
        ));
    }
    Some(decision)
}

/// Where the sealed suite's lenient policy applies: the seal's directory and the directories
/// named besides it. With the strict policy nothing is lenient, so the scope is never asked.
fn skip_scope(req: &ScoreRequest) -> SkipScope {
    let dirs = req
        .seal
        .iter()
        .map(|s| s.sealed_dir.clone())
        .chain(req.skip_dirs.iter().cloned())
        .collect();
    let base = std::env::current_dir().unwrap_or_default();
    SkipScope::new(dirs, base, req.trust_unlocated_skips)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_has_a_refusal_code() {
        let refusals = [
            Refusal::Usage(Error::Usage("x".into())),
            Refusal::Rules(Error::Input("x".into())),
            Refusal::Unreadable { failed: 1 },
            Refusal::NoSealedTests,
        ];
        let codes: Vec<Code> = refusals.iter().map(Refusal::code).collect();
        assert_eq!(
            codes,
            [
                Code::UsageRefused,
                Code::RulesUnreadable,
                Code::InputsUnreadable,
                Code::NoSealedTestsStrict
            ]
        );
        assert!(codes.iter().all(|c| c.as_str().starts_with('R')));
    }
}
