//! gapscore adapter for CTRF (Common Test Report Format) JSON documents. SKELETON: being written (issue 5).

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

/// The adapter.
#[derive(Debug)]
pub struct Ctrf {
    info: AdapterInfo,
}

impl Ctrf {
    /// The adapter.
    pub fn new() -> Self {
        Ctrf {
            info: AdapterInfo::new("ctrf", env!("CARGO_PKG_VERSION"), &["ctrf-json"]),
        }
    }
}

impl Default for Ctrf {
    fn default() -> Self {
        Ctrf::new()
    }
}

impl Adapter for Ctrf {
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

gapscore_adapter_sdk::export_adapter!(gapscore_adapter_ctrf => Ctrf, Ctrf::new());
