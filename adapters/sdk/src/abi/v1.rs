//! C ABI v1: `parse` receives the whole input and returns the whole run as one UTF-8 JSON
//! buffer (the `test-results.schema.json` shape) that the plugin allocates and the host hands
//! back to the plugin's `free_buf` exactly once. The host still loads v1 plugins (input and
//! output capped at [`GAPSCORE_MAX_OUTPUT_LEN`](super::GAPSCORE_MAX_OUTPUT_LEN)); the SDK builds
//! v2 ([`super::v2`]).

use std::ffi::c_char;
use std::mem::offset_of;

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

    /// Hands a vector's bytes to the C side (for plugins written in Rust by hand, such as the
    /// host's fault-injection fixtures); reclaim them with `Box::<[u8]>::from_raw`.
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
pub const DESCRIPTOR_FIELDS_V1: [(&str, &str, usize); 9] = [
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
