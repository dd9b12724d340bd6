//! One large JUnit file read on two cores: the host's side of
//! [`gapscore_adapter_junit::parser::split`]. Only for the built-in JUnit adapter, a regular
//! UTF-8 file of at least [`SplitOptions::min_bytes`], and a consumer that can take in the
//! consumer of the file's second half ([`Appendable`]); the events are the sequential read's,
//! so the result is too.

use std::fs::File;
use std::path::Path;

use gapscore_adapter_junit::parser::split::{Split, find_split, parse_split, parse_split_waiting};
use gapscore_adapter_sdk::{AdapterError, EventSink, Normalizer};
use gapscore_core::tally::Tally;

/// When a file is read in two halves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitOptions {
    /// Files smaller than this are read on one thread (a second thread costs more than it
    /// saves on a small file). `u64::MAX`: never.
    pub min_bytes: u64,
    /// Where to look for the split point: this file offset, instead of the middle (tests use
    /// it to try every boundary).
    pub at: Option<u64>,
    /// The first half waits for the second to start instead of reading on alone when no
    /// worker has picked it up yet: for tests, which must see both halves read whatever the
    /// machine's load. Ignored on a pool of one thread, where nothing else could start it.
    pub wait_for_second: bool,
}

impl Default for SplitOptions {
    fn default() -> Self {
        SplitOptions {
            min_bytes: 8 << 20,
            at: None,
            wait_for_second: false,
        }
    }
}

/// A consumer that can take in the consumer of the rest of the same input, read separately.
pub trait Appendable: Sized {
    /// Whether [`Appendable::append`] gives exactly what one consumer reading both parts in
    /// order would hold.
    fn can_append(&self, later: &Self) -> bool;
    /// Takes in `later`, whose events came after this one's.
    fn append(&mut self, later: Self);
}

impl Appendable for Tally {
    fn can_append(&self, later: &Self) -> bool {
        Tally::can_append(self, later)
    }
    fn append(&mut self, later: Self) {
        self.merge(later);
    }
}

/// The file offset of a likely boundary between top-level suites, when the file is worth
/// splitting; with the file opened for the second half.
pub(crate) fn split_point(path: &Path, opts: &SplitOptions) -> Option<(File, u64)> {
    let mut f = File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    if len < opts.min_bytes {
        return None;
    }
    let from = opts.at.unwrap_or(len / 2);
    let at = find_split(&mut f, from).ok()??;
    Some((f, at))
}

/// Reads `whole` (the file from its first byte) with the built-in JUnit adapter, the part
/// from `at` on a second thread when one is free; `make` builds each half's consumer.
pub(crate) fn read_split<C: EventSink + Send + Appendable>(
    whole: &mut dyn std::io::BufRead,
    tail: File,
    at: u64,
    wait: bool,
    make: impl Fn() -> C,
) -> Result<C, AdapterError> {
    let mut sink = Normalizer::new(make());
    let later = Normalizer::new(make());
    let can = |a: &Normalizer<C>, b: &Normalizer<C>| a.get_ref().can_append(b.get_ref());
    let read = if wait && rayon::current_num_threads() > 1 {
        parse_split_waiting
    } else {
        parse_split
    };
    if let Split::Appended(later) = read(whole, tail, at, &mut sink, later, &can)? {
        let rest = sink.append(later);
        sink.get_mut().append(rest);
    }
    Ok(sink.finish())
}
