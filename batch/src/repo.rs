//! Scoring one repository: options, inputs, input hash, seal, both suites, the Gap Report,
//! and its row. Every failure becomes the row's `error`; nothing here stops the batch.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_adapters::{IngestOptions, Registry};
use gapscore_core::{
    Code, FlakyPolicy, Provenance, SkippedPolicy, SpecVersion, StatusPolicy, XfailPolicy,
    render::render_json,
};
use gapscore_engine::fs::write_atomic;
use gapscore_engine::outcome::first_causes;
use gapscore_engine::{ScoreRequest, SealInput};
use gapscore_seal::digest::FileHasher;
use gapscore_seal::sealed_dir::{FsError, chain, sha256_file};
use serde::Deserialize;

use crate::RepoSpec;
use crate::discover::{Resolved, resolve};
use crate::options::BatchOptions;
use crate::row::{RepoRow, RowProblem};

/// `gapscore.toml`: per-repository options.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RepoConfig {
    skipped: Option<SkippedPolicy>,
    xfail: Option<XfailPolicy>,
    flaky: Option<FlakyPolicy>,
    /// A category rules file (as `score --categories`), relative to the config file.
    categories: Option<String>,
    /// The sealed test directory for `seal.json`, relative to the config file.
    sealed_dir: Option<String>,
    /// v2: who wrote the implementation and the sealed tests: a provenance file (the TOML of
    /// `score --provenance`, relative to the config file) or an inline `[provenance]` table of
    /// the same keys. It replaces the batch's provenance for this repository.
    provenance: Option<toml::Value>,
}

/// A repository's declared provenance: from the file `provenance` names, or the inline table.
fn repo_provenance(
    value: toml::Value,
    base: &Path,
    config: &Path,
    root: Option<&Path>,
    h: &mut FileHasher,
) -> Result<Provenance, String> {
    match value {
        toml::Value::String(file) => {
            let p = base.join(file);
            inside(root, &p)?;
            let bytes = read(&p)?;
            h.update(b"provenance\0");
            h.update(&bytes);
            Provenance::from_toml(&String::from_utf8_lossy(&bytes))
                .map_err(|e| format!("{}: {}", p.display(), e.trim()))
        }
        toml::Value::Table(t) => Provenance::deserialize(toml::Value::Table(t))
            .map_err(|e| format!("{}: [provenance]: {}", config.display(), e.message().trim())),
        other => Err(format!(
            "{}: `provenance` must be a file name or a [provenance] table, not a {}",
            config.display(),
            other.type_str()
        )),
    }
}

/// A repository ready to score: its options read and its inputs resolved and hashed.
#[derive(Debug)]
pub(crate) struct Prepared<'a> {
    pub spec: &'a RepoSpec,
    policy: StatusPolicy,
    rules: Option<PathBuf>,
    sealed_dir: Option<PathBuf>,
    /// Warnings found while reading the repository's options.
    warnings: Vec<(Code, String)>,
    /// The repository's own provenance (`gapscore.toml`), when it declares one.
    provenance: Option<Provenance>,
    sealed: Resolved,
    open: Resolved,
    /// `sha256:<hex>` over everything the score depends on.
    pub sha: String,
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    fs::read(path).map_err(|e| chain(&FsError::read(path, e)))
}

fn hash_file(path: &Path) -> Result<String, String> {
    sha256_file(path).map_err(|e| chain(&e))
}

fn inside(root: Option<&Path>, path: &Path) -> Result<(), String> {
    let Some(root) = root else { return Ok(()) };
    match fs::canonicalize(path) {
        Ok(real) if real.starts_with(root) => Ok(()),
        Ok(real) => Err(format!(
            "`{}` resolves to `{}`, outside the batch root `{}` (pass --allow-outside to allow it)",
            path.display(),
            real.display(),
            root.display()
        )),
        // A missing file is reported by the reader with its own reason.
        Err(_) => Ok(()),
    }
}

/// Reads the options and resolves and hashes the inputs.
pub(crate) fn prepare<'a>(spec: &'a RepoSpec, opts: &BatchOptions) -> Result<Prepared<'a>, String> {
    let root = spec.containment.as_deref();
    let mut h = FileHasher::new();
    h.update(b"gapscore-batch 1\n");
    h.update(format!("{:?} {:?}\n", opts.policy, opts.input_format).as_bytes());
    // Hashed only when given, so hashes without it stay what they were.
    if opts.trust_unlocated_skips {
        h.update(b"trust-unlocated-skips\n");
    }
    // The gate's verdict is in the report: a new threshold scores the repository again.
    if let Some(t) = opts.threshold {
        h.update(format!("gate {} {}\n", t.value(), opts.allow_advisory).as_bytes());
    }
    // So is the spec version: `--resume --spec-version 2` must not keep v1 reports. Hashed only
    // when not the default, so v1 hashes stay what they were.
    if opts.spec_version != SpecVersion::V1 {
        h.update(format!("spec {}\n", opts.spec_version.as_str()).as_bytes());
    }
    let mut policy = opts.policy;
    let mut rules = None;
    let mut sealed_dir = spec.sealed_dir.clone();
    let mut provenance = None;
    let mut warnings = Vec::new();
    // The batch's provenance is in every v2 report it writes: hashed when declared, so
    // `--resume` scores again under another one and hashes without it stay what they were.
    if !opts.provenance.is_empty() {
        h.update(format!("provenance {:?}\n", opts.provenance).as_bytes());
    }
    if let Some(path) = &spec.config {
        inside(root, path)?;
        let bytes = read(path)?;
        h.update(b"config\0");
        h.update(&bytes);
        let text = String::from_utf8_lossy(&bytes);
        let config: RepoConfig = toml::from_str(&text).map_err(|e| {
            let at = e.span().map_or(String::new(), |span| {
                let before = text.get(..span.start).unwrap_or(&text);
                let line = before.matches('\n').count() + 1;
                let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                format!(":{line}:{col}")
            });
            format!("{}{at}: {}", path.display(), e.message().trim())
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        // The operator's policy wins: the repository may tighten it, never loosen it.
        let (tightened, ignored) = policy.tightened_by(config.skipped, config.xfail, config.flaky);
        policy = tightened;
        for l in ignored {
            warnings.push((
                Code::RepoPolicyLoosened,
                format!(
                    "{}: `{} = \"{}\"` would loosen the operator's policy (`{}`): ignored",
                    path.display(),
                    l.key,
                    l.asked,
                    l.kept
                ),
            ));
        }
        if let Some(c) = config.categories {
            let p = base.join(c);
            inside(root, &p)?;
            h.update(b"categories\0");
            h.update(&read(&p)?);
            rules = Some(p);
        }
        if let Some(d) = config.sealed_dir {
            sealed_dir = Some(base.join(d));
        }
        if let Some(v) = config.provenance {
            provenance = Some(repo_provenance(v, base, path, root, &mut h)?);
        }
    }
    if let Some(seal) = &spec.seal {
        inside(root, seal)?;
        h.update(b"seal\0");
        h.update(&read(seal)?);
    }
    if let Some(dir) = &sealed_dir {
        inside(root, dir)?;
        let r = resolve(std::slice::from_ref(dir));
        for f in &r.files {
            h.update(format!("sealed-dir\0{}\0{}\n", f.display(), hash_file(f)?).as_bytes());
        }
    }
    let sealed = resolve(&spec.sealed);
    let open = resolve(&spec.open);
    for (role, r) in [("sealed", &sealed), ("open", &open)] {
        for f in &r.files {
            inside(root, f)?;
            // An unreadable file is left to the reader, which names it in the error row.
            let sum = hash_file(f).unwrap_or_else(|e| e);
            h.update(format!("{role}\0{}\0{sum}\n", f.display()).as_bytes());
        }
    }
    Ok(Prepared {
        spec,
        policy,
        rules,
        sealed_dir,
        warnings,
        provenance,
        sealed,
        open,
        sha: format!("sha256:{}", h.finish()),
    })
}

/// Scores a prepared repository through the engine, writes its report into `reports` and
/// returns its row.
pub(crate) fn score(
    p: &Prepared<'_>,
    registry: &Registry,
    opts: &BatchOptions,
    reports: &Path,
) -> RepoRow {
    let name = &p.spec.name;
    let fail = |reason: String| {
        let mut row = RepoRow::error(name.clone(), reason);
        row.inputs_sha256 = Some(p.sha.clone());
        row
    };
    let mut errors: Vec<String> = p.sealed.errors.clone();
    errors.extend(p.open.errors.iter().cloned());
    if p.spec.sealed.is_empty() {
        errors.push("no sealed results given".to_owned());
    }
    if !errors.is_empty() {
        return fail(first_causes(&errors));
    }
    let mut req = ScoreRequest::new(p.sealed.for_scoring.clone());
    if !p.spec.open.is_empty() {
        req.open.clone_from(&p.open.for_scoring);
    }
    req.policy = p.policy;
    req.categories.clone_from(&p.rules);
    // A record without its directory still counts its hash and expected tests
    // (docs/batch.md); it is never dropped.
    match (&p.spec.seal, &p.sealed_dir) {
        (Some(record), Some(dir)) => req.seal = Some(SealInput::new(record, dir)),
        (Some(record), None) => req.seal_record_only = Some(record.clone()),
        // Without a seal, the repository's own `sealed_dir` is only its word: it does not
        // widen where a lenient policy applies (a `sealed_dir = "."` would take in the
        // implementation's skips).
        (None, _) => {}
    }
    req.warnings.clone_from(&p.warnings);
    req.trust_unlocated_skips = opts.trust_unlocated_skips;
    req.dialect = opts.dialect;
    req.spec_version = opts.spec_version;
    req.provenance = p
        .provenance
        .clone()
        .unwrap_or_else(|| opts.provenance.clone());
    req.threshold = opts.threshold;
    req.allow_advisory = opts.allow_advisory;
    req.id = Some(name.clone());
    req.timestamp.clone_from(&opts.timestamp);
    let mut ingest = IngestOptions::new(opts.input_format.clone(), 0);
    ingest.current_pool = true;
    req.ingest = ingest;
    let outcome = gapscore_engine::score(&req, registry);
    // Documentation beside the results (a README, notes) is left out with a warning, which
    // the row keeps: the operator sees what was not read.
    let left_out: Vec<String> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::InputLeftOut)
        .map(|d| d.message.clone())
        .collect();
    let refusal_line = outcome.refusal_line();
    let scored = match outcome.result {
        Ok(scored) => scored,
        Err(refusal) => return fail(refusal_line.unwrap_or_else(|| refusal.to_string())),
    };
    let report = scored.report;
    // A sealed directory holding only documentation has no results, as an empty one.
    if !left_out.is_empty()
        && report
            .gapscore
            .as_ref()
            .is_some_and(|ext| !ext.inputs.iter().any(|i| i.role == "sealed"))
    {
        return fail(format!(
            "no sealed results: every file found was left out ({})",
            left_out.join("; ")
        ));
    }
    let text = render_json(&report);
    let path = reports.join(format!("{name}.json"));
    if let Err(e) = write_atomic(&path, false, &mut |w| w.write_all(text.as_bytes())) {
        return fail(chain(&e));
    }
    let mut row = RepoRow::error(name.clone(), String::new());
    row.error = None;
    row.score = report.score_value();
    row.level = Some(report.report.level);
    row.sealed = Some(report.sealed_tests);
    row.open = report.open_tests;
    row.advisory = report.is_advisory();
    if let Some(ext) = &report.gapscore {
        // The reasons as the report lists them, each with its code: never the joined text
        // split again (a reason may hold `; ` itself).
        row.reasons = ext
            .advisory_reasons
            .iter()
            .map(|r| r.reason.clone())
            .collect();
        row.reason_codes = ext.advisory_reasons.iter().map(|r| r.code).collect();
        row.score_exact = Some(ext.score_exact);
        for (role, list) in [("sealed", &ext.problems), ("open", &ext.open_problems)] {
            row.problems.extend(list.iter().map(|pr| RowProblem {
                role: role.to_owned(),
                suite: pr.suite.clone(),
                kind: pr.kind,
                detail: pr.detail.clone(),
            }));
        }
    }
    for f in report.failures.iter().filter(|f| f.problem.is_none()) {
        *row.failing_categories
            .entry(f.category.as_str().to_owned())
            .or_default() += 1;
    }
    row.gate = scored.gate.map(|g| g.verdict);
    row.inputs_sha256 = Some(p.sha.clone());
    row.left_out = left_out;
    row
}
