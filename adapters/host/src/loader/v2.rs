//! ABI v2 calls: the host's side of `parse_stream`. The plugin pulls the input through
//! [`host_read`] and pushes events through the other callbacks, which check every pointer,
//! length, UTF-8 string and code before passing the event to the [`EventSink`] (a finished test
//! borrowed, so that only a sink that keeps it copies it). The first bad event stops the parse:
//! every later callback returns non-zero and does nothing, and the error names the plugin, the
//! event and the field. A panic inside a callback (a host bug) is caught there, so it never
//! unwinds through the plugin's C frames, and resumed after the call.

use std::ffi::c_void;
use std::io::BufRead;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use gapscore_adapter_sdk::abi::v2::{
    GAPSCORE_NO_OFFSET, GAPSCORE_TEST_BASE_SIZE, GAPSCORE_TEST_HAS_DURATION, GAPSCORE_TEST_PARENT,
    category_of, problem_of, status_of,
};
use gapscore_adapter_sdk::abi::{
    GAPSCORE_ERR_INTERNAL, GAPSCORE_ERR_INVALID_ARG, GAPSCORE_ERR_PANIC, GAPSCORE_ERR_PARSE,
    GAPSCORE_ERR_STOPPED, GAPSCORE_ERR_UNSUPPORTED, GAPSCORE_OK, GapscoreAdapterV2,
    GapscoreAttempt, GapscoreHost, GapscoreStr, GapscoreTest,
};
use gapscore_adapter_sdk::{
    AdapterError, Attempt, Code, EventSink, InputError, Location, ParseOptions, Problem, Producer,
    TestCase, TestCaseRef,
};

use super::PluginAdapter;
use super::call::{Call, Owned, Target, with_call};
use super::views::{Rejection, capped, text, view};

/// The most earlier attempts one test may carry.
pub const MAX_ATTEMPTS: usize = 10_000;

/// Runs a v2 `parse_stream` over `reader`, forwarding the plugin's events into `sink`.
pub(super) fn parse(
    plugin: &PluginAdapter,
    desc: &GapscoreAdapterV2,
    reader: &mut dyn BufRead,
    opts: &ParseOptions,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    run(plugin, desc, reader, opts, Target::Plain(sink), |_, _| {})
}

/// The table of a call's event callbacks over `ctx`, with `read` when the call has an input
/// to pull, and no parts.
pub(super) fn table(ctx: *mut c_void, read: bool) -> GapscoreHost {
    GapscoreHost {
        struct_size: size_of::<GapscoreHost>() as u32,
        reserved: 0,
        ctx,
        read: if read { Some(host_read) } else { None },
        producer: Some(host_producer),
        test_started: Some(host_test_started),
        test_finished: Some(host_test_finished),
        problem: Some(host_problem),
        warning: Some(host_warning),
        error: Some(host_error),
        parts: 0,
        reserved2: 0,
        input_len: 0,
        input_ctx: std::ptr::null_mut(),
        read_at: None,
        part_open: None,
        parts_fit: None,
        parts_check: None,
        parts_end: None,
        warning_coded: Some(host_warning_coded),
    }
}

/// Runs `parse_stream` over `reader` into `sink`, with `setup` adding to the table and call
/// (the parts offer) before the plugin sees them.
pub(super) fn run<'a>(
    plugin: &PluginAdapter,
    desc: &GapscoreAdapterV2,
    reader: &'a mut dyn BufRead,
    opts: &ParseOptions,
    sink: Target<'a>,
    setup: impl FnOnce(&mut GapscoreHost, &mut Call<'a>),
) -> Result<(), AdapterError> {
    let Some(parse_stream) = desc.parse_stream else {
        return Err(plugin.fail("function pointers vanished"));
    };
    let opts_json = serde_json::to_vec(opts).map_err(|e| plugin.fail(e))?;
    let mut call = Call::new(Some(reader), sink, plugin.debug);
    let mut table = table((&raw mut call).cast::<c_void>(), true);
    setup(&mut table, &mut call);
    // SAFETY: `table` and the `call` its ctx points to outlive the call; the callbacks match
    // the declared signatures; the options are valid for their length during the call. The
    // plugin must not keep any of these pointers after returning (docs/abi.md).
    let status = unsafe { parse_stream(&table, opts_json.as_ptr(), opts_json.len()) };
    // Parts still open are dropped before the file's consumer is used again.
    call.parts = None;
    if let Some(p) = call.panic.take() {
        resume_unwind(p);
    }
    if let Some(e) = call.read_error.take() {
        return Err(AdapterError::Io(gapscore_adapter_sdk::ReadError::new(
            crate::io_reason(&e),
            e,
        )));
    }
    if let Some(reason) = call.rejected.take() {
        return Err(plugin.fail(reason));
    }
    let message = |call: &Call<'_>| {
        call.error
            .as_ref()
            .map_or_else(|| "no message".to_owned(), |e| e.0.clone())
    };
    match status {
        GAPSCORE_OK if call.error.is_some() => {
            Err(plugin.fail(crate::fault::PluginFault::OkAfterError {
                message: message(&call),
            }))
        }
        GAPSCORE_OK => Ok(()),
        GAPSCORE_ERR_PARSE if call.error.is_none() => {
            Err(plugin.fail(crate::fault::PluginFault::ParseWithoutError))
        }
        GAPSCORE_ERR_PARSE => {
            let message = message(&call);
            let location = match call.error {
                Some((_, line, column, _)) if line > 0 => Some(Location::LineCol {
                    line: usize::try_from(line).unwrap_or(usize::MAX),
                    column: usize::try_from(column.max(1)).unwrap_or(usize::MAX),
                }),
                Some((_, _, _, offset)) if offset != GAPSCORE_NO_OFFSET => {
                    Some(Location::Offset(offset))
                }
                _ => None,
            };
            Err(AdapterError::Input(match location {
                Some(location) => InputError::Syntax { location, message },
                None => InputError::Unlocated(message),
            }))
        }
        GAPSCORE_ERR_UNSUPPORTED => Err(AdapterError::Unsupported(message(&call))),
        GAPSCORE_ERR_PANIC => Err(plugin.fail(format!("panicked: {}", message(&call)))),
        GAPSCORE_ERR_STOPPED => {
            Err(plugin
                .fail("returned GAPSCORE_ERR_STOPPED although the host did not ask it to stop"))
        }
        GAPSCORE_ERR_INVALID_ARG | GAPSCORE_ERR_INTERNAL => {
            Err(plugin.fail(format!("failed (status {status}): {}", message(&call))))
        }
        other => Err(plugin.fail(format!("returned unknown status {other}"))),
    }
}

macro_rules! view_or_reject {
    ($call:expr, $what:expr, $s:expr, $field:expr) => {
        match view(&$s, $field) {
            Ok(v) => v,
            Err((reason, bytes)) => {
                $call.reject($what, reason, bytes);
                return;
            }
        }
    };
}

unsafe extern "C" fn host_read(ctx: *mut c_void, buf: *mut u8, cap: usize) -> isize {
    let mut n: isize = -1;
    let body = |call: &mut Call<'_>| {
        if buf.is_null() && cap > 0 {
            call.reject("read", "buffer is NULL".to_owned(), None);
            return;
        }
        let cap = cap.min(isize::MAX as usize).min(1 << 30);
        if cap == 0 {
            n = 0;
            return;
        }
        // SAFETY: non-null, and the plugin promises `cap` writable bytes for the call.
        let out = unsafe { std::slice::from_raw_parts_mut(buf, cap) };
        let Some(reader) = call.reader.as_mut() else {
            call.reject(
                "read",
                "a part's table has no input to read".to_owned(),
                None,
            );
            return;
        };
        loop {
            match reader.read(out) {
                Ok(k) => {
                    n = k as isize;
                    return;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    call.read_error = Some(e);
                    return;
                }
            }
        }
    };
    // SAFETY: `ctx` is the call's, passed back by the plugin.
    unsafe { with_call(ctx, body) };
    n
}

unsafe extern "C" fn host_producer(
    ctx: *mut c_void,
    name: GapscoreStr,
    version: GapscoreStr,
) -> i32 {
    let body = |call: &mut Call<'_>| {
        let what = "producer";
        let Some(name) = view_or_reject!(call, what, name, "name") else {
            call.reject(what, "`name` is absent".to_owned(), None);
            return;
        };
        let version = view_or_reject!(call, what, version, "version");
        let mut p = Producer::new(name);
        p.version = version.map(str::to_owned);
        call.events += 1;
        call.sink.get().producer(p);
    };
    // SAFETY: `ctx` is the call's, passed back by the plugin.
    unsafe { with_call(ctx, body) }
}

unsafe extern "C" fn host_test_started(
    ctx: *mut c_void,
    suite: GapscoreStr,
    name: GapscoreStr,
    id: GapscoreStr,
) -> i32 {
    let body = |call: &mut Call<'_>| {
        let what = "test_started";
        let suite = view_or_reject!(call, what, suite, "suite");
        let Some(name) = view_or_reject!(call, what, name, "name") else {
            call.reject(what, "`name` is absent".to_owned(), None);
            return;
        };
        let id = view_or_reject!(call, what, id, "id");
        let id = match id {
            Some(id) if !id.is_empty() => id,
            _ => {
                TestCase::make_id_into(&mut call.owned.id, suite, name);
                call.owned.id.as_str()
            }
        };
        call.events += 1;
        call.sink.get().test_started(suite, name, id);
    };
    // SAFETY: `ctx` is the call's, passed back by the plugin.
    unsafe { with_call(ctx, body) }
}

unsafe extern "C" fn host_test_finished(ctx: *mut c_void, test: *const GapscoreTest) -> i32 {
    let body = |call: &mut Call<'_>| {
        let what = "test_finished";
        if test.is_null() {
            call.reject(what, "the test is NULL".to_owned(), None);
            return;
        }
        // SAFETY: non-null; the first member is read alone before the size is known.
        let size = unsafe { std::ptr::read_unaligned(test.cast::<u32>()) } as usize;
        if size < GAPSCORE_TEST_BASE_SIZE {
            call.reject(
                what,
                format!(
                    "struct_size is {size}, smaller than the {GAPSCORE_TEST_BASE_SIZE} bytes of GapscoreTest"
                ),
                None,
            );
            return;
        }
        // A plugin compiled before `decided_at` was appended passes a shorter struct: the
        // members it has are copied over an absent `decided_at`, never read past its end.
        let mut full = GapscoreTest::EMPTY;
        // SAFETY: `struct_size` (checked above to cover the base members) says how many bytes
        // the plugin's struct holds; at most that many, and at most the size of `full`, are
        // copied; every member is plain data for which any copied bytes are what the plugin
        // wrote. `full` lives until the end of this callback, like the plugin's struct.
        unsafe {
            std::ptr::copy_nonoverlapping(
                test.cast::<u8>(),
                (&raw mut full).cast::<u8>(),
                size.min(size_of::<GapscoreTest>()),
            );
        }
        let t = &full;
        match test_ref(t, &mut call.owned) {
            Ok(tc) => {
                call.events += 1;
                // Borrowed: only a sink that keeps the test (a failure, the run collector)
                // copies it, so a passing test costs no allocation here.
                call.sink.get().test_finished_ref(tc);
            }
            Err((reason, bytes)) => call.reject(what, reason, bytes),
        }
    };
    // SAFETY: `ctx` is the call's, passed back by the plugin.
    unsafe { with_call(ctx, body) }
}

/// Checks every member of a plugin's test and views it as a [`TestCaseRef`] over the plugin's
/// strings (valid for this callback only), with what must be made in `owned`.
#[inline]
fn test_ref<'v: 'o, 'o>(
    t: &'v GapscoreTest,
    owned: &'o mut Owned,
) -> Result<TestCaseRef<'o>, Rejection<'v>> {
    let status = status_of(t.status).ok_or_else(|| bad_status(t.status))?;
    let name = view(&t.name, "name")?.ok_or_else(name_absent)?;
    let suite = view(&t.suite, "suite")?;
    let id = view(&t.id, "id")?.filter(|id| !id.is_empty());
    let Owned {
        id: derived,
        message,
        expected,
        actual,
        output,
        attempts,
    } = owned;
    let id = match id {
        Some(id) => id,
        None => {
            TestCase::make_id_into(derived, suite, name);
            derived.as_str()
        }
    };
    let mut tc = TestCaseRef::new(suite, name, id, status);
    tc.message = text(view(&t.message, "message")?, message);
    tc.expected = text(view(&t.expected, "expected")?, expected);
    tc.actual = text(view(&t.actual, "actual")?, actual);
    tc.output = text(view(&t.output, "output")?, output);
    tc.file = view(&t.file, "file")?;
    tc.parent_id = view(&t.parent_id, "parent_id")?;
    tc.decided_at = view(&t.decided_at, "decided_at")?;
    tc.category = category_of(t.category).ok_or_else(|| bad_category(t.category))?;
    tc.line = (t.line > 0).then_some(t.line);
    if t.flags & !(GAPSCORE_TEST_HAS_DURATION | GAPSCORE_TEST_PARENT) != 0 {
        return Err(bad_flags(t.flags));
    }
    tc.parent = t.flags & GAPSCORE_TEST_PARENT != 0;
    if t.flags & GAPSCORE_TEST_HAS_DURATION != 0 {
        tc.duration = Some(duration(t.duration, "duration")?);
    }
    if t.attempt_count > 0 {
        tc.attempts = earlier_attempts(t, attempts)?;
    }
    Ok(tc)
}

/// The earlier attempts of a retried test, checked and copied into `attempts` (reused). Out of
/// line: most tests have none, and the loop would otherwise sit in every test's path.
#[inline(never)]
fn earlier_attempts<'v, 'o>(
    t: &'v GapscoreTest,
    attempts: &'o mut Vec<Attempt>,
) -> Result<&'o [Attempt], Rejection<'v>> {
    if t.attempts.is_null() || t.attempt_count > MAX_ATTEMPTS {
        return Err((
            format!(
                "`attempts` is {} with attempt_count {} (at most {MAX_ATTEMPTS})",
                if t.attempts.is_null() { "NULL" } else { "set" },
                t.attempt_count
            ),
            None,
        ));
    }
    // SAFETY: non-null, count bounded; the plugin promises `attempt_count` attempts for
    // the duration of the callback.
    let views: &[GapscoreAttempt] =
        unsafe { std::slice::from_raw_parts(t.attempts, t.attempt_count) };
    attempts.clear();
    attempts.reserve(views.len());
    for (i, a) in views.iter().enumerate() {
        let status = status_of(a.status).ok_or_else(|| {
            (
                format!(
                    "attempts[{i}].status {} is not a GAPSCORE_STATUS_* code",
                    a.status
                ),
                None,
            )
        })?;
        let mut at = Attempt::new(status);
        at.message = capped(view(&a.message, "attempts[].message")?);
        at.duration = match a.has_duration {
            0 => None,
            1 => Some(duration(a.duration, "attempts[].duration")?),
            n => return Err((format!("attempts[{i}].has_duration is {n}"), None)),
        };
        attempts.push(at);
    }
    Ok(attempts)
}

// The refusals of a test are built out of line, like the views' (views.rs): the checks stay a
// short straight path through `host_test_finished`, and the formatting runs only for a broken
// plugin.

#[cold]
#[inline(never)]
fn bad_status<'v>(code: u32) -> Rejection<'v> {
    (
        format!("status code {code} is not a GAPSCORE_STATUS_* code"),
        None,
    )
}

#[cold]
#[inline(never)]
fn name_absent<'v>() -> Rejection<'v> {
    ("`name` is absent".to_owned(), None)
}

#[cold]
#[inline(never)]
fn bad_category<'v>(code: u32) -> Rejection<'v> {
    (
        format!("category code {code} is not a GAPSCORE_CATEGORY_* code"),
        None,
    )
}

#[cold]
#[inline(never)]
fn bad_flags<'v>(flags: u32) -> Rejection<'v> {
    (format!("flags {flags:#x} has unknown bits"), None)
}

#[cold]
#[inline(never)]
fn bad_duration<'v>(d: f64, field: &str) -> Rejection<'v> {
    (
        format!("`{field}` is {d} (expected a finite number of seconds ≥ 0)"),
        None,
    )
}

#[inline]
fn duration<'v>(d: f64, field: &str) -> Result<f64, Rejection<'v>> {
    if d.is_finite() && d >= 0.0 {
        Ok(d)
    } else {
        Err(bad_duration(d, field))
    }
}

unsafe extern "C" fn host_problem(
    ctx: *mut c_void,
    kind: u32,
    detail: GapscoreStr,
    suite: GapscoreStr,
    count: u64,
) -> i32 {
    let body = |call: &mut Call<'_>| {
        let what = "problem";
        let Some(kind) = problem_of(kind) else {
            call.reject(
                what,
                format!("kind {kind} is not a GAPSCORE_PROBLEM_* code"),
                None,
            );
            return;
        };
        let detail = view_or_reject!(call, what, detail, "detail");
        let suite = view_or_reject!(call, what, suite, "suite");
        let mut p = Problem::new(kind, capped(detail).unwrap_or_default());
        p.suite = suite.map(str::to_owned);
        if count > 0 {
            p = p.with_count(count);
        }
        call.events += 1;
        call.sink.get().problem(p);
    };
    // SAFETY: `ctx` is the call's, passed back by the plugin.
    unsafe { with_call(ctx, body) }
}

unsafe extern "C" fn host_warning(ctx: *mut c_void, message: GapscoreStr) -> i32 {
    let body = |call: &mut Call<'_>| {
        let what = "warning";
        let Some(message) = view_or_reject!(call, what, message, "message") else {
            call.reject(what, "`message` is absent".to_owned(), None);
            return;
        };
        call.events += 1;
        call.sink
            .get()
            .warning(capped(Some(message)).unwrap_or_default());
    };
    // SAFETY: `ctx` is the call's, passed back by the plugin.
    unsafe { with_call(ctx, body) }
}

unsafe extern "C" fn host_warning_coded(
    ctx: *mut c_void,
    code: GapscoreStr,
    message: GapscoreStr,
) -> i32 {
    let body = |call: &mut Call<'_>| {
        let what = "warning_coded";
        let code = view_or_reject!(call, what, code, "code");
        let Some(message) = view_or_reject!(call, what, message, "message") else {
            call.reject(what, "`message` is absent".to_owned(), None);
            return;
        };
        // A code this gapscore does not know is the generic one (docs/codes.md).
        let code = code.map_or(Code::AdapterWarning, Code::lenient);
        call.events += 1;
        call.sink
            .get()
            .coded_warning(code, capped(Some(message)).unwrap_or_default());
    };
    // SAFETY: `ctx` is the call's, passed back by the plugin.
    unsafe { with_call(ctx, body) }
}

unsafe extern "C" fn host_error(
    ctx: *mut c_void,
    message: GapscoreStr,
    line: u64,
    column: u64,
    offset: u64,
) {
    // SAFETY: `ctx` is the call's, passed back by the plugin. The error is recorded even when
    // the parse was stopped: it only matters when the host has no reason of its own.
    let call = unsafe { &mut *ctx.cast::<Call<'_>>() };
    // Caught like every callback: a panic must not unwind through the plugin's frames.
    let recorded = catch_unwind(AssertUnwindSafe(|| {
        let text = match view(&message, "message") {
            Ok(m) => capped(Some(m.unwrap_or("no message"))).unwrap_or_default(),
            Err((reason, bytes)) => {
                let shown = match bytes {
                    Some(b) if call.debug => format!(": {}", crate::debug::excerpt(b, None)),
                    _ => String::new(),
                };
                format!("(the plugin's error message was unreadable: {reason}{shown})")
            }
        };
        call.error = Some((text, line, column, offset));
    }));
    if let Err(p) = recorded {
        call.panic = Some(p);
    }
}
