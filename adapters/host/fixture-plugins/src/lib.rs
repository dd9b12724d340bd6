//! Test support for plugin loading. Plugins that break the ABI contract on purpose, one entry
//! symbol per fault (ABI v1 here, ABI v2 in [`v2`]), loaded by the host's fault-injection tests through `load_with_symbol`; one
//! well-behaved plugin written with `export_adapter!` whose `parse` panics, to prove the SDK's
//! panic guard; and [`compile_c_lines`], which builds the C example plugin for the host's and
//! the CLI's tests. Never ship this library.

#![allow(unsafe_code)] // Hand-written descriptors, as a C plugin would have.
#![allow(missing_docs, clippy::missing_safety_doc)]

use std::ffi::c_char;

pub mod crash;
pub mod parts;
pub mod v2;

use gapscore_adapter_sdk::abi::{GAPSCORE_OK, GapscoreAdapterV1, GapscoreBuf};
use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

/// A `Sync` wrapper so descriptors with raw pointers can be statics.
#[derive(Debug)]
pub struct Desc(GapscoreAdapterV1);
// SAFETY: immutable statics pointing at static data only.
unsafe impl Sync for Desc {}

const FORMATS: [Fmt; 1] = [Fmt(c"broken".as_ptr())];
#[repr(transparent)]
#[derive(Debug)]
pub struct Fmt(*const c_char);
// SAFETY: points at a static C string literal.
unsafe impl Sync for Fmt {}
pub(crate) static FORMAT_LIST: [Fmt; 1] = FORMATS;

pub(crate) unsafe extern "C" fn detect(_: *const u8, _: usize, _: *const c_char) -> u32 {
    0
}

unsafe extern "C" fn free_buf(buf: GapscoreBuf) {
    if !buf.ptr.is_null() && buf.len > 0 && buf.len < 1 << 30 {
        // SAFETY: every non-null buffer below comes from `GapscoreBuf::from_vec` in this library.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(buf.ptr, buf.len)) });
    }
}

unsafe fn emit(out: *mut GapscoreBuf, bytes: &[u8]) {
    // SAFETY: the host passes a writable `out`.
    unsafe { out.write(GapscoreBuf::from_vec(bytes.to_vec())) };
}

macro_rules! descriptor {
    ($name:literal, $abi:expr, $size:expr, $parse:expr, $free:expr) => {
        Desc(GapscoreAdapterV1 {
            abi_version: $abi,
            struct_size: $size,
            name: $name.as_ptr(),
            adapter_version: c"0.0.0".as_ptr(),
            format_ids: FORMAT_LIST.as_ptr().cast(),
            format_count: 1,
            detect: Some(detect),
            parse: $parse,
            free_buf: $free,
        })
    };
}

/// The v1 fixtures speak ABI v1, whatever the newest version is.
const V1_ABI: u32 = 1;
const V1: u32 = size_of::<GapscoreAdapterV1>() as u32;

/// A `parse` that ignores its input and returns fixed bytes with `GAPSCORE_OK`.
macro_rules! parse_returning {
    ($name:ident, $bytes:expr) => {
        unsafe extern "C" fn $name(
            _: *const u8,
            _: usize,
            _: *const u8,
            _: usize,
            out: *mut GapscoreBuf,
        ) -> i32 {
            // SAFETY: see `emit`.
            unsafe { emit(out, $bytes) };
            GAPSCORE_OK
        }
    };
}

parse_returning!(
    parse_ok,
    br#"{"format":"broken","tests":[{"name":"t","status":"passed"}]}"#
);
parse_returning!(
    parse_bad_json,
    br#"{"format":"broken","tests":[{"name":"t","status":"passed"}"#
);
parse_returning!(
    parse_bad_utf8,
    b"{\"format\":\"broken\",\"tests\":[{\"name\":\"\xff\"}]}"
);
parse_returning!(
    parse_unknown_status,
    br#"{"format":"broken","tests":[{"name":"t","status":"great"}]}"#
);

unsafe extern "C" fn parse_huge_len(
    _: *const u8,
    _: usize,
    _: *const u8,
    _: usize,
    out: *mut GapscoreBuf,
) -> i32 {
    // A dangling pointer with an absurd length: the host must refuse before reading it.
    // SAFETY: the host passes a writable `out`.
    unsafe {
        out.write(GapscoreBuf {
            ptr: std::ptr::NonNull::<u8>::dangling().as_ptr(),
            len: usize::MAX / 2,
        })
    };
    GAPSCORE_OK
}

unsafe extern "C" fn parse_status_77(
    _: *const u8,
    _: usize,
    _: *const u8,
    _: usize,
    _: *mut GapscoreBuf,
) -> i32 {
    77
}

static BAD_ABI: Desc = descriptor!(c"bad_abi", 999, V1, Some(parse_ok), Some(free_buf));
static SHORT_STRUCT: Desc =
    descriptor!(c"short_struct", V1_ABI, 16, Some(parse_ok), Some(free_buf));
static NULL_FN: Desc = descriptor!(c"null_fn", V1_ABI, V1, None, Some(free_buf));
static NULL_FREE: Desc = descriptor!(c"null_free", V1_ABI, V1, Some(parse_ok), None);
static BAD_JSON: Desc = descriptor!(
    c"bad_json",
    V1_ABI,
    V1,
    Some(parse_bad_json),
    Some(free_buf)
);
static BAD_UTF8: Desc = descriptor!(
    c"bad_utf8",
    V1_ABI,
    V1,
    Some(parse_bad_utf8),
    Some(free_buf)
);
static UNKNOWN_STATUS: Desc = descriptor!(
    c"unknown_status",
    V1_ABI,
    V1,
    Some(parse_unknown_status),
    Some(free_buf)
);
static HUGE_LEN: Desc = descriptor!(
    c"huge_len",
    V1_ABI,
    V1,
    Some(parse_huge_len),
    Some(free_buf)
);
static STATUS_77: Desc = descriptor!(
    c"status_77",
    V1_ABI,
    V1,
    Some(parse_status_77),
    Some(free_buf)
);
static MISNAMED: Desc = descriptor!(
    c"something_else",
    V1_ABI,
    V1,
    Some(parse_ok),
    Some(free_buf)
);
static OK: Desc = descriptor!(c"ok", V1_ABI, V1, Some(parse_ok), Some(free_buf));

macro_rules! entry {
    ($sym:ident, $desc:ident) => {
        #[unsafe(no_mangle)]
        pub extern "C" fn $sym() -> *const GapscoreAdapterV1 {
            &$desc.0
        }
    };
}

entry!(gapscore_adapter_bad_abi, BAD_ABI);
entry!(gapscore_adapter_short_struct, SHORT_STRUCT);
entry!(gapscore_adapter_null_fn, NULL_FN);
entry!(gapscore_adapter_null_free, NULL_FREE);
entry!(gapscore_adapter_bad_json, BAD_JSON);
entry!(gapscore_adapter_bad_utf8, BAD_UTF8);
entry!(gapscore_adapter_unknown_status, UNKNOWN_STATUS);
entry!(gapscore_adapter_huge_len, HUGE_LEN);
entry!(gapscore_adapter_status_77, STATUS_77);
entry!(gapscore_adapter_misnamed, MISNAMED);
entry!(gapscore_adapter_ok, OK);

#[unsafe(no_mangle)]
pub extern "C" fn gapscore_adapter_null_desc() -> *const GapscoreAdapterV1 {
    std::ptr::null()
}

/// A well-formed Rust adapter (ABI v2, through `export_adapter!`) whose `parse` panics.
#[derive(Debug)]
pub struct Panics(AdapterInfo);

impl Adapter for Panics {
    fn info(&self) -> &AdapterInfo {
        &self.0
    }
    fn detect(&self, _: &[u8], _: Option<&str>) -> u8 {
        0
    }
    fn parse(&self, _: &[u8], _: &ParseOptions, _: &mut dyn EventSink) -> Result<(), AdapterError> {
        panic!("boom from plugin")
    }
}

gapscore_adapter_sdk::export_adapter!("panics" as gapscore_adapter_panics => Panics, Panics(AdapterInfo::new("panics", "0.0.0", &["panics"])));

/// Compiles the C example plugin (`adapters/examples/c-lines`) with `$CC` (default `cc`; MSVC's
/// `cl` understood) into `dir`, returning the library's path, or `None` (with a note on stderr)
/// when no C compiler is installed. Panics when the compiler rejects the source.
#[allow(clippy::print_stderr, clippy::unwrap_used)] // Test support: report and fail loudly.
pub fn compile_c_lines(dir: &std::path::Path) -> Option<std::path::PathBuf> {
    use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
    use std::path::Path;
    use std::process::Command;

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::create_dir_all(dir).unwrap();
    let file = format!("{DLL_PREFIX}gapscore_adapter_c_lines{DLL_SUFFIX}");
    let dest = dir.join(&file);
    // Built under a temporary name and renamed into place: another test process may have the
    // previous build loaded, and a loaded library must never be overwritten in place.
    let tmp = dir.join(format!("{file}.{}.tmp", std::process::id()));
    let src = root.join("examples/c-lines/gapscore_adapter_c_lines.c");
    let include = root.join("sdk/include");
    let cc = std::env::var_os("CC")
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "cc".into());
    let msvc = Path::new(&cc)
        .file_stem()
        .is_some_and(|s| s.eq_ignore_ascii_case("cl"));
    let mut cmd = Command::new(&cc);
    if msvc {
        cmd.args(["/nologo", "/std:c11", "/W4", "/WX", "/LD", "/I"])
            .arg(&include)
            .arg(&src)
            .arg(format!("/Fe:{}", tmp.display()))
            .arg(format!("/Fo:{}\\", dir.display()));
    } else {
        cmd.args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-shared",
            "-fPIC",
            "-fvisibility=hidden",
            "-I",
        ])
        .arg(&include)
        .arg("-o")
        .arg(&tmp)
        .arg(&src);
    }
    let output = match cmd.output() {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("skipped: no C compiler");
            return None;
        }
        Err(e) => panic!("cannot run {}: {e}", cc.to_string_lossy()),
    };
    assert!(
        output.status.success(),
        "{} failed:\n{}{}",
        cc.to_string_lossy(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::rename(&tmp, &dest).unwrap();
    Some(dest)
}

/// The built-in JUnit adapter exported as a v2 plugin under the name `junit_plugin` (format id
/// `junit-plugin`), so the CLI can load it next to the built-in `junit`: the benchmark of a
/// plugin against the built-in (docs/abi.md, "Measured"). It never claims a file by detection
/// (the two would tie); name its format with `--input-format junit-plugin`.
#[derive(Debug)]
pub struct JUnitPlugin(AdapterInfo, gapscore_adapter_junit::JUnit);

impl Adapter for JUnitPlugin {
    fn info(&self) -> &AdapterInfo {
        &self.0
    }
    fn detect(&self, _: &[u8], _: Option<&str>) -> u8 {
        0
    }
    fn parse(
        &self,
        input: &[u8],
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        self.1.parse(input, opts, sink)
    }
    fn parse_reader(
        &self,
        reader: &mut dyn std::io::BufRead,
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        self.1.parse_reader(reader, opts, sink)
    }
    fn parse_in_parts(
        &self,
        reader: &mut dyn std::io::BufRead,
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
        parts: &gapscore_adapter_sdk::abi::parts::Parts<'_>,
    ) -> Result<(), AdapterError> {
        self.1.parse_in_parts(reader, opts, sink, parts)
    }
}

gapscore_adapter_sdk::export_adapter!("junit_plugin" as gapscore_adapter_junit_plugin => JUnitPlugin,
JUnitPlugin(
    AdapterInfo::new("junit_plugin", "0.0.0", &["junit-plugin"]),
    gapscore_adapter_junit::JUnit::new()
));
