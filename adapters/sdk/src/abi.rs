//! The C ABI v1 between gapscore and adapter plugins.
//!
//! A plugin is a shared library exporting one function per adapter, named
//! `gapscore_adapter_<name>` (`-` in the name becomes `_`), that returns a pointer to a static
//! [`GapscoreAdapterV1`]. The descriptor starts with `abi_version` and `struct_size`; fields are
//! only ever appended, so a host reads a newer field only when `struct_size` covers it. `parse`
//! returns the canonical test run as UTF-8 JSON (the `test-results.schema.json` shape) in a buffer
//! the plugin allocates and the host hands back to the plugin's `free_buf` exactly once.
//! docs/abi.md is the full contract; [`c_header`] generates the committed C header.
//!
//! For Rust adapters, [`export_adapter!`](crate::export_adapter) writes the entry function; the
//! shims here catch panics (a panic crossing `extern "C"` would abort the host) and turn them
//! into [`GAPSCORE_ERR_PANIC`].

#![allow(unsafe_code)] // The FFI boundary: every unsafe block below carries its SAFETY argument.

use std::ffi::{CStr, CString, c_char};
use std::fmt::Write as _;
use std::mem::{offset_of, size_of};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::{Adapter, AdapterError, ParseOptions, parse_to_raw_run};

/// The ABI version this SDK builds and this host reads.
pub const GAPSCORE_ABI_VERSION: u32 = 1;
/// The oldest ABI version a host of this SDK accepts.
pub const GAPSCORE_MIN_ABI_VERSION: u32 = 1;

/// Success: `out` holds the results JSON.
pub const GAPSCORE_OK: i32 = 0;
/// The input is not valid for the format: `out` holds `{"message", "line"?, "column"?}`.
pub const GAPSCORE_ERR_PARSE: i32 = 1;
/// The adapter cannot read this variant of its format.
pub const GAPSCORE_ERR_UNSUPPORTED: i32 = 2;
/// A null pointer or a bad options object was passed.
pub const GAPSCORE_ERR_INVALID_ARG: i32 = 3;
/// The adapter panicked; `out` holds the panic message.
pub const GAPSCORE_ERR_PANIC: i32 = 4;
/// Anything else went wrong inside the adapter.
pub const GAPSCORE_ERR_INTERNAL: i32 = 5;

/// The largest output a host accepts from `parse` (256 MiB): a bigger length is taken as a
/// corrupt descriptor or buffer, not as results.
pub const GAPSCORE_MAX_OUTPUT_LEN: usize = 256 * 1024 * 1024;

/// A byte buffer allocated by the plugin and released by its `free_buf`.
#[repr(C)]
#[derive(Debug)]
pub struct GapscoreBuf {
    /// Start of the bytes; may be null when `len` is 0.
    pub ptr: *mut u8,
    /// Number of bytes.
    pub len: usize,
}

impl GapscoreBuf {
    /// The empty buffer `{NULL, 0}`.
    pub const EMPTY: GapscoreBuf = GapscoreBuf {
        ptr: std::ptr::null_mut(),
        len: 0,
    };

    /// Hands a vector's bytes to the C side; reclaimed by [`free_buf_shim`].
    pub fn from_vec(bytes: Vec<u8>) -> GapscoreBuf {
        let boxed = bytes.into_boxed_slice();
        let len = boxed.len();
        let ptr = Box::into_raw(boxed).cast::<u8>();
        GapscoreBuf { ptr, len }
    }
}

/// `detect(prefix, len, file_name)`: 0–100; `file_name` may be null.
pub type DetectFn = unsafe extern "C" fn(*const u8, usize, *const c_char) -> u32;
/// `parse(input, len, options_json, options_len, out)`: a status code.
pub type ParseFn =
    unsafe extern "C" fn(*const u8, usize, *const u8, usize, *mut GapscoreBuf) -> i32;
/// `free_buf(buf)`: releases a buffer returned through `out`.
pub type FreeBufFn = unsafe extern "C" fn(GapscoreBuf);
/// The exported entry function.
pub type EntryFn = unsafe extern "C" fn() -> *const GapscoreAdapterV1;

/// The adapter descriptor, v1. Function pointers are `Option` because a null pointer in a
/// non-`Option` fn field would be undefined behaviour the moment it is read; the host checks.
#[repr(C)]
#[derive(Debug)]
pub struct GapscoreAdapterV1 {
    /// Must be first: the host reads it before anything else.
    pub abi_version: u32,
    /// `sizeof(GapscoreAdapterV1)` as the plugin was compiled.
    pub struct_size: u32,
    /// Static NUL-terminated UTF-8 adapter name.
    pub name: *const c_char,
    /// Static NUL-terminated UTF-8 adapter version.
    pub adapter_version: *const c_char,
    /// `format_count` static NUL-terminated UTF-8 format ids.
    pub format_ids: *const *const c_char,
    /// Number of format ids.
    pub format_count: usize,
    /// Confidence that the adapter reads a file.
    pub detect: Option<DetectFn>,
    /// Parses one whole document.
    pub parse: Option<ParseFn>,
    /// Releases a buffer returned by `parse`.
    pub free_buf: Option<FreeBufFn>,
}

/// The C type and name of every field of [`GapscoreAdapterV1`] with its offset, in declaration
/// order: the single source the C header is generated from.
pub const DESCRIPTOR_FIELDS: [(&str, &str, usize); 9] = [
    (
        "uint32_t",
        "abi_version",
        offset_of!(GapscoreAdapterV1, abi_version),
    ),
    (
        "uint32_t",
        "struct_size",
        offset_of!(GapscoreAdapterV1, struct_size),
    ),
    ("const char *", "name", offset_of!(GapscoreAdapterV1, name)),
    (
        "const char *",
        "adapter_version",
        offset_of!(GapscoreAdapterV1, adapter_version),
    ),
    (
        "const char *const *",
        "format_ids",
        offset_of!(GapscoreAdapterV1, format_ids),
    ),
    (
        "size_t",
        "format_count",
        offset_of!(GapscoreAdapterV1, format_count),
    ),
    (
        "GapscoreDetectFn",
        "detect",
        offset_of!(GapscoreAdapterV1, detect),
    ),
    (
        "GapscoreParseFn",
        "parse",
        offset_of!(GapscoreAdapterV1, parse),
    ),
    (
        "GapscoreFreeBufFn",
        "free_buf",
        offset_of!(GapscoreAdapterV1, free_buf),
    ),
];

/// A descriptor with the owned strings it points into, kept alive in a `static` by
/// [`export_adapter!`](crate::export_adapter).
#[derive(Debug)]
pub struct Descriptor {
    desc: GapscoreAdapterV1,
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
    /// Builds the descriptor of an exported adapter type.
    pub fn new<A: Exported>() -> Descriptor {
        let info = A::instance().info();
        // Interior NULs cannot be represented in C strings; replace rather than fail at load.
        let c = |s: &str| CString::new(s.replace('\0', "?")).unwrap_or_default();
        let mut strings = vec![c(&info.name), c(&info.version)];
        strings.extend(info.formats.iter().map(|f| c(f)));
        let format_ptrs: Box<[*const c_char]> = strings[2..].iter().map(|s| s.as_ptr()).collect();
        let desc = GapscoreAdapterV1 {
            abi_version: GAPSCORE_ABI_VERSION,
            struct_size: size_of::<GapscoreAdapterV1>() as u32,
            name: strings[0].as_ptr(),
            adapter_version: strings[1].as_ptr(),
            format_ids: format_ptrs.as_ptr(),
            format_count: format_ptrs.len(),
            detect: Some(detect_shim::<A>),
            parse: Some(parse_shim::<A>),
            free_buf: Some(free_buf_shim),
        };
        Descriptor {
            desc,
            _strings: strings,
            _format_ptrs: format_ptrs,
        }
    }

    /// The pointer the entry function returns.
    pub fn as_ptr(&self) -> *const GapscoreAdapterV1 {
        &self.desc
    }
}

/// An adapter type exported as a plugin: [`export_adapter!`](crate::export_adapter) implements
/// this, giving the C shims (which have no context argument) a static instance to call.
pub trait Exported: Adapter + 'static {
    /// The one instance of the adapter.
    fn instance() -> &'static Self;
}

/// Exports an adapter as a plugin: `export_adapter!(gapscore_adapter_lines => Lines, Lines::new())`
/// defines the entry function `gapscore_adapter_lines` returning the adapter's descriptor. The
/// symbol must be `gapscore_adapter_` + the adapter name with `-` as `_`, and the library file
/// `{lib}gapscore_adapter_<name>.{so,dylib,dll}`, which a crate named `gapscore-adapter-<name>`
/// with `crate-type = ["cdylib"]` produces.
#[macro_export]
macro_rules! export_adapter {
    ($symbol:ident => $ty:ty, $init:expr) => {
        impl $crate::abi::Exported for $ty {
            fn instance() -> &'static Self {
                static INSTANCE: ::std::sync::OnceLock<$ty> = ::std::sync::OnceLock::new();
                INSTANCE.get_or_init(|| $init)
            }
        }

        /// The plugin entry point (gapscore adapter C ABI v1).
        #[allow(unsafe_code)] // `no_mangle` is what makes the symbol loadable; no unsafe code runs.
        #[unsafe(no_mangle)]
        pub extern "C" fn $symbol() -> *const $crate::abi::GapscoreAdapterV1 {
            static DESCRIPTOR: ::std::sync::OnceLock<$crate::abi::Descriptor> =
                ::std::sync::OnceLock::new();
            DESCRIPTOR
                .get_or_init($crate::abi::Descriptor::new::<$ty>)
                .as_ptr()
        }
    };
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic with a non-string payload".to_owned())
}

/// `detect` for an exported adapter.
///
/// # Safety
/// `prefix` must point to `len` readable bytes (or be null with `len == 0`); `file_name` must be
/// null or a NUL-terminated string; both only for the duration of the call.
pub unsafe extern "C" fn detect_shim<A: Exported>(
    prefix: *const u8,
    len: usize,
    file_name: *const c_char,
) -> u32 {
    let bytes: &[u8] = if len == 0 || prefix.is_null() {
        &[]
    } else {
        // SAFETY: the caller guarantees `len` readable bytes at `prefix` for this call.
        unsafe { std::slice::from_raw_parts(prefix, len) }
    };
    let name = if file_name.is_null() {
        None
    } else {
        // SAFETY: the caller guarantees a NUL-terminated string for this call.
        unsafe { CStr::from_ptr(file_name) }.to_str().ok()
    };
    catch_unwind(AssertUnwindSafe(|| A::instance().detect(bytes, name)))
        .map_or(0, |c| u32::from(c.min(100)))
}

/// `parse` for an exported adapter: runs the adapter, writes the results JSON (or an error
/// object) into `*out`.
///
/// # Safety
/// `input` must point to `len` readable bytes (or be null with `len == 0`), `options_json` to
/// `options_len` bytes (or be null), `out` to a writable [`GapscoreBuf`], all for the call only.
pub unsafe extern "C" fn parse_shim<A: Exported>(
    input: *const u8,
    len: usize,
    options_json: *const u8,
    options_len: usize,
    out: *mut GapscoreBuf,
) -> i32 {
    if out.is_null() || (input.is_null() && len > 0) {
        return GAPSCORE_ERR_INVALID_ARG;
    }
    let bytes: &[u8] = if len == 0 {
        &[]
    } else {
        // SAFETY: non-null (checked above) and the caller guarantees `len` readable bytes.
        unsafe { std::slice::from_raw_parts(input, len) }
    };
    let opts_bytes: &[u8] = if options_json.is_null() || options_len == 0 {
        &[]
    } else {
        // SAFETY: non-null and the caller guarantees `options_len` readable bytes.
        unsafe { std::slice::from_raw_parts(options_json, options_len) }
    };
    let (status, body) = match catch_unwind(AssertUnwindSafe(|| run_parse::<A>(bytes, opts_bytes)))
    {
        Ok(r) => r,
        Err(p) => (
            GAPSCORE_ERR_PANIC,
            error_json(&panic_message(p.as_ref()), None),
        ),
    };
    // SAFETY: `out` is non-null (checked above) and writable per the caller's contract.
    unsafe { out.write(GapscoreBuf::from_vec(body)) };
    status
}

fn run_parse<A: Exported>(input: &[u8], opts: &[u8]) -> (i32, Vec<u8>) {
    let opts: ParseOptions = if opts.is_empty() {
        ParseOptions::default()
    } else {
        match serde_json::from_slice(opts) {
            Ok(o) => o,
            Err(e) => {
                return (
                    GAPSCORE_ERR_INVALID_ARG,
                    error_json(&format!("invalid options object: {e}"), None),
                );
            }
        }
    };
    match parse_to_raw_run(A::instance(), input, &opts) {
        Ok(run) => match serde_json::to_vec(&run) {
            Ok(json) => (GAPSCORE_OK, json),
            Err(e) => (
                GAPSCORE_ERR_INTERNAL,
                error_json(&format!("cannot serialise results: {e}"), None),
            ),
        },
        Err(AdapterError::Input(e)) => (GAPSCORE_ERR_PARSE, error_json_input(&e)),
        Err(AdapterError::Unsupported(m)) => (GAPSCORE_ERR_UNSUPPORTED, error_json(&m, None)),
        Err(e) => (GAPSCORE_ERR_INTERNAL, error_json(&e.to_string(), None)),
    }
}

fn error_json(message: &str, place: Option<(usize, usize)>) -> Vec<u8> {
    let v = match place {
        Some((line, column)) => {
            serde_json::json!({"message": message, "line": line, "column": column})
        }
        None => serde_json::json!({ "message": message }),
    };
    v.to_string().into_bytes()
}

fn error_json_input(e: &gapscore_model::InputError) -> Vec<u8> {
    use gapscore_model::{InputError, Location};
    match e {
        InputError::Syntax {
            location: Location::LineCol { line, column },
            message,
        }
        | InputError::Content {
            location: Location::LineCol { line, column },
            message,
        } => error_json(message, Some((*line, *column))),
        other => error_json(&other.to_string(), None),
    }
}

/// `free_buf` for Rust adapters: reclaims a buffer made by [`GapscoreBuf::from_vec`].
///
/// # Safety
/// `buf` must come from this library's `parse` and be freed once.
pub unsafe extern "C" fn free_buf_shim(buf: GapscoreBuf) {
    if buf.ptr.is_null() {
        return;
    }
    let slice = std::ptr::slice_from_raw_parts_mut(buf.ptr, buf.len);
    // SAFETY: `ptr`/`len` came from `Box::<[u8]>::into_raw` in `GapscoreBuf::from_vec` in this
    // same library (same allocator), and the contract says each buffer is freed exactly once.
    drop(unsafe { Box::from_raw(slice) });
}

/// The C header `include/gapscore_adapter.h`, generated from the definitions above so the two
/// cannot drift; a test compares it with the committed file.
pub fn c_header() -> String {
    let mut h = String::new();
    let w = &mut h;
    let _ = writeln!(
        w,
        "/* gapscore adapter C ABI v{GAPSCORE_ABI_VERSION}.\n *\n * GENERATED from adapters/sdk/src/abi.rs by `GAPSCORE_UPDATE_HEADER=1 cargo test -p gapscore-adapter-sdk`;\n * do not edit. The contract (memory, threads, versioning, errors) is docs/abi.md.\n */"
    );
    let _ = writeln!(
        w,
        "#ifndef GAPSCORE_ADAPTER_H\n#define GAPSCORE_ADAPTER_H\n"
    );
    let _ = writeln!(w, "#include <stddef.h>\n#include <stdint.h>\n");
    let _ = writeln!(w, "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n");
    let _ = writeln!(w, "#define GAPSCORE_ABI_VERSION {GAPSCORE_ABI_VERSION}u");
    let _ = writeln!(
        w,
        "#define GAPSCORE_MIN_ABI_VERSION {GAPSCORE_MIN_ABI_VERSION}u\n"
    );
    for (name, value, doc) in [
        ("GAPSCORE_OK", GAPSCORE_OK, "out holds the results JSON"),
        (
            "GAPSCORE_ERR_PARSE",
            GAPSCORE_ERR_PARSE,
            "invalid input; out holds {\"message\", \"line\", \"column\"}",
        ),
        (
            "GAPSCORE_ERR_UNSUPPORTED",
            GAPSCORE_ERR_UNSUPPORTED,
            "a variant of the format the adapter cannot read",
        ),
        (
            "GAPSCORE_ERR_INVALID_ARG",
            GAPSCORE_ERR_INVALID_ARG,
            "a null pointer or bad options",
        ),
        (
            "GAPSCORE_ERR_PANIC",
            GAPSCORE_ERR_PANIC,
            "the adapter panicked (Rust SDK)",
        ),
        (
            "GAPSCORE_ERR_INTERNAL",
            GAPSCORE_ERR_INTERNAL,
            "any other failure",
        ),
    ] {
        let _ = writeln!(w, "#define {name} {value} /* {doc} */");
    }
    let _ = writeln!(
        w,
        "\n/* detect() sees at most this many leading bytes of a file. */\n#define GAPSCORE_DETECT_PREFIX_LEN {}u",
        crate::DETECT_PREFIX_LEN
    );
    let _ = writeln!(
        w,
        "/* The host rejects a parse() output longer than this. */\n#define GAPSCORE_MAX_OUTPUT_LEN {GAPSCORE_MAX_OUTPUT_LEN}u\n"
    );
    let _ = writeln!(
        w,
        "#if defined(_WIN32)\n#define GAPSCORE_EXPORT __declspec(dllexport)\n#else\n#define GAPSCORE_EXPORT __attribute__((visibility(\"default\")))\n#endif\n"
    );
    let _ = writeln!(
        w,
        "/* A buffer allocated by the plugin and released by its free_buf(). */\ntypedef struct GapscoreBuf {{\n    uint8_t *ptr;\n    size_t len;\n}} GapscoreBuf;\n"
    );
    let _ = writeln!(
        w,
        "/* Pointers to 0 bytes (len == 0) may be NULL or dangling: never dereference them. */\n/* 0..=100: how sure the adapter is that it reads this file. file_name may be NULL. */\ntypedef uint32_t (*GapscoreDetectFn)(const uint8_t *prefix, size_t len, const char *file_name);"
    );
    let _ = writeln!(
        w,
        "/* Parse one whole document; write results JSON (or an error object) to *out. */\ntypedef int32_t (*GapscoreParseFn)(const uint8_t *input, size_t len,\n                                  const uint8_t *options_json, size_t options_len,\n                                  GapscoreBuf *out);"
    );
    let _ = writeln!(
        w,
        "/* Release a buffer returned through parse()'s out; must accept {{NULL, 0}}. */\ntypedef void (*GapscoreFreeBufFn)(GapscoreBuf buf);\n"
    );
    let _ = writeln!(
        w,
        "/* The descriptor: fields are append-only; abi_version must stay first. */\ntypedef struct GapscoreAdapterV1 {{"
    );
    for (ty, name, _) in DESCRIPTOR_FIELDS {
        let sep = if ty.ends_with('*') { "" } else { " " };
        let _ = writeln!(w, "    {ty}{sep}{name};");
    }
    let _ = writeln!(w, "}} GapscoreAdapterV1;\n");
    let _ = writeln!(
        w,
        "/* Each adapter exports: GAPSCORE_EXPORT const GapscoreAdapterV1 *gapscore_adapter_<name>(void); */\ntypedef const GapscoreAdapterV1 *(*GapscoreEntryFn)(void);\n"
    );
    let _ = writeln!(
        w,
        "/* Layout checks on 64-bit targets: these offsets are the Rust host's. */\n#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && UINTPTR_MAX == 0xffffffffffffffffu"
    );
    for (_, name, offset) in DESCRIPTOR_FIELDS {
        let _ = writeln!(
            w,
            "_Static_assert(offsetof(GapscoreAdapterV1, {name}) == {offset}, \"GapscoreAdapterV1.{name} offset\");"
        );
    }
    let _ = writeln!(
        w,
        "_Static_assert(sizeof(GapscoreAdapterV1) == {}, \"GapscoreAdapterV1 size\");",
        size_of::<GapscoreAdapterV1>()
    );
    let _ = writeln!(
        w,
        "_Static_assert(sizeof(GapscoreBuf) == {}, \"GapscoreBuf size\");\n#endif\n",
        size_of::<GapscoreBuf>()
    );
    let _ = writeln!(
        w,
        "#ifdef __cplusplus\n}}\n#endif\n\n#endif /* GAPSCORE_ADAPTER_H */"
    );
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_listed_in_layout_order_and_cover_the_struct() {
        let offsets: Vec<usize> = DESCRIPTOR_FIELDS.iter().map(|f| f.2).collect();
        assert!(offsets.windows(2).all(|w| w[0] < w[1]), "{offsets:?}");
        assert_eq!(offsets[0], 0, "abi_version must be first");
        let last = DESCRIPTOR_FIELDS[DESCRIPTOR_FIELDS.len() - 1].2;
        assert_eq!(
            last + size_of::<Option<FreeBufFn>>(),
            size_of::<GapscoreAdapterV1>()
        );
    }
}
