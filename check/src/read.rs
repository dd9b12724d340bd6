//! The checks themselves: reading a report in any published shape, the schemas, the consistency
//! rules and the three levels' requirements.

use std::path::Path;

use gapscore_core::feedback::scrub;
use gapscore_core::hash::canonical_sha256;
use gapscore_core::seal::{
    Excludes, HashMode, PathOrder, SealOptions, SealedFile, diff_files, seal_hash,
};
use gapscore_core::{Level, Score};
use gapscore_model::text::strip_ansi;
use gapscore_schema::{SchemaId, validate};
use serde_json::{Map, Value};

use crate::evidence::{Evidence, SealedDir};
use crate::model::{Document, FileResult, Finding, Requirement, SchemaOutcome, Severity, Verdict};
use crate::numbers::{LevelRule, Rounding, ScoreMatch, match_score, parse_level, same, show};
use crate::recognise::{Kind, classify, classify_text};
use crate::rules::{self, Rule};
use crate::time::parse_rfc3339;

/// Checks one file read from disk; an unreadable file gives an `unreadable` result.
pub fn check_path(path: &Path, evidence: &Evidence, level: u8) -> FileResult {
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => check_bytes(&name, &bytes, evidence, level),
        Err(e) => {
            let reason = match e.kind() {
                std::io::ErrorKind::NotFound => "no such file".to_owned(),
                std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
                std::io::ErrorKind::IsADirectory => "is a directory".to_owned(),
                _ => e.to_string().to_lowercase(),
            };
            unreadable(&name, format!("cannot read `{name}`: {reason}"), level)
        }
    }
}

impl FileResult {
    /// The result for a document that could not be read at all (`error` says why): no level
    /// holds but level 0.
    pub fn cannot_read(path: &str, error: String, level: u8) -> FileResult {
        unreadable(path, error, level)
    }
}

fn unreadable(path: &str, error: String, level: u8) -> FileResult {
    FileResult {
        path: path.to_owned(),
        document: Document::Unreadable { error },
        schemas: Vec::new(),
        requirements: Vec::new(),
        findings: Vec::new(),
        level_met: 0,
        holds: level == 0,
    }
}

/// Checks one document given as bytes (`path` names it in messages).
pub fn check_bytes(path: &str, bytes: &[u8], evidence: &Evidence, level: u8) -> FileResult {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return unreadable(path, format!("`{path}` is not utf-8 text"), level);
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match serde_json::from_str::<Value>(text) {
        Ok(doc) => check_value(path, &doc, evidence, level),
        Err(e) => match classify_text(text) {
            Some(kind) => not_a_report(path, kind, level),
            None => unreadable(
                path,
                format!(
                    "{path}:{}:{}: not valid json: {}",
                    e.line(),
                    e.column(),
                    serde_reason(&e)
                ),
                level,
            ),
        },
    }
}

/// serde_json's message without its own ` at line X column Y` suffix.
fn serde_reason(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}

fn not_a_report(path: &str, kind: Kind, level: u8) -> FileResult {
    let (document, message) = match kind {
        Kind::Artifact {
            artifact,
            explanation,
        } => {
            let message = format!("not a Gap Report: {artifact}");
            (
                Document::Artifact {
                    artifact,
                    explanation,
                },
                message,
            )
        }
        Kind::Unknown(explanation) => (
            Document::Unknown {
                explanation: explanation.clone(),
            },
            explanation,
        ),
        // Not reached: reports are checked, not explained.
        Kind::Report => (
            Document::Unknown {
                explanation: "a report without an object root".into(),
            },
            "a report without an object root".into(),
        ),
    };
    let findings = vec![Finding::new(&rules::KIND, Severity::Error, "", message)];
    FileResult {
        path: path.to_owned(),
        document,
        schemas: Vec::new(),
        requirements: Vec::new(),
        findings,
        level_met: 0,
        holds: level == 0,
    }
}

/// Checks one parsed document.
pub fn check_value(path: &str, doc: &Value, evidence: &Evidence, level: u8) -> FileResult {
    match (classify(doc), doc.as_object()) {
        (Kind::Report, Some(root)) => {
            let (norm, findings) = normalise(root, major_of(root));
            let mut c = Checker::new(&norm, evidence);
            c.findings = findings;
            c.run();
            c.finish(path, level)
        }
        (kind, _) => not_a_report(path, kind, level),
    }
}

/// The major spec version a report names (1 when it names none or an unreadable one; 2 for
/// anything from 2 on, checked under the v2 rules).
fn major_of(root: &Map<String, Value>) -> u64 {
    root.get("shadow_score_spec_version")
        .or_else(|| root.get("gap_score_spec_version"))
        .and_then(Value::as_str)
        .and_then(|v| v.split('.').next())
        .and_then(|m| m.parse::<u64>().ok())
        .map_or(1, |m| m.clamp(1, 2))
}

/// Reads every published shape into the canonical one, with a finding for each liberty
/// taken: score and level at the root move under `report` (a warning under v1, an error under
/// v2), `coverage_comparison.edge_cases` becomes `edge_case`, null failure fields become empty
/// strings (`category` becomes `unknown`). Schemas and rules then judge the canonical form.
fn normalise(root: &Map<String, Value>, major: u64) -> (Map<String, Value>, Vec<Finding>) {
    let mut out = root.clone();
    let mut findings = Vec::new();
    let v2 = major >= 2;
    for key in [SHADOW, GAP, "level"] {
        let Some(value) = out.remove(key) else {
            continue;
        };
        let p = ptr(&[key]);
        let report = out
            .entry("report")
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(report) = report.as_object_mut() else {
            // `report` is not an object: the schema says so; keep the field where it was.
            out.insert(key.to_owned(), value);
            continue;
        };
        let inside = report.get(key).cloned();
        match &inside {
            Some(v)
                if v != &value
                    && !(v
                        .as_f64()
                        .zip(value.as_f64())
                        .is_some_and(|(a, b)| same(a, b))) =>
            {
                findings.push(Finding::new(
                    &rules::DIALECTS,
                    Severity::Error,
                    &p,
                    format!("`{key}` is {value} at the root but {v} under `report`"),
                ));
            }
            _ => {}
        }
        let msg = format!(
            "`{key}` at the root{}: its place is under `report`{}",
            if inside.is_some() {
                " as well as under `report`"
            } else {
                ""
            },
            if v2 {
                " (spec v2 §5.2 and its schema reject it at the root)"
            } else {
                " (read from the root, as v1's §5.2 table can be read)"
            }
        );
        findings.push(Finding::new(
            &rules::ROOT_FIELDS,
            if v2 {
                Severity::Error
            } else {
                Severity::Warning
            },
            &p,
            msg,
        ));
        if inside.is_none() {
            report.insert(key.to_owned(), value);
        }
    }
    if let Some(cc) = out
        .get_mut("coverage_comparison")
        .and_then(Value::as_object_mut)
        && let Some(plural) = cc.remove("edge_cases")
    {
        let msg = match cc.get("edge_case") {
            None => {
                cc.insert("edge_case".to_owned(), plural);
                "`edge_cases` (the §5.1 example's spelling) read as `edge_case` (the schema's key; the schema leaves the plural unchecked)"
            }
            Some(v) if *v == plural => {
                "both `edge_case` and `edge_cases` are present: `edge_case` is used"
            }
            Some(_) => {
                "both `edge_case` and `edge_cases` are present, with different values: `edge_case` is used"
            }
        };
        findings.push(Finding::new(
            &rules::EDGE_CASES,
            Severity::Warning,
            "/coverage_comparison/edge_cases",
            msg.to_owned(),
        ));
    }
    if let Some(list) = out.get_mut("failures").and_then(Value::as_array_mut) {
        for (i, f) in list.iter_mut().enumerate() {
            let Some(o) = f.as_object_mut() else { continue };
            for key in ["test_name", "expected", "actual", "message", "category"] {
                if let Some(v) = o.get_mut(key)
                    && v.is_null()
                {
                    let now = if key == "category" { "unknown" } else { "" };
                    *v = Value::String(now.to_owned());
                    findings.push(Finding::new(
                        &rules::FAILURE_FIELDS,
                        Severity::Warning,
                        &ptr(&["failures", &i.to_string(), key]),
                        format!("`{key}` is null, read as {now:?} (the Python validator writes null when its input had null)"),
                    ));
                }
            }
        }
    }
    (out, findings)
}

/// A schema error as people read it: a `not: {}` rejection says what the schema's description
/// says about the field (v2's "MISPLACED: belongs at report.X"), and a whole object or array
/// quoted at the start of a message is named instead of dumped.
fn schema_message(id: SchemaId, schema_path: &str, message: &str) -> String {
    if let Some(parent) = schema_path.strip_suffix("/not") {
        let description = serde_json::from_str::<Value>(id.text())
            .ok()
            .and_then(|schema| {
                schema
                    .pointer(parent)
                    .and_then(|n| n.get("description"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
        return match description {
            Some(d) => format!("not allowed here: {d}"),
            None => "not allowed here".to_owned(),
        };
    }
    if message.starts_with(['{', '[']) {
        let mut stream = serde_json::Deserializer::from_str(message).into_iter::<Value>();
        if let Some(Ok(v)) = stream.next() {
            let rest = message.get(stream.byte_offset()..).unwrap_or_default();
            let what = if v.is_object() {
                "the object"
            } else {
                "the array"
            };
            return format!("{what}{rest}");
        }
    }
    message.to_owned()
}

/// RFC 6901 pointer from segments.
fn ptr(segments: &[&str]) -> String {
    segments
        .iter()
        .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// A non-negative integer, written as `18` or `18.0`.
fn count(v: Option<&Value>) -> Option<u64> {
    let v = v?;
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    let f = v.as_f64()?;
    (f >= 0.0 && f.fract() == 0.0 && f < 9.0e15).then_some(f as u64)
}

#[derive(Debug, Clone, Copy)]
struct Counts {
    total: u64,
    passed: u64,
    failed: u64,
}

fn counts(v: Option<&Value>) -> Option<Counts> {
    let o = v?.as_object()?;
    Some(Counts {
        total: count(o.get("total"))?,
        passed: count(o.get("passed"))?,
        failed: count(o.get("failed"))?,
    })
}

const SHADOW: &str = "shadow_score";
const GAP: &str = "gap_score";

struct Checker<'a> {
    root: &'a Map<String, Value>,
    meta: Option<&'a Map<String, Value>>,
    evidence: &'a Evidence,
    findings: Vec<Finding>,
    requirements: Vec<Requirement>,
    schemas: Vec<SchemaOutcome>,
    dialect: &'static str,
    version: Option<String>,
    major: u64,
    score: Option<(f64, String)>,
    sealed: Option<Counts>,
    hash: Option<String>,
    tool: Option<String>,
}

impl<'a> Checker<'a> {
    fn new(root: &'a Map<String, Value>, evidence: &'a Evidence) -> Self {
        Checker {
            root,
            meta: root.get("report").and_then(Value::as_object),
            evidence,
            findings: Vec::new(),
            requirements: Vec::new(),
            schemas: Vec::new(),
            dialect: "shadow",
            version: None,
            major: 1,
            score: None,
            sealed: None,
            hash: None,
            tool: None,
        }
    }

    fn add(&mut self, rule: &Rule, severity: Severity, pointer: &str, message: String) {
        self.findings
            .push(Finding::new(rule, severity, pointer, message));
    }

    fn err(&mut self, rule: &Rule, pointer: &str, message: String) {
        self.add(rule, Severity::Error, pointer, message);
    }

    fn warn(&mut self, rule: &Rule, pointer: &str, message: String) {
        self.add(rule, Severity::Warning, pointer, message);
    }

    fn note(&mut self, rule: &Rule, pointer: &str, message: String) {
        self.add(rule, Severity::Note, pointer, message);
    }

    fn errors_of(&self, rule: &Rule) -> Option<&Finding> {
        self.findings
            .iter()
            .find(|f| f.rule == rule.id && f.severity == Severity::Error)
    }

    fn require(
        &mut self,
        id: &str,
        level: u8,
        spec: &str,
        title: &str,
        verdict: Verdict,
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

    fn meta_get(&self, key: &str) -> Option<&'a Value> {
        self.meta.and_then(|m| m.get(key))
    }

    fn hardening(&self) -> Option<&'a Map<String, Value>> {
        self.root.get("hardening").and_then(Value::as_object)
    }

    fn run(&mut self) {
        self.tool = self
            .root
            .get("gapscore")
            .and_then(|g| g.get("tool"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.read_version();
        self.read_schemas();
        self.read_root_fields();
        self.read_failures();
        self.read_coverage();
        self.read_extensions();
        self.level1();
        self.level2();
        self.level3();
    }

    // --- reading -------------------------------------------------------------------------

    fn read_version(&mut self) {
        let sv = self.root.get("shadow_score_spec_version");
        let gv = self.root.get("gap_score_spec_version");
        let has_gap_score = self.meta_get(GAP).is_some() || self.root.get(GAP).is_some();
        self.dialect = match (sv.is_some(), gv.is_some()) {
            (true, true) => "both",
            (false, true) => "gap",
            (false, false) if has_gap_score => "gap",
            _ => "shadow",
        };
        let s = sv.and_then(Value::as_str);
        let g = gv.and_then(Value::as_str);
        if let (Some(s), Some(g)) = (s, g)
            && s != g
        {
            self.err(
                &rules::DIALECTS,
                "/gap_score_spec_version",
                format!(
                    "the two dialects name different spec versions: shadow_score_spec_version `{s}`, gap_score_spec_version `{g}`"
                ),
            );
        }
        // A missing or non-string version is the schemas' finding (a required property).
        let Some(v) = s.or(g) else {
            return;
        };
        self.version = Some(v.to_owned());
        let pointer = if s.is_some() {
            "/shadow_score_spec_version"
        } else {
            "/gap_score_spec_version"
        };
        let parts: Vec<Option<u64>> = v.split('.').map(|p| p.parse().ok()).collect();
        let major = match parts.as_slice() {
            [Some(a), Some(_), Some(_)] => Some(*a),
            _ => None,
        };
        match major {
            Some(m) => self.major = m.clamp(1, 2),
            None => return, // the schemas' pattern reports it
        }
        if !matches!(v, "1.0.0" | "2.0.0") {
            self.warn(
                &rules::VERSION,
                pointer,
                format!(
                    "spec version `{v}` is not a published one (1.0.0, 2.0.0): checked as v{}",
                    self.major
                ),
            );
        }
        if self.major >= 2 && s.is_none() {
            self.warn(
                &rules::VERSION,
                pointer,
                format!("spec v{v} is published in the Shadow dialect only: `gap_score_spec_version` with a v2 version is read as v2"),
            );
        }
    }

    fn read_schemas(&mut self) {
        let doc = Value::Object(self.root.clone());
        let shadow = if self.major >= 2 {
            SchemaId::ShadowV2
        } else {
            SchemaId::ShadowV1
        };
        let mut binding = Vec::new();
        match self.dialect {
            "gap" => binding.push(SchemaId::GapPreRename),
            "both" => {
                binding.push(shadow);
                binding.push(SchemaId::GapPreRename);
            }
            _ => binding.push(shadow),
        }
        for id in binding {
            self.apply_schema(id, &doc, true);
        }
        let ours_binding = self.root.get("gapscore").is_some_and(Value::is_object);
        self.apply_schema(SchemaId::Report, &doc, ours_binding);
    }

    fn apply_schema(&mut self, id: SchemaId, doc: &Value, binding: bool) {
        let errors = match validate(id, doc) {
            Ok(e) => e,
            Err(e) => {
                // A bundled schema that does not compile is ruled out by the schema crate's
                // tests; say so rather than pass silently.
                self.err(
                    &rules::SCHEMA_UPSTREAM,
                    "",
                    format!("schema `{}` could not be used: {e}", id.name()),
                );
                return;
            }
        };
        self.schemas.push(SchemaOutcome {
            schema: id.name().to_owned(),
            binding,
            errors: errors.len(),
        });
        let (rule, severity) = match (id, binding) {
            (SchemaId::Report, true) => (&rules::SCHEMA_GAPSCORE, Severity::Error),
            (SchemaId::Report, false) => (&rules::SCHEMA_GAPSCORE, Severity::Note),
            _ => (&rules::SCHEMA_UPSTREAM, Severity::Error),
        };
        for e in errors {
            let message = schema_message(id, &e.schema_path, &e.message);
            self.add(
                rule,
                severity,
                &e.instance_path,
                format!("{}: {message}", id.name()),
            );
        }
    }

    fn read_root_fields(&mut self) {
        // Root copies were moved under `report` by `normalise`; both dialects must agree.
        let mut found: Vec<(f64, String)> = Vec::new();
        for key in [SHADOW, GAP] {
            if let Some(x) = self.meta_get(key).and_then(Value::as_f64) {
                found.push((x, ptr(&["report", key])));
            }
        }
        if let Some((first, first_p)) = found.first().cloned() {
            for (x, p) in found.iter().skip(1) {
                if !same(*x, first) {
                    self.err(
                        &rules::DIALECTS,
                        p,
                        format!("{p} is {} but {first_p} is {}", show(*x), show(first)),
                    );
                }
            }
            self.score = Some((first, first_p));
        }
        self.sealed = counts(self.root.get("sealed_tests"));
        self.hash = self
            .meta_get("sealed_hash")
            .and_then(Value::as_str)
            .map(str::to_owned);
    }

    fn read_failures(&mut self) {
        let Some(list) = self.root.get("failures").and_then(Value::as_array) else {
            return;
        };
        let mut unknown = Vec::new();
        let mut missing_cat = Vec::new();
        let mut missing_ea = Vec::new();
        for (i, f) in list.iter().enumerate() {
            let Some(o) = f.as_object() else { continue };
            let idx = i.to_string();
            if o.get("test_name").and_then(Value::as_str) == Some("") {
                self.warn(
                    &rules::FAILURE_FIELDS,
                    &ptr(&["failures", &idx, "test_name"]),
                    "empty test name (the Go validator writes \"\" when the input has none)".into(),
                );
            }
            if !o.contains_key("expected") || !o.contains_key("actual") {
                missing_ea.push(i);
            }
            match o.get("category") {
                Some(Value::String(c)) if c == "unknown" => unknown.push(i),
                None => missing_cat.push(i),
                _ => {}
            }
        }
        let summary = |v: &[usize]| -> String {
            let shown: Vec<String> = v.iter().take(5).map(|i| format!("#{i}")).collect();
            let more = if v.len() > 5 {
                format!(" and {} more", v.len() - 5)
            } else {
                String::new()
            };
            format!("{}{more}", shown.join(", "))
        };
        if let Some(first) = missing_ea.first() {
            self.warn(
                &rules::FAILURE_FIELDS,
                &ptr(&["failures", &first.to_string()]),
                format!(
                    "{} failure entr{} without `expected`/`actual`, which §5.2 lists ({})",
                    missing_ea.len(),
                    if missing_ea.len() == 1 { "y" } else { "ies" },
                    summary(&missing_ea)
                ),
            );
        }
        if let Some(first) = unknown.first() {
            self.warn(
                &rules::CATEGORY,
                &ptr(&["failures", &first.to_string(), "category"]),
                format!(
                    "{} failure{} in category `unknown`, which the schema allows but §5.3 does not list ({})",
                    unknown.len(),
                    if unknown.len() == 1 { "" } else { "s" },
                    summary(&unknown)
                ),
            );
        }
        if let Some(first) = missing_cat.first() {
            self.warn(
                &rules::CATEGORY,
                &ptr(&["failures", &first.to_string()]),
                format!(
                    "{} failure{} without a category ({})",
                    missing_cat.len(),
                    if missing_cat.len() == 1 { "" } else { "s" },
                    summary(&missing_cat)
                ),
            );
        }
    }

    fn read_coverage(&mut self) {
        let Some(cc) = self
            .root
            .get("coverage_comparison")
            .and_then(Value::as_object)
        else {
            return;
        };
        for (key, v) in cc {
            let Some(o) = v.as_object() else { continue };
            let (Some(s), Some(op), Some(d)) = (
                o.get("sealed").and_then(Value::as_i64),
                o.get("open").and_then(Value::as_i64),
                o.get("delta").and_then(Value::as_i64),
            ) else {
                continue;
            };
            if d == s - op {
                continue;
            }
            let p = ptr(&["coverage_comparison", key, "delta"]);
            let msg = if d == (s - op).abs() {
                format!(
                    "delta {d} is |sealed - open|; the reference validators write sealed - open = {}",
                    s - op
                )
            } else {
                format!("delta {d} is not sealed {s} - open {op} = {}", s - op)
            };
            self.warn(&rules::COVERAGE_DELTA, &p, msg);
        }
    }

    fn read_extensions(&mut self) {
        let Some(meta) = self.meta else { return };
        let l4: Vec<&str> = [
            "conformance_level",
            "independence",
            "implementer_family",
            "implementer_model",
            "seal_author_families",
            "seal_author_models",
            "workspace_isolation",
            "spec_ambiguity",
        ]
        .into_iter()
        .filter(|k| meta.contains_key(*k))
        .collect();
        if !l4.is_empty() {
            let mut shown = Vec::new();
            for k in &l4 {
                if let Some(v) = meta.get(*k) {
                    shown.push(format!("{k} = {v}"));
                }
            }
            self.note(
                &rules::LEVEL4,
                "/report",
                format!("level-4 provenance read, not checked: {}", shown.join(", ")),
            );
        }
        if meta.get("advisory") == Some(&Value::Bool(true)) {
            let reason = meta
                .get("advisory_reason")
                .and_then(Value::as_str)
                .unwrap_or("no reason given");
            self.warn(
                &rules::ADVISORY,
                "/report/advisory",
                format!("the report is advisory (not authoritative): {reason}"),
            );
        }
        if meta.get("independence").and_then(Value::as_str) == Some("weak")
            || meta.get("workspace_isolation").and_then(Value::as_str) == Some("legacy")
        {
            self.note(
                &rules::ISOLATION,
                "/report",
                "the report itself says isolation was weak (`independence: weak` or `workspace_isolation: legacy`)".into(),
            );
        }
    }

    // --- level 1 -------------------------------------------------------------------------

    fn level1(&mut self) {
        if let Some(c) = self.sealed
            && c.passed.checked_add(c.failed) != Some(c.total)
        {
            self.err(
                &rules::COUNTS_SUM,
                "/sealed_tests",
                format!(
                    "sealed passed {} + failed {} = {}, not total {}",
                    c.passed,
                    c.failed,
                    u128::from(c.passed) + u128::from(c.failed),
                    c.total
                ),
            );
        }
        if let Some(c) = counts(self.root.get("open_tests"))
            && c.passed.checked_add(c.failed) != Some(c.total)
        {
            self.err(
                &rules::COUNTS_SUM,
                "/open_tests",
                format!(
                    "open passed {} + failed {} = {}, not total {}",
                    c.passed,
                    c.failed,
                    u128::from(c.passed) + u128::from(c.failed),
                    c.total
                ),
            );
        }
        let listed = self
            .root
            .get("failures")
            .and_then(Value::as_array)
            .map(Vec::len);
        if let (Some(c), Some(n)) = (self.sealed, listed)
            && n as u64 != c.failed
        {
            self.err(
                &rules::COUNTS_FAILURES,
                "/failures",
                format!(
                    "{n} failure entr{} listed, but sealed_tests.failed is {}",
                    if n == 1 { "y" } else { "ies" },
                    c.failed
                ),
            );
        }
        if let Some(c) = self.sealed
            && c.total == 0
        {
            self.warn(
                &rules::ZERO_TESTS,
                "/sealed_tests/total",
                "zero sealed tests: a score over zero tests proves nothing".into(),
            );
        }

        // §3.3: the formula.
        let formula = match (self.score.clone(), self.sealed) {
            (Some((score, p)), Some(c)) => {
                let exact = Rounding::Unrounded.apply(c.failed, c.total);
                match match_score(score, c.failed, c.total) {
                    ScoreMatch::Roundings(rs) => {
                        let names: Vec<&str> = rs
                            .iter()
                            .filter(|r| **r != Rounding::Unrounded || rs.len() == 1)
                            .map(|r| r.name())
                            .collect();
                        Ok(format!(
                            "{} = {}/{} x 100 ({})",
                            show(score),
                            c.failed,
                            c.total,
                            names.join(", ")
                        ))
                    }
                    ScoreMatch::Close => Ok(format!(
                        "{} is within 0.05 of {}/{} x 100 = {exact:.4} (a finer rounding than the references')",
                        show(score),
                        c.failed,
                        c.total
                    )),
                    ScoreMatch::Mismatch => {
                        let variants: Vec<String> = [
                            Rounding::PythonHalfEven,
                            Rounding::GoHalfUp,
                            Rounding::Truncated,
                            Rounding::WholePercent,
                        ]
                        .iter()
                        .map(|r| format!("{} {}", r.name(), show(r.apply(c.failed, c.total))))
                        .collect();
                        let msg = format!(
                            "score {} is not {}/{} x 100 = {exact:.4} under any reference rounding ({})",
                            show(score),
                            c.failed,
                            c.total,
                            variants.join(", ")
                        );
                        self.err(&rules::SCORE_FORMULA, &p, msg.clone());
                        Err(msg)
                    }
                }
                .inspect(|_| {
                    if c.failed > 0 && score == 0.0 {
                        self.warn(
                            &rules::SCORE_ZERO,
                            &p,
                            format!(
                                "{} of {} sealed tests failed, yet the score reads 0",
                                c.failed, c.total
                            ),
                        );
                    }
                })
            }
            (None, _) => Err("no score to check".to_owned()),
            (_, None) => {
                Err("no complete sealed_tests counts to check the score against".to_owned())
            }
        };
        // Hardening scores are on the same 0-100 scale.
        if let Some(h) = self.hardening() {
            for key in [
                "initial_shadow_score",
                "final_shadow_score",
                "initial_gap_score",
                "final_gap_score",
            ] {
                let p = ptr(&["hardening", key]);
                // The upstream schema of the dialect already bounds its own keys.
                let said = self
                    .findings
                    .iter()
                    .any(|f| f.rule == rules::SCHEMA_UPSTREAM.id && f.pointer == p);
                if let Some(x) = h.get(key).and_then(Value::as_f64)
                    && !(0.0..=100.0).contains(&x)
                    && !said
                {
                    self.err(
                        &rules::HARDENING_RANGE,
                        &p,
                        format!("{key} is {}, outside 0-100", show(x)),
                    );
                }
            }
            for (s, g) in [
                ("initial_shadow_score", "initial_gap_score"),
                ("final_shadow_score", "final_gap_score"),
            ] {
                if let (Some(a), Some(b)) = (
                    h.get(s).and_then(Value::as_f64),
                    h.get(g).and_then(Value::as_f64),
                ) && !same(a, b)
                {
                    self.err(
                        &rules::DIALECTS,
                        &ptr(&["hardening", g]),
                        format!("{g} is {} but {s} is {}", show(b), show(a)),
                    );
                }
            }
        }
        let formula = match (formula, self.errors_of(&rules::HARDENING_RANGE)) {
            (Ok(_), Some(f)) => Err(f.message.clone()),
            (r, _) => r,
        };
        let (verdict, detail) = match formula {
            Ok(d) => (Verdict::Verified, d),
            Err(d) => (Verdict::Failed, d),
        };
        self.require(
            "L1.formula",
            1,
            "§3.3",
            "computes the score with the §3.3 formula",
            verdict,
            detail,
        );

        // §5.2: required fields, schema and counts.
        let field_error = self
            .findings
            .iter()
            .find(|f| {
                f.level == 1
                    && f.severity == Severity::Error
                    && ![
                        rules::SCORE_FORMULA.id,
                        rules::LEVEL_SCALE.id,
                        rules::HARDENING_RANGE.id,
                    ]
                    .contains(&f.rule.as_str())
            })
            .map(|f| {
                if f.pointer.is_empty() {
                    f.message.clone()
                } else {
                    format!("{}: {}", f.pointer, f.message)
                }
            });
        let binding: Vec<String> = self
            .schemas
            .iter()
            .filter(|s| s.binding)
            .map(|s| s.schema.clone())
            .collect();
        match field_error {
            Some(d) => self.require(
                "L1.fields",
                1,
                "§5.2",
                "produces a Gap Report with every required field",
                Verdict::Failed,
                d,
            ),
            None => self.require(
                "L1.fields",
                1,
                "§5.2",
                "produces a Gap Report with every required field",
                Verdict::Verified,
                format!(
                    "required fields present, counts consistent, valid against {}",
                    binding.join(" and ")
                ),
            ),
        }

        // §3.4: the level.
        let level_v = self
            .meta_get("level")
            .map(|v| (v, "/report/level"))
            .or_else(|| self.root.get("level").map(|v| (v, "/level")));
        let scale = match (level_v, self.sealed) {
            (Some((Value::String(name), p)), Some(c)) => match parse_level(name) {
                Some(reported) => {
                    let exact = Level::from_counts(c.failed, c.total);
                    if reported == exact {
                        Ok(format!(
                            "`{name}` follows from {} of {} under the exact rule",
                            c.failed, c.total
                        ))
                    } else {
                        let mut why: Vec<&str> = LevelRule::ALL
                            .iter()
                            .filter(|r| {
                                **r != LevelRule::Exact && r.apply(c.failed, c.total) == reported
                            })
                            .map(|r| r.name())
                            .collect();
                        if let Some((s, _)) = self.score
                            && crate::numbers::classify(s) == reported
                        {
                            why.push("level of the reported score");
                        }
                        let matched = if why.is_empty() {
                            "no reference rule gives it".to_owned()
                        } else {
                            format!("it matches the {}", why.join(", the "))
                        };
                        let msg = format!(
                            "level `{name}` does not follow from {} of {} failed: the exact rule gives `{exact}`; {matched}",
                            c.failed, c.total
                        );
                        self.err(&rules::LEVEL_SCALE, p, msg.clone());
                        Err(msg)
                    }
                }
                None => Err(format!("level `{name}` is not on the §3.4 scale")),
            },
            (Some(_), Some(_)) => Err("the level is not a string".to_owned()),
            (None, _) => Err("no level".to_owned()),
            (_, None) => {
                Err("no complete sealed_tests counts to check the level against".to_owned())
            }
        };
        let (verdict, detail) = match scale {
            Ok(d) => (Verdict::Verified, d),
            Err(d) => (Verdict::Failed, d),
        };
        self.require(
            "L1.scale",
            1,
            "§3.4",
            "uses the §3.4 interpretation scale",
            verdict,
            detail,
        );
    }

    // --- level 2 -------------------------------------------------------------------------

    fn level2(&mut self) {
        // Stored.
        let stored = match self.hash.clone() {
            None => {
                let msg = if self.meta_get("sealed_hash").is_some() {
                    "`report.sealed_hash` is not a string".to_owned()
                } else {
                    "no `report.sealed_hash`: the tamper-evidence hash is not stored".to_owned()
                };
                self.err(&rules::HASH_PRESENT, "/report", msg.clone());
                Err(msg)
            }
            Some(h) => {
                let well_formed = h
                    .strip_prefix("sha256:")
                    .is_some_and(|x| x.len() == 64 && x.bytes().all(|b| b.is_ascii_hexdigit()));
                if well_formed {
                    Ok(h)
                } else {
                    let msg = match canonical_sha256(&h) {
                        Ok(c) => {
                            format!("`{h}` is a hash without the `sha256:` prefix (write `{c}`)")
                        }
                        Err(_) => format!(
                            "`{h}` is not `sha256:` + 64 hex digits (a placeholder or a truncated display value)"
                        ),
                    };
                    self.err(&rules::HASH_FORMAT, "/report/sealed_hash", msg.clone());
                    Err(msg)
                }
            }
        };
        match &stored {
            Ok(h) => self.require(
                "L2.hash-stored",
                2,
                "§4.5",
                "a tamper-evidence hash is computed and stored",
                Verdict::Verified,
                format!("report.sealed_hash is {h}"),
            ),
            Err(d) => self.require(
                "L2.hash-stored",
                2,
                "§4.5",
                "a tamper-evidence hash is computed and stored",
                Verdict::Failed,
                d.clone(),
            ),
        }

        // Recomputed.
        let recomputed = self.recompute(stored.as_ref().ok().map(String::as_str));
        let (verdict, detail) = recomputed;
        self.require(
            "L2.hash-recomputed",
            2,
            "§4.5",
            "the hash, recomputed before validation, matches",
            verdict,
            detail,
        );

        // Sealed before implementation.
        let (verdict, detail) = self.seal_order();
        self.require(
            "L2.sealed-first",
            2,
            "§4.1",
            "sealed tests are generated before implementation begins",
            verdict,
            detail,
        );

        // Isolation.
        let claims: Vec<String> = ["workspace_isolation", "independence"]
            .iter()
            .filter_map(|k| {
                self.meta_get(k)
                    .and_then(Value::as_str)
                    .map(|v| format!("{k}: {v}"))
            })
            .collect();
        let detail = if claims.is_empty() {
            "no report can show isolation; taken on trust".to_owned()
        } else {
            format!("the report claims {}; not checkable", claims.join(", "))
        };
        self.require(
            "L2.isolation",
            2,
            "§4.2",
            "information isolation at context level or stronger",
            Verdict::Attested,
            detail,
        );
    }

    fn recompute(&mut self, stored: Option<&str>) -> (Verdict, String) {
        if self.meta_get("seal_broken") == Some(&Value::Bool(true)) {
            let msg =
                "the report says its seal is broken (`seal_broken: true`): the score is invalid"
                    .to_owned();
            self.err(&rules::SEAL_BROKEN, "/report/seal_broken", msg.clone());
            return (Verdict::Failed, msg);
        }
        let record = self.evidence.seal.as_ref();
        let dir = self.evidence.sealed_dir.as_ref();
        if record.is_none() && dir.is_none() {
            return (
                Verdict::Attested,
                "stored, not recomputed: give --sealed-dir (and --seal) to recompute it".into(),
            );
        }
        let Some(stored) = stored else {
            return (
                Verdict::Failed,
                "no well-formed stored hash to compare with".into(),
            );
        };
        if let Some(r) = record {
            let rec = canonical_sha256(&r.hash).unwrap_or_else(|_| r.hash.clone());
            if rec != stored.to_ascii_lowercase() {
                let msg = format!(
                    "the seal record's hash {rec} is not the report's {stored}: the report was not made under this seal"
                );
                self.err(&rules::SEAL_RECORD, "/report/sealed_hash", msg.clone());
                return (Verdict::Failed, msg);
            }
        }
        let Some(dir) = dir else {
            return (
                Verdict::Attested,
                "the seal record names the same hash; give --sealed-dir to recompute it".into(),
            );
        };
        match record {
            Some(r) => {
                let files = match Excludes::new(&r.excludes) {
                    Ok(ex) => dir
                        .files
                        .iter()
                        .filter(|f| !ex.matches(&f.path))
                        .cloned()
                        .collect::<Vec<SealedFile>>(),
                    Err(_) => dir.files.clone(),
                };
                let now = seal_hash(&files, &r.options());
                if now.hash == stored.to_ascii_lowercase() {
                    (
                        Verdict::Verified,
                        format!(
                            "recomputed from `{}` in {} mode ({} files) as the seal record prescribes: {stored}",
                            dir.given, r.mode, now.hashed
                        ),
                    )
                } else {
                    let d = diff_files(&r.files, &files);
                    let mut parts = Vec::new();
                    for (list, what) in [
                        (&d.changed, "changed"),
                        (&d.added, "added"),
                        (&d.removed, "removed"),
                    ] {
                        if !list.is_empty() {
                            parts.push(format!("{what}: {}", list.join(", ")));
                        }
                    }
                    let what = if parts.is_empty() {
                        "every file is as recorded, but the hash differs (hashed as another path or order)".to_owned()
                    } else {
                        parts.join("; ")
                    };
                    let msg = format!(
                        "`{}` hashes to {} now, not {stored}: {what}",
                        dir.given, now.hash
                    );
                    self.err(&rules::HASH_RECOMPUTED, "/report/sealed_hash", msg.clone());
                    (Verdict::Failed, msg)
                }
            }
            None => match recompute_any(dir, &stored.to_ascii_lowercase()) {
                Some(how) => (
                    Verdict::Verified,
                    format!("recomputed from `{}`: {how}", dir.given),
                ),
                None => {
                    let msg = format!(
                        "`{}` does not hash to {stored} in any mode (strict; spec and stampede as `{}`{}, byte and locale order): the sealed tests changed or were hashed elsewhere; a seal record (--seal) would say which files differ",
                        dir.given,
                        dir.given,
                        dir.absolute
                            .as_ref()
                            .map(|a| format!(" or `{a}`"))
                            .unwrap_or_default()
                    );
                    self.err(&rules::HASH_RECOMPUTED, "/report/sealed_hash", msg.clone());
                    (Verdict::Failed, msg)
                }
            },
        }
    }

    fn seal_order(&mut self) -> (Verdict, String) {
        let time_of = |v: Option<&Value>| {
            v.and_then(Value::as_str)
                .and_then(|s| parse_rfc3339(s).map(|t| (t, s.to_owned())))
        };
        let mut sealed: Option<(i128, String, String)> = None;
        for key in ["sealed_at", "seal_created", "sealed_timestamp"] {
            if let Some((t, s)) = time_of(self.meta_get(key)) {
                sealed = Some((t, s, format!("report.{key}")));
                break;
            }
        }
        if sealed.is_none()
            && let Some(r) = &self.evidence.seal
            && let Some(t) = parse_rfc3339(&r.created)
        {
            sealed = Some((t, r.created.clone(), "the seal record".to_owned()));
        }
        let mut implementation: Option<(i128, String, String)> = None;
        for key in [
            "implementation_started_at",
            "implementation_started",
            "implementation_start",
        ] {
            if let Some((t, s)) = time_of(self.meta_get(key)) {
                implementation = Some((t, s, format!("report.{key}")));
                break;
            }
        }
        let mut validation: Option<(i128, String, String)> = None;
        let first_cycle = self
            .hardening()
            .and_then(|h| h.get("history"))
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(|c| c.get("timestamp"));
        for (v, what) in [
            (first_cycle, "the first recorded validation"),
            (self.meta_get("timestamp"), "the report"),
        ] {
            if let Some((t, s)) = time_of(v)
                && validation.as_ref().is_none_or(|(vt, _, _)| t < *vt)
            {
                validation = Some((t, s, what.to_owned()));
            }
        }
        let Some((st, ss, swhere)) = sealed else {
            return (
                Verdict::Attested,
                "neither the report nor a seal record says when the tests were sealed".into(),
            );
        };
        if let Some((it, is, iwhere)) = implementation {
            if st < it {
                return (
                    Verdict::Verified,
                    format!("sealed {ss} ({swhere}), implementation began {is} ({iwhere})"),
                );
            }
            let msg = format!("sealed {ss} ({swhere}), after implementation began {is} ({iwhere})");
            self.err(&rules::SEAL_ORDER, "/report", msg.clone());
            return (Verdict::Failed, msg);
        }
        match validation {
            Some((vt, vs, vwhere)) if st > vt => {
                let msg = format!(
                    "sealed {ss} ({swhere}), after {vwhere} at {vs}: the seal cannot predate the implementation"
                );
                self.err(&rules::SEAL_ORDER, "/report", msg.clone());
                (Verdict::Failed, msg)
            }
            Some((_, vs, vwhere)) => (
                Verdict::Attested,
                format!(
                    "sealed {ss} ({swhere}), before {vwhere} at {vs}; when implementation began is not recorded"
                ),
            ),
            None => (
                Verdict::Attested,
                format!(
                    "sealed {ss} ({swhere}); no implementation or validation time to compare with"
                ),
            ),
        }
    }

    // --- level 3 -------------------------------------------------------------------------

    fn level3(&mut self) {
        let Some(h) = self.hardening() else {
            let msg = "no `hardening` object: the hardening loop is not reported".to_owned();
            self.err(&rules::HARDENING_PRESENT, "", msg.clone());
            for (id, spec, title) in L3_REQUIREMENTS {
                self.require(id, 3, spec, title, Verdict::Failed, msg.clone());
            }
            let (v, d) = self.leak_scan();
            self.require(
                "L3.no-source",
                3,
                "§4.4",
                "failure messages shared with the implementer hold no test source",
                v,
                d,
            );
            return;
        };
        let cycles = count(h.get("cycles_completed"));
        let max = count(h.get("max_cycles"));
        let loop_ok = match (cycles, max) {
            (Some(c), Some(m)) if c > m => {
                let msg = format!("cycles_completed {c} is more than max_cycles {m}");
                self.err(
                    &rules::HARDENING_CYCLES,
                    "/hardening/cycles_completed",
                    msg.clone(),
                );
                Err(msg)
            }
            (Some(c), Some(m)) => Ok(format!("{c} of at most {m} cycles")),
            _ => {
                let missing: Vec<&str> = ["cycles_completed", "max_cycles"]
                    .into_iter()
                    .filter(|k| count(h.get(*k)).is_none())
                    .collect();
                let msg = format!("the hardening object lacks {}", missing.join(" and "));
                self.err(&rules::HARDENING_PRESENT, "/hardening", msg.clone());
                Err(msg)
            }
        };
        let (v, d) = verdict_of(loop_ok);
        self.require(
            "L3.hardening-loop",
            3,
            "§4.4",
            "the hardening loop is implemented",
            v,
            d,
        );

        // Initial and final scores.
        let pick = |a: &str, b: &str| -> Option<(f64, String)> {
            h.get(a)
                .and_then(Value::as_f64)
                .map(|x| (x, ptr(&["hardening", a])))
                .or_else(|| {
                    h.get(b)
                        .and_then(Value::as_f64)
                        .map(|x| (x, ptr(&["hardening", b])))
                })
        };
        let initial = pick("initial_shadow_score", "initial_gap_score");
        let fin = pick("final_shadow_score", "final_gap_score");
        let scores_ok = match (&initial, &fin) {
            (Some((i, _)), Some((f, fp))) => match &self.score {
                Some((s, _)) if !same(*s, *f) => {
                    let msg = format!(
                        "the final hardening score {} is not the report's score {}",
                        show(*f),
                        show(*s)
                    );
                    self.err(&rules::HARDENING_SCORES, fp, msg.clone());
                    Err(msg)
                }
                _ => Ok(format!("initial {}, final {}", show(*i), show(*f))),
            },
            _ => {
                let missing: Vec<&str> = [("initial", &initial), ("final", &fin)]
                    .into_iter()
                    .filter(|(_, v)| v.is_none())
                    .map(|(k, _)| k)
                    .collect();
                let msg = format!(
                    "no {} score in the hardening object",
                    missing.join(" and no ")
                );
                self.err(&rules::HARDENING_SCORES, "/hardening", msg.clone());
                Err(msg)
            }
        };
        let (v, d) = verdict_of(scores_ok);
        self.require(
            "L3.initial-final",
            3,
            "§4.4",
            "initial and final scores are recorded",
            v,
            d,
        );

        // Velocity.
        let velocity = h.get("hardening_velocity").and_then(Value::as_f64);
        let vel = match (velocity, &initial, &fin, cycles) {
            (Some(v), Some((i, _)), Some((f, _)), Some(c)) => {
                let want = if c == 0 { i - f } else { (i - f) / c as f64 };
                if (v - want).abs() <= 0.05 + 1e-9 {
                    Ok(format!(
                        "{} points per cycle = ({} - {}) / {}",
                        show(v),
                        show(*i),
                        show(*f),
                        c.max(1)
                    ))
                } else {
                    let msg = format!(
                        "hardening_velocity {} is not (initial {} - final {}) / {} cycles = {want:.2}",
                        show(v),
                        show(*i),
                        show(*f),
                        c.max(1)
                    );
                    self.err(
                        &rules::HARDENING_VELOCITY,
                        "/hardening/hardening_velocity",
                        msg.clone(),
                    );
                    Err(msg)
                }
            }
            (Some(v), _, _, _) => Ok(format!(
                "{} points per cycle (not checkable without initial, final and cycles)",
                show(v)
            )),
            (None, _, _, Some(0)) => Ok("no cycle ran yet: velocity is undefined".to_owned()),
            (None, _, _, _) => {
                let msg = "no `hardening_velocity`: velocity is not tracked".to_owned();
                self.err(&rules::HARDENING_VELOCITY, "/hardening", msg.clone());
                Err(msg)
            }
        };
        let (v, d) = verdict_of(vel);
        self.require(
            "L3.velocity",
            3,
            "§3.5",
            "hardening velocity is tracked",
            v,
            d,
        );

        // Per-cycle recomputation.
        let (v, d) = self.history(h, cycles, initial.map(|x| x.0), fin.map(|x| x.0));
        self.require(
            "L3.recomputed",
            3,
            "§6.3",
            "the score is recomputed after each hardening cycle",
            v,
            d,
        );

        let (v, d) = self.leak_scan();
        self.require(
            "L3.no-source",
            3,
            "§4.4",
            "failure messages shared with the implementer hold no test source",
            v,
            d,
        );
    }

    fn history(
        &mut self,
        h: &Map<String, Value>,
        cycles: Option<u64>,
        initial: Option<f64>,
        fin: Option<f64>,
    ) -> (Verdict, String) {
        let Some(list) = h
            .get("history")
            .and_then(Value::as_array)
            .filter(|a| !a.is_empty())
        else {
            return match (cycles, initial, fin) {
                (Some(c), Some(_), Some(_)) => (
                    Verdict::Attested,
                    format!(
                        "claimed by cycles_completed {c} with initial and final scores; no per-cycle history to check"
                    ),
                ),
                _ => (
                    Verdict::Failed,
                    "neither a per-cycle history nor cycles with initial and final scores".into(),
                ),
            };
        };
        let before = self.findings.len();
        let mut last_time: Option<(i128, String)> = None;
        let mut scores = Vec::new();
        for (i, c) in list.iter().enumerate() {
            let idx = i.to_string();
            let p = ptr(&["hardening", "history", &idx]);
            let Some(o) = c.as_object() else {
                self.err(
                    &rules::HARDENING_HISTORY,
                    &p,
                    "a history entry is not an object".into(),
                );
                continue;
            };
            match count(o.get("cycle")) {
                Some(n) if n == i as u64 => {}
                Some(n) => self.err(
                    &rules::HARDENING_HISTORY,
                    &format!("{p}/cycle"),
                    format!(
                        "entry {i} is numbered cycle {n}: cycles run 0, 1, 2, ... with none missing"
                    ),
                ),
                None => self.err(
                    &rules::HARDENING_HISTORY,
                    &p,
                    "entry without a cycle number".into(),
                ),
            }
            let score = [("score"), (SHADOW), (GAP)]
                .iter()
                .find_map(|k| o.get(*k).and_then(Value::as_f64).map(|x| (x, *k)));
            let (failed, total) = (count(o.get("sealed_failed")), count(o.get("sealed_total")));
            match (score, failed, total) {
                (Some((s, key)), Some(f), Some(t)) => {
                    if matches!(match_score(s, f, t), ScoreMatch::Mismatch) {
                        self.err(
                            &rules::HARDENING_HISTORY,
                            &format!("{p}/{key}"),
                            format!("cycle {i}: score {} is not {f}/{t} x 100", show(s)),
                        );
                    }
                    if let Some(name) = o.get("level").and_then(Value::as_str)
                        && parse_level(name) != Some(Level::from_counts(f, t))
                    {
                        self.err(
                            &rules::HARDENING_HISTORY,
                            &format!("{p}/level"),
                            format!(
                                "cycle {i}: level `{name}` does not follow from {f} of {t} (exact rule: `{}`)",
                                Score::new(f, t).level()
                            ),
                        );
                    }
                    scores.push(s);
                }
                (Some((s, _)), _, _) => {
                    self.err(
                        &rules::HARDENING_HISTORY,
                        &p,
                        format!("cycle {i}: score {} without sealed_failed and sealed_total, so it cannot be recomputed", show(s)),
                    );
                    scores.push(s);
                }
                _ => self.err(
                    &rules::HARDENING_HISTORY,
                    &p,
                    format!("cycle {i} has no score"),
                ),
            }
            if let Some(ts) = o.get("timestamp").and_then(Value::as_str)
                && let Some(t) = parse_rfc3339(ts)
            {
                if let Some((prev, prev_s)) = &last_time
                    && t < *prev
                {
                    self.err(
                        &rules::HARDENING_HISTORY,
                        &format!("{p}/timestamp"),
                        format!("cycle {i} at {ts} is earlier than the cycle before it ({prev_s})"),
                    );
                }
                last_time = Some((t, ts.to_owned()));
            }
            if let (Some(ch), Some(rh)) = (
                o.get("sealed_hash").and_then(Value::as_str),
                self.hash.clone(),
            ) && canonical_sha256(ch).ok() != canonical_sha256(&rh).ok()
            {
                self.err(
                    &rules::HARDENING_HISTORY,
                    &format!("{p}/sealed_hash"),
                    format!("cycle {i} was validated under sealed hash {ch}, the report under {rh}: the scores are not comparable"),
                );
            }
        }
        let n = list.len() as u64;
        if let Some(c) = cycles
            && c + 1 != n
        {
            self.err(
                &rules::HARDENING_HISTORY,
                "/hardening/history",
                format!("{n} validations recorded, but cycles_completed {c} means {} (cycle 0 and one per cycle)", c + 1),
            );
        }
        if let (Some(i), Some(first)) = (initial, scores.first())
            && !same(i, *first)
        {
            self.err(
                &rules::HARDENING_HISTORY,
                "/hardening/history/0",
                format!(
                    "the first cycle's score {} is not the initial score {}",
                    show(*first),
                    show(i)
                ),
            );
        }
        if let (Some(f), Some(last)) = (fin, scores.last())
            && !same(f, *last)
        {
            self.err(
                &rules::HARDENING_HISTORY,
                &ptr(&["hardening", "history", &(list.len() - 1).to_string()]),
                format!(
                    "the last cycle's score {} is not the final score {}",
                    show(*last),
                    show(f)
                ),
            );
        }
        match self.findings[before..]
            .iter()
            .find(|f| f.severity == Severity::Error)
        {
            Some(f) => (Verdict::Failed, format!("{}: {}", f.pointer, f.message)),
            None => (
                Verdict::Verified,
                format!(
                    "{n} validation{} recorded, each score recomputed from its counts",
                    if n == 1 { "" } else { "s" }
                ),
            ),
        }
    }

    fn leak_scan(&mut self) -> (Verdict, String) {
        let Some(dir) = self.evidence.sealed_dir.as_ref() else {
            return (
                Verdict::Attested,
                "not scanned: give --sealed-dir to scan the failure texts for sealed source".into(),
            );
        };
        let mut source = dir.source.clone();
        let lines = source.line_count();
        let Some(list) = self.root.get("failures").and_then(Value::as_array) else {
            return (Verdict::Verified, "no failures listed".into());
        };
        let mut texts = 0usize;
        let mut leaks = 0usize;
        let mut located = 0usize;
        for (i, f) in list.iter().enumerate() {
            for key in ["message", "expected", "actual"] {
                let Some(text) = f.get(key).and_then(Value::as_str) else {
                    continue;
                };
                texts += 1;
                let p = ptr(&["failures", &i.to_string(), key]);
                for line in strip_ansi(text).lines() {
                    let s = scrub(line, Some(&mut source));
                    if s.redacted > 0 {
                        leaks += 1;
                        let shown: String = line.trim().chars().take(80).collect();
                        self.err(
                            &rules::FEEDBACK_LEAK,
                            &p,
                            format!("holds a line of sealed test source: `{shown}`"),
                        );
                    } else if s.locations > 0 {
                        located += 1;
                        let shown: String = line.trim().chars().take(80).collect();
                        self.warn(
                            &rules::FEEDBACK_LEAK,
                            &p,
                            format!("names a place in a sealed test file: `{shown}`"),
                        );
                    }
                }
            }
        }
        if leaks > 0 {
            return (
                Verdict::Failed,
                format!(
                    "{leaks} line{} of sealed source in the failure texts",
                    if leaks == 1 { "" } else { "s" }
                ),
            );
        }
        (
            Verdict::Verified,
            format!(
                "{texts} failure text{} scanned against {lines} sealed source line{}: none found{}",
                if texts == 1 { "" } else { "s" },
                if lines == 1 { "" } else { "s" },
                if located > 0 {
                    format!(" ({located} naming sealed file locations)")
                } else {
                    String::new()
                }
            ),
        )
    }

    fn finish(mut self, path: &str, level: u8) -> FileResult {
        // A requirement fails with any error at its level; findings make requirements fail
        // through their detail, and errors without a requirement still count.
        let failed_at = |lvl: u8, s: &Self| {
            s.requirements
                .iter()
                .any(|r| r.level == lvl && r.verdict == Verdict::Failed)
                || s.findings
                    .iter()
                    .any(|f| f.level == lvl && f.severity == Severity::Error)
        };
        let mut met = 0;
        for l in 1..=3 {
            if failed_at(l, &self) {
                break;
            }
            met = l;
        }
        if let Some(claimed) = self.meta_get("conformance_level").and_then(Value::as_u64)
            && claimed > u64::from(met)
            && (claimed <= 3 || met < 3)
        {
            self.warn(
                &rules::CLAIMED_LEVEL,
                "/report/conformance_level",
                format!(
                    "the report claims conformance level {claimed}; the checker finds level {met}{}",
                    if claimed > 3 { " (level 4 is not checked)" } else { "" }
                ),
            );
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

const L3_REQUIREMENTS: [(&str, &str, &str); 4] = [
    (
        "L3.hardening-loop",
        "§4.4",
        "the hardening loop is implemented",
    ),
    (
        "L3.initial-final",
        "§4.4",
        "initial and final scores are recorded",
    ),
    ("L3.velocity", "§3.5", "hardening velocity is tracked"),
    (
        "L3.recomputed",
        "§6.3",
        "the score is recomputed after each hardening cycle",
    ),
];

fn verdict_of(r: Result<String, String>) -> (Verdict, String) {
    match r {
        Ok(d) => (Verdict::Verified, d),
        Err(d) => (Verdict::Failed, d),
    }
}

/// Tries every hash mode and spelling of the directory the references use; says which matched.
fn recompute_any(dir: &SealedDir, want: &str) -> Option<String> {
    let strict = seal_hash(&dir.files, &SealOptions::default());
    if strict.hash == want {
        return Some(format!("strict mode, {} files", strict.hashed));
    }
    let mut spellings = vec![dir.given.clone()];
    let trimmed = dir.given.trim_end_matches('/');
    if !trimmed.is_empty() && trimmed != dir.given {
        spellings.push(trimmed.to_owned());
    }
    if !dir.given.starts_with('/') && !dir.given.starts_with("./") && dir.given != "." {
        spellings.push(format!("./{}", dir.given));
    }
    if let Some(a) = &dir.absolute {
        spellings.push(a.clone());
    }
    for mode in [HashMode::Spec, HashMode::Stampede] {
        for order in [PathOrder::Bytes, PathOrder::Locale] {
            for as_ in &spellings {
                let opts = SealOptions {
                    mode,
                    order,
                    hash_as: as_.clone(),
                };
                let h = seal_hash(&dir.files, &opts);
                if h.hash == want {
                    let order = match order {
                        PathOrder::Bytes => "byte order",
                        PathOrder::Locale => "locale order",
                    };
                    return Some(format!(
                        "{mode} mode as `{as_}`, {order}, {} files",
                        h.hashed
                    ));
                }
            }
        }
    }
    None
}
