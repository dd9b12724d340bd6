//! Where a lenient policy may apply. `--skipped exclude|pass` and `--xfail pass` trust a test's
//! own decision not to run (or to fail expectedly); only the sealed tests may make that decision.
//! A skip raised by the implementation (`pytest.skip()` called from `src/`) or written by a tool
//! outside the sealed directory is not the sealed tests' decision, so it is counted as failed.
//! [`SkipScope::judge`] tells, from the place a format records for the decision
//! ([`TestCase::decided_at`](gapscore_model::TestCase::decided_at)), whether it lies inside a
//! sealed directory.
//!
//! ```
//! use gapscore_core::skip_scope::{SkipScope, SkipVerdict};
//! let scope = SkipScope::new(vec!["/repo/tests/sealed".into()], "/repo".into(), false);
//! assert_eq!(scope.judge(Some("tests/sealed/test_a.py:12")), SkipVerdict::Inside);
//! assert!(matches!(scope.judge(Some("src/app.py:3")), SkipVerdict::Outside(_)));
//! assert!(matches!(scope.judge(Some("tests/sealed/../../src/app.py:3")), SkipVerdict::Outside(_)));
//! assert_eq!(scope.judge(None), SkipVerdict::Unlocated);
//! ```

use std::path::{Component, Path, PathBuf};

/// The sealed directories a lenient policy trusts, and how to read a recorded place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkipScope {
    dirs: Vec<PathBuf>,
    base: PathBuf,
    trust_unlocated: bool,
    unrestricted: bool,
}

/// Whether a lenient policy applies to one decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipVerdict {
    /// Decided inside a sealed directory (or the scope is unrestricted): the policy applies.
    Inside,
    /// Decided at this place, outside every sealed directory: counted as failed.
    Outside(String),
    /// The format records no place and unlocated decisions are not trusted: counted as failed.
    Unlocated,
    /// A place is recorded, but no sealed directory is known to hold it against: counted as
    /// failed.
    NoSealedDir(String),
    /// The format records no place and the user said to trust such decisions
    /// (`--trust-unlocated-skips`): the policy applies.
    TrustedUnlocated,
}

impl SkipVerdict {
    /// True when the lenient policy applies.
    pub fn allows(&self) -> bool {
        matches!(self, SkipVerdict::Inside | SkipVerdict::TrustedUnlocated)
    }
}

impl Default for SkipScope {
    /// Unrestricted: every decision is trusted (a tally used outside the engine).
    fn default() -> Self {
        SkipScope {
            dirs: Vec::new(),
            base: PathBuf::new(),
            trust_unlocated: true,
            unrestricted: true,
        }
    }
}

impl SkipScope {
    /// Decisions are trusted inside `dirs` (relative ones are taken from `base`); a recorded
    /// place that is relative is read from `base`, where the runner ran.
    pub fn new(dirs: Vec<PathBuf>, base: PathBuf, trust_unlocated: bool) -> Self {
        let dirs = dirs
            .into_iter()
            .flat_map(|d| {
                let abs = normalise(&base.join(&d));
                // The directory as given and as the file system resolves it (a symlinked
                // checkout): a place written either way is recognised.
                let real = std::fs::canonicalize(&abs).ok();
                std::iter::once(abs).chain(real)
            })
            .collect();
        SkipScope {
            dirs,
            base,
            trust_unlocated,
            unrestricted: false,
        }
    }

    /// True unless this scope was made by [`SkipScope::new`].
    pub fn is_unrestricted(&self) -> bool {
        self.unrestricted
    }

    /// Whether a decision recorded at `decided_at` (`path`, `path:line` or `path:line:col`)
    /// lies inside a sealed directory.
    pub fn judge(&self, decided_at: Option<&str>) -> SkipVerdict {
        if self.unrestricted {
            return SkipVerdict::Inside;
        }
        let Some(place) = decided_at.map(str::trim).filter(|p| !p.is_empty()) else {
            return if self.trust_unlocated {
                SkipVerdict::TrustedUnlocated
            } else {
                SkipVerdict::Unlocated
            };
        };
        if self.dirs.is_empty() {
            return SkipVerdict::NoSealedDir(place.to_owned());
        }
        let path = normalise(&self.base.join(strip_line(place)));
        let inside = |p: &Path| self.dirs.iter().any(|d| p.starts_with(d));
        // A symlink inside the sealed directory may point out of it: the resolved path decides
        // when the file exists here.
        let resolved = std::fs::canonicalize(&path).ok();
        let ok = match &resolved {
            Some(real) => inside(real),
            None => inside(&path),
        };
        if ok {
            SkipVerdict::Inside
        } else {
            SkipVerdict::Outside(place.to_owned())
        }
    }
}

/// `path:12` or `path:12:5` → `path` (a Windows drive letter's colon is kept).
fn strip_line(place: &str) -> &str {
    let mut p = place;
    for _ in 0..2 {
        match p.rsplit_once(':') {
            Some((head, tail))
                if !head.is_empty()
                    && !tail.is_empty()
                    && tail.bytes().all(|b| b.is_ascii_digit()) =>
            {
                p = head;
            }
            _ => break,
        }
    }
    p
}

/// `a/./b/../c` → `a/c`, without touching the file system (the file may not exist here).
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope() -> SkipScope {
        SkipScope::new(
            vec!["tests/sealed".into()],
            "/nonexistent/repo".into(),
            false,
        )
    }

    #[test]
    fn places_inside_the_sealed_directory_are_trusted() {
        let s = scope();
        for p in [
            "tests/sealed/test_a.py:12",
            "tests/sealed/sub/test_b.py",
            "/nonexistent/repo/tests/sealed/test_a.py:3:9",
            "./tests/sealed/x.py:1",
        ] {
            assert_eq!(s.judge(Some(p)), SkipVerdict::Inside, "{p}");
        }
    }

    #[test]
    fn places_outside_it_are_not() {
        let s = scope();
        for p in [
            "src/app.py:3",
            "tests/sealed/../../src/app.py:3",
            "tests/sealed_extra/test_a.py:1",
            "tests/sealedx.py:1",
            "/elsewhere/tests/sealed/test_a.py:1",
            "tests:1",
        ] {
            assert!(matches!(s.judge(Some(p)), SkipVerdict::Outside(_)), "{p}");
        }
    }

    #[test]
    fn unlocated_decisions_need_the_user_s_word() {
        assert_eq!(scope().judge(None), SkipVerdict::Unlocated);
        assert_eq!(scope().judge(Some("  ")), SkipVerdict::Unlocated);
        let trusting = SkipScope::new(vec!["t".into()], "/r".into(), true);
        assert_eq!(trusting.judge(None), SkipVerdict::TrustedUnlocated);
        assert!(trusting.judge(None).allows());
        // Trusting unlocated decisions does not trust located ones outside.
        assert!(!trusting.judge(Some("src/x.py:1")).allows());
    }

    #[test]
    fn without_a_sealed_directory_no_place_is_inside() {
        let s = SkipScope::new(Vec::new(), "/r".into(), false);
        assert!(matches!(
            s.judge(Some("tests/x.py:1")),
            SkipVerdict::NoSealedDir(_)
        ));
        assert!(SkipScope::default().judge(Some("src/x.py:1")).allows());
    }

    #[test]
    fn a_symlink_out_of_the_sealed_directory_is_outside() {
        let root = std::env::temp_dir().join(format!("gapscore-skipscope-{}", std::process::id()));
        let sealed = root.join("tests/sealed");
        std::fs::create_dir_all(&sealed).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/helper.py"), "").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("src/helper.py"), sealed.join("helper.py")).unwrap();
        let s = SkipScope::new(vec!["tests/sealed".into()], root.clone(), false);
        #[cfg(unix)]
        assert!(matches!(
            s.judge(Some("tests/sealed/helper.py:2")),
            SkipVerdict::Outside(_)
        ));
        std::fs::write(sealed.join("test_a.py"), "").unwrap();
        assert_eq!(
            s.judge(Some("tests/sealed/test_a.py:2")),
            SkipVerdict::Inside
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}

/// The decisions a lenient policy was refused for in one input, for one warning (`W115`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Refusals {
    outside: u64,
    unlocated: u64,
    no_sealed_dir: u64,
    first: Option<(String, SkipVerdict)>,
}

impl Refusals {
    /// Notes one refused decision of test `id`.
    pub fn note(&mut self, id: &str, verdict: &SkipVerdict) {
        match verdict {
            SkipVerdict::Outside(_) => self.outside += 1,
            SkipVerdict::Unlocated => self.unlocated += 1,
            SkipVerdict::NoSealedDir(_) => self.no_sealed_dir += 1,
            SkipVerdict::Inside | SkipVerdict::TrustedUnlocated => return,
        }
        if self.first.is_none() {
            self.first = Some((id.to_owned(), verdict.clone()));
        }
    }

    /// Adds the refusals of a later part of the same input.
    pub fn absorb(&mut self, later: Refusals) {
        self.outside += later.outside;
        self.unlocated += later.unlocated;
        self.no_sealed_dir += later.no_sealed_dir;
        if self.first.is_none() {
            self.first = later.first;
        }
    }

    /// The warning that says what was refused and why, if anything was; the log is emptied.
    pub fn take_warning(&mut self) -> Option<String> {
        let r = std::mem::take(self);
        let total = r.outside + r.unlocated + r.no_sealed_dir;
        let (id, first) = r.first?;
        let mut why = Vec::new();
        if r.outside > 0 {
            why.push(format!(
                "{} decided outside the sealed directory",
                r.outside
            ));
        }
        if r.no_sealed_dir > 0 {
            why.push(format!(
                "{} with a recorded place but no sealed directory named to hold it against (`--sealed-dir`)",
                r.no_sealed_dir
            ));
        }
        if r.unlocated > 0 {
            why.push(format!(
                "{} whose place the format does not record (trusted only with `--trust-unlocated-skips`)",
                r.unlocated
            ));
        }
        let example = match first {
            SkipVerdict::Outside(p) | SkipVerdict::NoSealedDir(p) => format!("`{id}` at {p}"),
            _ => format!("`{id}`"),
        };
        Some(format!(
            "{total} skipped or xfailed test(s) counted as failed despite the lenient policy: {} (first: {example})",
            why.join("; ")
        ))
    }
}
