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
