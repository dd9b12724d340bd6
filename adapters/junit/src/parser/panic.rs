//! A Go panic in a suite's `<system-out>` (go-junit-report and gotestsum put the package's
//! output there): a `panic: ` line followed by `goroutine N [running]:` means the test binary
//! died, and the tests after the panicking one never ran. Read line by line as the text
//! streams, keeping at most one partial line.

/// The longest partial line kept between text chunks; longer lines are cut (a panic line is
/// short).
const CARRY_CAP: usize = 4096;

/// Scans text for a Go panic, chunk by chunk.
#[derive(Debug, Default)]
pub(super) struct PanicScan {
    carry: String,
    panic: Option<String>,
    found: Option<String>,
}

impl PanicScan {
    /// Reads the next chunk of text.
    pub fn feed(&mut self, text: &str) {
        let mut rest = text;
        while let Some(i) = rest.find('\n') {
            if self.carry.is_empty() {
                self.line(&rest[..i]);
            } else {
                let mut line = std::mem::take(&mut self.carry);
                line.push_str(&rest[..i]);
                self.line(&line);
            }
            rest = &rest[i + 1..];
        }
        let room = CARRY_CAP.saturating_sub(self.carry.len());
        let mut cut = rest.len().min(room);
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        self.carry.push_str(&rest[..cut]);
    }

    fn line(&mut self, line: &str) {
        if self.found.is_some() {
            return;
        }
        let line = line.trim();
        if line.starts_with("panic: ") {
            if self.panic.is_none() {
                self.panic = Some(line.to_owned());
            }
        } else if line.starts_with("goroutine ") && line.contains("[running]") {
            self.found = self.panic.take();
        }
    }

    /// Ends the text: the panic line, once, when a panic was seen with its goroutine trace.
    pub fn finish(&mut self) -> Option<String> {
        let last = std::mem::take(&mut self.carry);
        if !last.is_empty() {
            self.line(&last);
        }
        self.panic = None;
        self.found.take()
    }
}

#[cfg(test)]
mod tests {
    use super::PanicScan;

    #[test]
    fn a_panic_with_its_goroutine_is_found_across_chunks() {
        let mut s = PanicScan::default();
        s.feed("=== RUN TestA\npan");
        s.feed("ic: boom [recovered]\n\ngoroutine 7 [run");
        s.feed("ning]:\ntesting.tRunner(...)\n");
        assert_eq!(s.finish().as_deref(), Some("panic: boom [recovered]"));
        assert_eq!(s.finish(), None);
    }

    #[test]
    fn a_panic_word_alone_is_not_a_crash() {
        let mut s = PanicScan::default();
        s.feed("the test checks that panic: is printed\nok\n");
        assert_eq!(s.finish(), None);
    }
}
