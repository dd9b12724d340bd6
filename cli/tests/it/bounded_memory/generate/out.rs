//! What every generator shares: a writer that counts its bytes, the one rule that says what
//! happens to test number `n`, and the counts that rule gives for a file of `n` tests.

use std::io::Write;

/// A writer that counts what it wrote, so a generator can be sized on `io::sink()` first.
pub struct Out<'a> {
    w: &'a mut dyn Write,
    pub bytes: u64,
}

impl<'a> Out<'a> {
    pub fn new(w: &'a mut dyn Write) -> Self {
        Out { w, bytes: 0 }
    }

    pub fn put(&mut self, s: &str) {
        self.w.write_all(s.as_bytes()).unwrap();
        self.bytes += s.len() as u64;
    }
}

/// What happens to a test: 1 % fail with a message and a traceback, 1 % are skipped, 13 %
/// print captured output and pass, the rest pass quietly (the JUnit shape since issue 20).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Failed,
    Skipped,
    Output,
    Passed,
}

/// The kind of test number `n` (numbered from 1).
pub fn kind(n: u64) -> Kind {
    match n % 100 {
        0 => Kind::Failed,
        1 => Kind::Skipped,
        2..=14 => Kind::Output,
        _ => Kind::Passed,
    }
}

/// The counts of a file of tests 1..=`tests`, which documents that declare their counts
/// (Jest, CTRF, Mocha, pytest-json-report, libtest) write before their tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Plan {
    pub tests: u64,
    pub failed: u64,
    pub skipped: u64,
}

impl Plan {
    pub fn of(tests: u64) -> Plan {
        Plan::range(1, tests)
    }

    /// The counts of tests `first..first + len` (a group a document declares on its own).
    pub fn range(first: u64, len: u64) -> Plan {
        let mut p = Plan {
            tests: len,
            ..Plan::default()
        };
        for n in first..first + len {
            match kind(n) {
                Kind::Failed => p.failed += 1,
                Kind::Skipped => p.skipped += 1,
                Kind::Output | Kind::Passed => {}
            }
        }
        p
    }

    pub fn passed(&self) -> u64 {
        self.tests - self.failed - self.skipped
    }
}

/// A JSON string literal of `s`, quotes included.
pub fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// Captured output, the same two lines in every format.
pub const CAPTURED: &str = "captured line one\ncaptured line two\n";
