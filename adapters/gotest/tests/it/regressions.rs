//! Regressions found by the bad-input corpus (tests/bad-input at the repository root).

use gapscore_adapter_gotest::GoTest;
use gapscore_adapter_sdk::{Adapter, ParseOptions, parse_to_run};

#[test]
fn a_binary_stray_line_is_quoted_escaped_in_the_warning() {
    let mut input = b"{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"TestA\"}\n".to_vec();
    input.extend([0u8; 300]);
    input.extend(b"\n{\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"TestA\"}\n");
    input.extend(b"{\"Action\":\"pass\",\"Package\":\"p\"}\n");
    let adapter = GoTest::new();
    let mut opts = ParseOptions::default();
    opts.format_id = adapter.detect_format(&input, None);
    let run = parse_to_run(&adapter, &input, &opts).unwrap();
    assert_eq!(run.tests.len(), 1);
    let w = run
        .warnings
        .iter()
        .find(|w| w.contains("not test2json events"))
        .unwrap();
    assert!(!w.contains('\0'), "{w:?}");
    assert!(w.contains("\\u{0}\\u{0}"), "{w}");
    assert!(w.len() < 400, "{w}");
}

/// A stream re-encoded with spaces after the colons (Python's `json.dumps`, PowerShell) is
/// still `go test -json`: detected as such and read like go's own spelling.
#[test]
fn events_with_spaces_after_colons_are_detected_and_read() {
    let input = b"{\"Action\": \"run\", \"Package\": \"p\", \"Test\": \"TestA\"}\n\
{\"Action\": \"fail\", \"Package\": \"p\", \"Test\": \"TestA\", \"Elapsed\": 0.5}\n\
{\"Action\" : \"fail\" , \"Package\" : \"p\", \"Elapsed\": 0.6}\n";
    let adapter = GoTest::new();
    assert_eq!(adapter.detect(input, Some("out.jsonl")), 97);
    let mut opts = ParseOptions::default();
    opts.format_id = adapter.detect_format(input, None);
    assert_eq!(opts.format_id.as_deref(), Some("go-test-json"));
    let run = parse_to_run(&adapter, input, &opts).unwrap();
    assert_eq!(run.tests.len(), 1);
    assert_eq!(run.tests[0].status, gapscore_adapter_sdk::Status::Failed);
    assert!(run.problems.is_empty(), "{:?}", run.problems);
}
