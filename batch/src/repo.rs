//! Scoring one repository: options, inputs, input hash, seal, both suites, the Gap Report,
//! and its row. Every failure becomes the row's `error`; nothing here stops the batch.

use std::fs;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gapscore_adapters::score::{Diagnostic, SuiteOptions, tally_suite};
use gapscore_adapters::{IngestOptions, Registry};
use gapscore_core::categories::CategoryRules;
use gapscore_core::{
    FlakyPolicy, Manifest, ReportOptions, SealCheck, SkippedPolicy, StatusPolicy, XfailPolicy,
    build_report, render::render_json,
};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::discover::{Resolved, resolve};
use crate::row::{RepoRow, RowProblem};
use crate::{BatchOptions, RepoSpec, sealscan};

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
}

/// A repository ready to score: its options read and its inputs resolved and hashed.
#[derive(Debug)]
pub(crate) struct Prepared<'a> {
    pub spec: &'a RepoSpec,
    policy: StatusPolicy,
    rules: Option<PathBuf>,
    sealed_dir: Option<PathBuf>,
    sealed: Resolved,
    open: Resolved,
    /// `sha256:<hex>` over everything the score depends on.
    pub sha: String,
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    fs::read(path).map_err(|e| {
        format!(
            "cannot read `{}`: {}",
            path.display(),
            gapscore_adapters::io_reason(&e)
        )
    })
}

fn hash_file(path: &Path) -> Result<String, String> {
    let fail = |e: std::io::Error| {
        format!(
            "cannot read `{}`: {}",
            path.display(),
            gapscore_adapters::io_reason(&e)
        )
    };
    let mut f = fs::File::open(path).map_err(fail)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(buf.get(..n).unwrap_or_default()),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(fail(e)),
        }
    }
    Ok(hex(&h.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
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
    let mut h = Sha256::new();
    h.update(b"gapscore-batch 1\n");
    h.update(format!("{:?} {:?}\n", opts.policy, opts.input_format).as_bytes());
    let mut policy = opts.policy;
    let mut rules = None;
    let mut sealed_dir = spec.sealed_dir.clone();
    if let Some(path) = &spec.config {
        inside(root, path)?;
        let bytes = read(path)?;
        h.update(b"config\0");
        h.update(&bytes);
        let text = String::from_utf8_lossy(&bytes);
        let config: RepoConfig = toml::from_str(&text)
            .map_err(|e| format!("{}: {}", path.display(), e.message().trim()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        policy = StatusPolicy::new(
            config.skipped.unwrap_or(policy.skipped),
            config.xfail.unwrap_or(policy.xfail),
            config.flaky.unwrap_or(policy.flaky),
        );
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
        sealed,
        open,
        sha: format!("sha256:{}", hex(&h.finalize())),
    })
}

fn first_errors(errors: &[String]) -> String {
    let shown: Vec<&str> = errors.iter().take(3).map(String::as_str).collect();
    match errors.len() {
        n if n > 3 => format!("{} (and {} more)", shown.join("; "), n - 3),
        _ => shown.join("; "),
    }
}

/// Scores a prepared repository, writes its report into `reports` and returns its row.
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
    let rules = match &p.rules {
        None => None,
        Some(path) => {
            let text = match fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) => {
                    return fail(format!(
                        "cannot read category rules `{}`: {}",
                        path.display(),
                        gapscore_adapters::io_reason(&e)
                    ));
                }
            };
            match CategoryRules::from_toml(&text) {
                Ok(r) => Some(Arc::new(r)),
                Err(e) => return fail(format!("{}: {e}", path.display())),
            }
        }
    };
    let mut seal = SealCheck::NotChecked;
    let mut sealed_hash = None;
    let mut manifest = None;
    if let Some(path) = &p.spec.seal {
        let record = match sealscan::load_record(path) {
            Ok(r) => r,
            Err(e) => return fail(format!("broken seal: {e}")),
        };
        if let Some(dir) = &p.sealed_dir {
            match sealscan::check(dir, &record) {
                Ok(None) => seal = SealCheck::Intact,
                Ok(Some(what)) => {
                    return fail(format!(
                        "broken seal: `{}` does not match its seal: {what}",
                        dir.display()
                    ));
                }
                Err(e) => return fail(format!("broken seal: {e}")),
            }
        }
        sealed_hash = Some(record.hash.clone());
        manifest = record
            .expected_tests
            .map(|ids| Arc::new(Manifest::new(ids)));
    }
    let mut ingest = IngestOptions::new(opts.input_format.clone(), 0);
    ingest.current_pool = true;
    let mut sopts = SuiteOptions::new(p.policy);
    sopts.rules = rules;
    sopts.ingest = ingest;
    let mut errors: Vec<String> = p.sealed.errors.clone();
    errors.extend(p.open.errors.iter().cloned());
    if p.spec.sealed.is_empty() {
        errors.push("no sealed results given".to_owned());
    }
    if !errors.is_empty() {
        return fail(first_errors(&errors));
    }
    let mut sealed_opts = sopts.clone();
    sealed_opts.manifest = manifest;
    let mut sealed = tally_suite(registry, "sealed", &p.sealed.for_scoring, &sealed_opts);
    sealed.tally.apply_manifest();
    let open = (!p.spec.open.is_empty())
        .then(|| tally_suite(registry, "open", &p.open.for_scoring, &sopts));
    for d in sealed
        .diagnostics
        .iter()
        .chain(open.iter().flat_map(|o| o.diagnostics.iter()))
    {
        if let Diagnostic::Error(m) = d {
            errors.push(m.clone());
        }
    }
    if !errors.is_empty() {
        // Files nothing recognised explain a suite with no results: name them too.
        for d in sealed
            .diagnostics
            .iter()
            .chain(open.iter().flat_map(|o| o.diagnostics.iter()))
        {
            if let Diagnostic::Warning(m) = d
                && m.contains(": skipped: ")
            {
                errors.push(m.clone());
            }
        }
        return fail(first_errors(&errors));
    }
    let mut ropts = ReportOptions::default();
    ropts.dialect = opts.dialect;
    ropts.id = Some(name.clone());
    ropts.timestamp.clone_from(&opts.timestamp);
    ropts.sealed_hash = sealed_hash;
    ropts.seal = seal;
    ropts.inputs = sealed.inputs.clone();
    if let Some(o) = &open {
        ropts.inputs.extend(o.inputs.iter().cloned());
    }
    let report = build_report(&sealed.tally, open.as_ref().map(|o| &o.tally), &ropts);
    let text = render_json(&report);
    if let Err(e) = write_atomic(
        &reports.join(format!("{name}.json")),
        text.as_bytes(),
        false,
    ) {
        return fail(e);
    }
    let mut row = RepoRow::error(name.clone(), String::new());
    row.error = None;
    row.score = report.score_value();
    row.level = Some(report.report.level);
    row.sealed = Some(report.sealed_tests);
    row.open = report.open_tests;
    row.advisory = report.is_advisory();
    row.reasons = report
        .report
        .advisory_reason
        .as_deref()
        .map(|r| r.split("; ").map(str::to_owned).collect())
        .unwrap_or_default();
    if let Some(ext) = &report.gapscore {
        row.score_exact = Some(ext.score_exact);
        for (suite, list) in [("sealed", &ext.problems), ("open", &ext.open_problems)] {
            row.problems.extend(list.iter().map(|pr| RowProblem {
                suite: suite.to_owned(),
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
    row.inputs_sha256 = Some(p.sha.clone());
    row
}

/// Writes a file atomically: a temporary file in the same directory, then a rename, so a
/// killed run leaves the old file or the new one, never a torn one. `sync` also flushes it to
/// disk first (for the few summary files; the per-repository reports skip it for speed, which
/// only matters on power loss).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8], sync: bool) -> Result<(), String> {
    let fail = |e: &std::io::Error| {
        format!(
            "cannot write `{}`: {}",
            path.display(),
            gapscore_adapters::io_reason(e)
        )
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".gapscore-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(fs::Permissions::from_mode(0o644));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(|e| fail(&e))?;
    tmp.write_all(bytes).map_err(|e| fail(&e))?;
    if sync {
        tmp.as_file().sync_all().map_err(|e| fail(&e))?;
    }
    tmp.persist(path).map_err(|e| fail(&e.error))?;
    Ok(())
}
