//! What the reader keeps per test binary, and which runner wrote the stream: the records
//! `reader` fills and `account` judges.

/// Which runner wrote the stream, known from its first test (or a nextest suite object).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// No test event yet.
    Unknown,
    /// libtest itself (`cargo test`, a test binary run directly): one binary after another.
    Cargo,
    /// cargo-nextest: test names are `crate::binary$test`, suites of binaries interleave.
    Nextest,
}

/// A suite's last line: `ok` or `failed`, with the binary's own counts.
#[derive(Debug, Clone, Copy, Default)]
pub struct Summary {
    pub failed_verdict: bool,
    pub passed: u64,
    pub failed: u64,
    pub ignored: u64,
    pub measured: u64,
}

impl Summary {
    pub fn total(&self) -> u64 {
        // Saturating: the counts are the file's, whatever their size.
        self.passed
            .saturating_add(self.failed)
            .saturating_add(self.ignored)
            .saturating_add(self.measured)
    }
}

/// Counts for one test binary: one libtest suite (`cargo test`), or every suite of one nextest
/// binary (nextest splits a binary's tests over several suites, each declaring the whole count).
#[derive(Debug, Default)]
pub struct Binary {
    /// `Running` target (cargo, when stderr is merged) or nextest binary id.
    pub label: Option<String>,
    /// The largest `test_count` declared.
    pub declared: Option<u64>,
    /// Suites started and ended.
    pub started: u64,
    pub ended: u64,
    /// The last summary (cargo: the one summary).
    pub summary: Option<Summary>,
    /// A suite of the binary ended `failed`.
    pub failed_verdict: bool,
    /// Results read, and how many were failures.
    pub finished: u64,
    pub failures: u64,
    /// Results read as ignored (libtest's `ignored`), and as `allowed_fail` (among `failures`;
    /// the summary's `failed` does not count them).
    pub ignored: u64,
    pub allowed_fail: u64,
    /// Tests started and not yet finished.
    pub open: u64,
    /// cargo's `process didn't exit successfully` line after this binary.
    pub exit: Option<String>,
}
