//! ABI v2 fault injection: every broken v2 entry point of the fixture plugin library is rejected
//! with its exact reason, naming the plugin, the event and the field, while the host keeps
//! working; a rejected event fails the parse even when the plugin ignores the request to stop
//! and returns success; `--plugin-debug` shows what the plugin passed, escaped; a well-behaved
//! hand-written v2 plugin streams through `host->read`; the v1 input cap says so and suggests v2.

use std::io::BufReader;

use gapscore_adapter_sdk::{
    Adapter, AdapterError, InputError, Location, Normalizer, ParseOptions, RunCollector, Status,
    parse_to_run,
};
use gapscore_adapter_testing::built_cdylib;
use gapscore_adapters::loader::load_with_symbol;

fn lib() -> std::path::PathBuf {
    built_cdylib("gapscore-fixture-plugins")
}

fn parse_error(symbol: &str, debug: bool) -> AdapterError {
    let adapter = load_with_symbol(&lib(), symbol).unwrap().with_debug(debug);
    assert_eq!(adapter.abi_version(), 2);
    match parse_to_run(&adapter, b"input", &ParseOptions::default()) {
        Err(e) => e,
        Ok(run) => panic!("{symbol}: expected an error, got {run:?}"),
    }
}

fn plugin_error(symbol: &str) -> String {
    match parse_error(symbol, false) {
        AdapterError::Plugin(m) => m,
        other => panic!("{symbol}: expected a plugin error, got {other:?}"),
    }
}

#[test]
fn broken_v2_descriptors_are_rejected() {
    let err = |s: &str| load_with_symbol(&lib(), s).unwrap_err().reason;
    assert_eq!(
        err("gapscore_adapter_v2_short_desc"),
        "descriptor is 16 bytes, smaller than the 56 bytes of ABI v2"
    );
    assert_eq!(
        err("gapscore_adapter_v2_null_parse"),
        "function `parse_stream` is null"
    );
}

/// A plugin compiled before `decided_at` was appended passes the base size: it loads, its
/// test is read, and the bytes past its struct are never read (its skip is unlocated).
#[test]
fn a_test_struct_without_the_appended_member_is_read_without_it() {
    let adapter = load_with_symbol(&lib(), "gapscore_adapter_v2_old_test").unwrap();
    let run = parse_to_run(&adapter, b"input", &ParseOptions::default()).unwrap();
    assert_eq!(run.tests.len(), 1, "{run:?}");
    assert_eq!(run.tests[0].status, Status::Skipped);
    assert_eq!(run.tests[0].decided_at, None);
}

#[test]
fn bad_events_fail_the_parse_naming_plugin_event_and_field() {
    let lib = lib();
    let at = |name: &str| format!("plugin `{name}` ({}): ", lib.display());
    let hint = " (run with --plugin-debug to see what it returned)";
    for (symbol, reason) in [
        (
            "v2_bad_utf8",
            format!("event 2 (`test_finished`) rejected: `name` is not UTF-8 (at byte 2){hint}"),
        ),
        (
            "v2_bad_status",
            "event 2 (`test_finished`) rejected: status code 99 is not a GAPSCORE_STATUS_* code"
                .to_owned(),
        ),
        (
            "v2_zero_status",
            "event 2 (`test_finished`) rejected: status code 0 is not a GAPSCORE_STATUS_* code"
                .to_owned(),
        ),
        (
            "v2_null_with_len",
            "event 2 (`test_finished`) rejected: `message` is NULL with length 5".to_owned(),
        ),
        (
            "v2_huge_len",
            format!(
                "event 2 (`test_finished`) rejected: `output` has length {} (more than the 16777216-byte limit)",
                usize::MAX / 2
            ),
        ),
        (
            "v2_short_test",
            format!(
                "event 2 (`test_finished`) rejected: struct_size is 8, smaller than the {} bytes of GapscoreTest",
                gapscore_adapter_sdk::abi::v2::GAPSCORE_TEST_BASE_SIZE
            ),
        ),
        (
            "v2_no_name",
            "event 2 (`test_finished`) rejected: `name` is absent".to_owned(),
        ),
        (
            "v2_nan_duration",
            "event 2 (`test_finished`) rejected: `duration` is NaN (expected a finite number of seconds ≥ 0)".to_owned(),
        ),
        (
            "v2_bad_flags",
            "event 2 (`test_finished`) rejected: flags 0x80 has unknown bits".to_owned(),
        ),
        (
            "v2_bad_category",
            "event 2 (`test_finished`) rejected: category code 42 is not a GAPSCORE_CATEGORY_* code".to_owned(),
        ),
        (
            "v2_null_attempts",
            "event 2 (`test_finished`) rejected: `attempts` is NULL with attempt_count 3 (at most 10000)".to_owned(),
        ),
        (
            "v2_null_test",
            "event 1 (`test_finished`) rejected: the test is NULL".to_owned(),
        ),
        (
            "v2_bad_problem",
            "event 1 (`problem`) rejected: kind 0 is not a GAPSCORE_PROBLEM_* code".to_owned(),
        ),
        (
            "v2_null_read",
            "event 1 (`read`) rejected: buffer is NULL".to_owned(),
        ),
        (
            "v2_false_stop",
            "returned GAPSCORE_ERR_STOPPED although the host did not ask it to stop".to_owned(),
        ),
        ("v2_status_77", "returned unknown status 77".to_owned()),
        ("panics", "panicked: boom from plugin".to_owned()),
    ] {
        assert_eq!(
            plugin_error(&format!("gapscore_adapter_{symbol}")),
            format!("{}{reason}", at(symbol)),
            "{symbol}"
        );
    }
}

#[test]
fn plugin_debug_shows_what_the_plugin_passed_escaped() {
    let AdapterError::Plugin(m) = parse_error("gapscore_adapter_v2_bad_utf8", true) else {
        panic!("expected a plugin error")
    };
    assert!(
        m.ends_with("`name` is not UTF-8 (at byte 2)\n  it returned: \"ab\\xffc\" (4 bytes)"),
        "{m}"
    );
    // v1: the invalid JSON is shown around the error.
    let v1 = load_with_symbol(&lib(), "gapscore_adapter_bad_json")
        .unwrap()
        .with_debug(true);
    let Err(AdapterError::Plugin(m)) = parse_to_run(&v1, b"", &ParseOptions::default()) else {
        panic!("expected a plugin error")
    };
    assert!(
        m.contains("\n  it returned: \"{\\\"format\\\":\\\"broken\\\""),
        "{m}"
    );
}

#[test]
fn a_v2_parse_error_keeps_its_place() {
    assert_eq!(
        parse_error("gapscore_adapter_v2_parse_error", false),
        AdapterError::Input(InputError::Syntax {
            location: Location::LineCol { line: 3, column: 5 },
            message: "bad thing".to_owned()
        })
    );
}

#[test]
fn a_v2_plugin_streams_its_input_in_chunks() {
    let adapter = load_with_symbol(&lib(), "gapscore_adapter_v2_lines").unwrap();
    let input: String = (0..1000).map(|i| format!("test {i}\n")).collect();
    // Through a reader with a tiny buffer, so the plugin's reads cross buffer boundaries.
    let mut reader = BufReader::with_capacity(5, input.as_bytes());
    let mut sink = Normalizer::new(RunCollector::new("broken".to_owned(), None));
    adapter
        .parse_reader(&mut reader, &ParseOptions::default(), &mut sink)
        .unwrap();
    let run = sink.finish().into_run();
    assert_eq!(run.tests.len(), 1000);
    assert!(run.problems.is_empty(), "{:?}", run.problems);
    assert_eq!(run.tests[999].name, "test 999");
    assert!(run.tests.iter().all(|t| t.status == Status::Passed));
}

#[test]
fn a_v1_plugin_input_over_its_cap_says_so_and_suggests_v2() {
    let lib = lib();
    let v1 = load_with_symbol(&lib, "gapscore_adapter_ok")
        .unwrap()
        .with_v1_input_cap(8);
    assert_eq!(v1.abi_version(), 1);
    let mut sink = Normalizer::new(RunCollector::new("broken".to_owned(), None));
    let mut reader: &[u8] = b"123456789";
    let err = v1
        .parse_reader(&mut reader, &ParseOptions::default(), &mut sink)
        .unwrap_err();
    assert_eq!(
        err,
        AdapterError::Plugin(format!(
            "plugin `ok` ({}): the input is larger than 8 bytes, the most a plugin built for adapter ABI v1 can read (v1 hands it the whole input at once); rebuild the plugin for ABI v2 (gapscore-adapter-sdk {}, or `parse_stream` in C), which streams with no size limit",
            lib.display(),
            env!("CARGO_PKG_VERSION")
        ))
    );
    // At the cap it is read.
    let mut reader: &[u8] = b"12345678";
    let mut sink = Normalizer::new(RunCollector::new("broken".to_owned(), None));
    v1.parse_reader(&mut reader, &ParseOptions::default(), &mut sink)
        .unwrap();
    assert_eq!(sink.finish().into_run().tests.len(), 1);
}

/// Counts how each finished test arrived, and keeps every test.
#[derive(Default)]
struct HowTestsArrive {
    owned: usize,
    borrowed: usize,
    tests: Vec<gapscore_adapter_sdk::TestCase>,
}

impl gapscore_adapter_sdk::EventSink for HowTestsArrive {
    fn producer(&mut self, _: gapscore_adapter_sdk::Producer) {}
    fn test_finished(&mut self, test: gapscore_adapter_sdk::TestCase) {
        self.owned += 1;
        self.tests.push(test);
    }
    fn test_finished_ref(&mut self, test: gapscore_adapter_sdk::TestCaseRef<'_>) {
        self.borrowed += 1;
        self.tests.push(test.to_test_case());
    }
    fn problem(&mut self, _: gapscore_adapter_sdk::Problem) {}
    fn warning(&mut self, _: String) {}
}

#[test]
fn a_v2_plugin_hands_tests_to_the_sink_borrowed_and_equal_to_the_built_in() {
    // A passing test, a failure whose message is over the text cap (the host cuts its own copy),
    // a test with an earlier attempt and one that takes its suite from the testsuite.
    let long = "x".repeat(gapscore_adapter_sdk::text::TEXT_CAP + 100);
    let input = format!(
        r#"<testsuite name="s" tests="4">
  <testcase classname="c" name="passes" time="0.5"/>
  <testcase classname="c" name="fails"><failure message="{long}">trace é</failure></testcase>
  <testcase classname="c" name="flaky"><flakyFailure message="first">t</flakyFailure></testcase>
  <testcase name="bare"><skipped message="later"/></testcase>
</testsuite>"#
    );
    let plugin = load_with_symbol(&lib(), "gapscore_adapter_junit_plugin").unwrap();
    assert_eq!(plugin.abi_version(), 2);
    let mut via_plugin = HowTestsArrive::default();
    plugin
        .parse_reader(
            &mut input.as_bytes(),
            &ParseOptions::default(),
            &mut via_plugin,
        )
        .unwrap();
    let mut built_in = HowTestsArrive::default();
    gapscore_adapter_junit::JUnit::new()
        .parse_reader(
            &mut input.as_bytes(),
            &ParseOptions::default(),
            &mut built_in,
        )
        .unwrap();
    assert_eq!((via_plugin.owned, via_plugin.borrowed), (0, 4));
    // The built-in keeps a message attribute whole (only bodies are cut); the host cuts every
    // text a plugin passes at the cap, as its contract says.
    let mut cut = String::new();
    assert!(gapscore_adapter_sdk::text::push_capped(
        &mut cut,
        built_in.tests[1].message.as_deref().unwrap()
    ));
    built_in.tests[1].message = Some(cut);
    assert_eq!(via_plugin.tests, built_in.tests);
    assert_eq!(via_plugin.tests[2].attempts.len(), 1);
    assert_eq!(via_plugin.tests[0].duration, Some(0.5));
}

/// The string `v2_field_bytes` passes: `n` bytes, starting with `é` when `accented` (so the
/// non-ASCII path runs), the rest ASCII letters.
fn field_string(n: usize, accented: bool) -> Vec<u8> {
    let mut s = if accented {
        "é".as_bytes().to_vec()
    } else {
        Vec::new()
    };
    s.extend((0..n.saturating_sub(s.len())).map(|i| b'a' + (i % 26) as u8));
    s
}

#[test]
fn every_string_of_every_event_is_checked_with_a_bad_byte_anywhere() {
    use gapscore_fixture_plugins::v2::FIELD_BYTES_FIELDS;
    let lib = lib();
    let adapter = load_with_symbol(&lib, "gapscore_adapter_v2_field_bytes").unwrap();
    let parse = |field: usize, bytes: &[u8]| {
        let mut input = vec![u8::try_from(field).unwrap()];
        input.extend_from_slice(bytes);
        parse_to_run(&adapter, &input, &ParseOptions::default())
    };
    // Around the host's word sizes and its short-string limit (64), and a long string.
    let lengths = [1, 3, 4, 7, 8, 9, 15, 16, 17, 63, 64, 65, 66, 300];
    for (field, (event, name)) in FIELD_BYTES_FIELDS.iter().enumerate() {
        for n in lengths {
            for accented in [false, true] {
                let good = field_string(n, accented);
                let run = parse(field, &good)
                    .unwrap_or_else(|e| panic!("{event} `{name}`, {n} bytes: {e:?}"));
                // What a test or the run keeps arrives whole (a started test keeps nothing).
                if event != &"test_started" {
                    let text = String::from_utf8(good.clone()).unwrap();
                    assert!(
                        format!("{run:?}").contains(&text),
                        "{event} `{name}`: {run:?}"
                    );
                }
                let len = good.len();
                let places: Vec<usize> = if len <= 66 {
                    (0..len).collect()
                } else {
                    (0..len).step_by(7).chain([len - 1]).collect()
                };
                for at in places {
                    for bad in [0xff, 0x80, 0xc3] {
                        let mut b = good.clone();
                        b[at] = bad;
                        let place = format!("{event} `{name}`, {len} bytes, {bad:#x} at {at}");
                        // The standard validator is the oracle (a byte may complete `é`'s
                        // sequence into another valid character).
                        let Err(e) = std::str::from_utf8(&b) else {
                            assert!(parse(field, &b).is_ok(), "{place}: refused");
                            continue;
                        };
                        let Err(AdapterError::Plugin(m)) = parse(field, &b) else {
                            panic!("{place}: accepted")
                        };
                        let want = format!(
                            "event 1 (`{event}`) rejected: `{name}` is not UTF-8 (at byte {}) (run with --plugin-debug to see what it returned)",
                            e.valid_up_to()
                        );
                        assert!(m.ends_with(&want), "{place}: {m}");
                    }
                }
            }
        }
    }
}

#[test]
fn a_v2_plugin_s_warnings_keep_their_codes() {
    // Two declared counts the file does not hold: the reader warns W101 for each.
    let input = br#"<testsuite name="s" tests="1" failures="3">
  <testcase classname="c" name="a"/>
  <testcase classname="c" name="b"/>
</testsuite>"#;
    let plugin = load_with_symbol(&lib(), "gapscore_adapter_junit_plugin").unwrap();
    let via_plugin = parse_to_run(&plugin, input, &ParseOptions::default()).unwrap();
    let built_in = parse_to_run(
        &gapscore_adapter_junit::JUnit::new(),
        input,
        &ParseOptions::default(),
    )
    .unwrap();
    let codes = |run: &gapscore_adapter_sdk::TestRun| -> Vec<(gapscore_adapter_sdk::Code, String)> {
        run.coded_warnings()
            .map(|(c, w)| (c, w.to_owned()))
            .collect()
    };
    assert!(!codes(&built_in).is_empty());
    assert!(
        codes(&built_in)
            .iter()
            .all(|(c, _)| *c == gapscore_adapter_sdk::Code::DeclaredCountMismatch)
    );
    assert_eq!(codes(&via_plugin), codes(&built_in));
}

/// A plugin that calls `error()` and then returns `GAPSCORE_OK` is not read as valid: its own
/// word says the input cannot be read (attack round, issue 36: the tests before the error
/// were scored).
#[test]
fn ok_after_error_fails_the_file() {
    let m = plugin_error("gapscore_adapter_v2_error_then_ok");
    assert!(m.starts_with("plugin `v2_error_then_ok` ("), "{m}");
    assert!(
        m.ends_with("): called error() (unknown status `maybe`) but returned GAPSCORE_OK; the file is not read as valid"),
        "{m}"
    );
}

/// Before: `input: no message`. A plugin that says the input is invalid without saying why is
/// named, with what it did.
#[test]
fn err_parse_without_error_names_the_plugin_and_what_it_did() {
    let m = plugin_error("gapscore_adapter_v2_silent_parse_error");
    assert!(m.starts_with("plugin `v2_silent_parse_error` ("), "{m}");
    assert!(
        m.ends_with("): returned GAPSCORE_ERR_PARSE without calling error(); no reason given"),
        "{m}"
    );
}
