//! The gapscore adapter `@NAME@`: one `<status> <name>[: <message>]` a line, where `<status>`
//! is any spelling gapscore knows (`passed`, `FAIL`, `error`, `skip`, ...); blank lines and
//! lines starting with `#` are skipped. Replace [`Reader::parse`] with your format's reader and
//! [`Reader::detect`] with what tells your files apart; keep the shape.

#![deny(unsafe_code)] // `export_adapter!` needs `#[unsafe(no_mangle)]` on the entry symbol only.

use gapscore_adapter_sdk::{
    Adapter, AdapterError, AdapterInfo, EventSink, InputError, Location, ParseOptions, Status,
    TestCase,
};

/// The adapter. It must be `Send + Sync`: gapscore calls it from many threads at once.
#[derive(Debug)]
pub struct Reader {
    info: AdapterInfo,
}

impl Reader {
    /// Name `@NAME@` (so the entry symbol is `@SYMBOL@`), one format id.
    pub fn new() -> Self {
        Reader {
            info: AdapterInfo::new("@NAME@", env!("CARGO_PKG_VERSION"), &["@NAME@"]),
        }
    }
}

impl Default for Reader {
    fn default() -> Self {
        Reader::new()
    }
}

/// A UTF-8 byte order mark: gapscore passes it on to the adapter as it is.
const BOM: &[u8] = b"\xEF\xBB\xBF";

impl Adapter for Reader {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    /// 0 to 100 from the first 64 KiB and the file name: 60 when the first line that is not a
    /// comment starts with a status word, 80 with the file name ending in `.@NAME@` too.
    fn detect(&self, prefix: &[u8], file_name: Option<&str>) -> u8 {
        let text = String::from_utf8_lossy(prefix.strip_prefix(BOM).unwrap_or(prefix));
        let first = text
            .lines()
            .find(|l| !l.trim().is_empty() && !l.starts_with('#'));
        let looks_like = first
            .and_then(|l| l.split_once(' '))
            .is_some_and(|(word, _)| word.parse::<Status>().is_ok());
        let named = file_name.is_some_and(|n| n.ends_with(".@NAME@"));
        match (looks_like, named) {
            (true, true) => 80,
            (true, false) => 60,
            _ => 0,
        }
    }

    fn parse(
        &self,
        input: &[u8],
        _opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        let input = input.strip_prefix(BOM).unwrap_or(input);
        let text = std::str::from_utf8(input).map_err(|e| {
            let before = &input[..e.valid_up_to()];
            let line = before.iter().filter(|b| **b == b'\n').count() + 1;
            let column = before.len()
                - before
                    .iter()
                    .rposition(|b| *b == b'\n')
                    .map_or(0, |p| p + 1)
                + 1;
            error(line, column, "invalid UTF-8".to_owned())
        })?;
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim_end_matches('\r');
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((word, rest)) = line.split_once(' ') else {
                return Err(error(i + 1, 1, "expected `<status> <name>`".to_owned()));
            };
            // Never guess a status: a word the format does not define is the user's to see.
            let status: Status = word.parse().map_err(|e| error(i + 1, 1, format!("{e}")))?;
            let (name, message) = match rest.split_once(": ") {
                Some((name, message)) => (name, Some(message)),
                None => (rest, None),
            };
            if name.trim().is_empty() {
                return Err(error(i + 1, word.len() + 2, "empty test name".to_owned()));
            }
            let mut test = TestCase::new(None, name, status);
            test.message = message.map(str::to_owned);
            sink.test_finished(test);
        }
        Ok(())
    }
}

fn error(line: usize, column: usize, message: String) -> AdapterError {
    AdapterError::Input(InputError::Content {
        location: Location::LineCol { line, column },
        message,
    })
}

// The plugin's entry point: `gapscore_adapter_` + the adapter name with `-` as `_`.
gapscore_adapter_sdk::export_adapter!("@NAME@" as @SYMBOL@ => Reader, Reader::new());
