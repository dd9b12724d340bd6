//! Building a [`GapReport`] from the scored suites: [`build_report`] and [`build_report_from`],
//! with the options ([`ReportOptions`]) and the seal's state ([`SealCheck`]) they are given.

use std::collections::BTreeMap;

use gapscore_model::{Category, Code, Problem, Status};

use super::{
    AdvisoryReason, CategoryComparison, CoverageComparison, Dialect, Extension, GapReport,
    Hardening, InputInfo, ManifestCheck, ReportMeta,
};
use crate::failures::FailureList;
use crate::feedback::Reveal;
use crate::hardening::{HardeningFigures, Overlap};
use crate::policy::FlakyPolicy;
use crate::provenance::{Independence, Resolved, SpecVersion};
use crate::runner_report::RunnerReport;
use crate::tally::{SuiteCounts, Tally};

/// Provenance and presentation options for [`build_report`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ReportOptions {
    /// Key set to emit.
    pub dialect: Dialect,
    /// `report.id`.
    pub id: Option<String>,
    /// `report.timestamp`.
    pub timestamp: Option<String>,
    /// `report.specification`.
    pub specification: Option<String>,
    /// `report.sealed_hash`.
    pub sealed_hash: Option<String>,
    /// Files read, for the extension object.
    pub inputs: Vec<InputInfo>,
    /// Whether the sealed directory was checked against its seal, and how it went.
    pub seal: SealCheck,
    /// Files found under the seal's excluded paths when the directory was checked.
    pub excluded_present: Vec<String>,
    /// Other findings of the seal check that make the report advisory (a read canary, §4.5);
    /// any one also makes `report.seal_broken` true (v2 §5.2).
    pub seal_advisories: Vec<String>,
    /// The hardening loop's figures (`--history`).
    pub hardening: Option<HardeningFigures>,
    /// The §3.5 overlap ratio (`--overlap`).
    pub overlap: Option<Overlap>,
    /// What `gapscore run` saw of the command (`gapscore.runner`).
    pub runner: Option<RunnerReport>,
    /// The spec version written (v2 adds the provenance below).
    pub spec_version: SpecVersion,
    /// v2 provenance; weak independence makes the report advisory.
    pub provenance: Resolved,
    /// v2: the specification was truncated or summarised on its way to an author (§5.4).
    pub spec_truncated: bool,
}

/// The outcome of checking the sealed directory against its seal before scoring.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum SealCheck {
    /// No seal was checked (`report.seal_broken` is left out).
    #[default]
    NotChecked,
    /// The directory matches its seal.
    Intact,
    /// The directory does not match, and scoring went ahead anyway (`--allow-broken-seal`):
    /// what differs.
    Broken(String),
}

/// Builds a report from the scored sealed suite and, optionally, the open suite.
pub fn build_report(sealed: &Tally, open: Option<&Tally>, opts: &ReportOptions) -> GapReport {
    build(
        sealed,
        sealed.failures.to_list(),
        sealed.suites.clone(),
        open,
        opts,
    )
}

/// [`build_report`], taking the sealed tally's failure list and per-suite counts into the
/// report rather than copying them: a copy of every failure held in memory and of every
/// suite's name, and then the drop of the originals, when the tally is not needed after.
pub fn build_report_from(
    mut sealed: Tally,
    open: Option<&Tally>,
    opts: &ReportOptions,
) -> GapReport {
    let failures = std::mem::take(&mut sealed.failures).into_list();
    let suites = std::mem::take(&mut sealed.suites);
    build(&sealed, failures, suites, open, opts)
}

fn build(
    sealed: &Tally,
    failures: FailureList,
    suites: BTreeMap<String, SuiteCounts>,
    open: Option<&Tally>,
    opts: &ReportOptions,
) -> GapReport {
    let score = sealed.score();
    let rounded = score.rounded();
    let dialect = opts.dialect;

    let mut reasons: Vec<AdvisoryReason> = Vec::new();
    let mut because = |code: Code, reason: String| reasons.push(AdvisoryReason { code, reason });
    if !sealed.problems.is_empty() {
        because(
            Code::SuiteDidNotRun,
            format!(
                "the sealed suite did not fully run ({} problem{}: {})",
                sealed.problems.len(),
                plural(sealed.problems.len()),
                problem_kinds(&sealed.problems)
            ),
        );
    }
    if sealed.listing_unmatched() {
        because(
            Code::ListingUnmatched,
            "none of the sealed results is a test the seal record lists: the record names tests another way (another format or directory), so the score counts every listed test as not run".into(),
        );
    } else if let Some((a, b)) = sealed.manifest_key_collisions().first() {
        because(
            Code::ListingUnmatched,
            format!(
                "the seal record lists `{a}` and `{b}`, which pytest's JUnit XML names alike: a JUnit result for either is matched to neither"
            ),
        );
    }
    if !sealed.listing_unmatched()
        && let Some((result, listed)) = sealed.manifest_ambiguities().first()
    {
        because(
            Code::ListingUnmatched,
            format!(
                "the sealed result `{result}` could be any of the listed tests `{}`: it is matched to none",
                listed.join("`, `")
            ),
        );
    }
    // A listed test without a result did not run: the suite did not fully run, whatever the
    // runner says (a file that exited at load, a plugin dropping tests). Counted as failed, it
    // still must not read as a measurement. Said once: A009 already covers a listing no result
    // matches.
    if !sealed.missing.is_empty() && !sealed.listing_unmatched() {
        let n = sealed.missing.len();
        because(
            Code::ExpectedTestsDidNotRun,
            format!(
                "{n} expected sealed test{} of the seal record {} no result: the sealed suite did not fully run (first: {})",
                plural(n),
                if n == 1 { "has" } else { "have" },
                sealed.missing[0]
            ),
        );
    }
    if score.total == 0 {
        because(
            Code::ZeroSealedTests,
            "no sealed tests were counted: a score over zero tests proves nothing".into(),
        );
    }
    // Under `--flaky fail` a flaky test is already a failure; only a pass that needed a retry
    // makes the score less than authoritative.
    if !sealed.flaky.is_empty() && sealed.policy().flaky == FlakyPolicy::Pass {
        because(
            Code::FlakyPasses,
            format!(
                "{} sealed test{} passed only on a retry (flaky)",
                sealed.flaky.len(),
                plural(sealed.flaky.len())
            ),
        );
    }
    if !opts.excluded_present.is_empty() {
        let n = opts.excluded_present.len();
        let shown: Vec<&str> = opts
            .excluded_present
            .iter()
            .take(3)
            .map(String::as_str)
            .collect();
        because(
            Code::ExcludedFilesPresent,
            format!(
                "{n} file{} under paths the seal excludes {} present in the sealed directory ({}{}): planted bytecode or packages can change what the sealed tests do",
                plural(n),
                if n == 1 { "is" } else { "are" },
                shown.join(", "),
                if n > 3 { ", …" } else { "" }
            ),
        );
    }
    for a in &opts.seal_advisories {
        because(Code::SealWeakened, a.clone());
    }
    if let SealCheck::Broken(what) = &opts.seal {
        because(
            Code::SealBrokenAllowed,
            format!(
                "the sealed tests no longer match their seal ({what}): the score may measure tests other than the sealed ones"
            ),
        );
    }
    let v2 = opts.spec_version == SpecVersion::V2;
    let prov = if v2 {
        opts.provenance.clone()
    } else {
        Resolved::default()
    };
    if prov.independence == Some(Independence::Weak) {
        because(
            Code::WeakIndependence,
            format!(
                "weak authorship independence: the implementer's family ({}) is among the seal authors' ({}), and correlated blind spots bias the score toward 0% (§3.6)",
                prov.implementer_family.as_deref().unwrap_or("?"),
                prov.seal_author_families.join(", ")
            ),
        );
    }
    if v2 && opts.spec_truncated {
        because(Code::SpecTruncated,
            "the specification was truncated or summarised before reaching the seal author or the implementer: the score measures the summariser (§5.4)".into(),
        );
    }
    let advisory = !reasons.is_empty();

    let report = ReportMeta {
        id: opts.id.clone(),
        timestamp: opts.timestamp.clone(),
        specification: opts.specification.clone(),
        shadow_score: dialect.shadow().then_some(rounded),
        gap_score: dialect.gap().then_some(rounded),
        level: score.level(),
        sealed_hash: opts.sealed_hash.clone(),
        seal_broken: match opts.seal {
            SealCheck::NotChecked => None,
            // v2 §5.2: the seal is broken when tamper evidence or a canary shows it was read.
            SealCheck::Intact => Some(!opts.seal_advisories.is_empty()),
            SealCheck::Broken(_) => Some(true),
        },
        conformance_level: prov.conformance_level,
        independence: prov.independence,
        implementer_family: prov.implementer_family,
        implementer_model: prov.implementer_model,
        seal_author_families: prov.seal_author_families,
        seal_author_models: prov.seal_author_models,
        workspace_isolation: prov.workspace_isolation,
        spec_ambiguity: prov.spec_ambiguity,
        advisory: advisory.then_some(true),
        advisory_reason: advisory.then(|| {
            let texts: Vec<&str> = reasons.iter().map(|r| r.reason.as_str()).collect();
            texts.join("; ")
        }),
    };

    let coverage_comparison = open.map(|o| {
        let c = |cat| CategoryComparison::new(sealed.categories.get(cat), o.categories.get(cat));
        let unknown = c(Category::Unknown);
        CoverageComparison {
            happy_path: c(Category::HappyPath),
            edge_case: c(Category::EdgeCase),
            error_handling: c(Category::ErrorHandling),
            security: c(Category::Security),
            unknown: (unknown.sealed > 0 || unknown.open > 0).then_some(unknown),
        }
    });

    let statuses = |t: &Tally| -> BTreeMap<Status, u64> {
        Status::ALL
            .iter()
            .map(|s| (*s, t.by_status.get(*s)))
            .filter(|(_, n)| *n > 0)
            .collect()
    };
    let share = crate::warnings::report_share(&sealed.warnings, open.map(|o| &o.warnings));

    let extension = Extension {
        tool: concat!("gapscore ", env!("CARGO_PKG_VERSION")).to_owned(),
        score_exact: score.percent(),
        status_policy: sealed.policy(),
        sealed_statuses: statuses(sealed),
        sealed_excluded: sealed.excluded,
        open_statuses: open.map(statuses),
        problems: sealed.problems.clone(),
        open_problems: open.map(|o| o.problems.clone()).unwrap_or_default(),
        flaky: sealed.flaky.clone(),
        duplicates: sealed.duplicates.clone(),
        overlap: opts.overlap.clone(),
        manifest: sealed.manifest_len().map(|expected| ManifestCheck {
            expected,
            missing: sealed.missing.clone(),
            unexpected: sealed.unexpected.clone(),
            unexpected_failed: sealed.unexpected_failed.clone(),
        }),
        coverage_delta: open.map(|o| {
            sealed
                .categories
                .spec_categories_tested()
                .abs_diff(o.categories.spec_categories_tested())
        }),
        suites,
        inputs: opts.inputs.clone(),
        sealed_dir_excluded_present: opts.excluded_present.clone(),
        advisory_reasons: reasons,
        warnings: share.warnings,
        warning_codes: share.codes,
        warning_counts: share.counts,
        runner: opts.runner.clone(),
        gate: None,
    };

    GapReport {
        shadow_score_spec_version: dialect
            .shadow()
            .then(|| opts.spec_version.as_str().to_owned()),
        gap_score_spec_version: dialect.gap().then(|| opts.spec_version.as_str().to_owned()),
        report,
        sealed_tests: sealed.counts,
        failures,
        open_tests: open.map(|o| o.counts),
        coverage_comparison,
        hardening: opts.hardening.as_ref().map(|h| Hardening {
            cycles_completed: h.cycles_completed,
            max_cycles: h.max_cycles,
            initial_shadow_score: dialect.shadow().then_some(h.initial),
            final_shadow_score: dialect.shadow().then_some(h.final_score),
            initial_gap_score: dialect.gap().then_some(h.initial),
            final_gap_score: dialect.gap().then_some(h.final_score),
            hardening_velocity: h.velocity,
            max_reveal: h.max_reveal.map(if v2 {
                Reveal::v2_report_level
            } else {
                Reveal::v1_max_reveal
            }),
            escalation: h.escalation.clone(),
            disclosure_warning: h.early_assertions.clone().filter(|_| v2),
            history: h.history.clone(),
        }),
        gapscore: Some(extension),
    }
}

/// The problems by kind, in first-seen order, each with its count and at most
/// [`REASON_PLACES`] places: `build-failure in crates/parser`,
/// `missing-results ×4 (in a, b, c, …)`.
/// Short whatever the number of problems, since it is the advisory reason.
fn problem_kinds(problems: &[Problem]) -> String {
    let mut kinds: Vec<(gapscore_model::ProblemKind, usize, Vec<&str>, bool)> = Vec::new();
    for p in problems {
        let i = match kinds.iter().position(|k| k.0 == p.kind) {
            Some(i) => i,
            None => {
                kinds.push((p.kind, 0, Vec::new(), false));
                kinds.len() - 1
            }
        };
        let k = &mut kinds[i];
        k.1 += 1;
        if let Some(s) = p.suite.as_deref()
            && !k.2.contains(&s)
        {
            if k.2.len() < REASON_PLACES {
                k.2.push(s);
            } else {
                k.3 = true;
            }
        }
    }
    let parts: Vec<String> = kinds
        .into_iter()
        .map(|(kind, n, places, more)| {
            let mut s = kind.to_string();
            if n > 1 {
                s.push_str(&format!(" ×{n}"));
            }
            match places.as_slice() {
                [] => {}
                [one] if !more => s.push_str(&format!(" in {one}")),
                _ => s.push_str(&format!(
                    " (in {}{})",
                    places.join(", "),
                    if more { ", …" } else { "" }
                )),
            }
            s
        })
        .collect();
    parts.join(", ")
}

/// Places named per problem kind in an advisory reason.
pub const REASON_PLACES: usize = 3;

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
