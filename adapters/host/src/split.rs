//! One large JUnit file read on several cores: the host's side of
//! [`gapscore_adapter_junit::parser::split`]. Only for the built-in JUnit adapter, a regular
//! UTF-8 file of at least [`SplitOptions::min_bytes`], a pool of more than one thread, and a
//! consumer that can take in the consumers of the file's later parts ([`AppendParts`]); the
//! events are the sequential read's, so the result is too.

use std::any::Any;
use std::fs::File;
use std::path::Path;

use gapscore_adapter_junit::parser::split::{
    Part, Split, find_split, find_splits, parse_split, total_tests_guess,
};
use gapscore_adapter_sdk::PathRoot;
use gapscore_adapter_sdk::{
    AdapterError, EventSink, Normalizer, Problem, Producer, TestCase, TestCaseRef,
};

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
/// ([`AppendParts::fits`]), but more parts are not measured to gain on more cores either
/// (the bench machine has two), so the default stays at two.
pub const MAX_PARTS: usize = 2;

/// How the consumers of one file's parts are put together: what the split read asks of them.
/// The caller fills it in for its consumer (the engine, for its scoring tally), so the host
/// needs no scoring crate; a consumer that cannot be appended is read through
/// [`ingest`](crate::ingest) instead.
pub struct AppendParts<C> {
    /// Whether parts of an input of about `tests` tests in all could be appended at all; when
    /// not, the input is read in one pass rather than in parts read and then dropped.
    pub fits: fn(tests: u64) -> bool,
    /// Whether appending each of `later` in order to `first` gives exactly what one consumer
    /// reading all the parts in order would hold.
    pub can_append: fn(first: &C, later: &[&C]) -> bool,
    /// Takes `later`, whose events came after `first`'s, into `first`.
    pub append: fn(first: &mut C, later: C),
}

// By hand: derived, they would ask `C: Clone`, where only function pointers are copied.
impl<C> Clone for AppendParts<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for AppendParts<C> {}

impl<C> std::fmt::Debug for AppendParts<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppendParts").finish_non_exhaustive()
    }
}

/// The offsets where a file's later parts start, increasing, each with the file opened for
/// that part, and the file's length.
#[derive(Debug)]
pub(crate) struct SplitPoints {
    points: Vec<(File, u64)>,
    len: u64,
}

/// The length of the regular file at `path` and the parts it is read in, when it is large
/// enough and the pool has more than one thread: the rule for the built-in's split read and a
/// plugin's offer alike. Only the file's metadata is read (batch scoring reads many small
/// files, none of them worth opening twice).
fn worth_parts(path: &Path, opts: &SplitOptions) -> Option<(u64, u64)> {
    let threads = rayon::current_num_threads();
    if threads < 2 {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    let len = meta.len();
    if !meta.is_file() || len < opts.min_bytes {
        return None;
    }
    let parts = match opts.parts {
        0 => (threads.min(MAX_PARTS) as u64).min(len / MIN_PART_BYTES),
        n => n as u64,
    };
    Some((len, parts))
}

/// The file a plugin is offered in parts.
#[derive(Debug)]
pub(crate) struct PartInput {
    /// A handle of its own on the file, read at any offset (`read_at`).
    pub(crate) file: File,
    /// The file's length.
    pub(crate) len: u64,
    /// The most parts, the first among them.
    pub(crate) parts: u32,
}

/// The file at `path` as a v2 plugin is offered it in parts, when it is worth reading in
/// more than one (the built-in's rule: [`SplitOptions`]).
pub(crate) fn part_input(path: &Path, opts: &SplitOptions) -> Option<PartInput> {
    let (len, parts) = worth_parts(path, opts)?;
    let parts = u32::try_from(parts).ok()?;
    if parts < 2 {
        return None;
    }
    let file = File::open(path).ok()?;
    Some(PartInput { file, len, parts })
}

/// The likely boundaries between top-level suites, when the file is worth splitting.
pub(crate) fn split_points(path: &Path, opts: &SplitOptions) -> Option<SplitPoints> {
    let (len, parts) = worth_parts(path, opts)?;
    let mut f = File::open(path).ok()?;
    let ats = match opts.at {
        Some(at) => find_split(&mut f, at).ok()?.into_iter().collect(),
        None => find_splits(&mut f, len, parts).ok()?,
    };
    let points = ats
        .into_iter()
        .map(|at| Some((File::open(path).ok()?, at)))
        .collect::<Option<Vec<_>>>()?;
    (!points.is_empty()).then_some(SplitPoints { points, len })
}

/// Reads `whole` (the file from its first byte) with the built-in JUnit adapter, the parts
/// from `points` on other threads when they are free; `make` builds each part's consumer.
pub(crate) fn read_split<C: EventSink + Send>(
    mut whole: &mut dyn std::io::BufRead,
    SplitPoints { points, len }: SplitPoints,
    append: AppendParts<C>,
    make: &dyn Fn() -> C,
    root: Option<&PathRoot>,
) -> Result<C, AdapterError> {
    let mut sink = Normalizer::new(make()).relative_to(root.cloned());
    let parts = points
        .into_iter()
        .map(|(file, at)| Part {
            file,
            at,
            sink: Normalizer::new(make()).relative_to(root.cloned()),
        })
        .collect();
    let can = |a: &Normalizer<C>, later: &[Normalizer<C>]| {
        can_append_parts(append, a, &later.iter().collect::<Vec<_>>())
    };
    let worth = |offset: u64, tests: u64| (append.fits)(total_tests_guess(tests, offset, len));
    if let Split::Appended(later) = parse_split(&mut whole, parts, &mut sink, &can, &worth)? {
        append_parts(append, &mut sink, later);
    }
    Ok(sink.finish())
}

/// Whether the consumers of `later`, in order, append exactly to `first`'s.
fn can_append_parts<C: EventSink>(
    append: AppendParts<C>,
    first: &Normalizer<C>,
    later: &[&Normalizer<C>],
) -> bool {
    let later: Vec<&C> = later.iter().map(|n| n.get_ref()).collect();
    (append.can_append)(first.get_ref(), &later)
}

/// Takes in `later`, in order: each normalizer, then its consumer.
fn append_parts<C: EventSink>(
    append: AppendParts<C>,
    sink: &mut Normalizer<C>,
    later: Vec<Normalizer<C>>,
) {
    for part in later {
        let rest = sink.append(part);
        (append.append)(sink.get_mut(), rest);
    }
}

/// A plugin's main sink when the host offers it parts (ABI v2, "Reading in parts"): the
/// plugin call cannot name the consumer's type, so it makes, checks and appends parts through
/// this.
pub(crate) trait PartedSink: EventSink {
    /// A fresh sink for a later part.
    fn part(&self) -> Box<dyn PartConsumer>;
    /// [`AppendParts::fits`] for an input of about `tests` tests.
    fn fits(&self, tests: u64) -> bool;
    /// [`AppendParts::can_append`] of the parts' consumers, in order.
    fn can_append(&self, later: &[&dyn PartConsumer]) -> bool;
    /// Takes in the parts, in order ([`PartedSink::can_append`] said yes); `false`, with
    /// nothing taken in, when one of them was not made by this sink's [`PartedSink::part`].
    fn append(&mut self, later: Vec<Box<dyn PartConsumer>>) -> bool;
}

/// A later part's sink, given back to the [`PartedSink`] that made it.
pub(crate) trait PartConsumer: EventSink + Send {
    fn as_any(&self) -> &dyn Any;
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<C: EventSink + Send + 'static> PartConsumer for Normalizer<C> {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// The consumer of a file a plugin reads, with what makes the consumers of its parts.
pub(crate) struct Parted<'m, C> {
    pub(crate) sink: Normalizer<C>,
    pub(crate) make: &'m (dyn Fn() -> C + Sync),
    pub(crate) append: AppendParts<C>,
    /// What each part's normalizer makes paths relative to.
    pub(crate) root: Option<PathRoot>,
}

impl<C: EventSink> EventSink for Parted<'_, C> {
    fn producer(&mut self, producer: Producer) {
        self.sink.producer(producer);
    }
    fn test_started(&mut self, suite: Option<&str>, name: &str, id: &str) {
        self.sink.test_started(suite, name, id);
    }
    fn test_finished(&mut self, test: TestCase) {
        self.sink.test_finished(test);
    }
    fn test_finished_ref(&mut self, test: TestCaseRef<'_>) {
        self.sink.test_finished_ref(test);
    }
    fn problem(&mut self, problem: Problem) {
        self.sink.problem(problem);
    }
    fn warning(&mut self, message: String) {
        self.sink.warning(message);
    }
    fn coded_warning(&mut self, code: gapscore_adapter_sdk::Code, message: String) {
        self.sink.coded_warning(code, message);
    }
}

impl<C: EventSink + Send + 'static> PartedSink for Parted<'_, C> {
    fn part(&self) -> Box<dyn PartConsumer> {
        Box::new(Normalizer::new((self.make)()).relative_to(self.root.clone()))
    }
    fn fits(&self, tests: u64) -> bool {
        (self.append.fits)(tests)
    }
    fn can_append(&self, later: &[&dyn PartConsumer]) -> bool {
        let later: Option<Vec<&Normalizer<C>>> = later
            .iter()
            .map(|p| p.as_any().downcast_ref::<Normalizer<C>>())
            .collect();
        later.is_some_and(|later| can_append_parts(self.append, &self.sink, &later))
    }
    fn append(&mut self, later: Vec<Box<dyn PartConsumer>>) -> bool {
        let later: Result<Vec<Normalizer<C>>, _> = later
            .into_iter()
            .map(|p| p.into_any().downcast::<Normalizer<C>>().map(|p| *p))
            .collect();
        let Ok(later) = later else {
            return false;
        };
        append_parts(self.append, &mut self.sink, later);
        true
    }
}
