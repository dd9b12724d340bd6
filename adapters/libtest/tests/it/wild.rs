//! The wild corpus: result files other projects committed (`tests/fixtures/wild/`, provenance in
//! its README), each read as `expected.toml` says, written by hand from reading the file.

use gapscore_adapter_libtest::Libtest;
use gapscore_adapter_testing::check_wild;

#[test]
fn every_wild_file_reads_as_expected() {
    let n = check_wild(env!("CARGO_MANIFEST_DIR"), &Libtest::new());
    assert!(n > 0);
}
