//! gapscore adapter for go test -json (test2json) event streams and go test -v text. SKELETON: being written (issue 6).

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.
#![deny(missing_docs)]

use gapscore_adapter_sdk::{Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions};

/// The adapter.
#[derive(Debug)]
pub struct GoTest {
    info: AdapterInfo,
}

impl GoTest {
    /// The adapter.
    pub fn new() -> Self {
        GoTest {
            info: AdapterInfo::new("gotest", env!("CARGO_PKG_VERSION"), &["go-test-json", "go-test-text"]),
        }
    }
}

impl Default for GoTest {
    fn default() -> Self {
        GoTest::new()
    }
}

impl Adapter for GoTest {
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

gapscore_adapter_sdk::export_adapter!(gapscore_adapter_gotest => GoTest, GoTest::new());
