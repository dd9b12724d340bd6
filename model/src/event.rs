//! The adapter seam: adapters push events into an [`EventSink`]; a [`Normalizer`] in front of
//! the consumer turns "started but never finished" into problems; consumers either keep the whole
//! run ([`RunCollector`]) or only what scoring needs (the core's `Tally`).

use std::collections::{HashMap, HashSet};

use crate::borrowed::TestCaseRef;
use crate::run::{Problem, ProblemKind, Producer, TestCase, TestRun};
use crate::text::{TEXT_CAP, is_cut};

/// Where adapters send what they read. Every method but one takes owned data so a sink may keep
/// it or drop it; [`EventSink::test_finished_ref`] lends a test for the call, so that a sink
/// which only counts it (the scoring tally) needs no copy. A scoring sink keeps counts and
/// failures only, which keeps memory flat on huge inputs.
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

    /// A test has its final result, its strings borrowed from the adapter for this call: the
    /// fast path for an adapter that reuses its buffers. A sink that only counts most tests
    /// (the scoring tally) implements it to count them without an owned copy; the default
    /// makes the owned [`TestCase`] and calls [`EventSink::test_finished`], so every sink
    /// sees every test whichever of the two an adapter calls. (Added in gapscore-model 0.2.)
    fn test_finished_ref(&mut self, test: TestCaseRef<'_>) {
        self.test_finished(test.to_test_case());
    }

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
    fn test_finished_ref(&mut self, test: TestCaseRef<'_>) {
        (**self).test_finished_ref(test);
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
/// so a killed run can never look complete. It also counts the tests and problems with a text
/// the adapter cut at [`TEXT_CAP`] (a test's message, expected, actual, output or an earlier
/// attempt's message, a problem's detail, ending with [`CUT_NOTE`](crate::text::CUT_NOTE)) and
/// on [`Normalizer::finish`] says so in one warning for the whole input.
#[derive(Debug)]
pub struct Normalizer<S> {
    inner: S,
    // id -> (start sequence, suite); the sequence keeps the problems in start order.
    open: HashMap<String, (u64, Option<String>)>,
    seq: u64,
    // Tests and problems seen with a cut text, and which was the first.
    cut_tests: u64,
    cut_problems: u64,
    first_cut: Option<String>,
    warn_cuts: bool,
}

impl<S: EventSink> Normalizer<S> {
    /// Wraps a consumer.
    pub fn new(inner: S) -> Self {
        Normalizer {
            inner,
            open: HashMap::new(),
            seq: 0,
            cut_tests: 0,
            cut_problems: 0,
            first_cut: None,
            warn_cuts: true,
        }
    }

    /// Ends the input: reports unfinished tests and hands back the consumer. The tests of one
    /// suite that never finished are one `missing-results` problem whose count is their number
    /// (so each still counts as a failure) and whose detail names the first
    /// [`UNFINISHED_NAMED`] of them: a stream cut in a suite of 341 running tests is one
    /// problem, not 341.
    pub fn finish(mut self) -> S {
        let mut open: Vec<_> = std::mem::take(&mut self.open).into_iter().collect();
        open.sort_by_key(|(_, (seq, _))| *seq);
        // Suites in the order their first unfinished test started.
        let mut suites: Vec<(Option<String>, Vec<String>)> = Vec::new();
        for (id, (_, suite)) in open {
            match suites.iter_mut().find(|(s, _)| *s == suite) {
                Some((_, ids)) => ids.push(id),
                None => suites.push((suite, vec![id])),
            }
        }
        for (suite, ids) in suites {
            let mut p = match ids.as_slice() {
                [one] => Problem::new(
                    ProblemKind::MissingResults,
                    format!("test `{one}` started but has no result"),
                ),
                _ => {
                    let named: Vec<String> = ids
                        .iter()
                        .take(UNFINISHED_NAMED)
                        .map(|id| format!("`{id}`"))
                        .collect();
                    let more = match ids.len().saturating_sub(UNFINISHED_NAMED) {
                        0 => String::new(),
                        n => format!(" and {n} more"),
                    };
                    Problem::new(
                        ProblemKind::MissingResults,
                        format!(
                            "{} tests started but have no result: {}{more}",
                            ids.len(),
                            named.join(", ")
                        ),
                    )
                    .with_count(ids.len() as u64)
                }
            };
            p.suite = suite;
            self.inner.problem(p);
        }
        if let Some(w) = self.cut_warning() {
            self.inner.warning(w);
        }
        self.inner
    }

    /// The consumer, as it is so far.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The consumer, to change.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// Takes in a normalizer that read the rest of the same input (a large file read in two
    /// halves): its unfinished tests and cut texts count as if this one had read them, after
    /// its own. Hands back its consumer, for the caller to append to this one's.
    pub fn append(&mut self, later: Normalizer<S>) -> S {
        let seq = self.seq;
        for (id, (n, suite)) in later.open {
            self.open.insert(id, (seq + n, suite));
        }
        self.seq += later.seq;
        if self.cut_tests + self.cut_problems == 0 {
            self.first_cut = later.first_cut;
        }
        self.cut_tests += later.cut_tests;
        self.cut_problems += later.cut_problems;
        later.inner
    }

    /// A normalizer that does not warn about cut texts: for the plugin side of the C ABI, whose
    /// events the host passes through its own normalizer (which warns once).
    #[must_use]
    pub fn without_cut_warning(mut self) -> Self {
        self.warn_cuts = false;
        self
    }

    /// Counts the cut texts of a finished test: the test counts once, whatever number of its
    /// texts were cut (a go test's output and the message drawn from it are cut together).
    fn count_cuts(&mut self, test: &TestCaseRef<'_>) {
        let fields = [
            ("message", test.message),
            ("expected value", test.expected),
            ("actual value", test.actual),
            ("output", test.output),
        ];
        // Most tests have none of these texts: nothing to collect, nothing allocated.
        if fields.iter().all(|(_, text)| text.is_none()) && test.attempts.is_empty() {
            return;
        }
        let mut cut: Vec<&str> = fields
            .iter()
            .filter(|(_, text)| text.is_some_and(is_cut))
            .map(|(field, _)| *field)
            .collect();
        if test
            .attempts
            .iter()
            .any(|a| a.message.as_deref().is_some_and(is_cut))
        {
            cut.push("earlier attempt's message");
        }
        if cut.is_empty() {
            return;
        }
        if self.cut_tests + self.cut_problems == 0 {
            self.first_cut = Some(format!("test `{}` {}", test.id, cut.join(" and ")));
        }
        self.cut_tests += 1;
    }

    /// The one warning for the texts cut in this input, if any.
    fn cut_warning(&mut self) -> Option<String> {
        let (tests, problems) = (self.cut_tests, self.cut_problems);
        if !self.warn_cuts || tests + problems == 0 {
            return None;
        }
        let count = |n: u64, what: &str| match n {
            0 => None,
            1 => Some(format!("1 {what}")),
            n => Some(format!("{n} {what}s")),
        };
        let who: Vec<String> = [count(tests, "test"), count(problems, "problem")]
            .into_iter()
            .flatten()
            .collect();
        let first = self.first_cut.take().unwrap_or_default();
        let first = if tests + problems > 1 {
            format!("the first: {first}")
        } else {
            first
        };
        Some(format!(
            "{} had text longer than {} KiB, which was cut ({first})",
            who.join(" and "),
            TEXT_CAP / 1024
        ))
    }
}

/// How many unfinished tests a `missing-results` problem names (the count holds them all).
pub const UNFINISHED_NAMED: usize = 5;

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
        if self.warn_cuts {
            self.count_cuts(&test.borrowed());
        }
        self.inner.test_finished(test);
    }
    fn test_finished_ref(&mut self, test: TestCaseRef<'_>) {
        if !self.open.is_empty() {
            self.open.remove(test.id);
        }
        if self.warn_cuts {
            self.count_cuts(&test);
        }
        self.inner.test_finished_ref(test);
    }
    fn problem(&mut self, problem: Problem) {
        if self.warn_cuts && is_cut(&problem.detail) {
            if self.cut_tests + self.cut_problems == 0 {
                self.first_cut = Some(format!("the detail of a `{}` problem", problem.kind));
            }
            self.cut_problems += 1;
        }
        self.inner.problem(problem);
    }
    fn warning(&mut self, message: String) {
        self.inner.warning(message);
    }
}

/// Notices ids seen more than once. Keeps a 64-bit fingerprint per id (8 bytes per test) and
/// looks for repeats once, at the end, by sorting: per test this is one push, where a hash set
/// costs a cache miss and about three times the memory at a million tests (its table doubles,
/// and briefly exists twice while it grows). Fingerprints are kept in chunks of at most
/// 512 KiB, so growing never copies or briefly doubles a large buffer either. The price is that
/// repeats are known as fingerprints; [`IdFinder`] names them, on a second look at the tests.
///
/// A tracker made with [`DuplicateTracker::bounded`] stops recording after a number of ids, so
/// that the memory of `gapscore score` does not grow with the number of passing tests; it then
/// says so ([`DuplicateTracker::stopped_after`]).
#[derive(Debug, Default, Clone)]
pub struct DuplicateTracker {
    chunks: Vec<Vec<u64>>,
    recorded: u64,
    limit: Option<u64>,
    stopped: bool,
}

/// The bound `gapscore score` uses: 2,097,152 ids, 16 MiB of fingerprints.
pub const DUPLICATE_CHECK_LIMIT: u64 = 1 << 21;

/// Fingerprints per chunk (512 KiB).
const CHUNK: usize = 1 << 16;

/// A fast, well-mixed 64-bit fingerprint: each 8-byte word is folded in with a 64×64→128-bit
/// multiply whose halves are XORed (as foldhash and wyhash do), then a murmur3 finaliser. The
/// fold carries every bit of a word into every bit of the state; a plain multiply only carries
/// bits upwards, and the rotate-and-multiply used before it made ids that differ in two places
/// (`pkg.mod19.Cls::test_100`, `pkg.mod96.Cls::test_100`) collide by the thousand, so every
/// large file was read a second time to name duplicates it did not have. Not
/// collision-resistant against a chosen input, which is fine here: a collision can only cost
/// that second read, never add a warning (the ids are compared), merge or drop a result.
fn fingerprint(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let fold = |h: u64, w: u64| {
        let m = u128::from(h ^ w) * u128::from(K);
        (m as u64) ^ ((m >> 64) as u64)
    };
    let mut h = bytes.len() as u64 ^ 0x9e37_79b9_7f4a_7c15;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = fold(h, u64::from_le_bytes(w));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = fold(h, u64::from_le_bytes(w));
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

impl DuplicateTracker {
    /// Records one occurrence of an id.
    pub fn record(&mut self, id: &str) {
        if self.limit.is_some_and(|l| self.recorded >= l) {
            self.stopped = true;
            return;
        }
        self.recorded += 1;
        let fp = fingerprint(id.as_bytes());
        match self.chunks.last_mut() {
            Some(c) if c.len() < CHUNK => c.push(fp),
            _ => {
                // The first chunk grows from small (most files hold few tests); later ones are
                // allocated whole.
                let mut c = Vec::with_capacity(if self.chunks.is_empty() { 64 } else { CHUNK });
                c.push(fp);
                self.chunks.push(c);
            }
        }
    }

    /// A tracker that records at most `limit` ids.
    pub fn bounded(limit: u64) -> Self {
        DuplicateTracker {
            limit: Some(limit),
            ..DuplicateTracker::default()
        }
    }

    /// The number of ids recorded, when some were not (the bound was reached).
    pub fn stopped_after(&self) -> Option<u64> {
        self.stopped.then_some(self.recorded)
    }

    /// Takes in another tracker's ids (another input file's), keeping them all: their memory
    /// is already spent. The bound then applies to the sum.
    pub fn merge(&mut self, other: DuplicateTracker) {
        self.recorded += other.recorded;
        self.stopped |= other.stopped;
        for mut c in other.chunks {
            c.shrink_to_fit();
            self.chunks.push(c);
        }
    }

    /// The fingerprints that were recorded more than once, ascending: each chunk is sorted in
    /// place, then the chunks are merged through a heap, without a combined copy.
    pub fn repeated(&mut self) -> Vec<u64> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut heap = BinaryHeap::with_capacity(self.chunks.len());
        for (i, c) in self.chunks.iter_mut().enumerate() {
            c.sort_unstable();
            if let Some(&first) = c.first() {
                heap.push(Reverse((first, i, 0usize)));
            }
        }
        let mut out = Vec::new();
        let mut last: Option<u64> = None;
        while let Some(Reverse((fp, i, at))) = heap.pop() {
            if last == Some(fp) && out.last() != Some(&fp) {
                out.push(fp);
            }
            last = Some(fp);
            if let Some(&next) = self.chunks[i].get(at + 1) {
                heap.push(Reverse((next, i, at + 1)));
            }
        }
        out
    }
}

/// The fingerprint [`DuplicateTracker`] keeps for an id.
pub fn id_fingerprint(id: &str) -> u64 {
    fingerprint(id.as_bytes())
}

/// A sink that names the ids behind [`DuplicateTracker::repeated`]: it counts the tests whose
/// id has one of the given fingerprints and returns, in first-seen order, those seen more than
/// once (so a fingerprint shared by two different ids names neither).
#[derive(Debug, Default)]
pub struct IdFinder {
    wanted: HashSet<u64>,
    order: Vec<String>,
    counts: HashMap<String, usize>,
}

impl IdFinder {
    /// A finder for these fingerprints.
    pub fn new(wanted: &[u64]) -> Self {
        IdFinder {
            wanted: wanted.iter().copied().collect(),
            ..IdFinder::default()
        }
    }

    /// Counts one test id.
    pub fn see(&mut self, id: &str) {
        if !self.wanted.contains(&id_fingerprint(id)) {
            return;
        }
        match self.counts.get_mut(id) {
            Some(n) => *n += 1,
            None => {
                self.counts.insert(id.to_owned(), 1);
                self.order.push(id.to_owned());
            }
        }
    }

    /// Adds another finder's counts after this one's (the next input file's).
    pub fn merge(&mut self, other: IdFinder) {
        for id in other.order {
            let n = other.counts.get(&id).copied().unwrap_or(0);
            match self.counts.get_mut(&id) {
                Some(mine) => *mine += n,
                None => {
                    self.counts.insert(id.clone(), n);
                    self.order.push(id);
                }
            }
        }
    }

    /// Every wanted id seen, in first-seen order, with how often.
    pub fn seen(&self) -> impl Iterator<Item = (&str, usize)> {
        self.order
            .iter()
            .map(|id| (id.as_str(), self.counts.get(id).copied().unwrap_or(0)))
    }

    /// The ids seen more than once, in first-seen order, with their counts.
    pub fn into_repeated(self) -> Vec<(String, usize)> {
        let IdFinder { order, counts, .. } = self;
        order
            .into_iter()
            .filter_map(|id| {
                let n = counts.get(&id).copied().unwrap_or(0);
                (n > 1).then_some((id, n))
            })
            .collect()
    }
}

impl EventSink for IdFinder {
    fn producer(&mut self, _: Producer) {}
    fn test_finished(&mut self, test: TestCase) {
        self.see(&test.id);
    }
    fn test_finished_ref(&mut self, test: TestCaseRef<'_>) {
        self.see(test.id);
    }
    fn problem(&mut self, _: Problem) {}
    fn warning(&mut self, _: String) {}
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
    /// The collected run. Ids that occur more than once get one warning each, here, since
    /// repeats are only known once every test is in.
    pub fn into_run(mut self) -> TestRun {
        if let Some(mut dups) = self.dups.take() {
            let repeated = dups.repeated();
            if !repeated.is_empty() {
                let mut finder = IdFinder::new(&repeated);
                for t in &self.run.tests {
                    finder.see(&t.id);
                }
                for (id, n) in finder.into_repeated() {
                    self.run.warnings.push(format!(
                        "duplicate test id `{id}` occurs {n} times: entries are kept and counted separately"
                    ));
                }
            }
        }
        self.run
    }
}

impl EventSink for RunCollector {
    fn producer(&mut self, producer: Producer) {
        self.run.producer = Some(producer);
    }
    fn test_finished(&mut self, test: TestCase) {
        if let Some(d) = self.dups.as_mut() {
            d.record(&test.id);
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
    use crate::run::Status;

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
    fn a_borrowed_finish_closes_its_start_and_reaches_every_sink() {
        let mut n = Normalizer::new(RunCollector::new("x", None));
        n.test_started(Some("pkg"), "TestA", "pkg::TestA");
        n.test_started(Some("pkg"), "TestB", "pkg::TestB");
        let mut a = TestCase::new(Some("pkg".into()), "TestA", Status::Failed);
        a.message = Some(format!("boom{}", crate::text::CUT_NOTE));
        n.test_finished_ref(a.borrowed());
        let run = n.finish().into_run();
        assert_eq!(run.tests, [a.clone()]);
        assert_eq!(run.problems.len(), 1);
        assert!(run.problems[0].detail.contains("pkg::TestB"));
        assert_eq!(run.warnings.len(), 1, "the cut message is counted: {run:?}");

        let mut finder = IdFinder::new(&[id_fingerprint("pkg::TestA")]);
        finder.test_finished_ref(a.borrowed());
        finder.test_finished(a);
        assert_eq!(finder.into_repeated(), [("pkg::TestA".to_owned(), 2)]);
    }

    #[test]
    fn unfinished_tests_of_one_suite_are_one_counted_problem() {
        let mut n = Normalizer::new(RunCollector::new("x", None));
        for i in 0..8 {
            n.test_started(Some("pkg"), "T", &format!("pkg::T{i}"));
        }
        n.test_started(Some("other"), "U", "other::U");
        let run = n.finish().into_run();
        assert_eq!(run.problems.len(), 2);
        assert_eq!(run.problems[0].count, Some(8));
        assert_eq!(
            run.problems[0].detail,
            "8 tests started but have no result: `pkg::T0`, `pkg::T1`, `pkg::T2`, `pkg::T3`, `pkg::T4` and 3 more"
        );
        assert_eq!(run.problems[1].count, None);
        assert_eq!(run.problems[1].weight(), 1);
    }

    #[test]
    fn cut_texts_are_one_warning_per_input() {
        use crate::run::{Attempt, ProblemKind};
        use crate::text::CUT_NOTE;
        let cut = || format!("{}{CUT_NOTE}", "x".repeat(10));
        let mut n = Normalizer::new(RunCollector::new("x", None));
        let mut short = TestCase::new(Some("pkg".into()), "TestShort", Status::Failed);
        short.message = Some("short".into());
        n.test_finished(short);
        let mut a = TestCase::new(Some("pkg".into()), "TestA", Status::Failed);
        a.output = Some(cut());
        a.message = Some(cut());
        n.test_finished(a);
        let mut b = TestCase::new(Some("pkg".into()), "TestB", Status::Passed);
        let mut earlier = Attempt::new(Status::Failed);
        earlier.message = Some(cut());
        b.attempts.push(earlier);
        n.test_finished(b);
        n.problem(Problem::new(ProblemKind::BuildFailure, cut()));
        n.problem(Problem::new(ProblemKind::BuildFailure, "short"));
        let run = n.finish().into_run();
        assert_eq!(
            run.warnings,
            [
                "2 tests and 1 problem had text longer than 64 KiB, which was cut \
                 (the first: test `pkg::TestA` message and output)"
            ]
        );

        let mut n = Normalizer::new(RunCollector::new("x", None));
        n.problem(Problem::new(ProblemKind::BuildFailure, cut()));
        let run = n.finish().into_run();
        assert_eq!(
            run.warnings,
            ["1 problem had text longer than 64 KiB, which was cut \
                 (the detail of a `build-failure` problem)"]
        );

        let mut n = Normalizer::new(RunCollector::new("x", None)).without_cut_warning();
        n.problem(Problem::new(ProblemKind::BuildFailure, cut()));
        assert!(n.finish().into_run().warnings.is_empty());
        let mut n = Normalizer::new(RunCollector::new("x", None));
        n.test_finished(TestCase::new(None, "t", Status::Passed));
        assert!(n.finish().into_run().warnings.is_empty());
    }

    #[test]
    fn repeats_are_found_across_chunks_and_merged_trackers() {
        let mut a = DuplicateTracker::default();
        for i in 0..(CHUNK * 2 + 10) {
            a.record(&format!("t{i}"));
        }
        a.record("t5");
        a.record("t5");
        let mut b = DuplicateTracker::default();
        b.record(&format!("t{}", CHUNK + 3));
        b.record("only-b");
        a.merge(b);
        let mut want = vec![
            id_fingerprint("t5"),
            id_fingerprint(&format!("t{}", CHUNK + 3)),
        ];
        want.sort_unstable();
        assert_eq!(a.repeated(), want);
        assert!(DuplicateTracker::default().repeated().is_empty());
    }

    #[test]
    fn ids_that_differ_in_two_places_do_not_collide() {
        // The shape of generated and real suites: numbered modules times numbered tests. The
        // fingerprint used before collided 1,600 times in the first 100,000 of these.
        let mut d = DuplicateTracker::default();
        for module in 1..=400 {
            for test in 0..500 {
                d.record(&format!("pkg.mod{module}.Cls::test_{test}"));
            }
        }
        assert_eq!(d.repeated(), Vec::<u64>::new());
    }

    #[test]
    fn a_bounded_tracker_stops_and_says_so() {
        let mut d = DuplicateTracker::bounded(3);
        for id in ["a", "b", "c"] {
            d.record(id);
        }
        assert_eq!(d.stopped_after(), None);
        d.record("a");
        assert_eq!(d.stopped_after(), Some(3));
        assert!(d.repeated().is_empty());
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
