//! The wild corpus check: TAP files other projects committed (`tests/fixtures/wild/`, provenance
//! in its README), each read against the counts written by hand in its `expected.toml`.

use gapscore_adapter_tap::Tap;

#[test]
fn every_wild_file_reads_as_expected() {
    let checked = gapscore_adapter_testing::check_wild(env!("CARGO_MANIFEST_DIR"), &Tap::new());
    assert_eq!(checked, 13);
}
