//! What a check produces: per file, the document recognised, the schemas applied, each level's
//! requirements with a [`RequirementVerdict`], and the [`Finding`]s. Serialised as the JSON output of
//! `gapscore check --format json` (schema: `check/check-output.schema.json`).

use schemars::JsonSchema;
use serde::Serialize;

use crate::rules::Rule;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The rule is broken: the rule's level (and every level above) does not hold.
    Error,
    /// Worth fixing, but the level still holds.
    Warning,
    /// Information only.
    Note,
}

impl Severity {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One finding: a rule, where in the document, what is wrong and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct Finding {
    /// The rule's id (see docs/conformance.md).
    pub rule: String,
    /// The conformance level the rule belongs to (1-4).
    pub level: u8,
    /// Error, warning or note.
    pub severity: Severity,
    /// The spec section.
    pub spec: String,
    /// JSON pointer into the document (`""` for the whole document).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: String,
    /// Where `pointer` is in the file: 1-based line (when the file was read as text and the
    /// pointer names something written in it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// Its 1-based column, in characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
}

impl Finding {
    /// A finding of a rule.
    pub fn new(rule: &Rule, severity: Severity, pointer: &str, message: String) -> Self {
        Finding {
            rule: rule.id.to_owned(),
            level: rule.level,
            severity,
            spec: rule.spec.to_owned(),
            pointer: pointer.to_owned(),
            message,
            hint: rule.hint.to_owned(),
            line: None,
            column: None,
        }
    }
}

/// How a requirement of a conformance level stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
// Named `Verdict` in the check output's schema, as before it was told apart from the gate's.
#[schemars(rename = "Verdict")]
pub enum RequirementVerdict {
    /// Checked from evidence: the report's own numbers, the sealed directory, the seal record.
    Verified,
    /// Claimed (or implied) by the report, but not checkable from what was given.
    Attested,
    /// Checked and not met.
    Failed,
}

impl RequirementVerdict {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            RequirementVerdict::Verified => "verified",
            RequirementVerdict::Attested => "attested",
            RequirementVerdict::Failed => "failed",
        }
    }
}

/// One requirement of §6 for one document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct Requirement {
    /// Stable id (`L2.hash-recomputed`).
    pub id: String,
    /// The level (1-4).
    pub level: u8,
    /// The spec section.
    pub spec: String,
    /// The requirement, as §6 words it.
    pub title: String,
    /// Verified, attested or failed.
    pub verdict: RequirementVerdict,
    /// What was checked, or why it could not be.
    pub detail: String,
}

/// What a file turned out to be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Document {
    /// A Gap Report (Shadow Report).
    Report {
        /// `shadow`, `gap` or `both`.
        dialect: String,
        /// The spec version it names, when it names one.
        #[serde(skip_serializing_if = "Option::is_none")]
        spec_version: Option<String>,
        /// The tool that wrote it, when it says (gapscore's extension object).
        #[serde(skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
    },
    /// A recognised file that is not a Gap Report (a state file, test results, a schema...).
    Artifact {
        /// What it is.
        artifact: String,
        /// Why it is not a Gap Report, and what to check instead.
        explanation: String,
    },
    /// JSON that is neither a Gap Report nor a known artifact.
    Unknown {
        /// Why it was not taken for a Gap Report.
        explanation: String,
    },
    /// The file could not be read (missing, not UTF-8, malformed JSON).
    Unreadable {
        /// What went wrong, with line:col for malformed JSON.
        error: String,
    },
}

/// The outcome of one schema on one document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct SchemaOutcome {
    /// The schema (`shadow-v1`, `shadow-v2`, `gap-pre-rename`, `gapscore-report`).
    pub schema: String,
    /// Whether this schema's errors count against the report (the applicable upstream schema,
    /// or gapscore's own for reports gapscore wrote).
    pub binding: bool,
    /// Number of violations.
    pub errors: usize,
}

/// Everything found about one file.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct FileResult {
    /// The path as given.
    pub path: String,
    /// What the file is.
    pub document: Document,
    /// The schemas applied.
    pub schemas: Vec<SchemaOutcome>,
    /// Each requirement of the levels judged (1-3, or 1-4 with `--level 4`).
    pub requirements: Vec<Requirement>,
    /// Every finding, by level, then severity.
    pub findings: Vec<Finding>,
    /// The highest level (0-3, or 0-4 when level 4 is judged) whose requirements all hold.
    pub level_met: u8,
    /// Whether the requested level holds.
    pub holds: bool,
}

impl FileResult {
    /// True when the file could not be read.
    pub fn unreadable(&self) -> bool {
        matches!(self.document, Document::Unreadable { .. })
    }

    /// The findings of a severity.
    pub fn with_severity(&self, s: Severity) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.severity == s)
    }
}

/// The whole check: every file and the exit code.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(title = "gapscore check output")]
#[non_exhaustive]
pub struct CheckOutput {
    /// The checker's name and version.
    pub checker: String,
    /// The level asked for (`--level`).
    pub requested_level: u8,
    /// Whether a sealed directory was given (`--sealed-dir`).
    pub sealed_dir: bool,
    /// Whether a seal record was given (`--seal`).
    pub seal_record: bool,
    /// One entry per file, in the order given.
    pub files: Vec<FileResult>,
    /// True when every file is readable and meets the requested level.
    pub holds: bool,
    /// 0 the requested level holds for every file, 1 it does not for some, 2 some file was
    /// unreadable.
    pub exit_code: u8,
}

impl CheckOutput {
    /// Gathers file results into the output with its exit code.
    pub fn new(
        requested_level: u8,
        sealed_dir: bool,
        seal_record: bool,
        files: Vec<FileResult>,
    ) -> Self {
        let holds = files.iter().all(|f| f.holds);
        let exit_code = if files.iter().any(FileResult::unreadable) {
            2
        } else if holds {
            0
        } else {
            1
        };
        CheckOutput {
            checker: concat!("gapscore ", env!("CARGO_PKG_VERSION")).to_owned(),
            requested_level,
            sealed_dir,
            seal_record,
            files,
            holds,
            exit_code,
        }
    }
}
