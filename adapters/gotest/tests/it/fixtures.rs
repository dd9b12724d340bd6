//! Data-driven test of the Go test adapter on hand-written fixtures, one scenario each: every
//! `valid/` file is detected as its format (`.jsonl`: go-test-json, `.txt`: go-test-text), read,
//! and its canonical run snapshotted; every `invalid/` file must fail with the snapshotted place
//! and message. Targeted assertions below pin the semantics the snapshots show.

use std::fs;
use std::path::{Path, PathBuf};

use gapscore_adapter_gotest::{GoTest, JSON_FORMAT, TEXT_FORMAT};
use gapscore_adapter_sdk::{Adapter, ParseOptions, ProblemKind, Status, TestRun, parse_to_run};
use gapscore_adapter_testing::{each_fixture, fixture_files, fixture_stem};

fn fixtures(kind: &str) -> Vec<PathBuf> {
    fixture_files(env!("CARGO_MANIFEST_DIR"), kind)
}

fn valid(name: &str) -> TestRun {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/valid")
        .join(name);
    let bytes = fs::read(&path).unwrap();
    parse_to_run(&GoTest::new(), &bytes, &ParseOptions::default()).unwrap()
}

fn kinds(run: &TestRun) -> Vec<ProblemKind> {
    run.problems.iter().map(|p| p.kind).collect()
}

fn test<'a>(run: &'a TestRun, name: &str) -> &'a gapscore_adapter_sdk::TestCase {
    run.tests
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no test {name}"))
}

#[test]
fn valid_fixtures() {
    let adapter = GoTest::new();
    each_fixture(env!("CARGO_MANIFEST_DIR"), "valid", |path, bytes| {
        let (format, confidence) = match path.extension().and_then(|e| e.to_str()) {
            Some("jsonl") => (JSON_FORMAT, 97),
            _ => (TEXT_FORMAT, 65),
        };
        assert_eq!(adapter.detect(bytes, None), confidence, "not detected");
        assert_eq!(adapter.detect_format(bytes, None).as_deref(), Some(format));
        let stem = fixture_stem(path);
        let run = parse_to_run(&adapter, bytes, &ParseOptions::with_source(stem.clone()))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            run.format, JSON_FORMAT,
            "parse_to_run names the first format id"
        );
        insta::assert_json_snapshot!(format!("valid__{stem}"), run);
    });
}

#[test]
fn invalid_fixtures() {
    let adapter = GoTest::new();
    each_fixture(env!("CARGO_MANIFEST_DIR"), "invalid", |path, bytes| {
        let err = match parse_to_run(&adapter, bytes, &ParseOptions::default()) {
            Ok(run) => panic!("was accepted: {run:?}"),
            Err(e) => e,
        };
        insta::assert_snapshot!(format!("invalid__{}", fixture_stem(path)), err.to_string());
    });
}

#[test]
fn statuses_and_benchmarks() {
    let run = valid("events-every-action.jsonl");
    assert_eq!(test(&run, "TestPass").status, Status::Passed);
    assert_eq!(test(&run, "TestPass").duration, Some(0.01));
    assert_eq!(test(&run, "TestFail").status, Status::Failed);
    assert_eq!(test(&run, "TestSkip").status, Status::Skipped);
    assert_eq!(
        test(&run, "TestSkip").message.as_deref(),
        Some("needs a database")
    );
    assert_eq!(test(&run, "BenchmarkLogs").status, Status::Passed);
    // No result event, but its measurement line says it ran (the package failed for TestFail).
    assert_eq!(test(&run, "BenchmarkQuiet").status, Status::Passed);
    assert!(run.problems.is_empty());
}

#[test]
fn parents_are_counted_through_their_children() {
    let run = valid("subtests-nested.jsonl");
    let cart = test(&run, "TestCart");
    assert!(cart.parent && cart.parent_id.is_none());
    let item = test(&run, "TestCart/one_item");
    assert!(item.parent);
    assert_eq!(
        item.parent_id.as_deref(),
        Some("example.com/shop::TestCart")
    );
    let tax = test(&run, "TestCart/one_item/with_tax");
    assert!(!tax.parent);
    assert_eq!(tax.status, Status::Failed);
    assert_eq!(
        tax.parent_id.as_deref(),
        Some("example.com/shop::TestCart/one_item")
    );
    assert_eq!(tax.message.as_deref(), Some("tax = 0.19; want 0.2"));
    // A parent failing in its own code keeps its own message.
    let cleanup = test(&run, "TestCleanup");
    assert!(cleanup.parent);
    assert_eq!(
        cleanup.message.as_deref(),
        Some("cleanup: temp dir not removed")
    );
    assert!(run.problems.is_empty());
}

#[test]
fn interleaved_packages_keep_their_tests_apart() {
    let run = valid("parallel-interleaved-packages.jsonl");
    let failed: Vec<&str> = run
        .tests
        .iter()
        .filter(|t| t.status == Status::Failed && !t.parent)
        .map(|t| t.id.as_str())
        .collect();
    assert_eq!(failed, vec!["example.com/app/beta::TestWorkers/w1"]);
    assert_eq!(run.tests.len(), 6);
    let w1 = run
        .tests
        .iter()
        .find(|t| t.id == "example.com/app/beta::TestWorkers/w1")
        .unwrap();
    assert_eq!(
        (w1.expected.as_deref(), w1.actual.as_deref()),
        (Some("4"), Some("3"))
    );
    assert!(run.warnings.is_empty());
}

#[test]
fn messages_locations_and_values() {
    let run = valid("failure-message-location.jsonl");
    let t = test(&run, "TestGotWant");
    assert_eq!(
        (t.file.as_deref(), t.line),
        (Some("price_test.go"), Some(14))
    );
    assert_eq!(
        (t.expected.as_deref(), t.actual.as_deref()),
        (Some("4"), Some("3"))
    );
    let t = test(&run, "TestExpectedGot");
    assert_eq!(t.expected.as_deref(), Some("<nil>"));
    let t = test(&run, "TestMultiline");
    assert_eq!(
        t.message.as_deref(),
        Some("mismatch:\nline one\nline two\nsecond error")
    );
    assert_eq!(t.expected, None);
    let t = test(&run, "TestTestify");
    assert_eq!(
        (t.expected.as_deref(), t.actual.as_deref()),
        (Some("42"), Some("41"))
    );
    let t = test(&run, "TestNoMessage");
    assert_eq!((t.status, t.message.as_deref()), (Status::Failed, None));
}

#[test]
fn build_failures_in_both_go_generations() {
    for name in [
        "build-failure-go119.jsonl",
        "build-failure-go124.jsonl",
        "text-build-failed.txt",
    ] {
        let run = valid(name);
        assert_eq!(kinds(&run), vec![ProblemKind::BuildFailure], "{name}");
        let p = &run.problems[0];
        assert_eq!(
            p.suite.as_deref().map(|s| s.ends_with("/broken")),
            Some(true),
            "{name}"
        );
        assert!(
            p.detail.contains("undefined: undefinedHelper"),
            "{name}: {}",
            p.detail
        );
        assert_eq!(run.tests.len(), 1, "{name}");
    }
}

#[test]
fn dying_test_binaries() {
    let run = valid("panic-crash.jsonl");
    assert_eq!(kinds(&run), vec![ProblemKind::Crash]);
    assert_eq!(test(&run, "TestPanics").status, Status::Failed);
    assert_eq!(test(&run, "TestSlowParallel").status, Status::Errored);

    let run = valid("timeout-subtests.jsonl");
    assert_eq!(kinds(&run), vec![ProblemKind::Timeout]);
    assert_eq!(test(&run, "TestSync/remote").status, Status::Errored);
    assert!(test(&run, "TestSync").parent);

    let run = valid("exit-without-result.jsonl");
    assert_eq!(kinds(&run), vec![ProblemKind::Crash]);
    assert_eq!(test(&run, "TestExits").status, Status::Errored);

    // The package's `fail` event is evidence its passing records contradict (issue 31).
    let run = valid("package-fail-all-tests-pass.jsonl");
    assert_eq!(kinds(&run), vec![ProblemKind::ExitStatus]);
    assert!(run.problems[0].detail.contains("leaked goroutines"));

    let run = valid("text-panic.txt");
    assert_eq!(kinds(&run), vec![ProblemKind::Crash]);
}

#[test]
fn cut_streams() {
    let run = valid("truncated-mid-line.jsonl");
    assert_eq!(
        kinds(&run),
        vec![ProblemKind::Truncated, ProblemKind::MissingResults]
    );
    let run = valid("truncated-at-line-end.jsonl");
    assert_eq!(
        kinds(&run),
        vec![ProblemKind::Truncated, ProblemKind::MissingResults]
    );
    let run = valid("text-truncated.txt");
    assert!(kinds(&run).contains(&ProblemKind::Truncated));
    assert!(kinds(&run).contains(&ProblemKind::MissingResults));
}

#[test]
fn cached_replays_and_repeats_read_normally() {
    let run = valid("cached-replay.jsonl");
    assert_eq!(run.tests.len(), 3);
    assert!(run.problems.is_empty() && run.warnings.is_empty());
    let run = valid("count-2-repeats.jsonl");
    assert_eq!(run.tests.len(), 2);
    assert_eq!(run.warnings.len(), 1, "{:?}", run.warnings);
}

#[test]
fn non_json_lines_are_tolerated() {
    let run = valid("non-json-lines-kept.jsonl");
    assert_eq!(run.tests.len(), 2);
    assert!(run.problems.is_empty());
    assert_eq!(run.warnings.len(), 2, "{:?}", run.warnings);
}

#[test]
fn text_without_v_warns_that_passes_are_not_listed() {
    let run = valid("text-without-v.txt");
    assert_eq!(run.tests.len(), 1);
    assert_eq!(run.warnings.len(), 1);
    let run = valid("text-go113-logs-after-result.txt");
    assert_eq!(
        test(&run, "TestOld/sub").message.as_deref(),
        Some("got 1, want 2")
    );
    assert_eq!(
        test(&run, "TestOld").message.as_deref(),
        Some("parent message")
    );
}

/// No line-length limit: a 10 MB output line is read, and kept output is capped with a note.
#[test]
fn a_ten_megabyte_line_is_read_and_output_is_capped() {
    let big = "x".repeat(10 * 1024 * 1024);
    let doc = format!(
        "{{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"TestLoud\"}}\n\
         {{\"Action\":\"output\",\"Package\":\"p\",\"Test\":\"TestLoud\",\"Output\":\"{big}\\n\"}}\n\
         {{\"Action\":\"fail\",\"Package\":\"p\",\"Test\":\"TestLoud\",\"Elapsed\":1}}\n\
         {{\"Action\":\"fail\",\"Package\":\"p\",\"Elapsed\":1}}\n"
    );
    let run = parse_to_run(&GoTest::new(), doc.as_bytes(), &ParseOptions::default()).unwrap();
    assert_eq!(run.tests.len(), 1);
    let out = run.tests[0].output.as_deref().unwrap();
    assert!(out.len() < 70 * 1024);
    assert!(out.ends_with("[gapscore: cut at 64 KiB]"));
    assert!(run.problems.is_empty());
}

/// Any byte sequence: no panic, and either an error or a run.
#[test]
fn arbitrary_bytes_never_panic() {
    let adapter = GoTest::new();
    let seeds: Vec<Vec<u8>> = fixtures("valid")
        .into_iter()
        .map(|p| fs::read(p).unwrap())
        .collect();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for seed in &seeds {
        for _ in 0..40 {
            let mut b = seed.clone();
            for _ in 0..4 {
                let n = b.len().max(1);
                let at = (next() as usize) % n;
                match next() % 3 {
                    0 if !b.is_empty() => b[at] = next() as u8,
                    1 if !b.is_empty() => b.truncate(at),
                    _ => b.insert(at.min(b.len()), b"\"\\{}\n\t\xff"[(next() % 7) as usize]),
                }
            }
            for format in [JSON_FORMAT, TEXT_FORMAT] {
                let mut opts = ParseOptions::default();
                opts.format_id = Some(format.into());
                let _ = parse_to_run(&adapter, &b, &opts);
            }
        }
    }
}

#[test]
fn a_duplicate_key_on_a_marked_first_line_is_placed_in_the_file() {
    // The second `Action` is the line's 48th byte (after two spaces); the byte order mark
    // before it makes it the file's 51st, and columns are the file's.
    let line = br#"  {"Action":"run","Package":"p","Test":"TestA","Action":"pass"}"#;
    let place = |input: &[u8]| match parse_to_run(&GoTest::new(), input, &ParseOptions::default()) {
        Err(e) => e.to_string(),
        Ok(run) => panic!("was accepted: {run:?}"),
    };
    let mut marked = b"\xEF\xBB\xBF".to_vec();
    marked.extend_from_slice(line);
    assert!(place(line).starts_with("1:48: duplicate key `Action` in one object (first at 1:4)"));
    assert!(
        place(&marked).starts_with("1:51: duplicate key `Action` in one object (first at 1:7)")
    );
}

#[test]
fn a_text_stream_cut_among_running_tests_is_one_problem_counting_each() {
    // Seven tests running in parallel when the output stops: one `missing-results` problem
    // weighing 7 (so each still counts as a failure), as the JSON reader's Normalizer gives.
    let mut text = String::from("=== RUN   TestDone\n--- PASS: TestDone (0.00s)\n");
    for i in 1..=7 {
        text.push_str(&format!("=== RUN   TestP{i}\n=== PAUSE TestP{i}\n"));
    }
    for i in 1..=7 {
        text.push_str(&format!("=== CONT  TestP{i}\n"));
    }
    let mut opts = ParseOptions::default();
    opts.format_id = Some(TEXT_FORMAT.into());
    let run = parse_to_run(&GoTest::new(), text.as_bytes(), &opts).unwrap();
    assert_eq!(run.tests.len(), 1);
    let missing: Vec<_> = run
        .problems
        .iter()
        .filter(|p| p.kind == ProblemKind::MissingResults)
        .collect();
    assert_eq!(missing.len(), 1, "{:?}", run.problems);
    assert_eq!(missing[0].weight(), 7);
    assert_eq!(
        missing[0].detail,
        "7 tests started but have no result: `TestP1`, `TestP2`, `TestP3`, `TestP4`, `TestP5` and 2 more"
    );
    assert!(kinds(&run).contains(&ProblemKind::Truncated));
}

#[test]
fn text_line_ends_and_marks_are_read_as_before() {
    // CRLF, a stray `\r` before the line end, a mark on line 1 and one starting a second file
    // concatenated to the first: the same tests as the plain text.
    let plain = "=== RUN   TestA\n--- PASS: TestA (0.00s)\nok  \tex/a\t0.01s\n=== RUN   TestB\n--- FAIL: TestB (0.00s)\nFAIL\tex/b\t0.01s\n";
    let marked = "\u{feff}=== RUN   TestA\r\n--- PASS: TestA (0.00s)\r\r\nok  \tex/a\t0.01s\r\n\u{feff}=== RUN   TestB\r\n--- FAIL: TestB (0.00s)\r\nFAIL\tex/b\t0.01s";
    let mut opts = ParseOptions::default();
    opts.format_id = Some(TEXT_FORMAT.into());
    let read = |s: &str| parse_to_run(&GoTest::new(), s.as_bytes(), &opts).unwrap();
    let (a, b) = (read(plain), read(marked));
    assert_eq!(a.tests, b.tests);
    assert_eq!((a.problems, a.warnings), (b.problems, b.warnings));
    assert_eq!(b.tests.len(), 2);
    assert_eq!(b.tests[1].status, Status::Failed);
}
