//! The state of one report's check, shared by the reading and the levels' rules: the
//! canonical document, the evidence, and what has been found so far; the helpers every rule
//! uses (findings, requirements, pointers, counts); and [`Checker::finish`], which turns the
//! requirements and findings into the level met.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

use crate::evidence::Evidence;
use crate::model::{
    Document, FileResult, Finding, Requirement, RequirementVerdict, SchemaOutcome, Severity,
};
use crate::numbers::{Written, same};
use crate::rules::{self, Rule};

/// RFC 6901 pointer from segments.
pub(crate) fn ptr(segments: &[&str]) -> String {
    segments
        .iter()
        .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// A non-negative integer, written as `18` or `18.0`.
pub(crate) fn count(v: Option<&Value>) -> Option<u64> {
    let v = v?;
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    let f = v.as_f64()?;
    (f >= 0.0 && f.fract() == 0.0 && f < 9.0e15).then_some(f as u64)
}

/// A `{total, passed, failed}` object's counts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Counts {
    pub(crate) total: u64,
    pub(crate) passed: u64,
    pub(crate) failed: u64,
}

/// The counts of a `sealed_tests` or `open_tests` object, when all three are counts.
pub(crate) fn counts(v: Option<&Value>) -> Option<Counts> {
    let o = v?.as_object()?;
    Some(Counts {
        total: count(o.get("total"))?,
        passed: count(o.get("passed"))?,
        failed: count(o.get("failed"))?,
    })
}

/// At most this many findings of one rule and severity are listed per report; the rest are
/// counted in one more finding. A forged report repeating one fault a million times must not
/// make a million findings (the memory of a check stays bounded whatever the input).
pub(crate) const MAX_FINDINGS_PER_RULE: usize = 100;

/// The score key of the Shadow dialect.
pub(crate) const SHADOW: &str = "shadow_score";
/// The score key of the Gap dialect.
pub(crate) const GAP: &str = "gap_score";

/// Values normalising dropped, each with its pointer in the document as given.
pub(crate) type SetAside = Vec<(String, Value)>;

/// One report under check: `read` fills in what the document says, `level1`..`level3` judge
/// it, [`Checker::finish`] sums up.
pub(crate) struct Checker<'a> {
    /// The document, normalised to the canonical shape (the schemas validate it).
    pub(crate) doc: &'a Value,
    /// Its root object.
    pub(crate) root: &'a Map<String, Value>,
    /// Its `report` object.
    pub(crate) meta: Option<&'a Map<String, Value>>,
    /// What was given besides the report.
    pub(crate) evidence: &'a Evidence,
    /// Every finding so far (at most [`MAX_FINDINGS_PER_RULE`] per rule and severity).
    pub(crate) findings: Vec<Finding>,
    /// Findings per rule and severity: listed and left out.
    counted: BTreeMap<(String, Severity), (usize, usize)>,
    /// Every requirement judged so far.
    pub(crate) requirements: Vec<Requirement>,
    /// The schemas applied.
    pub(crate) schemas: Vec<SchemaOutcome>,
    /// `shadow`, `gap` or `both`.
    pub(crate) dialect: &'static str,
    /// The spec version the report names.
    pub(crate) version: Option<String>,
    /// The major spec version whose rules apply (1 or 2).
    pub(crate) major: u64,
    /// The report's score, with its pointer.
    pub(crate) score: Option<(f64, String)>,
    /// The `sealed_tests` counts, when complete.
    pub(crate) sealed: Option<Counts>,
    /// `report.sealed_hash`, when a string.
    pub(crate) hash: Option<String>,
    /// The tool that wrote the report (gapscore's extension object).
    pub(crate) tool: Option<String>,
    /// Whether level 4 is judged (asked for with `--level 4`); otherwise levels 1-3 are.
    pub(crate) judge4: bool,
    /// The scores as the text wrote them, by pointer in the text (see [`is_score_pointer`]);
    /// empty for a document given parsed.
    pub(crate) written: HashMap<String, Written>,
    /// What normalising dropped from the document as given, with its pointer: the leak scan
    /// reads these too.
    pub(crate) set_aside: SetAside,
}

/// The pointers whose numbers are judged at the precision they are written with: the score
/// (at the root or under `report`), the hardening scores and velocity, and each history
/// entry's score.
pub(crate) fn is_score_pointer(p: &str) -> bool {
    p.split('/').count() <= 5 && (p.ends_with("score") || p.ends_with("velocity"))
}

impl<'a> Checker<'a> {
    /// A check of `doc`, a normalised report whose root object is `root`.
    pub(crate) fn new(
        doc: &'a Value,
        root: &'a Map<String, Value>,
        evidence: &'a Evidence,
    ) -> Self {
        Checker {
            doc,
            root,
            meta: root.get("report").and_then(Value::as_object),
            evidence,
            findings: Vec::new(),
            counted: BTreeMap::new(),
            requirements: Vec::new(),
            schemas: Vec::new(),
            dialect: "shadow",
            version: None,
            major: 1,
            score: None,
            sealed: None,
            hash: None,
            tool: None,
            judge4: false,
            written: HashMap::new(),
            set_aside: Vec::new(),
        }
    }

    /// The number at `pointer`, whose value is `value`, as the report wrote it: from the text
    /// when it was read from one (a score moved under `report` from the root is found at the
    /// root), else the shortest decimal of its value.
    pub(crate) fn written(&self, pointer: &str, value: f64) -> Option<Written> {
        let at_root = pointer.strip_prefix("/report");
        self.written
            .get(pointer)
            .or_else(|| at_root.and_then(|p| self.written.get(p)))
            .filter(|w| same(w.value(), value))
            .copied()
            .or_else(|| Written::from_f64(value))
    }

    pub(crate) fn add(&mut self, rule: &Rule, severity: Severity, pointer: &str, message: String) {
        self.push(Finding::new(rule, severity, pointer, message));
    }

    /// Counts `n` findings of a rule that were never made (a schema's violations past the
    /// first ones).
    pub(crate) fn left_out(&mut self, rule: &Rule, severity: Severity, n: usize) {
        if n > 0 {
            self.counted
                .entry((rule.id.to_owned(), severity))
                .or_default()
                .1 += n;
        }
    }

    /// Lists a finding, or counts it once its rule and severity have
    /// [`MAX_FINDINGS_PER_RULE`] listed.
    pub(crate) fn push(&mut self, finding: Finding) {
        let (listed, left_out) = self
            .counted
            .entry((finding.rule.clone(), finding.severity))
            .or_default();
        if *listed < MAX_FINDINGS_PER_RULE {
            *listed += 1;
            self.findings.push(finding);
        } else {
            *left_out += 1;
        }
    }

    /// An error whose pointer and message are made only when it will be listed: past
    /// [`MAX_FINDINGS_PER_RULE`] it is only counted, so a scan finding many (each pointer costs
    /// the document's depth) stays linear in the document.
    pub(crate) fn err_with(&mut self, rule: &Rule, make: impl FnOnce() -> (String, String)) {
        self.add_with(rule, Severity::Error, make);
    }

    /// A warning made as [`Checker::err_with`] makes an error.
    pub(crate) fn warn_with(&mut self, rule: &Rule, make: impl FnOnce() -> (String, String)) {
        self.add_with(rule, Severity::Warning, make);
    }

    fn add_with(
        &mut self,
        rule: &Rule,
        severity: Severity,
        make: impl FnOnce() -> (String, String),
    ) {
        let listed = self
            .counted
            .get(&(rule.id.to_owned(), severity))
            .map_or(0, |c| c.0);
        if listed < MAX_FINDINGS_PER_RULE {
            let (pointer, message) = make();
            self.add(rule, severity, &pointer, message);
        } else {
            self.left_out(rule, severity, 1);
        }
    }

    pub(crate) fn err(&mut self, rule: &Rule, pointer: &str, message: String) {
        self.add(rule, Severity::Error, pointer, message);
    }

    pub(crate) fn warn(&mut self, rule: &Rule, pointer: &str, message: String) {
        self.add(rule, Severity::Warning, pointer, message);
    }

    pub(crate) fn note(&mut self, rule: &Rule, pointer: &str, message: String) {
        self.add(rule, Severity::Note, pointer, message);
    }

    /// Every error of a rule at `level` found so far, listed or only counted.
    pub(crate) fn errors_at(&self, level: u8) -> usize {
        self.counted
            .iter()
            .filter(|((id, severity), _)| {
                *severity == Severity::Error && rules::by_id(id).is_some_and(|r| r.level == level)
            })
            .map(|(_, (listed, left_out))| listed + left_out)
            .sum()
    }

    pub(crate) fn errors_of(&self, rule: &Rule) -> Option<&Finding> {
        self.findings
            .iter()
            .find(|f| f.rule == rule.id && f.severity == Severity::Error)
    }

    pub(crate) fn require(
        &mut self,
        id: &str,
        level: u8,
        spec: &str,
        title: &str,
        verdict: RequirementVerdict,
        detail: String,
    ) {
        self.requirements.push(Requirement {
            id: id.to_owned(),
            level,
            spec: spec.to_owned(),
            title: title.to_owned(),
            verdict,
            detail,
        });
    }

    pub(crate) fn meta_get(&self, key: &str) -> Option<&'a Value> {
        self.meta.and_then(|m| m.get(key))
    }

    pub(crate) fn hardening(&self) -> Option<&'a Map<String, Value>> {
        self.root.get("hardening").and_then(Value::as_object)
    }

    pub(crate) fn finish(mut self, path: &str, level: u8) -> FileResult {
        // A requirement fails with any error at its level; findings make requirements fail
        // through their detail, and errors without a requirement still count.
        let failed_at = |lvl: u8, s: &Self| {
            s.requirements
                .iter()
                .any(|r| r.level == lvl && r.verdict == RequirementVerdict::Failed)
                || s.findings
                    .iter()
                    .any(|f| f.level == lvl && f.severity == Severity::Error)
        };
        let top = if self.judge4 { 4 } else { 3 };
        let mut met = 0;
        for l in 1..=top {
            if failed_at(l, &self) {
                break;
            }
            met = l;
        }
        if let Some(claimed) = self.meta_get("conformance_level").and_then(Value::as_u64)
            && claimed > u64::from(met)
            && (self.judge4 || claimed <= 3 || met < 3)
        {
            self.warn(
                &rules::CLAIMED_LEVEL,
                "/report/conformance_level",
                format!(
                    "the report claims conformance level {claimed}; the checker finds level {met}{}",
                    if claimed > 3 && !self.judge4 {
                        " (level 4 is not checked)"
                    } else {
                        ""
                    }
                ),
            );
        }
        for ((id, severity), (_, left_out)) in std::mem::take(&mut self.counted) {
            if let (Some(rule), true) = (rules::by_id(&id), left_out > 0) {
                self.findings.push(Finding::new(
                    rule,
                    severity,
                    "",
                    format!(
                        "{left_out} more {} finding{} of this rule not listed (the first {MAX_FINDINGS_PER_RULE} are)",
                        severity.as_str(),
                        if left_out == 1 { "" } else { "s" }
                    ),
                ));
            }
        }
        self.findings.sort_by_key(|f| (f.level, f.severity));
        FileResult {
            path: path.to_owned(),
            document: Document::Report {
                dialect: self.dialect.to_owned(),
                spec_version: self.version.clone(),
                tool: self.tool.clone(),
            },
            schemas: self.schemas,
            requirements: self.requirements,
            findings: self.findings,
            level_met: met,
            holds: met >= level,
        }
    }
}

/// A requirement's verdict and detail from a check's outcome.
pub(crate) fn verdict_of(r: Result<String, String>) -> (RequirementVerdict, String) {
    match r {
        Ok(d) => (RequirementVerdict::Verified, d),
        Err(d) => (RequirementVerdict::Failed, d),
    }
}
