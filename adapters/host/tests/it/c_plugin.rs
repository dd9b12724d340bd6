//! The C example plugin (adapters/examples/c-lines), compiled with the system C compiler and
//! loaded through the C ABI v1: its descriptor, every fixture (exact tests for the valid ones,
//! exact line and column for the invalid ones), UTF-8 validation and JSON escaping against
//! Rust's own, detection, thread safety under concurrent parses, and registry integration.
//! Skipped (with a note on stderr) when there is no C compiler.

#![allow(clippy::print_stderr)] // Test code.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use gapscore_adapter_sdk::{
    Adapter, AdapterError, InputError, Location, ParseOptions, Status, parse_to_run,
};
use gapscore_adapters::{Origin, PluginAdapter, PluginSearch, Registry, load_plugin};

fn example_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/c-lines")
}

/// Compiles the plugin once per test binary; `None` when no C compiler is installed.
fn plugin_path() -> Option<&'static Path> {
    static PLUGIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    PLUGIN.get_or_init(compile).as_deref()
}

fn compile() -> Option<PathBuf> {
    gapscore_fixture_plugins::compile_c_lines(
        &PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c-lines"),
    )
}

/// The loaded plugin, once per test binary (libraries are never unloaded anyway).
fn plugin() -> Option<&'static PluginAdapter> {
    static ADAPTER: OnceLock<Option<PluginAdapter>> = OnceLock::new();
    ADAPTER
        .get_or_init(|| plugin_path().map(|p| load_plugin(p).unwrap()))
        .as_ref()
}

fn fixture(kind: &str, name: &str) -> Vec<u8> {
    let path = example_dir().join("tests/fixtures").join(kind).join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn fixture_names(kind: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(example_dir().join("tests/fixtures").join(kind))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".lines"))
        .collect();
    names.sort();
    names
}

type Expected = Vec<(String, Status, Option<String>)>;

fn tests_of(adapter: &dyn Adapter, input: &[u8]) -> Result<Expected, AdapterError> {
    let run = parse_to_run(adapter, input, &ParseOptions::default())?;
    assert_eq!(run.format, "lines");
    assert!(run.problems.is_empty(), "{:?}", run.problems);
    for t in &run.tests {
        assert_eq!(t.suite, None);
        assert_eq!(t.id, t.name, "the host derives the id from the name");
    }
    Ok(run
        .tests
        .into_iter()
        .map(|t| (t.name, t.status, t.message))
        .collect())
}

fn owned(tests: &[(&str, Status, Option<&str>)]) -> Expected {
    tests
        .iter()
        .map(|(n, s, m)| ((*n).to_owned(), *s, m.map(str::to_owned)))
        .collect()
}

/// `(line, column, message)` of a syntax error.
fn syntax_error(adapter: &dyn Adapter, input: &[u8]) -> (usize, usize, String) {
    match parse_to_run(adapter, input, &ParseOptions::default()) {
        Err(AdapterError::Input(InputError::Syntax {
            location: Location::LineCol { line, column },
            message,
        })) => (line, column, message),
        other => panic!(
            "{:?}: expected a syntax error, got {other:?}",
            String::from_utf8_lossy(input)
        ),
    }
}

#[test]
fn it_loads_with_its_descriptor() {
    let Some(adapter) = plugin() else { return };
    let info = adapter.info();
    assert_eq!(info.name, "c-lines");
    assert_eq!(info.version, "0.1.0");
    assert_eq!(info.formats, ["lines"]);
    assert_eq!(adapter.path(), plugin_path().unwrap());
}

#[test]
fn every_valid_fixture_parses_to_its_exact_tests() {
    let Some(adapter) = plugin() else { return };
    use Status::*;
    let cases: Vec<(&str, Expected)> = vec![
        (
            "all-statuses.lines",
            owned(&[
                ("adds two numbers", Passed, None),
                ("divides by zero", Failed, Some("expected an error, got 0")),
                (
                    "connects to the database",
                    Errored,
                    Some("ConnectionRefused: port 5432"),
                ),
                ("uploads a file", Skipped, Some("needs network")),
                ("handles overflow", Todo, None),
                ("compares floats", Failed, None),
                ("loads the config", Errored, None),
                ("runs on windows", Skipped, None),
                ("trims whitespace", Passed, None),
            ]),
        ),
        (
            "bom.lines",
            owned(&[("after a byte order mark", Passed, None)]),
        ),
        (
            "comments-and-blank-lines.lines",
            owned(&[
                ("first", Passed, None),
                ("second", Passed, None),
                ("third", Failed, Some("boom # not a comment")),
            ]),
        ),
        (
            "crlf.lines",
            owned(&[
                ("one", Passed, None),
                ("two", Failed, Some("bad value")),
                ("three", Skipped, Some("flaky")),
                ("four", Todo, None),
            ]),
        ),
        ("empty.lines", vec![]),
        ("only-comments.lines", vec![]),
        (
            "unicode-and-escapes.lines",
            owned(&[
                ("ünïcödé 名前 🎉", Passed, None),
                (
                    "\"quoted\" name",
                    Failed,
                    Some("expected \"a\" but got \"b\""),
                ),
                (
                    "back\\slash\\path",
                    Errored,
                    Some("C:\\temp\\file.txt not found"),
                ),
                ("tab\tinside", Skipped, Some("reason with\ttab")),
                ("name with: colon in a PASS line", Passed, None),
                ("résumé: a TODO name with a colon", Todo, None),
                ("control", Failed, Some("bell\u{7} and DEL\u{7f}")),
            ]),
        ),
    ];
    let listed: Vec<&str> = cases.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        fixture_names("valid"),
        listed,
        "every valid fixture has its expected tests here"
    );
    for (name, want) in cases {
        let got = tests_of(adapter, &fixture("valid", name)).unwrap();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn every_invalid_fixture_fails_at_its_line_and_column() {
    let Some(adapter) = plugin() else { return };
    let expected = "(expected PASS, FAIL, ERROR, SKIP or TODO)";
    let cases: Vec<(&str, usize, usize, String)> = vec![
        ("empty-name.lines", 2, 6, "empty test name".into()),
        (
            "invalid-utf8.lines",
            2,
            9,
            "invalid UTF-8 (byte 0xC3)".into(),
        ),
        (
            "keyword-without-space.lines",
            2,
            5,
            "expected a space after \"TODO\"".into(),
        ),
        (
            "leading-whitespace.lines",
            1,
            1,
            format!("unexpected whitespace at the start of the line {expected}"),
        ),
        (
            "lowercase-keyword.lines",
            1,
            1,
            format!("unknown keyword \"pass\" {expected}"),
        ),
        (
            "missing-name.lines",
            1,
            5,
            "missing test name after \"SKIP\"".into(),
        ),
        (
            "overlong-utf8.lines",
            1,
            6,
            "invalid UTF-8 (byte 0xC0)".into(),
        ),
        (
            "surrogate-utf8.lines",
            2,
            9,
            "invalid UTF-8 (byte 0xED)".into(),
        ),
        (
            "truncated-utf8.lines",
            2,
            6,
            "invalid UTF-8 (byte 0xE2)".into(),
        ),
        (
            "unknown-keyword-crlf.lines",
            2,
            1,
            format!("unknown keyword \"DONE\" {expected}"),
        ),
        (
            "unknown-keyword.lines",
            3,
            1,
            format!("unknown keyword \"WARN\" {expected}"),
        ),
    ];
    let listed: Vec<&str> = cases.iter().map(|c| c.0).collect();
    assert_eq!(
        fixture_names("invalid"),
        listed,
        "every invalid fixture has its expected place here"
    );
    for (name, line, column, message) in cases {
        let got = syntax_error(adapter, &fixture("invalid", name));
        assert_eq!(got, (line, column, message), "{name}");
    }
}

#[test]
fn edge_cases_of_the_format() {
    let Some(adapter) = plugin() else { return };
    let ok = |input: &[u8]| tests_of(adapter, input).unwrap();
    // An empty message after ": " is no message; the name ends at the first ": " only.
    assert_eq!(
        ok(b"FAIL a: \nSKIP b:c: d\nERROR e:"),
        owned(&[
            ("a", Status::Failed, None),
            ("b:c", Status::Skipped, Some("d")),
            ("e:", Status::Errored, None),
        ])
    );
    // Every control character (and NUL) survives the JSON round trip; a CR is stripped only
    // at the end of a line.
    let controls: Vec<u8> = (0u8..0x20).filter(|b| *b != b'\n').collect();
    let mut input = b"PASS x".to_vec();
    input.extend(&controls);
    input.extend(b"y\r\n");
    let mut name = "x".to_owned();
    name.extend(controls.iter().map(|b| char::from(*b)));
    name.push('y');
    assert_eq!(ok(&input), vec![(name, Status::Passed, None)]);
    // A long unknown keyword is shortened in the message without splitting a character.
    let long = format!("{}é{} x", "A".repeat(31), "B".repeat(40));
    let (line, column, message) = syntax_error(adapter, long.as_bytes());
    assert_eq!((line, column), (1, 1));
    assert_eq!(
        message,
        format!(
            "unknown keyword \"{}…\" (expected PASS, FAIL, ERROR, SKIP or TODO)",
            "A".repeat(31)
        )
    );
    // A name of blanks is empty; the error points where the name starts.
    assert_eq!(
        syntax_error(adapter, b"# x\n\nERROR  \t : boom\n"),
        (3, 7, "empty test name".to_owned())
    );
    // The first error wins, even when a later line is worse.
    assert_eq!(
        syntax_error(adapter, b"PASS a\nNOPE\n\xFF\n").0,
        2,
        "line of the first error"
    );
    // A byte order mark is skipped only at the very start; columns count bytes after it.
    assert_eq!(
        syntax_error(adapter, b"\xEF\xBB\xBFWARN x"),
        (
            1,
            1,
            "unknown keyword \"WARN\" (expected PASS, FAIL, ERROR, SKIP or TODO)".to_owned()
        )
    );
    assert_eq!(
        syntax_error(adapter, b"PASS a\n\xEF\xBB\xBFPASS b").1,
        1,
        "a BOM elsewhere is not a keyword"
    );
    // A large input grows the output buffer many times.
    let big: String = (0..50_000).map(|i| format!("FAIL t{i}: m{i}\n")).collect();
    let tests = ok(big.as_bytes());
    assert_eq!(tests.len(), 50_000);
    let mut late = "PASS x\n".repeat(123_455);
    late.push_str("SKIP\r\n");
    assert_eq!(
        syntax_error(adapter, late.as_bytes()),
        (123_456, 5, "missing test name after \"SKIP\"".to_owned())
    );
    assert_eq!(
        tests[49_999],
        (
            "t49999".to_owned(),
            Status::Failed,
            Some("m49999".to_owned())
        )
    );
}

/// A small deterministic generator (xorshift64*), so the test needs no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn utf8_validation_agrees_with_rust() {
    let Some(adapter) = plugin() else { return };
    // Hand-picked boundaries: overlongs, surrogates, the end of Unicode, truncations.
    let mut cases: Vec<Vec<u8>> = [
        &b"\x7f"[..],
        b"\x80",
        b"\xbf",
        b"\xc0\x80",
        b"\xc1\xbf",
        b"\xc2\x80",
        b"\xdf\xbf",
        b"\xc2",
        b"\xc2\x7f",
        b"\xc2\xc0",
        b"\xe0\x80\x80",
        b"\xe0\x9f\xbf",
        b"\xe0\xa0\x80",
        b"\xe1\x80\x80",
        b"\xec\xbf\xbf",
        b"\xed\x80\x80",
        b"\xed\x9f\xbf",
        b"\xed\xa0\x80",
        b"\xed\xbf\xbf",
        b"\xee\x80\x80",
        b"\xef\xbf\xbf",
        b"\xef\xbf",
        b"\xe2\x28\xa1",
        b"\xf0\x80\x80\x80",
        b"\xf0\x8f\xbf\xbf",
        b"\xf0\x90\x80\x80",
        b"\xf1\x80\x80\x80",
        b"\xf3\xbf\xbf\xbf",
        b"\xf4\x8f\xbf\xbf",
        b"\xf4\x90\x80\x80",
        b"\xf5\x80\x80\x80",
        b"\xf8\x88\x80\x80\x80",
        b"\xfe",
        b"\xff",
        b"\xf0\x9f\x8e",
        b"\xf0\x9f\x8e\x89",
    ]
    .iter()
    .map(|c| c.to_vec())
    .collect();
    // And random lines biased towards non-ASCII bytes (no line breaks: one line each).
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..20_000 {
        let len = 1 + rng.below(8) as usize;
        let bytes = (0..len)
            .map(|_| {
                let b = if rng.below(4) == 0 {
                    rng.below(0x80) as u8
                } else {
                    0x80 | rng.below(0x80) as u8
                };
                if b == b'\n' || b == b'\r' { b'.' } else { b }
            })
            .collect();
        cases.push(bytes);
    }
    for bytes in cases {
        let mut input = b"PASS x".to_vec();
        input.extend(&bytes);
        match std::str::from_utf8(&input) {
            Ok(text) => assert_eq!(
                tests_of(adapter, &input).unwrap(),
                vec![(text[5..].to_owned(), Status::Passed, None)],
                "{bytes:x?}"
            ),
            Err(e) => {
                let (line, column, message) = syntax_error(adapter, &input);
                assert_eq!(
                    (line, column),
                    (1, e.valid_up_to() + 1),
                    "{bytes:x?}: column of the first invalid byte"
                );
                assert_eq!(
                    message,
                    format!("invalid UTF-8 (byte 0x{:02X})", input[e.valid_up_to()]),
                    "{bytes:x?}"
                );
            }
        }
    }
}

#[test]
fn detect_scores() {
    let Some(adapter) = plugin() else { return };
    let lines = fixture("valid", "all-statuses.lines");
    assert_eq!(adapter.detect(&lines, Some("results.lines")), 90);
    assert_eq!(adapter.detect(&lines, Some("dir/results.lines")), 90);
    assert_eq!(adapter.detect(&lines, None), 60);
    assert_eq!(adapter.detect(&lines, Some("results.txt")), 60);
    let json = br#"{"tests": [{"name": "a", "status": "passed"}]}"#;
    assert_eq!(adapter.detect(json, Some("results.json")), 0);
    assert_eq!(adapter.detect(json, Some("results.lines")), 0);
    assert_eq!(adapter.detect(json, None), 0);
    // Comments, blank lines, CRLF and a BOM before the first result are skipped.
    assert_eq!(
        adapter.detect(&fixture("valid", "comments-and-blank-lines.lines"), None),
        60
    );
    assert_eq!(adapter.detect(&fixture("valid", "crlf.lines"), None), 60);
    assert_eq!(adapter.detect(&fixture("valid", "bom.lines"), None), 60);
    for ok in [&b"ERROR x"[..], b"SKIP x", b"TODO x", b"FAIL x: y"] {
        assert_eq!(adapter.detect(ok, Some("r.lines")), 90, "{ok:?}");
    }
    // The keyword must be followed by a space; an empty or comment-only prefix is no claim.
    for no in [
        &b""[..],
        b"PASS",
        b"PASS\tx",
        b"PASSED x",
        b"pass x",
        b" PASS x",
        b"# only a comment\n\n",
        b"WARN x\nPASS y",
    ] {
        assert_eq!(adapter.detect(no, Some("r.lines")), 0, "{no:?}");
    }
    // A file name the host cannot pass as a C string arrives as NULL.
    assert_eq!(adapter.detect(&lines, Some("a\0b.lines")), 60);
}

fn generated(seed: usize) -> (String, Result<Expected, (usize, usize)>) {
    let mut text = String::new();
    let mut want = Vec::new();
    let count = seed % 13;
    for i in 0..count {
        let name = format!("t{seed}-{i} ✓ \"q\"");
        match (seed + i) % 5 {
            0 => {
                text.push_str(&format!("PASS {name}\n"));
                want.push((name, Status::Passed, None));
            }
            1 => {
                let m = format!("expected {i}, got {seed}");
                text.push_str(&format!("FAIL {name}: {m}\n"));
                want.push((name, Status::Failed, Some(m)));
            }
            2 => {
                let m = format!("E{seed}\\{i}");
                text.push_str(&format!("ERROR {name}: {m}\r\n"));
                want.push((name, Status::Errored, Some(m)));
            }
            3 => {
                text.push_str(&format!("# comment {i}\n\nSKIP {name}\n"));
                want.push((name, Status::Skipped, None));
            }
            _ => {
                text.push_str(&format!("TODO {name}\n"));
                want.push((name, Status::Todo, None));
            }
        }
    }
    if seed.is_multiple_of(7) {
        // An error after the results: its line depends on the input.
        let line = text.lines().count() + 1;
        text.push_str("BAD line\n");
        return (text, Err((line, 1)));
    }
    (text, Ok(want))
}

#[test]
fn concurrent_parses_from_many_threads_are_independent() {
    let Some(adapter) = plugin() else { return };
    const THREADS: usize = 8;
    const PER_THREAD: usize = 250; // 2000 parses in all.
    let checked = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                s.spawn(move || {
                    for i in 0..PER_THREAD {
                        let (text, want) = generated(t * PER_THREAD + i);
                        match want {
                            Ok(tests) => {
                                assert_eq!(tests_of(adapter, text.as_bytes()).unwrap(), tests);
                            }
                            Err((line, column)) => {
                                let got = syntax_error(adapter, text.as_bytes());
                                assert_eq!((got.0, got.1), (line, column), "{text}");
                            }
                        }
                        assert!(adapter.detect(text.as_bytes(), Some("x.lines")) <= 90);
                    }
                    PER_THREAD
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .sum::<usize>()
    });
    assert_eq!(checked, 2000);
}

#[test]
fn the_registry_loads_it_next_to_the_built_ins_and_detects_lines_files() {
    let Some(path) = plugin_path() else { return };
    let mut registry = Registry::builtin();
    let builtins = registry.entries().len();
    let errors = registry.load_plugins(&PluginSearch::new(vec![path.to_path_buf()], vec![]));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(registry.entries().len(), builtins + 1);
    let entry = registry.entries().last().unwrap();
    assert_eq!(entry.name(), "c-lines");
    assert_eq!(entry.origin, Origin::Plugin(path.to_path_buf()));
    assert!(registry.format_ids().contains(&"lines".to_owned()));
    assert_eq!(registry.by_format("lines").unwrap().name(), "c-lines");
    assert_eq!(registry.by_format("c-lines").unwrap().name(), "c-lines");

    let lines = fixture("valid", "all-statuses.lines");
    let chosen = registry.detect(&lines, Some("results.lines")).unwrap();
    assert_eq!(chosen.name(), "c-lines");
    let chosen = registry.detect(&lines, None).unwrap();
    assert_eq!(chosen.name(), "c-lines");
    let run = parse_to_run(
        chosen.adapter.as_ref(),
        &lines,
        &ParseOptions::with_source("results.lines"),
    )
    .unwrap();
    assert_eq!(run.tests.len(), 9);
    assert_eq!(run.source.as_deref(), Some("results.lines"));

    // The same file found through a directory search; loading it twice is refused by name.
    let dir = path.parent().unwrap().to_path_buf();
    let errors = registry.load_plugins(&PluginSearch::new(vec![], vec![dir]));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].reason.contains("`c-lines` is already taken"),
        "{}",
        errors[0].reason
    );
    let mut fresh = Registry::builtin();
    let dir = path.parent().unwrap().to_path_buf();
    assert!(
        fresh
            .load_plugins(&PluginSearch::new(vec![], vec![dir]))
            .is_empty()
    );
    assert_eq!(
        fresh.detect(&lines, Some("results.lines")).unwrap().name(),
        "c-lines"
    );
}
