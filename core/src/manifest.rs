//! The manifest of expected sealed tests (a seal record's `expected_tests`). A [`Manifest`]
//! numbers the ids it lists; a tally records the number of each expected test it reads and
//! leaves unlisted tests out of the score, and after merging asks the manifest which expected
//! tests never appeared, to count each as failed.

use std::collections::HashMap;

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
                    m.ids.push(id);
                    m.times.push(1);
                }
            }
        }
        m
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

#[cfg(test)]
mod tests {
    use super::*;

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
