//! Reading one large JUnit file on two threads, with the result of reading it on one.
//!
//! The file is cut at a guess: a `</testsuite>` followed by `<testsuite` near its middle
//! ([`find_split`]). The first half (A) is read as always, on the caller's thread. After A's
//! first top-level suite, its carried state (`Boundary`: the producer, the root's declared
//! total, the once-per-file flags) is what the second half (B) starts from: B reads from the
//! guess on its own file handle, into its own sink, on a rayon worker if one is free. When A
//! reaches the guess it checks that it is exactly there (an event starts at that byte), between
//! top-level suites (depth 1, nothing open or held back) and in the state B started from. Only
//! then is B's sink the rest of the result; otherwise (the guess was in a comment, CDATA, a
//! nested suite, or the state changed) A reads on to the end and B's work is dropped. B never
//! starts once A has passed the guess, so with no free core the cost is the sequential one.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::mpsc;

use gapscore_adapter_sdk::{AdapterError, EventSink};

use super::pass::{Pass, Step, Until};
use super::{Boundary, Ending, Reading};

/// How far past the point asked for [`find_split`] looks for a boundary.
const SEARCH_WINDOW: u64 = 4 << 20;

/// The file offset of a `<testsuite` that follows a `</testsuite>` (and optional whitespace),
/// first at or after `from`, within `SEARCH_WINDOW` (4 MiB): a guess at a boundary between
/// top-level suites, which [`parse_split`] checks.
pub fn find_split(file: &mut File, from: u64) -> std::io::Result<Option<u64>> {
    file.seek(SeekFrom::Start(from))?;
    let mut window = Vec::new();
    file.take(SEARCH_WINDOW).read_to_end(&mut window)?;
    let close = b"</testsuite>";
    for at in memchr::memmem::find_iter(&window, close) {
        let rest = &window[at + close.len()..];
        let ws = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let open = &rest[ws..];
        if open.starts_with(b"<testsuite")
            && open
                .get(b"<testsuite".len())
                .is_some_and(|b| b.is_ascii_whitespace() || *b == b'>' || *b == b'/')
        {
            return Ok(Some(from + (at + close.len() + ws) as u64));
        }
    }
    Ok(None)
}

/// How a split read ended.
#[derive(Debug)]
pub enum Split<S> {
    /// B's sink holds the rest of the file's events, to be appended after the first sink's.
    Appended(S),
    /// The first sink holds every event: the guess did not hold, B had not started, or
    /// `appendable` refused B's sink.
    Sequential(Fallback),
}

/// Why a split read was read on one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// UTF-16, a guess before the first suite's end, or the file ended before it.
    NotSplittable,
    /// A was not exactly at the guess, between top-level suites, in B's starting state.
    GuessDidNotHold,
    /// No worker had picked B up when A reached the guess.
    NotStarted,
    /// `appendable` refused B's sink.
    NotAppendable,
    /// B's read failed: A reads on alone, so the error and its place are the one-pass read's
    /// (B's decoder places some errors differently; found by the `junit_split` fuzz target).
    TailFailed,
}

const PENDING: u8 = 0;
const RUNNING: u8 = 1;
const CANCELLED: u8 = 2;

/// What B sends back: how its read ended and its sink.
type Half<S> = (Result<Option<Ending>, AdapterError>, S);

/// Reads the JUnit document in `whole` (from its first byte, as [`super::parse_reader`]
/// would) with the part from file offset `at` read by a second reader over `tail` (the same
/// file) into `sink_b`. The events in `sink_a`, then (when [`Split::Appended`]) those of the
/// returned sink, are the events [`super::parse_reader`] gives; an error is its error.
/// `appendable(a, b)` says whether the caller can put the two sinks together exactly.
pub fn parse_split<S: EventSink + Send>(
    whole: &mut dyn BufRead,
    tail: File,
    at: u64,
    sink_a: &mut S,
    sink_b: S,
    appendable: &dyn Fn(&S, &S) -> bool,
) -> Result<Split<S>, AdapterError> {
    split_read(whole, tail, at, sink_a, sink_b, appendable, false)
}

/// [`parse_split`], but A waits for B to start rather than going on alone: for tests, which
/// must see both halves read whatever the machine's load (B must be able to start: a free
/// rayon worker).
#[doc(hidden)]
pub fn parse_split_waiting<S: EventSink + Send>(
    whole: &mut dyn BufRead,
    tail: File,
    at: u64,
    sink_a: &mut S,
    sink_b: S,
    appendable: &dyn Fn(&S, &S) -> bool,
) -> Result<Split<S>, AdapterError> {
    split_read(whole, tail, at, sink_a, sink_b, appendable, true)
}

fn split_read<S: EventSink + Send>(
    whole: &mut dyn BufRead,
    tail: File,
    at: u64,
    sink_a: &mut S,
    sink_b: S,
    appendable: &dyn Fn(&S, &S) -> bool,
    wait: bool,
) -> Result<Split<S>, AdapterError> {
    let head = whole
        .fill_buf()
        .map_err(|e| AdapterError::Read(e.to_string()))?;
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        super::parse_reader(whole, sink_a)?;
        return Ok(Split::Sequential(Fallback::NotSplittable));
    }
    let bom = if head.starts_with(&[0xEF, 0xBB, 0xBF]) {
        whole.consume(3);
        3
    } else {
        0
    };
    // Offsets below are in the stream after the byte-order mark, as the sequential reader's.
    let at = at.saturating_sub(bom);
    let mut a = Pass::new(whole, Reading::new(sink_a), 0);
    if a.run(Until::FirstSuiteEnd)? == Step::Done {
        let (ending, sink) = a.end();
        ending.close(sink);
        return Ok(Split::Sequential(Fallback::NotSplittable));
    }
    let start = match a.reading().boundary() {
        Some(b) if a.offset() < at => b,
        _ => return sequential(a, Fallback::NotSplittable),
    };
    let mut root = Vec::with_capacity(a.root_name().len() + 2);
    root.push(b'<');
    root.extend_from_slice(a.root_name());
    root.push(b'>');
    let Some(base) = at.checked_sub(root.len() as u64) else {
        return sequential(a, Fallback::NotSplittable);
    };
    let state = AtomicU8::new(PENDING);
    let stop = AtomicBool::new(false);
    let (send, receive) = mpsc::channel::<Half<S>>();
    let tail_at = at + bom;
    rayon::in_place_scope(|scope| {
        let (state, stop, start) = (&state, &stop, &start);
        scope.spawn(move |_| {
            if state
                .compare_exchange(PENDING, RUNNING, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                return;
            }
            let mut sink_b = sink_b;
            let result = read_tail(tail, tail_at, root, base, start, stop, &mut sink_b);
            // A waits for this only when it went no further; otherwise nobody listens.
            let _ = send.send((result, sink_b));
        });
        // From here on, whatever way A goes on alone, B is told to stop.
        let alone = |a, why| {
            stop.store(true, Ordering::Relaxed);
            sequential(a, why)
        };
        let step = a
            .run(Until::Offset(at))
            .inspect_err(|_| stop.store(true, Ordering::Relaxed))?;
        if step == Step::Done {
            stop.store(true, Ordering::Relaxed);
            let (ending, sink) = a.end();
            ending.close(sink);
            return Ok(Split::Sequential(Fallback::GuessDidNotHold));
        }
        let holds =
            a.offset() == at && a.depth() == 1 && a.reading().boundary().as_ref() == Some(start);
        if !holds {
            return alone(a, Fallback::GuessDidNotHold);
        }
        if !wait
            && state
                .compare_exchange(PENDING, CANCELLED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            return sequential(a, Fallback::NotStarted);
        }
        // B ended without a word when it panicked; the scope passes the panic on.
        let Ok((result, mut sink_b)) = receive.recv() else {
            return sequential(a, Fallback::NotStarted);
        };
        let tail_end = match result {
            Ok(Some(end)) => end,
            Ok(None) => return sequential(a, Fallback::NotStarted),
            // An error is rare and its place must be the one-pass read's: A reads on alone.
            Err(_) => return sequential(a, Fallback::TailFailed),
        };
        if !appendable(a.sink(), &sink_b) {
            return sequential(a, Fallback::NotAppendable);
        }
        // Nothing is held back at a boundary: ending A delivers nothing more.
        let (head_end, _) = a.end();
        let ending = Ending {
            producer: tail_end.producer,
            root_declared: tail_end.root_declared,
            root_held: head_end.root_held + tail_end.root_held,
            any_pseudo: head_end.any_pseudo || tail_end.any_pseudo,
        };
        ending.close(&mut sink_b);
        Ok(Split::Appended(sink_b))
    })
}

/// A reads on to the end alone.
fn sequential<R: BufRead, S: EventSink>(
    mut a: Pass<'_, R, S>,
    why: Fallback,
) -> Result<Split<S>, AdapterError> {
    if a.run(Until::End)? == Step::Done {
        let (ending, sink) = a.end();
        ending.close(sink);
    }
    Ok(Split::Sequential(why))
}

/// B: reads the file from `at` as the rest of a document whose root is `root` (a made-up
/// start tag, so closing tags are checked as in one pass), from the carried state.
/// `Ok(None)` when stopped.
fn read_tail<S: EventSink>(
    mut tail: File,
    at: u64,
    root: Vec<u8>,
    base: u64,
    start: &Boundary,
    stop: &AtomicBool,
    sink: &mut S,
) -> Result<Option<Ending>, AdapterError> {
    tail.seek(SeekFrom::Start(at))
        .map_err(|e| AdapterError::Read(e.to_string()))?;
    let source = BufReader::with_capacity(64 * 1024, std::io::Cursor::new(root).chain(tail));
    let mut b = Pass::new(source, Reading::resume(sink, start), base).with_stop(stop);
    if !b.skip_root() || b.run(Until::End)? == Step::Paused {
        return Ok(None);
    }
    let (ending, _) = b.end();
    Ok(Some(ending))
}
