//! `gapscore seal`: hash a sealed test directory and write its seal record, or verify a
//! directory against a record or a hash. Also the check `score --seal` runs before scoring.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, Result, bail};
use gapscore_adapters::{Outcome, expand_inputs, ingest, sealdir};
use gapscore_core::RunCollector;
use gapscore_core::hash::canonical_sha256;
use gapscore_core::seal::{
    Excludes, HashMode, PathOrder, SealDiff, SealHash, SealOptions, SealRecord, diff_files,
    likely_harmless, seal_hash,
};

use crate::args::{EmitArg, SealArgs};
use crate::{EXIT_OK, EXIT_THRESHOLD, host, io};

/// Runs `gapscore seal`.
pub fn run(args: &SealArgs) -> Result<u8> {
    match &args.verify {
        Some(against) => verify(args, against),
        None => seal(args),
    }
}

fn dir_string(dir: &Path) -> Result<String> {
    dir.to_str()
        .map(str::to_owned)
        .with_context(|| format!("`{}`: the directory path is not UTF-8", dir.display()))
}

fn seal(args: &SealArgs) -> Result<u8> {
    let directory = dir_string(&args.dir)?;
    let mut globs = args.excludes.clone();
    // A record written inside the directory it seals would change that directory: leave it out.
    if let Some(inside) = args
        .output
        .as_deref()
        .and_then(|o| relative_inside(&args.dir, o))
    {
        io::warn(&format!(
            "the seal record `{inside}` is inside the sealed directory; it is left out of the seal"
        ));
        globs.push(glob_escape(&inside));
    }
    let excludes = Excludes::new(&globs)?;
    let opts = SealOptions {
        mode: args.mode.map_or(HashMode::Strict, Into::into),
        order: if args.locale_order {
            PathOrder::Locale
        } else {
            PathOrder::Bytes
        },
        hash_as: args.hash_as.clone().unwrap_or_else(|| directory.clone()),
    };
    let scan = sealdir::scan(&args.dir, &excludes)?;
    let sealed = seal_hash(&scan.files, &opts);
    if opts.mode == HashMode::Spec && !sealed.unhashed.is_empty() {
        io::warn(&format!(
            "{} file{} left out of the spec hash, as the reference pipeline leaves them out (`xargs` splits names with blanks, quotes or backslashes), so they are not protected by it: {} (use --mode strict to seal every file)",
            sealed.unhashed.len(),
            if sealed.unhashed.len() == 1 {
                " is"
            } else {
                "s are"
            },
            sealed.unhashed.join(", ")
        ));
    }
    if scan.files.is_empty() {
        io::warn(&format!(
            "`{directory}` holds no files: the seal protects nothing"
        ));
    }
    let stamp = humantime::format_rfc3339_seconds(io::report_time()).to_string();
    let mut record = SealRecord::new(&sealed, &opts, directory.clone(), scan.files, stamp);
    record.excludes = excludes.globs();
    if !args.expect.is_empty() {
        let ids = expected_ids(args)?;
        io::info(&format!(
            "recorded {} expected sealed test{}",
            ids.len(),
            if ids.len() == 1 { "" } else { "s" }
        ));
        record.expected_tests = Some(ids);
    }
    let text = match args.emit {
        EmitArg::Record => {
            let mut t = serde_json::to_string_pretty(&record)?;
            t.push('\n');
            t
        }
        EmitArg::Hex => format!("{}\n", hex_of(&record.hash)),
        EmitArg::Sha256 => format!("{}\n", record.hash),
        EmitArg::SealHash => format!("{}  -\n", hex_of(&record.hash)),
    };
    io::write_output(args.output.as_deref(), &text)?;
    io::info(&format!(
        "sealed `{directory}`: {} ({} file{}, {} mode)",
        record.hash,
        sealed.hashed,
        if sealed.hashed == 1 { "" } else { "s" },
        opts.mode
    ));
    Ok(EXIT_OK)
}

fn hex_of(hash: &str) -> &str {
    hash.strip_prefix("sha256:").unwrap_or(hash)
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

/// The ids of the leaf tests in the `--expect` files. A file that reports run-level problems
/// (a collection error) would give an incomplete list: that is an error.
fn expected_ids(args: &SealArgs) -> Result<Vec<String>> {
    let (registry, plugin_failures) = host::registry(&args.host);
    if plugin_failures > 0 {
        bail!("a plugin could not be loaded; no seal written");
    }
    let (inputs, errors) = expand_inputs(&args.expect);
    let mut failed = errors.len();
    for e in errors {
        io::error(&format!("{e} (--expect)"));
    }
    let mut ids = BTreeSet::new();
    for o in ingest(
        &registry,
        &inputs,
        &host::ingest_options(&args.host, args.input_format.clone()),
        |source, format| RunCollector::new(format, Some(source.to_owned())),
    ) {
        match o {
            Outcome::Parsed(p) => {
                let run = p.consumer.into_run();
                let source = run.source.clone().unwrap_or_default();
                if !run.problems.is_empty() {
                    let kinds: Vec<String> =
                        run.problems.iter().map(|p| p.kind.to_string()).collect();
                    io::error(&format!(
                        "{source}: reports {} ({}); its test list may be incomplete (--expect)",
                        if kinds.len() == 1 {
                            "a problem"
                        } else {
                            "problems"
                        },
                        kinds.join(", ")
                    ));
                    failed += 1;
                    continue;
                }
                ids.extend(run.tests.into_iter().filter(|t| !t.parent).map(|t| t.id));
            }
            Outcome::Skipped { path, reason } => {
                io::error(&format!("{path}: {reason} (--expect)"));
                failed += 1;
            }
            Outcome::Failed(e) => {
                io::error(&format!("{e} (--expect)"));
                failed += 1;
            }
        }
    }
    if failed > 0 {
        bail!(
            "{failed} --expect input{} could not be used; no seal written",
            if failed == 1 { "" } else { "s" }
        );
    }
    if ids.is_empty() {
        bail!("the --expect files hold no tests; no seal written");
    }
    Ok(ids.into_iter().collect())
}

/// What a directory is checked against.
#[derive(Debug)]
pub enum Expected {
    /// A seal record.
    Record(Box<SealRecord>),
    /// A bare hash, canonical `sha256:<hex>`.
    Hash(String),
}

/// Reads `--verify`'s argument: a record file, a `.seal-hash` file or a hash.
pub fn load_expected(arg: &str) -> Result<Expected> {
    let path = Path::new(arg);
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| {
            anyhow::anyhow!("cannot read `{arg}`: {}", gapscore_adapters::io_reason(&e))
        })?;
        if text.trim_start().starts_with('{') {
            return load_record(path, &text).map(|r| Expected::Record(Box::new(r)));
        }
        return canonical_sha256(&text)
            .map(Expected::Hash)
            .with_context(|| format!("`{arg}` holds neither a seal record nor a hash"));
    }
    canonical_sha256(arg)
        .map(Expected::Hash)
        .with_context(|| format!("`{arg}` is neither a file nor a hash"))
}

/// Reads a seal record from its text.
pub fn load_record(path: &Path, text: &str) -> Result<SealRecord> {
    SealRecord::from_json(text).map_err(|e| anyhow::anyhow!(e.at(path)))
}

/// A directory checked against its seal.
#[derive(Debug)]
pub struct Check {
    /// The hash it should have.
    pub expected: String,
    /// What it has now.
    pub actual: SealHash,
    /// File by file, when a record was given.
    pub diff: Option<SealDiff>,
}

impl Check {
    /// True when the directory matches.
    pub fn intact(&self) -> bool {
        self.actual.hash == self.expected
    }

    /// One line: what differs.
    pub fn summary(&self) -> String {
        match &self.diff {
            Some(d) if !d.is_empty() => {
                let mut parts = Vec::new();
                for (n, what) in [
                    (d.changed.len(), "changed"),
                    (d.added.len(), "added"),
                    (d.removed.len(), "removed"),
                ] {
                    if n > 0 {
                        parts.push(format!("{n} file{} {what}", if n == 1 { "" } else { "s" }));
                    }
                }
                parts.join(", ")
            }
            _ => format!("hash {} instead of {}", self.actual.hash, self.expected),
        }
    }
}

/// Recomputes the hash of `dir` the way `expected` was made and compares.
pub fn check(
    dir: &Path,
    expected: &Expected,
    mode: Option<HashMode>,
    hash_as: Option<&str>,
    locale_order: bool,
    extra_excludes: &[String],
) -> Result<Check> {
    let (opts, mut globs, want, record_files) = match expected {
        Expected::Record(r) => {
            if let Some(m) = mode
                && m != r.mode
            {
                bail!(
                    "the seal record was made in {} mode, not {m}; leave out --mode",
                    r.mode
                );
            }
            let mut opts = r.options();
            if let Some(a) = hash_as {
                opts.hash_as = a.to_owned();
            }
            (opts, r.excludes.clone(), r.hash.clone(), Some(&r.files))
        }
        Expected::Hash(h) => {
            let opts = SealOptions {
                mode: mode.unwrap_or_default(),
                order: if locale_order {
                    PathOrder::Locale
                } else {
                    PathOrder::Bytes
                },
                hash_as: match hash_as {
                    Some(a) => a.to_owned(),
                    None => dir_string(dir)?,
                },
            };
            (opts, Vec::new(), h.clone(), None)
        }
    };
    globs.extend(extra_excludes.iter().cloned());
    let excludes = Excludes::new(&globs)?;
    let scan = sealdir::scan(dir, &excludes)?;
    let actual = seal_hash(&scan.files, &opts);
    let diff = record_files.map(|old| diff_files(old, &scan.files));
    Ok(Check {
        expected: want,
        actual,
        diff,
    })
}

/// Prints what differs, naming the files tools create by themselves.
pub fn print_mismatch(dir: &Path, c: &Check) {
    io::error(&format!(
        "`{}` does not match its seal: {}",
        dir.display(),
        c.summary()
    ));
    let Some(d) = &c.diff else {
        io::error("  (a bare hash cannot say which files differ; a seal record can)");
        return;
    };
    for p in &d.changed {
        io::error(&format!("  changed: {p}"));
    }
    for p in &d.removed {
        io::error(&format!("  removed: {p}"));
    }
    let mut hints = BTreeSet::new();
    for p in &d.added {
        match likely_harmless(p) {
            Some((what, glob)) => {
                io::error(&format!("  added:   {p} (probably made by {what})"));
                hints.insert(glob);
            }
            None => io::error(&format!("  added:   {p}")),
        }
    }
    if !hints.is_empty() && d.changed.is_empty() && d.removed.is_empty() {
        let flags: Vec<String> = hints.iter().map(|g| format!("--exclude '{g}'")).collect();
        io::error(&format!(
            "  only files that tools create were added: if that is all, check again with {}",
            flags.join(" ")
        ));
    }
    if d.is_empty() {
        io::error(
            "  every file is as recorded: the directory is being hashed differently (another --as path or order)",
        );
    }
}

fn verify(args: &SealArgs, against: &str) -> Result<u8> {
    let expected = load_expected(against)?;
    if !args.expect.is_empty() {
        bail!("--expect is for sealing, not for --verify");
    }
    let c = check(
        &args.dir,
        &expected,
        args.mode.map(Into::into),
        args.hash_as.as_deref(),
        args.locale_order,
        &args.excludes,
    )?;
    if c.intact() {
        let line = format!(
            "ok: `{}` matches {} ({} file{})\n",
            args.dir.display(),
            c.expected,
            c.actual.hashed,
            if c.actual.hashed == 1 { "" } else { "s" }
        );
        io::write_output(args.output.as_deref(), &line)?;
        return Ok(EXIT_OK);
    }
    print_mismatch(&args.dir, &c);
    // Exit 1, as a check that fails; an unreadable input is an error (exit 2).
    Ok(EXIT_THRESHOLD)
}
