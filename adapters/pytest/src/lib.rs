//! gapscore adapter for pytest-json-report (--json-report), pytest-reportlog (JSON lines) and pytest console text. SKELETON: being written (issue 5).

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

/// The adapter.
#[derive(Debug)]
pub struct Pytest {
    info: AdapterInfo,
}

impl Pytest {
    /// The adapter.
    pub fn new() -> Self {
        Pytest {
            info: AdapterInfo::new(
                "pytest",
                env!("CARGO_PKG_VERSION"),
                &["pytest-json-report", "pytest-reportlog", "pytest-text"],
            ),
        }
    }
}

impl Default for Pytest {
    fn default() -> Self {
        Pytest::new()
    }
}

impl Adapter for Pytest {
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

gapscore_adapter_sdk::export_adapter!(gapscore_adapter_pytest => Pytest, Pytest::new());
