//! Loading adapter plugins through the C ABI: [`PluginSearch`] finds plugin files,
//! [`load_plugin`] validates and wraps one as a [`PluginAdapter`], which implements the same
//! [`Adapter`] trait as the built-ins. The descriptor's `abi_version` picks the protocol:
//! `v1` (one JSON document, input and output capped) or `v2` (streaming through a read
//! callback and an event-sink table; `parts`: a large file offered in parts, each with a table
//! of its own, `call`: what the callbacks share).
//!
//! Libraries are never unloaded (unloading a library whose thread-locals other threads touched
//! is unsound on several platforms), and the current directory is never searched implicitly:
//! loading a library runs its code.

#![allow(unsafe_code)] // The loader is one of the two places allowed to cross the FFI boundary.

use std::ffi::c_char;
use std::path::{Path, PathBuf};

use gapscore_adapter_sdk::abi::{
    DetectFn, EntryFn, GAPSCORE_ABI_VERSION, GAPSCORE_MAX_OUTPUT_LEN, GAPSCORE_MIN_ABI_VERSION,
    GapscoreAdapterV1, GapscoreAdapterV2,
};
use gapscore_adapter_sdk::detect::Detection;
use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

mod call;
mod parts;
mod v1;
mod v2;
mod views;

/// The environment variable holding extra plugin directories (`:`-separated on Unix).
pub const PLUGIN_PATH_ENV: &str = "GAPSCORE_PLUGIN_PATH";

/// The symbol prefix of every adapter entry function.
pub const SYMBOL_PREFIX: &str = "gapscore_adapter_";

/// A plugin that could not be used, with the reason; always names the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("plugin `{path}`: {reason}")]
#[non_exhaustive]
pub struct PluginError {
    /// The plugin file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub reason: String,
}

impl PluginError {
    fn new(path: &Path, reason: impl Into<String>) -> Self {
        PluginError {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }
}

/// Where to look for plugins. Built explicitly so tests never touch the process environment;
/// only the CLI reads [`PLUGIN_PATH_ENV`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct PluginSearch {
    /// Plugin files given one by one (`--plugin FILE`).
    pub files: Vec<PathBuf>,
    /// Directories searched, not recursively (`--plugin-dir DIR`, then the environment).
    pub dirs: Vec<PathBuf>,
    /// Executable adapters, as command lines (`--plugin-exec CMD`), loaded after the files
    /// and directories.
    pub execs: Vec<String>,
    /// Show what a plugin returned when the host rejects it (`--plugin-debug`).
    pub debug: bool,
    /// How long an executable adapter (or an isolated plugin) may take to read one file
    /// (`--plugin-exec-timeout SECS`); `None` is [`crate::exec::PARSE_TIMEOUT`].
    pub exec_timeout: Option<std::time::Duration>,
    /// Read the plugin files in child processes instead of this one (`--plugin-isolate`): the
    /// command that serves one (gapscore's own binary and
    /// [`SERVE_COMMAND`](crate::exec::SERVE_COMMAND)), to which the plugin file is appended.
    pub isolate: Option<Vec<String>>,
}

impl PluginSearch {
    /// Files first, then directories.
    pub fn new(files: Vec<PathBuf>, dirs: Vec<PathBuf>) -> Self {
        PluginSearch {
            files,
            dirs,
            execs: Vec::new(),
            debug: false,
            exec_timeout: None,
            isolate: None,
        }
    }

    /// Sets how long an executable adapter may take to read one file
    /// (`--plugin-exec-timeout SECS`).
    #[must_use]
    pub fn with_exec_timeout(mut self, timeout: Option<std::time::Duration>) -> Self {
        self.exec_timeout = timeout;
        self
    }

    /// Reads the plugin files in child processes started with `serve` (`--plugin-isolate`;
    /// see [`PluginSearch::isolate`]).
    #[must_use]
    pub fn with_isolation(mut self, serve: Option<Vec<String>>) -> Self {
        self.isolate = serve;
        self
    }

    /// Adds executable adapters (`--plugin-exec CMD`).
    #[must_use]
    pub fn with_execs(mut self, execs: Vec<String>) -> Self {
        self.execs = execs;
        self
    }

    /// Shows what a plugin returned when the host rejects it (`--plugin-debug`).
    #[must_use]
    pub fn with_debug(mut self, debug: bool) -> Self {
        self.debug = debug;
        self
    }

    /// Adds the directories of an environment value such as [`PLUGIN_PATH_ENV`]'s.
    pub fn with_env_dirs(mut self, value: Option<&std::ffi::OsStr>) -> Self {
        if let Some(v) = value {
            self.dirs
                .extend(std::env::split_paths(v).filter(|p| !p.as_os_str().is_empty()));
        }
        self
    }

    /// The plugin files to load, in search order, and the problems met finding them (a missing
    /// directory, a `--plugin` file with a name that is not a plugin's).
    pub fn discover(&self) -> (Vec<PathBuf>, Vec<PluginError>) {
        let mut found = Vec::new();
        let mut errors = Vec::new();
        for f in &self.files {
            match symbol_for(f) {
                Some(_) => found.push(f.clone()),
                None => errors.push(PluginError::new(
                    f,
                    format!(
                        "not a plugin file name: expected `{}{SYMBOL_PREFIX}<name>{}`",
                        std::env::consts::DLL_PREFIX,
                        std::env::consts::DLL_SUFFIX
                    ),
                )),
            }
        }
        for dir in &self.dirs {
            let entries = match std::fs::read_dir(dir) {
                Ok(e) => e,
                Err(e) => {
                    errors.push(PluginError::new(
                        dir,
                        format!("cannot read directory: {}", crate::io_reason(&e)),
                    ));
                    continue;
                }
            };
            let mut files: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file() && symbol_for(p).is_some())
                .collect();
            files.sort();
            found.extend(files);
        }
        (found, errors)
    }
}

/// The entry symbol for a plugin file: `libgapscore_adapter_c_lines.so` → `gapscore_adapter_c_lines`.
/// `None` when the file name does not follow the convention.
pub fn symbol_for(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let stem = name
        .strip_prefix(std::env::consts::DLL_PREFIX)?
        .strip_suffix(std::env::consts::DLL_SUFFIX)?;
    let rest = stem.strip_prefix(SYMBOL_PREFIX)?;
    let valid = !rest.is_empty()
        && rest
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    valid.then(|| format!("{SYMBOL_PREFIX}{}", rest.replace('-', "_")))
}

/// Which ABI a plugin speaks, with its descriptor.
#[derive(Debug, Clone, Copy)]
enum Abi {
    V1(&'static GapscoreAdapterV1),
    V2(&'static GapscoreAdapterV2),
}

/// An adapter living in a plugin library.
#[derive(Debug)]
pub struct PluginAdapter {
    info: AdapterInfo,
    path: PathBuf,
    abi: Abi,
    detect: DetectFn,
    debug: bool,
    v1_input_cap: usize,
}

// SAFETY: the ABI contract (docs/abi.md, "Threads") requires `detect`, `parse`, `parse_stream`
// and `free_buf` to be callable concurrently from any thread, and the descriptor to be immutable
// and to live as long as the library, which is never unloaded. Nothing else is thread-bound.
unsafe impl Send for PluginAdapter {}
// SAFETY: as above.
unsafe impl Sync for PluginAdapter {}

impl PluginAdapter {
    /// The library file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The ABI version the plugin speaks (1 or 2).
    pub fn abi_version(&self) -> u32 {
        match self.abi {
            Abi::V1(_) => 1,
            Abi::V2(_) => 2,
        }
    }

    /// Shows what the plugin returned when the host rejects it.
    #[must_use]
    pub fn with_debug(mut self, debug: bool) -> Self {
        self.debug = debug;
        self
    }

    /// Lowers the input cap of a v1 plugin (for tests; the real cap is
    /// [`GAPSCORE_MAX_OUTPUT_LEN`]).
    #[doc(hidden)]
    #[must_use]
    pub fn with_v1_input_cap(mut self, cap: usize) -> Self {
        self.v1_input_cap = cap;
        self
    }

    /// An error naming the plugin.
    fn fail(&self, reason: impl std::fmt::Display) -> AdapterError {
        AdapterError::Plugin(format!(
            "plugin `{}` ({}): {reason}",
            self.info.name,
            self.path.display()
        ))
    }

    /// An error naming the plugin, followed by what it returned when debugging (escaped and
    /// bounded), or by how to see it.
    fn rejected(
        &self,
        reason: impl std::fmt::Display,
        returned: &[u8],
        at: Option<usize>,
    ) -> AdapterError {
        self.fail(crate::debug::with_returned(
            reason, self.debug, returned, at,
        ))
    }
}

/// Loads a plugin file, deriving the entry symbol from its name.
pub fn load_plugin(path: &Path) -> Result<PluginAdapter, PluginError> {
    let symbol = symbol_for(path).ok_or_else(|| {
        PluginError::new(
            path,
            "not a plugin file name (expected `gapscore_adapter_<name>`)",
        )
    })?;
    load_with_symbol(path, &symbol)
}

/// Loads a plugin through a given entry symbol. For tests of libraries exporting several entry
/// points; use [`load_plugin`].
#[doc(hidden)]
pub fn load_with_symbol(path: &Path, symbol: &str) -> Result<PluginAdapter, PluginError> {
    let lib = open_library(path).map_err(|e| {
        // libloading's Display is generic ("dlopen failed"); the loader's text is the source.
        let detail = std::error::Error::source(&e).map_or_else(|| e.to_string(), |s| s.to_string());
        PluginError::new(path, format!("cannot load: {detail}"))
    })?;
    let mut sym_name = symbol.as_bytes().to_vec();
    sym_name.push(0);
    // SAFETY: the symbol is declared by the ABI contract as `EntryFn`; a library exporting the
    // name with another type breaks the contract, which no loader can detect.
    let entry: EntryFn = match unsafe { lib.get::<EntryFn>(sym_name.as_slice()) } {
        Ok(f) => *f,
        Err(_) => {
            return Err(PluginError::new(
                path,
                format!("not a gapscore adapter: symbol `{symbol}` not found"),
            ));
        }
    };
    // SAFETY: the entry function takes no arguments and, per contract, returns a pointer to a
    // static descriptor (or null).
    let ptr = unsafe { entry() };
    if ptr.is_null() {
        return Err(PluginError::new(
            path,
            "entry function returned a null descriptor",
        ));
    }
    // SAFETY: non-null; every ABI version starts with a `u32 abi_version`, so reading that field
    // alone is valid before the version is known.
    let abi = unsafe { std::ptr::read(ptr.cast::<u32>()) };
    if !(GAPSCORE_MIN_ABI_VERSION..=GAPSCORE_ABI_VERSION).contains(&abi) {
        return Err(PluginError::new(
            path,
            format!(
                "adapter ABI v{abi} is not supported by gapscore {} (supports v{GAPSCORE_MIN_ABI_VERSION}..=v{GAPSCORE_ABI_VERSION}); rebuild the plugin against gapscore-adapter-sdk {}",
                env!("CARGO_PKG_VERSION"),
                env!("CARGO_PKG_VERSION")
            ),
        ));
    }
    // SAFETY: every supported version starts with `abi_version` and `struct_size`; the second
    // u32 is read before anything beyond it.
    let size = unsafe { std::ptr::read(ptr.cast::<u32>().add(1)) } as usize;
    let need = if abi == 1 {
        size_of::<GapscoreAdapterV1>()
    } else {
        size_of::<GapscoreAdapterV2>()
    };
    if size < need {
        return Err(PluginError::new(
            path,
            format!("descriptor is {size} bytes, smaller than the {need} bytes of ABI v{abi}"),
        ));
    }
    // The members both versions share, at the same offsets, and the functions each requires.
    let (abi, common, functions) = if abi == 1 {
        // SAFETY: `struct_size` covers the whole v1 struct, and the contract says the
        // descriptor is static and immutable for the life of the library, leaked below.
        let d: &'static GapscoreAdapterV1 = unsafe { &*ptr.cast::<GapscoreAdapterV1>() };
        let common = (
            d.name,
            d.adapter_version,
            d.format_ids,
            d.format_count,
            d.detect,
        );
        let functions = [
            ("detect", d.detect.is_none()),
            ("parse", d.parse.is_none()),
            ("free_buf", d.free_buf.is_none()),
        ];
        (Abi::V1(d), common, functions)
    } else {
        // SAFETY: as above, for the v2 struct, which `struct_size` covers.
        let d: &'static GapscoreAdapterV2 = unsafe { &*ptr.cast::<GapscoreAdapterV2>() };
        let common = (
            d.name,
            d.adapter_version,
            d.format_ids,
            d.format_count,
            d.detect,
        );
        let functions = [
            ("detect", d.detect.is_none()),
            ("parse_stream", d.parse_stream.is_none()),
            ("", false),
        ];
        (Abi::V2(d), common, functions)
    };
    for (field, missing) in functions {
        if missing {
            return Err(PluginError::new(
                path,
                format!("function `{field}` is null"),
            ));
        }
    }
    let (name_ptr, version_ptr, format_ids, format_count, detect) = common;
    let Some(detect) = detect else {
        return Err(PluginError::new(path, "function `detect` is null"));
    };
    let name = read_str(path, "name", name_ptr)?;
    let version = read_str(path, "adapter_version", version_ptr)?;
    if !gapscore_adapter_sdk::abi::is_valid_name(&name) {
        return Err(PluginError::new(
            path,
            format!(
                "invalid adapter name `{name}` (expected [a-z0-9][a-z0-9_-]*, at most 64 bytes)"
            ),
        ));
    }
    if !gapscore_adapter_sdk::abi::symbol_matches_name(symbol, &name) {
        return Err(PluginError::new(
            path,
            format!("adapter name `{name}` does not match its entry symbol `{symbol}`"),
        ));
    }
    if format_count == 0 || format_count > 64 || format_ids.is_null() {
        return Err(PluginError::new(
            path,
            format!("format_count is {format_count} (expected 1 to 64 format ids)"),
        ));
    }
    let mut formats: Vec<String> = Vec::with_capacity(format_count);
    for i in 0..format_count {
        // SAFETY: `format_ids` is non-null and, per contract, points to `format_count` pointers.
        let p = unsafe { *format_ids.add(i) };
        let id = read_str(path, &format!("format_ids[{i}]"), p)?;
        if id.is_empty() || id.len() > 64 || id.chars().any(char::is_whitespace) {
            return Err(PluginError::new(
                path,
                format!("invalid format id `{id}` (1 to 64 bytes, no whitespace)"),
            ));
        }
        if formats.contains(&id) {
            return Err(PluginError::new(
                path,
                format!("format id `{id}` is listed twice"),
            ));
        }
        formats.push(id);
    }
    // Never unload: other threads may still run code or thread-local destructors of the library.
    std::mem::forget(lib);
    let format_refs: Vec<&str> = formats.iter().map(String::as_str).collect();
    Ok(PluginAdapter {
        info: AdapterInfo::new(name, version, &format_refs),
        path: path.to_path_buf(),
        abi,
        detect,
        debug: false,
        v1_input_cap: GAPSCORE_MAX_OUTPUT_LEN,
    })
}

#[cfg(unix)]
fn open_library(path: &Path) -> Result<libloading::Library, libloading::Error> {
    use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
    // SAFETY: loading runs the library's initialisers; the user chose to load this file, and it
    // is never loaded implicitly from the current directory. RTLD_NOW makes missing symbols fail
    // here rather than at a later call.
    unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }.map(Into::into)
}

#[cfg(not(unix))]
fn open_library(path: &Path) -> Result<libloading::Library, libloading::Error> {
    // SAFETY: as on Unix: the user chose this file; its initialisers run.
    unsafe { libloading::Library::new(path) }
}

/// Reads a descriptor string, scanning at most 257 bytes for its NUL, so a string that is not
/// terminated is refused after a bounded read instead of being read without end.
fn read_str(path: &Path, field: &str, p: *const c_char) -> Result<String, PluginError> {
    const MAX: usize = 256;
    if p.is_null() {
        return Err(PluginError::new(path, format!("`{field}` is null")));
    }
    let mut bytes = Vec::new();
    for i in 0..=MAX {
        // SAFETY: non-null and, per contract, a NUL-terminated static string; read byte by
        // byte, never past its terminator nor past MAX + 1 bytes.
        let b = unsafe { *p.add(i) } as u8;
        if b == 0 {
            return String::from_utf8(bytes)
                .map_err(|_| PluginError::new(path, format!("`{field}` is not UTF-8")));
        }
        bytes.push(b);
    }
    Err(PluginError::new(
        path,
        format!("`{field}` is longer than {MAX} bytes (or not NUL-terminated)"),
    ))
}

impl Adapter for PluginAdapter {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn detect(&self, prefix: &[u8], file_name: Option<&str>) -> u8 {
        let name = file_name.and_then(|n| std::ffi::CString::new(n).ok());
        let name_ptr = name.as_ref().map_or(std::ptr::null(), |n| n.as_ptr());
        // SAFETY: `prefix` is valid for its length and `name_ptr` is null or a NUL-terminated
        // string, both for the duration of the call; the function pointer was checked at load.
        let c = unsafe { (self.detect)(prefix.as_ptr(), prefix.len(), name_ptr) };
        c.min(100) as u8
    }

    fn explain_detect(&self, prefix: &[u8], file_name: Option<&str>) -> Detection {
        Detection::score_only(
            self.detect(prefix, file_name),
            "a C-ABI plugin gives its score only (the ABI has no way to say why)",
        )
    }

    fn parse(
        &self,
        input: &[u8],
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        match self.abi {
            Abi::V1(d) => {
                if input.len() > self.v1_input_cap {
                    return Err(self.v1_too_big());
                }
                v1::parse(self, d, input, opts, sink)
            }
            Abi::V2(d) => v2::parse(self, d, &mut std::io::Cursor::new(input), opts, sink)
                .map_err(|e| located_in(input, e)),
        }
    }

    fn parse_reader(
        &self,
        reader: &mut dyn std::io::BufRead,
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        match self.abi {
            Abi::V1(d) => {
                // v1 hands the whole input over at once: read at most one byte past the cap.
                let mut input = Vec::new();
                let limit = u64::try_from(self.v1_input_cap).unwrap_or(u64::MAX);
                std::io::Read::read_to_end(
                    &mut std::io::Read::take(reader, limit.saturating_add(1)),
                    &mut input,
                )
                .map_err(|e| {
                    AdapterError::Io(gapscore_adapter_sdk::ReadError::new(
                        crate::io_reason(&e),
                        e,
                    ))
                })?;
                if input.len() > self.v1_input_cap {
                    return Err(self.v1_too_big());
                }
                v1::parse(self, d, &input, opts, sink)
            }
            Abi::V2(d) => v2::parse(self, d, reader, opts, sink),
        }
    }
}

/// A byte offset of an input error turned into a line and column (columns count characters),
/// as the host does for files: the streaming side of a v2 plugin may only know the offset.
fn located_in(input: &[u8], e: AdapterError) -> AdapterError {
    let AdapterError::Input(gapscore_adapter_sdk::InputError::Syntax {
        location: gapscore_adapter_sdk::Location::Offset(offset),
        message,
    }) = e
    else {
        return e;
    };
    let before = &input[..usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(input.len())];
    let line_start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    AdapterError::Input(gapscore_adapter_sdk::InputError::Syntax {
        location: gapscore_adapter_sdk::Location::LineCol { line, column },
        message,
    })
}

impl PluginAdapter {
    /// Whether [`PluginAdapter::parse_parted`] can offer this plugin parts (ABI v2).
    pub(crate) fn takes_parts(&self) -> bool {
        matches!(self.abi, Abi::V2(_))
    }

    /// [`Adapter::parse_reader`], offering a v2 plugin to read `input` (the same file as
    /// `reader`'s) in parts; a v1 plugin reads it in one pass.
    pub(crate) fn parse_parted(
        &self,
        reader: &mut dyn std::io::BufRead,
        opts: &ParseOptions,
        sink: &mut dyn crate::split::PartedSink,
        input: crate::split::PartInput,
    ) -> Result<(), AdapterError> {
        match self.abi {
            Abi::V2(d) => parts::parse_parted(self, d, reader, opts, sink, input),
            Abi::V1(_) => self.parse_reader(reader, opts, sink),
        }
    }

    fn v1_too_big(&self) -> AdapterError {
        self.fail(format!(
            "the input is larger than {} bytes, the most a plugin built for adapter ABI v1 can read (v1 hands it the whole input at once); rebuild the plugin for ABI v2 (gapscore-adapter-sdk {}, or `parse_stream` in C), which streams with no size limit",
            self.v1_input_cap,
            env!("CARGO_PKG_VERSION")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_follow_the_file_name() {
        let f = |stem: &str| {
            PathBuf::from(format!(
                "/x/{}{stem}{}",
                std::env::consts::DLL_PREFIX,
                std::env::consts::DLL_SUFFIX
            ))
        };
        assert_eq!(
            symbol_for(&f("gapscore_adapter_c-lines")).as_deref(),
            Some("gapscore_adapter_c_lines")
        );
        assert_eq!(
            symbol_for(&f("gapscore_adapter_junit")).as_deref(),
            Some("gapscore_adapter_junit")
        );
        assert_eq!(symbol_for(&f("gapscore_adapter_")), None);
        assert_eq!(symbol_for(&f("other")), None);
        assert_eq!(symbol_for(&f("gapscore_adapter_Bad")), None);
        assert_eq!(symbol_for(Path::new("/x/gapscore_adapter_x.txt")), None);
    }
}
