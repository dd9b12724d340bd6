//! C ABI v2: streaming. `parse_stream(host, options_json, options_len)` pulls the input through
//! `host->read` in chunks and pushes events through the host's function pointers
//! ([`GapscoreHost`]): `producer`, `test_started`, `test_finished` (a [`GapscoreTest`] of
//! borrowed UTF-8 views), `problem`, `warning`, and `error` for the reason of a failing status.
//! Every pointer a plugin passes is borrowed for that one call; the host copies what it keeps.
//! Nothing is allocated across the boundary, so there is no `free_buf` and no size cap.
//!
//! For Rust adapters, [`Descriptor`](super::Descriptor) and
//! [`parse_stream_shim`](super::parse_stream_shim) give an [`Adapter`](crate::Adapter) a
//! `BufRead` over `host->read` (its [`parse_reader`](crate::Adapter::parse_reader) streams)
//! and an [`EventSink`](crate::EventSink) that forwards to the host table; [`super::parts`]
//! reads a large input in parts when the host offers them.

use std::ffi::{c_char, c_void};
use std::mem::offset_of;

use gapscore_model::{Category, ProblemKind, Status};

/// A borrowed UTF-8 string view. `ptr == NULL` means absent (for optional fields); a non-null
/// `ptr` with `len == 0` is the empty string. Never NUL-terminated by contract.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct GapscoreStr {
    /// Start of the bytes, or null for "absent".
    pub ptr: *const u8,
    /// Number of bytes.
    pub len: usize,
}

impl GapscoreStr {
    /// The absent string `{NULL, 0}`.
    pub const ABSENT: GapscoreStr = GapscoreStr {
        ptr: std::ptr::null(),
        len: 0,
    };

    /// A view of `s`, valid while `s` is.
    pub fn of(s: &str) -> GapscoreStr {
        GapscoreStr {
            ptr: s.as_ptr(),
            len: s.len(),
        }
    }

    /// A view of an optional string: absent for `None`.
    pub fn of_opt(s: Option<&str>) -> GapscoreStr {
        s.map_or(GapscoreStr::ABSENT, GapscoreStr::of)
    }
}

/// One earlier attempt of a retried test.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct GapscoreAttempt {
    /// A `GAPSCORE_STATUS_*` code.
    pub status: u32,
    /// 1 when `duration` holds a value, 0 when unknown.
    pub has_duration: u32,
    /// Seconds, when `has_duration`.
    pub duration: f64,
    /// The attempt's failure message, or absent.
    pub message: GapscoreStr,
}

/// One finished test, every string borrowed for the duration of the `test_finished` call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct GapscoreTest {
    /// `sizeof(GapscoreTest)` as the plugin was compiled: fields are append-only.
    pub struct_size: u32,
    /// A `GAPSCORE_STATUS_*` code; anything else rejects the test.
    pub status: u32,
    /// Stable id; absent or empty: derived as `suite::name` (or `name`).
    pub id: GapscoreStr,
    /// Suite path, or absent.
    pub suite: GapscoreStr,
    /// The test's name; required.
    pub name: GapscoreStr,
    /// Failure, error or skip message, or absent.
    pub message: GapscoreStr,
    /// Expected value, or absent.
    pub expected: GapscoreStr,
    /// Actual value, or absent.
    pub actual: GapscoreStr,
    /// Captured output, or absent.
    pub output: GapscoreStr,
    /// Source file, or absent.
    pub file: GapscoreStr,
    /// The id of the enclosing test that is itself a result, or absent.
    pub parent_id: GapscoreStr,
    /// Earlier attempts (`attempt_count` of them), or null with a count of 0.
    pub attempts: *const GapscoreAttempt,
    /// Number of earlier attempts.
    pub attempt_count: usize,
    /// Seconds, when `flags` has `GAPSCORE_TEST_HAS_DURATION`.
    pub duration: f64,
    /// Source line, 0 when unknown.
    pub line: u32,
    /// A `GAPSCORE_CATEGORY_*` code; 0 when none.
    pub category: u32,
    /// `GAPSCORE_TEST_HAS_DURATION | GAPSCORE_TEST_PARENT`.
    pub flags: u32,
    /// Zero; keeps the layout free of implicit padding.
    pub reserved: u32,
    /// Where a skip or xfail was decided (`path:line`), or absent (appended in gapscore
    /// 0.1 with model 0.4: a host reads it only when `struct_size` covers it, so a plugin
    /// compiled without it still loads, and its skips are unlocated).
    pub decided_at: GapscoreStr,
}

impl GapscoreTest {
    /// Every member zero or absent (`status` 0 is never valid): a base for a test built member
    /// by member, and what the host copies a shorter plugin struct over.
    pub const EMPTY: GapscoreTest = GapscoreTest {
        struct_size: 0,
        status: 0,
        id: GapscoreStr::ABSENT,
        suite: GapscoreStr::ABSENT,
        name: GapscoreStr::ABSENT,
        message: GapscoreStr::ABSENT,
        expected: GapscoreStr::ABSENT,
        actual: GapscoreStr::ABSENT,
        output: GapscoreStr::ABSENT,
        file: GapscoreStr::ABSENT,
        parent_id: GapscoreStr::ABSENT,
        attempts: std::ptr::null(),
        attempt_count: 0,
        duration: 0.0,
        line: 0,
        category: 0,
        flags: 0,
        reserved: 0,
        decided_at: GapscoreStr::ABSENT,
    };
}

/// The size of [`GapscoreTest`] before `decided_at` was appended: the least `struct_size` a
/// host accepts.
pub const GAPSCORE_TEST_BASE_SIZE: usize = std::mem::offset_of!(GapscoreTest, decided_at);

/// `flags` bit: `duration` holds a value.
pub const GAPSCORE_TEST_HAS_DURATION: u32 = 1;
/// `flags` bit: the test has children that are results of their own.
pub const GAPSCORE_TEST_PARENT: u32 = 2;
/// `error`'s `offset` when the error has no byte offset.
pub const GAPSCORE_NO_OFFSET: u64 = u64::MAX;

/// `read(ctx, buf, cap)`: fills up to `cap` bytes; returns how many (0 at the end of the input)
/// or -1 when the host could not read (the plugin then returns [`GAPSCORE_ERR_STOPPED`](super::GAPSCORE_ERR_STOPPED)).
pub type ReadFn = unsafe extern "C" fn(*mut c_void, *mut u8, usize) -> isize;
/// `producer(ctx, name, version)`; `version` may be absent.
pub type ProducerFn = unsafe extern "C" fn(*mut c_void, GapscoreStr, GapscoreStr) -> i32;
/// `test_started(ctx, suite, name, id)`: `id` must equal the finished test's id.
pub type TestStartedFn =
    unsafe extern "C" fn(*mut c_void, GapscoreStr, GapscoreStr, GapscoreStr) -> i32;
/// `test_finished(ctx, test)`.
pub type TestFinishedFn = unsafe extern "C" fn(*mut c_void, *const GapscoreTest) -> i32;
/// `problem(ctx, kind, detail, suite, count)`: `count` 0 means 1.
pub type ProblemFn = unsafe extern "C" fn(*mut c_void, u32, GapscoreStr, GapscoreStr, u64) -> i32;
/// `warning(ctx, message)`.
pub type WarningFn = unsafe extern "C" fn(*mut c_void, GapscoreStr) -> i32;

/// `warning_coded(ctx, code, message)`: a warning with its registry code (`W108`,
/// docs/codes.md); a code the host does not know is read as `W001`.
pub type WarningCodedFn = unsafe extern "C" fn(*mut c_void, GapscoreStr, GapscoreStr) -> i32;
/// `error(ctx, message, line, column, offset)`: why `parse_stream` is about to return a failing
/// status. `line`/`column` 1-based, 0 when unknown; `offset` a byte offset into the input or
/// [`GAPSCORE_NO_OFFSET`].
pub type ErrorFn = unsafe extern "C" fn(*mut c_void, GapscoreStr, u64, u64, u64);

/// `read_at(input_ctx, offset, buf, cap)`: fills up to `cap` bytes of the input from byte
/// `offset`; returns how many (0 at or past the end) or -1. Any thread, concurrently.
pub type ReadAtFn = unsafe extern "C" fn(*mut c_void, u64, *mut u8, usize) -> isize;
/// `part_open(ctx)`: a new sink table for a later part of the input, or null when the host
/// takes no more parts.
pub type PartOpenFn = unsafe extern "C" fn(*mut c_void) -> *const GapscoreHost;
/// `parts_fit(ctx, tests)`: 0 when the host would take parts of an input of about `tests`
/// tests in all; non-zero when it would refuse them (read the input in one pass).
pub type PartsFitFn = unsafe extern "C" fn(*mut c_void, u64) -> i32;
/// `parts_check(ctx, parts, n)`: 0 when the `n` parts (every open part, in the input's order)
/// can be appended after the events sent through `ctx` exactly as if one table had received
/// them all; non-zero when not.
pub type PartsCheckFn = unsafe extern "C" fn(*mut c_void, *const *const GapscoreHost, usize) -> i32;
/// `parts_end(ctx, parts, n, append)`: ends the `n` parts. `append` 1: appends them in that
/// order (every open part, each once) and returns 0, or, when they cannot be appended exactly,
/// drops them, stops the parse and returns non-zero; `append` 0: drops them and returns 0.
pub type PartsEndFn =
    unsafe extern "C" fn(*mut c_void, *const *const GapscoreHost, usize, u32) -> i32;

/// What the host passes to `parse_stream`: the input and the event sink, as C function pointers
/// sharing one `ctx`. Valid for the duration of the `parse_stream` call only; the callbacks must
/// be called on the thread that called `parse_stream` (but for `read_at`, and a part's table:
/// see "Reading in parts" in docs/abi.md). Each event callback returns 0 to go on; non-zero
/// means the host rejected the event or wants the parse to stop: the plugin should return
/// [`GAPSCORE_ERR_STOPPED`](super::GAPSCORE_ERR_STOPPED) soon (further events are ignored).
///
/// The members from `parts` on were appended to the first v2 table: a host table whose
/// `struct_size` ends before them ([`HOST_BASE_SIZE`], a host from before them) offers no
/// parts.
#[repr(C)]
#[derive(Debug)]
pub struct GapscoreHost {
    /// `sizeof(GapscoreHost)` as the host was compiled: members are append-only.
    pub struct_size: u32,
    /// Zero.
    pub reserved: u32,
    /// Passed back as the first argument of every function below.
    pub ctx: *mut c_void,
    /// Pulls input bytes.
    pub read: Option<ReadFn>,
    /// The tool that produced the input.
    pub producer: Option<ProducerFn>,
    /// A test started.
    pub test_started: Option<TestStartedFn>,
    /// A test has its final result.
    pub test_finished: Option<TestFinishedFn>,
    /// A run-level problem.
    pub problem: Option<ProblemFn>,
    /// A warning that does not change results.
    pub warning: Option<WarningFn>,
    /// The reason for a failing status.
    pub error: Option<ErrorFn>,
    /// The most parts (the first, read through `read`, among them) the host takes this input
    /// in; 0 or 1: one pass only, and the members below are null.
    pub parts: u32,
    /// Zero.
    pub reserved2: u32,
    /// The input's length in bytes, when `parts` > 1.
    pub input_len: u64,
    /// `read_at`'s first argument (not `ctx`).
    pub input_ctx: *mut c_void,
    /// Reads the input at any offset.
    pub read_at: Option<ReadAtFn>,
    /// Opens a later part.
    pub part_open: Option<PartOpenFn>,
    /// Whether parts of an input of about this many tests would be taken.
    pub parts_fit: Option<PartsFitFn>,
    /// Whether the open parts can be appended exactly.
    pub parts_check: Option<PartsCheckFn>,
    /// Appends or drops the open parts.
    pub parts_end: Option<PartsEndFn>,
    /// A warning with its code; appended after the parts members (a table whose
    /// `struct_size` ends before it, [`HOST_PARTS_SIZE`], has none: use `warning`).
    pub warning_coded: Option<WarningCodedFn>,
}

/// The size of [`GapscoreHost`] up to `error`: the smallest host table a plugin accepts (one
/// from a host that offers no parts).
pub const HOST_BASE_SIZE: usize = offset_of!(GapscoreHost, parts);

/// The size of [`GapscoreHost`] up to `parts_end`: a table this long or longer offers parts.
pub const HOST_PARTS_SIZE: usize = offset_of!(GapscoreHost, warning_coded);

/// `parse_stream(host, options_json, options_len)`: a status code.
pub type ParseStreamFn = unsafe extern "C" fn(*const GapscoreHost, *const u8, usize) -> i32;

/// The adapter descriptor, v2. The first seven members have the layout of v1's.
#[repr(C)]
#[derive(Debug)]
pub struct GapscoreAdapterV2 {
    /// 2. Must be first: the host reads it before anything else.
    pub abi_version: u32,
    /// `sizeof(GapscoreAdapterV2)` as the plugin was compiled.
    pub struct_size: u32,
    /// Static NUL-terminated UTF-8 adapter name.
    pub name: *const c_char,
    /// Static NUL-terminated UTF-8 adapter version.
    pub adapter_version: *const c_char,
    /// `format_count` static NUL-terminated UTF-8 format ids.
    pub format_ids: *const *const c_char,
    /// Number of format ids.
    pub format_count: usize,
    /// Confidence that the adapter reads a file (v1's signature).
    pub detect: Option<super::DetectFn>,
    /// Reads one document, streaming.
    pub parse_stream: Option<ParseStreamFn>,
}

macro_rules! fields {
    ($ty:ty; $($cty:literal $name:ident),* $(,)?) => {
        [$(($cty, stringify!($name), offset_of!($ty, $name))),*]
    };
}

/// C type, name and offset of every member of [`GapscoreAdapterV2`], in layout order.
pub const DESCRIPTOR_FIELDS_V2: [(&str, &str, usize); 8] = fields!(GapscoreAdapterV2;
    "uint32_t" abi_version, "uint32_t" struct_size, "const char *" name,
    "const char *" adapter_version, "const char *const *" format_ids, "size_t" format_count,
    "GapscoreDetectFn" detect, "GapscoreParseStreamFn" parse_stream);

/// Members of [`GapscoreStr`].
pub const STR_FIELDS: [(&str, &str, usize); 2] =
    fields!(GapscoreStr; "const uint8_t *" ptr, "size_t" len);

/// Members of [`GapscoreAttempt`].
pub const ATTEMPT_FIELDS: [(&str, &str, usize); 4] = fields!(GapscoreAttempt;
    "uint32_t" status, "uint32_t" has_duration, "double" duration, "GapscoreStr" message);

/// Members of [`GapscoreTest`].
pub const TEST_FIELDS: [(&str, &str, usize); 19] = fields!(GapscoreTest;
    "uint32_t" struct_size, "uint32_t" status, "GapscoreStr" id, "GapscoreStr" suite,
    "GapscoreStr" name, "GapscoreStr" message, "GapscoreStr" expected, "GapscoreStr" actual,
    "GapscoreStr" output, "GapscoreStr" file, "GapscoreStr" parent_id,
    "const GapscoreAttempt *" attempts, "size_t" attempt_count, "double" duration,
    "uint32_t" line, "uint32_t" category, "uint32_t" flags, "uint32_t" reserved,
    "GapscoreStr" decided_at);

/// Members of [`GapscoreHost`].
pub const HOST_FIELDS: [(&str, &str, usize); 20] = fields!(GapscoreHost;
    "uint32_t" struct_size, "uint32_t" reserved, "void *" ctx, "GapscoreReadFn" read,
    "GapscoreProducerFn" producer, "GapscoreTestStartedFn" test_started,
    "GapscoreTestFinishedFn" test_finished, "GapscoreProblemFn" problem,
    "GapscoreWarningFn" warning, "GapscoreErrorFn" error, "uint32_t" parts,
    "uint32_t" reserved2, "uint64_t" input_len, "void *" input_ctx, "GapscoreReadAtFn" read_at,
    "GapscorePartOpenFn" part_open, "GapscorePartsFitFn" parts_fit,
    "GapscorePartsCheckFn" parts_check, "GapscorePartsEndFn" parts_end,
    "GapscoreWarningCodedFn" warning_coded);

/// The C code of a status: 1 + its index in [`Status::ALL`] (0 is never valid, so a zeroed
/// struct is refused, not read as a pass). A `match`, not a search of the list: it runs for
/// every test a plugin sends (the tests pin it to the list's order).
pub fn status_code(s: Status) -> u32 {
    match s {
        Status::Passed => 1,
        Status::Failed => 2,
        Status::Errored => 3,
        Status::Skipped => 4,
        Status::Xfailed => 5,
        Status::Xpassed => 6,
        Status::Todo => 7,
    }
}

/// The status of a C code, `None` for anything else.
pub fn status_of(code: u32) -> Option<Status> {
    Status::ALL.get((code as usize).checked_sub(1)?).copied()
}

/// The category codes' order (the model's `Category::ALL`, which the SDK can use once it
/// depends on a model release that has it: `cargo package` builds the SDK against the
/// published model 0.2.0).
const CATEGORIES: [Category; 5] = [
    Category::HappyPath,
    Category::EdgeCase,
    Category::ErrorHandling,
    Category::Security,
    Category::Unknown,
];

/// The C code of a category: 1 + its index in §5.3 order, `unknown` last; 0 is "none".
pub fn category_code(c: Option<Category>) -> u32 {
    match c {
        None => 0,
        Some(Category::HappyPath) => 1,
        Some(Category::EdgeCase) => 2,
        Some(Category::ErrorHandling) => 3,
        Some(Category::Security) => 4,
        Some(Category::Unknown) => 5,
    }
}

/// The category of a C code: `Some(None)` for 0 (no category), `None` for an unknown code.
pub fn category_of(code: u32) -> Option<Option<Category>> {
    match code {
        0 => Some(None),
        n => CATEGORIES.get(n as usize - 1).copied().map(Some),
    }
}

/// The C code of a problem kind: 1 + its index in [`ProblemKind::ALL`].
pub fn problem_code(k: ProblemKind) -> u32 {
    ProblemKind::ALL.iter().position(|x| *x == k).unwrap_or(0) as u32 + 1
}

/// The problem kind of a C code.
pub fn problem_of(code: u32) -> Option<ProblemKind> {
    ProblemKind::ALL
        .get((code as usize).checked_sub(1)?)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_zero_is_never_a_status() {
        for s in Status::ALL {
            assert_eq!(status_of(status_code(s)), Some(s));
        }
        assert_eq!(status_of(0), None);
        assert_eq!(status_of(8), None);
        for k in ProblemKind::ALL {
            assert_eq!(problem_of(problem_code(k)), Some(k));
        }
        assert_eq!(problem_of(0), None);
        for (i, s) in Status::ALL.into_iter().enumerate() {
            assert_eq!(status_code(s) as usize, i + 1, "{s:?}: the list's order");
        }
        // The same order as the model's list (which the SDK cannot name outside its tests yet).
        assert_eq!(CATEGORIES, Category::ALL);
        for (i, c) in CATEGORIES.into_iter().enumerate() {
            assert_eq!(category_of(category_code(Some(c))), Some(Some(c)));
            assert_eq!(
                category_code(Some(c)) as usize,
                i + 1,
                "{c:?}: the list's order"
            );
        }
        assert_eq!(category_of(0), Some(None));
        assert_eq!(category_of(6), None);
    }

    #[test]
    fn member_lists_cover_their_structs() {
        fn check(fields: &[(&str, &str, usize)], size: usize, last: usize) {
            let offsets: Vec<usize> = fields.iter().map(|f| f.2).collect();
            assert!(offsets.windows(2).all(|w| w[0] < w[1]), "{offsets:?}");
            assert_eq!(offsets[0], 0);
            assert_eq!(offsets[offsets.len() - 1] + last, size);
        }
        check(&DESCRIPTOR_FIELDS_V2, size_of::<GapscoreAdapterV2>(), 8);
        check(&TEST_FIELDS, size_of::<GapscoreTest>(), 16);
        check(&HOST_FIELDS, size_of::<GapscoreHost>(), 8);
        check(&ATTEMPT_FIELDS, size_of::<GapscoreAttempt>(), 16);
        check(&STR_FIELDS, size_of::<GapscoreStr>(), 8);
        // The v2 descriptor begins with v1's layout, up to `detect`.
        for (a, b) in DESCRIPTOR_FIELDS_V2
            .iter()
            .zip(super::super::v1::DESCRIPTOR_FIELDS_V1)
        {
            if a.1 == "parse_stream" {
                break;
            }
            assert_eq!((a.1, a.2), (b.1, b.2));
        }
    }
}
