//! The wild corpus (issue 18): JUnit files other projects committed, each read against the
//! counts written by hand in `tests/fixtures/wild/expected.toml`.

use gapscore_adapter_junit::JUnit;
use gapscore_adapter_testing::check_wild;

#[test]
fn every_wild_file_reads_as_expected() {
    let n = check_wild(env!("CARGO_MANIFEST_DIR"), &JUnit::new());
    assert_eq!(n, 60);
}
