//! Executable adapters (`--plugin-exec`): the Python example (adapters/examples/python-lines)
//! reads every fixture of the C example exactly as the C plugin does; broken programs (a cut
//! stream, no `end` event, a line that is not an event, an unknown status, a wrong count, a
//! failing exit, a hang, a bad info document) fail with an error naming the command and the line;
//! a program that streams a large input both ways does not deadlock. Skipped (with a note) when
//! python3 is missing.

#![allow(clippy::print_stderr)] // Test code: the skip note.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gapscore_adapter_sdk::{
    Adapter, AdapterError, InputError, Location, Normalizer, ParseOptions, RunCollector, Status,
    TestRun, parse_to_run,
};
use gapscore_adapters::exec::load_exec;

fn python() -> bool {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: no python3");
    }
    ok
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/python-lines/gapscore_python_lines.py")
}

fn example_cmd() -> String {
    format!("python3 '{}'", example().display())
}

fn run_of(adapter: &dyn Adapter, input: &[u8]) -> Result<TestRun, AdapterError> {
    parse_to_run(adapter, input, &ParseOptions::with_source("x.lines"))
}

#[test]
fn the_python_example_reads_the_c_fixtures_like_the_c_plugin() {
    if !python() {
        return;
    }
    let py = load_exec(&example_cmd()).unwrap();
    assert_eq!(py.info().name, "python-lines");
    assert_eq!(py.info().formats, vec!["lines-py".to_owned()]);
    let dir = tempfile::tempdir().unwrap();
    let c = gapscore_fixture_plugins::compile_c_lines(dir.path())
        .map(|p| gapscore_adapters::load_plugin(&p).unwrap());
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/c-lines/tests/fixtures");
    let mut seen = 0;
    for kind in ["valid", "invalid"] {
        for e in std::fs::read_dir(fixtures.join(kind)).unwrap() {
            let path = e.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            let got = run_of(&py, &bytes);
            assert_eq!(got.is_ok(), kind == "valid", "{}: {got:?}", path.display());
            if let Some(c) = &c {
                let want = run_of(c, &bytes);
                let strip = |r: Result<TestRun, AdapterError>| {
                    r.map(|r| r.tests).map_err(|e| e.to_string())
                };
                assert_eq!(strip(got), strip(want), "{}", path.display());
            }
            seen += 1;
        }
    }
    assert!(seen >= 10);
    // Detection by the declared rules.
    assert_eq!(py.detect(b"PASS a\n", Some("r.lines")), 85);
    assert_eq!(py.detect(b"# x\n", Some("r.lines")), 30);
    assert_eq!(py.detect(b"PASS a\n", Some("r.txt")), 0);
}

/// Writes a Python adapter whose info names it `name` and whose parse runs `parse_body`
/// (Python, with `sys` imported and the input on `sys.stdin.buffer`).
fn script(dir: &Path, name: &str, parse_body: &str) -> String {
    let path = dir.join(format!("{name}.py"));
    let body: String = parse_body.lines().map(|l| format!("{l}\n")).collect();
    std::fs::write(
        &path,
        format!(
            "import json, sys, time\nif sys.argv[1] == '--gapscore-info':\n    print(json.dumps({{'gapscore_exec_adapter': 1, 'name': '{name}', 'version': '1', 'formats': ['{name}']}}))\n    sys.exit(0)\nw = sys.stdout.write\ndef ev(o):\n    w(json.dumps(o) + '\\n')\nT = {{'event': 'test_finished', 'test': {{'name': 't', 'status': 'passed'}}}}\n{body}"
        ),
    )
    .unwrap();
    format!("python3 {}", path.display())
}

fn exec_error(dir: &Path, name: &str, body: &str) -> String {
    let cmd = script(dir, name, body);
    let a = load_exec(&cmd)
        .unwrap()
        .with_timeout(Duration::from_secs(2));
    match run_of(&a, b"PASS a\n") {
        Err(AdapterError::Plugin(m)) => {
            let prefix = format!("plugin-exec `{cmd}` ({name}): ");
            m.strip_prefix(&prefix)
                .unwrap_or_else(|| panic!("{m}"))
                .to_owned()
        }
        other => panic!("{name}: expected a plugin error, got {other:?}"),
    }
}

#[test]
fn broken_event_streams_fail_naming_the_command_and_the_line() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let hint = " (run with --plugin-debug to see what it returned)";
    assert_eq!(
        exec_error(d, "no_end", "ev(T)"),
        "the event stream ended after 1 lines without its `end` event: it was cut, so its results are not used"
    );
    assert_eq!(
        exec_error(d, "cut", "ev(T)\nw('{\"event\": \"end\"')"),
        format!("stdout line 2: the last line has no newline: the event stream was cut{hint}")
    );
    assert!(
        exec_error(d, "not_json", "w('hello\\n')")
            .starts_with("stdout line 1: invalid event: expected value at line 1 column 1"),
    );
    assert!(
        exec_error(
            d,
            "bad_status",
            "ev({'event': 'test_finished', 'test': {'name': 't', 'status': 'great'}})"
        )
        .starts_with("stdout line 1: invalid event: unknown variant `great`")
    );
    assert!(
        exec_error(d, "bad_event", "ev({'event': 'tests_finished'})")
            .starts_with("stdout line 1: invalid event: unknown variant `tests_finished`")
    );
    assert_eq!(
        exec_error(d, "miscount", "ev(T)\nev({'event': 'end', 'tests': 2})"),
        format!(
            "stdout line 2: the `end` event counts 2 tests, but 1 `test_finished` events came before it{hint}"
        )
    );
    assert_eq!(
        exec_error(
            d,
            "exit_3",
            "ev(T)\nev({'event': 'end', 'tests': 1})\nsys.stderr.write('kaput\\n')\nsys.exit(3)"
        ),
        "failed (exit status 3); its stderr ends: kaput"
    );
    assert_eq!(
        exec_error(d, "hangs", "time.sleep(30)"),
        "did not finish within 2 s (--plugin-exec-timeout SECS sets the limit); stopped"
    );
}

#[test]
fn plugin_debug_shows_the_rejected_line_and_input_errors_keep_their_place() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cmd = script(dir.path(), "shows", "w('{\"event\": 1}\\x1b\\n')");
    let a = load_exec(&cmd).unwrap().with_debug(true);
    let Err(AdapterError::Plugin(m)) = run_of(&a, b"") else {
        panic!("expected a plugin error")
    };
    assert!(
        m.ends_with("\n  it returned: \"{\\\"event\\\": 1}\\u{1b}\" (13 bytes)"),
        "{m}"
    );
    let cmd = script(
        dir.path(),
        "reports",
        "ev({'event': 'error', 'message': 'bad line', 'line': 4, 'column': 2})\nsys.exit(1)",
    );
    let a = load_exec(&cmd).unwrap();
    assert_eq!(
        run_of(&a, b"x").unwrap_err(),
        AdapterError::Input(InputError::Syntax {
            location: Location::LineCol { line: 4, column: 2 },
            message: "bad line".to_owned()
        })
    );
}

#[test]
fn bad_info_documents_are_refused() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("info.py");
    std::fs::write(&path, "print('{\"gapscore_exec_adapter\": 1, \"name\": \"Bad\", \"version\": \"1\", \"formats\": [\"x\"]}')\n").unwrap();
    assert_eq!(
        load_exec(&format!("python3 {}", path.display())).unwrap_err(),
        "invalid adapter name `Bad` (expected [a-z0-9][a-z0-9_-]*, at most 64 bytes)"
    );
    std::fs::write(&path, "print('nope')\n").unwrap();
    assert!(
        load_exec(&format!("python3 {}", path.display()))
            .unwrap_err()
            .starts_with("`--gapscore-info` printed no valid info document: expected ident")
    );
    assert!(
        load_exec("/nonexistent/adapter")
            .unwrap_err()
            .starts_with("cannot run `/nonexistent/adapter`: ")
    );
}

#[test]
fn large_inputs_stream_both_ways_without_deadlock() {
    if !python() {
        return;
    }
    let a = load_exec(&example_cmd()).unwrap();
    // 4 MB in, 200k events out: neither pipe can hold it all.
    let input: String = (0..200_000)
        .map(|i| format!("PASS test number {i}\n"))
        .collect();
    let mut sink = Normalizer::new(RunCollector::new("lines-py".to_owned(), None));
    let mut reader = std::io::BufReader::new(input.as_bytes());
    a.parse_reader(&mut reader, &ParseOptions::default(), &mut sink)
        .unwrap();
    let run = sink.finish().into_run();
    assert_eq!(run.tests.len(), 200_000);
    assert!(run.tests.iter().all(|t| t.status == Status::Passed));
    assert_eq!(run.tests[199_999].name, "test number 199999");
    // A program that does not read its input at all still ends cleanly.
    let dir = tempfile::tempdir().unwrap();
    let cmd = script(dir.path(), "ignores", "ev({'event': 'end', 'tests': 0})");
    let b = load_exec(&cmd).unwrap();
    assert_eq!(run_of(&b, input.as_bytes()).unwrap().tests.len(), 0);
}
