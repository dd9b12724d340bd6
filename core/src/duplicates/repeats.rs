//! Finding the values that occur more than once among the chunks of fingerprints a
//! [`DuplicateTracker`](super::DuplicateTracker) keeps, without a combined copy of them.
//!
//! Fingerprints are uniform, so their top byte splits them into 256 even buckets, and a repeat
//! lies within one bucket. Each run of 8,192 values of a chunk is first put in top-byte order
//! (a counting sort through a 64 KiB scratch buffer, and back), keeping where each bucket
//! starts. Then bucket by bucket, the bucket's slice of every run is count-sorted by the next
//! bits into the scratch buffer (about one value per sub-bucket), an insertion sort finishes
//! the order, and a scan reports the equal neighbours. Every pass is sequential or within a
//! buffer of tens of KiB; all of it needs about 200 KiB besides the chunks at a million values.
//!
//! Measured (one core, thread CPU time, chunks of the tracker's size, on a loaded machine):
//! 1M JUnit-style ids in 8-10 ms, where sorting each chunk and merging them through a heap
//! took 44 ms; 595,700 TAP-style ids in 5-6 ms (was 25 ms); 2M in 17-23 ms (was 91 ms). In
//! the whole `gapscore score --sealed … --format json` (release build, share of `perf record`
//! CPU samples, 3 runs each, 2026-11-26), the tracker's part (fingerprints, pushes and this
//! search) fell from 7.4-9.4 % to 2.6-2.8 % on the kit's tap50.tap (595,700 tests) and from
//! 7.8-8.4 % to 2.3-2.9 % on junit1m.xml (1M); peak RSS on junit1m.xml 26.3-26.6 MiB before,
//! 26.4-26.7 after (GNU time).
//!
//! Skewed input stays correct and bounded: a bucket holding more than twice its share (one id
//! repeated 100,000 times) is searched the old way, by sorting its slice of each run in place
//! and merging those through a heap; an insertion sort that moves values too often (values
//! crafted to share a sub-bucket) hands over to `sort_unstable`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Values per run: each run of a chunk is put in top-byte order on its own, through a scratch
/// buffer of this size (64 KiB), and its bucket starts fit in `u16`.
const RUN: usize = 1 << 13;

/// The fewest values one bucket may be searched with through the scratch buffer, before the
/// heap takes over; the cap grows with the number of values, to twice an even bucket's share.
/// An even split of the 2,097,152 fingerprints `gapscore score` keeps gives 8,192 a bucket.
const BUCKET_CAP_MIN: usize = 1 << 14;

/// The most bits a bucket is split by in its second pass: 8,192 sub-buckets, 32 KiB of counts.
const SUB_BITS_MAX: u32 = 13;

/// Values that occur more than once across `chunks`, ascending, each once. Reorders the values
/// within each chunk; the values each chunk holds stay the same.
pub(super) fn repeated_in(chunks: &mut [Vec<u64>]) -> Vec<u64> {
    let mut buf: Vec<u64> = Vec::new();
    let mut starts: Vec<[u16; 257]> = Vec::new();
    let mut total = 0;
    for c in chunks.iter_mut() {
        total += c.len();
        for run in c.chunks_mut(RUN) {
            starts.push(sort_by_top_byte(run, &mut buf));
        }
    }
    let cap = BUCKET_CAP_MIN.max(total >> 7);
    let mut out = Vec::new();
    let mut count: Vec<u32> = Vec::new();
    let mut next: Vec<u32> = Vec::new();
    for top in 0..256 {
        let range = |s: &[u16; 257]| usize::from(s[top])..usize::from(s[top + 1]);
        // The bucket's slice of every run.
        let slices = || {
            chunks
                .iter()
                .flat_map(|c| c.chunks(RUN))
                .zip(&starts)
                .map(|(run, s)| &run[range(s)])
        };
        let n: usize = starts.iter().map(|s| range(s).len()).sum();
        if n < 2 {
            continue;
        }
        if n > cap {
            merge_bucket(chunks, &starts, top, &mut out);
            continue;
        }
        // Bits below the top byte, enough for about one value per sub-bucket.
        let bits = (usize::BITS - (n - 1).leading_zeros()).clamp(1, SUB_BITS_MAX);
        let shift = 56 - bits;
        let mask = (1u64 << bits) - 1;
        let sub = |v: u64| ((v >> shift) & mask) as usize;
        let subs = (1 << bits) + 1;
        if count.len() < subs {
            count.resize(subs, 0);
            next.resize(subs, 0);
        }
        let count = &mut count[..subs];
        count.fill(0);
        for slice in slices() {
            for &v in slice {
                count[sub(v) + 1] += 1;
            }
        }
        for k in 1..subs {
            count[k] += count[k - 1];
        }
        // Every place is written below (a permutation), so old contents do not matter.
        buf.truncate(n);
        buf.resize(n, 0);
        let next = &mut next[..subs];
        next.copy_from_slice(count);
        for slice in slices() {
            for &v in slice {
                let k = sub(v);
                buf[next[k] as usize] = v;
                next[k] += 1;
            }
        }
        finish_sort(&mut buf);
        push_repeats(&buf, &mut out);
    }
    out
}

/// Puts a run (at most [`RUN`] values) in order of its values' top byte, through `buf`.
/// Returns where each top byte's values start, and at 256, the end.
fn sort_by_top_byte(run: &mut [u64], buf: &mut Vec<u64>) -> [u16; 257] {
    let mut starts = [0u16; 257];
    for &v in run.iter() {
        starts[(v >> 56) as usize + 1] += 1;
    }
    for k in 1..257 {
        starts[k] += starts[k - 1];
    }
    buf.truncate(run.len());
    buf.resize(run.len(), 0);
    let mut next = starts;
    for &v in run.iter() {
        let k = (v >> 56) as usize;
        buf[usize::from(next[k])] = v;
        next[k] += 1;
    }
    run.copy_from_slice(buf);
    starts
}

/// Sorts values that are already in sub-bucket order, each sub-bucket holding a few: an
/// insertion sort moves each only within its sub-bucket. If the moves pass a budget of eight
/// per value (values crafted to share sub-buckets), `sort_unstable` finishes instead.
fn finish_sort(values: &mut [u64]) {
    let mut budget = 8 * values.len();
    for i in 1..values.len() {
        let v = values[i];
        let mut j = i;
        while j > 0 && values[j - 1] > v {
            values[j] = values[j - 1];
            j -= 1;
        }
        values[j] = v;
        budget = budget.saturating_sub(i - j);
        if budget == 0 {
            values.sort_unstable();
            return;
        }
    }
}

/// Adds to `out` each value that a sorted slice holds more than once (`out` is ascending and
/// holds only smaller values, or these same ones).
fn push_repeats(sorted: &[u64], out: &mut Vec<u64>) {
    for pair in sorted.windows(2) {
        if pair[0] == pair[1] && out.last() != Some(&pair[0]) {
            out.push(pair[0]);
        }
    }
}

/// The search for an oversized bucket (heavy repetition): its slice of each run is sorted in
/// place and the slices are merged through a heap, with no buffer beyond the heap.
fn merge_bucket(chunks: &mut [Vec<u64>], starts: &[[u16; 257]], top: usize, out: &mut Vec<u64>) {
    let mut slices: Vec<&[u64]> = Vec::with_capacity(starts.len());
    for (run, s) in chunks
        .iter_mut()
        .flat_map(|c| c.chunks_mut(RUN))
        .zip(starts)
    {
        let slice = &mut run[usize::from(s[top])..usize::from(s[top + 1])];
        slice.sort_unstable();
        slices.push(slice);
    }
    let mut heap: BinaryHeap<_> = slices
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.first().map(|&v| Reverse((v, i, 0))))
        .collect();
    let mut last = None;
    while let Some(Reverse((v, i, at))) = heap.pop() {
        if last == Some(v) && out.last() != Some(&v) {
            out.push(v);
        }
        last = Some(v);
        if let Some(&following) = slices[i].get(at + 1) {
            heap.push(Reverse((following, i, at + 1)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The answer by counting: what `repeated_in` must return.
    fn counted(chunks: &[Vec<u64>]) -> Vec<u64> {
        let mut counts: HashMap<u64, usize> = HashMap::new();
        for &v in chunks.iter().flatten() {
            *counts.entry(v).or_default() += 1;
        }
        let mut want: Vec<u64> = counts
            .into_iter()
            .filter_map(|(v, n)| (n > 1).then_some(v))
            .collect();
        want.sort_unstable();
        want
    }

    /// Checks `repeated_in` against counting, and that each chunk keeps its values.
    fn check(mut chunks: Vec<Vec<u64>>) {
        let want = counted(&chunks);
        let mut before: Vec<Vec<u64>> = chunks.clone();
        for c in &mut before {
            c.sort_unstable();
        }
        let got = repeated_in(&mut chunks);
        assert_eq!(got, want);
        for (c, b) in chunks.iter_mut().zip(&before) {
            c.sort_unstable();
            assert_eq!(c, b);
        }
    }

    /// SplitMix64: a seeded, reproducible source of uniform values.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    #[test]
    fn random_chunks_with_planted_repeats_match_a_count() {
        let mut rng = Rng(22);
        for case in 0..200 {
            // A pool of values each drawn several times plants repeats within and across
            // chunks; some cases draw the pool from one top byte, or from a handful of values.
            let pool_size = 1 + rng.below(if case % 7 == 0 { 4 } else { 400 });
            let one_top = case % 5 == 0;
            let pool: Vec<u64> = (0..pool_size)
                .map(|_| {
                    let v = rng.next();
                    if one_top { v & (u64::MAX >> 8) } else { v }
                })
                .collect();
            let chunks: Vec<Vec<u64>> = (0..rng.below(12))
                .map(|_| {
                    let len = match rng.below(4) {
                        0 => 0,
                        1 => rng.below(3),
                        _ => rng.below(2000),
                    };
                    (0..len)
                        .map(|_| {
                            if rng.below(3) == 0 {
                                pool[rng.below(pool_size) as usize]
                            } else {
                                rng.next()
                            }
                        })
                        .collect()
                })
                .collect();
            check(chunks);
        }
    }

    #[test]
    fn edge_shapes_match_a_count() {
        check(Vec::new());
        check(vec![Vec::new(), Vec::new()]);
        check(vec![vec![7]]);
        check(vec![vec![7], vec![7]]);
        check(vec![vec![0, u64::MAX, 0], vec![u64::MAX]]);
        // All equal, in one chunk and spread over many.
        check(vec![vec![42; 5000]]);
        check((0..50).map(|_| vec![42; 100]).collect());
        // Every value of one bucket once, then again in another chunk: all repeat.
        let distinct: Vec<u64> = (0..4000u64).map(|i| (3 << 56) | (i << 20)).collect();
        let mut shuffled = distinct.clone();
        shuffled.reverse();
        check(vec![distinct, Vec::new(), shuffled]);
        // Chunks of several runs, with repeats within a run, across runs and across chunks.
        let mut rng = Rng(3);
        let mut long: Vec<u64> = (0..20_000).map(|_| rng.next()).collect();
        long[9000] = long[100];
        long[19_999] = long[RUN - 1];
        long[RUN] = long[RUN + 1];
        let mut other: Vec<u64> = (0..RUN + 1).map(|_| rng.next()).collect();
        other[RUN] = long[15_000];
        check(vec![long, other]);
    }

    #[test]
    fn a_bucket_over_the_cap_is_merged_in_place() {
        // One id repeated 60,000 times, beside ordinary values: the bucket it falls in is
        // searched through the heap.
        let mut rng = Rng(7);
        let heavy = 0x5555_0000_0000_0001;
        let mut chunks: Vec<Vec<u64>> = Vec::new();
        for _ in 0..3 {
            let mut c: Vec<u64> = (0..20_000).map(|_| heavy).collect();
            c.extend((0..20_000).map(|_| rng.next()));
            chunks.push(c);
        }
        // And a repeat sharing the heavy bucket, and one outside it.
        chunks[0].push(0x5500_0000_0000_0009);
        chunks[2].push(0x5500_0000_0000_0009);
        chunks[1].push(0x1000_0000_0000_0000);
        chunks[2].push(0x1000_0000_0000_0000);
        let n = chunks
            .iter()
            .flatten()
            .filter(|&&v| v >> 56 == 0x55)
            .count();
        let total: usize = chunks.iter().map(Vec::len).sum();
        assert!(n > BUCKET_CAP_MIN.max(total >> 7));
        check(chunks);
    }

    #[test]
    fn values_crafted_into_one_sub_bucket_are_still_sorted() {
        // Distinct values sharing their top 8 + 13 bits, in descending order: the insertion
        // sort would be quadratic; its budget hands over to `sort_unstable`.
        let base = 0x77u64 << 56 | 0x0abc << 43;
        let mut c: Vec<u64> = (0..6000u64).rev().map(|i| base | (i * 3)).collect();
        c.push(base | 300);
        c.push(base | (5999 * 3));
        check(vec![c.clone()]);
        let mut values = c;
        finish_sort(&mut values);
        assert!(values.windows(2).all(|w| w[0] <= w[1]));
    }
}
