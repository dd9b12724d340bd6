//! Data-driven test of the TAP adapter on hand-written fixtures, one scenario each: every
//! `valid/` file is detected, read and its canonical run snapshotted; every `invalid/` file must
//! fail with the snapshotted place and message. Targeted asserts below pin the semantics that
//! matter most for the score (statuses, problems), so a snapshot update cannot quietly change them.

use std::fs;
use std::path::Path;

use gapscore_adapter_sdk::{
    Adapter, Category, ParseOptions, ProblemKind, Status, TestRun, parse_to_run,
};
use gapscore_adapter_tap::Tap;
use gapscore_adapter_testing::{each_fixture, fixture_stem};

fn run_of(name: &str) -> TestRun {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/valid")
        .join(name);
    parse_to_run(
        &Tap::new(),
        &fs::read(path).unwrap(),
        &ParseOptions::default(),
    )
    .unwrap()
}

fn run_str(s: &str) -> TestRun {
    parse_to_run(&Tap::new(), s.as_bytes(), &ParseOptions::default()).unwrap()
}

fn kinds(run: &TestRun) -> Vec<ProblemKind> {
    run.problems.iter().map(|p| p.kind).collect()
}

fn statuses(run: &TestRun) -> Vec<(String, Status)> {
    run.tests
        .iter()
        .map(|t| (t.display_name(), t.status))
        .collect()
}

#[test]
fn valid_fixtures() {
    let adapter = Tap::new();
    each_fixture(env!("CARGO_MANIFEST_DIR"), "valid", |path, bytes| {
        assert!(adapter.detect(bytes, None) >= 70, "not detected");
        let stem = fixture_stem(path);
        let run = parse_to_run(&adapter, bytes, &ParseOptions::with_source(stem.clone()))
            .unwrap_or_else(|e| panic!("{e}"));
        insta::assert_json_snapshot!(format!("valid__{stem}"), run);
    });
}

#[test]
fn invalid_fixtures() {
    let adapter = Tap::new();
    each_fixture(env!("CARGO_MANIFEST_DIR"), "invalid", |path, bytes| {
        assert!(adapter.detect(bytes, None) < 70, "detected");
        let err = match parse_to_run(&adapter, bytes, &ParseOptions::default()) {
            Ok(run) => panic!("was accepted: {run:?}"),
            Err(e) => e,
        };
        insta::assert_snapshot!(format!("invalid__{}", fixture_stem(path)), err.to_string());
    });
}

#[test]
fn directives_map_to_statuses() {
    let run = run_of("directives-skip-todo.tap");
    let s: Vec<Status> = run.tests.iter().map(|t| t.status).collect();
    use Status::*;
    assert_eq!(
        s,
        [
            Skipped, Skipped, Skipped, Todo, Xpassed, Skipped, Passed, Passed
        ]
    );
    assert_eq!(run.tests[6].name, "hash in name #12 is not a directive");
    assert_eq!(run.tests[7].name, "escaped \\# SKIP is part of the name");
    assert!(run.problems.is_empty());
}

#[test]
fn plan_checks() {
    assert_eq!(
        kinds(&run_of("plan-mismatch-fewer.tap")),
        [ProblemKind::PlanMismatch]
    );
    assert_eq!(
        kinds(&run_of("plan-mismatch-more.tap")),
        [ProblemKind::PlanMismatch]
    );
    assert_eq!(kinds(&run_of("no-plan.tap")), [ProblemKind::NoPlan]);
    assert!(run_of("plan-at-end.tap").problems.is_empty());
    // Out-of-order and repeated numbers are warnings; the repeat hides test 4, which has no
    // result although the count matches the plan: that is a mismatch.
    let dup = run_of("numbers-duplicate-and-out-of-order.tap");
    assert!(dup.warnings.iter().any(|w| w.contains("out of sequence")));
    assert_eq!(kinds(&dup), [ProblemKind::PlanMismatch]);
    assert!(dup.problems[0].detail.contains("no result numbered 4"));
    let shuffled = run_str("1..3\nok 2 - b\nok 1 - a\nok 3 - c\n");
    assert!(shuffled.problems.is_empty());
    assert!(!shuffled.warnings.is_empty());
}

#[test]
fn a_skip_all_plan_is_never_a_clean_pass() {
    let run = run_of("plan-skip-all.tap");
    assert!(run.tests.is_empty());
    assert_eq!(kinds(&run), [ProblemKind::SuiteError]);
    assert!(run.problems[0].detail.contains("no database configured"));
    // Inside a subtest it is the subtest's skipped point, not a problem.
    let run = run_of("subtests-perl-skip-all.tap");
    assert!(run.problems.is_empty());
    assert_eq!(run.tests[0].status, Status::Skipped);
    assert!(!run.tests[0].parent);
}

#[test]
fn bail_out_keeps_earlier_results() {
    let run = run_of("bail-out.tap");
    assert_eq!(run.tests.len(), 2);
    // The bail-out carries the 4 planned tests that never ran; no plan-mismatch repeats them.
    assert_eq!(kinds(&run), [ProblemKind::BailOut]);
    assert_eq!(run.problems[0].count, Some(4));
}

#[test]
fn truncation() {
    let run = run_of("truncated-mid-line.tap");
    assert_eq!(run.tests.len(), 3);
    assert_eq!(run.tests[2].name, "cut in the midd");
    assert_eq!(
        kinds(&run),
        [ProblemKind::PlanMismatch, ProblemKind::Truncated]
    );
    let run = run_of("truncated-inside-yaml.tap");
    assert_eq!(run.tests[1].message.as_deref(), Some("boom"));
    assert_eq!(kinds(&run), [ProblemKind::Truncated]);
    assert_eq!(
        kinds(&run_of("truncated-missing-trailing-plan.tap")),
        [ProblemKind::NoPlan]
    );
    // A complete stream without a final newline is not truncated.
    assert!(run_str("1..1\nok 1 - a").problems.is_empty());
}

#[test]
fn subtests_get_suite_paths_and_parents() {
    for (file, want) in [
        (
            "tap14-subtests-indented.tap",
            vec![
                ("parser::reads numbers", Status::Passed, false),
                ("parser > strings::plain", Status::Passed, false),
                ("parser > strings::escaped", Status::Failed, false),
                ("parser::strings", Status::Failed, true),
                ("parser", Status::Failed, true),
                ("standalone", Status::Passed, false),
            ],
        ),
        (
            "subtests-buffered-braces.tap",
            vec![
                ("group one::inside a", Status::Passed, false),
                ("group one::inside b", Status::Passed, false),
                ("group one", Status::Passed, true),
                ("group two::inside fails", Status::Failed, false),
                ("group two", Status::Failed, true),
            ],
        ),
        (
            "subtests-perl-headerless.tap",
            vec![
                ("outer block::inner one", Status::Passed, false),
                ("outer block > inner two::innermost", Status::Passed, false),
                ("outer block::inner two", Status::Passed, true),
                ("outer block", Status::Passed, true),
                ("after", Status::Passed, false),
            ],
        ),
        (
            "subtests-perl-comment-at-child-indent.tap",
            vec![
                ("legacy::a", Status::Passed, false),
                ("legacy::b", Status::Failed, false),
                ("legacy", Status::Failed, true),
            ],
        ),
    ] {
        let run = run_of(file);
        let got: Vec<(String, Status, bool)> = run
            .tests
            .iter()
            .map(|t| (t.id.clone(), t.status, t.parent))
            .collect();
        let want: Vec<(String, Status, bool)> = want
            .into_iter()
            .map(|(a, b, c)| (a.to_owned(), b, c))
            .collect();
        assert_eq!(got, want, "{file}");
        // Every child points at a parent that is in the run.
        for t in &run.tests {
            if let Some(p) = &t.parent_id {
                assert!(
                    run.tests.iter().any(|x| x.parent && &x.id == p),
                    "{file}: {p}"
                );
            }
        }
        assert!(run.problems.is_empty(), "{file}: {:?}", run.problems);
    }
}

#[test]
fn yaml_diagnostics() {
    let run = run_of("yaml-diagnostics.tap");
    let t = &run.tests[0];
    assert_eq!(t.message.as_deref(), Some("values differ"));
    assert_eq!(
        (t.expected.as_deref(), t.actual.as_deref()),
        (Some("2"), Some("3"))
    );
    assert_eq!((t.file.as_deref(), t.line), (Some("test/add.js"), Some(12)));
    assert_eq!(t.category, Some(Category::EdgeCase));
    assert_eq!(t.duration, Some(0.0045));
    let t = &run.tests[1];
    assert_eq!(t.message.as_deref(), Some("first line\nsecond line"));
    assert_eq!(t.expected.as_deref(), Some("folded into one"));
    assert_eq!(t.actual.as_deref(), Some("quoted \"text\""));
    assert_eq!((t.file.as_deref(), t.line), (Some("src/calc.js"), Some(40)));
    assert_eq!(run.tests[3].status, Status::Errored);
    assert!(
        run.tests[4]
            .message
            .as_deref()
            .unwrap()
            .contains("unterminated")
    );
    assert_eq!(run.tests[5].category, Some(Category::Security));
}

#[test]
fn prove_keeps_each_file_as_a_suite() {
    let run = run_of("prove-verbose-two-files.tap");
    let names: Vec<String> = statuses(&run).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "t/calc.t::adds",
            "t/calc.t::subtracts",
            "t/calc.t::multiplies",
            "t/calc.t::concat",
            "t/strings.t > unicode::length",
            "t/strings.t::unicode",
        ]
        .map(str::to_owned)
        .to_vec()
        .into_iter()
        .map(|n| n.replace("t/calc.t::concat", "t/strings.t::concat"))
        .collect::<Vec<_>>()
    );
    assert_eq!(kinds(&run), [ProblemKind::SuiteError]);
    assert_eq!(run.problems[0].suite.as_deref(), Some("t/skip.t"));
    assert_eq!(run.producer.as_ref().unwrap().name, "prove");
    let t = &run.tests[1];
    assert_eq!((t.file.as_deref(), t.line), (Some("t/calc.t"), Some(9)));
}

#[test]
fn time_directives_and_categories() {
    let run = run_of("time-directives.tap");
    let d: Vec<Option<f64>> = run.tests.iter().map(|t| t.duration).collect();
    assert_eq!(d, [Some(0.0125), Some(2.0), Some(0.007), None]);
    let run = run_of("category-tags-in-titles.tap");
    let c: Vec<Option<Category>> = run.tests.iter().map(|t| t.category).collect();
    assert_eq!(
        c,
        [Some(Category::Security), Some(Category::EdgeCase), None]
    );
}

#[test]
fn detection() {
    let tap = Tap::new();
    assert_eq!(tap.detect(b"TAP version 14\n1..1\nok 1\n", None), 98);
    assert_eq!(tap.detect(b"1..2\nok 1 - a\nok 2 - b\n", None), 90);
    assert!(tap.detect(b"ok 1 a\nok 2 b\n", None) >= 70);
    for not_tap in [
        &b"<?xml version=\"1.0\"?><testsuite/>"[..],
        b"{\"tests\": []}",
        b"[1, 2]",
        b"=== RUN   TestA\n--- PASS: TestA (0.00s)\nPASS\nok  \texample.com/a\t0.01s\n",
        b"",
        b"hello world\n",
    ] {
        assert_eq!(
            tap.detect(not_tap, None),
            0,
            "{:?}",
            String::from_utf8_lossy(not_tap)
        );
    }
}

#[test]
fn hostile_input_never_panics() {
    let cases = [
        "ok 99999999999999999999999999 - big\n",
        "1..99999999999999999999999\n",
        "\u{feff}TAP version 13\nok 1 - bom\n",
        "not ok 1 - x\n  ---\n  a: \"\\u12\n  ...\n",
        "ok 1 - {\n}\n}\n{\n",
        "    ok 1 - deep first\nok 1 - top\n1..1\n",
        "# Subtest: a\n# Subtest: b\nok 1 - b\n1..1\n",
        "ok 1 - é # TODO ü\u{0}\n1..1\n",
    ];
    for c in cases {
        let _ = parse_to_run(&Tap::new(), c.as_bytes(), &ParseOptions::default());
    }
    let deep: String = (0..500)
        .map(|i| format!("{}# Subtest: s{i}\n", " ".repeat(i * 4)))
        .collect();
    // Closed by the dedent: each subtest is warned about as having no point of its own.
    let run = run_str(&format!("{deep}ok 1 - x\n"));
    assert_eq!(run.tests.len(), 1);
    // Cut inside them: every announced subtest is missing its result.
    let run = run_str(&deep);
    assert!(kinds(&run).contains(&ProblemKind::MissingResults));
    let long = format!("ok 1 - {}\n1..1\n", "x".repeat(3 << 20));
    let run = run_str(&long);
    assert_eq!(run.tests.len(), 1);
    assert!(run.tests[0].name.len() <= 1 << 20);
}

#[test]
fn long_diagnostics_are_cut_once_at_the_sdk_cap() {
    use gapscore_adapter_sdk::text::{CUT_NOTE, TEXT_CAP};
    // 2,000 diagnostic lines of 100 bytes (about 200 KiB) under one failing point, and a YAML
    // message as long.
    let line = "x".repeat(99);
    let mut tap = String::from("TAP version 13\n1..2\nnot ok 1 - long\n");
    for _ in 0..2000 {
        tap.push_str(&format!("# {line}\n"));
    }
    tap.push_str("not ok 2 - yaml\n  ---\n  message: |\n");
    for _ in 0..2000 {
        tap.push_str(&format!("    {line}\n"));
    }
    tap.push_str("  ...\n");
    let run = run_str(&tap);
    for t in &run.tests {
        let m = t.message.as_deref().unwrap();
        assert!(m.ends_with(CUT_NOTE), "{}: {}", t.name, &m[m.len() - 40..]);
        assert_eq!(m.matches(CUT_NOTE).count(), 1, "{}", t.name);
        assert!(
            m.len() <= TEXT_CAP + CUT_NOTE.len(),
            "{}: {}",
            t.name,
            m.len()
        );
        assert!(m.len() > TEXT_CAP - 100, "{}: kept {}", t.name, m.len());
    }
}
