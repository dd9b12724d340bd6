//! Helpers for adapter tests and benchmarks: the data-driven fixture harness every adapter crate
//! uses ([`each_fixture`] over `tests/fixtures/{valid,invalid}/<scenario>.<ext>`, every failing
//! fixture named), the cdylib cargo built for a test, a process's peak memory, and what every
//! adapter's benchmark binary shares: [`NullSink`] (and [`RouteSink`] for the borrowed-path tests), [`thread_cpu_seconds`], [`time_best`],
//! [`run_mode`] (one of the `null`, `score` and `parse` modes, measured as a [`BenchResult`]) and
//! [`run_in_own_process`].
//! The real-runner corpus checks (`tests/it/real.rs`) share [`real_cases`], [`Truth`] (a case's
//! `truth.json`), [`compare_leaves`] / [`compare_tests`] (tests one for one with an accepted
//! status) and [`compare_problems`] (problem kinds, with explained exceptions).
//! The wild corpus (files other projects committed) is checked by [`check_wild`] against
//! hand-written expectations. A streaming reader is checked by [`assert_stream_agrees`]: the
//! same run read whole and a few bytes at a time ([`Trickle`]).
//! Everything here panics on failure: it is for tests and benches, never for library code.
//!
//! Matching read tests against truth entries, and counting events with a [`NullSink`]:
//!
//! ```
//! use gapscore_adapter_sdk::{EventSink, Status, TestCase};
//! use gapscore_adapter_testing::{compare_tests, NullSink};
//!
//! let test = TestCase::new(None, "adds", Status::Xfailed);
//! let truth = serde_json::json!({"name": "adds", "status": "failed", "accept": ["xfailed"]});
//! let mut diffs = Vec::new();
//! let same = |t: &TestCase, w: &serde_json::Value| w["name"] == t.name.as_str();
//! let pairs = compare_tests("case", &[&test], &[&truth], same, &mut diffs);
//! assert_eq!(pairs.len(), 1);
//! assert!(diffs.is_empty(), "{diffs:?}");
//!
//! let mut sink = NullSink::default();
//! sink.test_finished(test);
//! assert_eq!(sink.tests, 1);
//! ```

pub mod sinks;
pub mod stream;
pub mod wild;

pub use sinks::{EventLog, NullSink, RouteSink};
pub use stream::{SPLITS, Trickle, assert_stream_agrees, json_files};
pub use wild::check_wild;

use std::fmt;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::time::Instant;

use gapscore_adapter_sdk::{Adapter, Normalizer, ParseOptions, RunCollector, TestCase, TestRun};

/// The files directly in `<crate>/tests/fixtures/<kind>`, sorted. Panics (this is for tests)
/// when the folder is missing or empty, so a renamed folder cannot make the test pass on nothing.
pub fn fixture_files(crate_dir: &str, kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(crate_dir).join("tests/fixtures").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    files
}

/// Runs `check(path, bytes)` on every fixture in `<crate_dir>/tests/fixtures/<kind>` (the files
/// [`fixture_files`] lists, sorted) and returns how many there were. Each check runs under
/// `catch_unwind`, so one failing fixture does not hide the others: when any failed, this panics
/// at the end with one message naming every failing fixture by path, each with its own panic
/// message. A fixture that cannot be read fails the same way.
///
/// The checks stay at the call site, insta assertions included (insta names a snapshot file from
/// the module that calls its macro):
///
/// ```text
/// each_fixture(env!("CARGO_MANIFEST_DIR"), "valid", |path, bytes| {
///     let run = parse_to_run(&adapter, bytes, &ParseOptions::default())
///         .unwrap_or_else(|e| panic!("{e}"));
///     insta::assert_json_snapshot!(format!("valid__{}", fixture_stem(path)), run);
/// });
/// ```
pub fn each_fixture(crate_dir: &str, kind: &str, mut check: impl FnMut(&Path, &[u8])) -> usize {
    let files = fixture_files(crate_dir, kind);
    let mut failures = Vec::new();
    for path in &files {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let bytes = std::fs::read(path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            check(path, &bytes);
        }));
        if let Err(payload) = outcome {
            failures.push(format!(
                "{}: {}",
                path.display(),
                panic_message(payload.as_ref())
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} `{kind}` fixtures failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    files.len()
}

/// The text of a caught panic (`panic!("...")` gives a `&str` or a `String`).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(a panic without a message)")
}

/// A fixture's name without its extension, for snapshot names (`valid__<stem>`).
pub fn fixture_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The shared library cargo built for a `cdylib` crate that is a dependency of the running test
/// or bench (`gapscore-adapter-simple` → `libgapscore_adapter_simple.so`), found in the binary's
/// `deps/` folder or the one above. Panics when it was not built.
pub fn built_cdylib(krate: &str) -> PathBuf {
    use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
    let file = format!("{DLL_PREFIX}{}{DLL_SUFFIX}", krate.replace('-', "_"));
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("no current exe: {e}"));
    let deps = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let up = deps.parent().map(Path::to_path_buf).unwrap_or_default();
    [deps.join(&file), up.join(&file)]
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("{file} was not built next to {}", deps.display()))
}

/// This process's peak resident memory in MiB (`VmHWM`), or 0 where `/proc` does not say.
pub fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

/// The calling thread's time on a CPU in seconds (`/proc/thread-self/schedstat`), or 0 where
/// `/proc` does not say. On a loaded machine wall time also counts the time other processes held
/// the core; the difference of two readings does not.
pub fn thread_cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

/// The best of several timed runs of one closure: [`time_best`]'s answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timed<T> {
    /// What the last run returned.
    pub value: T,
    /// The shortest wall time of any run, in seconds.
    pub wall_s: f64,
    /// The shortest on-CPU time of this thread in any run ([`thread_cpu_seconds`]), in seconds.
    pub cpu_s: f64,
}

/// Runs `f` `runs` times (at least once) and keeps the best wall and the best on-CPU time, for a
/// bench's own modes (a tokenizer alone, serde_json alone, ...) measured like [`run_mode`]'s.
pub fn time_best<T>(runs: usize, mut f: impl FnMut() -> T) -> Timed<T> {
    let mut wall_s = f64::MAX;
    let mut cpu_s = f64::MAX;
    let mut value = None;
    for _ in 0..runs.max(1) {
        let cpu = thread_cpu_seconds();
        let t = Instant::now();
        let v = f();
        wall_s = wall_s.min(t.elapsed().as_secs_f64());
        cpu_s = cpu_s.min(thread_cpu_seconds() - cpu);
        value = Some(std::hint::black_box(v));
    }
    let value = value.unwrap_or_else(|| unreachable!("at least one run"));
    Timed {
        value,
        wall_s,
        cpu_s,
    }
}

/// A file's size in MB (10^6 bytes), as the benches report throughput. Panics when it has none.
pub fn file_mb(path: &Path) -> f64 {
    let meta =
        std::fs::metadata(path).unwrap_or_else(|e| panic!("cannot stat {}: {e}", path.display()));
    meta.len() as f64 / 1e6
}

/// One benchmark mode's measurement. Its `Display` is the line a bench prints after the file
/// and mode: tests read, MB, best wall and on-CPU time as MB/s, and the process's peak RSS
/// ([`peak_rss_mib`], read when printed, so each mode belongs in its own process).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BenchResult {
    /// Tests read: the finished tests the sink was given (`score`: what the tally counted, where a
    /// run-level problem is one failed entry), or what a bench's own mode counted.
    pub tests: usize,
    /// Run-level problems the sink was given (0 for a bench's own modes).
    pub problems: usize,
    /// Warnings the sink was given (0 for a bench's own modes).
    pub warnings: usize,
    /// Input size in MB (10^6 bytes).
    pub mb: f64,
    /// Best wall time, in seconds.
    pub wall_s: f64,
    /// Best on-CPU time of the reading thread, in seconds (0 where `/proc` does not say).
    pub cpu_s: f64,
}

impl BenchResult {
    /// The result of a bench's own mode timed with [`time_best`], whose closure returned the
    /// number of tests (or items) it read from `mb` MB.
    pub fn new(mb: f64, timed: Timed<usize>) -> Self {
        BenchResult {
            tests: timed.value,
            problems: 0,
            warnings: 0,
            mb,
            wall_s: timed.wall_s,
            cpu_s: timed.cpu_s,
        }
    }
}

impl fmt::Display for BenchResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rate = |s: f64| if s > 0.0 { self.mb / s } else { 0.0 };
        write!(
            f,
            "{} tests, {:.1} MB in {:.3} s wall = {:.0} MB/s, {:.3} s on-CPU = {:.0} MB/s; peak RSS {:.1} MiB",
            self.tests,
            self.mb,
            self.wall_s,
            rate(self.wall_s),
            self.cpu_s,
            rate(self.cpu_s),
            peak_rss_mib()
        )
    }
}

/// A new read-write file in the temporary directory, already removed from it (the file lives
/// while it is open): the failure spill of a benchmark's tally.
pub fn anonymous_temp_file() -> std::io::Result<File> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "gapscore-spill-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)?;
    std::fs::remove_file(&path)?;
    Ok(file)
}

/// Reads the file at `path` `runs` times through `adapter.parse_reader` (a 64 KiB `BufReader`,
/// as `gapscore` reads files) in one mode, and keeps the best times:
/// - `null`: into a [`NullSink`], the reader's own cost;
/// - `score` (with the crate's `score` feature, which brings in `gapscore-core`): through a
///   [`Normalizer`] into a `Tally` (default policy, then `Tally::finish`), what
///   `gapscore score` keeps (failure entries past the CLI's budget spilled to a temporary
///   file, as the CLI does); its test count is the tally's total, problems included;
/// - `parse`: through a [`Normalizer`] into `RunCollector::new(format_id, None)`, every test
///   kept, what `gapscore parse` keeps.
///
/// Panics on any other mode, on a file that cannot be opened and on a parse error.
pub fn run_mode(
    adapter: &dyn Adapter,
    opts: &ParseOptions,
    format_id: &str,
    mode: &str,
    path: &Path,
    runs: usize,
) -> BenchResult {
    let open = || {
        let file =
            File::open(path).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
        BufReader::with_capacity(64 * 1024, file)
    };
    let fail = |e: gapscore_adapter_sdk::AdapterError| panic!("{mode} {}: {e}", path.display());
    let timed = time_best(runs, || match mode {
        "null" => {
            let mut sink = NullSink::default();
            adapter
                .parse_reader(&mut open(), opts, &mut sink)
                .unwrap_or_else(fail);
            (sink.tests, sink.problems, sink.warnings)
        }
        #[cfg(feature = "score")]
        "score" => {
            use gapscore_core::failures::DEFAULT_BUDGET;
            use gapscore_core::{Spill, StatusPolicy, Tally};
            let mut tally = Tally::new(StatusPolicy::default());
            // As `gapscore score` does: failure entries past the budget go to a temporary file.
            tally.spill_failures(Spill::new(
                DEFAULT_BUDGET,
                std::sync::Arc::new(anonymous_temp_file),
            ));
            let mut sink = Normalizer::new(&mut tally);
            adapter
                .parse_reader(&mut open(), opts, &mut sink)
                .unwrap_or_else(fail);
            sink.finish();
            tally.finish();
            let tests = usize::try_from(tally.counts.total).unwrap_or(usize::MAX);
            (
                tests,
                tally.problems.len(),
                usize::try_from(tally.warnings.len()).unwrap_or(usize::MAX),
            )
        }
        "parse" => {
            let mut sink = Normalizer::new(RunCollector::new(format_id, None));
            adapter
                .parse_reader(&mut open(), opts, &mut sink)
                .unwrap_or_else(fail);
            let run = sink.finish().into_run();
            (run.tests.len(), run.problems.len(), run.warnings.len())
        }
        #[cfg(not(feature = "score"))]
        "score" => panic!("mode `score` needs gapscore-adapter-testing's `score` feature"),
        other => panic!("unknown mode `{other}` (null, score or parse)"),
    });
    let (tests, problems, warnings) = timed.value;
    BenchResult {
        tests,
        problems,
        warnings,
        mb: file_mb(path),
        wall_s: timed.wall_s,
        cpu_s: timed.cpu_s,
    }
}

/// The bench binary's arguments, without the `--bench` cargo adds.
pub fn bench_args() -> Vec<String> {
    std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect()
}

/// Runs this executable again with `args` (a bench's `MODE FILE`) in a process of its own, so the
/// peak RSS it prints is that mode's alone; its output goes straight to this process's. Panics
/// when it cannot start or does not succeed.
pub fn run_in_own_process<I, S>(args: I)
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("no current exe: {e}"));
    let args: Vec<std::ffi::OsString> = args.into_iter().map(|a| a.as_ref().into()).collect();
    let status = std::process::Command::new(&exe)
        .args(&args)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    assert!(status.success(), "{} {args:?}: {status}", exe.display());
}

/// The real-runner cases of an adapter crate: the folders directly in
/// `<crate_dir>/tests/fixtures/real`, sorted (each holds a report and its `truth.json`). Panics
/// when there are none; callers assert the exact count, so a lost folder fails their test.
pub fn real_cases(crate_dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(crate_dir).join("tests/fixtures/real");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no real cases in {}", dir.display());
    cases
}

/// A case's `truth.json` (the real-runner corpus' record of what the run really did: its tests
/// with `status`, optional `accept` and `parent`, its run-level `problems`, its `producer`, its
/// `format` and its `files` with their roles).
#[derive(Debug, Clone)]
pub struct Truth {
    /// The case's name (its folder's), used to start every difference reported.
    pub case: String,
    /// The case's folder.
    pub dir: PathBuf,
    /// The whole `truth.json`.
    pub json: serde_json::Value,
}

impl Truth {
    /// Reads `<dir>/truth.json`; panics when it is missing or not JSON.
    pub fn load(dir: &Path) -> Truth {
        let path = dir.join("truth.json");
        let bytes =
            std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let json = serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
        let case = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Truth {
            case,
            dir: dir.to_path_buf(),
            json,
        }
    }

    /// The format id the truth gives (`junit-xml`, `go-test-json`, ...), if any.
    pub fn format(&self) -> Option<&str> {
        self.json["format"].as_str()
    }

    /// The producing tool the truth names (`go test`, `jest + jest-junit`, ...); panics when
    /// there is none.
    pub fn producer_tool(&self) -> &str {
        self.json["producer"]["tool"]
            .as_str()
            .unwrap_or_else(|| panic!("{}: truth has no producer.tool", self.case))
    }

    /// The name of the case's report file (the one whose role in `files` is `report`) and its
    /// bytes; panics when there is none or it cannot be read.
    pub fn report(&self) -> (String, Vec<u8>) {
        let name = self.json["files"]
            .as_object()
            .and_then(|files| files.iter().find(|(_, role)| *role == "report"))
            .map(|(f, _)| f.clone())
            .unwrap_or_else(|| panic!("{}: truth names no report file", self.case));
        let path = self.dir.join(&name);
        let bytes =
            std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        (name, bytes)
    }

    /// Every test entry, parents included.
    pub fn entries(&self) -> &[serde_json::Value] {
        self.json["tests"].as_array().map_or(&[], Vec::as_slice)
    }

    /// The leaf entries: those without `"parent": true`.
    pub fn leaves(&self) -> Vec<&serde_json::Value> {
        self.entries().iter().filter(|t| !is_parent(t)).collect()
    }

    /// The entries marked `"parent": true`.
    pub fn parents(&self) -> Vec<&serde_json::Value> {
        self.entries().iter().filter(|t| is_parent(t)).collect()
    }

    /// The kinds of the run-level problems the truth lists, in its order.
    pub fn problem_kinds(&self) -> Vec<&str> {
        self.json["problems"]
            .as_array()
            .map(|ps| ps.iter().filter_map(|p| p["kind"].as_str()).collect())
            .unwrap_or_default()
    }
}

/// Whether a truth entry is a parent (`"parent": true`).
pub fn is_parent(entry: &serde_json::Value) -> bool {
    entry["parent"] == serde_json::Value::Bool(true)
}

/// The statuses a truth entry accepts: its `status`, then each of its `accept`.
pub fn accepted(entry: &serde_json::Value) -> Vec<&str> {
    let mut ok: Vec<&str> = entry["status"].as_str().into_iter().collect();
    if let Some(a) = entry["accept"].as_array() {
        ok.extend(a.iter().filter_map(serde_json::Value::as_str));
    }
    ok
}

/// A truth entry as differences name it: `suite` `name` (the name alone without a suite).
fn entry_label(entry: &serde_json::Value) -> String {
    let name = entry["name"].as_str().unwrap_or_default();
    match entry["suite"].as_str() {
        Some(suite) => format!("`{suite}` `{name}`"),
        None => format!("`{name}`"),
    }
}

/// Matches run tests with truth entries one for one and records what differs in `diffs`: a
/// different count, an entry no test matches (`same(test, entry)`, first unused test wins), a
/// status the entry does not accept, and a test no entry matched. Returns the matched pairs,
/// for checks of the caller's own.
pub fn compare_tests<'r, 't>(
    case: &str,
    tests: &[&'r TestCase],
    want: &[&'t serde_json::Value],
    same: impl Fn(&TestCase, &serde_json::Value) -> bool,
    diffs: &mut Vec<String>,
) -> Vec<(&'r TestCase, &'t serde_json::Value)> {
    if tests.len() != want.len() {
        diffs.push(format!(
            "{case}: {} tests, truth has {}",
            tests.len(),
            want.len()
        ));
    }
    let mut used = vec![false; tests.len()];
    let mut pairs = Vec::new();
    for w in want {
        let found = tests
            .iter()
            .enumerate()
            .find(|(i, t)| !used[*i] && same(t, w));
        match found {
            Some((i, t)) => {
                used[i] = true;
                let ok = accepted(w);
                if !ok.contains(&t.status.as_str()) {
                    diffs.push(format!(
                        "{case}: {} is {}, truth says {ok:?}",
                        entry_label(w),
                        t.status
                    ));
                }
                pairs.push((*t, *w));
            }
            None => diffs.push(format!("{case}: {} not read", entry_label(w))),
        }
    }
    for (t, _) in tests.iter().zip(&used).filter(|(_, u)| !**u) {
        diffs.push(format!("{case}: extra test {:?} {:?}", t.suite, t.name));
    }
    pairs
}

/// The leaf tests of `run` (parents left out) against the truth's leaves ([`Truth::leaves`]),
/// one for one by `same`, each with a status the truth accepts ([`compare_tests`]). Returns
/// the differences.
pub fn compare_leaves(
    run: &TestRun,
    truth: &Truth,
    same: impl Fn(&TestCase, &serde_json::Value) -> bool,
) -> Vec<String> {
    let leaves: Vec<&TestCase> = run.tests.iter().filter(|t| !t.parent).collect();
    let mut diffs = Vec::new();
    compare_tests(&truth.case, &leaves, &truth.leaves(), same, &mut diffs);
    diffs
}

/// The run-level problems of `run` against the truth's: every kind the truth lists is reported
/// (except for the `(case, kind)` pairs in `exceptions`: kinds the file cannot show, each
/// explained where it is listed) and no kind the truth does not list. Returns the differences.
pub fn compare_problems(run: &TestRun, truth: &Truth, exceptions: &[(&str, &str)]) -> Vec<String> {
    let case = truth.case.as_str();
    let got: Vec<&str> = run.problems.iter().map(|p| p.kind.as_str()).collect();
    let known = truth.problem_kinds();
    let mut diffs = Vec::new();
    for kind in &known {
        if !got.contains(kind) && !exceptions.contains(&(case, *kind)) {
            diffs.push(format!(
                "{case}: problem `{kind}` not reported (got {got:?})"
            ));
        }
    }
    for k in &got {
        if !known.contains(k) {
            diffs.push(format!("{case}: unexpected problem `{k}`"));
        }
    }
    diffs
}

#[cfg(test)]
mod tests {
    use super::*;
    use gapscore_adapter_sdk::{
        AdapterError, AdapterInfo, EventSink, Problem, ProblemKind, Status,
    };

    /// One line per test (`p` passed, `f` failed); a `!` line is a run-level problem.
    struct Lines(AdapterInfo);

    impl Adapter for Lines {
        fn info(&self) -> &AdapterInfo {
            &self.0
        }
        fn detect(&self, _: &[u8], _: Option<&str>) -> u8 {
            0
        }
        fn parse(
            &self,
            input: &[u8],
            _: &ParseOptions,
            sink: &mut dyn EventSink,
        ) -> Result<(), AdapterError> {
            for (i, line) in input.split(|b| *b == b'\n').enumerate() {
                match line {
                    b"p" | b"f" => {
                        let status = if line == b"p" {
                            Status::Passed
                        } else {
                            Status::Failed
                        };
                        sink.test_finished(TestCase::new(None, format!("t{i}"), status));
                    }
                    b"!" => sink.problem(Problem::new(ProblemKind::Crash, "boom")),
                    _ => {}
                }
            }
            Ok(())
        }
    }

    #[test]
    fn every_mode_counts_the_same_tests_and_problems() {
        let dir = std::env::temp_dir().join(format!("gapscore-sdk-testing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let path = dir.join("in.txt");
        std::fs::write(&path, "p\nf\np\n!\n").unwrap_or_else(|e| panic!("{e}"));
        let adapter = Lines(AdapterInfo::new("lines", "0", &["lines"]));
        for mode in ["null", "score", "parse"] {
            let r = run_mode(&adapter, &ParseOptions::default(), "lines", mode, &path, 2);
            // A tally counts each run-level problem as one failed entry.
            let tests = if mode == "score" { 4 } else { 3 };
            assert_eq!((r.tests, r.problems, r.warnings), (tests, 1, 0), "{mode}");
            assert!((r.mb - 8e-6).abs() < 1e-12, "{mode}: {}", r.mb);
            assert!(r.wall_s >= 0.0 && r.cpu_s >= 0.0, "{mode}");
            assert!(
                r.to_string()
                    .starts_with(&format!("{tests} tests, 0.0 MB in ")),
                "{r}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn each_fixture_runs_every_fixture_and_names_every_failing_one() {
        let root =
            std::env::temp_dir().join(format!("gapscore-sdk-testing-each-{}", std::process::id()));
        let dir = root.join("tests/fixtures/valid");
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        for (name, text) in [
            ("a.txt", "bad one"),
            ("b.txt", "good"),
            ("c.txt", "bad two"),
        ] {
            std::fs::write(dir.join(name), text).unwrap_or_else(|e| panic!("{e}"));
        }
        let crate_dir = root
            .to_str()
            .unwrap_or_else(|| panic!("{}", root.display()));
        let mut seen = Vec::new();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            each_fixture(crate_dir, "valid", |path, bytes| {
                seen.push(fixture_stem(path));
                let text = String::from_utf8_lossy(bytes);
                assert!(!text.starts_with("bad"), "rejected `{text}`");
            })
        }));
        // Every fixture ran, the failing first one included.
        assert_eq!(seen, ["a", "b", "c"]);
        let payload = outcome.expect_err("two fixtures failed: each_fixture must panic");
        let message = panic_message(payload.as_ref());
        assert!(
            message.starts_with("2 of 3 `valid` fixtures failed:\n"),
            "{message}"
        );
        let lines: Vec<&str> = message.lines().skip(1).collect();
        assert_eq!(
            lines,
            [
                format!("{}: rejected `bad one`", dir.join("a.txt").display()),
                format!("{}: rejected `bad two`", dir.join("c.txt").display()),
            ]
        );
        // All passing: no panic, the count returned.
        let n = each_fixture(crate_dir, "valid", |_, _| {});
        assert_eq!(n, 3);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn time_best_runs_at_least_once_and_keeps_the_last_value() {
        let mut calls = 0;
        let t = time_best(0, || {
            calls += 1;
            calls
        });
        assert_eq!((calls, t.value), (1, 1));
        let t = time_best(3, || {
            calls += 1;
            calls
        });
        assert_eq!(t.value, 4);
        assert!(t.wall_s < 1.0 && t.cpu_s <= t.wall_s + 0.01);
    }

    #[test]
    fn truth_comparisons_find_every_difference() {
        let truth = Truth {
            case: "c".into(),
            dir: PathBuf::new(),
            json: serde_json::json!({
                "tests": [
                    {"name": "a", "status": "passed"},
                    {"name": "b", "status": "failed", "accept": ["errored"]},
                    {"name": "p", "status": "failed", "parent": true},
                    {"name": "gone", "status": "passed"}
                ],
                "problems": [{"kind": "crash"}, {"kind": "missing-tests"}]
            }),
        };
        let mut run = TestRun::new("x");
        run.tests.push(TestCase::new(None, "a", Status::Skipped));
        run.tests.push(TestCase::new(None, "b", Status::Errored));
        run.tests.push(TestCase::new(None, "extra", Status::Passed));
        let mut parent = TestCase::new(None, "p", Status::Failed);
        parent.parent = true;
        run.tests.push(parent);
        run.problems.push(Problem::new(ProblemKind::Crash, "d"));
        run.problems.push(Problem::new(ProblemKind::Truncated, "d"));
        let same = |t: &TestCase, w: &serde_json::Value| w["name"] == t.name.as_str();
        let diffs = compare_leaves(&run, &truth, same);
        assert_eq!(
            diffs,
            [
                "c: `a` is skipped, truth says [\"passed\"]",
                "c: `gone` not read",
                "c: extra test None \"extra\"",
            ]
        );
        let diffs = compare_problems(&run, &truth, &[]);
        assert_eq!(
            diffs,
            [
                "c: problem `missing-tests` not reported (got [\"crash\", \"truncated\"])",
                "c: unexpected problem `truncated`",
            ]
        );
        let diffs = compare_problems(&run, &truth, &[("c", "missing-tests")]);
        assert_eq!(diffs, ["c: unexpected problem `truncated`"]);
        assert_eq!(truth.leaves().len(), 3);
        assert_eq!(truth.parents().len(), 1);
    }
}
