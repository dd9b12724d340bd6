//! ABI v2, "Reading in parts": a v2 plugin offered a file in parts appends what it read on
//! other threads only when the host's consumer says the parts fit together exactly, and every
//! misuse of the part functions (a table the host never opened, a part twice or left out, a bad
//! event inside a part, a part's own table asked for parts) fails the parse naming the call,
//! never drops or doubles events. The JUnit adapter built as a plugin gives the built-in's
//! events whether or not it reads in parts.

use std::fs;
use std::path::Path;

use gapscore_adapter_sdk::{EventSink, Normalizer, Problem, Producer, TestCase, TestCaseRef};
use gapscore_adapter_testing::built_cdylib;
use gapscore_adapters::loader::load_with_symbol;
use gapscore_adapters::{
    AppendParts, IngestOptions, Input, Outcome, Registry, SplitOptions, ingest_appendable,
};

/// Every event as a line, in order; `refuse` makes it refuse any part; `appended` counts the
/// parts it took in.
#[derive(Debug, Default)]
struct Seen {
    lines: Vec<String>,
    refuse: bool,
    appended: usize,
}

impl EventSink for Seen {
    fn producer(&mut self, p: Producer) {
        self.lines.push(format!("producer {p:?}"));
    }
    fn test_started(&mut self, suite: Option<&str>, name: &str, id: &str) {
        self.lines.push(format!("started {suite:?} {name} {id}"));
    }
    fn test_finished(&mut self, t: TestCase) {
        self.lines.push(format!("finished {t:?}"));
    }
    fn test_finished_ref(&mut self, t: TestCaseRef<'_>) {
        self.test_finished(t.to_test_case());
    }
    fn problem(&mut self, p: Problem) {
        self.lines.push(format!("problem {p:?}"));
    }
    fn warning(&mut self, m: String) {
        self.lines.push(format!("warning {m}"));
    }
}

/// Parts of any size fit; `refuse` refuses them.
const SEEN_PARTS: AppendParts<Seen> = AppendParts {
    fits: |_| true,
    can_append: |first, later| !first.refuse && later.iter().all(|l| !l.refuse),
    append: |first, later| {
        first.lines.extend(later.lines);
        first.appended += 1 + later.appended;
    },
};

fn registry(symbol: &str) -> Registry {
    let lib = built_cdylib("gapscore-fixture-plugins");
    let plugin = load_with_symbol(&lib, symbol).unwrap();
    let mut r = Registry::builtin();
    r.add_plugin(plugin, lib).unwrap();
    r
}

/// Options that offer any file in `parts` parts on two threads (`parts` 1: never).
fn opts(format: &str, parts: usize) -> IngestOptions {
    let mut o = IngestOptions::new(Some(format.to_owned()), 2);
    o.split = SplitOptions {
        min_bytes: if parts > 1 { 0 } else { u64::MAX },
        at: None,
        parts,
    };
    o
}

/// The `v2_parts` plugin on a file holding `word`: its events, or its error.
fn run_parts(dir: &Path, word: &str, parts: usize, refuse: bool) -> Result<Vec<String>, String> {
    let path = dir.join(format!("{word}.txt"));
    fs::write(&path, word).unwrap();
    let reg = registry("gapscore_adapter_v2_parts");
    let out = ingest_appendable(
        &reg,
        &[Input::new(path, true)],
        &opts("broken", parts),
        SEEN_PARTS,
        |_, _| Seen {
            refuse,
            ..Seen::default()
        },
    );
    match out.into_iter().next().unwrap() {
        Outcome::Parsed(p) => Ok(p.consumer.lines),
        Outcome::Failed(e) => Err(e.to_string()),
        other => panic!("{word}: {other:?}"),
    }
}

fn names(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| {
            let at = l.find("name: \"")? + 7;
            Some(l[at..at + l[at..].find('"')?].to_owned())
        })
        .collect()
}

#[test]
fn a_part_read_on_another_thread_is_appended_after_the_files_own_events() {
    let dir = tempfile::tempdir().unwrap();
    let lines = run_parts(dir.path(), "append", 2, false).unwrap();
    assert_eq!(names(&lines), ["first", "second"], "{lines:#?}");
    let warnings: Vec<&String> = lines.iter().filter(|l| l.starts_with("warning")).collect();
    assert_eq!(warnings, ["warning checked", "warning appended"]);

    // Not offered (one part): the plugin reads in one pass, with the same tests.
    let lines = run_parts(dir.path(), "append", 1, false).unwrap();
    assert_eq!(names(&lines), ["first", "second"]);
    assert!(lines.contains(&"warning one pass".to_owned()));
}

#[test]
fn parts_the_consumer_refuses_fail_the_parse_not_drop_the_part() {
    let dir = tempfile::tempdir().unwrap();
    let err = run_parts(dir.path(), "append", 2, true).unwrap_err();
    assert!(
        err.contains("`parts_end`") && err.contains("cannot be put together exactly"),
        "{err}"
    );
}

#[test]
fn misused_part_functions_fail_the_parse_naming_the_call() {
    let dir = tempfile::tempdir().unwrap();
    for (word, parts, wanted) in [
        ("unknown", 2, "not an open part of this call"),
        ("twice", 2, "listed twice"),
        ("left-out", 3, "2 parts are open and 1 were given"),
        (
            "bad-in-part",
            2,
            "part 1: event 1 (`test_finished`) rejected: status code 0",
        ),
    ] {
        let err = run_parts(dir.path(), word, parts, false).unwrap_err();
        assert!(err.contains(wanted), "{word}: {err}");
        assert!(err.contains("v2_parts"), "{word}: names the plugin: {err}");
    }
}

#[test]
fn the_host_bounds_the_parts_and_drops_one_left_open() {
    let dir = tempfile::tempdir().unwrap();
    // At most `parts - 1` later parts at once: the file's own table reads the first.
    for parts in [2, 3] {
        let lines = run_parts(dir.path(), "count", parts, false).unwrap();
        assert_eq!(lines, [format!("warning opened {}", parts - 1)]);
    }
    // A part never ended is dropped with its events when the call returns.
    let lines = run_parts(dir.path(), "left-open", 2, false).unwrap();
    assert_eq!(names(&lines), ["first"]);
    // A part's own table offers no parts, whatever function pointer it is passed to.
    let lines = run_parts(dir.path(), "part-opens", 2, false).unwrap();
    assert_eq!(lines, ["warning null: true"]);
    // read_at reads the file at any offset; at or past its end, nothing.
    let lines = run_parts(dir.path(), "read-at", 2, false).unwrap();
    assert_eq!(lines, [r#"warning read ["read", "ad-a", "", ""] of 7"#]);
}

/// A JUnit document of `suites` top-level suites of `cases` tests, some failing or skipped.
fn junit(suites: usize, cases: usize) -> String {
    let mut s = String::from("<?xml version=\"1.0\"?>\n<testsuites>\n");
    for i in 0..suites {
        s.push_str(&format!(
            "<testsuite name=\"pkg.m{i}\" tests=\"{cases}\">\n"
        ));
        for k in 0..cases {
            s.push_str(&format!(
                "<testcase classname=\"pkg.m{i}\" name=\"t{k}\" time=\"0.01\""
            ));
            match (i + k) % 7 {
                0 => s.push_str("><failure message=\"no &amp; way\">trace</failure></testcase>\n"),
                1 => s.push_str("><skipped/></testcase>\n"),
                _ => s.push_str("/>\n"),
            }
        }
        s.push_str("</testsuite>\n");
    }
    s.push_str("</testsuites>\n");
    s
}

#[test]
fn the_junit_plugin_read_in_parts_gives_the_built_in_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.xml");
    fs::write(&path, junit(400, 60)).unwrap();
    let reg = registry("gapscore_adapter_junit_plugin");
    let read = |format: &str, parts: usize| {
        let out = ingest_appendable(
            &reg,
            &[Input::new(path.clone(), true)],
            &opts(format, parts),
            SEEN_PARTS,
            |_, _| Seen::default(),
        );
        match out.into_iter().next().unwrap() {
            Outcome::Parsed(p) => (p.consumer.lines, p.consumer.appended),
            other => panic!("{format}: {other:?}"),
        }
    };
    // The built-in in one pass, by the adapter alone.
    let mut one = Normalizer::new(Seen::default());
    let mut r = std::io::BufReader::new(fs::File::open(&path).unwrap());
    gapscore_adapter_junit::parser::parse_reader(&mut r, &mut one).unwrap();
    let one = one.finish().lines;
    assert_eq!(one.len(), 400 * 60, "every test");
    for parts in [1, 2, 3] {
        assert_eq!(read("junit-plugin", parts).0, one, "plugin, {parts} parts");
        assert_eq!(read("junit", parts).0, one, "built-in, {parts} parts");
    }
    // The plugin did read in parts: the first part's thread reads on through a part no other
    // thread has started yet (a busy machine), so one of a few reads is enough.
    assert!(
        (0..20).any(|_| read("junit-plugin", 2).1 > 0),
        "the plugin never appended a part"
    );
}

/// What reading `path` gave: the events, or the adapter's error (without the adapter's name).
fn outcome(reg: &Registry, path: &Path, format: &str, parts: usize) -> String {
    let out = ingest_appendable(
        reg,
        &[Input::new(path.to_path_buf(), true)],
        &opts(format, parts),
        SEEN_PARTS,
        |_, _| Seen::default(),
    );
    match out.into_iter().next().unwrap() {
        Outcome::Parsed(p) => p.consumer.lines.join("\n"),
        Outcome::Failed(gapscore_adapters::IngestError::Parse { error, .. }) => {
            format!("error: {error}")
        }
        other => format!("{other:?}"),
    }
}

/// Every JUnit fixture and bad-input file of the repository, read by the plugin offered two
/// parts (a guess near the middle of each file), gives the built-in's one-pass events or error.
#[test]
fn the_junit_plugin_offered_parts_reads_every_fixture_as_one_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["adapters/junit/tests/fixtures", "tests/bad-input/junit"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "xml") {
                    files.push(p);
                }
            }
        }
    }
    files.sort();
    assert!(files.len() > 100, "{} files", files.len());
    let reg = registry("gapscore_adapter_junit_plugin");
    for f in &files {
        let one = outcome(&reg, f, "junit", 1);
        let plugin = outcome(&reg, f, "junit-plugin", 2);
        assert_eq!(plugin, one, "{}", f.display());
    }
}
