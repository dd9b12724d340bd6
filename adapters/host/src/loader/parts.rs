//! ABI v2, "Reading in parts": the host's side. For a large regular file and a pool of more
//! than one thread, the file's table offers `parts`: `read_at` (the file at any offset, any
//! thread), `part_open` (a table of its own for a later part, whose events go to a consumer
//! of its own, from any one thread at a time), `parts_fit`, `parts_check` and `parts_end`
//! (append the parts after the file's own events, or drop them). Whether parts append exactly
//! is the consumer's answer ([`PartedSink`]), never the plugin's: a refused append stops the
//! parse with an error, so a file's events are never lost or read twice.
//!
//! A part is a [`Call`] of its own, boxed at a fixed address (its table's `ctx`), kept as a raw
//! pointer in the file's call until it is ended or the call returns: a plugin passes part
//! tables back by address, and an address the host did not hand out, or one already ended, is
//! rejected, not followed.

use std::ffi::c_void;
use std::fs::File;
use std::io::BufRead;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use gapscore_adapter_sdk::abi::{GapscoreAdapterV2, GapscoreHost};
use gapscore_adapter_sdk::{AdapterError, ParseOptions};

use super::PluginAdapter;
use super::call::{Call, Offer, Part, Target, with_call};
use super::v2::{run, table};
use crate::split::{PartInput, PartedSink};

/// A v2 `parse_stream` over `reader` (the file `input` holds), offering the plugin to read
/// the file in parts into `sink`.
pub(super) fn parse_parted(
    plugin: &PluginAdapter,
    desc: &GapscoreAdapterV2,
    reader: &mut dyn BufRead,
    opts: &ParseOptions,
    sink: &mut dyn PartedSink,
    input: PartInput,
) -> Result<(), AdapterError> {
    run(
        plugin,
        desc,
        reader,
        opts,
        Target::Parted(sink),
        |table, call| {
            offer(table, call, input);
        },
    )
}

/// Fills the parts members of the file's `table`.
fn offer(table: &mut GapscoreHost, call: &mut Call<'_>, input: PartInput) {
    table.parts = input.parts;
    table.input_len = input.len;
    let parts = input.parts;
    let input = Box::into_raw(Box::new(input));
    table.input_ctx = input.cast();
    table.read_at = Some(host_read_at);
    table.part_open = Some(host_part_open);
    table.parts_fit = Some(host_parts_fit);
    table.parts_check = Some(host_parts_check);
    table.parts_end = Some(host_parts_end);
    call.parts = Some(Offer {
        input,
        parts,
        open: Vec::new(),
    });
}

unsafe extern "C" fn host_read_at(
    input_ctx: *mut c_void,
    offset: u64,
    buf: *mut u8,
    cap: usize,
) -> isize {
    if input_ctx.is_null() || (buf.is_null() && cap > 0) {
        return -1;
    }
    let cap = cap.min(1 << 30);
    if cap == 0 {
        return 0;
    }
    // SAFETY: `input_ctx` is the `PartInput` of the running call (the plugin passes it back
    // unchanged), a raw allocation only ever read until the call returns; `buf` is non-null with `cap` writable bytes per the
    // contract.
    let (input, out) = unsafe {
        (
            &*input_ctx.cast::<PartInput>(),
            std::slice::from_raw_parts_mut(buf, cap),
        )
    };
    let read = catch_unwind(AssertUnwindSafe(|| read_at(&input.file, out, offset)));
    match read {
        Ok(Ok(n)) => n as isize,
        _ => -1,
    }
}

#[cfg(unix)]
fn read_at(file: &File, out: &mut [u8], offset: u64) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    loop {
        match file.read_at(out, offset) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

#[cfg(not(unix))]
fn read_at(file: &File, out: &mut [u8], offset: u64) -> std::io::Result<usize> {
    use std::os::windows::fs::FileExt;
    file.seek_read(out, offset)
}

/// Runs `f` on the offer of the file's call behind `ctx`: a call with none (a part's, or a
/// file not offered in parts) rejects the event `what`. Returns 0 to go on, 1 to stop.
///
/// # Safety
/// As [`with_call`].
unsafe fn with_offer(
    ctx: *mut c_void,
    what: &str,
    f: impl FnOnce(&mut Offer, &mut Call<'_>) -> Result<(), String>,
) -> i32 {
    let body = |call: &mut Call<'_>| {
        let result = match call.parts.take() {
            Some(mut offer) => {
                // The offer goes back even when `f` panics (a consumer's `make`): dropped here,
                // it would free the input other threads may still be reading through `read_at`.
                let r = catch_unwind(AssertUnwindSafe(|| f(&mut offer, &mut *call)));
                call.parts = Some(offer);
                r.unwrap_or_else(|p| resume_unwind(p))
            }
            None => Err(
                "this table offers no parts (a part's own table, or a file read in one pass)"
                    .to_owned(),
            ),
        };
        if let Err(reason) = result {
            call.reject(what, reason, None);
        }
    };
    // SAFETY: per the caller's contract.
    unsafe { with_call(ctx, body) }
}

unsafe extern "C" fn host_part_open(ctx: *mut c_void) -> *const GapscoreHost {
    let mut opened: *const GapscoreHost = std::ptr::null();
    let body = |offer: &mut Offer, call: &mut Call<'_>| {
        // The file's own call is the first part: at most `parts - 1` later ones at once.
        if offer.open.len() + 1 >= offer.parts as usize {
            return Ok(());
        }
        let Target::Parted(sink) = &call.sink else {
            return Err("the file's consumer takes no parts".to_owned());
        };
        let part = Box::into_raw(Box::new(Part {
            call: Call::new(None, Target::Part(sink.part()), call.debug),
            table: table(std::ptr::null_mut(), false),
        }));
        // SAFETY: `part` was just allocated and is not shared yet; its table's ctx is its
        // call, at a fixed address until the part is freed.
        unsafe {
            (*part).table.ctx = (&raw mut (*part).call).cast();
            opened = &raw const (*part).table;
        }
        offer.open.push(part);
        Ok(())
    };
    // SAFETY: `ctx` is the call's, passed back by the plugin.
    unsafe { with_offer(ctx, "part_open", body) };
    opened
}

unsafe extern "C" fn host_parts_fit(ctx: *mut c_void, tests: u64) -> i32 {
    let mut fits = false;
    let body = |_: &mut Offer, call: &mut Call<'_>| {
        if let Target::Parted(sink) = &call.sink {
            fits = sink.fits(tests);
        }
        Ok(())
    };
    // SAFETY: `ctx` is the call's, passed back by the plugin.
    let rc = unsafe { with_offer(ctx, "parts_fit", body) };
    if rc == 0 && fits { 0 } else { 1 }
}

/// The indices in `offer.open` of the `n` tables at `parts`: each an open part, each once.
///
/// # Safety
/// `parts` must be null with `n` 0, or point to `n` readable pointers.
unsafe fn resolve(
    offer: &Offer,
    parts: *const *const GapscoreHost,
    n: usize,
) -> Result<Vec<usize>, String> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if parts.is_null() {
        return Err(format!("the list of {n} parts is NULL"));
    }
    // SAFETY: non-null with `n` pointers per the contract; only the addresses are compared,
    // never followed.
    let given = unsafe { std::slice::from_raw_parts(parts, n) };
    let mut at = Vec::with_capacity(n);
    for (i, table) in given.iter().enumerate() {
        let found = offer
            .open
            .iter()
            // SAFETY: open parts are live allocations; only their table's address is taken.
            .position(|p| unsafe { &raw const (**p).table } == *table);
        match found {
            Some(k) if !at.contains(&k) => at.push(k),
            Some(_) => return Err(format!("part {} of the list is listed twice", i + 1)),
            None => {
                return Err(format!(
                    "part {} of the list is not an open part of this call (never opened, or already ended)",
                    i + 1
                ));
            }
        }
    }
    Ok(at)
}

/// Why the parts at `at` cannot be appended after the file's events, or `None` when they can.
fn refusal(offer: &Offer, call: &Call<'_>, at: &[usize]) -> Option<String> {
    if at.len() != offer.open.len() {
        return Some(format!(
            "{} parts are open and {} were given: every open part must be appended",
            offer.open.len(),
            at.len()
        ));
    }
    // SAFETY: open parts are live, and the plugin uses no part while it checks or ends them
    // (the contract): this thread is the only one reading them.
    let parts: Vec<&Part> = at.iter().map(|&k| unsafe { &*offer.open[k] }).collect();
    for (i, part) in parts.iter().enumerate() {
        if let Some(reason) = &part.call.rejected {
            return Some(format!("part {}: {reason}", i + 1));
        }
        if part.call.panic.is_some() {
            return Some(format!("part {}: a host callback panicked", i + 1));
        }
    }
    let Target::Parted(sink) = &call.sink else {
        return Some("the file's consumer takes no parts".to_owned());
    };
    let consumers: Vec<&dyn crate::split::PartConsumer> = parts
        .iter()
        .filter_map(|p| match &p.call.sink {
            Target::Part(c) => Some(c.as_ref()),
            _ => None,
        })
        .collect();
    (!sink.can_append(&consumers)).then(|| {
        "they cannot be put together exactly (the same test id in two parts, or more tests than the duplicate check covers)".to_owned()
    })
}

unsafe extern "C" fn host_parts_check(
    ctx: *mut c_void,
    parts: *const *const GapscoreHost,
    n: usize,
) -> i32 {
    let mut ok = false;
    let body = |offer: &mut Offer, call: &mut Call<'_>| {
        // SAFETY: per the contract of `parts_check`.
        let at = unsafe { resolve(offer, parts, n) }?;
        ok = refusal(offer, call, &at).is_none();
        Ok(())
    };
    // SAFETY: `ctx` is the call's, passed back by the plugin.
    let rc = unsafe { with_offer(ctx, "parts_check", body) };
    if rc == 0 && ok { 0 } else { 1 }
}

unsafe extern "C" fn host_parts_end(
    ctx: *mut c_void,
    parts: *const *const GapscoreHost,
    n: usize,
    append: u32,
) -> i32 {
    let body = |offer: &mut Offer, call: &mut Call<'_>| {
        // SAFETY: per the contract of `parts_end`.
        let at = unsafe { resolve(offer, parts, n) }?;
        let why = match append {
            0 => None,
            1 => refusal(offer, call, &at),
            other => return Err(format!("`append` is {other}, not 0 or 1")),
        };
        let ended = take(offer, &at);
        if append == 0 {
            return Ok(());
        }
        if let Some(why) = why {
            return Err(format!("the plugin's parts were not appended: {why}"));
        }
        let consumers = ended
            .into_iter()
            .filter_map(|p| match p.call.sink {
                Target::Part(c) => Some(c),
                _ => None,
            })
            .collect();
        let appended = match &mut call.sink {
            Target::Parted(sink) => sink.append(consumers),
            _ => false,
        };
        if !appended {
            return Err(
                "the plugin's parts were not appended: the file's consumer did not make them"
                    .to_owned(),
            );
        }
        Ok(())
    };
    // SAFETY: `ctx` is the call's, passed back by the plugin.
    unsafe { with_offer(ctx, "parts_end", body) }
}

/// Removes the parts at `at` from the open ones, in `at`'s order.
fn take(offer: &mut Offer, at: &[usize]) -> Vec<Part> {
    let raw: Vec<*mut Part> = at.iter().map(|&k| offer.open[k]).collect();
    offer.open.retain(|p| !raw.contains(p));
    raw.into_iter()
        // SAFETY: each came from `Box::into_raw`, was open, and is no longer in `open`.
        .map(|p| *unsafe { Box::from_raw(p) })
        .collect()
}
