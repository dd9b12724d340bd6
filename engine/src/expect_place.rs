//! Where a stub run's result lies, for `seal --expect-run`: a test the stub's command ran from
//! outside the sealed directory (an implementer's `open/test_x.py` when the command collects the
//! whole project) is not a sealed test, and listing it would let its passes dilute the score.
//! The place is the file the format records (a result's `file`, pytest's node id), or, for
//! pytest's JUnit XML, the Python module its dotted classname names when that module exists in
//! the workspace. The inside test is the one a lenient skip policy uses
//! ([`SkipScope`](gapscore_core::skip_scope::SkipScope)).

use std::path::{Path, PathBuf};

use gapscore_core::TestCase;
use gapscore_core::skip_scope::{SkipScope, SkipVerdict};

/// The formats whose `file` is the file the test is written in.
const FILE_IS_THE_TESTS: &[&str] = &[
    "pytest-json-report",
    "pytest-reportlog",
    "pytest-text",
    "jest-json",
    "mocha-json",
    "ctrf-json",
    "junit-xml",
];

/// The sealed directory of a stub run, and the workspace its results are read against.
#[derive(Debug, Clone)]
pub(crate) struct SealedPlace {
    scope: SkipScope,
    base: PathBuf,
}

/// Where one result lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    /// In the sealed directory.
    Inside,
    /// At this file, outside the sealed directory.
    Outside(String),
    /// The format records no file for it.
    Unknown,
}

impl SealedPlace {
    /// `sealed_dir` (absolute, or relative to `base`) inside the workspace `base`.
    pub(crate) fn new(sealed_dir: &Path, base: &Path) -> Self {
        SealedPlace {
            scope: SkipScope::new(vec![sealed_dir.to_owned()], base.to_owned(), false),
            base: base.to_owned(),
        }
    }

    /// Where the result `t` of a file in `format` lies.
    pub(crate) fn of(&self, format: &str, t: &TestCase) -> Place {
        let Some(file) = self.file_of(format, t) else {
            return Place::Unknown;
        };
        match self.scope.judge(Some(&file)) {
            SkipVerdict::Inside => Place::Inside,
            _ => Place::Outside(file),
        }
    }

    fn file_of(&self, format: &str, t: &TestCase) -> Option<String> {
        // Only where `file` is the test's own file: libtest, Go and TAP record the place of a
        // failure (a panic in `src/lib.rs`, an assertion in a helper), not of the test.
        if FILE_IS_THE_TESTS.contains(&format)
            && let Some(f) = t.file.as_deref().filter(|f| !f.trim().is_empty())
        {
            return Some(f.to_owned());
        }
        // pytest's node id: `path/to/test_x.py::Class::test`.
        if format.starts_with("pytest")
            && let Some((path, _)) = t.id.split_once("::")
            && path.ends_with(".py")
        {
            return Some(path.to_owned());
        }
        if format == "junit-xml" {
            return t.suite.as_deref().and_then(|c| self.python_module(c));
        }
        None
    }

    /// pytest's JUnit classname (`tests.sealed.test_calc` or `tests.sealed.test_calc.TestX`):
    /// the longest dotted prefix naming a `.py` file in the workspace. A classname that is not a
    /// dotted Python name, or names no file here, has no known place.
    fn python_module(&self, classname: &str) -> Option<String> {
        let parts: Vec<&str> = classname.split('.').collect();
        let identifier = |p: &&str| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
                && !p.starts_with(|c: char| c.is_ascii_digit())
        };
        if !parts.iter().all(identifier) {
            return None;
        }
        (1..=parts.len()).rev().find_map(|n| {
            let rel = format!("{}.py", parts[..n].join("/"));
            self.base.join(&rel).is_file().then_some(rel)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gapscore_core::Status;

    fn case(id: &str, suite: Option<&str>) -> TestCase {
        let mut t = TestCase::new(suite.map(str::to_owned), "t", Status::Passed);
        t.id = id.to_owned();
        t
    }

    #[test]
    fn pytest_ids_and_junit_classnames_are_placed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("tests/sealed")).unwrap();
        std::fs::create_dir_all(root.join("open")).unwrap();
        std::fs::write(root.join("tests/sealed/test_a.py"), "").unwrap();
        std::fs::write(root.join("open/test_b.py"), "").unwrap();
        let place = SealedPlace::new(Path::new("tests/sealed"), root);
        let inside = case("tests/sealed/test_a.py::test_x", None);
        assert_eq!(place.of("pytest-json", &inside), Place::Inside);
        let outside = case("open/test_b.py::test_y", None);
        assert_eq!(
            place.of("pytest-json", &outside),
            Place::Outside("open/test_b.py".into())
        );
        let j_in = case("x", Some("tests.sealed.test_a.TestK"));
        assert_eq!(place.of("junit-xml", &j_in), Place::Inside);
        let j_out = case("x", Some("open.test_b"));
        assert_eq!(
            place.of("junit-xml", &j_out),
            Place::Outside("open/test_b.py".into())
        );
        // A classname naming no module here (another tool's JUnit) has no known place.
        assert_eq!(
            place.of("junit-xml", &case("x", Some("calc adds"))),
            Place::Unknown
        );
        assert_eq!(place.of("tap", &case("adds", None)), Place::Unknown);
        // libtest's `file` is where a test panicked, not where it is written.
        let mut panicked = case("adds", None);
        panicked.file = Some("src/lib.rs".into());
        assert_eq!(place.of("libtest-json", &panicked), Place::Unknown);
    }
}
