//! Paths made relative to the directory a run happened in: [`PathRoot`], which a
//! [`Normalizer`](crate::Normalizer) applies to every test and problem of one input
//! ([`Normalizer::relative_to`](crate::Normalizer::relative_to)).
//!
//! Some runners name a test by its file's absolute path (Jest and Vitest's JSON: the suite and
//! the id start with `/home/ci/project/sealed/a.test.js`). Where the run happened is not part of
//! what was tested: under `gapscore run` the copy workspace is a new temporary directory each
//! time, so the same test would have a new id in every run and never match a seal's expected
//! list. The caller that knows where the command ran passes that directory; readers stay free of
//! the working directory, and `score` of a file read outside a run keeps the ids as written.

use crate::borrowed::TestCaseRef;
use crate::run::{Problem, TestCase};

/// A directory whose path is removed from the start of a test's id, suite and file, and of a
/// problem's suite, when they start with it followed by `/`.
///
/// ```
/// use gapscore_model::relative::PathRoot;
///
/// let root = PathRoot::new("/tmp/ws/project").unwrap();
/// assert_eq!(root.strip("/tmp/ws/project/sealed/a.test.js > adds"), Some("sealed/a.test.js > adds"));
/// assert_eq!(root.strip("/tmp/ws/project2/a.test.js"), None);
/// assert_eq!(root.strip("sealed/a.test.js"), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathRoot {
    // The directory with one trailing `/`.
    prefix: String,
}

impl PathRoot {
    /// The root for `dir` (an absolute path, as the runner writes it). `None` for a path that
    /// would strip nothing useful: empty, or the file system's root.
    pub fn new(dir: &str) -> Option<Self> {
        let dir = dir.trim_end_matches('/');
        if dir.is_empty() {
            return None;
        }
        Some(PathRoot {
            prefix: format!("{dir}/"),
        })
    }

    /// `text` without the root, when it starts with it.
    pub fn strip<'a>(&self, text: &'a str) -> Option<&'a str> {
        text.strip_prefix(self.prefix.as_str())
            .filter(|rest| !rest.is_empty())
    }

    fn strip_owned(&self, text: &mut String) {
        if let Some(rest) = self.strip(text) {
            *text = rest.to_owned();
        }
    }

    fn strip_option(&self, text: &mut Option<String>) {
        if let Some(t) = text {
            self.strip_owned(t);
        }
    }

    /// Whether any of the test's id, suite and file starts with the root.
    pub fn holds(&self, test: &TestCaseRef<'_>) -> bool {
        [Some(test.id), test.suite, test.file]
            .into_iter()
            .flatten()
            .any(|t| self.strip(t).is_some())
    }

    /// The test with its id, suite and file relative to the root.
    pub fn apply(&self, test: &mut TestCase) {
        self.strip_owned(&mut test.id);
        self.strip_option(&mut test.suite);
        self.strip_option(&mut test.file);
    }

    /// The problem with its suite relative to the root.
    pub fn apply_problem(&self, problem: &mut Problem) {
        self.strip_option(&mut problem.suite);
    }
}
