//! One line of a libtest JSON stream as serde reads it: strings borrow from the line unless
//! they hold escapes, unknown keys are ignored (libtest and nextest add keys over time).

use std::borrow::Cow;

use serde::Deserialize;

/// A libtest event: `{"type":"suite"|"test"|"bench", "event": ..., ...}`.
#[derive(Debug, Deserialize)]
pub(crate) struct Event<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(default, borrow)]
    pub event: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub name: Option<Cow<'a, str>>,
    /// `suite started`: how many tests the binary will run (after its filters).
    #[serde(default)]
    pub test_count: Option<u64>,
    /// `suite ok|failed`: the binary's own counts.
    #[serde(default)]
    pub passed: Option<u64>,
    #[serde(default)]
    pub failed: Option<u64>,
    #[serde(default)]
    pub ignored: Option<u64>,
    #[serde(default)]
    pub measured: Option<u64>,
    /// Seconds (`--report-time`).
    #[serde(default)]
    pub exec_time: Option<f64>,
    /// Captured output of a failed test (of every test with `--show-output`).
    #[serde(default, borrow)]
    pub stdout: Option<Cow<'a, str>>,
    /// An ignore reason, or a failure message without output (`should_panic` that did not).
    #[serde(default, borrow)]
    pub message: Option<Cow<'a, str>>,
    /// `time limit exceeded` with `--ensure-time`.
    #[serde(default, borrow)]
    pub reason: Option<Cow<'a, str>>,
    /// Benchmarks: nanoseconds per iteration, and throughput when the bench sets `bytes`.
    #[serde(default)]
    pub median: Option<f64>,
    #[serde(default)]
    pub deviation: Option<f64>,
    #[serde(default)]
    pub mib_per_second: Option<f64>,
    /// nextest's `libtest-json-plus`: which test binary a suite event belongs to.
    #[serde(default, borrow)]
    pub nextest: Option<Nextest<'a>>,
}

/// nextest's addition to suite events (`--message-format libtest-json-plus`).
#[derive(Debug, Deserialize)]
pub(crate) struct Nextest<'a> {
    #[serde(rename = "crate", borrow)]
    pub krate: Cow<'a, str>,
    #[serde(borrow)]
    pub test_binary: Cow<'a, str>,
}

impl Nextest<'_> {
    /// The binary id nextest puts before `$` in test names (`crate::binary`).
    pub(crate) fn binary_id(&self) -> String {
        format!("{}::{}", self.krate, self.test_binary)
    }
}
