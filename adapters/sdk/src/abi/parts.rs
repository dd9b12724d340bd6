//! Reading one input in parts on several threads, the plugin's side (ABI v2, `parts` and the
//! members after it in [`GapscoreHost`]). The host offers it for a large regular file when it
//! has more than one thread; an adapter that can read a later stretch of its format on its own
//! (the JUnit reader: from one top-level suite on) takes the offer in
//! [`Adapter::parse_in_parts`](crate::Adapter::parse_in_parts):
//!
//! - it reads the input from the start through `host->read` as always, into the main sink;
//! - [`Parts::reader_at`] reads the input from any offset, on any thread;
//! - [`Parts::open`] gives a [`PartSink`] for each later part, which another thread may fill;
//! - [`Parts::check`] asks whether the parts can be appended exactly after the main sink's
//!   events, and [`Parts::append`] appends them; a part dropped without being appended is
//!   dropped by the host too, so an adapter that finds its guess wrong reads on in one pass.
//!
//! The host decides how the events are put together (its consumers know what "exactly" means:
//! a duplicate across two parts, say); the adapter decides where its format can be cut.

use std::cell::Cell;
use std::io::{Read, Seek, SeekFrom};
use std::thread::ThreadId;

use super::forward::{Host, HostSink};
use super::v2::GapscoreHost;
use crate::{EventSink, Problem, Producer, TestCase, TestCaseRef};

/// The host's offer to take the input in parts, for one `parse_stream` call.
#[derive(Debug)]
pub struct Parts<'h> {
    main: &'h GapscoreHost,
}

impl<'h> Parts<'h> {
    /// The offer in `table`, when its `struct_size` covers the parts members, `parts` is more
    /// than 1 and every function is there.
    pub(super) fn offered(table: &'h GapscoreHost) -> Option<Parts<'h>> {
        let full = table.struct_size as usize >= super::v2::HOST_PARTS_SIZE;
        let all = table.read_at.is_some()
            && table.part_open.is_some()
            && table.parts_fit.is_some()
            && table.parts_check.is_some()
            && table.parts_end.is_some();
        (full && table.parts > 1 && all).then_some(Parts { main: table })
    }

    /// The most parts the host takes, the first (read through the main reader) among them.
    pub fn max(&self) -> usize {
        self.main.parts as usize
    }

    /// The input's length in bytes.
    pub fn input_len(&self) -> u64 {
        self.main.input_len
    }

    /// A reader of the input from byte `offset`, usable on any thread.
    pub fn reader_at(&self, offset: u64) -> PartReader<'h> {
        PartReader {
            main: self.main,
            pos: offset,
        }
    }

    /// A sink for a later part, or `None` when the host takes no more parts.
    pub fn open(&self) -> Option<PartSink<'h>> {
        let open = self.main.part_open?;
        // SAFETY: the main table is valid for this parse_stream call, on this thread.
        let table = unsafe { open(self.main.ctx) };
        // SAFETY: a non-null result is a table the host keeps valid until the part is ended
        // (by `parts_end`) or the call returns, whichever is first; a PartSink cannot outlive
        // 'h, the call.
        let table = unsafe { table.as_ref() }?;
        Some(PartSink {
            main: self.main,
            host: Host {
                table,
                stopped: Cell::new(false),
            },
            ended: false,
            opened_on: std::thread::current().id(),
        })
    }

    /// Whether the host would take parts of an input of about `tests` tests in all (a host
    /// that must refuse parts holding too many tests between them says no up front).
    pub fn fit(&self, tests: u64) -> bool {
        let Some(fit) = self.main.parts_fit else {
            return false;
        };
        // SAFETY: valid table for this call, on this thread.
        unsafe { fit(self.main.ctx, tests) == 0 }
    }

    /// Whether `parts` (every open part, in the input's order) can be appended exactly after
    /// the main sink's events. Call it only once no other thread uses them.
    pub fn check(&self, parts: &[PartSink<'h>]) -> bool {
        let Some(check) = self.main.parts_check else {
            return false;
        };
        let tables = tables(parts);
        // SAFETY: valid table for this call; `tables` holds `parts.len()` open part tables.
        unsafe { check(self.main.ctx, tables.as_ptr(), tables.len()) == 0 }
    }

    /// Appends `parts` (every open part, in the input's order) after the main sink's events.
    /// `false`: the host refused them, dropped them and stopped the parse.
    pub fn append(&self, mut parts: Vec<PartSink<'h>>) -> bool {
        let Some(end) = self.main.parts_end else {
            return false;
        };
        let tables = tables(&parts);
        // SAFETY: as in `check`; the host ends every listed part, whatever it answers.
        let rc = unsafe { end(self.main.ctx, tables.as_ptr(), tables.len(), 1) };
        for part in &mut parts {
            part.ended = true;
        }
        rc == 0
    }
}

fn tables(parts: &[PartSink<'_>]) -> Vec<*const GapscoreHost> {
    parts
        .iter()
        .map(|p| std::ptr::from_ref(p.host.table))
        .collect()
}

/// The input from an offset: [`Read`] and [`Seek`] over the host's `read_at`.
#[derive(Debug)]
pub struct PartReader<'h> {
    main: &'h GapscoreHost,
    pos: u64,
}

// SAFETY: the contract (docs/abi.md, "Reading in parts") lets `read_at` be called from any
// thread, concurrently, with `input_ctx`; the reader touches nothing else of the table.
unsafe impl Send for PartReader<'_> {}

impl Read for PartReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let Some(read_at) = self.main.read_at else {
            return Err(std::io::Error::other("the host passed no read_at function"));
        };
        // SAFETY: `buf` is writable for its length during the call; input_ctx is the host's,
        // valid for any thread during the parse_stream call ('h).
        let n = unsafe { read_at(self.main.input_ctx, self.pos, buf.as_mut_ptr(), buf.len()) };
        match usize::try_from(n) {
            Ok(n) if n <= buf.len() => {
                self.pos += n as u64;
                Ok(n)
            }
            _ => Err(std::io::Error::other("the host could not read the input")),
        }
    }
}

impl Seek for PartReader<'_> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let base = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
            SeekFrom::End(d) => self.main.input_len.checked_add_signed(d),
        };
        self.pos = base.ok_or_else(|| std::io::Error::other("seek before the input's start"))?;
        Ok(self.pos)
    }
}

/// The sink of one later part: its events go to the host's table for the part. Dropped
/// without [`Parts::append`] on the thread that opened it, the part is dropped by the host
/// too (its memory freed at once); dropped on another thread (a panic's unwinding), it is left
/// to the host, which drops every part still open when the call returns.
#[derive(Debug)]
pub struct PartSink<'h> {
    main: &'h GapscoreHost,
    host: Host<'h>,
    ended: bool,
    opened_on: ThreadId,
}

// SAFETY: the contract lets a part's table be used from any thread, one thread at a time; a
// PartSink is the one user of its table (moving it moves that right). Its only call on the
// main table after opening (`parts_end` in `Drop`) is made on the thread that opened it, the
// parse_stream thread, as the contract requires.
unsafe impl Send for PartSink<'_> {}

impl Drop for PartSink<'_> {
    fn drop(&mut self) {
        if self.ended || std::thread::current().id() != self.opened_on {
            return;
        }
        if let Some(end) = self.main.parts_end {
            let table: *const GapscoreHost = self.host.table;
            // SAFETY: valid main table; one open part, dropped (append 0).
            unsafe { end(self.main.ctx, &raw const table, 1, 0) };
        }
    }
}

impl EventSink for PartSink<'_> {
    fn producer(&mut self, producer: Producer) {
        HostSink(&self.host).producer(producer);
    }
    fn test_started(&mut self, suite: Option<&str>, name: &str, id: &str) {
        HostSink(&self.host).test_started(suite, name, id);
    }
    fn test_finished(&mut self, test: TestCase) {
        HostSink(&self.host).test_finished(test);
    }
    fn test_finished_ref(&mut self, test: TestCaseRef<'_>) {
        HostSink(&self.host).test_finished_ref(test);
    }
    fn problem(&mut self, problem: Problem) {
        HostSink(&self.host).problem(problem);
    }
    fn warning(&mut self, message: String) {
        HostSink(&self.host).warning(message);
    }
    fn coded_warning(&mut self, code: crate::Code, message: String) {
        HostSink(&self.host).coded_warning(code, message);
    }
}
