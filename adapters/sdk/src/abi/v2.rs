//! C ABI v2: streaming. `parse_stream(host, options_json, options_len)` pulls the input through
//! `host->read` in chunks and pushes events through the host's function pointers
//! ([`GapscoreHost`]): `producer`, `test_started`, `test_finished` (a [`GapscoreTest`] of
//! borrowed UTF-8 views), `problem`, `warning`, and `error` for the reason of a failing status.
//! Every pointer a plugin passes is borrowed for that one call; the host copies what it keeps.
//! Nothing is allocated across the boundary, so there is no `free_buf` and no size cap.
//!
//! For Rust adapters, [`Descriptor`] and [`parse_stream_shim`] give an [`Adapter`](crate::Adapter) a `BufRead`
//! over `host->read` (its [`parse_reader`](crate::Adapter::parse_reader) streams) and an [`EventSink`] that forwards
//! to the host table.

use std::cell::Cell;
use std::ffi::{CString, c_char, c_void};
use std::io::{BufReader, Read};
use std::mem::{offset_of, size_of};
use std::panic::{AssertUnwindSafe, catch_unwind};

use gapscore_model::{Category, InputError, Location, Problem, ProblemKind, Status};

use super::{
    Exported, GAPSCORE_ERR_INTERNAL, GAPSCORE_ERR_INVALID_ARG, GAPSCORE_ERR_PANIC,
    GAPSCORE_ERR_PARSE, GAPSCORE_ERR_STOPPED, GAPSCORE_ERR_UNSUPPORTED, GAPSCORE_OK, detect_shim,
    panic_message,
};
use crate::{AdapterError, EventSink, ParseOptions, Producer, TestCase, TestCaseRef};

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
}

/// `flags` bit: `duration` holds a value.
pub const GAPSCORE_TEST_HAS_DURATION: u32 = 1;
/// `flags` bit: the test has children that are results of their own.
pub const GAPSCORE_TEST_PARENT: u32 = 2;
/// `error`'s `offset` when the error has no byte offset.
pub const GAPSCORE_NO_OFFSET: u64 = u64::MAX;

/// `read(ctx, buf, cap)`: fills up to `cap` bytes; returns how many (0 at the end of the input)
/// or -1 when the host could not read (the plugin then returns [`GAPSCORE_ERR_STOPPED`]).
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
/// `error(ctx, message, line, column, offset)`: why `parse_stream` is about to return a failing
/// status. `line`/`column` 1-based, 0 when unknown; `offset` a byte offset into the input or
/// [`GAPSCORE_NO_OFFSET`].
pub type ErrorFn = unsafe extern "C" fn(*mut c_void, GapscoreStr, u64, u64, u64);

/// What the host passes to `parse_stream`: the input and the event sink, as C function pointers
/// sharing one `ctx`. Valid for the duration of the `parse_stream` call only; the callbacks must
/// be called on the thread that called `parse_stream`. Each event callback returns 0 to go on;
/// non-zero means the host rejected the event or wants the parse to stop: the plugin should
/// return [`GAPSCORE_ERR_STOPPED`] soon (further events are ignored).
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
}

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
pub const TEST_FIELDS: [(&str, &str, usize); 18] = fields!(GapscoreTest;
    "uint32_t" struct_size, "uint32_t" status, "GapscoreStr" id, "GapscoreStr" suite,
    "GapscoreStr" name, "GapscoreStr" message, "GapscoreStr" expected, "GapscoreStr" actual,
    "GapscoreStr" output, "GapscoreStr" file, "GapscoreStr" parent_id,
    "const GapscoreAttempt *" attempts, "size_t" attempt_count, "double" duration,
    "uint32_t" line, "uint32_t" category, "uint32_t" flags, "uint32_t" reserved);

/// Members of [`GapscoreHost`].
pub const HOST_FIELDS: [(&str, &str, usize); 10] = fields!(GapscoreHost;
    "uint32_t" struct_size, "uint32_t" reserved, "void *" ctx, "GapscoreReadFn" read,
    "GapscoreProducerFn" producer, "GapscoreTestStartedFn" test_started,
    "GapscoreTestFinishedFn" test_finished, "GapscoreProblemFn" problem,
    "GapscoreWarningFn" warning, "GapscoreErrorFn" error);

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

/// A descriptor with the owned strings it points into, kept alive in a `static` by
/// [`export_adapter!`](crate::export_adapter).
#[derive(Debug)]
pub struct Descriptor {
    desc: GapscoreAdapterV2,
    // Owned storage the raw pointers in `desc` point into; never moved out or mutated.
    _strings: Vec<CString>,
    _format_ptrs: Box<[*const c_char]>,
}

// SAFETY: the descriptor is immutable after construction and only holds pointers into its own
// heap storage (which never moves) and to `extern "C"` functions; sharing it across threads is
// what the ABI contract (docs/abi.md, "Threads") requires and allows.
unsafe impl Send for Descriptor {}
// SAFETY: as above; no interior mutability.
unsafe impl Sync for Descriptor {}

impl Descriptor {
    /// Builds the descriptor of an exported adapter type; its name is [`Exported::NAME`], the
    /// literal the entry symbol was checked against.
    pub fn new<A: Exported>() -> Descriptor {
        let info = A::instance().info();
        // Interior NULs cannot be represented in C strings; replace rather than fail at load.
        let c = |s: &str| CString::new(s.replace('\0', "?")).unwrap_or_default();
        let mut strings = vec![c(A::NAME), c(&info.version)];
        strings.extend(info.formats.iter().map(|f| c(f)));
        let format_ptrs: Box<[*const c_char]> = strings[2..].iter().map(|s| s.as_ptr()).collect();
        let desc = GapscoreAdapterV2 {
            abi_version: 2,
            struct_size: size_of::<GapscoreAdapterV2>() as u32,
            name: strings[0].as_ptr(),
            adapter_version: strings[1].as_ptr(),
            format_ids: format_ptrs.as_ptr(),
            format_count: format_ptrs.len(),
            detect: Some(detect_shim::<A>),
            parse_stream: Some(parse_stream_shim::<A>),
        };
        Descriptor {
            desc,
            _strings: strings,
            _format_ptrs: format_ptrs,
        }
    }

    /// The pointer the entry function returns.
    pub fn as_ptr(&self) -> *const GapscoreAdapterV2 {
        &self.desc
    }
}

/// The plugin side of one `parse_stream` call: the host table and whether it asked to stop.
struct Host<'h> {
    table: &'h GapscoreHost,
    stopped: Cell<bool>,
}

impl Host<'_> {
    /// Applies a callback's answer: non-zero stops the parse.
    fn answer(&self, rc: i32) {
        if rc != 0 {
            self.stopped.set(true);
        }
    }

    fn error(&self, message: &str, line: usize, column: usize, offset: u64) {
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

/// `host->read` as a [`Read`]: an error once the host asked to stop, so the adapter ends soon.
struct HostRead<'a, 'h>(&'a Host<'h>);

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
struct HostSink<'a, 'h>(&'a Host<'h>);

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
}

/// `parse_stream` for an exported adapter: runs [`parse_reader`](crate::Adapter::parse_reader) over `host->read`,
/// forwarding its events; a failure's reason goes to `host->error` before the status returns.
///
/// # Safety
/// `host` must point to a valid [`GapscoreHost`] whose functions may be called with its `ctx`
/// on this thread during the call; `options_json` must point to `options_len` bytes (or be
/// null with a length of 0).
pub unsafe extern "C" fn parse_stream_shim<A: Exported>(
    host: *const GapscoreHost,
    options_json: *const u8,
    options_len: usize,
) -> i32 {
    if host.is_null() || (options_json.is_null() && options_len > 0) {
        return GAPSCORE_ERR_INVALID_ARG;
    }
    // SAFETY: non-null and valid for the call per the caller's contract.
    let table = unsafe { &*host };
    if (table.struct_size as usize) < size_of::<GapscoreHost>() || table.read.is_none() {
        return GAPSCORE_ERR_INVALID_ARG;
    }
    let opts: &[u8] = if options_len == 0 {
        &[]
    } else {
        // SAFETY: non-null (checked) and `options_len` readable bytes per the contract.
        unsafe { std::slice::from_raw_parts(options_json, options_len) }
    };
    let host = Host {
        table,
        stopped: Cell::new(false),
    };
    match catch_unwind(AssertUnwindSafe(|| run_stream::<A>(&host, opts))) {
        Ok(status) => status,
        Err(p) => {
            host.error(&panic_message(p.as_ref()), 0, 0, GAPSCORE_NO_OFFSET);
            GAPSCORE_ERR_PANIC
        }
    }
}

fn run_stream<A: Exported>(host: &Host<'_>, opts: &[u8]) -> i32 {
    let opts: ParseOptions = if opts.is_empty() {
        ParseOptions::default()
    } else {
        match serde_json::from_slice(opts) {
            Ok(o) => o,
            Err(e) => {
                host.error(
                    &format!("invalid options object: {e}"),
                    0,
                    0,
                    GAPSCORE_NO_OFFSET,
                );
                return GAPSCORE_ERR_INVALID_ARG;
            }
        }
    };
    let mut reader = BufReader::with_capacity(64 * 1024, HostRead(host));
    let mut sink = HostSink(host);
    let result = A::instance().parse_reader(&mut reader, &opts, &mut sink);
    if host.stopped.get() {
        // The host's own reason (a rejected event, a failed read) is what the user sees.
        return GAPSCORE_ERR_STOPPED;
    }
    match result {
        Ok(()) => GAPSCORE_OK,
        Err(AdapterError::Input(e)) => {
            let (line, column, offset) = match e.location() {
                Some(Location::LineCol { line, column }) => (*line, *column, GAPSCORE_NO_OFFSET),
                Some(Location::Offset(o)) => (0, 0, *o),
                _ => (0, 0, GAPSCORE_NO_OFFSET),
            };
            host.error(&input_message(&e), line, column, offset);
            GAPSCORE_ERR_PARSE
        }
        Err(AdapterError::Unsupported(m)) => {
            host.error(&m, 0, 0, GAPSCORE_NO_OFFSET);
            GAPSCORE_ERR_UNSUPPORTED
        }
        Err(AdapterError::Panic(m)) => {
            host.error(&m, 0, 0, GAPSCORE_NO_OFFSET);
            GAPSCORE_ERR_PANIC
        }
        Err(e) => {
            host.error(&e.to_string(), 0, 0, GAPSCORE_NO_OFFSET);
            GAPSCORE_ERR_INTERNAL
        }
    }
}

/// An input error's message without its place (which crosses as numbers).
fn input_message(e: &InputError) -> String {
    match e {
        InputError::Syntax { message, .. } | InputError::Content { message, .. } => message.clone(),
        InputError::Empty(m) | InputError::Unlocated(m) => m.clone(),
        other => other.to_string(),
    }
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
        check(&TEST_FIELDS, size_of::<GapscoreTest>(), 4);
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
