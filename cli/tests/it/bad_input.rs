//! The bad-input corpus (`tests/bad-input/` at the repository root): every malformed file is
//! given to the real binary, `gapscore score --sealed FILE -o OUT` and `gapscore parse FILE -o
//! OUT`, and must give the outcome `tests/bad-input/expected.toml` records for it: no panic, the
//! exit code, an error naming the file and the place (or a whole report with its problems where
//! something was readable), and never a partial output file at OUT or beside it. Inputs too big
//! or too odd to commit (10 MB lines, 100,000 levels of nesting, directories, FIFOs, device
//! files) are generated here.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_gapscore");

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/bad-input")
}

/// One file and what gapscore must do with it.
#[derive(Debug, Clone, Default)]
struct Case {
    file: String,
    format: Option<String>,
    exit: i32,
    /// No report: the error line contains this (file, place, reason).
    error: Option<String>,
    /// No report, and the error has no place inside the file: why.
    no_place: Option<String>,
    /// A report is written (something was readable).
    report: bool,
    problems: Vec<String>,
    total: Option<u64>,
    failed: Option<u64>,
}

fn cases() -> Vec<Case> {
    let text = fs::read_to_string(corpus().join("expected.toml")).unwrap();
    let doc: toml::Table = toml::from_str(&text).unwrap();
    let str_of = |t: &toml::Table, k: &str| t.get(k).and_then(|v| v.as_str()).map(str::to_owned);
    doc["case"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let t = v.as_table().unwrap();
            for k in t.keys() {
                assert!(
                    [
                        "file", "format", "what", "exit", "error", "no_place", "report",
                        "problems", "total", "failed"
                    ]
                    .contains(&k.as_str()),
                    "unknown key `{k}` in expected.toml"
                );
            }
            let case = Case {
                file: str_of(t, "file").unwrap(),
                format: str_of(t, "format"),
                exit: i32::try_from(t["exit"].as_integer().unwrap()).unwrap(),
                error: str_of(t, "error"),
                no_place: str_of(t, "no_place"),
                report: t.get("report").is_some_and(|v| v.as_bool() == Some(true)),
                problems: t.get("problems").map_or_else(Vec::new, |p| {
                    p.as_array()
                        .unwrap()
                        .iter()
                        .map(|k| k.as_str().unwrap().to_owned())
                        .collect()
                }),
                total: t.get("total").map(|v| v.as_integer().unwrap() as u64),
                failed: t.get("failed").map(|v| v.as_integer().unwrap() as u64),
            };
            assert!(str_of(t, "what").is_some(), "{}: no `what`", case.file);
            assert!(
                case.report != case.error.is_some(),
                "{}: either `report = true` or an `error`",
                case.file
            );
            case
        })
        .collect()
}

struct Ran {
    code: i32,
    stderr: String,
}

/// Runs the binary in `dir` with a time limit (a hang is a failure too), stdout and stderr to
/// files so large output cannot block it.
fn run(dir: &Path, args: &[&str], logs: &Path) -> Ran {
    let out = fs::File::create(logs.join("stdout")).unwrap();
    let err = fs::File::create(logs.join("stderr")).unwrap();
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("gapscore {args:?} did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stderr = String::from_utf8_lossy(&fs::read(logs.join("stderr")).unwrap()).into_owned();
    Ran {
        code: status.code().unwrap_or(-1),
        stderr,
    }
}

/// The files in a directory (the output directory must hold OUT and nothing else).
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// True when `rest` (the message after the file name) starts with a place: `:line:col:`,
/// `: byte N:` or `: /xml/path`.
fn starts_with_place(rest: &str) -> bool {
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    if let Some(r) = rest.strip_prefix(':') {
        let n = digits(r);
        if n > 0 && r[n..].starts_with(':') {
            let m = digits(&r[n + 1..]);
            return m > 0 && r[n + 1 + m..].starts_with(':');
        }
        return false;
    }
    if let Some(r) = rest.strip_prefix(": byte ") {
        let n = digits(r);
        return n > 0 && r[n..].starts_with(':');
    }
    rest.starts_with(": /")
}

/// Checks one case: `score` then `parse`, from `dir`.
fn check(dir: &Path, case: &Case) {
    let f = &case.file;
    let tmp = tempfile::tempdir().unwrap();
    let outdir = tmp.path().join("out");
    fs::create_dir(&outdir).unwrap();
    let out = outdir.join("out.json");
    let out_s = out.to_str().unwrap();
    let mut args = vec!["score", "--sealed", f.as_str(), "-o", out_s];
    if let Some(fmt) = &case.format {
        args.extend(["--input-format", fmt.as_str()]);
    }
    let r = run(dir, &args, tmp.path());
    let context = format!("{f}: score exited {}:\n{}", r.code, r.stderr);
    assert!(!r.stderr.contains("panicked"), "{context}");
    assert_ne!(r.code, 101, "{context}");
    assert_eq!(r.code, case.exit, "{context}");
    if case.report {
        assert_eq!(listing(&outdir), ["out.json"], "{context}");
        let report: Value = serde_json::from_slice(&fs::read(&out).unwrap()).unwrap();
        let kinds: Vec<&str> = report["gapscore"]["problems"]
            .as_array()
            .map(|a| a.iter().map(|p| p["kind"].as_str().unwrap()).collect())
            .unwrap_or_default();
        assert_eq!(kinds, case.problems, "{context}");
        if let Some(t) = case.total {
            assert_eq!(report["sealed_tests"]["total"], t, "{context}");
        }
        if let Some(n) = case.failed {
            assert_eq!(report["sealed_tests"]["failed"], n, "{context}");
        }
        // A cut file is named on stderr whatever the exit code.
        if case.exit == 2 || case.problems.iter().any(|k| k == "truncated") {
            assert!(r.stderr.contains(f.as_str()), "{context}");
        }
    } else {
        assert!(listing(&outdir).is_empty(), "partial output: {context}");
        let error = case.error.as_deref().unwrap();
        let line = r
            .stderr
            .lines()
            .find(|l| l.starts_with(&format!("error: {f}")))
            .unwrap_or_else(|| panic!("no error line naming the file: {context}"));
        assert!(
            line.contains(error),
            "expected `{error}` in the error line: {context}"
        );
        assert!(!line.contains('\0'), "raw NUL in the message: {context}");
        let rest = &line[format!("error: {f}").len()..];
        match &case.no_place {
            Some(why) => assert!(!why.is_empty(), "{f}: no_place needs a reason"),
            None => assert!(starts_with_place(rest), "no place: {context}"),
        }
    }

    // `parse` reads the same way; it has no threshold or advisory reports, so it exits 2 when
    // score does and, without --allow-truncated, when a file was cut.
    let pout = outdir.join("parse.json");
    if let Ok(()) = fs::remove_file(&out) {}
    let mut args = vec!["parse", f.as_str(), "-o", pout.to_str().unwrap()];
    if let Some(fmt) = &case.format {
        args.extend(["--input-format", fmt.as_str()]);
    }
    let r = run(dir, &args, tmp.path());
    let context = format!("{f}: parse exited {}:\n{}", r.code, r.stderr);
    assert!(!r.stderr.contains("panicked"), "{context}");
    let cut = case.problems.iter().any(|k| k == "truncated");
    assert_eq!(
        r.code,
        if case.exit == 2 || cut { 2 } else { 0 },
        "{context}"
    );
    if case.report {
        assert_eq!(listing(&outdir), ["parse.json"], "{context}");
        let runs: Value = serde_json::from_slice(&fs::read(&pout).unwrap()).unwrap();
        let kinds: Vec<&str> = runs[0]["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, case.problems, "{context}");
    } else {
        assert!(listing(&outdir).is_empty(), "partial output: {context}");
        assert!(
            r.stderr.contains(case.error.as_deref().unwrap()),
            "{context}"
        );
    }
}

/// Every file of the corpus, relative to it (README.md and expected.toml aside).
fn corpus_files() -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, base, out);
            } else {
                out.push(p.strip_prefix(base).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(&corpus(), &corpus(), &mut out);
    out.retain(|f| !matches!(f.as_str(), "README.md" | "expected.toml" | ".gitattributes"));
    out.sort();
    out
}

#[test]
fn every_committed_bad_input_gives_its_expected_outcome() {
    let cases = cases();
    let mut listed: Vec<String> = cases.iter().map(|c| c.file.clone()).collect();
    listed.sort();
    assert_eq!(
        listed,
        corpus_files(),
        "expected.toml and the files of tests/bad-input differ"
    );
    assert!(cases.len() >= 100, "{} cases", cases.len());
    let formats: std::collections::BTreeSet<&str> =
        cases.iter().filter_map(|c| c.format.as_deref()).collect();
    for id in [
        "simple",
        "junit-xml",
        "pytest-json-report",
        "pytest-reportlog",
        "pytest-text",
        "jest-json",
        "ctrf-json",
        "go-test-json",
        "go-test-text",
        "tap",
        "libtest-json",
    ] {
        assert!(formats.contains(id), "no bad input for {id}");
    }
    // Two threads: the binary runs ~300 times.
    let (a, b) = cases.split_at(cases.len() / 2);
    std::thread::scope(|s| {
        for half in [a, b] {
            s.spawn(move || {
                for c in half {
                    check(&corpus(), c);
                }
            });
        }
    });
}

const TEN_MB: usize = 10 * 1024 * 1024;

fn error_case(file: &str, format: Option<&str>, error: &str, no_place: Option<&str>) -> Case {
    Case {
        file: file.into(),
        format: format.map(str::to_owned),
        exit: 2,
        error: Some(error.into()),
        no_place: no_place.map(str::to_owned),
        ..Case::default()
    }
}

fn report_case(file: &str, format: &str, exit: i32, problems: &[&str], total: u64) -> Case {
    Case {
        file: file.into(),
        format: Some(format.into()),
        exit,
        report: true,
        problems: problems.iter().map(|s| (*s).to_owned()).collect(),
        total: Some(total),
        ..Case::default()
    }
}

#[test]
fn ten_megabyte_single_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let big = "x".repeat(TEN_MB);
    let write = |name: &str, text: String| fs::write(d.join(name), text).unwrap();
    write(
        "long-name.json",
        format!(r#"{{"tests": [{{"name": "{big}", "status": "passed"}}]}}"#),
    );
    write(
        "long-output.jsonl",
        format!(r#"{{"Action":"output","Package":"p","Test":"TestA","Output":"{big}"}}"#),
    );
    write(
        "long-point.tap",
        format!("TAP version 13\n1..1\nok 1 - {big}"),
    );
    write(
        "long-attribute.xml",
        format!(
            r#"<testsuites><testsuite name="s"><testcase name="{big}"/></testsuite></testsuites>"#
        ),
    );
    write("long-line.txt", format!("t.py::test_a PASSED {big}"));
    fs::write(
        d.join("long-garbage.bin"),
        (0..TEN_MB)
            .map(|i| b'A' + (i % 26) as u8)
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let cases = [
        report_case("long-name.json", "simple", 0, &[], 1),
        // One output event and no newline: the stream was cut before any result.
        report_case("long-output.jsonl", "go-test-json", 0, &["truncated"], 1),
        // Read up to a 1 MiB cut of the line, with a warning.
        report_case("long-point.tap", "tap", 0, &[], 1),
        report_case("long-attribute.xml", "junit-xml", 0, &[], 1),
        error_case(
            "long-line.txt",
            Some("pytest-text"),
            "long-line.txt: no pytest console output found in 1 line(s)",
            Some("the judgement is on the whole file"),
        ),
        error_case(
            "long-garbage.bin",
            None,
            "long-garbage.bin: no adapter recognises this file",
            Some("not recognised"),
        ),
    ];
    for c in &cases {
        check(d, c);
    }
}

#[test]
fn a_hundred_thousand_levels_of_nesting() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = 100_000;
    let arrays = format!("{}{}", "[".repeat(n), "]".repeat(n));
    let objects = format!("{}0{}", r#"{"k":"#.repeat(n), "}".repeat(n));
    let write = |name: &str, text: String| fs::write(d.join(name), text).unwrap();
    write("tests.json", format!(r#"{{"tests": [{arrays}]}}"#));
    write("extra.json", format!(r#"{{"x": {arrays}, "tests": []}}"#));
    write(
        "ctrf.json",
        format!(
            r#"{{"reportFormat": "CTRF", "specVersion": "0.0.0", "results": {{"tool": {{"name": "x"}}, "summary": {{"tests": 1}}, "tests": [{{"name": "a", "status": "passed", "duration": 1, "extra": {objects}}}]}}}}"#
        ),
    );
    write(
        "jest.json",
        format!(
            r#"{{"numTotalTests": 1, "success": false, "testResults": [{{"name": "/a.test.js", "status": "failed", "assertionResults": [{{"title": "t", "fullName": "t", "ancestorTitles": [], "status": "failed", "failureDetails": [{arrays}]}}]}}]}}"#
        ),
    );
    write(
        "pytest.json",
        format!(
            r#"{{"created": 1.0, "duration": 0.1, "exitcode": 0, "root": "/p", "summary": {{"total": 0}}, "x": {arrays}, "tests": []}}"#
        ),
    );
    write(
        "go.jsonl",
        format!(
            "{{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"TestA\",\"X\":{arrays}}}\n{{\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"TestA\"}}\n{{\"Action\":\"pass\",\"Package\":\"p\"}}\n"
        ),
    );
    write(
        "elements.xml",
        format!(
            r#"<testsuites><testsuite name="s"><testcase name="t">{}{}</testcase></testsuite></testsuites>"#,
            "<x>".repeat(n),
            "</x>".repeat(n)
        ),
    );
    write(
        "suites.xml",
        format!(
            r#"<testsuites>{}<testcase name="t"/>{}</testsuites>"#,
            r#"<testsuite name="s">"#.repeat(n),
            "</testsuite>".repeat(n)
        ),
    );
    let mut failing = report_case("jest.json", "jest-json", 0, &[], 1);
    failing.failed = Some(1);
    let cases = [
        error_case(
            "tests.json",
            Some("simple"),
            "tests.json:1:12: invalid type: sequence",
            None,
        ),
        report_case("extra.json", "simple", 0, &[], 0),
        report_case("ctrf.json", "ctrf-json", 0, &[], 1),
        failing,
        report_case("pytest.json", "pytest-json-report", 0, &[], 0),
        report_case("go.jsonl", "go-test-json", 0, &[], 1),
        report_case("elements.xml", "junit-xml", 0, &[], 1),
        report_case("suites.xml", "junit-xml", 0, &[], 1),
    ];
    for c in &cases {
        check(d, c);
    }
}

#[test]
fn directories_fifos_and_devices_passed_as_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir(d.join("empty-dir")).unwrap();
    fs::create_dir(d.join("looks-like-a-file.json")).unwrap();
    let mut cases = vec![
        error_case(
            "empty-dir",
            None,
            "empty-dir: cannot read: directory contains no files",
            Some("a directory"),
        ),
        error_case(
            "looks-like-a-file.json",
            Some("simple"),
            "looks-like-a-file.json: cannot read: directory contains no files",
            Some("a directory"),
        ),
    ];
    #[cfg(unix)]
    {
        // Nothing ever writes to this FIFO: reading it would block forever, so a named pipe is
        // refused before it is opened (run() fails the test on a hang). Pipes the shell makes
        // (`-`, `<(command)`) are read: cli/tests/it/stdin.rs.
        let made = Command::new("mkfifo")
            .arg(d.join("results.json"))
            .status()
            .is_ok_and(|s| s.success());
        if made {
            cases.push(error_case(
                "results.json",
                Some("simple"),
                "results.json: cannot read: a named pipe (FIFO): gapscore does not open one, as it would wait for a writer that may never come; pipe the results into `-` or pass `<(command)`",
                Some("a FIFO"),
            ));
        }
        std::os::unix::fs::symlink("/dev/null", d.join("null.xml")).unwrap();
        cases.push(error_case(
            "null.xml",
            None,
            "null.xml: cannot read: not a regular file",
            Some("a device"),
        ));
    }
    for c in &cases {
        check(d, c);
    }
}

#[test]
fn an_output_path_that_is_a_directory_is_an_error_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("ok.json"),
        r#"{"tests": [{"name": "a", "status": "passed"}]}"#,
    )
    .unwrap();
    fs::create_dir(d.join("out")).unwrap();
    for args in [
        &["score", "--sealed", "ok.json", "-o", "out"][..],
        &["parse", "ok.json", "-o", "out"][..],
    ] {
        let logs = tempfile::tempdir().unwrap();
        let r = run(d, args, logs.path());
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr.contains("cannot write `out`: is a directory"),
            "{}",
            r.stderr
        );
        assert!(listing(&d.join("out")).is_empty());
        assert_eq!(listing(d), ["ok.json", "out"]);
    }
}
