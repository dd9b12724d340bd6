//! Loading adapter plugins through the C ABI v1: [`PluginSearch`] finds plugin files,
//! [`load_plugin`] validates and wraps one as a [`PluginAdapter`], which implements the same
//! [`Adapter`] trait as the built-ins.
//!
//! Libraries are never unloaded (unloading a library whose thread-locals other threads touched
//! is unsound on several platforms), and the current directory is never searched implicitly:
//! loading a library runs its code.

#![allow(unsafe_code)] // The loader is one of the two places allowed to cross the FFI boundary.

use std::ffi::c_char;
use std::path::{Path, PathBuf};

use gapscore_adapter_sdk::abi::{
    EntryFn, GAPSCORE_ABI_VERSION, GAPSCORE_ERR_INTERNAL, GAPSCORE_ERR_INVALID_ARG,
    GAPSCORE_ERR_PANIC, GAPSCORE_ERR_PARSE, GAPSCORE_ERR_UNSUPPORTED, GAPSCORE_MAX_OUTPUT_LEN,
    GAPSCORE_MIN_ABI_VERSION, GAPSCORE_OK, GapscoreAdapterV1, GapscoreBuf,
};
use gapscore_adapter_sdk::{
    Adapter, AdapterError, AdapterInfo, EventSink, InputError, Location, ParseOptions, TestCase,
    TestRun, replay,
};

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
}

impl PluginSearch {
    /// Files first, then directories.
    pub fn new(files: Vec<PathBuf>, dirs: Vec<PathBuf>) -> Self {
        PluginSearch { files, dirs }
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

/// An adapter living in a plugin library.
#[derive(Debug)]
pub struct PluginAdapter {
    info: AdapterInfo,
    path: PathBuf,
    desc: &'static GapscoreAdapterV1,
}

// SAFETY: the ABI contract (docs/abi.md, "Threads") requires `detect`, `parse` and `free_buf` to
// be callable concurrently from any thread, and the descriptor to be immutable and to live as
// long as the library, which is never unloaded. The struct holds nothing else thread-bound.
unsafe impl Send for PluginAdapter {}
// SAFETY: as above.
unsafe impl Sync for PluginAdapter {}

impl PluginAdapter {
    /// The library file.
    pub fn path(&self) -> &Path {
        &self.path
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
    // SAFETY: the version is one whose descriptor starts with the v1 fields; `struct_size`
    // (second u32) is read before anything beyond it.
    let size = unsafe { std::ptr::read(ptr.cast::<u32>().add(1)) } as usize;
    if size < size_of::<GapscoreAdapterV1>() {
        return Err(PluginError::new(
            path,
            format!(
                "descriptor is {size} bytes, smaller than the {} bytes of ABI v1",
                size_of::<GapscoreAdapterV1>()
            ),
        ));
    }
    // SAFETY: `struct_size` covers the whole v1 struct, and the contract says the descriptor is
    // static and immutable for the life of the library, which is leaked below.
    let desc: &'static GapscoreAdapterV1 = unsafe { &*ptr };
    for (field, missing) in [
        ("detect", desc.detect.is_none()),
        ("parse", desc.parse.is_none()),
        ("free_buf", desc.free_buf.is_none()),
    ] {
        if missing {
            return Err(PluginError::new(
                path,
                format!("function `{field}` is null"),
            ));
        }
    }
    let name = read_str(path, "name", desc.name)?;
    let version = read_str(path, "adapter_version", desc.adapter_version)?;
    let valid_name = !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    if !valid_name {
        return Err(PluginError::new(
            path,
            format!(
                "invalid adapter name `{name}` (expected [a-z0-9][a-z0-9_-]*, at most 64 bytes)"
            ),
        ));
    }
    if format!("{SYMBOL_PREFIX}{}", name.replace('-', "_")) != symbol {
        return Err(PluginError::new(
            path,
            format!("adapter name `{name}` does not match its entry symbol `{symbol}`"),
        ));
    }
    if desc.format_count == 0 || desc.format_count > 64 || desc.format_ids.is_null() {
        return Err(PluginError::new(
            path,
            format!(
                "format_count is {} (expected 1 to 64 format ids)",
                desc.format_count
            ),
        ));
    }
    let mut formats: Vec<String> = Vec::with_capacity(desc.format_count);
    for i in 0..desc.format_count {
        // SAFETY: `format_ids` is non-null and, per contract, points to `format_count` pointers.
        let p = unsafe { *desc.format_ids.add(i) };
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
        desc,
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

/// Hands the output buffer back to the plugin exactly once, however decoding ends.
struct FreeGuard {
    free: unsafe extern "C" fn(GapscoreBuf),
    buf: Option<GapscoreBuf>,
}

impl Drop for FreeGuard {
    fn drop(&mut self) {
        if let Some(buf) = self.buf.take() {
            // SAFETY: the buffer came from this plugin's `parse` and is released once, as the
            // contract requires, with the plugin's own `free_buf`.
            unsafe { (self.free)(buf) };
        }
    }
}

impl PluginAdapter {
    fn fail(&self, reason: impl std::fmt::Display) -> AdapterError {
        AdapterError::Plugin(format!(
            "plugin `{}` ({}): {reason}",
            self.info.name,
            self.path.display()
        ))
    }
}

impl Adapter for PluginAdapter {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn detect(&self, prefix: &[u8], file_name: Option<&str>) -> u8 {
        let Some(detect) = self.desc.detect else {
            return 0;
        };
        let name = file_name.and_then(|n| std::ffi::CString::new(n).ok());
        let name_ptr = name.as_ref().map_or(std::ptr::null(), |n| n.as_ptr());
        // SAFETY: `prefix` is valid for its length and `name_ptr` is null or a NUL-terminated
        // string, both for the duration of the call; the function pointer was checked at load.
        let c = unsafe { detect(prefix.as_ptr(), prefix.len(), name_ptr) };
        c.min(100) as u8
    }

    fn parse(
        &self,
        input: &[u8],
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        let (Some(parse), Some(free)) = (self.desc.parse, self.desc.free_buf) else {
            return Err(self.fail("function pointers vanished"));
        };
        let opts_json = serde_json::to_vec(opts).map_err(|e| self.fail(e))?;
        let mut out = GapscoreBuf::EMPTY;
        // SAFETY: input and options are valid for their lengths during the call, `out` is a
        // writable buffer struct; the plugin must not keep pointers into either after returning.
        let status = unsafe {
            parse(
                input.as_ptr(),
                input.len(),
                opts_json.as_ptr(),
                opts_json.len(),
                &mut out,
            )
        };
        let (ptr, len) = (out.ptr, out.len);
        let _guard = FreeGuard {
            free,
            buf: Some(out),
        };
        if len > GAPSCORE_MAX_OUTPUT_LEN {
            return Err(self.fail(format!(
                "returned an output length of {len} bytes (more than the {GAPSCORE_MAX_OUTPUT_LEN}-byte limit)"
            )));
        }
        if ptr.is_null() && len > 0 {
            return Err(self.fail(format!("returned a null buffer of length {len}")));
        }
        let bytes: &[u8] = if len == 0 {
            &[]
        } else {
            // SAFETY: non-null, `len` bytes owned by the plugin until `free_buf`, which the
            // guard calls only after this borrow ends.
            unsafe { std::slice::from_raw_parts(ptr, len) }
        };
        let text = std::str::from_utf8(bytes).map_err(|e| {
            self.fail(format!(
                "returned non-UTF-8 output (at byte {})",
                e.valid_up_to()
            ))
        })?;
        match status {
            GAPSCORE_OK => {
                let mut run: TestRun = serde_json::from_str(text)
                    .map_err(|e| self.fail(format!("returned invalid results JSON: {e}")))?;
                for t in &mut run.tests {
                    if t.id.is_empty() {
                        t.id = TestCase::make_id(t.suite.as_deref(), &t.name);
                    }
                }
                replay(&run, sink);
                Ok(())
            }
            GAPSCORE_ERR_PARSE => Err(decode_parse_error(text)),
            GAPSCORE_ERR_UNSUPPORTED => Err(AdapterError::Unsupported(error_message(text))),
            GAPSCORE_ERR_PANIC => Err(self.fail(format!("panicked: {}", error_message(text)))),
            GAPSCORE_ERR_INVALID_ARG | GAPSCORE_ERR_INTERNAL => {
                Err(self.fail(format!("failed (status {status}): {}", error_message(text))))
            }
            other => Err(self.fail(format!("returned unknown status {other}"))),
        }
    }
}

fn error_message(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_owned))
        .unwrap_or_else(|| {
            if text.is_empty() {
                "no message".to_owned()
            } else {
                text.chars().take(500).collect()
            }
        })
}

fn decode_parse_error(text: &str) -> AdapterError {
    let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    let message = error_message(text);
    // Lines and columns are 1-based; a 0 from a careless plugin is read as 1.
    let num = |k: &str| {
        v.get(k)
            .and_then(serde_json::Value::as_u64)
            .map(|n| (n as usize).max(1))
    };
    match (num("line"), num("column")) {
        (Some(line), column) => AdapterError::Input(InputError::Syntax {
            location: Location::LineCol {
                line,
                column: column.unwrap_or(1),
            },
            message,
        }),
        _ => AdapterError::Input(InputError::Unlocated(message)),
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
