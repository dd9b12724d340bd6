//! Reading a document: [`check_path`] / [`check_bytes`] / [`check_value`] take it in any
//! published shape or recognise it as something else, normalise it to the canonical shape,
//! and read what it says — dialect and spec version, the schemas it must pass, its scores,
//! counts, failures, coverage and extensions — before the levels' rules judge it.

use std::collections::HashMap;
use std::path::Path;

use gapscore_adapter_sdk::json::find_duplicate_key;

use serde_json::{Map, Value};

pub use crate::depth::MAX_READ_DEPTH;

use crate::checker::{Checker, GAP, SHADOW, SetAside, counts, is_score_pointer, ptr};
use crate::evidence::Evidence;
use crate::model::{Document, FileResult, Finding, Severity};
use crate::numbers::{Written, same, show};
use crate::recognise::{Kind, classify, classify_text, spec_major};
use crate::rules;

/// The largest report [`check_path`] reads: 32 MiB. A report is parsed whole, and the parsed
/// document takes several times its size in memory, so this keeps a check well under 256 MB
/// whatever the input; the largest reports gapscore writes (thousands of failures with their
/// messages) are a few megabytes. `gapscore check --max-size` raises it.
pub const DEFAULT_MAX_REPORT_BYTES: u64 = 32 * 1024 * 1024;

/// Checks one file read from disk; an unreadable file gives an `unreadable` result, and so does
/// one larger than [`DEFAULT_MAX_REPORT_BYTES`].
pub fn check_path(path: &Path, evidence: &Evidence, level: u8) -> FileResult {
    check_path_limited(path, evidence, level, DEFAULT_MAX_REPORT_BYTES)
}

/// [`check_path`] with another size limit: a file larger than `max_bytes` is refused unread
/// (the message names the file, its size and the limit).
pub fn check_path_limited(
    path: &Path,
    evidence: &Evidence,
    level: u8,
    max_bytes: u64,
) -> FileResult {
    let name = path.display().to_string();
    let read = std::fs::File::open(path).and_then(|f| {
        let size = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
        read_limited(f, &name, size, max_bytes)
    });
    match read {
        Ok(Ok(bytes)) => check_bytes(&name, &bytes, evidence, level),
        Ok(Err(too_large)) => unreadable(&name, too_large, level),
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

/// Reads a report of at most `max_bytes` from `reader` (`name` for messages; `size`, when
/// known, refuses a larger file before reading any of it). Reading stops at the first byte past
/// the limit: the inner error says the report is too large, naming the file, its size (or "more
/// than" the limit, for a stream) and the limit.
pub fn read_limited(
    reader: impl std::io::Read,
    name: &str,
    size: Option<u64>,
    max_bytes: u64,
) -> std::io::Result<Result<Vec<u8>, String>> {
    use std::io::Read as _;
    let too_large = |size: String| {
        format!(
            "`{name}` is too large to check: {size}, over the {} limit (a Gap Report is a few megabytes; `--max-size BYTES` raises the limit)",
            show_bytes(max_bytes)
        )
    };
    if let Some(n) = size
        && n > max_bytes
    {
        return Ok(Err(too_large(show_bytes(n))));
    }
    let mut bytes = Vec::new();
    reader
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Ok(Err(too_large(format!(
            "more than {}",
            show_bytes(max_bytes)
        ))));
    }
    Ok(Ok(bytes))
}

/// A byte count for people: `139 MB (145686528 bytes)`, `32 MiB`-style limits exact.
fn show_bytes(n: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else if n >= MIB {
        format!("{:.1} MiB ({n} bytes)", n as f64 / MIB as f64)
    } else {
        format!("{n} bytes")
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

/// Checks one document given as bytes (`path` names it in messages). Valid JSON is read
/// however deep it nests up to [`MAX_READ_DEPTH`]; a deeper document is unreadable, with its
/// depth.
pub fn check_bytes(path: &str, bytes: &[u8], evidence: &Evidence, level: u8) -> FileResult {
    crate::depth::readable(path, bytes)
        .and_then(|depth| {
            crate::depth::with_stack_for(depth, || check_text(path, bytes, evidence, level))
        })
        .unwrap_or_else(|e| unreadable(path, e, level))
}

fn check_text(path: &str, bytes: &[u8], evidence: &Evidence, level: u8) -> FileResult {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return unreadable(path, format!("`{path}` is not utf-8 text"), level);
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // A key given twice: a reader keeping the first value and one keeping the last would see
    // two different reports, so the file is read as neither (the adapters' shared check).
    if let Some(d) = find_duplicate_key(text.as_bytes()) {
        let e = d.to_input_error(text.as_bytes(), 0);
        return unreadable(path, format!("{path}:{e}"), level);
    }
    match crate::depth::parse_unbounded(text) {
        Ok(doc) => {
            let written = crate::locate::numbers_as_written(text, &is_score_pointer);
            let mut result = check_owned(path, doc, evidence, level, written);
            crate::locate::locate_findings(text, &mut result.findings);
            result
        }
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
    check_owned(path, doc.clone(), evidence, level, HashMap::new())
}

/// Checks one parsed document, normalised in place: the document is held once, whatever its
/// size.
fn check_owned(
    path: &str,
    doc: Value,
    evidence: &Evidence,
    level: u8,
    written: HashMap<String, Written>,
) -> FileResult {
    match (classify(&doc), doc) {
        (Kind::Report, Value::Object(root)) => {
            let major = major_of(&root);
            let (norm, findings, set_aside) = normalise(root, major);
            let doc = Value::Object(norm);
            let Value::Object(root) = &doc else {
                return not_a_report(path, Kind::Report, level);
            };
            let mut c = Checker::new(&doc, root, evidence);
            c.written = written;
            c.set_aside = set_aside;
            for f in findings {
                c.push(f);
            }
            c.judge4 = level >= 4;
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
        .and_then(spec_major)
        .unwrap_or(1)
}

/// Reads every published shape into the canonical one, with a finding for each liberty
/// taken: score and level at the root move under `report` (a warning under v1, an error under
/// v2), `coverage_comparison.edge_cases` becomes `edge_case`, null failure fields become empty
/// strings (`category` becomes `unknown`). Schemas and rules then judge the canonical form.
/// What it drops (a value beside the one it keeps) is returned with its pointer: the leak
/// scan reads the document as given, every value of it.
fn normalise(root: Map<String, Value>, major: u64) -> (Map<String, Value>, Vec<Finding>, SetAside) {
    let mut out = root;
    let mut findings = Vec::new();
    let mut set_aside = Vec::new();
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
        } else {
            set_aside.push((p, value));
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
                set_aside.push(("/coverage_comparison/edge_cases".to_owned(), plural));
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
    (out, findings, set_aside)
}

impl Checker<'_> {
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
        // Claims `L1.fields` judges: the failures and coverage against the counts.
        self.claim_failures_once();
        self.claim_failure_categories();
        self.claim_coverage_sums();
        self.level1();
        self.level2();
        self.level3();
        if self.judge4 {
            self.level4();
        }
        self.walk_claims();
    }

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
        match spec_major(v) {
            Some(m) => self.major = m,
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
                if self.judge4 {
                    format!(
                        "level-4 provenance read (judged under Level 4): {}",
                        shown.join(", ")
                    )
                } else {
                    format!("level-4 provenance read, not checked: {}", shown.join(", "))
                },
            );
        }
        if meta.get("advisory") == Some(&Value::Bool(true)) {
            let reason = meta
                .get("advisory_reason")
                .and_then(Value::as_str)
                .unwrap_or("no reason given");
            if self.major >= 2 {
                // v2 §5.4: advisory reports MUST NOT be presented as a conformant score.
                self.err(
                    &rules::ADVISORY,
                    "/report/advisory",
                    format!("the report is advisory (not authoritative): {reason}; spec v2 §5.4: an advisory report is not a conformant Shadow Score, so it holds no conformance level"),
                );
            } else {
                self.warn(
                    &rules::ADVISORY,
                    "/report/advisory",
                    format!("the report is advisory (not authoritative): {reason}"),
                );
            }
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
}
