//! Reads a command's output stream line by line as it passes through `exec`, whole and in
//! bounded memory: every line goes through the recognisers ([`crate::recognise`]) and the
//! console summary parsers ([`crate::summary`]), so nothing printed late or early in a long
//! output escapes them (issue 32: 80 KiB of logging after `FAIL pkg [build failed]` pushed it out
//! of the 64 KiB tail the recognisers used to read).
//!
//! Chunks are split into lines across their boundaries; a line longer than [`MAX_SCAN_LINE`]
//! bytes is read by its first [`MAX_SCAN_LINE`] bytes (every pattern is anchored at a line's
//! start) and the rest is skipped. A line of `go test -json` is read for its `Output` text.

use crate::recognise::{Recognised, Recogniser, each_line};
use crate::summary::{ConsoleSummary, SummaryCollector};

/// The most of one line that is read, in bytes.
pub const MAX_SCAN_LINE: usize = 64 * 1024;

/// What reading one stream found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Scanned {
    /// Recognised failure lines, in order of appearance.
    pub recognised: Vec<Recognised>,
    /// Console summaries, one per ecosystem.
    pub summaries: Vec<ConsoleSummary>,
}

/// Reads one stream as it arrives, in chunks of any size.
#[derive(Debug)]
pub struct StreamScanner {
    /// The start of the line not ended yet (at most [`MAX_SCAN_LINE`] bytes).
    pending: Vec<u8>,
    /// The pending line was longer than [`MAX_SCAN_LINE`]: its rest is skipped.
    overlong: bool,
    recogniser: Recogniser,
    summaries: SummaryCollector,
}

impl StreamScanner {
    /// A scanner for `stream` (`"stdout"` or `"stderr"`).
    pub fn new(stream: &'static str) -> Self {
        StreamScanner {
            pending: Vec::new(),
            overlong: false,
            recogniser: Recogniser::new(stream),
            summaries: SummaryCollector::new(stream),
        }
    }

    /// Reads the next bytes of the stream.
    pub fn push(&mut self, mut bytes: &[u8]) {
        while let Some(end) = bytes.iter().position(|&b| b == b'\n') {
            self.keep(&bytes[..end]);
            let line = std::mem::take(&mut self.pending);
            self.overlong = false;
            self.line(&line);
            self.pending = line;
            self.pending.clear();
            bytes = &bytes[end + 1..];
        }
        self.keep(bytes);
    }

    /// Reads the last line (one without a line end) and returns what the stream showed.
    pub fn finish(mut self) -> Scanned {
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            self.line(&line);
        }
        Scanned {
            recognised: self.recogniser.finish(),
            summaries: self.summaries.finish(),
        }
    }

    /// Adds `bytes` to the pending line, up to [`MAX_SCAN_LINE`].
    fn keep(&mut self, bytes: &[u8]) {
        if self.overlong {
            return;
        }
        let room = MAX_SCAN_LINE - self.pending.len();
        if bytes.len() > room {
            self.overlong = true;
        }
        self.pending
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn line(&mut self, bytes: &[u8]) {
        let (recogniser, summaries) = (&mut self.recogniser, &mut self.summaries);
        each_line(&String::from_utf8_lossy(bytes), |line| {
            recogniser.line(line);
            summaries.line(line);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_in_chunks(text: &str, size: usize) -> Scanned {
        let mut s = StreamScanner::new("stdout");
        for chunk in text.as_bytes().chunks(size) {
            s.push(chunk);
        }
        s.finish()
    }

    #[test]
    fn lines_split_across_chunks_are_read_whole() {
        let text = "noise\ntest result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.1s\r\npanic: boom";
        let whole = scan_in_chunks(text, text.len());
        for size in [1, 2, 7, 64] {
            assert_eq!(scan_in_chunks(text, size), whole, "chunks of {size}");
        }
        assert_eq!(whole.summaries[0].failed, 2);
        assert_eq!(whole.recognised.len(), 1, "{whole:?}");
    }

    #[test]
    fn a_failure_line_far_from_the_end_is_still_recognised() {
        let mut text = "FAIL\texample.com/pkg [build failed]\n".to_owned();
        text.push_str(&"log line of some length\n".repeat(4000));
        let found = scan_in_chunks(&text, 16 * 1024);
        assert_eq!(found.recognised.len(), 1, "{found:?}");
    }

    #[test]
    fn an_overlong_line_is_read_by_its_start_and_the_next_line_is_whole() {
        let mut text = format!("panic: {}", "x".repeat(MAX_SCAN_LINE * 2));
        text.push_str("\n--- FAIL: TestX (0.00s)\n");
        let found = scan_in_chunks(&text, 4096);
        assert_eq!(found.recognised.len(), 1);
        assert_eq!(found.summaries.len(), 1);
        assert_eq!(found.summaries[0].ecosystem, "go");
    }

    #[test]
    fn go_json_output_is_read_for_summaries() {
        let text = "{\"Action\":\"output\",\"Test\":\"TestX\",\"Output\":\"--- FAIL: TestX (0.00s)\\n\"}\n{\"Action\":\"fail\",\"Test\":\"TestX\"}\n";
        let found = scan_in_chunks(text, 10);
        assert_eq!(found.summaries[0].failed, 1);
    }
}
