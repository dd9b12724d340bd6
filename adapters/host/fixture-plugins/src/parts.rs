//! A hand-written ABI v2 plugin (`v2_parts`) for the host's "Reading in parts" tests. Its input
//! is one word saying what to do with the parts the host offers, right or wrong; it reports
//! what it did as warnings, so a test sees which way the file was read.
//!
//! - `append`: a part's test `second` sent from another thread, `first` through the file's
//!   table, then the part checked and appended. Without an offer, both through the file's table.
//! - `unknown`, `twice`, `left-out`: `parts_end` given a table the host never opened, one part
//!   twice, or one of two open parts.
//! - `bad-in-part`: a test with status 0 sent to the part, then the part appended.
//! - `left-open`: a part with a test, never ended.
//! - `count`: parts opened until the host says no more.
//! - `part-opens`: `part_open` called with a part's ctx.
//! - `read-at`: the input read through `read_at` at a few offsets.

use std::ffi::c_void;

use gapscore_adapter_sdk::abi::{GAPSCORE_ERR_INVALID_ARG, GAPSCORE_OK, GapscoreHost, GapscoreStr};

use crate::v2::{Desc2, desc, s, test};

fn warn(h: &GapscoreHost, text: &str) {
    let warning = h.warning.expect("table");
    // SAFETY: valid table; the text lives across the call.
    unsafe { warning(h.ctx, GapscoreStr::of(text)) };
}

fn finish(h: &GapscoreHost, name: &'static [u8], status: u32) -> i32 {
    let finished = h.test_finished.expect("table");
    let mut t = test(s(name));
    t.status = status;
    // SAFETY: valid table; the test lives across the call.
    unsafe { finished(h.ctx, &t) }
}

fn end(h: &GapscoreHost, parts: &[*const GapscoreHost], append: u32) -> i32 {
    let end = h.parts_end.expect("offer");
    // SAFETY: valid table; `parts` holds `parts.len()` pointers for the call.
    unsafe { end(h.ctx, parts.as_ptr(), parts.len(), append) }
}

fn open(h: &GapscoreHost) -> *const GapscoreHost {
    let open = h.part_open.expect("offer");
    // SAFETY: valid table, on the parse_stream thread.
    unsafe { open(h.ctx) }
}

/// A part table's address that may cross to another thread (the contract allows it).
#[derive(Clone, Copy)]
struct PartPtr(*const GapscoreHost);
// SAFETY: a part's table may be used from any one thread at a time.
unsafe impl Send for PartPtr {}

unsafe extern "C" fn v2_parts(host: *const GapscoreHost, _: *const u8, _: usize) -> i32 {
    // SAFETY: valid table for the call.
    let h = unsafe { &*host };
    let read = h.read.expect("table");
    let mut input = vec![0u8; 64];
    // SAFETY: `input` is writable for its length.
    let n = unsafe { read(h.ctx, input.as_mut_ptr(), input.len()) };
    input.truncate(usize::try_from(n).unwrap_or(0));
    let word = String::from_utf8_lossy(&input).trim().to_owned();
    let offered =
        h.struct_size as usize >= gapscore_adapter_sdk::abi::v2::HOST_PARTS_SIZE && h.parts > 1;
    if !offered {
        warn(h, "one pass");
        finish(h, b"first", 1);
        finish(h, b"second", 1);
        return GAPSCORE_OK;
    }
    match word.as_str() {
        "append" => {
            let part = PartPtr(open(h));
            assert!(!part.0.is_null(), "the host offered a part");
            // The part's events come from another thread, as the contract allows.
            std::thread::spawn(move || {
                let part = part;
                // SAFETY: the part's table is valid until it is ended, which happens after
                // this thread is joined.
                finish(unsafe { &*part.0 }, b"second", 1);
            })
            .join()
            .expect("the part's thread");
            finish(h, b"first", 1);
            let check = h.parts_check.expect("offer");
            // SAFETY: valid table; one open part.
            let ok = unsafe { check(h.ctx, &raw const part.0, 1) } == 0;
            warn(h, if ok { "checked" } else { "refused" });
            if end(h, &[part.0], 1) == 0 {
                warn(h, "appended");
            }
        }
        "unknown" => {
            // SAFETY: all-zero is a valid GapscoreHost (null pointers, no functions).
            let fake: GapscoreHost = unsafe { std::mem::zeroed() };
            end(h, &[&raw const fake], 1);
        }
        "twice" => {
            let part = open(h);
            end(h, &[part, part], 1);
        }
        "left-out" => {
            let (a, _b) = (open(h), open(h));
            end(h, &[a], 1);
        }
        "bad-in-part" => {
            let part = open(h);
            // SAFETY: an open part's table.
            finish(unsafe { &*part }, b"bad", 0);
            finish(h, b"first", 1);
            end(h, &[part], 1);
        }
        "left-open" => {
            let part = open(h);
            // SAFETY: an open part's table.
            finish(unsafe { &*part }, b"lost", 1);
            finish(h, b"first", 1);
        }
        "count" => {
            let mut n = 0;
            while !open(h).is_null() && n < 100 {
                n += 1;
            }
            warn(h, &format!("opened {n}"));
        }
        "part-opens" => {
            let part = open(h);
            let open = h.part_open.expect("offer");
            // SAFETY: a valid function with a live part's ctx: the host must refuse it.
            let again = unsafe { open((*part).ctx) };
            warn(h, &format!("null: {}", again.is_null()));
        }
        "read-at" => {
            let read_at = h.read_at.expect("offer");
            let mut got = Vec::new();
            for offset in [0, 2, h.input_len, h.input_len + 10] {
                let mut buf = [0u8; 4];
                // SAFETY: `buf` is writable for its length; any thread may call read_at.
                let n = unsafe { read_at(h.input_ctx, offset, buf.as_mut_ptr(), buf.len()) };
                let n = usize::try_from(n).unwrap_or(0);
                got.push(String::from_utf8_lossy(&buf[..n]).into_owned());
            }
            warn(h, &format!("read {got:?} of {}", h.input_len));
        }
        _ => return GAPSCORE_ERR_INVALID_ARG,
    }
    GAPSCORE_OK
}

static PARTS: Desc2 = desc(c"v2_parts", crate::v2::V2, Some(v2_parts));

#[unsafe(no_mangle)]
pub extern "C" fn gapscore_adapter_v2_parts() -> *const c_void {
    (&raw const PARTS.0).cast()
}
