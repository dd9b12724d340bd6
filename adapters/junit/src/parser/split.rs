//! Reading one large JUnit file on several threads, with the result of reading it on one.
//!
//! The file is cut at guesses: a `</testsuite>` followed by `<testsuite` near each of a few
//! evenly spaced offsets ([`find_split`]). The first part is read as always, on the caller's
//! thread (A). After A's first top-level suite, its carried state (`Boundary`: the producer,
//! the root's declared total, the once-per-file flags) is what every later part starts from:
//! each is read from its guess to the next on its own file handle, into its own sink, by
//! whichever thread claims it first: a rayon worker, or A. A reads on through every part that
//! no other thread has started when it gets there, as its one pass (with no free core, the file
//! is read in one pass and nothing is appended); after the first part another thread took, A
//! reads the parts still left as parts of their own. A part that stops at the next guess
//! checks that it is exactly there (an event starts at that byte), between top-level suites
//! (depth 1, nothing open or held back) and in the state it started from; A checks the same
//! where it stops. Only when every part held and read without an error are the parts' sinks
//! the rest of the result; otherwise (a guess in a comment, CDATA, a nested suite, a state that
//! changed, an error) A reads on alone from where it stopped to the end and the parts' work is
//! dropped, so the events, and an error and its place, are always the one-pass read's.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

use gapscore_adapter_sdk::abi::parts::Parts;
use gapscore_adapter_sdk::{AdapterError, EventSink};

use super::pass::{Pass, Step, Until};
use super::{Boundary, Ending, Reading};

/// How far past the point asked for [`find_split`] looks for a boundary.
const SEARCH_WINDOW: u64 = 4 << 20;

/// The file offset of a `<testsuite` that follows a `</testsuite>` (and optional whitespace),
/// first at or after `from`, within `SEARCH_WINDOW` (4 MiB): a guess at a boundary between
/// top-level suites, which [`parse_split`] checks. The window is read 64 KiB at a time as far
/// as the search needs (a boundary is usually within a few KiB): reading all 4 MiB up front
/// cost the first part's thread a few milliseconds before any thread could start.
pub fn find_split<F: Read + Seek>(file: &mut F, from: u64) -> std::io::Result<Option<u64>> {
    find_split_by(file, from, 64 << 10)
}

/// The boundary guesses ([`find_split`]) near `wanted - 1` evenly spaced offsets of a file of
/// `len` bytes, increasing, none twice: where a file read in `wanted` parts is cut.
pub fn find_splits<F: Read + Seek>(
    file: &mut F,
    len: u64,
    wanted: u64,
) -> std::io::Result<Vec<u64>> {
    let mut points: Vec<u64> = Vec::new();
    for i in 1..wanted {
        if let Some(at) = find_split(file, len / wanted * i)?
            && points.last().is_none_or(|last| *last < at)
        {
            points.push(at);
        }
    }
    Ok(points)
}

/// [`find_split`], reading `step` bytes at a time.
fn find_split_by<F: Read + Seek>(
    file: &mut F,
    from: u64,
    step: u64,
) -> std::io::Result<Option<u64>> {
    file.seek(SeekFrom::Start(from))?;
    let mut window = Vec::new();
    let mut source = file.take(SEARCH_WINDOW);
    let mut searched = 0;
    loop {
        let read = (&mut source).take(step).read_to_end(&mut window)?;
        let complete = read == 0;
        match find_boundary(&window, searched, complete) {
            Found::At(at) => return Ok(Some(from + at as u64)),
            Found::NotYet(next) if !complete => searched = next,
            Found::NotYet(_) => return Ok(None),
        }
    }
}

/// What [`find_boundary`] found.
enum Found {
    /// The offset of the `<testsuite`.
    At(usize),
    /// None in the window; look again from this offset once more is read.
    NotYet(usize),
}

/// The first `</testsuite>`, whitespace, `<testsuite` in `window` whose `</testsuite>` starts
/// at or after `from`. Unless the window is `complete`, a candidate that runs to the window's
/// end is left undecided (more bytes could make it a boundary), and so is everything after it,
/// so that the result is the one a search of the whole window gives.
fn find_boundary(window: &[u8], from: usize, complete: bool) -> Found {
    let close = b"</testsuite>";
    let open = b"<testsuite";
    for at in memchr::memmem::find_iter(&window[from..], close).map(|at| from + at) {
        let rest = &window[at + close.len()..];
        let ws = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let next = &rest[ws..];
        if next.len() <= open.len() && !complete {
            return Found::NotYet(at);
        }
        if next.starts_with(open)
            && next
                .get(open.len())
                .is_some_and(|b| b.is_ascii_whitespace() || *b == b'>' || *b == b'/')
        {
            return Found::At(at + close.len() + ws);
        }
    }
    // A `</testsuite>` cut at the window's end is searched again with the next bytes.
    Found::NotYet(window.len().saturating_sub(close.len() - 1).max(from))
}

/// Reads the document in `whole` (from its first byte) in the parts a plugin's host offers
/// ([`Parts`]: the plugin build of this adapter): the same cuts, reads and checks as the
/// built-in's, with the parts' events going to the host's part tables and the host deciding
/// whether they append exactly.
pub fn parse_offered(
    mut whole: &mut dyn BufRead,
    sink: &mut dyn EventSink,
    offer: &Parts<'_>,
) -> Result<(), AdapterError> {
    let len = offer.input_len();
    let points = find_splits(&mut offer.reader_at(0), len, offer.max() as u64).unwrap_or_default();
    let mut parts = Vec::with_capacity(points.len());
    for at in points {
        // A host that takes fewer parts: the last part opened reads on to the end.
        let Some(sink) = offer.open() else { break };
        parts.push(Part {
            file: offer.reader_at(at),
            at,
            sink,
        });
    }
    if parts.is_empty() {
        return super::parse_reader(whole, sink);
    }
    let worth = |offset: u64, tests: u64| offer.fit(total_tests_guess(tests, offset, len));
    if let Split::Appended(later) = parse_split(
        &mut whole,
        parts,
        sink,
        &|_, later| offer.check(later),
        &worth,
    )? {
        // Checked just before, so the host takes them; if it did not, it has stopped the
        // parse and reports why, whatever this returns.
        offer.append(later);
    }
    Ok(())
}

/// The tests in a file of `len` bytes, guessed from its first top-level suite, which ends at
/// `offset` and holds `tests`: what [`parse_split`]'s `worth` is asked to judge.
pub fn total_tests_guess(tests: u64, offset: u64, len: u64) -> u64 {
    let guess = u128::from(tests) * u128::from(len) / u128::from(offset.max(1));
    u64::try_from(guess).unwrap_or(u64::MAX)
}

/// A later part of the file: read from `at` (a [`find_split`] guess) to the next part's `at`,
/// or to the end, over its own handle `file`, into `sink`.
#[derive(Debug)]
pub struct Part<S, F = File> {
    /// A handle of its own on the file (or anything read from any offset, like a plugin's
    /// view of its host's file).
    pub file: F,
    /// Where the part begins: a byte offset in the file.
    pub at: u64,
    /// Where the part's events go.
    pub sink: S,
}

/// How a split read ended.
#[derive(Debug)]
pub enum Split<S> {
    /// The parts' sinks hold the rest of the file's events, in order, to be appended after
    /// the first sink's.
    Appended(Vec<S>),
    /// The first sink holds every event: a guess did not hold, a part failed, or
    /// `appendable` refused the parts' sinks.
    Sequential(Fallback),
}

/// Why a split read was read on one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// UTF-16, a guess before the first suite's end, or the file ended before it.
    NotSplittable,
    /// A part (A's or a later one) did not end exactly at the next guess, between top-level
    /// suites, in the state the parts started from.
    GuessDidNotHold,
    /// No other thread had started a later part when A reached it: A read them all itself.
    NotStarted,
    /// `appendable` refused the parts' sinks.
    NotAppendable,
    /// A later part's read failed: A reads on alone, so the error and its place are the
    /// one-pass read's (a part's decoder places some errors differently; found by the
    /// `junit_split` fuzz target).
    TailFailed,
}

/// How a later part's read ended.
enum PartEnd {
    /// At the next guess in the starting state, or at the end of the document (the last part).
    Held(Box<Ending>),
    /// Not exactly at the next guess or not in the starting state there; the document ended
    /// before it; or stopped because another part went wrong.
    DidNotHold,
    /// An error.
    Failed,
}

/// Reads the JUnit document in `whole` (from its first byte, as [`super::parse_reader`]
/// would), with the file from each of `parts`' offsets (increasing) read by a reader of its
/// own into the part's sink. The events in `sink_a`, then (when [`Split::Appended`]) those of
/// the returned sinks in order, are the events [`super::parse_reader`] gives; an error is its
/// error. `appendable(a, later)` says whether the caller can put the sinks together exactly;
/// `worth(offset, tests)`, asked after the first top-level suite (which ends at `offset` and
/// holds `tests`), whether the parts are worth reading at all: a caller that will refuse parts
/// holding too many tests between them says no for a file that looks that large, rather than
/// have every part read and held, then dropped.
pub fn parse_split<R, A, S, F>(
    whole: &mut R,
    parts: Vec<Part<S, F>>,
    sink_a: &mut A,
    appendable: &dyn Fn(&A, &[S]) -> bool,
    worth: &dyn Fn(u64, u64) -> bool,
) -> Result<Split<S>, AdapterError>
where
    R: BufRead,
    A: EventSink + ?Sized,
    S: EventSink + Send,
    F: Read + Seek + Send,
{
    split_read(whole, parts, sink_a, appendable, worth, true)
}

/// [`parse_split`], but A never reads a later part in its own pass: every part is read as a
/// part, whatever the machine's load; for tests, which must see the parts appended.
#[doc(hidden)]
pub fn parse_split_in_parts<R, A, S, F>(
    whole: &mut R,
    parts: Vec<Part<S, F>>,
    sink_a: &mut A,
    appendable: &dyn Fn(&A, &[S]) -> bool,
) -> Result<Split<S>, AdapterError>
where
    R: BufRead,
    A: EventSink + ?Sized,
    S: EventSink + Send,
    F: Read + Seek + Send,
{
    split_read(whole, parts, sink_a, appendable, &|_, _| true, false)
}

fn split_read<R, A, S, F>(
    whole: &mut R,
    parts: Vec<Part<S, F>>,
    sink_a: &mut A,
    appendable: &dyn Fn(&A, &[S]) -> bool,
    worth: &dyn Fn(u64, u64) -> bool,
    absorb: bool,
) -> Result<Split<S>, AdapterError>
where
    R: BufRead,
    A: EventSink + ?Sized,
    S: EventSink + Send,
    F: Read + Seek + Send,
{
    let head = whole.fill_buf().map_err(AdapterError::io)?;
    let increasing = parts.windows(2).all(|w| w[0].at < w[1].at);
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) || !increasing {
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
    let ats: Vec<u64> = parts.iter().map(|p| p.at.saturating_sub(bom)).collect();
    let mut a = Pass::new(whole, Reading::new(sink_a), 0);
    if a.run(Until::FirstSuiteEnd)? == Step::Done {
        let (ending, sink) = a.end();
        ending.close(sink);
        return Ok(Split::Sequential(Fallback::NotSplittable));
    }
    let Some(&first) = ats.first() else {
        return sequential(a, Fallback::NotSplittable);
    };
    let start = match a.reading().boundary() {
        Some(b) if a.offset() < first && worth(a.offset(), a.reading().root_held.tests) => b,
        _ => return sequential(a, Fallback::NotSplittable),
    };
    let mut root = Vec::with_capacity(a.root_name().len() + 2);
    root.push(b'<');
    root.extend_from_slice(a.root_name());
    root.push(b'>');
    if first < root.len() as u64 {
        return sequential(a, Fallback::NotSplittable);
    }
    let n = ats.len();
    let stop = AtomicBool::new(false);
    // Whichever thread takes a part out of its slot reads it.
    let slots: Vec<Mutex<Option<Part<S, F>>>> =
        parts.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let claim_and_read = |i: usize| -> Option<(PartEnd, S)> {
        let part = slots[i].lock().ok()?.take()?;
        let mut sink = part.sink;
        let at = Span {
            file_at: part.at,
            at: ats[i],
            next: ats.get(i + 1).copied(),
        };
        let end = read_part(part.file, at, &root, &start, &stop, &mut sink);
        // The split cannot be used once a part went wrong: the others stop early.
        if !matches!(end, PartEnd::Held(_)) {
            stop.store(true, Ordering::Relaxed);
        }
        Some((end, sink))
    };
    let (send, receive) = mpsc::channel::<(usize, PartEnd, S)>();
    rayon::in_place_scope(|scope| {
        let claim_and_read = &claim_and_read;
        for i in 0..n {
            let send = send.clone();
            scope.spawn(move |_| {
                if let Some((end, sink)) = claim_and_read(i) {
                    // A listens until it has every part; a part sent after it gave up is dropped.
                    let _ = send.send((i, end, sink));
                }
            });
        }
        // Only the parts' senders are left: when they are all gone, nothing more comes.
        drop(send);
        // A reads on through the parts no other thread has started, as its one pass; the
        // parts from the first one another thread took are appended.
        let mut from = 0;
        loop {
            let until = ats.get(from).map_or(Until::End, |&at| Until::Offset(at));
            let step = a
                .run(until)
                .inspect_err(|_| stop.store(true, Ordering::Relaxed))?;
            if step == Step::Done {
                stop.store(true, Ordering::Relaxed);
                let (ending, sink) = a.end();
                ending.close(sink);
                let why = if from == n {
                    Fallback::NotStarted
                } else {
                    Fallback::GuessDidNotHold
                };
                return Ok(Split::Sequential(why));
            }
            if !absorb {
                break;
            }
            let taken = slots[from].lock().ok().and_then(|mut slot| slot.take());
            if taken.is_none() {
                break;
            }
            from += 1;
        }
        let holds = a.offset() == ats[from]
            && a.depth() == 1
            && a.reading().boundary().as_ref() == Some(&start);
        if !holds {
            stop.store(true, Ordering::Relaxed);
            return sequential(a, Fallback::GuessDidNotHold);
        }
        // A reads the later parts no thread has started yet; then waits for the others.
        let mut ends: Vec<Option<(PartEnd, S)>> = (from..n).map(claim_and_read).collect();
        while ends.iter().any(Option::is_none) {
            match receive.recv() {
                Ok((i, end, sink)) => ends[i - from] = Some((end, sink)),
                // A part panicked: the scope passes the panic on.
                Err(_) => return sequential(a, Fallback::TailFailed),
            }
        }
        let (mut endings, mut sinks) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut failed = false;
        let mut held = true;
        for (end, sink) in ends.into_iter().flatten() {
            match end {
                PartEnd::Held(e) => endings.push(*e),
                PartEnd::DidNotHold => held = false,
                PartEnd::Failed => failed = true,
            }
            sinks.push(sink);
        }
        // A reads on alone with the parts' sinks dropped first: they may hold a lot.
        let why = if failed {
            // An error is rare and its place must be the one-pass read's.
            Some(Fallback::TailFailed)
        } else if !held {
            Some(Fallback::GuessDidNotHold)
        } else if !appendable(a.sink(), &sinks) {
            Some(Fallback::NotAppendable)
        } else {
            None
        };
        if let Some(why) = why {
            drop(sinks);
            return sequential(a, why);
        }
        // Nothing is held back at a boundary: ending A delivers nothing more.
        let (head_end, _) = a.end();
        let (Some(last), Some(last_sink)) = (endings.last(), sinks.last_mut()) else {
            unreachable!("at least one part was read");
        };
        let ending = Ending {
            producer: last.producer,
            root_declared: last.root_declared.clone(),
            root_held: endings.iter().fold(head_end.root_held, |mut h, e| {
                h.add(e.root_held);
                h
            }),
            file_held: endings.iter().fold(head_end.file_held, |mut h, e| {
                h.add(e.file_held);
                h
            }),
            file_suites: endings.iter().fold(head_end.file_suites, |mut n, e| {
                n.add(e.file_suites);
                n
            }),
            footer: last.footer.clone(),
            any_pseudo: head_end.any_pseudo || endings.iter().any(|e| e.any_pseudo),
            counted_twice: head_end.counted_twice
                + endings.iter().map(|e| e.counted_twice).sum::<u64>(),
        };
        ending.close(last_sink);
        Ok(Split::Appended(sinks))
    })
}

/// A reads on to the end alone.
fn sequential<R: BufRead, A: EventSink + ?Sized, S>(
    mut a: Pass<'_, R, A>,
    why: Fallback,
) -> Result<Split<S>, AdapterError> {
    if a.run(Until::End)? == Step::Done {
        let (ending, sink) = a.end();
        ending.close(sink);
    }
    Ok(Split::Sequential(why))
}

/// Where a later part lies: from `at` (in the stream after a byte-order mark; `file_at` in the
/// file) to `next`, or to the end.
#[derive(Clone, Copy)]
struct Span {
    file_at: u64,
    at: u64,
    next: Option<u64>,
}

/// Reads a later part: the file from `span.at` as the rest of a document whose root is `root`
/// (a made-up start tag, so closing tags are checked as in one pass), from the carried state,
/// up to the next part.
fn read_part<S: EventSink, F: Read + Seek>(
    mut file: F,
    span: Span,
    root: &[u8],
    start: &Boundary,
    stop: &AtomicBool,
    sink: &mut S,
) -> PartEnd {
    if stop.load(Ordering::Relaxed) || file.seek(SeekFrom::Start(span.file_at)).is_err() {
        return PartEnd::DidNotHold;
    }
    // The made-up root tag sits right in front of the part, so offsets come out as the file's.
    let base = span.at - root.len() as u64;
    let source =
        BufReader::with_capacity(64 * 1024, std::io::Cursor::new(root.to_vec()).chain(file));
    let mut b = Pass::new(source, Reading::resume(sink, start), base).with_stop(stop);
    if !b.skip_root() {
        return PartEnd::DidNotHold;
    }
    let until = span.next.map_or(Until::End, Until::Offset);
    match b.run(until) {
        Err(_) => PartEnd::Failed,
        Ok(Step::Done) if span.next.is_none() => PartEnd::Held(Box::new(b.end().0)),
        Ok(Step::Paused)
            if span.next == Some(b.offset())
                && b.depth() == 1
                && b.reading().boundary().as_ref() == Some(start) =>
        {
            PartEnd::Held(Box::new(b.end().0))
        }
        Ok(_) => PartEnd::DidNotHold,
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    /// The search over the whole window at once, as it was before the window was read in steps.
    fn whole_window(bytes: &[u8], from: usize) -> Option<u64> {
        let window = &bytes[from.min(bytes.len())..bytes.len().min(from + SEARCH_WINDOW as usize)];
        match find_boundary(window, 0, true) {
            Found::At(at) => Some((from + at) as u64),
            Found::NotYet(_) => None,
        }
    }

    /// Read in steps of any size, the search finds the boundary the whole window holds:
    /// candidates cut by a step's end (in `</testsuite>`, in the whitespace, in `<testsuite`
    /// or before its delimiter) are decided with the next step.
    #[test]
    fn a_window_read_in_steps_finds_what_the_whole_window_holds() {
        let pieces: [&[u8]; 9] = [
            b"</testsuite>",
            b"<testsuite ",
            b"<testsuite>",
            b"<testsuites>",
            b"<testsuite",
            b"  \n",
            b"\t",
            b"x",
            b"</testsuite",
        ];
        let mut next = crate::parser::test_rng(0x2545_f491_4f6c_dd1d_u64);
        let (mut found, mut total) = (0, 0);
        for _ in 0..400 {
            let mut bytes = Vec::new();
            for _ in 0..next(40) {
                bytes.extend_from_slice(pieces[next(pieces.len())]);
            }
            let mut f = tempfile::tempfile().unwrap();
            f.write_all(&bytes).unwrap();
            for from in [0, next(bytes.len() + 1)] {
                let want = whole_window(&bytes, from);
                for step in [1, 2, 3, 5, 7, 11, 64] {
                    assert_eq!(
                        find_split_by(&mut f, from as u64, step).unwrap(),
                        want,
                        "{:?} from {from} by {step}",
                        String::from_utf8_lossy(&bytes)
                    );
                }
                total += 1;
                found += usize::from(want.is_some());
            }
        }
        assert!(
            found * 4 > total,
            "only {found} of {total} windows hold a boundary"
        );
    }
}
