//! ABI v2 plugins for the host's containment tests: one that returns `GAPSCORE_ERR_PARSE`
//! without calling `error()` (`v2_silent_parse_error`), and one that crashes on a marker
//! (`v2_crash`): a well-behaved lines reader (one passing test per input line) until its input
//! holds `SEGV` (a segmentation fault) or `ABORT` (`abort()`), or the prefix it is asked to
//! detect holds `SEGV-IN-DETECT`. It claims files named `*.crash` with confidence 90.

use std::ffi::{CStr, c_char, c_void};

use gapscore_adapter_sdk::abi::v2::GAPSCORE_NO_OFFSET;
use gapscore_adapter_sdk::abi::{
    GAPSCORE_ERR_INTERNAL, GAPSCORE_ERR_PARSE, GAPSCORE_ERR_STOPPED, GAPSCORE_OK, GapscoreHost,
    GapscoreStr,
};

use crate::v2::{Desc2, V2, desc, s, test};

/// Dies of a segmentation fault: a write to an unmapped, non-null address (null would trip
/// the standard library's own precondition check first, which aborts instead).
fn segfault() -> ! {
    // SAFETY: not safe at all, on purpose: address 8 is never mapped, so the write faults.
    unsafe { std::ptr::without_provenance_mut::<u8>(8).write_volatile(1) };
    std::process::abort()
}

unsafe extern "C" fn crash_detect(prefix: *const u8, len: usize, name: *const c_char) -> u32 {
    let prefix = if prefix.is_null() {
        &[][..]
    } else {
        // SAFETY: the host passes `len` readable bytes.
        unsafe { std::slice::from_raw_parts(prefix, len) }
    };
    if prefix.windows(14).any(|w| w == b"SEGV-IN-DETECT") {
        segfault();
    }
    let name = if name.is_null() {
        None
    } else {
        // SAFETY: the host passes a NUL-terminated name or null.
        unsafe { CStr::from_ptr(name) }.to_str().ok()
    };
    if name.is_some_and(|n| n.ends_with(".crash")) {
        90
    } else {
        0
    }
}

unsafe extern "C" fn v2_crash(host: *const GapscoreHost, _: *const u8, _: usize) -> i32 {
    // SAFETY: valid table for the call.
    let h = unsafe { &*host };
    let (read, finished) = (h.read.expect("table"), h.test_finished.expect("table"));
    let mut input = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        // SAFETY: `buf` is writable for its length.
        let n = unsafe { read(h.ctx, buf.as_mut_ptr(), buf.len()) };
        if n < 0 {
            return GAPSCORE_ERR_STOPPED;
        }
        if n == 0 {
            break;
        }
        input.extend_from_slice(&buf[..n as usize]);
    }
    for line in input.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        if line.windows(4).any(|w| w == b"SEGV") {
            segfault();
        }
        if line.windows(5).any(|w| w == b"ABORT") {
            std::process::abort();
        }
        let t = test(GapscoreStr {
            ptr: line.as_ptr(),
            len: line.len(),
        });
        // SAFETY: valid table; `line` outlives the call.
        if unsafe { finished(h.ctx, &t) } != 0 {
            return GAPSCORE_ERR_STOPPED;
        }
    }
    GAPSCORE_OK
}

unsafe extern "C" fn v2_silent_parse_error(_: *const GapscoreHost, _: *const u8, _: usize) -> i32 {
    GAPSCORE_ERR_PARSE
}

/// Says the input is invalid (`error()`) and then returns `GAPSCORE_OK`, after one test.
unsafe extern "C" fn v2_error_then_ok(host: *const GapscoreHost, _: *const u8, _: usize) -> i32 {
    // SAFETY: the host passes a valid table for the call.
    let h = unsafe { &*host };
    let Some(finished) = h.test_finished else {
        return GAPSCORE_ERR_INTERNAL;
    };
    let t = test(s(b"adds"));
    // SAFETY: valid table; the strings are static.
    unsafe {
        finished(h.ctx, &t);
        (h.error.expect("table"))(
            h.ctx,
            s(b"unknown status `maybe`"),
            2,
            1,
            GAPSCORE_NO_OFFSET,
        )
    };
    GAPSCORE_OK
}

static ERROR_THEN_OK: Desc2 = desc(c"v2_error_then_ok", V2, Some(v2_error_then_ok));

#[unsafe(no_mangle)]
pub extern "C" fn gapscore_adapter_v2_error_then_ok() -> *const c_void {
    (&raw const ERROR_THEN_OK.0).cast()
}

static CRASH: Desc2 = {
    let mut d = desc(c"v2_crash", V2, Some(v2_crash));
    d.0.detect = Some(crash_detect);
    d
};
static SILENT_PARSE_ERROR: Desc2 = desc(c"v2_silent_parse_error", V2, Some(v2_silent_parse_error));

#[unsafe(no_mangle)]
pub extern "C" fn gapscore_adapter_v2_crash() -> *const c_void {
    (&raw const CRASH.0).cast()
}

#[unsafe(no_mangle)]
pub extern "C" fn gapscore_adapter_v2_silent_parse_error() -> *const c_void {
    (&raw const SILENT_PARSE_ERROR.0).cast()
}
