//! The C ABI between gapscore and adapter plugins, v1 and v2.
//!
//! A plugin is a shared library exporting one function per adapter, named
//! `gapscore_adapter_<name>` (`-` in the name becomes `_`), that returns a pointer to a static
//! descriptor. Every descriptor starts with `abi_version` and `struct_size`; the host reads the
//! version first and then reads the descriptor of that version ([`GapscoreAdapterV1`] or
//! [`GapscoreAdapterV2`]). Fields are only ever appended, so a host reads a newer field only when
//! `struct_size` covers it.
//!
//! - [`v1`]: `parse` gets the whole input and returns the whole run as one JSON buffer (capped
//!   at [`GAPSCORE_MAX_OUTPUT_LEN`]). Still loaded by the host; no longer written by the SDK.
//! - [`v2`]: `parse_stream` pulls the input through the host's read callback and pushes events
//!   through the host's table of C function pointers ([`GapscoreHost`]), strings borrowed for
//!   the call: no size cap, memory flat like a built-in adapter.
//!
//! docs/abi.md is the full contract; [`c_header`] generates the committed C header. For Rust
//! adapters, [`export_adapter!`](crate::export_adapter) writes the entry function (ABI v2); the
//! shims catch panics (a panic crossing `extern "C"` would abort the host) and turn them into
//! [`GAPSCORE_ERR_PANIC`].

#![allow(unsafe_code)] // The FFI boundary: every unsafe block carries its SAFETY argument.

mod forward;
mod header;
pub mod parts;
mod shim;
pub mod v1;
pub mod v2;

pub use header::c_header;
pub use shim::{Descriptor, parse_stream_shim};
pub use v1::{DetectFn, FreeBufFn, GapscoreAdapterV1, GapscoreBuf, ParseFn};
pub use v2::{
    GapscoreAdapterV2, GapscoreAttempt, GapscoreHost, GapscoreStr, GapscoreTest, ParseStreamFn,
};

use std::ffi::{CStr, c_char, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::Adapter;

/// The newest ABI version: what [`export_adapter!`](crate::export_adapter) builds.
pub const GAPSCORE_ABI_VERSION: u32 = 2;
/// The oldest ABI version a host of this SDK accepts.
pub const GAPSCORE_MIN_ABI_VERSION: u32 = 1;

/// Success.
pub const GAPSCORE_OK: i32 = 0;
/// The input is not valid for the format.
pub const GAPSCORE_ERR_PARSE: i32 = 1;
/// The adapter cannot read this variant of its format.
pub const GAPSCORE_ERR_UNSUPPORTED: i32 = 2;
/// A null pointer or a bad options object was passed.
pub const GAPSCORE_ERR_INVALID_ARG: i32 = 3;
/// The adapter panicked (Rust SDK).
pub const GAPSCORE_ERR_PANIC: i32 = 4;
/// Anything else went wrong inside the adapter.
pub const GAPSCORE_ERR_INTERNAL: i32 = 5;
/// v2: the host asked the plugin to stop (a callback returned non-zero) or its read failed.
pub const GAPSCORE_ERR_STOPPED: i32 = 6;

/// v1: the largest output a host accepts from `parse` (256 MiB), and the largest input it
/// hands to a v1 `parse` (the whole input is held in memory for it). v2 has no such cap.
pub const GAPSCORE_MAX_OUTPUT_LEN: usize = 256 * 1024 * 1024;

/// The entry function every adapter exports: returns its descriptor, whose first `u32` is the
/// ABI version that says which descriptor type it is.
pub type EntryFn = unsafe extern "C" fn() -> *const c_void;

/// An adapter type exported as a plugin: [`export_adapter!`](crate::export_adapter) implements
/// this, giving the C shims (which have no context argument) a static instance to call.
pub trait Exported: Adapter + 'static {
    /// The adapter name the plugin exports, the literal given to the macro; its entry symbol is
    /// checked against it at compile time.
    const NAME: &'static str;
    /// The one instance of the adapter.
    fn instance() -> &'static Self;
}

/// Whether `name` is a valid adapter name: `[a-z0-9][a-z0-9_-]*`, 1 to 64 bytes.
pub const fn is_valid_name(name: &str) -> bool {
    let b = name.as_bytes();
    if b.is_empty() || b.len() > 64 || b[0] == b'-' || b[0] == b'_' {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' || c == b'-') {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `symbol` is the entry symbol of the adapter `name`: `gapscore_adapter_` followed by
/// the name with `-` written `_`. `const`, so [`export_adapter!`](crate::export_adapter) checks
/// it at compile time.
pub const fn symbol_matches_name(symbol: &str, name: &str) -> bool {
    const PREFIX: &[u8] = b"gapscore_adapter_";
    let (s, n) = (symbol.as_bytes(), name.as_bytes());
    if s.len() != PREFIX.len() + n.len() {
        return false;
    }
    let mut i = 0;
    while i < PREFIX.len() {
        if s[i] != PREFIX[i] {
            return false;
        }
        i += 1;
    }
    let mut j = 0;
    while j < n.len() {
        let want = if n[j] == b'-' { b'_' } else { n[j] };
        if s[PREFIX.len() + j] != want {
            return false;
        }
        j += 1;
    }
    true
}

/// Exports an adapter as a plugin (C ABI v2):
/// `export_adapter!("c-lines" as gapscore_adapter_c_lines => Lines, Lines::new())` defines the
/// entry function `gapscore_adapter_c_lines` returning the adapter's descriptor, named `c-lines`.
///
/// The name is the literal, and the symbol must be `gapscore_adapter_` + the name with `-`
/// written `_`: a mismatch (which the host would reject at load time) does not compile.
/// The library file must be `{lib}gapscore_adapter_<name>.{so,dylib,dll}`, which a crate named
/// `gapscore-adapter-<name>` with `crate-type = ["cdylib"]` produces.
///
/// ```compile_fail,E0080
/// # use gapscore_adapter_sdk::*;
/// # struct Lines(AdapterInfo);
/// # impl Adapter for Lines {
/// #     fn info(&self) -> &AdapterInfo { &self.0 }
/// #     fn detect(&self, _: &[u8], _: Option<&str>) -> u8 { 0 }
/// #     fn parse(&self, _: &[u8], _: &ParseOptions, _: &mut dyn EventSink)
/// #         -> Result<(), AdapterError> { Ok(()) }
/// # }
/// // The symbol says `lines`, the name says `c-lines`: rejected at compile time.
/// export_adapter!("c-lines" as gapscore_adapter_lines => Lines,
///     Lines(AdapterInfo::new("c-lines", "0.1.0", &["lines"])));
/// ```
///
/// ```compile_fail,E0080
/// # use gapscore_adapter_sdk::*;
/// # struct Lines(AdapterInfo);
/// # impl Adapter for Lines {
/// #     fn info(&self) -> &AdapterInfo { &self.0 }
/// #     fn detect(&self, _: &[u8], _: Option<&str>) -> u8 { 0 }
/// #     fn parse(&self, _: &[u8], _: &ParseOptions, _: &mut dyn EventSink)
/// #         -> Result<(), AdapterError> { Ok(()) }
/// # }
/// // Upper case is not a valid adapter name.
/// export_adapter!("Lines" as gapscore_adapter_Lines => Lines,
///     Lines(AdapterInfo::new("Lines", "0.1.0", &["lines"])));
/// ```
///
/// ```
/// # use gapscore_adapter_sdk::*;
/// # struct Lines(AdapterInfo);
/// # impl Adapter for Lines {
/// #     fn info(&self) -> &AdapterInfo { &self.0 }
/// #     fn detect(&self, _: &[u8], _: Option<&str>) -> u8 { 0 }
/// #     fn parse(&self, _: &[u8], _: &ParseOptions, _: &mut dyn EventSink)
/// #         -> Result<(), AdapterError> { Ok(()) }
/// # }
/// export_adapter!("c-lines" as gapscore_adapter_c_lines => Lines,
///     Lines(AdapterInfo::new("c-lines", "0.1.0", &["lines"])));
/// # let d = gapscore_adapter_c_lines();
/// # assert!(!d.is_null());
/// ```
#[macro_export]
macro_rules! export_adapter {
    ($name:literal as $symbol:ident => $ty:ty, $init:expr) => {
        const _: () = {
            assert!(
                $crate::abi::is_valid_name($name),
                concat!(
                    "export_adapter!: `",
                    $name,
                    "` is not a valid adapter name ([a-z0-9][a-z0-9_-]*, at most 64 bytes)"
                )
            );
            assert!(
                $crate::abi::symbol_matches_name(stringify!($symbol), $name),
                concat!(
                    "export_adapter!: the entry symbol `",
                    stringify!($symbol),
                    "` does not match the adapter name `",
                    $name,
                    "` (expected `gapscore_adapter_` + the name with `-` written `_`)"
                )
            );
        };

        impl $crate::abi::Exported for $ty {
            const NAME: &'static str = $name;
            fn instance() -> &'static Self {
                static INSTANCE: ::std::sync::OnceLock<$ty> = ::std::sync::OnceLock::new();
                INSTANCE.get_or_init(|| $init)
            }
        }

        /// The plugin entry point (gapscore adapter C ABI v2).
        #[allow(unsafe_code)] // `no_mangle` is what makes the symbol loadable; no unsafe code runs.
        #[unsafe(no_mangle)]
        pub extern "C" fn $symbol() -> *const $crate::abi::GapscoreAdapterV2 {
            static DESCRIPTOR: ::std::sync::OnceLock<$crate::abi::Descriptor> =
                ::std::sync::OnceLock::new();
            DESCRIPTOR
                .get_or_init($crate::abi::Descriptor::new::<$ty>)
                .as_ptr()
        }
    };
}

/// The text of a caught panic.
pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic with a non-string payload".to_owned())
}

/// `detect` for an exported adapter (the same signature in v1 and v2).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_match_names_with_dashes_as_underscores() {
        assert!(symbol_matches_name("gapscore_adapter_c_lines", "c-lines"));
        assert!(symbol_matches_name("gapscore_adapter_junit", "junit"));
        assert!(!symbol_matches_name("gapscore_adapter_lines", "c-lines"));
        assert!(!symbol_matches_name("gapscore_adapter_junit2", "junit"));
        assert!(!symbol_matches_name("gapscore_junit", "junit"));
        assert!(is_valid_name("c-lines") && is_valid_name("a1_b"));
        assert!(!is_valid_name("") && !is_valid_name("-x") && !is_valid_name("Junit"));
        assert!(!is_valid_name(&"a".repeat(65)));
    }
}
