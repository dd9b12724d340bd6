//! Finding the repositories of a batch: the directory convention ([`from_root`]) or a manifest
//! ([`from_manifest`]), and resolving a repository's sealed/open paths and globs to files
//! without following symbolic links to directories (a link loop cannot hang the walk).

use std::fs;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

use crate::BatchError;
use gapscore_seal::sealed_dir::FsError;

/// One repository to score.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RepoSpec {
    /// The name: the directory name, or the manifest's `name`. Names the output files.
    pub name: String,
    /// Sealed results: files, directories or globs (absolute, or relative to the working
    /// directory as given).
    pub sealed: Vec<PathBuf>,
    /// Open results, likewise.
    pub open: Vec<PathBuf>,
    /// A seal record (`gapscore seal` output).
    pub seal: Option<PathBuf>,
    /// The sealed test directory the seal record was made from.
    pub sealed_dir: Option<PathBuf>,
    /// Per-repository options (`gapscore.toml`: policy, categories, sealed_dir).
    pub config: Option<PathBuf>,
    /// Every input must resolve (after symbolic links) inside this directory; `None` with
    /// `--allow-outside`.
    pub containment: Option<PathBuf>,
}

impl RepoSpec {
    /// A repository with sealed results only.
    pub fn new(name: impl Into<String>, sealed: Vec<PathBuf>) -> Self {
        RepoSpec {
            name: name.into(),
            sealed,
            open: Vec::new(),
            seal: None,
            sealed_dir: None,
            config: None,
            containment: None,
        }
    }
}

fn read_error(path: &Path, e: std::io::Error) -> BatchError {
    FsError::read(path, e).into()
}

/// Checks that a name can name output files (`reports/<name>.json`) safely.
pub fn check_name(name: &str) -> Result<(), BatchError> {
    let bad = |reason: &str| {
        Err(BatchError::Name {
            name: name.to_owned(),
            reason: reason.to_owned(),
        })
    };
    if name.is_empty() {
        return bad("empty");
    }
    if name.len() > 200 {
        return bad("longer than 200 bytes");
    }
    if name.starts_with('.') {
        return bad("starts with a dot");
    }
    if name.contains(['/', '\\']) {
        return bad("contains a path separator");
    }
    if name.chars().any(char::is_control) {
        return bad("contains a control character");
    }
    Ok(())
}

/// The directory convention: every directory `ROOT/<repo>` (sorted; names starting with a dot
/// and symbolic links are left out) with `sealed/` results, optional `open/` results, optional
/// `seal.json` (its sealed test directory: `sealed_dir` in `gapscore.toml`, else
/// `sealed-tests/` when present) and optional `gapscore.toml`.
pub fn from_root(root: &Path, allow_outside: bool) -> Result<Vec<RepoSpec>, BatchError> {
    from_root_except(root, allow_outside, None)
}

/// [`from_root`], leaving out the directory `out` (the batch's own output directory, when it
/// lies inside ROOT: it is not a repository).
pub fn from_root_except(
    root: &Path,
    allow_outside: bool,
    out: Option<&Path>,
) -> Result<Vec<RepoSpec>, BatchError> {
    let out = out.and_then(|o| fs::canonicalize(o).ok());
    let entries = fs::read_dir(root).map_err(|e| read_error(root, e))?;
    let containment = if allow_outside {
        None
    } else {
        Some(fs::canonicalize(root).map_err(|e| read_error(root, e))?)
    };
    let mut repos = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| read_error(root, e))?;
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if !kind.is_dir() {
            continue;
        }
        let file_name = entry.file_name();
        let Some(name) = file_name.to_str() else {
            return Err(BatchError::Name {
                name: file_name.to_string_lossy().into_owned(),
                reason: "not UTF-8".to_owned(),
            });
        };
        if name.starts_with('.') {
            continue;
        }
        let dir = entry.path();
        if out.is_some() && fs::canonicalize(&dir).ok() == out {
            continue;
        }
        check_name(name)?;
        let mut spec = RepoSpec::new(name, vec![dir.join("sealed")]);
        if dir.join("open").exists() {
            spec.open.push(dir.join("open"));
        }
        let seal = dir.join("seal.json");
        if seal.exists() {
            spec.seal = Some(seal);
            let tests = dir.join("sealed-tests");
            if tests.is_dir() {
                spec.sealed_dir = Some(tests);
            }
        }
        let config = dir.join("gapscore.toml");
        if config.exists() {
            spec.config = Some(config);
        }
        spec.containment.clone_from(&containment);
        repos.push(spec);
    }
    repos.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(repos)
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: String,
    sealed: OneOrMany,
    #[serde(default)]
    open: Option<OneOrMany>,
    #[serde(default)]
    seal: Option<String>,
    #[serde(default)]
    sealed_dir: Option<String>,
    #[serde(default)]
    config: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlManifest {
    #[serde(default)]
    repo: Vec<Entry>,
}

/// True when `rel` (relative) stays inside the directory it is relative to, judged on its
/// components (`a/../b` stays, `../x` and `/x` leave).
fn lexically_inside(rel: &Path) -> bool {
    let mut depth = 0usize;
    for c in rel.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => {
                if depth == 0 {
                    return false;
                }
                depth -= 1;
            }
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

/// A manifest: TOML (`[[repo]]` tables) or JSON lines (one object per line), chosen by the
/// extension (`.toml`; `.jsonl`, `.ndjson`, `.json`) or else by the first character. Each entry
/// has `name`, `sealed` (a path, directory or glob, or a list of them), and optional `open`,
/// `seal`, `sealed_dir` and `config`; relative paths are relative to the manifest's directory,
/// and a path that leaves it (`..`, absolute) is refused unless `allow_outside`.
pub fn from_manifest(path: &Path, allow_outside: bool) -> Result<Vec<RepoSpec>, BatchError> {
    let text = fs::read_to_string(path).map_err(|e| read_error(path, e))?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let json = match ext {
        "toml" => false,
        "jsonl" | "ndjson" | "json" => true,
        _ => text.trim_start().starts_with('{'),
    };
    let entries: Vec<(usize, Entry)> = if json {
        let mut v = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let entry: Entry = serde_json::from_str(t).map_err(|e| BatchError::Manifest {
                path: path.to_path_buf(),
                line: i + 1,
                message: e.to_string(),
            })?;
            v.push((i + 1, entry));
        }
        v
    } else {
        let m: TomlManifest = toml::from_str(&text).map_err(|e| BatchError::Manifest {
            path: path.to_path_buf(),
            line: e.span().map_or(1, |s| {
                text.get(..s.start)
                    .map_or(1, |p| p.matches('\n').count() + 1)
            }),
            message: e.message().trim().to_owned(),
        })?;
        m.repo.into_iter().map(|e| (0, e)).collect()
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let containment = if allow_outside {
        None
    } else {
        Some(fs::canonicalize(&dir).map_err(|e| read_error(&dir, e))?)
    };
    let mut repos = Vec::with_capacity(entries.len());
    for (line, e) in entries {
        check_name(&e.name).map_err(|err| match line {
            0 => err,
            _ => BatchError::Manifest {
                path: path.to_path_buf(),
                line,
                message: err.to_string(),
            },
        })?;
        let place = |p: String| -> Result<PathBuf, BatchError> {
            let rel = Path::new(&p);
            if !allow_outside && !lexically_inside(rel) {
                return Err(BatchError::Outside {
                    repo: e.name.clone(),
                    path: p.clone(),
                    root: dir.clone(),
                });
            }
            Ok(dir.join(rel))
        };
        let sealed = e
            .sealed
            .into_vec()
            .into_iter()
            .map(&place)
            .collect::<Result<Vec<_>, _>>()?;
        let open = e
            .open
            .map(OneOrMany::into_vec)
            .unwrap_or_default()
            .into_iter()
            .map(&place)
            .collect::<Result<Vec<_>, _>>()?;
        let mut spec = RepoSpec::new(e.name.clone(), sealed);
        spec.open = open;
        spec.seal = e.seal.map(&place).transpose()?;
        spec.sealed_dir = e.sealed_dir.map(&place).transpose()?;
        spec.config = e.config.map(&place).transpose()?;
        spec.containment.clone_from(&containment);
        repos.push(spec);
    }
    repos.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(w) = repos.windows(2).find(|w| w[0].name == w[1].name) {
        return Err(BatchError::Duplicate {
            name: w[0].name.clone(),
        });
    }
    Ok(repos)
}

/// A repository's inputs of one role, resolved.
#[derive(Debug, Default)]
pub(crate) struct Resolved {
    /// What to hand to suite scoring: directories as they are (their walk skips unknown
    /// files), glob matches as files.
    pub for_scoring: Vec<PathBuf>,
    /// Every file that will be read, sorted per argument (for the input hash and the
    /// containment check).
    pub files: Vec<PathBuf>,
    /// Arguments that resolve to nothing.
    pub errors: Vec<String>,
}

fn has_glob(p: &Path) -> bool {
    p.to_string_lossy().contains(['*', '?', '['])
}

/// Resolves paths and globs. A glob is matched by walking its literal prefix directory
/// without following symbolic links to directories, so `**` cannot loop.
pub(crate) fn resolve(args: &[PathBuf]) -> Resolved {
    let mut r = Resolved::default();
    for arg in args {
        if has_glob(arg) && !arg.exists() {
            let text = arg.to_string_lossy().into_owned();
            let pattern = match glob::Pattern::new(&text) {
                Ok(p) => p,
                Err(e) => {
                    r.errors.push(format!("{text}: invalid pattern: {}", e.msg));
                    continue;
                }
            };
            let mut prefix = PathBuf::new();
            for c in arg.components() {
                if has_glob(Path::new(c.as_os_str())) {
                    break;
                }
                prefix.push(c.as_os_str());
            }
            if prefix.as_os_str().is_empty() {
                prefix.push(".");
            }
            let mut found = Vec::new();
            walk_files(&prefix, 0, &mut found);
            let opts = glob::MatchOptions {
                case_sensitive: true,
                require_literal_separator: true,
                require_literal_leading_dot: false,
            };
            let mut matched: Vec<PathBuf> = found
                .into_iter()
                .filter(|f| pattern.matches_path_with(f, opts))
                .collect();
            matched.sort();
            if matched.is_empty() {
                r.errors.push(format!("{text}: pattern matched no files"));
            }
            r.files.extend(matched.iter().cloned());
            r.for_scoring.extend(matched);
        } else if arg.is_dir() {
            let (inputs, _) = gapscore_adapters::expand_inputs(std::slice::from_ref(arg));
            r.files.extend(inputs.into_iter().map(|i| i.path));
            r.for_scoring.push(arg.clone());
        } else {
            r.files.push(arg.clone());
            r.for_scoring.push(arg.clone());
        }
    }
    r
}

/// Regular files (and links to files) under `dir`; links to directories are not followed.
fn walk_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > 64 {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut children: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    children.sort();
    for c in children {
        match fs::symlink_metadata(&c) {
            Ok(m) if m.is_dir() => walk_files(&c, depth + 1, out),
            Ok(_) if c.is_file() => out.push(c),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_containment() {
        assert!(lexically_inside(Path::new("a/b/*.xml")));
        assert!(lexically_inside(Path::new("a/../b")));
        assert!(!lexically_inside(Path::new("../x")));
        assert!(!lexically_inside(Path::new("a/../../x")));
        assert!(!lexically_inside(Path::new("/etc/passwd")));
    }

    #[test]
    fn names() {
        assert!(check_name("repo-1").is_ok());
        for bad in ["", ".hidden", "a/b", "a\\b", "a\nb"] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
    }
}
