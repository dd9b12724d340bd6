//! gapscore adapter for the spec's simple results format: `{"tests": [{"name", "status",
//! "category", "expected", "actual", "message"}]}`, the input of the Shadow/Gap Score reference
//! validators, plus an optional root `problems` array in the canonical run's shape.
//!
//! [`Simple`] implements [`Adapter`]; [`parse`] is the streaming reader. Built into the
//! `gapscore` binary and also built as the plugin `libgapscore_adapter_simple.so`, the reference
//! for every adapter crate's shape (rlib + cdylib, fixtures under `tests/fixtures/{valid,invalid}`,
//! one data-driven snapshot test).

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

mod reader;

use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

pub use reader::{SimpleOptions, parse};

/// The format id.
pub const FORMAT_ID: &str = "simple";

/// The simple-format adapter.
#[derive(Debug)]
pub struct Simple {
    info: AdapterInfo,
}

impl Simple {
    /// The adapter.
    pub fn new() -> Self {
        Simple {
            info: AdapterInfo::new("simple", env!("CARGO_PKG_VERSION"), &[FORMAT_ID]),
        }
    }
}

impl Default for Simple {
    fn default() -> Self {
        Simple::new()
    }
}

impl Adapter for Simple {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    /// A JSON object whose prefix has a `"tests"` key: 80, 90 when a `"status"` key is there too
    /// (formats with their own adapter, such as pytest-json-report, score higher there).
    fn detect(&self, prefix: &[u8], _file_name: Option<&str>) -> u8 {
        let p = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
        let Some(first) = p.iter().position(|b| !b.is_ascii_whitespace()) else {
            return 0;
        };
        if p[first] != b'{' {
            return 0;
        }
        match (has_key(p, b"\"tests\""), has_key(p, b"\"status\"")) {
            (true, true) => 90,
            (true, false) => 80,
            // A `.json` name alone is no evidence: claiming every JSON file would make an
            // unrelated file found in a directory (a package.json) fail the run.
            _ => 0,
        }
    }

    fn parse(
        &self,
        input: &[u8],
        _opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        parse(input, &SimpleOptions::default(), sink).map_err(AdapterError::from)
    }
}

use gapscore_adapter_sdk::json_has_key as has_key;

gapscore_adapter_sdk::export_adapter!(gapscore_adapter_simple => Simple, Simple::new());
