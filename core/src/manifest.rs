//! The manifest of expected sealed tests (a seal record's `expected_tests`). A [`Manifest`]
//! numbers the ids it lists; a tally records the number of each expected test it reads and
//! leaves unlisted tests out of the score, and after merging asks the manifest which expected
//! tests never appeared, to count each as failed.
//!
//! One pytest run written two ways names a test two ways: pytest-json-report and reportlog by
//! its node id (`sealed/test_calc.py::TestX::test_div`), pytest's JUnit XML by a dotted class
//! name and a name (`sealed.test_calc.TestX::test_div`). The dotted form is a function of the
//! node id (pytest's own `mangle_test_address`), not the reverse (a dot may part a package, a
//! module or a class), so ids are compared through their dotted forms ([`pytest_key`]) rather
//! than by guessing a path from a class name: a result not listed by its own id but whose
//! dotted form is that of one listed pytest id is that listed test, counted under the listed
//! id. Two listed ids with one dotted form are matched exactly only
//! ([`Manifest::key_collisions`]), so no result can stand for the wrong one of them; two results
//! that find one listed test are both counted against it, and the worse stands.
//!
//! Jest and Vitest ids are matched the same way through their file and titles, an absolute
//! file standing for a listed relative one it ends in and the reverse ([`js_path`]); a result
//! that could be two listed tests is matched to neither ([`Manifest::ambiguous`]).

mod js_path;

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use gapscore_model::TestCase;

/// pytest's JUnit naming of a test id: the part before `::` with `/` turned to `.` and `.py`
/// cut, then every `::` a `.`, the parameters (`[...]`) kept as written:
/// `sealed/test_calc.py::TestX::test_p[1-2]` and `sealed.test_calc.TestX::test_p[1-2]` both
/// give `sealed.test_calc.TestX.test_p[1-2]`. `None` for an id without `::`.
pub fn pytest_key(id: &str) -> Option<String> {
    let (path, params) = match id.find('[') {
        Some(at) => id.split_at(at),
        None => (id, ""),
    };
    let (first, rest) = path.split_once("::")?;
    let first = first.replace('/', ".");
    let mut key = first.strip_suffix(".py").unwrap_or(&first).to_owned();
    for part in rest.split("::") {
        key.push('.');
        key.push_str(part);
    }
    key.push_str(params);
    Some(key)
}

/// True for an id pytest may have written: a node id (its part before the first `::` a `.py`
/// file) or a JUnit one (that part a dotted Python name, `sealed.test_calc.TestX`). A node id
/// whose directories or file name hold a dot (`tests.sealed/test_calc.py`,
/// `sealed.test_calc.py`) is not: its dotted form is another file's (`tests/sealed/test_calc.py`,
/// `sealed/test_calc.py`), so it is matched by its own id only and can never stand in for the
/// sealed file a dotted name names (found by an attack on the build).
fn pytest_shaped(id: &str) -> bool {
    id.split_once("::").is_some_and(|(first, _)| {
        (first
            .strip_suffix(".py")
            .is_some_and(|stem| !stem.contains('.') && !stem.contains('['))
            && !first.contains('['))
            || (!first.is_empty()
                && !first.ends_with(".py")
                && first
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.'))
    })
}

/// The sealed tests expected to run (from a seal record's `expected_tests`). With one, a
/// [`Tally`](crate::Tally) counts an expected test without a result as failed and leaves tests
/// it does not list out of the score, so neither a test that quietly stopped running nor an
/// injected passing test changes the score in the implementer's favour.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    /// Each distinct id once, in first-listed order.
    ids: Vec<String>,
    /// How many times each id is expected: an id listed twice (two parametrised cases that
    /// share a name, a test file run twice) must be seen twice.
    times: Vec<u32>,
    index: HashMap<String, u32>,
    /// The listed ids pytest may have written by their dotted form ([`pytest_key`]); `None`
    /// where two listed ids share one.
    keys: HashMap<String, Option<u32>>,
    /// Listed ids that share a dotted form with an earlier listed one (each with it).
    collisions: Vec<(String, String)>,
    /// The listed Jest and Vitest ids by their file and titles.
    js: js_path::JsKeys,
}

impl Manifest {
    /// A manifest of these ids; an id listed n times is expected n times.
    pub fn new(ids: impl IntoIterator<Item = String>) -> Self {
        let mut m = Manifest::default();
        for id in ids {
            match m.index.get(&id) {
                Some(&at) => {
                    if let Some(t) = m.times.get_mut(at as usize) {
                        *t = t.saturating_add(1);
                    }
                }
                None => {
                    let at = u32::try_from(m.ids.len()).unwrap_or(u32::MAX);
                    m.index.insert(id.clone(), at);
                    m.js.add(&id, at);
                    if pytest_shaped(&id)
                        && let Some(key) = pytest_key(&id)
                    {
                        match m.keys.entry(key) {
                            Entry::Vacant(v) => {
                                v.insert(Some(at));
                            }
                            Entry::Occupied(mut o) => {
                                if let Some(first) = o.get().and_then(|i| m.ids.get(i as usize)) {
                                    m.collisions.push((first.clone(), id.clone()));
                                }
                                o.insert(None);
                            }
                        }
                    }
                    m.ids.push(id);
                    m.times.push(1);
                }
            }
        }
        m
    }

    /// Each distinct listed id once, in first-listed order.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// Pairs of listed ids with one dotted form ([`pytest_key`]): each is matched by its exact
    /// id only, so a JUnit result for either is not listed (and the listed test did not run).
    pub fn key_collisions(&self) -> &[(String, String)] {
        &self.collisions
    }

    /// Where a result stands that is not listed by its own id but by another form of it
    /// (pytest's JUnit naming of a node id; a Jest or Vitest file path absolute in one and
    /// relative in the other), with the listed id of that form; `None` when no single listed
    /// id has that form. The caller counts the result under the listed id.
    pub(crate) fn canonical(&self, id: &str) -> Option<(u32, &str)> {
        let at = self
            .pytest_match(id)
            .or_else(|| match self.js_candidates(id)[..] {
                [one] => Some(one),
                _ => None,
            })?;
        Some((at, self.ids.get(at as usize)?.as_str()))
    }

    fn pytest_match(&self, id: &str) -> Option<u32> {
        if self.keys.is_empty() || !pytest_shaped(id) {
            return None;
        }
        *self.keys.get(&pytest_key(id)?)?
    }

    fn js_candidates(&self, id: &str) -> Vec<u32> {
        if self.js.is_empty() {
            return Vec::new();
        }
        self.js.candidates(id)
    }

    /// The listed ids a result not listed by its own id could be, when it could be more than
    /// one (`/p/b/a/x.test.js` ends both listed `a/x.test.js` and `b/a/x.test.js`): it is
    /// matched to neither, since a result standing for the wrong one would hide a failure.
    pub fn ambiguous(&self, id: &str) -> Vec<&str> {
        if self.index.contains_key(id) || self.pytest_match(id).is_some() {
            return Vec::new();
        }
        match self.js_candidates(id) {
            c if c.len() > 1 => c
                .into_iter()
                .filter_map(|at| self.ids.get(at as usize).map(String::as_str))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Number of expected tests, each repeat counted.
    pub fn len(&self) -> usize {
        self.times.iter().map(|&t| t as usize).sum()
    }

    /// True when no test is expected.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
    /// Where an expected test stands in the manifest; `None` for a test it does not list.
    pub(crate) fn position(&self, id: &str) -> Option<u32> {
        self.index.get(id).copied()
    }

    /// The expected tests that were not seen as often as expected, in manifest order, each as
    /// many times as it is short (an id expected twice and seen once is missing once).
    /// Positions rather than ids are what tallies collect, so a merged tally compares numbers.
    pub(crate) fn missing(&self, seen: &[u32]) -> Vec<String> {
        let mut count = vec![0u32; self.ids.len()];
        for &i in seen {
            if let Some(c) = count.get_mut(i as usize) {
                *c = c.saturating_add(1);
            }
        }
        let mut out = Vec::new();
        for ((id, &want), &got) in self.ids.iter().zip(&self.times).zip(&count) {
            for _ in got..want {
                out.push(id.clone());
            }
        }
        out
    }
}

impl Manifest {
    /// The expected tests seen more often than listed, in manifest order, each with how many of
    /// its passes are surplus: of the results beyond its multiplicity, the passing ones (a
    /// failure is never surplus: the worst result of a test stands). `seen` holds the positions
    /// of every result read, `passed` those of the results that counted as passed.
    pub(crate) fn surplus(&self, seen: &[u32], passed: &[u32]) -> Vec<(String, u64)> {
        let tally = |positions: &[u32]| {
            let mut count = vec![0u64; self.ids.len()];
            for &i in positions {
                if let Some(c) = count.get_mut(i as usize) {
                    *c += 1;
                }
            }
            count
        };
        let (seen, passed) = (tally(seen), tally(passed));
        let mut out = Vec::new();
        for (i, id) in self.ids.iter().enumerate() {
            let beyond = seen[i].saturating_sub(u64::from(self.times[i]));
            let passes = beyond.min(passed[i]);
            if passes > 0 {
                out.push((id.clone(), passes));
            }
        }
        out
    }
}

/// A result found under a listed id other than its own ([`Manifest::canonical`]) takes that id,
/// and the suite and name it spells (`file.py::Class` and `test`), so the report names the test
/// as the seal record does, whichever format the results came in.
pub(crate) fn listed_as(test: &mut TestCase, listed: &str) {
    let plain = listed.find('[').unwrap_or(listed.len());
    if let Some(cut) = listed[..plain].rfind("::") {
        test.suite = Some(listed[..cut].to_owned());
        test.name = listed[cut + 2..].to_owned();
    }
    test.id = listed.to_owned();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_junit_id_finds_the_listed_node_id_pytest_names_it_after() {
        let m = Manifest::new(
            [
                "sealed/test_calc.py::test_sub",
                "sealed/test_calc.py::TestX::test_p[a.b::c]",
                "sealed/pkg.py::t",
                "sealed/pkg/x.py::t",
                "other.mod::t",
            ]
            .map(str::to_owned),
        );
        assert_eq!(
            pytest_key("sealed/test_calc.py::TestX::test_p[1-2]").as_deref(),
            Some("sealed.test_calc.TestX.test_p[1-2]")
        );
        assert_eq!(
            m.canonical("sealed.test_calc::test_sub"),
            Some((0, "sealed/test_calc.py::test_sub"))
        );
        assert_eq!(
            m.canonical("sealed.test_calc.TestX::test_p[a.b::c]"),
            Some((1, "sealed/test_calc.py::TestX::test_p[a.b::c]"))
        );
        // A module beside a package of its name: each found by its own dotted form.
        assert_eq!(m.canonical("sealed.pkg::t"), Some((2, "sealed/pkg.py::t")));
        assert_eq!(
            m.canonical("sealed.pkg.x::t"),
            Some((3, "sealed/pkg/x.py::t"))
        );
        assert!(m.key_collisions().is_empty());
        // The other way: a JUnit listing finds a node id result.
        assert_eq!(m.canonical("other/mod.py::t"), Some((4, "other.mod::t")));
        // A Jest-style id has no pytest shape: never listed by a dotted form.
        let jest = Manifest::new(["src/a.test.js > adds::one".to_owned()]);
        assert_eq!(jest.canonical("src.a.test.js > adds::one"), None);
        assert_eq!(m.canonical("no_separator"), None);
        assert_eq!(m.canonical("sealed.other::t"), None);
    }

    #[test]
    fn two_listed_node_ids_with_one_dotted_form_are_matched_exactly_only() {
        let m = Manifest::new(["a/b.py::c::d", "a/b/c.py::d", "a.b.py::x"].map(str::to_owned));
        assert_eq!(m.canonical("a.b.c::d"), None);
        assert_eq!(m.position("a/b/c.py::d"), Some(1));
        assert_eq!(
            m.key_collisions(),
            [("a/b.py::c::d".to_owned(), "a/b/c.py::d".to_owned())]
        );
        // A listed node id with a dot in its file name is matched by its own id only.
        assert_eq!(m.canonical("a.b::x"), None);
        assert_eq!(m.position("a.b.py::x"), Some(2));
    }

    #[test]
    fn a_node_id_with_a_dot_in_a_directory_or_file_name_never_stands_in() {
        // `tests.sealed/test_calc.py` and `sealed.test_calc.py` have the dotted forms of the
        // sealed `tests/sealed/test_calc.py` and `sealed/test_calc.py` (attack 35 finding 2).
        let m = Manifest::new(
            ["tests/sealed/test_calc.py::t", "sealed.test_calc::u"].map(str::to_owned),
        );
        assert_eq!(m.canonical("tests.sealed/test_calc.py::t"), None);
        assert_eq!(m.canonical("sealed.test_calc.py::u"), None);
        assert_eq!(
            m.canonical("sealed/test_calc.py::u"),
            Some((1, "sealed.test_calc::u"))
        );
        assert_eq!(
            m.canonical("tests.sealed.test_calc::t"),
            Some((0, "tests/sealed/test_calc.py::t"))
        );
    }

    #[test]
    fn repeats_must_be_seen_as_often_as_listed_and_missing_tests_keep_manifest_order() {
        let m = Manifest::new(["a", "b", "a", "c", "d"].iter().map(|s| (*s).to_owned()));
        assert_eq!(m.len(), 5);
        assert_eq!(
            (m.position("a"), m.position("c"), m.position("x")),
            (Some(0), Some(2), None)
        );
        // `a` is expected twice: seen once, it is missing once; seen three times, not at all.
        assert_eq!(m.missing(&[3, 0, 3, 99]), ["a", "b", "c"]);
        assert_eq!(m.missing(&[0, 0, 0, 1, 2, 3]), Vec::<String>::new());
        assert!(Manifest::new(Vec::new()).is_empty());
    }

    #[test]
    fn only_passes_beyond_the_multiplicity_are_surplus() {
        let m = Manifest::new([
            "a".to_owned(),
            "b".to_owned(),
            "b".to_owned(),
            "c".to_owned(),
        ]);
        // a: seen 3 times, 2 passes, 1 failure → 2 beyond, 2 passing: 2 surplus.
        // b: listed twice, seen twice → none. c: seen twice, both failing → none.
        let seen = [0, 0, 0, 1, 1, 2, 2];
        let passed = [0, 0, 1, 1];
        assert_eq!(m.surplus(&seen, &passed), vec![("a".to_owned(), 2)]);
        // a seen twice, one pass and one failure: the failure stands, the pass is surplus.
        assert_eq!(m.surplus(&[0, 0], &[0]), vec![("a".to_owned(), 1)]);
        assert!(m.surplus(&[0, 1, 1, 2], &[0, 1, 1, 2]).is_empty());
    }
}
