//! Repeated test ids in bounded memory: [`DuplicateTracker`] keeps a fingerprint per id and
//! finds the repeated fingerprints at the end; [`IdFinder`] names the ids behind them on a
//! second look at the tests. The [`Tally`](crate::Tally) records every id it counts; `gapscore
//! parse` and the engine name the repeats. (In `gapscore-model` before its 0.3.0: scoring's
//! business, not the plugin boundary's.)

use std::collections::{HashMap, HashSet};

use gapscore_model::{EventSink, Problem, Producer, TestCase, TestCaseRef};

use repeats::repeated_in;

mod repeats;

/// Notices ids seen more than once. Keeps a 64-bit fingerprint per id (8 bytes per test) and
/// looks for repeats once, at the end: per test this is one push, where a hash set costs a
/// cache miss and about three times the memory at a million tests (its table doubles, and
/// briefly exists twice while it grows). Fingerprints are kept in chunks of at most 512 KiB,
/// so growing never copies or briefly doubles a large buffer either. The price is that
/// repeats are known as fingerprints; [`IdFinder`] names them, on a second look at the tests.
///
/// A tracker made with [`DuplicateTracker::bounded`] stops recording after a number of ids, so
/// that the memory of `gapscore score` does not grow with the number of passing tests; it then
/// says so ([`DuplicateTracker::stopped_after`]).
#[derive(Debug, Default, Clone)]
pub struct DuplicateTracker {
    chunks: Vec<Vec<u64>>,
    recorded: u64,
    limit: Option<u64>,
    stopped: bool,
}

/// The bound `gapscore score` uses: 2,097,152 ids, 16 MiB of fingerprints.
pub const DUPLICATE_CHECK_LIMIT: u64 = 1 << 21;

/// Fingerprints per chunk (512 KiB).
const CHUNK: usize = 1 << 16;

/// A fast, well-mixed 64-bit fingerprint: each 16-byte block is folded in with one
/// 64×64→128-bit multiply of its two words (one XORed with the state), whose halves are XORed
/// (as foldhash and wyhash do), into a state that starts from the length; the last block is
/// the input's last 16 bytes, overlapping the one before (the length is in the state, so this
/// loses nothing), and a last fold mixes the state. The multiply carries every bit of both words into every bit of the result; a plain
/// multiply only carries bits upwards, and the rotate-and-multiply used before these made ids
/// that differ in two places (`pkg.mod19.Cls::test_100`, `pkg.mod96.Cls::test_100`) collide
/// by the thousand, so every large file was read a second time to name duplicates it did not
/// have (the tests check such families of ids). Not collision-resistant against a chosen
/// input, which is fine here: a collision can only cost that second read, never add a warning
/// (the ids are compared), merge or drop a result. Half the multiplies of the word-at-a-time
/// fold this replaced, and no byte-by-byte tail: 4 ns an id where that took 12 (1M JUnit-style
/// ids, one core).
fn fingerprint(bytes: &[u8]) -> u64 {
    // Each has a byte ≥ 0x80, so no ASCII word XORed with one makes a zero factor.
    const K: [u64; 4] = [
        0x243f_6a88_85a3_08d3,
        0x1319_8a2e_0370_7344,
        0xa409_3822_299f_31d0,
        0x082e_fa98_ec4e_6c89,
    ];
    let fold = |a: u64, b: u64| {
        let m = u128::from(a) * u128::from(b);
        (m as u64) ^ ((m >> 64) as u64)
    };
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let len = bytes.len();
    // The length enters through a multiply: XORed in as it is, it cancelled against the data
    // (`"4"` and `"74"` shared a fingerprint).
    let mut h = fold(len as u64 ^ 0x9e37_79b9_7f4a_7c15, K[3]);
    if len <= 16 {
        let (a, b) = if len >= 8 {
            (word(0), word(len - 8))
        } else if len >= 4 {
            let half = |at: usize| {
                let mut w = [0u8; 4];
                w.copy_from_slice(&bytes[at..at + 4]);
                u64::from(u32::from_le_bytes(w))
            };
            (half(0), half(len - 4))
        } else if len > 0 {
            let byte = |at: usize| u64::from(bytes[at]);
            (byte(0) | byte(len / 2) << 8 | byte(len - 1) << 16, 0)
        } else {
            (0, 0)
        };
        h = fold(a ^ h ^ K[0], b ^ K[1]);
    } else {
        let mut at = 0;
        while len - at > 16 {
            h = fold(word(at) ^ h ^ K[0], word(at + 8) ^ K[1]);
            at += 16;
        }
        h = fold(word(len - 16) ^ h ^ K[2], word(len - 8) ^ K[3]);
    }
    fold(h, K[2])
}

impl DuplicateTracker {
    /// Records one occurrence of an id.
    pub fn record(&mut self, id: &str) {
        if self.limit.is_some_and(|l| self.recorded >= l) {
            self.stopped = true;
            return;
        }
        self.recorded += 1;
        let fp = fingerprint(id.as_bytes());
        match self.chunks.last_mut() {
            Some(c) if c.len() < CHUNK => {
                if c.len() == c.capacity() {
                    // Doubling, but never past a chunk (a chunk `merge` left with an odd
                    // capacity would otherwise overshoot).
                    c.reserve_exact((c.len() * 2).clamp(64, CHUNK) - c.len());
                }
                c.push(fp);
            }
            _ => {
                // The first chunk grows from small (most files hold few tests); later ones are
                // allocated whole.
                let mut c = Vec::with_capacity(if self.chunks.is_empty() { 64 } else { CHUNK });
                c.push(fp);
                self.chunks.push(c);
            }
        }
    }

    /// A tracker that records at most `limit` ids.
    pub fn bounded(limit: u64) -> Self {
        DuplicateTracker {
            limit: Some(limit),
            ..DuplicateTracker::default()
        }
    }

    /// The number of ids recorded, when some were not (the bound was reached).
    pub fn stopped_after(&self) -> Option<u64> {
        self.stopped.then_some(self.recorded)
    }

    /// Takes in another tracker's ids (another input file's), keeping them all: their memory
    /// is already spent. The bound then applies to the sum. A chunk that fits in the room left
    /// in the last one is copied there, so that the thousands of small trackers of a
    /// directory of small files end up in a few full chunks.
    pub fn merge(&mut self, other: DuplicateTracker) {
        self.recorded += other.recorded;
        self.stopped |= other.stopped;
        for mut c in other.chunks {
            match self.chunks.last_mut() {
                Some(last) if last.len() + c.len() <= CHUNK => {
                    let need = last.len() + c.len();
                    if need > last.capacity() {
                        let cap = need.max(last.capacity() * 2).min(CHUNK);
                        last.reserve_exact(cap - last.len());
                    }
                    last.extend_from_slice(&c);
                }
                _ => {
                    c.shrink_to_fit();
                    self.chunks.push(c);
                }
            }
        }
    }

    /// The fingerprints that were recorded more than once, ascending. The chunks are reordered
    /// in place (see `repeats.rs` for how); the search needs about 200 KiB of scratch memory at
    /// a million ids, never a combined copy.
    pub fn repeated(&mut self) -> Vec<u64> {
        repeated_in(&mut self.chunks)
    }
}

/// The fingerprint [`DuplicateTracker`] keeps for an id.
pub fn id_fingerprint(id: &str) -> u64 {
    fingerprint(id.as_bytes())
}

/// A sink that names the ids behind [`DuplicateTracker::repeated`]: it counts the tests whose
/// id has one of the given fingerprints and returns, in first-seen order, those seen more than
/// once (so a fingerprint shared by two different ids names neither).
#[derive(Debug, Default)]
pub struct IdFinder {
    wanted: HashSet<u64>,
    order: Vec<String>,
    counts: HashMap<String, usize>,
}

impl IdFinder {
    /// A finder for these fingerprints.
    pub fn new(wanted: &[u64]) -> Self {
        IdFinder {
            wanted: wanted.iter().copied().collect(),
            ..IdFinder::default()
        }
    }

    /// Counts one test id.
    pub fn see(&mut self, id: &str) {
        if !self.wanted.contains(&id_fingerprint(id)) {
            return;
        }
        match self.counts.get_mut(id) {
            Some(n) => *n += 1,
            None => {
                self.counts.insert(id.to_owned(), 1);
                self.order.push(id.to_owned());
            }
        }
    }

    /// Adds another finder's counts after this one's (the next input file's).
    pub fn merge(&mut self, other: IdFinder) {
        for id in other.order {
            let n = other.counts.get(&id).copied().unwrap_or(0);
            match self.counts.get_mut(&id) {
                Some(mine) => *mine += n,
                None => {
                    self.counts.insert(id.clone(), n);
                    self.order.push(id);
                }
            }
        }
    }

    /// Every wanted id seen, in first-seen order, with how often.
    pub fn seen(&self) -> impl Iterator<Item = (&str, usize)> {
        self.order
            .iter()
            .map(|id| (id.as_str(), self.counts.get(id).copied().unwrap_or(0)))
    }

    /// The ids seen more than once, in first-seen order, with their counts.
    pub fn into_repeated(self) -> Vec<(String, usize)> {
        let IdFinder { order, counts, .. } = self;
        order
            .into_iter()
            .filter_map(|id| {
                let n = counts.get(&id).copied().unwrap_or(0);
                (n > 1).then_some((id, n))
            })
            .collect()
    }
}

impl EventSink for IdFinder {
    fn producer(&mut self, _: Producer) {}
    fn test_finished(&mut self, test: TestCase) {
        self.see(&test.id);
    }
    fn test_finished_ref(&mut self, test: TestCaseRef<'_>) {
        self.see(test.id);
    }
    fn problem(&mut self, _: Problem) {}
    fn warning(&mut self, _: String) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_are_found_across_chunks_and_merged_trackers() {
        let mut a = DuplicateTracker::default();
        for i in 0..(CHUNK * 2 + 10) {
            a.record(&format!("t{i}"));
        }
        a.record("t5");
        a.record("t5");
        let mut b = DuplicateTracker::default();
        b.record(&format!("t{}", CHUNK + 3));
        b.record("only-b");
        a.merge(b);
        let mut want = vec![
            id_fingerprint("t5"),
            id_fingerprint(&format!("t{}", CHUNK + 3)),
        ];
        want.sort_unstable();
        assert_eq!(a.repeated(), want);
        // Asking again (the chunks are reordered by the first search) and recording more.
        assert_eq!(a.repeated(), want);
        a.record("only-b");
        want.push(id_fingerprint("only-b"));
        want.sort_unstable();
        assert_eq!(a.repeated(), want);
        assert!(a.chunks.iter().all(|c| c.capacity() <= CHUNK));
        assert!(DuplicateTracker::default().repeated().is_empty());
    }

    #[test]
    fn small_merged_trackers_share_chunks() {
        // A directory of a thousand small files: a tracker each, merged one by one.
        let mut all = DuplicateTracker::bounded(DUPLICATE_CHECK_LIMIT);
        for file in 0..1000 {
            let mut one = DuplicateTracker::bounded(DUPLICATE_CHECK_LIMIT);
            for test in 0..3 {
                one.record(&format!("file{file}::test{test}"));
            }
            if file == 999 {
                one.record("file0::test0");
            }
            all.merge(one);
        }
        assert_eq!(all.chunks.len(), 1);
        assert!(all.chunks[0].capacity() <= CHUNK);
        assert_eq!(all.repeated(), [id_fingerprint("file0::test0")]);
        assert_eq!(all.recorded, 3001);
        assert_eq!(all.stopped_after(), None);
    }

    #[test]
    fn ids_that_differ_in_two_places_do_not_collide() {
        // The shape of generated and real suites: numbered modules times numbered tests. The
        // fingerprint used before the last collided 1,600 times in the first 100,000 of these.
        let mut d = DuplicateTracker::default();
        for module in 1..=400 {
            for test in 0..500 {
                d.record(&format!("pkg.mod{module}.Cls::test_{test}"));
            }
        }
        assert_eq!(d.repeated(), Vec::<u64>::new());

        // Every id of every length to 40 that differs from a base in one or two places, by a
        // digit: none may share a fingerprint (at 64 bits, a chance collision among these
        // 328,041 ids has odds of 3 in 10^9).
        let mut fps = Vec::new();
        for len in 0..=40usize {
            let base: Vec<u8> = b"pkg.Mod.Cls::test_abcdefghijklmnopqrstuvwxyz"[..len].to_vec();
            fps.push(fingerprint(&base));
            for i in 0..len {
                for x in b'0'..=b'9' {
                    let mut one = base.clone();
                    one[i] = x;
                    fps.push(fingerprint(&one));
                    for j in i + 1..len {
                        for y in [b'1', b'4', b'7'] {
                            let mut two = one.clone();
                            two[j] = y;
                            fps.push(fingerprint(&two));
                        }
                    }
                }
            }
        }
        let n = fps.len();
        fps.sort_unstable();
        fps.dedup();
        assert_eq!(fps.len(), n);
        assert_eq!(n, 328_041);
    }

    #[test]
    fn fingerprints_spread_over_the_top_byte() {
        // The search for repeats splits the fingerprints by their top byte: a skewed split
        // would not be wrong, only slow (the tests of `repeats` cover that path).
        let mut per_byte = [0u32; 256];
        for module in 1..=400 {
            for test in 0..500 {
                let fp = id_fingerprint(&format!("pkg.mod{module}.Cls::test_{test}"));
                per_byte[(fp >> 56) as usize] += 1;
            }
        }
        // 781 expected in each; the standard deviation is 28.
        assert!(
            per_byte.iter().all(|&n| (650..=920).contains(&n)),
            "{per_byte:?}"
        );
    }

    #[test]
    fn a_bounded_tracker_stops_and_says_so() {
        let mut d = DuplicateTracker::bounded(3);
        for id in ["a", "b", "c"] {
            d.record(id);
        }
        assert_eq!(d.stopped_after(), None);
        d.record("a");
        assert_eq!(d.stopped_after(), Some(3));
        assert!(d.repeated().is_empty());
    }
}
