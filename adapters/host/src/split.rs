//! One large JUnit file read on several cores: the host's side of
//! [`gapscore_adapter_junit::parser::split`]. Only for the built-in JUnit adapter, a regular
//! UTF-8 file of at least [`SplitOptions::min_bytes`], a pool of more than one thread, and a
//! consumer that can take in the consumers of the file's later parts ([`Appendable`]); the
//! events are the sequential read's, so the result is too.

use std::fs::File;
use std::path::Path;

use gapscore_adapter_junit::parser::split::{Part, Split, find_split, parse_split};
use gapscore_adapter_sdk::{AdapterError, EventSink, Normalizer};
use gapscore_core::tally::Tally;

/// When and in how many parts a file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitOptions {
    /// Files smaller than this are read on one thread (more threads cost more than they save
    /// on a small file). `u64::MAX`: never.
    pub min_bytes: u64,
    /// Where to look for the one split point: this file offset, instead of evenly spaced ones
    /// (tests use it to try every boundary).
    pub at: Option<u64>,
    /// How many parts; 0: one per thread of the pool, at most [`MAX_PARTS`], none smaller
    /// than [`MIN_PART_BYTES`]. (More parts than threads would let a faster core read more of
    /// them, but each costs a consumer's memory and a merge: on two cores, four parts took
    /// 1.04 and three 1.23 of the time of two.)
    pub parts: usize,
}

impl Default for SplitOptions {
    fn default() -> Self {
        SplitOptions {
            min_bytes: 8 << 20,
            at: None,
            parts: 0,
        }
    }
}

/// The least bytes per part when [`SplitOptions::parts`] is 0.
pub const MIN_PART_BYTES: u64 = 4 << 20;

/// The most parts when [`SplitOptions::parts`] is 0. Each part holds a consumer until the
/// parts are appended, and on a file past the duplicate check's bound (2,097,152 ids) the parts
/// are read and then dropped (one pass is the only exact count), so every part's tally is held
/// at once: the kit's 1 GB JUnit file (5.85 million tests) peaked at 53 MiB in two parts and
/// 83 MiB in four, past the 64 MiB bound. Such a file is no longer split
/// ([`Appendable::may_append`]), but more parts are not measured to gain on more cores either
/// (the bench machine has two), so the default stays at two.
pub const MAX_PARTS: usize = 2;

/// A consumer that can take in the consumers of the rest of the same input, read separately.
pub trait Appendable: Sized {
    /// Whether [`Appendable::append`] of each of `later` in order gives exactly what one
    /// consumer reading all the parts in order would hold.
    fn can_append(&self, later: &[&Self]) -> bool;
    /// Takes in `later`, whose events came after this one's.
    fn append(&mut self, later: Self);
    /// Whether parts of an input of about `tests` tests in all could be appended at all; when
    /// not, the input is read in one pass rather than in parts read and then dropped.
    fn may_append(tests: u64) -> bool {
        let _ = tests;
        true
    }
}

impl Appendable for Tally {
    fn can_append(&self, later: &[&Self]) -> bool {
        Tally::can_append_all(self, later)
    }
    /// A tally refuses parts past the duplicate check's bound between them (see
    /// [`Tally::can_append_all`]).
    fn may_append(tests: u64) -> bool {
        tests <= gapscore_core::DUPLICATE_CHECK_LIMIT
    }
    fn append(&mut self, later: Self) {
        self.merge(later);
    }
}

/// The file offsets of likely boundaries between top-level suites, increasing, each with the
/// file opened for that part, and the file's length, when the file is worth splitting.
pub(crate) fn split_points(path: &Path, opts: &SplitOptions) -> Option<(Vec<(File, u64)>, u64)> {
    let threads = rayon::current_num_threads();
    let mut f = File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    if len < opts.min_bytes || threads < 2 {
        return None;
    }
    let froms: Vec<u64> = match opts.at {
        Some(at) => vec![at],
        None => {
            let wanted = match opts.parts {
                0 => (threads.min(MAX_PARTS) as u64).min(len / MIN_PART_BYTES),
                n => n as u64,
            };
            (1..wanted).map(|i| len / wanted * i).collect()
        }
    };
    let mut points: Vec<(File, u64)> = Vec::with_capacity(froms.len());
    for from in froms {
        let Some(at) = find_split(&mut f, from).ok()? else {
            continue;
        };
        if points.last().is_none_or(|(_, last)| *last < at) {
            points.push((File::open(path).ok()?, at));
        }
    }
    (!points.is_empty()).then_some((points, len))
}

/// Reads `whole` (the file from its first byte) with the built-in JUnit adapter, the parts
/// from `points` on other threads when they are free; `make` builds each part's consumer.
pub(crate) fn read_split<R: std::io::BufRead, C: EventSink + Send + Appendable>(
    whole: &mut R,
    points: Vec<(File, u64)>,
    len: u64,
    make: impl Fn() -> C,
) -> Result<C, AdapterError> {
    let mut sink = Normalizer::new(make());
    let parts = points
        .into_iter()
        .map(|(file, at)| Part {
            file,
            at,
            sink: Normalizer::new(make()),
        })
        .collect();
    let can = |a: &Normalizer<C>, later: &[Normalizer<C>]| {
        let later: Vec<&C> = later.iter().map(Normalizer::get_ref).collect();
        a.get_ref().can_append(&later)
    };
    // The tests in the whole file, guessed from the first top-level suite's share of its bytes.
    let worth = |offset: u64, tests: u64| {
        let guess = u128::from(tests) * u128::from(len) / u128::from(offset.max(1));
        C::may_append(u64::try_from(guess).unwrap_or(u64::MAX))
    };
    if let Split::Appended(later) = parse_split(whole, parts, &mut sink, &can, &worth)? {
        for part in later {
            let rest = sink.append(part);
            sink.get_mut().append(rest);
        }
    }
    Ok(sink.finish())
}
