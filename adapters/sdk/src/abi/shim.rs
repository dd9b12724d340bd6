//! The `parse_stream` entry of a Rust adapter built with
//! [`export_adapter!`](crate::export_adapter): the [`Descriptor`] it exports and
//! [`parse_stream_shim`], which gives the adapter a `BufRead` over `host->read` (its
//! [`parse_reader`](crate::Adapter::parse_reader) streams), an [`EventSink`](crate::EventSink)
//! that forwards to the host table, and, when the host offers them, [`super::parts::Parts`].

use std::cell::Cell;
use std::ffi::{CString, c_char};
use std::io::BufReader;
use std::panic::{AssertUnwindSafe, catch_unwind};

use gapscore_model::{InputError, Location};

use super::forward::{Host, HostRead, HostSink};
use super::parts::Parts;
use super::v2::{GAPSCORE_NO_OFFSET, GapscoreAdapterV2, GapscoreHost, HOST_BASE_SIZE};
use super::{
    Exported, GAPSCORE_ERR_INTERNAL, GAPSCORE_ERR_INVALID_ARG, GAPSCORE_ERR_PANIC,
    GAPSCORE_ERR_PARSE, GAPSCORE_ERR_STOPPED, GAPSCORE_ERR_UNSUPPORTED, GAPSCORE_OK, detect_shim,
    panic_message,
};
use crate::{AdapterError, ParseOptions};

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

/// `parse_stream` for an exported adapter: runs [`parse_reader`](crate::Adapter::parse_reader) over `host->read`
/// (or [`parse_in_parts`](crate::Adapter::parse_in_parts) when the host offers parts),
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
    if (table.struct_size as usize) < HOST_BASE_SIZE || table.read.is_none() {
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
    let result = match Parts::offered(host.table) {
        Some(parts) => A::instance().parse_in_parts(&mut reader, &opts, &mut sink, &parts),
        None => A::instance().parse_reader(&mut reader, &opts, &mut sink),
    };
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
