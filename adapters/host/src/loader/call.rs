//! What one `parse_stream` call, and each part of it, shares with the host's callbacks
//! through `ctx`: a [`Call`], reached only through [`with_call`]; and the parts a call was
//! offered ([`Offer`]), each a [`Call`] of its own ([`super::parts`]).

use std::ffi::c_void;
use std::io::BufRead;
use std::panic::{AssertUnwindSafe, catch_unwind};

use gapscore_adapter_sdk::abi::GapscoreHost;
use gapscore_adapter_sdk::{Attempt, EventSink};

use crate::split::{PartConsumer, PartInput, PartedSink};

/// Where a call's events go.
pub(super) enum Target<'a> {
    /// The file's consumer.
    Plain(&'a mut dyn EventSink),
    /// The file's consumer, which takes parts (ABI v2, "Reading in parts").
    Parted(&'a mut dyn PartedSink),
    /// A later part's own consumer.
    Part(Box<dyn PartConsumer>),
}

impl Target<'_> {
    pub(super) fn get(&mut self) -> &mut dyn EventSink {
        match self {
            Target::Plain(s) => *s,
            Target::Parted(s) => *s,
            Target::Part(s) => s.as_mut(),
        }
    }
}

/// What one `parse_stream` call (or one part of it) shares with the callbacks through `ctx`.
pub(super) struct Call<'a> {
    /// The input from its start; none for a part.
    pub(super) reader: Option<&'a mut dyn BufRead>,
    pub(super) sink: Target<'a>,
    /// The parts offered and opened (the file's own call only).
    pub(super) parts: Option<Offer>,
    pub(super) debug: bool,
    /// Why the host stopped the parse (a rejected event), with the debug excerpt.
    pub(super) rejected: Option<String>,
    /// The input could not be read.
    pub(super) read_error: Option<std::io::Error>,
    /// What the plugin reported through `error`.
    pub(super) error: Option<(String, u64, u64, u64)>,
    /// A panic caught inside a callback, resumed after the call.
    pub(super) panic: Option<Box<dyn std::any::Any + Send>>,
    /// Events accepted so far (for messages: "event 3").
    pub(super) events: u64,
    /// Buffers for what a test cannot borrow from the plugin, reused from event to event.
    pub(super) owned: Owned,
}

impl<'a> Call<'a> {
    pub(super) fn new(reader: Option<&'a mut dyn BufRead>, sink: Target<'a>, debug: bool) -> Self {
        Call {
            reader,
            sink,
            parts: None,
            debug,
            rejected: None,
            read_error: None,
            error: None,
            panic: None,
            events: 0,
            owned: Owned::default(),
        }
    }

    pub(super) fn stopped(&self) -> bool {
        self.rejected.is_some() || self.read_error.is_some() || self.panic.is_some()
    }

    #[cold]
    #[inline(never)]
    pub(super) fn reject(&mut self, what: &str, reason: String, returned: Option<&[u8]>) {
        let event = self.events + 1;
        let reason = format!("event {event} (`{what}`) rejected: {reason}");
        self.rejected = Some(match returned {
            Some(bytes) => crate::debug::with_returned(reason, self.debug, bytes, None),
            None => reason,
        });
    }
}

/// Runs a callback body on the call behind `ctx`: nothing once the parse is stopped, and a
/// panic caught and kept. Returns 0 to go on, 1 to stop.
///
/// # Safety
/// `ctx` must be the pointer to the [`Call`] of the running `parse_stream` or of one of its
/// open parts, which the plugin passes back unchanged.
pub(super) unsafe fn with_call(ctx: *mut c_void, f: impl FnOnce(&mut Call<'_>)) -> i32 {
    // SAFETY: per the function's contract `ctx` is a live `Call` of this parse_stream call;
    // the plugin calls the file's table back on the calling thread, and a part's table from
    // one thread at a time, so no other reference to that `Call` is active.
    let call = unsafe { &mut *ctx.cast::<Call<'_>>() };
    if call.stopped() {
        return 1;
    }
    if let Err(p) = catch_unwind(AssertUnwindSafe(|| f(&mut *call))) {
        call.panic = Some(p);
    }
    i32::from(call.stopped())
}

/// What a borrowed test cannot borrow from the plugin: a derived id, a text cut at the text
/// cap, the earlier attempts. Kept in the [`Call`] and reused, so an ordinary test neither
/// builds nor drops anything here, and each buffer is only written when its field needs it
/// (a stale one is never read: a field borrows its buffer only right after writing it).
#[derive(Default)]
pub(super) struct Owned {
    pub(super) id: String,
    pub(super) message: String,
    pub(super) expected: String,
    pub(super) actual: String,
    pub(super) output: String,
    pub(super) attempts: Vec<Attempt>,
}

/// The parts offered to one call, and those open.
pub(super) struct Offer {
    /// From `Box::into_raw`, freed in `Drop`: `read_at`'s `input_ctx` points at it from any
    /// thread while this thread holds the call mutably, so it is not owned through a `Box`
    /// (whose uniqueness the other threads' reads would break).
    pub(super) input: *mut PartInput,
    /// The most parts, the file's own among them.
    pub(super) parts: u32,
    /// The open parts, in the order they were opened.
    pub(super) open: Vec<*mut Part>,
}

impl Drop for Offer {
    fn drop(&mut self) {
        for part in self.open.drain(..) {
            // SAFETY: every pointer in `open` came from `Box::into_raw` and is freed only here
            // or in `take`, which removes it from `open` first.
            drop(unsafe { Box::from_raw(part) });
        }
        // SAFETY: `input` came from `Box::into_raw` and is freed only here, after the
        // parse_stream call that lent it to `read_at` returned.
        drop(unsafe { Box::from_raw(self.input) });
    }
}

/// One later part: its call and the table whose `ctx` is that call.
pub(super) struct Part {
    pub(super) call: Call<'static>,
    pub(super) table: GapscoreHost,
}
