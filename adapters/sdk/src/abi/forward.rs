//! The plugin's side of the host table ([`GapscoreHost`]) for Rust adapters: `host->read` as a
//! [`Read`] and the event callbacks as an [`EventSink`], strings borrowed for each call. Used
//! by the `parse_stream` shim for the file's table and by [`super::parts`] for a part's.

use std::cell::Cell;
use std::io::Read;

use crate::{EventSink, Problem, Producer, TestCase, TestCaseRef};

use super::v2::{
    GAPSCORE_TEST_HAS_DURATION, GAPSCORE_TEST_PARENT, GapscoreAttempt, GapscoreHost, GapscoreStr,
    GapscoreTest, category_code, problem_code, status_code,
};

/// The plugin side of one `parse_stream` call: the host table and whether it asked to stop.
pub(crate) struct Host<'h> {
    pub(crate) table: &'h GapscoreHost,
    pub(crate) stopped: Cell<bool>,
}

impl Host<'_> {
    /// Applies a callback's answer: non-zero stops the parse.
    fn answer(&self, rc: i32) {
        if rc != 0 {
            self.stopped.set(true);
        }
    }

    pub(crate) fn error(&self, message: &str, line: usize, column: usize, offset: u64) {
        if let Some(f) = self.table.error {
            // SAFETY: the table and its ctx are valid for this parse_stream call; the message
            // is borrowed for the callback only, as the contract says.
            unsafe {
                f(
                    self.table.ctx,
                    GapscoreStr::of(message),
                    line as u64,
                    column as u64,
                    offset,
                );
            }
        }
    }
}

impl std::fmt::Debug for Host<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("stopped", &self.stopped.get())
            .finish_non_exhaustive()
    }
}

/// `host->read` as a [`Read`]: an error once the host asked to stop, so the adapter ends soon.
pub(crate) struct HostRead<'a, 'h>(pub(crate) &'a Host<'h>);

impl Read for HostRead<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let host = self.0;
        if host.stopped.get() {
            return Err(std::io::Error::other("the host stopped the parse"));
        }
        let Some(read) = host.table.read else {
            return Err(std::io::Error::other("the host passed no read function"));
        };
        // SAFETY: `buf` is writable for its length during the call; ctx is the host's.
        let n = unsafe { read(host.table.ctx, buf.as_mut_ptr(), buf.len()) };
        match usize::try_from(n) {
            Ok(n) if n <= buf.len() => Ok(n),
            _ => {
                host.stopped.set(true);
                Err(std::io::Error::other("the host could not read the input"))
            }
        }
    }
}

/// An [`EventSink`] forwarding each event to the host table, strings borrowed for the call.
pub(crate) struct HostSink<'a, 'h>(pub(super) &'a Host<'h>);

impl EventSink for HostSink<'_, '_> {
    fn producer(&mut self, producer: Producer) {
        let (h, t) = (self.0, self.0.table);
        if let (false, Some(f)) = (h.stopped.get(), t.producer) {
            // SAFETY: valid table for this call; the views borrow `producer`, alive here.
            h.answer(unsafe {
                f(
                    t.ctx,
                    GapscoreStr::of(&producer.name),
                    GapscoreStr::of_opt(producer.version.as_deref()),
                )
            });
        }
    }

    fn test_started(&mut self, suite: Option<&str>, name: &str, id: &str) {
        let (h, t) = (self.0, self.0.table);
        if let (false, Some(f)) = (h.stopped.get(), t.test_started) {
            // SAFETY: as above; the views borrow the arguments.
            h.answer(unsafe {
                f(
                    t.ctx,
                    GapscoreStr::of_opt(suite),
                    GapscoreStr::of(name),
                    GapscoreStr::of(id),
                )
            });
        }
    }

    fn test_finished(&mut self, test: TestCase) {
        self.test_finished_ref(test.borrowed());
    }

    /// The test crosses as views of the adapter's own strings: nothing is copied or allocated
    /// for a test without earlier attempts (the common case, and every passing test).
    fn test_finished_ref(&mut self, test: TestCaseRef<'_>) {
        let (h, t) = (self.0, self.0.table);
        let (false, Some(f)) = (h.stopped.get(), t.test_finished) else {
            return;
        };
        // Built only for a retried test: the common case skips the iterator entirely.
        let attempts: Vec<GapscoreAttempt> = if test.attempts.is_empty() {
            Vec::new()
        } else {
            test.attempts
                .iter()
                .map(|a| GapscoreAttempt {
                    status: status_code(a.status),
                    has_duration: u32::from(a.duration.is_some()),
                    duration: a.duration.unwrap_or(0.0),
                    message: GapscoreStr::of_opt(a.message.as_deref()),
                })
                .collect()
        };
        let mut flags = 0;
        if test.duration.is_some() {
            flags |= GAPSCORE_TEST_HAS_DURATION;
        }
        if test.parent {
            flags |= GAPSCORE_TEST_PARENT;
        }
        let c = GapscoreTest {
            struct_size: size_of::<GapscoreTest>() as u32,
            status: status_code(test.status),
            id: GapscoreStr::of(test.id),
            suite: GapscoreStr::of_opt(test.suite),
            name: GapscoreStr::of(test.name),
            message: GapscoreStr::of_opt(test.message),
            expected: GapscoreStr::of_opt(test.expected),
            actual: GapscoreStr::of_opt(test.actual),
            output: GapscoreStr::of_opt(test.output),
            file: GapscoreStr::of_opt(test.file),
            parent_id: GapscoreStr::of_opt(test.parent_id),
            attempts: if attempts.is_empty() {
                std::ptr::null()
            } else {
                attempts.as_ptr()
            },
            attempt_count: attempts.len(),
            duration: test.duration.unwrap_or(0.0),
            line: test.line.unwrap_or(0),
            category: category_code(test.category),
            flags,
            reserved: 0,
            decided_at: GapscoreStr::of_opt(test.decided_at),
        };
        // SAFETY: valid table for this call; `c` and what it points into (the adapter's
        // strings `test` borrows, `attempts`) live until the callback returns.
        h.answer(unsafe { f(t.ctx, &c) });
    }

    fn problem(&mut self, problem: Problem) {
        let (h, t) = (self.0, self.0.table);
        if let (false, Some(f)) = (h.stopped.get(), t.problem) {
            // SAFETY: valid table for this call; the views borrow `problem`.
            h.answer(unsafe {
                f(
                    t.ctx,
                    problem_code(problem.kind),
                    GapscoreStr::of(&problem.detail),
                    GapscoreStr::of_opt(problem.suite.as_deref()),
                    problem.count.unwrap_or(0),
                )
            });
        }
    }

    fn warning(&mut self, message: String) {
        let (h, t) = (self.0, self.0.table);
        if let (false, Some(f)) = (h.stopped.get(), t.warning) {
            // SAFETY: valid table for this call; the view borrows `message`.
            h.answer(unsafe { f(t.ctx, GapscoreStr::of(&message)) });
        }
    }

    fn coded_warning(&mut self, code: crate::Code, message: String) {
        let (h, t) = (self.0, self.0.table);
        // A host from before `warning_coded` gets the warning without its code.
        let coded = (t.struct_size as usize >= size_of::<GapscoreHost>())
            .then_some(t.warning_coded)
            .flatten();
        let Some(f) = coded else {
            return self.warning(message);
        };
        if !h.stopped.get() {
            // SAFETY: valid table for this call, which `struct_size` says holds
            // `warning_coded`; the views borrow `code` and `message`.
            h.answer(unsafe {
                f(
                    t.ctx,
                    GapscoreStr::of(code.as_str()),
                    GapscoreStr::of(&message),
                )
            });
        }
    }
}
