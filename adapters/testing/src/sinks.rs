//! Event sinks for tests and benchmarks: [`NullSink`] counts, [`RouteSink`] keeps each test with
//! the path it came by, [`EventLog`] records every event as text.

use gapscore_adapter_sdk::{EventSink, Problem, Producer, TestCase, TestCaseRef};

/// A sink that counts the tests, problems and warnings it is given and keeps nothing: a
/// benchmark's `null` mode, the reader's own cost.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct NullSink {
    /// Finished tests seen.
    pub tests: usize,
    /// Run-level problems seen.
    pub problems: usize,
    /// Warnings seen.
    pub warnings: usize,
}

impl EventSink for NullSink {
    fn producer(&mut self, _: Producer) {}
    fn test_finished(&mut self, _: TestCase) {
        self.tests += 1;
    }
    // The borrowed fast path, not the default's owned copy: `null` mode measures the reader.
    fn test_finished_ref(&mut self, _: TestCaseRef<'_>) {
        self.tests += 1;
    }
    fn problem(&mut self, _: Problem) {
        self.problems += 1;
    }
    fn warning(&mut self, _: String) {
        self.warnings += 1;
    }
}

/// A sink that keeps every finished test with the way it came: `true` when through the
/// borrowed fast path ([`EventSink::test_finished_ref`]), `false` when owned. The adapters'
/// `tests/it/borrowed.rs` check with it that a reader's tests go borrowed and read as the owned
/// path does.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct RouteSink(pub Vec<(bool, TestCase)>);

impl RouteSink {
    /// True when every test came borrowed.
    pub fn all_borrowed(&self) -> bool {
        self.0.iter().all(|(b, _)| *b)
    }

    /// The tests, in arrival order.
    pub fn into_tests(self) -> Vec<TestCase> {
        self.0.into_iter().map(|(_, t)| t).collect()
    }
}

impl EventSink for RouteSink {
    fn producer(&mut self, _: Producer) {}
    fn test_finished(&mut self, t: TestCase) {
        self.0.push((false, t));
    }
    fn test_finished_ref(&mut self, t: TestCaseRef<'_>) {
        self.0.push((true, t.to_test_case()));
    }
    fn problem(&mut self, _: Problem) {}
    fn warning(&mut self, _: String) {}
}

/// A sink that records every event, in order, as text (`Debug` of each): for comparing two reads
/// of one input event for event (the JUnit split read against one pass, in its tests and its
/// fuzz target). A borrowed test is recorded as its owned copy, as the SDK's default does.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct EventLog(pub Vec<String>);

impl EventSink for EventLog {
    fn producer(&mut self, producer: Producer) {
        self.0.push(format!("producer {producer:?}"));
    }
    fn test_started(&mut self, suite: Option<&str>, name: &str, id: &str) {
        self.0.push(format!("started {suite:?} {name} {id}"));
    }
    fn test_finished(&mut self, test: TestCase) {
        self.0.push(format!("test {test:?}"));
    }
    fn problem(&mut self, problem: Problem) {
        self.0.push(format!("problem {problem:?}"));
    }
    fn warning(&mut self, message: String) {
        self.0.push(format!("warning {message}"));
    }
}
