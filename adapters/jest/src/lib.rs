//! gapscore adapter for Jest --json and Vitest's Jest-compatible JSON. SKELETON: being written (issue 5).

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

/// The adapter.
#[derive(Debug)]
pub struct Jest {
    info: AdapterInfo,
}

impl Jest {
    /// The adapter.
    pub fn new() -> Self {
        Jest {
            info: AdapterInfo::new("jest", env!("CARGO_PKG_VERSION"), &["jest-json"]),
        }
    }
}

impl Default for Jest {
    fn default() -> Self {
        Jest::new()
    }
}

impl Adapter for Jest {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn detect(&self, _prefix: &[u8], _file_name: Option<&str>) -> u8 {
        0
    }

    fn parse(
        &self,
        _input: &[u8],
        _opts: &ParseOptions,
        _sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        Err(AdapterError::Unsupported("not written yet".into()))
    }
}

gapscore_adapter_sdk::export_adapter!(gapscore_adapter_jest => Jest, Jest::new());
