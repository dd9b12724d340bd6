//! ABI v1 calls: the whole input in, one results JSON document out, decoded and replayed into
//! the sink. The output buffer goes back to the plugin's `free_buf` exactly once.

use gapscore_adapter_sdk::abi::{
    GAPSCORE_ERR_INTERNAL, GAPSCORE_ERR_INVALID_ARG, GAPSCORE_ERR_PANIC, GAPSCORE_ERR_PARSE,
    GAPSCORE_ERR_UNSUPPORTED, GAPSCORE_MAX_OUTPUT_LEN, GAPSCORE_OK, GapscoreAdapterV1, GapscoreBuf,
};
use gapscore_adapter_sdk::{
    AdapterError, EventSink, InputError, Location, ParseOptions, TestCase, TestRun, replay,
};

use super::PluginAdapter;

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

/// Runs a v1 `parse` on the whole input and replays its run into `sink`.
pub(super) fn parse(
    plugin: &PluginAdapter,
    desc: &GapscoreAdapterV1,
    input: &[u8],
    opts: &ParseOptions,
    sink: &mut dyn EventSink,
) -> Result<(), AdapterError> {
    let (Some(parse), Some(free)) = (desc.parse, desc.free_buf) else {
        return Err(plugin.fail("function pointers vanished"));
    };
    let opts_json = serde_json::to_vec(opts).map_err(|e| plugin.fail(e))?;
    // `*out` starts as {NULL, 0}: a plugin that returns without writing it hands back nothing.
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
        return Err(plugin.fail(format!(
            "returned an output length of {len} bytes (more than the {GAPSCORE_MAX_OUTPUT_LEN}-byte limit of adapter ABI v1; a v2 plugin streams its events with no limit)"
        )));
    }
    if ptr.is_null() && len > 0 {
        return Err(plugin.fail(format!("returned a null buffer of length {len}")));
    }
    let bytes: &[u8] = if len == 0 {
        &[]
    } else {
        // SAFETY: non-null, `len` bytes owned by the plugin until `free_buf`, which the
        // guard calls only after this borrow ends.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    };
    let text = std::str::from_utf8(bytes).map_err(|e| {
        plugin.rejected(
            format!("returned non-UTF-8 output (at byte {})", e.valid_up_to()),
            bytes,
            Some(e.valid_up_to()),
        )
    })?;
    match status {
        GAPSCORE_OK => {
            let mut run: TestRun = serde_json::from_str(text).map_err(|e| {
                let at = byte_at(text, e.line(), e.column());
                plugin.rejected(
                    format!("returned invalid results JSON: {e}"),
                    bytes,
                    Some(at),
                )
            })?;
            for t in &mut run.tests {
                if t.id.is_empty() {
                    t.id = TestCase::make_id(t.suite.as_deref(), &t.name);
                }
            }
            replay(&run, sink);
            Ok(())
        }
        GAPSCORE_ERR_PARSE if text.trim().is_empty() => {
            Err(plugin.fail(crate::fault::PluginFault::ParseWithoutDocument))
        }
        GAPSCORE_ERR_PARSE => Err(decode_parse_error(text)),
        GAPSCORE_ERR_UNSUPPORTED => Err(AdapterError::Unsupported(error_message(text))),
        GAPSCORE_ERR_PANIC => Err(plugin.fail(format!("panicked: {}", error_message(text)))),
        GAPSCORE_ERR_INVALID_ARG | GAPSCORE_ERR_INTERNAL => {
            Err(plugin.fail(format!("failed (status {status}): {}", error_message(text))))
        }
        other => Err(plugin.fail(format!("returned unknown status {other}"))),
    }
}

/// The byte offset of a 1-based line and column (serde_json's), for the debug excerpt.
fn byte_at(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (start + column.saturating_sub(1)).min(text.len())
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
