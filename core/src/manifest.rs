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
    ids: Vec<String>,
    index: HashMap<String, u32>,
}

impl Manifest {
    /// A manifest of these ids (repeats are listed once).
    pub fn new(ids: impl IntoIterator<Item = String>) -> Self {
        let mut m = Manifest::default();
        for id in ids {
            if !m.index.contains_key(&id) {
                let at = u32::try_from(m.ids.len()).unwrap_or(u32::MAX);
                m.index.insert(id.clone(), at);
                m.ids.push(id);
            }
        }
        m
    }

    /// Number of expected tests.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when no test is expected.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
    /// Where an expected test stands in the manifest; `None` for a test it does not list.
    pub(crate) fn position(&self, id: &str) -> Option<u32> {
        self.index.get(id).copied()
    }

    /// The expected tests whose positions are not among `seen`, in manifest order. Positions
    /// rather than ids are what tallies collect, so a merged tally compares numbers only.
    pub(crate) fn missing(&self, seen: &[u32]) -> Vec<String> {
        let mut found = vec![false; self.len()];
        for &i in seen {
            if let Some(s) = found.get_mut(i as usize) {
                *s = true;
            }
        }
        self.ids
            .iter()
            .zip(&found)
            .filter(|(_, found)| !**found)
            .map(|(id, _)| id.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_are_listed_once_and_missing_tests_keep_manifest_order() {
        let m = Manifest::new(["a", "b", "a", "c", "d"].iter().map(|s| (*s).to_owned()));
        assert_eq!(m.len(), 4);
        assert_eq!(
            (m.position("a"), m.position("c"), m.position("x")),
            (Some(0), Some(2), None)
        );
        // Seen twice, or out of order, or out of range: each still just marks a test as seen.
        assert_eq!(m.missing(&[3, 0, 3, 99]), ["b", "c"]);
        assert!(Manifest::new(Vec::new()).is_empty());
    }
}
