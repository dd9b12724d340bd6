//! The wild corpus check: Go test files other projects committed (`tests/fixtures/wild/`,
//! provenance in its README), each read against the counts written by hand in its
//! `expected.toml`. One adapter reads both formats (it detects JSON or text per file).

use gapscore_adapter_gotest::GoTest;

#[test]
fn every_wild_file_reads_as_expected() {
    let checked = gapscore_adapter_testing::check_wild(env!("CARGO_MANIFEST_DIR"), &GoTest::new());
    assert_eq!(checked, 24);
}
