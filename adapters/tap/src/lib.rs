//! gapscore adapter for TAP 12, 13 and 14 streams (prove, node, mocha, bats, pytest-tap). SKELETON: being written (issue 6).

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

/// The adapter.
#[derive(Debug)]
pub struct Tap {
    info: AdapterInfo,
}

impl Tap {
    /// The adapter.
    pub fn new() -> Self {
        Tap {
            info: AdapterInfo::new("tap", env!("CARGO_PKG_VERSION"), &["tap"]),
        }
    }
}

impl Default for Tap {
    fn default() -> Self {
        Tap::new()
    }
}

impl Adapter for Tap {
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

gapscore_adapter_sdk::export_adapter!(gapscore_adapter_tap => Tap, Tap::new());
