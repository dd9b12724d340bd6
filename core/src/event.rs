//! The adapter seam: adapters push events into an [`EventSink`]; a [`Normalizer`] in front of
//! the consumer turns "started but never finished" into problems; consumers either keep the whole
//! run ([`RunCollector`]) or only what scoring needs ([`crate::Tally`]).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use crate::model::{Problem, ProblemKind, Producer, TestCase, TestRun};

/// Where adapters send what they read. Every method takes owned data so a sink may keep it or
/// drop it; a scoring sink keeps counts and failures only, which keeps memory flat on huge inputs.
pub trait EventSink {
    /// The tool that produced the input, once known.
    fn producer(&mut self, producer: Producer);

    /// A test started. Streaming formats (go test -json, pytest-reportlog) report this; a test
    /// that starts and never finishes becomes a `missing-results` problem.
    fn test_started(&mut self, suite: Option<&str>, name: &str, id: &str) {
        let _ = (suite, name, id);
    }

    /// A test has its final result.
    fn test_finished(&mut self, test: TestCase);

    /// A run-level problem.
    fn problem(&mut self, problem: Problem);

    /// Something worth telling the user that does not change results.
    fn warning(&mut self, message: String);
}

impl<S: EventSink + ?Sized> EventSink for &mut S {
    fn producer(&mut self, producer: Producer) {
        (**self).producer(producer);
    }
    fn test_started(&mut self, suite: Option<&str>, name: &str, id: &str) {
        (**self).test_started(suite, name, id);
    }
    fn test_finished(&mut self, test: TestCase) {
        (**self).test_finished(test);
    }
    fn problem(&mut self, problem: Problem) {
        (**self).problem(problem);
    }
    fn warning(&mut self, message: String) {
        (**self).warning(message);
    }
}

/// Sits between an adapter and a consumer for one input file: remembers which tests started and
/// have not finished, and on [`Normalizer::finish`] reports each as a `missing-results` problem,
/// so a killed run can never look complete.
#[derive(Debug)]
pub struct Normalizer<S> {
    inner: S,
    // id -> (start sequence, suite); the sequence keeps the problems in start order.
    open: HashMap<String, (u64, Option<String>)>,
    seq: u64,
}

impl<S: EventSink> Normalizer<S> {
    /// Wraps a consumer.
    pub fn new(inner: S) -> Self {
        Normalizer {
            inner,
            open: HashMap::new(),
            seq: 0,
        }
    }

    /// Ends the input: reports unfinished tests and hands back the consumer.
    pub fn finish(mut self) -> S {
        let mut open: Vec<_> = std::mem::take(&mut self.open).into_iter().collect();
        open.sort_by_key(|(_, (seq, _))| *seq);
        for (id, (_, suite)) in open {
            let mut p = Problem::new(
                ProblemKind::MissingResults,
                format!("test `{id}` started but has no result"),
            );
            p.suite = suite;
            self.inner.problem(p);
        }
        self.inner
    }
}

impl<S: EventSink> EventSink for Normalizer<S> {
    fn producer(&mut self, producer: Producer) {
        self.inner.producer(producer);
    }
    fn test_started(&mut self, suite: Option<&str>, name: &str, id: &str) {
        self.seq += 1;
        self.open
            .insert(id.to_owned(), (self.seq, suite.map(str::to_owned)));
        self.inner.test_started(suite, name, id);
    }
    fn test_finished(&mut self, test: TestCase) {
        // Most formats never report starts: skip hashing the id into an empty map.
        if !self.open.is_empty() {
            self.open.remove(&test.id);
        }
        self.inner.test_finished(test);
    }
    fn problem(&mut self, problem: Problem) {
        self.inner.problem(problem);
    }
    fn warning(&mut self, message: String) {
        self.inner.warning(message);
    }
}

/// Notices ids seen more than once. Keeps a 64-bit fingerprint per id rather than the id itself,
/// so memory stays at a few bytes per test even on inputs with millions of tests.
#[derive(Debug, Default)]
pub struct DuplicateTracker {
    // The keys already are well-mixed fingerprints; hashing them again would only cost time.
    seen: HashSet<u64, BuildHasherDefault<IdentityHasher>>,
}

/// A fast, well-mixed 64-bit fingerprint (multiply-rotate over 8-byte words, then a murmur3
/// finaliser). Not collision-resistant against a chosen input, which is fine here: a collision
/// can only add a duplicate *warning*, never merge or drop a result.
fn fingerprint(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// A hasher for keys that are already well-mixed 64-bit hashes.
#[derive(Debug, Default)]
struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only u64 keys are hashed here; fold anything else in rather than drop it.
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl DuplicateTracker {
    /// Records an id; returns true when it was seen before.
    pub fn is_duplicate(&mut self, id: &str) -> bool {
        !self.seen.insert(fingerprint(id.as_bytes()))
    }

    /// Takes in another tracker's ids; returns how many of them this one had already seen.
    pub fn merge(&mut self, other: DuplicateTracker) -> usize {
        other
            .seen
            .into_iter()
            .filter(|fp| !self.seen.insert(*fp))
            .count()
    }
}

/// A consumer that keeps the whole run, for `gapscore parse` and for tests.
#[derive(Debug, Default)]
pub struct RunCollector {
    run: TestRun,
    // None: keep only what the adapter said (the plugin side of the ABI, whose output the host
    // collects again and would otherwise warn about twice).
    dups: Option<DuplicateTracker>,
}

impl RunCollector {
    /// An empty collector for a run of the given format read from `source`.
    pub fn new(format: impl Into<String>, source: Option<String>) -> Self {
        let mut run = TestRun::new(format);
        run.source = source;
        RunCollector {
            run,
            dups: Some(DuplicateTracker::default()),
        }
    }

    /// A collector that adds no warnings of its own (no duplicate-id check): the run holds
    /// exactly the adapter's events.
    pub fn raw(format: impl Into<String>, source: Option<String>) -> Self {
        let mut c = RunCollector::new(format, source);
        c.dups = None;
        c
    }

    /// The collected run.
    pub fn into_run(self) -> TestRun {
        self.run
    }
}

impl EventSink for RunCollector {
    fn producer(&mut self, producer: Producer) {
        self.run.producer = Some(producer);
    }
    fn test_finished(&mut self, test: TestCase) {
        if self.dups.as_mut().is_some_and(|d| d.is_duplicate(&test.id)) {
            self.run.warnings.push(format!(
                "duplicate test id `{}`: entries are kept and counted separately",
                test.id
            ));
        }
        self.run.tests.push(test);
    }
    fn problem(&mut self, problem: Problem) {
        self.run.problems.push(problem);
    }
    fn warning(&mut self, message: String) {
        self.run.warnings.push(message);
    }
}

/// Replays a collected run into a sink, in order.
pub fn replay(run: &TestRun, sink: &mut dyn EventSink) {
    if let Some(p) = &run.producer {
        sink.producer(p.clone());
    }
    for t in &run.tests {
        sink.test_finished(t.clone());
    }
    for p in &run.problems {
        sink.problem(p.clone());
    }
    for w in &run.warnings {
        sink.warning(w.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Status;

    #[test]
    fn started_but_unfinished_tests_become_missing_results() {
        let mut n = Normalizer::new(RunCollector::new("x", None));
        n.test_started(Some("pkg"), "TestA", "pkg::TestA");
        n.test_started(Some("pkg"), "TestB", "pkg::TestB");
        n.test_finished(TestCase::new(Some("pkg".into()), "TestA", Status::Passed));
        let run = n.finish().into_run();
        assert_eq!(run.tests.len(), 1);
        assert_eq!(run.problems.len(), 1);
        assert_eq!(run.problems[0].kind, ProblemKind::MissingResults);
        assert!(run.problems[0].detail.contains("pkg::TestB"));
        assert_eq!(run.problems[0].suite.as_deref(), Some("pkg"));
    }

    #[test]
    fn duplicates_are_kept_and_warned() {
        let mut c = RunCollector::new("x", None);
        c.test_finished(TestCase::new(None, "t", Status::Failed));
        c.test_finished(TestCase::new(None, "t", Status::Passed));
        let run = c.into_run();
        assert_eq!(run.tests.len(), 2);
        assert_eq!(run.warnings.len(), 1);
    }
}
