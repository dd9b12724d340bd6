//! Sealing a directory and verifying it: the one seal verification every command uses
//! (`seal --verify`, `score --seal`, `batch`, `check`), with one way of saying what differs.
//!
//! [`verify`] compares files found now with a [`SealRecord`] (pure: the checker hands it files it
//! read itself); [`verify_dir`] reads a directory and checks it against a record or a bare hash;
//! [`seal_dir`] hashes a directory into a new record; [`expected_ids`] lists the leaf tests of a
//! stub run for the record's expected-test list.

use std::fmt;
use std::path::{Path, PathBuf};

use gapscore_adapters::{IngestOptions, Outcome, Registry, expand_inputs, ingest};
use gapscore_core::RunCollector;
use gapscore_core::hash::canonical_sha256;
use gapscore_core::seal::{
    Excludes, HashMode, PathOrder, SealDiff, SealHash, SealOptions, SealRecord, SealedFile,
    diff_files, seal_hash,
};

use crate::error::Error;
use crate::fs::{self, FsError};
use crate::suite::Diagnostic;
use gapscore_core::Code;

/// What a directory is checked against.
#[derive(Debug, Clone)]
pub enum Expected {
    /// A seal record.
    Record(Box<SealRecord>),
    /// A bare hash, canonical `sha256:<hex>`.
    Hash(String),
}

/// Reads `seal --verify`'s argument: a record file, a `.seal-hash` file or a hash.
pub fn load_expected(arg: &str) -> Result<Expected, Error> {
    let path = Path::new(arg);
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| FsError::read(path, e))?;
        if text.trim_start().starts_with('{') {
            return SealRecord::from_json(&text)
                .map(|r| Expected::Record(Box::new(r)))
                .map_err(|source| {
                    FsError::Record {
                        path: path.to_owned(),
                        source,
                    }
                    .into()
                });
        }
        return canonical_sha256(&text).map(Expected::Hash).map_err(|e| {
            Error::Usage(format!(
                "`{arg}` holds neither a seal record nor a hash: {e}"
            ))
        });
    }
    canonical_sha256(arg)
        .map(Expected::Hash)
        .map_err(|e| Error::Usage(format!("`{arg}` is neither a file nor a hash: {e}")))
}

/// How a directory is hashed when it is checked against a bare hash, and what else to leave
/// out. A record prescribes its own mode, order and spelling.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct VerifyOptions {
    /// The hash mode (with a record: must be the record's).
    pub mode: Option<HashMode>,
    /// The directory spelling the spec and stampede modes hash.
    pub hash_as: Option<String>,
    /// Paths sorted in the C.UTF-8 locale's order rather than by bytes.
    pub locale_order: bool,
    /// Globs left out besides the record's.
    pub excludes: Vec<String>,
}

/// A directory checked against its seal.
#[derive(Debug, Clone)]
pub struct Verification {
    /// The hash it should have.
    pub expected: String,
    /// What it has now.
    pub actual: SealHash,
    /// File by file, when a record was given.
    pub diff: Option<SealDiff>,
    /// Symbolic links found in the directory (relative path, target): never part of a seal, so
    /// any one is a change (a link can point a sealed test anywhere).
    pub links: Vec<(String, String)>,
    /// Files present under the paths the seal excludes. They do not break the seal (tools make
    /// them), but they are never trusted: a score made beside them is advisory.
    pub excluded_present: Vec<String>,
    /// The record's canary as found before the directory was read (§4.5).
    pub canary: Option<Box<crate::canary::CanaryCheck>>,
}

impl Verification {
    /// True when the directory matches: the same hash and no symbolic link.
    pub fn intact(&self) -> bool {
        self.actual.hash == self.expected && self.links.is_empty()
    }
}

/// At most this many paths are named per kind of change in the one-line summary.
const NAMED: usize = 3;

impl fmt::Display for Verification {
    /// One line: `matches sha256:… (N files)`, or what differs (`1 file changed (a.py), 2 files
    /// added (x.py, y.py)`), or, when every file is as recorded, the two hashes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.intact() {
            let n = self.actual.hashed;
            return write!(
                f,
                "matches {} ({n} file{})",
                self.expected,
                if n == 1 { "" } else { "s" }
            );
        }
        let mut parts = Vec::new();
        if let Some(d) = &self.diff {
            for (list, what) in [
                (&d.changed, "changed"),
                (&d.added, "added"),
                (&d.removed, "removed"),
            ] {
                if list.is_empty() {
                    continue;
                }
                let n = list.len();
                let shown: Vec<&str> = list.iter().take(NAMED).map(String::as_str).collect();
                let more = if n > NAMED {
                    format!(", and {} more", n - NAMED)
                } else {
                    String::new()
                };
                parts.push(format!(
                    "{n} file{} {what} ({}{more})",
                    if n == 1 { "" } else { "s" },
                    shown.join(", ")
                ));
            }
        }
        if !self.links.is_empty() {
            let n = self.links.len();
            let shown: Vec<String> = self
                .links
                .iter()
                .take(NAMED)
                .map(|(p, t)| format!("{p} -> {t}"))
                .collect();
            parts.push(format!(
                "{n} symbolic link{} ({}{})",
                if n == 1 { "" } else { "s" },
                shown.join(", "),
                if n > NAMED { ", …" } else { "" }
            ));
        }
        if parts.is_empty() {
            write!(f, "hash {} instead of {}", self.actual.hash, self.expected)?;
            if self.diff.is_some() {
                f.write_str(" (every file is as recorded: hashed as another path or order)")?;
            }
            return Ok(());
        }
        f.write_str(&parts.join(", "))
    }
}

/// Checks the files found now against a record: they are filtered by the record's excludes and
/// hashed in the record's mode, order and spelling.
pub fn verify(record: &SealRecord, files: &[SealedFile]) -> Verification {
    let kept: Vec<SealedFile> = match Excludes::new(&record.excludes) {
        Ok(ex) => files
            .iter()
            .filter(|f| !ex.matches(&f.path))
            .cloned()
            .collect(),
        // A record's globs were checked when it was read; should one not compile, nothing is
        // left out, which can only make the check stricter.
        Err(_) => files.to_vec(),
    };
    Verification {
        expected: record.hash.clone(),
        actual: seal_hash(&kept, &record.options()),
        diff: Some(diff_files(&record.files, &kept)),
        links: Vec::new(),
        excluded_present: Vec::new(),
        canary: None,
    }
}

fn dir_string(dir: &Path) -> Result<String, Error> {
    dir.to_str().map(str::to_owned).ok_or_else(|| {
        Error::Usage(format!(
            "`{}`: the directory path is not UTF-8",
            dir.display()
        ))
    })
}

/// Reads `dir` and checks it against a record or a bare hash.
pub fn verify_dir(
    dir: &Path,
    expected: &Expected,
    opts: &VerifyOptions,
) -> Result<Verification, Error> {
    match expected {
        Expected::Record(r) => {
            if let Some(m) = opts.mode
                && m != r.mode
            {
                return Err(Error::Usage(format!(
                    "the seal record was made in {} mode, not {m}; leave out --mode",
                    r.mode
                )));
            }
            let mut globs = r.excludes.clone();
            globs.extend(opts.excludes.iter().cloned());
            // The canary's atime is read before the scan reads it, and set back after.
            let canary = r
                .canary
                .as_ref()
                .map(|c| Box::new(crate::canary::check(dir, c)));
            let scan = fs::scan(dir, &Excludes::new(&globs)?)?;
            // A read found stays visible: only gapscore's own read is undone.
            if let Some(c) = &r.canary
                && !canary.as_ref().is_some_and(|k| k.read)
            {
                crate::canary::settle_again(dir, c);
            }
            let mut record = r.clone();
            if let Some(a) = &opts.hash_as {
                record.hashed_as = Some(a.clone());
            }
            let mut v = verify(&record, &scan.files);
            v.links = scan.links;
            v.excluded_present = scan.excluded;
            v.canary = canary;
            Ok(v)
        }
        Expected::Hash(h) => {
            let seal_opts = SealOptions {
                mode: opts.mode.unwrap_or_default(),
                order: if opts.locale_order {
                    PathOrder::Locale
                } else {
                    PathOrder::Bytes
                },
                hash_as: match &opts.hash_as {
                    Some(a) => a.clone(),
                    None => dir_string(dir)?,
                },
            };
            let scan = fs::scan(dir, &Excludes::new(&opts.excludes)?)?;
            Ok(Verification {
                expected: h.clone(),
                actual: seal_hash(&scan.files, &seal_opts),
                diff: None,
                links: scan.links,
                excluded_present: scan.excluded,
                canary: None,
            })
        }
    }
}

/// What to seal and how.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SealRequest {
    /// The sealed test directory.
    pub dir: PathBuf,
    /// Globs left out of the seal.
    pub excludes: Vec<String>,
    /// The hash mode.
    pub mode: HashMode,
    /// Paths sorted in the C.UTF-8 locale's order rather than by bytes.
    pub locale_order: bool,
    /// The directory spelling the spec and stampede modes hash (default: as given).
    pub hash_as: Option<String>,
    /// Where the record will be written, when that is a file.
    pub output: Option<PathBuf>,
    /// The expected test ids (from [`expected_ids`]).
    pub expected_tests: Option<Vec<String>>,
    /// The record's `created` time, RFC 3339.
    pub created: String,
    /// A canary (§4.5): `Some(None)` writes a new one, `Some(Some(path))` adopts that file.
    pub canary: Option<Option<String>>,
    /// The seal author's model family (§4.6).
    pub author_family: Option<String>,
}

impl SealRequest {
    /// Seals `dir` in strict mode, byte order, with nothing left out.
    pub fn new(dir: impl Into<PathBuf>, created: impl Into<String>) -> Self {
        SealRequest {
            dir: dir.into(),
            excludes: Vec::new(),
            mode: HashMode::Strict,
            locale_order: false,
            hash_as: None,
            output: None,
            expected_tests: None,
            created: created.into(),
            canary: None,
            author_family: None,
        }
    }
}

/// A new seal, and what the user should know about it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Sealed {
    /// The record.
    pub record: SealRecord,
    /// How many files the hash covers.
    pub hashed: usize,
    /// Warnings, in order, each with its code.
    pub warnings: Vec<Diagnostic>,
    /// The canary gapscore wrote for this seal, removed again on drop unless
    /// [`Sealed::keep_canary`] is called once the record is safely written: a seal that fails
    /// after sealing (its record cannot be written) leaves the directory as it found it.
    canary: Option<crate::canary::Planted>,
}

impl Sealed {
    /// The record is written: the canary it names stays in the sealed directory.
    pub fn keep_canary(mut self) {
        if let Some(g) = self.canary.take() {
            g.keep();
        }
    }
}

/// Hashes a directory into a seal record.
pub fn seal_dir(req: &SealRequest) -> Result<Sealed, Error> {
    let directory = dir_string(&req.dir)?;
    let mut warnings = Vec::new();
    let mut globs = req.excludes.clone();
    // A record written inside the directory it seals would change that directory: leave it out.
    if let Some(inside) = req
        .output
        .as_deref()
        .and_then(|o| relative_inside(&req.dir, o))
    {
        warnings.push(Diagnostic::warning(Code::SealRecordInside, format!(
            "the seal record `{inside}` is inside the sealed directory; it is left out of the seal"
        )));
        globs.push(glob_escape(&inside));
    }
    let excludes = Excludes::new(&globs)?;
    let opts = SealOptions {
        mode: req.mode,
        order: if req.locale_order {
            PathOrder::Locale
        } else {
            PathOrder::Bytes
        },
        hash_as: req.hash_as.clone().unwrap_or_else(|| directory.clone()),
    };
    // The canary is in place before hashing, so the seal covers it.
    let canary = match &req.canary {
        Some(existing) => {
            let rel = crate::canary::plant(&req.dir, existing.as_deref())?;
            let guard = crate::canary::Planted::new(&req.dir, &rel, existing.is_none());
            Some((rel, guard))
        }
        None => None,
    };
    let scan = fs::scan(&req.dir, &excludes)?;
    if let Some((path, target)) = scan.links.first() {
        return Err(Error::Usage(format!(
            "`{directory}`: `{path}` is a symbolic link (to `{target}`): a sealed directory holds regular files only, since a link can point the sealed tests anywhere; copy the file in instead ({} link{} in all)",
            scan.links.len(),
            if scan.links.len() == 1 { "" } else { "s" }
        )));
    }
    let sealed = seal_hash(&scan.files, &opts);
    if opts.mode == HashMode::Spec && !sealed.unhashed.is_empty() {
        warnings.push(Diagnostic::warning(Code::UnhashedFiles, format!(
            "{} file{} left out of the spec hash, as the reference pipeline leaves them out (`xargs` splits names with blanks, quotes or backslashes), so they are not protected by it: {} (use --mode strict to seal every file)",
            sealed.unhashed.len(),
            if sealed.unhashed.len() == 1 {
                " is"
            } else {
                "s are"
            },
            sealed.unhashed.join(", ")
        )));
    }
    if scan.files.is_empty() {
        warnings.push(Diagnostic::warning(
            Code::EmptySealedDir,
            format!("`{directory}` holds no files: the seal protects nothing"),
        ));
    }
    let mut record = SealRecord::new(&sealed, &opts, directory, scan.files, req.created.clone());
    record.excludes = excludes.globs();
    record.expected_tests.clone_from(&req.expected_tests);
    record.author_family = req
        .author_family
        .as_deref()
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(str::to_owned);
    let mut planted = None;
    if let Some((rel, guard)) = canary {
        if !record.files.iter().any(|f| f.path == rel) {
            return Err(Error::Usage(format!(
                "the canary `{rel}` is not among the sealed files (excluded, or outside the directory)"
            )));
        }
        // After hashing (which read it): its atime goes back to its mtime and is recorded.
        record.canary = Some(crate::canary::settle(&req.dir, &rel)?);
        planted = Some(guard);
        let (policy, mount) = crate::canary::atime_policy(&req.dir);
        warnings.extend(
            policy
                .warning(&mount)
                .map(|w| Diagnostic::warning(Code::SealPolicy, w)),
        );
    }
    Ok(Sealed {
        hashed: sealed.hashed,
        record,
        warnings,
        canary: planted,
    })
}

/// `out` relative to `dir`, when `out` would be written inside `dir`.
fn relative_inside(dir: &Path, out: &Path) -> Option<String> {
    let dir = dir.canonicalize().ok()?;
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.canonicalize().ok()?,
        _ => std::env::current_dir().ok()?,
    };
    let full = parent.join(out.file_name()?);
    let rel = full.strip_prefix(&dir).ok()?;
    rel.to_str().map(|s| s.replace('\\', "/"))
}

/// A glob matching exactly this path.
fn glob_escape(path: &str) -> String {
    path.chars()
        .map(|c| match c {
            '*' | '?' | '[' | ']' => format!("[{c}]"),
            c => c.to_string(),
        })
        .collect()
}

/// The ids of the leaf tests in a stub run's result files, for a record's expected-test list,
/// with a diagnostic for each file that cannot be used. A file that reports run-level problems
/// (a collection error) would give an incomplete list: that is an error diagnostic too. The ids
/// are `None` when any file could not be used.
pub fn expected_ids(
    registry: &Registry,
    paths: &[PathBuf],
    ingest_opts: &IngestOptions,
) -> (Option<Vec<String>>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let (inputs, errors) = expand_inputs(paths);
    let mut failed = errors.len();
    for e in errors {
        diagnostics.push(Diagnostic::error(
            Code::InputUnreadable,
            format!("{e} (--expect)"),
        ));
    }
    // Every leaf, repeats kept: an id that occurs twice in the stub run is expected twice.
    let mut ids = Vec::new();
    for o in ingest(registry, &inputs, ingest_opts, |source, format| {
        RunCollector::new(format, Some(source.to_owned()))
    }) {
        match o {
            Outcome::Parsed(p) => {
                let run = p.consumer.into_run();
                let source = run.source.clone().unwrap_or_default();
                if !run.problems.is_empty() {
                    let kinds: Vec<String> =
                        run.problems.iter().map(|p| p.kind.to_string()).collect();
                    diagnostics.push(Diagnostic::error(
                        Code::ExpectIncomplete,
                        format!(
                            "{source}: reports {} ({}); its test list may be incomplete (--expect)",
                            if kinds.len() == 1 {
                                "a problem"
                            } else {
                                "problems"
                            },
                            kinds.join(", ")
                        ),
                    ));
                    failed += 1;
                    continue;
                }
                // A module-level skip (`pytest.skip(..., allow_module_level=True)`) is recorded
                // as one pseudo-test named after the module: the tests in it are not listed, so
                // the record would not expect them. Refuse the list, naming the module.
                if let Some(t) = run.tests.iter().find(|t| module_level_skip(&run.format, t)) {
                    diagnostics.push(Diagnostic::error(Code::ExpectModuleSkipped, format!(
                        "{source}: `{}` is skipped as a whole module, so its tests are not listed; run the stub without the module-level skip to record them (--expect)",
                        t.id
                    )));
                    failed += 1;
                    continue;
                }
                ids.extend(run.tests.into_iter().filter(|t| !t.parent).map(|t| t.id));
            }
            Outcome::Skipped { path, reason } => {
                diagnostics.push(Diagnostic::error(
                    Code::InputNotResults,
                    format!("{path}: {reason} (--expect)"),
                ));
                failed += 1;
            }
            Outcome::LeftOut { path, reason } => {
                diagnostics.push(Diagnostic::warning(
                    Code::InputLeftOut,
                    format!("{path}: not read: {reason} (--expect)"),
                ));
            }
            Outcome::Failed(e) => {
                diagnostics.push(Diagnostic::error(
                    Code::InputUnreadable,
                    format!("{e} (--expect)"),
                ));
                failed += 1;
            }
        }
    }
    if failed > 0 {
        diagnostics.push(Diagnostic::error(
            Code::ExpectUnusable,
            format!(
                "{failed} --expect input{} could not be used; no seal written",
                if failed == 1 { "" } else { "s" }
            ),
        ));
        return (None, diagnostics);
    }
    ids.sort();
    (Some(ids), diagnostics)
}

/// A pytest entry that stands for a whole module skipped at collection. pytest-json-report and
/// pytest-reportlog record it as a skipped test whose id is the module's file
/// (`tests/test_x.py`, no `::` test part); `--junitxml` as a skipped testcase whose message
/// begins `collection skipped` (its name is the dotted module, `tests.test_x`).
fn module_level_skip(format: &str, t: &gapscore_core::TestCase) -> bool {
    if t.status != gapscore_core::Status::Skipped {
        return false;
    }
    let collection_skip = t
        .message
        .as_deref()
        .is_some_and(|m| m.starts_with("collection skipped"));
    (format.starts_with("pytest") && !t.id.contains("::") && t.id.ends_with(".py"))
        || (format == "junit-xml" && collection_skip)
}
