//! A template gapscore adapter plugin. It reads a tiny CSV format, one test per line:
//!
//! ```text
//! name,status,message
//! login works,passed,
//! rejects bad password,failed,expected 401 got 200
//! ```
//!
//! The first line may be the header `name,status,message`. `status` is any spelling gapscore
//! knows (`passed`, `FAIL`, `error`, `skip`, ...); the message is the rest of the line, commas
//! included. Replace [`Template::parse`] with your format's reader; keep the shape.

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.

use gapscore_adapter_sdk::{
    Adapter, AdapterError, AdapterInfo, EventSink, InputError, Location, ParseOptions, Status,
    TestCase,
};

/// The adapter. Holds its description; must be `Send + Sync` (it is called from many threads).
#[derive(Debug)]
pub struct Template {
    info: AdapterInfo,
}

impl Template {
    /// Name `template` (so the entry symbol is `gapscore_adapter_template`), format `template-csv`.
    pub fn new() -> Self {
        Template {
            info: AdapterInfo::new("template", env!("CARGO_PKG_VERSION"), &["template-csv"]),
        }
    }
}

impl Default for Template {
    fn default() -> Self {
        Template::new()
    }
}

impl Adapter for Template {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn detect(&self, prefix: &[u8], file_name: Option<&str>) -> u8 {
        if prefix.starts_with(b"name,status,message") {
            95
        } else if file_name.is_some_and(|n| n.ends_with(".template.csv")) {
            60
        } else {
            0
        }
    }

    fn parse(
        &self,
        input: &[u8],
        _opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        let text = std::str::from_utf8(input).map_err(|e| {
            // Report the place of the first invalid byte as line:column.
            let before = &input[..e.valid_up_to()];
            let line = before.iter().filter(|b| **b == b'\n').count() + 1;
            let column = before.len()
                - before
                    .iter()
                    .rposition(|b| *b == b'\n')
                    .map_or(0, |p| p + 1)
                + 1;
            AdapterError::Input(InputError::Syntax {
                location: Location::LineCol { line, column },
                message: "invalid UTF-8".into(),
            })
        })?;
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim_end_matches('\r');
            if line.is_empty() || (i == 0 && line == "name,status,message") {
                continue;
            }
            let mut parts = line.splitn(3, ',');
            let name = parts.next().unwrap_or_default();
            let Some(status_text) = parts.next() else {
                return Err(content(
                    i + 1,
                    line.len() + 1,
                    "expected `name,status[,message]`",
                ));
            };
            if name.is_empty() {
                return Err(content(i + 1, 1, "empty test name"));
            }
            let status: Status = status_text
                .parse()
                .map_err(|e| content(i + 1, name.len() + 2, &format!("{e}")))?;
            let mut test = TestCase::new(None, name, status);
            test.message = parts.next().filter(|m| !m.is_empty()).map(str::to_owned);
            sink.test_finished(test);
        }
        Ok(())
    }
}

fn content(line: usize, column: usize, message: &str) -> AdapterError {
    AdapterError::Input(InputError::Content {
        location: Location::LineCol { line, column },
        message: message.to_owned(),
    })
}

// The plugin entry point: `gapscore_adapter_` + the adapter name (`-` as `_`).
gapscore_adapter_sdk::export_adapter!("template" as gapscore_adapter_template => Template, Template::new());
