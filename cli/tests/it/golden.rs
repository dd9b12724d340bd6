//! Golden outputs: the `gapscore` binary is run over every fixture of the repository (`score` in
//! three formats, `parse`, `check`, `seal`, `seal --verify`, `batch`) and what it printed — exit
//! code, standard output, standard error, files written — is compared byte for byte with the
//! files under `cli/tests/golden/` (see its README.md).
//!
//! The inputs are found by walking the repository, so a new fixture without golden output fails
//! this test. `GAPSCORE_UPDATE_GOLDEN=1 cargo test -p gapscore --test it golden::` (re)writes the
//! golden files; read the diff before committing it.
//!
//! Every command runs from the workspace root with relative paths, `SOURCE_DATE_EPOCH` fixed and
//! `GAPSCORE_PLUGIN_PATH`, `RUST_BACKTRACE`, `RUST_LIB_BACKTRACE` and `COLUMNS` removed, so the
//! output is the same in any clone. Temporary paths are redacted as `$TMP` (`$OUT` for a batch
//! output directory), the absolute workspace path as `$ROOT`. Self-contained: it needs no
//! `mod common`.

#![allow(clippy::print_stderr)] // Test code that reports its figures.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The binary under test.
const BIN: &str = env!("CARGO_BIN_EXE_gapscore");
/// Set to rewrite the golden files.
const UPDATE_ENV: &str = "GAPSCORE_UPDATE_GOLDEN";
/// How to rewrite them.
const REGENERATE: &str = "GAPSCORE_UPDATE_GOLDEN=1 cargo test -p gapscore --test it golden::";
/// An output longer than this is stored as its first `SHOWN` bytes, its length and its hash.
const BIG: usize = 16 * 1024;
const SHOWN: usize = 1024;
/// A run taking longer than this is a failure (a hang).
const TIME_LIMIT: Duration = Duration::from_secs(120);
/// Repositories in the generated batch tree (as `cli/tests/batch.rs` uses).
const BATCH_REPOS: usize = 40;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

// ---------------------------------------------------------------------------------------------
// Walking the repository.

/// Every regular file under `dir` (relative to the workspace root, `/`-separated), recursively,
/// sorted; symbolic links, FIFOs and other special files are left out, and so are directories
/// named `target`.
fn files_under(root: &Path, dir: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.join(dir)];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            let t = fs::symlink_metadata(&p).unwrap().file_type();
            if t.is_dir() && p.file_name().is_some_and(|n| n != "target") {
                stack.push(p);
            } else if t.is_file() {
                out.push(rel(root, &p));
            }
        }
    }
    out.sort();
    out
}

/// Every directory under `dir` (itself included), relative, sorted; links not followed.
fn dirs_under(root: &Path, dir: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.join(dir)];
    while let Some(d) = stack.pop() {
        if !fs::symlink_metadata(&d).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        out.push(rel(root, &d));
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().is_some_and(|n| n != "target") {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap()
        .to_str()
        .unwrap()
        .replace('\\', "/")
}

fn parent(f: &str) -> &str {
    f.rsplit_once('/').map_or("", |(d, _)| d)
}

fn file_name(f: &str) -> &str {
    f.rsplit_once('/').map_or(f, |(_, n)| n)
}

/// The golden file of a command group and a fixture directory: `score-json/adapters__x`.
fn golden_key(group: &str, dir: &str) -> String {
    format!("{group}/{}", dir.replace('/', "__"))
}

// ---------------------------------------------------------------------------------------------
// What to run.

/// One `gapscore` run.
#[derive(Debug, Clone)]
struct Step {
    argv: Vec<String>,
    /// Files (or directories: every file under them) whose contents are recorded after the run.
    capture: Vec<PathBuf>,
    /// Paths redacted as the given name before `$TMP` (a batch output directory as `$OUT`).
    redact: Vec<(PathBuf, &'static str)>,
    /// Where to run it, when not from the workspace root.
    cwd: Option<PathBuf>,
}

impl Step {
    fn new<S: AsRef<str>>(argv: &[S]) -> Step {
        Step {
            argv: argv.iter().map(|a| a.as_ref().to_owned()).collect(),
            capture: Vec::new(),
            redact: Vec::new(),
            cwd: None,
        }
    }
}

/// Runs made one after the other (a later one may read what an earlier one wrote), recorded in
/// one golden file.
#[derive(Debug, Clone)]
struct Job {
    golden: String,
    steps: Vec<Step>,
    /// Input bytes: the heaviest jobs are started first.
    weight: u64,
}

fn job(golden: String, steps: Vec<Step>, weight: u64) -> Job {
    Job {
        golden,
        steps,
        weight,
    }
}

fn size(root: &Path, f: &str) -> u64 {
    fs::metadata(root.join(f)).map_or(0, |m| m.len())
}

/// Result files: every file under an adapter's `tests/fixtures/` (examples included), every
/// bad-input file (in the corpus's format folders: not its README, `expected.toml` or
/// `.gitattributes`), and every `*results*` file of the upstream conformance folder.
fn result_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for d in dirs_under(root, "adapters") {
        if d.ends_with("/tests/fixtures") {
            out.extend(files_under(root, &d));
        }
    }
    out.extend(
        files_under(root, "tests/bad-input")
            .into_iter()
            .filter(|f| parent(f) != "tests/bad-input"),
    );
    out.extend(
        files_under(root, "conformance-tests/upstream")
            .into_iter()
            .filter(|f| file_name(f).contains("results")),
    );
    out.sort();
    out
}

/// `score --sealed F --format json|markdown|summary` and `parse F` for every result file.
fn score_and_parse_jobs(root: &Path, jobs: &mut Vec<Job>) -> usize {
    let files = result_files(root);
    for f in &files {
        let dir = parent(f);
        let w = size(root, f);
        for format in ["json", "markdown", "summary"] {
            jobs.push(job(
                golden_key(&format!("score-{format}"), dir),
                vec![Step::new(&["score", "--sealed", f, "--format", format])],
                w,
            ));
        }
        jobs.push(job(
            golden_key("parse", dir),
            vec![Step::new(&["parse", f])],
            w,
        ));
    }
    files.len()
}

/// The bad-input corpus as `cli/tests/bad_input.rs` runs it: with the format its
/// `expected.toml` forces (`score --input-format`, `parse --format`), output to standard output.
fn forced_format_jobs(root: &Path, jobs: &mut Vec<Job>) {
    let corpus = "tests/bad-input";
    let text = fs::read_to_string(root.join(corpus).join("expected.toml")).unwrap();
    let doc: toml::Table = toml::from_str(&text).unwrap();
    let forced: BTreeMap<String, String> = doc["case"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| {
            let t = c.as_table()?;
            Some((
                t.get("file")?.as_str()?.to_owned(),
                t.get("format")?.as_str()?.to_owned(),
            ))
        })
        .collect();
    for f in files_under(root, corpus) {
        let Some(format) = f
            .strip_prefix(&format!("{corpus}/"))
            .and_then(|name| forced.get(name))
        else {
            continue;
        };
        let (dir, w) = (parent(&f), size(root, &f));
        jobs.push(job(
            golden_key("score-forced-format", dir),
            vec![Step::new(&[
                "score",
                "--sealed",
                &f,
                "--input-format",
                format,
            ])],
            w,
        ));
        jobs.push(job(
            golden_key("parse-forced-format", dir),
            vec![Step::new(&["parse", &f, "--input-format", format])],
            w,
        ));
    }
}

/// The upstream conformance suites as `conformance-tests/src/upstream.rs` and
/// `cli/tests/upstream_conformance.rs` run them: `score [DIALECT] --sealed S [--open O]
/// [--threshold T]`, an inline sealed suite written to a temporary file; a `gap` suite (1.x) with
/// `--dialect gap`, a `shadow` suite with the default, and both with `--dialect both`.
fn upstream_jobs(root: &Path, tmp: &Path, jobs: &mut Vec<Job>) -> usize {
    let base = "conformance-tests/upstream";
    let mut n = 0;
    for suite_file in files_under(root, base) {
        if file_name(&suite_file) != "fixtures.json" {
            continue;
        }
        let dir = parent(&suite_file);
        let suite: Value =
            serde_json::from_str(&fs::read_to_string(root.join(&suite_file)).unwrap()).unwrap();
        let fixtures = suite["fixtures"].as_array().unwrap();
        let gap = fixtures
            .iter()
            .filter_map(|f| f.get("expected_output"))
            .any(|o| o.get("gap_score_spec_version").is_some());
        let dialects: [&[&str]; 2] = if gap {
            [&["--dialect", "gap"], &["--dialect", "both"]]
        } else {
            [&[], &["--dialect", "both"]]
        };
        let inline_dir = tmp.join("upstream").join(dir.replace('/', "__"));
        fs::create_dir_all(&inline_dir).unwrap();
        for f in fixtures {
            let id = f["id"].as_str().unwrap();
            let input = &f["input"];
            let mut args: Vec<String> = Vec::new();
            let sealed = if let Some(inline) = input.get("sealed_inline") {
                let p = inline_dir.join(format!("{id}.sealed.json"));
                fs::write(&p, inline.to_string()).unwrap();
                p.to_str().unwrap().to_owned()
            } else {
                format!("{base}/{}", input["sealed"].as_str().unwrap())
            };
            args.extend(["--sealed".to_owned(), sealed]);
            if let Some(open) = input.get("open").and_then(Value::as_str) {
                args.extend(["--open".to_owned(), format!("{base}/{open}")]);
            }
            if let Some(t) = input.get("threshold") {
                args.extend(["--threshold".to_owned(), t.to_string()]);
            }
            for dialect in dialects {
                let mut argv = vec!["score".to_owned()];
                argv.extend(dialect.iter().map(|s| (*s).to_owned()));
                argv.extend(args.iter().cloned());
                jobs.push(job(
                    golden_key("score-upstream", dir),
                    vec![Step::new(&argv)],
                    0,
                ));
                n += 1;
            }
        }
    }
    n
}

/// `check FILE --level 3 [--sealed-dir D] [--seal R]` (text and `--format json`) for every file
/// the checker's fixture suite (`conformance-tests/tests/fixtures.rs`) checks, with the evidence
/// it uses: every file under `fixtures/reports/` and `fixtures/corpus/` but the `*.expect.json`
/// expectations (and, in the corpus, `SOURCES.md` and the top-level files), and each
/// `fixtures/evidence/<case>/report.json` with the evidence its `args.json` names.
fn check_jobs(root: &Path, jobs: &mut Vec<Job>) -> usize {
    let fixtures = "conformance-tests/fixtures";
    let corpus = format!("{fixtures}/corpus");
    let mut checks: Vec<(String, Vec<String>, String)> = Vec::new();
    let expectation = |f: &str| f.ends_with(".expect.json");
    for f in files_under(root, &format!("{fixtures}/reports")) {
        if !expectation(&f) {
            checks.push((f.clone(), Vec::new(), parent(&f).to_owned()));
        }
    }
    for f in files_under(root, &corpus) {
        if !expectation(&f) && file_name(&f) != "SOURCES.md" && parent(&f) != corpus {
            checks.push((f.clone(), Vec::new(), parent(&f).to_owned()));
        }
    }
    let evidence = format!("{fixtures}/evidence");
    for case in dirs_under(root, &evidence) {
        let Ok(text) = fs::read_to_string(root.join(&case).join("args.json")) else {
            continue;
        };
        let args: Value = serde_json::from_str(&text).unwrap();
        let mut ev = Vec::new();
        if let Some(d) = args["sealed_dir"].as_str() {
            ev.extend(["--sealed-dir".to_owned(), format!("{case}/{d}")]);
        }
        if let Some(s) = args["seal"].as_str() {
            ev.extend(["--seal".to_owned(), format!("{case}/{s}")]);
        }
        checks.push((format!("{case}/report.json"), ev, evidence.clone()));
    }
    for (f, ev, dir) in &checks {
        let w = size(root, f);
        let mut argv = vec!["check".to_owned(), f.clone(), "--level".into(), "3".into()];
        argv.extend(ev.iter().cloned());
        jobs.push(job(
            golden_key("check-text", dir),
            vec![Step::new(&argv)],
            w,
        ));
        argv.extend(["--format".to_owned(), "json".to_owned()]);
        jobs.push(job(
            golden_key("check-json", dir),
            vec![Step::new(&argv)],
            w,
        ));
    }
    checks.len()
}

/// Seals: for every `sealed/` directory of the conformance fixtures, `seal --verify` against the
/// `seal.json` beside it (when there is one); and `seal` of a copy in a temporary directory
/// (strict, to a record file, then `seal --verify` of the original against that record; and the
/// `spec` and `stampede` modes `--as` the original path, to standard output).
fn seal_jobs(root: &Path, tmp: &Path, jobs: &mut Vec<Job>) -> (usize, usize) {
    let fixtures = "conformance-tests/fixtures";
    let (mut verified, mut sealed) = (0, 0);
    for d in dirs_under(root, fixtures) {
        let dir = format!("{d}/sealed");
        if !root.join(&dir).is_dir() {
            continue;
        }
        let group_dir = parent(&d);
        let record = format!("{d}/seal.json");
        if root.join(&record).is_file() {
            jobs.push(job(
                golden_key("seal-verify", group_dir),
                vec![Step::new(&["seal", "--verify", &record, &dir])],
                0,
            ));
            verified += 1;
        }
        let copy_base = tmp.join("seal").join(d.replace('/', "__"));
        let copy = copy_base.join("sealed");
        copy_dir(&root.join(&dir), &copy);
        let copy_s = copy.to_str().unwrap().to_owned();
        let out = copy_base.join("record.json");
        let out_s = out.to_str().unwrap().to_owned();
        let mut first = Step::new(&["seal", &copy_s, "-o", &out_s]);
        first.capture.push(out.clone());
        let mut steps = vec![first, Step::new(&["seal", "--verify", &out_s, &dir])];
        for mode in ["spec", "stampede"] {
            steps.push(Step::new(&["seal", &copy_s, "--mode", mode, "--as", &dir]));
        }
        jobs.push(job(golden_key("seal", group_dir), steps, 0));
        sealed += 1;
    }
    (verified, sealed)
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    let mut entries: Vec<_> = fs::read_dir(from)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        let target = to.join(p.file_name().unwrap());
        let t = fs::symlink_metadata(&p).unwrap().file_type();
        if t.is_dir() {
            copy_dir(&p, &target);
        } else if t.is_file() {
            fs::copy(&p, &target).unwrap();
        }
    }
}

/// `gapscore batch`: the repository commits no batch input tree (`batch/examples/` holds only
/// the generator), so the tree is generated as `cli/tests/batch.rs` generates it
/// (`gapscore_batch::generate`, 40 repositories: both formats, problems, broken repositories)
/// and scored twice: with the defaults, and with a threshold and the other options. As in
/// `cli/tests/batch.rs` the batch runs from the temporary directory with relative paths: each
/// row's `inputs_sha256` hashes the input paths as given, so an absolute temporary path would
/// change it on every run.
fn batch_jobs(tmp: &Path, jobs: &mut Vec<Job>) -> usize {
    let base = tmp.join("batch");
    let tree = base.join("tree");
    gapscore_batch::generate::generate(
        &tree,
        &gapscore_batch::generate::GenerateOptions::new(BATCH_REPOS),
    )
    .unwrap();
    let runs: [(&str, &[&str]); 2] = [
        ("out-default", &[]),
        (
            "out-options",
            &[
                "--threshold",
                "30",
                "--skipped",
                "exclude",
                "--dialect",
                "both",
            ],
        ),
    ];
    for (name, extra) in runs {
        let out = base.join(name);
        let mut argv = vec!["batch", "tree", "--output", name, "--jobs", "2", "--quiet"];
        argv.extend(extra.iter().copied());
        let mut step = Step::new(&argv);
        step.capture.push(out.clone());
        step.redact.push((out, "$OUT"));
        step.cwd = Some(base.clone());
        jobs.push(job(
            golden_key("batch", "generated-tree"),
            vec![step],
            1 << 30,
        ));
    }
    runs.len()
}

// ---------------------------------------------------------------------------------------------
// Running.

/// What one run did, redacted.
#[derive(Debug, Clone)]
struct Section {
    header: String,
    exit: String,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    files: Vec<(String, Vec<u8>)>,
}

/// Replaces every occurrence of `from` in `text` with `to`.
fn replace_bytes(text: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() || text.len() < from.len() {
        return text.to_vec();
    }
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

struct Redactions(Vec<(Vec<u8>, Vec<u8>)>);

impl Redactions {
    /// `paths` (each also canonicalised), longest first.
    fn new(paths: &[(PathBuf, &str)]) -> Redactions {
        let mut list: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        for (p, name) in paths {
            let mut forms = vec![p.clone()];
            if let Ok(c) = p.canonicalize() {
                forms.push(c);
            }
            for f in forms {
                let f = f.to_str().unwrap().as_bytes().to_vec();
                if !list.iter().any(|(x, _)| *x == f) {
                    list.push((f, name.as_bytes().to_vec()));
                }
            }
        }
        list.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
        Redactions(list)
    }

    fn apply(&self, text: &[u8]) -> Vec<u8> {
        let mut t = text.to_vec();
        for (from, to) in &self.0 {
            t = replace_bytes(&t, from, to);
        }
        t
    }

    fn apply_str(&self, text: &str) -> String {
        String::from_utf8(self.apply(text.as_bytes())).unwrap()
    }
}

/// An argument as the header shows it: quoted when it holds anything but plain characters.
fn shown_arg(a: &str) -> String {
    let plain = !a.is_empty()
        && a.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./:=@%+,-$".contains(&b));
    if plain {
        a.to_owned()
    } else {
        format!("'{}'", a.replace('\'', r"'\''"))
    }
}

fn exit_text(s: ExitStatus) -> String {
    if let Some(c) = s.code() {
        return c.to_string();
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return format!("signal {sig}");
        }
    }
    "unknown".to_owned()
}

/// Every file under `p` (or `p` itself), by path, sorted.
fn captured(p: &Path) -> Vec<PathBuf> {
    if p.is_dir() {
        let mut out = Vec::new();
        let mut entries: Vec<PathBuf> = fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for e in entries {
            out.extend(captured(&e));
        }
        out
    } else {
        vec![p.to_owned()]
    }
}

/// Runs one step from the workspace root; `logs` is this worker's scratch directory.
fn run_step(root: &Path, step: &Step, logs: &Path, base: &[(PathBuf, &str)]) -> Section {
    let mut names = step.redact.clone();
    names.extend(base.iter().cloned());
    let redact = Redactions::new(&names);
    let out_path = logs.join("stdout");
    let err_path = logs.join("stderr");
    let mut child = Command::new(BIN)
        .args(&step.argv)
        .current_dir(step.cwd.as_deref().unwrap_or(root))
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env("NO_COLOR", "1")
        .env_remove("GAPSCORE_PLUGIN_PATH")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .env_remove("COLUMNS")
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out_path).unwrap())
        .stderr(fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut pause = Duration::from_micros(200);
    let exit = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break exit_text(s);
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break format!("killed: no exit in {} s", TIME_LIMIT.as_secs());
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
    };
    let mut header = std::iter::once("gapscore".to_owned())
        .chain(step.argv.iter().map(|a| shown_arg(&redact.apply_str(a))))
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(cwd) = &step.cwd {
        header.push_str(&format!(
            "  (run in {})",
            redact.apply_str(cwd.to_str().unwrap())
        ));
    }
    let mut files = Vec::new();
    for c in &step.capture {
        for f in captured(c) {
            let name = redact.apply_str(f.to_str().unwrap());
            let body = fs::read(&f).unwrap_or_else(|e| format!("(unreadable: {e})").into_bytes());
            files.push((name, redact.apply(&body)));
        }
        if !c.exists() {
            files.push((
                redact.apply_str(c.to_str().unwrap()),
                b"(not written)\n".to_vec(),
            ));
        }
    }
    Section {
        header,
        exit,
        stdout: redact.apply(&fs::read(&out_path).unwrap()),
        stderr: redact.apply(&fs::read(&err_path).unwrap()),
        files,
    }
}

/// Runs every job on `workers` threads; the sections of job `i` at index `i`.
fn run_all(root: &Path, tmp: &Path, jobs: &[Job], workers: usize) -> Vec<Vec<Section>> {
    let base = [
        (tmp.to_owned(), "$TMP"),
        (root.to_owned(), "$ROOT"),
        (PathBuf::from(BIN), "$BIN"),
    ];
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by(|&a, &b| jobs[b].weight.cmp(&jobs[a].weight).then(a.cmp(&b)));
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<Vec<Section>>> = vec![None; jobs.len()];
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let (order, next, base) = (&order, &next, &base);
                let logs = tmp.join("work").join(w.to_string());
                fs::create_dir_all(&logs).unwrap();
                s.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&i) = order.get(k) else {
                            break;
                        };
                        let sections = jobs[i]
                            .steps
                            .iter()
                            .map(|step| run_step(root, step, &logs, base))
                            .collect::<Vec<_>>();
                        done.push((i, sections));
                    }
                    done
                })
            })
            .collect();
        for h in handles {
            for (i, sections) in h.join().unwrap() {
                results[i] = Some(sections);
            }
        }
    });
    results.into_iter().map(Option::unwrap).collect()
}

// ---------------------------------------------------------------------------------------------
// Golden files.

/// An output as stored: whole, or (over `BIG` bytes) its first KiB and its length and hash.
fn body(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if text.is_empty() {
        return out;
    }
    if text.len() > BIG {
        let mut cut = SHOWN;
        // Not inside a UTF-8 character.
        if let Err(e) = std::str::from_utf8(&text[..cut])
            && e.error_len().is_none()
        {
            cut = e.valid_up_to();
        }
        out.extend_from_slice(&text[..cut]);
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        let hash = Sha256::digest(text);
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        out.extend_from_slice(
            format!("… ({} bytes in all, sha256 {hex})\n", text.len()).as_bytes(),
        );
    } else {
        out.extend_from_slice(text);
        if !text.ends_with(b"\n") {
            out.extend_from_slice(b"\n\\ no newline at end\n");
        }
    }
    out
}

fn render(s: &Section) -> Vec<u8> {
    let mut out = format!("### {}\nexit: {}\n--- stdout\n", s.header, s.exit).into_bytes();
    out.extend(body(&s.stdout));
    out.extend_from_slice(b"--- stderr\n");
    out.extend(body(&s.stderr));
    for (name, content) in &s.files {
        out.extend_from_slice(format!("--- file {name}\n").as_bytes());
        out.extend(body(content));
    }
    out
}

const SECTION_START: &[u8] = b"### gapscore ";

/// A golden file's sections by header line (as far as lines starting `### gapscore ` divide
/// it; the whole file is compared byte for byte as well).
fn sections_of(text: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut starts: Vec<usize> = Vec::new();
    if text.starts_with(SECTION_START) {
        starts.push(0);
    }
    for (i, w) in text.windows(SECTION_START.len() + 1).enumerate() {
        if w[0] == b'\n' && &w[1..] == SECTION_START {
            starts.push(i + 1);
        }
    }
    let mut out = BTreeMap::new();
    for (k, &s) in starts.iter().enumerate() {
        // A section but the last is followed by the blank line that separates it from the next.
        let end = starts.get(k + 1).map_or(text.len(), |&next| next - 1);
        let chunk = &text[s..end];
        let header_end = chunk
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(chunk.len());
        let header = String::from_utf8_lossy(&chunk[..header_end]).into_owned();
        out.insert(header, chunk.to_vec());
    }
    out
}

/// Builds every golden file: sections sorted by header, a blank line between them.
fn golden_files(jobs: &[Job], results: &[Vec<Section>]) -> BTreeMap<String, Vec<u8>> {
    let mut by_file: BTreeMap<String, BTreeMap<String, Vec<u8>>> = BTreeMap::new();
    for (j, sections) in jobs.iter().zip(results) {
        let file = by_file.entry(format!("{}.txt", j.golden)).or_default();
        for s in sections {
            let header = format!("### {}", s.header);
            assert!(
                !s.stdout
                    .windows(SECTION_START.len())
                    .any(|w| w == SECTION_START)
                    && !s
                        .stderr
                        .windows(SECTION_START.len())
                        .any(|w| w == SECTION_START),
                "{header}: its output holds `### gapscore `, which divides golden files"
            );
            let old = file.insert(header.clone(), render(s));
            assert!(old.is_none(), "two runs in {}: {header}", j.golden);
        }
    }
    by_file
        .into_iter()
        .map(|(name, sections)| {
            let mut text = Vec::new();
            for (k, s) in sections.values().enumerate() {
                if k > 0 {
                    text.push(b'\n');
                }
                text.extend_from_slice(s);
            }
            (name, text)
        })
        .collect()
}

/// The committed golden files (`*.txt` under `cli/tests/golden/`), by relative path.
fn committed(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    if !dir.is_dir() {
        return out;
    }
    for p in captured(dir) {
        let name = p
            .strip_prefix(dir)
            .unwrap()
            .to_str()
            .unwrap()
            .replace('\\', "/");
        if name.ends_with(".txt") {
            out.insert(name, fs::read(&p).unwrap());
        }
    }
    out
}

fn short_diff(old: &[u8], new: &[u8]) -> String {
    let (old, new) = (String::from_utf8_lossy(old), String::from_utf8_lossy(new));
    let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .context_radius(2)
        .header("golden", "now")
        .to_string();
    let lines: Vec<&str> = diff.lines().collect();
    let mut text = lines
        .iter()
        .take(40)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    if lines.len() > 40 {
        text.push_str(&format!("\n  ... ({} more diff lines)", lines.len() - 40));
    }
    text
}

/// Every difference between the committed golden files and this run, described.
fn differences(
    old: &BTreeMap<String, Vec<u8>>,
    new: &BTreeMap<String, Vec<u8>>,
) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let mut runs = 0;
    let names: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for name in names {
        match (old.get(name), new.get(name)) {
            (None, Some(n)) => {
                let headers: Vec<String> = sections_of(n).into_keys().collect();
                runs += headers.len();
                problems.push(format!(
                    "cli/tests/golden/{name}: missing, so {} run(s) have no golden output (a new fixture?):\n{}",
                    headers.len(),
                    headers.join("\n")
                ));
            }
            (Some(_), None) => problems.push(format!(
                "cli/tests/golden/{name}: no run writes to it any more (a fixture removed?)"
            )),
            (Some(o), Some(n)) if o != n => {
                let (os, ns) = (sections_of(o), sections_of(n));
                let mut any = false;
                for h in os.keys().chain(ns.keys()).collect::<BTreeSet<_>>() {
                    match (os.get(h), ns.get(h)) {
                        (None, Some(_)) => {
                            problems.push(format!(
                                "{h}\n  new run (a new fixture?) without golden output ({name})"
                            ));
                        }
                        (Some(_), None) => {
                            problems
                                .push(format!("{h}\n  in the golden file, no longer run ({name})"));
                        }
                        (Some(a), Some(b)) if a != b => {
                            problems.push(format!("{h}\n{}", short_diff(a, b)));
                        }
                        _ => continue,
                    }
                    runs += 1;
                    any = true;
                }
                if !any {
                    problems.push(format!(
                        "cli/tests/golden/{name}: same runs, different layout:\n{}",
                        short_diff(o, n)
                    ));
                }
            }
            _ => {}
        }
    }
    (problems, runs)
}

fn write_golden(dir: &Path, files: &BTreeMap<String, Vec<u8>>) {
    for (name, _) in committed(dir) {
        if !files.contains_key(&name) {
            fs::remove_file(dir.join(&name)).unwrap();
        }
    }
    for (name, text) in files {
        let p = dir.join(name);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        if fs::read(&p).ok().as_deref() != Some(text.as_slice()) {
            fs::write(&p, text).unwrap();
        }
    }
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() && fs::read_dir(&p).unwrap().next().is_none() {
            fs::remove_dir(&p).unwrap();
        }
    }
}

#[test]
fn every_fixture_gives_its_golden_output() {
    let start = Instant::now();
    let root = workspace_root();
    let tmp_dir = tempfile::tempdir().unwrap();
    let tmp = tmp_dir.path();

    let mut jobs = Vec::new();
    let result_files = score_and_parse_jobs(&root, &mut jobs);
    forced_format_jobs(&root, &mut jobs);
    let upstream = upstream_jobs(&root, tmp, &mut jobs);
    let checked = check_jobs(&root, &mut jobs);
    let (verified, sealed) = seal_jobs(&root, tmp, &mut jobs);
    let batches = batch_jobs(tmp, &mut jobs);
    assert!(result_files > 400, "only {result_files} result files found");
    assert!(upstream >= 72, "only {upstream} upstream runs");
    assert!(checked > 150, "only {checked} reports to check");
    assert!(
        verified >= 5 && sealed >= 10,
        "{verified} seals to verify, {sealed} to make"
    );

    let workers = std::thread::available_parallelism()
        .map_or(2, usize::from)
        .clamp(2, 4);
    let results = run_all(&root, tmp, &jobs, workers);
    let files = golden_files(&jobs, &results);

    let mut per_group: BTreeMap<&str, usize> = BTreeMap::new();
    for (j, r) in jobs.iter().zip(&results) {
        *per_group
            .entry(j.golden.split_once('/').unwrap().0)
            .or_default() += r.len();
    }
    let total: usize = per_group.values().sum();
    eprintln!(
        "golden: {total} runs ({}) of {result_files} result files, {checked} reports, {batches} batches, on {workers} threads in {:.1} s",
        per_group
            .iter()
            .map(|(g, n)| format!("{g} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
        start.elapsed().as_secs_f64()
    );

    let dir = golden_dir();
    if std::env::var_os(UPDATE_ENV).is_some() {
        write_golden(&dir, &files);
        eprintln!(
            "golden: wrote {} files under {}",
            files.len(),
            dir.display()
        );
        return;
    }
    let (problems, runs) = differences(&committed(&dir), &files);
    let shown = 20;
    assert!(
        problems.is_empty(),
        "{runs} run(s) differ from the golden outputs in cli/tests/golden/ ({} problem(s); the first {}):\n\n{}\n\nIf (and only if) the change is intended: {REGENERATE}, and read the diff before committing it.",
        problems.len(),
        shown.min(problems.len()),
        problems
            .iter()
            .take(shown)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}
