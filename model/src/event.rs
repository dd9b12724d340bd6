//! The adapter seam: adapters push events into an [`EventSink`]; a [`Normalizer`] in front of
//! the consumer turns "started but never finished" into problems; consumers either keep the whole
//! run ([`RunCollector`]) or only what scoring needs (the core's `Tally`).

use std::collections::HashMap;

use crate::borrowed::TestCaseRef;
use crate::codes::Code;
use crate::evidence::Evidence;
use crate::relative::PathRoot;
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

    /// Something worth telling the user that does not change results, without a code: a sink
    /// records it as [`Code::AdapterWarning`]. Readers call [`EventSink::coded_warning`].
    fn warning(&mut self, message: String);

    /// A warning with its stable code (added in gapscore-model 0.3). The default drops the
    /// code and calls [`EventSink::warning`], so sinks written before it keep working; every
    /// sink that keeps warnings implements it.
    fn coded_warning(&mut self, code: Code, message: String) {
        let _ = code;
        self.warning(message);
    }

    /// A claim the input makes beside its records (a declared count, a summary, an exit
    /// status, a footer; added in gapscore-model 0.4). The default judges it with
    /// [`Evidence::judge`] (the worst evidence wins) and reports what it finds as problems
    /// and warnings, so every sink counts it the same way; a sink overrides it only to keep
    /// the evidence as well, and then still calls [`judge_evidence`].
    fn evidence(&mut self, evidence: Evidence) {
        judge_evidence(self, &evidence);
    }
}

/// Reports what [`Evidence::judge`] finds into a sink: each problem, then each warning.
pub fn judge_evidence<S: EventSink + ?Sized>(sink: &mut S, evidence: &Evidence) {
    let j = evidence.judge();
    for p in j.problems {
        sink.problem(p);
    }
    for (code, w) in j.warnings {
        sink.coded_warning(code, w);
    }
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
    fn coded_warning(&mut self, code: Code, message: String) {
        (**self).coded_warning(code, message);
    }
    fn evidence(&mut self, evidence: Evidence) {
        (**self).evidence(evidence);
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
    // Where the run happened: removed from the start of ids, suites and files.
    root: Option<PathRoot>,
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
            root: None,
        }
    }

    /// A normalizer that makes every test's id, suite and file, and every problem's suite,
    /// relative to `root` where they start with it (the directory a runner that writes absolute
    /// paths ran in; see [`PathRoot`]). `None` keeps them as the adapter wrote them. (Added in
    /// gapscore-model 0.5.)
    #[must_use]
    pub fn relative_to(mut self, root: Option<PathRoot>) -> Self {
        self.root = root;
        self
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
            self.inner.coded_warning(Code::TextsCut, w);
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

/// True for a name a report would show as nothing.
fn is_blank(name: &str) -> bool {
    name.trim().is_empty()
}

/// The name of a test its format left unnamed (TAP's `not ok 3`, an empty JUnit `name=`): its
/// id without the suite part when that says something (TAP's `#3`), else [`UNNAMED`]. Every
/// format and plugin passes here, so no report shows an empty name (issue 35); a blank id
/// becomes that name too. Never a position: a file read in parts must name its tests as one
/// read would.
fn name_for_unnamed(id: &str, suite: Option<&str>) -> String {
    let own = suite
        .filter(|s| !s.is_empty())
        .and_then(|s| id.strip_prefix(s))
        .and_then(|rest| rest.strip_prefix("::"))
        .unwrap_or(id);
    if is_blank(own) {
        UNNAMED.to_owned()
    } else {
        own.to_owned()
    }
}

/// The name of a test whose format gave it neither a name nor an id of its own.
const UNNAMED: &str = "(unnamed)";

/// How many unfinished tests a `missing-results` problem names (the count holds them all).
pub const UNFINISHED_NAMED: usize = 5;

impl<S: EventSink> EventSink for Normalizer<S> {
    fn producer(&mut self, producer: Producer) {
        self.inner.producer(producer);
    }
    fn test_started(&mut self, suite: Option<&str>, name: &str, id: &str) {
        let (suite, id) = match &self.root {
            Some(root) => (
                suite.map(|s| root.strip(s).unwrap_or(s)),
                root.strip(id).unwrap_or(id),
            ),
            None => (suite, id),
        };
        self.seq += 1;
        self.open
            .insert(id.to_owned(), (self.seq, suite.map(str::to_owned)));
        self.inner.test_started(suite, name, id);
    }
    fn test_finished(&mut self, mut test: TestCase) {
        if let Some(root) = &self.root {
            root.apply(&mut test);
        }
        // Most formats never report starts: skip hashing the id into an empty map.
        if !self.open.is_empty() {
            self.open.remove(&test.id);
        }
        if is_blank(&test.name) {
            test.name = name_for_unnamed(&test.id, test.suite.as_deref());
            // A test without an id either is known by that name: two such tests are then one
            // id twice, a duplicate disclosed as such, never two tests that only read alike.
            if is_blank(&test.id) {
                test.id = TestCase::make_id(test.suite.as_deref(), &test.name);
            }
        }
        if self.warn_cuts {
            self.count_cuts(&test.borrowed());
        }
        self.inner.test_finished(test);
    }
    fn test_finished_ref(&mut self, test: TestCaseRef<'_>) {
        // A lent test whose strings must change is finished as an owned one.
        if is_blank(test.name) || self.root.as_ref().is_some_and(|root| root.holds(&test)) {
            self.test_finished(test.to_test_case());
            return;
        }
        if !self.open.is_empty() {
            self.open.remove(test.id);
        }
        if self.warn_cuts {
            self.count_cuts(&test);
        }
        self.inner.test_finished_ref(test);
    }
    fn problem(&mut self, mut problem: Problem) {
        if let Some(root) = &self.root {
            root.apply_problem(&mut problem);
        }
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
    fn coded_warning(&mut self, code: Code, message: String) {
        self.inner.coded_warning(code, message);
    }
}

/// A consumer that keeps the whole run, for `gapscore parse` and for tests.
#[derive(Debug, Default)]
pub struct RunCollector {
    run: TestRun,
    // False: keep only what the adapter said (the plugin side of the ABI, whose output the host
    // collects again and would otherwise warn about twice).
    warn_duplicates: bool,
}

impl RunCollector {
    /// An empty collector for a run of the given format read from `source`.
    pub fn new(format: impl Into<String>, source: Option<String>) -> Self {
        let mut run = TestRun::new(format);
        run.source = source;
        RunCollector {
            run,
            warn_duplicates: true,
        }
    }

    /// A collector that adds no warnings of its own (no duplicate-id check): the run holds
    /// exactly the adapter's events.
    pub fn raw(format: impl Into<String>, source: Option<String>) -> Self {
        let mut c = RunCollector::new(format, source);
        c.warn_duplicates = false;
        c
    }

    /// The collected run. Ids that occur more than once get one warning each, in the order of
    /// their first occurrence, here, since repeats are only known once every test is in. The
    /// tests are all in memory, so one map over their ids finds them (the scoring tally, which
    /// keeps no passing test, does this in bounded memory instead: `gapscore_core::duplicates`).
    pub fn into_run(mut self) -> TestRun {
        if self.warn_duplicates {
            // id -> (index of its first occurrence, occurrences)
            let mut seen: HashMap<&str, (usize, usize)> =
                HashMap::with_capacity(self.run.tests.len());
            for (i, t) in self.run.tests.iter().enumerate() {
                seen.entry(t.id.as_str()).or_insert((i, 0)).1 += 1;
            }
            let mut repeated: Vec<(usize, &str, usize)> = seen
                .into_iter()
                .filter(|(_, (_, n))| *n > 1)
                .map(|(id, (first, n))| (first, id, n))
                .collect();
            repeated.sort_unstable();
            let warnings: Vec<String> = repeated
                .into_iter()
                .map(|(_, id, n)| {
                    format!(
                        "duplicate test id `{id}` occurs {n} times: entries are kept and counted separately"
                    )
                })
                .collect();
            for w in warnings {
                self.run.push_warning(Code::DuplicateTestId, w);
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
        self.run.tests.push(test);
    }
    fn problem(&mut self, problem: Problem) {
        self.run.problems.push(problem);
    }
    fn warning(&mut self, message: String) {
        self.coded_warning(Code::AdapterWarning, message);
    }
    fn coded_warning(&mut self, code: Code, message: String) {
        self.run.push_warning(code, message);
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
    for (code, w) in run.coded_warnings() {
        sink.coded_warning(code, w.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Status;

    #[test]
    fn an_unnamed_test_is_named_by_its_id_owned_or_lent() {
        let mut n = Normalizer::new(RunCollector::new("x", None));
        let mut tap = TestCase::new(None, "", Status::Skipped);
        tap.id = "#1".into();
        n.test_finished_ref(tap.borrowed());
        n.test_finished(TestCase::new(Some("pkg.Suite".into()), " ", Status::Failed));
        n.test_finished(TestCase::new(None, "named", Status::Passed));
        let mut own = TestCase::new(Some("s".into()), "", Status::Failed);
        own.id = "s::case-7".into();
        n.test_finished(own);
        let run = n.finish().into_run();
        let names: Vec<&str> = run.tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["#1", UNNAMED, "named", "case-7"]);
        // Ids are left as the format wrote them (they are what a seal lists), unless blank.
        assert_eq!(run.tests[1].id, "pkg.Suite:: ");
        let mut n = Normalizer::new(RunCollector::new("x", None));
        n.test_finished(TestCase::new(None, "named", Status::Passed));
        let mut blank = TestCase::new(None, "", Status::Failed);
        blank.id = String::new();
        n.test_finished(blank);
        let run = n.finish().into_run();
        assert_eq!(
            (run.tests[1].name.as_str(), run.tests[1].id.as_str()),
            (UNNAMED, UNNAMED)
        );
    }

    #[test]
    fn a_root_makes_ids_suites_files_and_problem_suites_relative_owned_or_lent() {
        let root = PathRoot::new("/tmp/ws/p/").unwrap();
        let mut n = Normalizer::new(RunCollector::new("x", None)).relative_to(Some(root));
        let suite = "/tmp/ws/p/sealed/a.test.js > adds";
        let mut a = TestCase::new(Some(suite.into()), "one", Status::Passed);
        a.file = Some("/tmp/ws/p/sealed/a.test.js".into());
        n.test_started(Some(suite), "two", &format!("{suite}::two"));
        n.test_finished(a.clone());
        let b = TestCase::new(Some(suite.into()), "two", Status::Failed);
        n.test_finished_ref(b.borrowed());
        // Outside the root, and a sibling whose name only begins like it: kept as written.
        n.test_finished(TestCase::new(
            Some("/tmp/ws/p2/x".into()),
            "three",
            Status::Passed,
        ));
        n.test_started(Some(suite), "four", &format!("{suite}::four"));
        let mut p = Problem::new(ProblemKind::SuiteError, "failed to run");
        p.suite = Some("/tmp/ws/p/sealed/b.test.js".into());
        n.problem(p);
        let run = n.finish().into_run();
        let ids: Vec<&str> = run.tests.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "sealed/a.test.js > adds::one",
                "sealed/a.test.js > adds::two",
                "/tmp/ws/p2/x::three"
            ]
        );
        assert_eq!(
            run.tests[0].suite.as_deref(),
            Some("sealed/a.test.js > adds")
        );
        assert_eq!(run.tests[0].file.as_deref(), Some("sealed/a.test.js"));
        // The lent test closed its (relative) start: only `four` is unfinished.
        let suites: Vec<Option<&str>> = run.problems.iter().map(|p| p.suite.as_deref()).collect();
        assert_eq!(
            suites,
            [Some("sealed/b.test.js"), Some("sealed/a.test.js > adds")]
        );
        assert!(
            run.problems[1]
                .detail
                .contains("`sealed/a.test.js > adds::four`")
        );
        assert_eq!(run.problems.len(), 2);
    }

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
    fn duplicates_are_kept_and_warned() {
        let mut c = RunCollector::new("x", None);
        c.test_finished(TestCase::new(None, "t", Status::Failed));
        c.test_finished(TestCase::new(None, "t", Status::Passed));
        let run = c.into_run();
        assert_eq!(run.tests.len(), 2);
        assert_eq!(run.warnings.len(), 1);

        // One warning per repeated id, in the order of its first occurrence, with its count.
        let mut c = RunCollector::new("x", None);
        for id in ["b", "a", "c", "a", "b", "a"] {
            c.test_finished(TestCase::new(None, id, Status::Passed));
        }
        assert_eq!(
            c.into_run().warnings,
            [
                "duplicate test id `b` occurs 2 times: entries are kept and counted separately",
                "duplicate test id `a` occurs 3 times: entries are kept and counted separately",
            ]
        );
        let mut raw = RunCollector::raw("x", None);
        raw.test_finished(TestCase::new(None, "t", Status::Passed));
        raw.test_finished(TestCase::new(None, "t", Status::Passed));
        assert!(raw.into_run().warnings.is_empty());
    }
}
