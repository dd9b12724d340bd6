//! [`TestCaseRef`]: a finished test whose strings borrow from the adapter's buffers, for the
//! fast path through the seam ([`EventSink::test_finished_ref`](crate::EventSink::test_finished_ref)).
//! Most tests pass, and a scoring sink only counts a passing test: building an owned
//! [`TestCase`] (an id, a suite and a name `String` each) for it was the main cost per test
//! above the tokenizer. A sink that keeps a test makes the owned copy with
//! [`TestCaseRef::to_test_case`].

use crate::run::{Attempt, Category, Status, TestCase};

/// A finished test, borrowed: the fields of [`TestCase`], with `&str` for its strings and a
/// slice for its attempts. Valid for the one call it is passed to; a sink that keeps the test
/// copies it with [`TestCaseRef::to_test_case`].
///
/// ```
/// use gapscore_model::{Status, TestCase, TestCaseRef};
///
/// let mut t = TestCaseRef::new(Some("calc"), "adds", "calc::adds", Status::Passed);
/// t.duration = Some(0.25);
/// let owned: TestCase = t.to_test_case();
/// assert_eq!(owned, {
///     let mut o = TestCase::new(Some("calc".into()), "adds", Status::Passed);
///     o.duration = Some(0.25);
///     o
/// });
/// assert_eq!(owned.borrowed(), t);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct TestCaseRef<'a> {
    /// [`TestCase::id`]: never empty here (an adapter derives it with [`TestCase::make_id`]
    /// unless the format has its own).
    pub id: &'a str,
    /// [`TestCase::suite`].
    pub suite: Option<&'a str>,
    /// [`TestCase::name`].
    pub name: &'a str,
    /// [`TestCase::status`].
    pub status: Status,
    /// [`TestCase::duration`].
    pub duration: Option<f64>,
    /// [`TestCase::message`].
    pub message: Option<&'a str>,
    /// [`TestCase::expected`].
    pub expected: Option<&'a str>,
    /// [`TestCase::actual`].
    pub actual: Option<&'a str>,
    /// [`TestCase::category`].
    pub category: Option<Category>,
    /// [`TestCase::file`].
    pub file: Option<&'a str>,
    /// [`TestCase::line`].
    pub line: Option<u32>,
    /// [`TestCase::decided_at`].
    pub decided_at: Option<&'a str>,
    /// [`TestCase::output`].
    pub output: Option<&'a str>,
    /// [`TestCase::attempts`].
    pub attempts: &'a [Attempt],
    /// [`TestCase::parent`].
    pub parent: bool,
    /// [`TestCase::parent_id`].
    pub parent_id: Option<&'a str>,
}

impl<'a> TestCaseRef<'a> {
    /// A test with a suite path, name, id and status; every other field empty. The id is given,
    /// not derived, so that no `String` is built for it here: pass the format's own id, or
    /// [`TestCase::make_id`]'s `suite::name` written into a buffer the adapter reuses.
    pub fn new(suite: Option<&'a str>, name: &'a str, id: &'a str, status: Status) -> Self {
        TestCaseRef {
            id,
            suite,
            name,
            status,
            duration: None,
            message: None,
            expected: None,
            actual: None,
            category: None,
            file: None,
            line: None,
            decided_at: None,
            output: None,
            attempts: &[],
            parent: false,
            parent_id: None,
        }
    }

    /// The owned test, for a sink that keeps it.
    pub fn to_test_case(&self) -> TestCase {
        let own = |s: Option<&str>| s.map(str::to_owned);
        let mut t = TestCase::new(own(self.suite), self.name, self.status);
        // `new` derived `suite::name`; a format's own id (a pytest node id) replaces it.
        if t.id != self.id {
            self.id.clone_into(&mut t.id);
        }
        t.duration = self.duration;
        t.message = own(self.message);
        t.expected = own(self.expected);
        t.actual = own(self.actual);
        t.category = self.category;
        t.file = own(self.file);
        t.line = self.line;
        t.decided_at = own(self.decided_at);
        t.output = own(self.output);
        t.attempts = self.attempts.to_vec();
        t.parent = self.parent;
        t.parent_id = own(self.parent_id);
        t
    }

    /// [`TestCase::is_flaky`].
    pub fn is_flaky(&self) -> bool {
        matches!(self.status, Status::Passed | Status::Xpassed)
            && self
                .attempts
                .iter()
                .any(|a| matches!(a.status, Status::Failed | Status::Errored))
    }
}

impl TestCase {
    /// This test, borrowed (for [`EventSink::test_finished_ref`](crate::EventSink::test_finished_ref)
    /// from an adapter that reuses one `TestCase` as its buffer).
    pub fn borrowed(&self) -> TestCaseRef<'_> {
        TestCaseRef {
            id: &self.id,
            suite: self.suite.as_deref(),
            name: &self.name,
            status: self.status,
            duration: self.duration,
            message: self.message.as_deref(),
            expected: self.expected.as_deref(),
            actual: self.actual.as_deref(),
            category: self.category,
            file: self.file.as_deref(),
            line: self.line,
            decided_at: self.decided_at.as_deref(),
            output: self.output.as_deref(),
            attempts: &self.attempts,
            parent: self.parent,
            parent_id: self.parent_id.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_survives_borrowing_and_copying_with_every_field() {
        let mut t = TestCase::new(Some("s > t".into()), "n", Status::Passed);
        t.id = "own-id".into();
        t.duration = Some(1.5);
        t.message = Some("m".into());
        t.expected = Some("e".into());
        t.actual = Some("a".into());
        t.category = Some(Category::Security);
        t.file = Some("f.py".into());
        t.line = Some(7);
        t.output = Some("o".into());
        t.attempts = vec![Attempt::new(Status::Failed)];
        t.parent = true;
        t.parent_id = Some("p".into());
        let r = t.borrowed();
        assert!(r.is_flaky());
        assert_eq!(r.to_test_case(), t);
        let derived = TestCase::new(None, "x", Status::Failed);
        assert_eq!(derived.borrowed().to_test_case(), derived);
        assert!(!derived.borrowed().is_flaky());
    }
}
