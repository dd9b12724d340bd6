//! Whether a combined seal (spec v2 §4.6) covers the sealed directory it is verified against.
//! A combined record names its suites' directories itself, relative to the directory it is
//! checked under, so a record can point its suites anywhere: at directories outside that one
//! (an absolute path, a `..` path, a link out), at one directory twice under two families, or
//! at two of three suites. The invariant: every suite directory lies inside the base, the
//! suites are pairwise disjoint (not the same directory, not nested, not the same files), and
//! every file under the base lies in some suite; the seal's own record files aside.

use std::fs;
use std::path::{Path, PathBuf};

use crate::combined::SuiteSeal;
use crate::sealed_dir::{self, FsError};

/// A suite directory as the record names it, with the path it resolves to.
#[derive(Debug, Clone, Copy)]
pub struct SuiteDir<'a> {
    /// The suite as the combined record lists it.
    pub suite: &'a SuiteSeal,
    /// Its directory under the base, as found.
    pub dir: &'a Path,
}

/// What the suites' directories break of the invariant, one sentence each: a directory that
/// does not resolve inside `base` (an absolute path or a `..` path elsewhere, a link out; a
/// name that does not resolve at all is outside too), the same or nested directories, and two
/// suites with the same hash (the same files).
pub fn layout_problems(base: &Path, suites: &[SuiteDir<'_>]) -> Vec<String> {
    let mut out = suites_overlap(suites);
    let base_real = fs::canonicalize(base).ok();
    for s in suites {
        let inside = match (&base_real, fs::canonicalize(s.dir)) {
            (Some(b), Ok(r)) => r.starts_with(b),
            _ => false,
        };
        if !inside {
            out.push(format!(
                "the suite by {} names the directory `{}`, which is not inside the sealed directory `{}`: a combined seal covers the directory it is checked under, so every suite directory lies inside it (no absolute path or `..` elsewhere, no link out)",
                s.suite.author_family,
                s.suite.directory,
                base.display()
            ));
        }
    }
    out
}

/// The pairs of suites that are not disjoint, one sentence each: the same directory (as
/// resolved), nested directories, or the same hash (the same files). What `seal --combine`
/// refuses, before any base is known.
pub fn suites_overlap(suites: &[SuiteDir<'_>]) -> Vec<String> {
    let mut out = Vec::new();
    let real: Vec<Option<PathBuf>> = suites
        .iter()
        .map(|s| fs::canonicalize(s.dir).ok())
        .collect();
    for (i, a) in suites.iter().enumerate() {
        for (j, b) in suites.iter().enumerate().skip(i + 1) {
            let how = match (&real[i], &real[j]) {
                (Some(x), Some(y)) if x == y => Some("the same directory"),
                (Some(x), Some(y)) if x.starts_with(y) || y.starts_with(x) => {
                    Some("nested directories")
                }
                _ if a.suite.hash == b.suite.hash => Some("the same files (one hash)"),
                _ => None,
            };
            if let Some(how) = how {
                out.push(format!(
                    "the suites by {} (`{}`) and {} (`{}`) are {how}: suites of a combined seal are disjoint, one suite sealed twice is not two suites",
                    a.suite.author_family,
                    a.suite.directory,
                    b.suite.author_family,
                    b.suite.directory
                ));
            }
        }
    }
    out
}

/// The entries under `base` (relative, `/`-separated) that lie in no suite directory: regular
/// files, links and special files alike, except the seal's own `records` (the combined record
/// and its suites' records, which the combined record binds). Nothing but the suites is
/// hashed or scanned for sealed source, so anything else under the directory called sealed is
/// not vouched for.
pub fn uncovered(
    base: &Path,
    suites: &[SuiteDir<'_>],
    records: &[&Path],
) -> Result<Vec<String>, FsError> {
    let listing = sealed_dir::list(base)?;
    let base_real = fs::canonicalize(base).unwrap_or_else(|_| base.to_owned());
    let suite_dirs: Vec<PathBuf> = suites
        .iter()
        .filter_map(|s| fs::canonicalize(s.dir).ok())
        .collect();
    let records: Vec<PathBuf> = records
        .iter()
        .filter_map(|r| fs::canonicalize(r).ok())
        .collect();
    let entries = listing
        .files
        .into_iter()
        .map(|f| f.path)
        .chain(listing.links.into_iter().map(|(p, _)| p))
        .chain(listing.special.into_iter().map(|(p, _)| p));
    let mut out: Vec<String> = entries
        .filter(|rel| {
            // The walk follows no link, so the joined path is the entry's own place.
            let at = base_real.join(rel);
            !suite_dirs.iter().any(|d| at.starts_with(d)) && !records.contains(&at)
        })
        .collect();
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite(family: &str, hash: &str, dir: &str) -> SuiteSeal {
        SuiteSeal::new(family, hash, dir, format!("{family}.seal.json"))
    }

    #[test]
    fn suites_must_be_disjoint_directories_inside_the_base() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("base");
        for d in ["base/a", "base/b", "outside", "outside2"] {
            fs::create_dir_all(tmp.path().join(d)).unwrap();
        }
        let (a, b) = (base.join("a"), base.join("b"));
        let ok = [suite("x", "sha256:1", "a"), suite("y", "sha256:2", "b")];
        let dirs = |s: &[SuiteSeal; 2], d: [&Path; 2]| {
            layout_problems(
                &base,
                &[
                    SuiteDir {
                        suite: &s[0],
                        dir: d[0],
                    },
                    SuiteDir {
                        suite: &s[1],
                        dir: d[1],
                    },
                ],
            )
        };
        assert!(dirs(&ok, [&a, &b]).is_empty());
        let twice = [suite("x", "sha256:1", "a"), suite("y", "sha256:1", "a")];
        assert!(dirs(&twice, [&a, &a])[0].contains("the same directory"));
        let copy = [suite("x", "sha256:1", "a"), suite("y", "sha256:1", "b")];
        assert!(dirs(&copy, [&a, &b])[0].contains("the same files"));
        let nested = [suite("x", "sha256:1", "."), suite("y", "sha256:2", "b")];
        assert!(dirs(&nested, [&base, &b])[0].contains("nested"));
        let out = tmp.path().join("outside");
        let abs = out.display().to_string();
        let escapes = [
            suite("x", "sha256:1", &abs),
            suite("y", "sha256:2", "../outside2"),
        ];
        let p = dirs(&escapes, [&out, &base.join("../outside2")]);
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p.iter().all(|p| p.contains("not inside")));
    }

    #[test]
    fn files_outside_every_suite_are_listed_but_the_records_are_not() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path();
        for (f, body) in [
            ("a/test_a.py", "x"),
            ("c/test_c.py", "y"),
            ("combined.json", "{}"),
            ("a.seal.json", "{}"),
        ] {
            let p = base.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, body).unwrap();
        }
        let s = suite("x", "sha256:1", "a");
        let a = base.join("a");
        let found = uncovered(
            base,
            &[SuiteDir { suite: &s, dir: &a }],
            &[&base.join("combined.json"), &base.join("a.seal.json")],
        )
        .unwrap();
        assert_eq!(found, vec!["c/test_c.py".to_owned()]);
    }
}
