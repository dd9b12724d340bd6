//! ABI v2 plugins that break the contract on purpose, one entry symbol per fault: bad
//! descriptors, and `parse_stream`s that pass the host bad pointers, lengths, UTF-8, codes and
//! sizes, ignore its request to stop, or lie about their status; one (`v2_field_bytes`) that
//! puts its input's bytes in the field it names, to probe every string's checks. Plus one
//! well-behaved hand-written v2 plugin (`v2_lines`) that streams its input through `host->read`.

use std::ffi::c_void;

use gapscore_adapter_sdk::abi::v2::{GAPSCORE_NO_OFFSET, GAPSCORE_TEST_HAS_DURATION};
use gapscore_adapter_sdk::abi::{
    GAPSCORE_ERR_INVALID_ARG, GAPSCORE_ERR_PARSE, GAPSCORE_ERR_STOPPED, GAPSCORE_OK,
    GapscoreAdapterV2, GapscoreAttempt, GapscoreHost, GapscoreStr, GapscoreTest, ParseStreamFn,
};

use crate::{FORMAT_LIST, detect};

/// A `Sync` wrapper so v2 descriptors with raw pointers can be statics.
#[derive(Debug)]
pub struct Desc2(pub(crate) GapscoreAdapterV2);
// SAFETY: immutable statics pointing at static data only.
unsafe impl Sync for Desc2 {}

pub(crate) const V2: u32 = size_of::<GapscoreAdapterV2>() as u32;

pub(crate) const fn desc(
    name: &'static std::ffi::CStr,
    size: u32,
    parse: Option<ParseStreamFn>,
) -> Desc2 {
    Desc2(GapscoreAdapterV2 {
        abi_version: 2,
        struct_size: size,
        name: name.as_ptr(),
        adapter_version: c"0.0.0".as_ptr(),
        format_ids: FORMAT_LIST.as_ptr().cast(),
        format_count: 1,
        detect: Some(detect),
        parse_stream: parse,
    })
}

pub(crate) fn s(bytes: &'static [u8]) -> GapscoreStr {
    GapscoreStr {
        ptr: bytes.as_ptr(),
        len: bytes.len(),
    }
}

/// A passing test named `name`, everything else absent.
pub(crate) fn test(name: GapscoreStr) -> GapscoreTest {
    GapscoreTest {
        struct_size: size_of::<GapscoreTest>() as u32,
        status: 1,
        name,
        ..GapscoreTest::EMPTY
    }
}

/// Sends one good test, then `bad`, then another good test, and returns `GAPSCORE_OK` whatever
/// the host answered: the host must still fail the parse, with the bad event's reason.
unsafe fn good_bad_good(host: *const GapscoreHost, bad: &GapscoreTest) -> i32 {
    // SAFETY: the host passes a valid table for the call.
    let h = unsafe { &*host };
    let finished = h.test_finished.expect("host table has test_finished");
    let good = test(s(b"good"));
    // SAFETY: valid table; the tests live across each call. Answers ignored on purpose.
    unsafe {
        finished(h.ctx, &good);
        finished(h.ctx, bad);
        finished(h.ctx, &good);
    }
    GAPSCORE_OK
}

macro_rules! bad_test {
    ($fn:ident, $name:ident, |$t:ident| $edit:expr) => {
        unsafe extern "C" fn $fn(host: *const GapscoreHost, _: *const u8, _: usize) -> i32 {
            let mut $t = test(s(b"t"));
            $edit;
            // SAFETY: as in `good_bad_good`.
            unsafe { good_bad_good(host, &$t) }
        }
        static $name: Desc2 = desc(
            {
                // The adapter name is the symbol's tail (`gapscore_adapter_<name>`).
                const N: &std::ffi::CStr = match std::ffi::CStr::from_bytes_with_nul(
                    concat!(stringify!($fn), "\0").as_bytes(),
                ) {
                    Ok(c) => c,
                    Err(_) => panic!("bad name"),
                };
                N
            },
            V2,
            Some($fn),
        );
    };
}

bad_test!(v2_bad_utf8, BAD_UTF8, |t| t.name = s(b"ab\xffc"));
bad_test!(v2_bad_status, BAD_STATUS, |t| t.status = 99);
bad_test!(v2_zero_status, ZERO_STATUS, |t| t.status = 0);
bad_test!(v2_null_with_len, NULL_WITH_LEN, |t| t.message =
    GapscoreStr {
        ptr: std::ptr::null(),
        len: 5
    });
bad_test!(v2_huge_len, HUGE_LEN, |t| t.output = GapscoreStr {
    ptr: std::ptr::NonNull::<u8>::dangling().as_ptr(),
    len: usize::MAX / 2
});
bad_test!(v2_short_test, SHORT_TEST, |t| t.struct_size = 8);
bad_test!(v2_no_name, NO_NAME, |t| t.name = GapscoreStr::ABSENT);
bad_test!(v2_nan_duration, NAN_DURATION, |t| {
    t.flags = GAPSCORE_TEST_HAS_DURATION;
    t.duration = f64::NAN
});
bad_test!(v2_bad_flags, BAD_FLAGS, |t| t.flags = 0x80);
bad_test!(v2_bad_category, BAD_CATEGORY, |t| t.category = 42);
bad_test!(v2_null_attempts, NULL_ATTEMPTS, |t| t.attempt_count = 3);

/// A plugin compiled before `decided_at` was appended to `GapscoreTest`: its `struct_size` is
/// the base size, and the bytes after it are not its to describe (here junk that would be a
/// fault if the host read them as `decided_at`).
unsafe extern "C" fn v2_old_test(host: *const GapscoreHost, _: *const u8, _: usize) -> i32 {
    // SAFETY: valid table for the call.
    let h = unsafe { &*host };
    let mut t = test(s(b"old"));
    t.status = 4;
    t.struct_size = gapscore_adapter_sdk::abi::v2::GAPSCORE_TEST_BASE_SIZE as u32;
    t.decided_at = GapscoreStr {
        ptr: std::ptr::null(),
        len: 7,
    };
    // SAFETY: valid table; the test lives across the call.
    unsafe { (h.test_finished.expect("table"))(h.ctx, &t) };
    GAPSCORE_OK
}

unsafe extern "C" fn v2_null_test(host: *const GapscoreHost, _: *const u8, _: usize) -> i32 {
    // SAFETY: valid table for the call.
    let h = unsafe { &*host };
    // SAFETY: a NULL test, on purpose; the host must refuse it before reading.
    unsafe { (h.test_finished.expect("table"))(h.ctx, std::ptr::null()) };
    GAPSCORE_OK
}

unsafe extern "C" fn v2_bad_problem(host: *const GapscoreHost, _: *const u8, _: usize) -> i32 {
    // SAFETY: valid table for the call.
    let h = unsafe { &*host };
    // SAFETY: valid arguments apart from the kind, which is the fault.
    unsafe { (h.problem.expect("table"))(h.ctx, 0, s(b"x"), GapscoreStr::ABSENT, 1) };
    GAPSCORE_OK
}

unsafe extern "C" fn v2_null_read(host: *const GapscoreHost, _: *const u8, _: usize) -> i32 {
    // SAFETY: valid table for the call.
    let h = unsafe { &*host };
    // SAFETY: a NULL buffer with a capacity, on purpose.
    let n = unsafe { (h.read.expect("table"))(h.ctx, std::ptr::null_mut(), 10) };
    if n < 0 {
        GAPSCORE_ERR_STOPPED
    } else {
        GAPSCORE_OK
    }
}

unsafe extern "C" fn v2_false_stop(_: *const GapscoreHost, _: *const u8, _: usize) -> i32 {
    GAPSCORE_ERR_STOPPED
}

unsafe extern "C" fn v2_status_77(_: *const GapscoreHost, _: *const u8, _: usize) -> i32 {
    77
}

unsafe extern "C" fn v2_parse_error(host: *const GapscoreHost, _: *const u8, _: usize) -> i32 {
    // SAFETY: valid table for the call.
    let h = unsafe { &*host };
    // SAFETY: valid arguments.
    unsafe { (h.error.expect("table"))(h.ctx, s(b"bad thing"), 3, 5, GAPSCORE_NO_OFFSET) };
    GAPSCORE_ERR_PARSE
}

/// A well-behaved streaming plugin: one passing test per input line, named by the line, read
/// through `host->read` in small chunks; a started event before each result.
unsafe extern "C" fn v2_lines(host: *const GapscoreHost, _: *const u8, _: usize) -> i32 {
    // SAFETY: valid table for the call.
    let h = unsafe { &*host };
    let (read, started, finished) = (
        h.read.expect("table"),
        h.test_started.expect("table"),
        h.test_finished.expect("table"),
    );
    let mut line: Vec<u8> = Vec::new();
    let mut buf = [0u8; 7];
    let emit = |line: &[u8]| -> bool {
        let name = GapscoreStr {
            ptr: line.as_ptr(),
            len: line.len(),
        };
        let t = test(name);
        // SAFETY: valid table; `line` outlives both calls.
        unsafe { started(h.ctx, GapscoreStr::ABSENT, name, name) == 0 && finished(h.ctx, &t) == 0 }
    };
    loop {
        // SAFETY: `buf` is writable for its length.
        let n = unsafe { read(h.ctx, buf.as_mut_ptr(), buf.len()) };
        if n < 0 {
            return GAPSCORE_ERR_STOPPED;
        }
        if n == 0 {
            break;
        }
        for &b in &buf[..n as usize] {
            if b == b'\n' {
                if !line.is_empty() && !emit(&line) {
                    return GAPSCORE_ERR_STOPPED;
                }
                line.clear();
            } else {
                line.push(b);
            }
        }
    }
    if !line.is_empty() && !emit(&line) {
        return GAPSCORE_ERR_STOPPED;
    }
    GAPSCORE_OK
}

/// The fields [`v2_field_bytes`] can put its input in, by the input's first byte: the event
/// and the field's name in the host's messages.
pub const FIELD_BYTES_FIELDS: [(&str, &str); 18] = [
    ("test_finished", "id"),
    ("test_finished", "suite"),
    ("test_finished", "name"),
    ("test_finished", "message"),
    ("test_finished", "expected"),
    ("test_finished", "actual"),
    ("test_finished", "output"),
    ("test_finished", "file"),
    ("test_finished", "parent_id"),
    ("test_finished", "attempts[].message"),
    ("test_started", "suite"),
    ("test_started", "name"),
    ("test_started", "id"),
    ("producer", "name"),
    ("producer", "version"),
    ("problem", "detail"),
    ("problem", "suite"),
    ("warning", "message"),
];

/// Passes any bytes in any string of any event, so tests can check that the host validates
/// every field: the first input byte picks the field (an index into [`FIELD_BYTES_FIELDS`]),
/// the rest of the input is the string, and that one event is all the plugin sends.
unsafe extern "C" fn v2_field_bytes(host: *const GapscoreHost, _: *const u8, _: usize) -> i32 {
    // SAFETY: valid table for the call.
    let h = unsafe { &*host };
    let read = h.read.expect("table");
    let mut input = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        // SAFETY: `buf` is writable for its length.
        let n = unsafe { read(h.ctx, buf.as_mut_ptr(), buf.len()) };
        match usize::try_from(n) {
            Err(_) => return GAPSCORE_ERR_STOPPED,
            Ok(0) => break,
            Ok(n) => input.extend_from_slice(&buf[..n]),
        }
    }
    let Some((&field, bytes)) = input.split_first() else {
        return GAPSCORE_ERR_INVALID_ARG;
    };
    let v = GapscoreStr {
        ptr: bytes.as_ptr(),
        len: bytes.len(),
    };
    let (finished, started) = (
        h.test_finished.expect("table"),
        h.test_started.expect("table"),
    );
    let (producer, problem, warning) = (
        h.producer.expect("table"),
        h.problem.expect("table"),
        h.warning.expect("table"),
    );
    let mut t = test(s(b"t"));
    let attempt = GapscoreAttempt {
        status: 2,
        has_duration: 0,
        duration: 0.0,
        message: v,
    };
    let absent = GapscoreStr::ABSENT;
    match field {
        0 => t.id = v,
        1 => t.suite = v,
        2 => t.name = v,
        3 => t.message = v,
        4 => t.expected = v,
        5 => t.actual = v,
        6 => t.output = v,
        7 => t.file = v,
        8 => t.parent_id = v,
        9 => {
            t.attempts = &attempt;
            t.attempt_count = 1;
        }
        _ => {}
    }
    // SAFETY: valid table; `input`, `t` and `attempt` outlive the call.
    let rc = unsafe {
        match field {
            0..=9 => finished(h.ctx, &t),
            10 => started(h.ctx, v, s(b"t"), absent),
            11 => started(h.ctx, absent, v, absent),
            12 => started(h.ctx, absent, s(b"t"), v),
            13 => producer(h.ctx, v, absent),
            14 => producer(h.ctx, s(b"p"), v),
            15 => problem(h.ctx, 1, v, absent, 1),
            16 => problem(h.ctx, 1, s(b"x"), v, 1),
            17 => warning(h.ctx, v),
            _ => return GAPSCORE_ERR_INVALID_ARG,
        }
    };
    if rc == 0 {
        GAPSCORE_OK
    } else {
        GAPSCORE_ERR_STOPPED
    }
}

static SHORT_DESC: Desc2 = desc(c"v2_short_desc", 16, Some(v2_lines));
static NULL_PARSE: Desc2 = desc(c"v2_null_parse", V2, None);
static NULL_TEST: Desc2 = desc(c"v2_null_test", V2, Some(v2_null_test));
static OLD_TEST: Desc2 = desc(c"v2_old_test", V2, Some(v2_old_test));
static BAD_PROBLEM: Desc2 = desc(c"v2_bad_problem", V2, Some(v2_bad_problem));
static NULL_READ: Desc2 = desc(c"v2_null_read", V2, Some(v2_null_read));
static FALSE_STOP: Desc2 = desc(c"v2_false_stop", V2, Some(v2_false_stop));
static STATUS_77: Desc2 = desc(c"v2_status_77", V2, Some(v2_status_77));
static PARSE_ERROR: Desc2 = desc(c"v2_parse_error", V2, Some(v2_parse_error));
static LINES: Desc2 = desc(c"v2_lines", V2, Some(v2_lines));
static FIELD_BYTES: Desc2 = desc(c"v2_field_bytes", V2, Some(v2_field_bytes));

macro_rules! entry2 {
    ($($sym:ident => $desc:ident),* $(,)?) => {
        $(
            #[unsafe(no_mangle)]
            pub extern "C" fn $sym() -> *const c_void {
                (&raw const $desc.0).cast()
            }
        )*
    };
}

entry2!(
    gapscore_adapter_v2_short_desc => SHORT_DESC,
    gapscore_adapter_v2_null_parse => NULL_PARSE,
    gapscore_adapter_v2_bad_utf8 => BAD_UTF8,
    gapscore_adapter_v2_bad_status => BAD_STATUS,
    gapscore_adapter_v2_zero_status => ZERO_STATUS,
    gapscore_adapter_v2_null_with_len => NULL_WITH_LEN,
    gapscore_adapter_v2_huge_len => HUGE_LEN,
    gapscore_adapter_v2_short_test => SHORT_TEST,
    gapscore_adapter_v2_no_name => NO_NAME,
    gapscore_adapter_v2_nan_duration => NAN_DURATION,
    gapscore_adapter_v2_bad_flags => BAD_FLAGS,
    gapscore_adapter_v2_bad_category => BAD_CATEGORY,
    gapscore_adapter_v2_null_attempts => NULL_ATTEMPTS,
    gapscore_adapter_v2_null_test => NULL_TEST,
    gapscore_adapter_v2_old_test => OLD_TEST,
    gapscore_adapter_v2_bad_problem => BAD_PROBLEM,
    gapscore_adapter_v2_null_read => NULL_READ,
    gapscore_adapter_v2_false_stop => FALSE_STOP,
    gapscore_adapter_v2_status_77 => STATUS_77,
    gapscore_adapter_v2_parse_error => PARSE_ERROR,
    gapscore_adapter_v2_lines => LINES,
    gapscore_adapter_v2_field_bytes => FIELD_BYTES,
);
