//! The seal-record reader (`SealRecord::from_json` in `seal/src/record.rs`, through which
//! `score`, `seal --verify`, `check --seal` and `batch` read records), then the record used — its hash, options, exclude globs, a
//! recomputed hash over its own file list (both line orders) and a diff — and written back: a
//! record that was read must serialise and read back to itself.
#![no_main]

use gapscore_seal::digest::canonical_sha256;
use gapscore_seal::dir_hash::{PathOrder, locale_cmp, seal_hash};
use gapscore_seal::excludes::Excludes;
use gapscore_seal::record::{SealRecord, diff_files, likely_harmless};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let record = match SealRecord::from_json(text) {
        Ok(r) => r,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    assert!(canonical_sha256(&record.hash).is_ok(), "a read record's hash is canonical");
    let back = serde_json::to_string(&record).expect("a read record serialises");
    let again: SealRecord = serde_json::from_str(&back).expect("a written record reads back");
    assert_eq!(record, again, "seal record changed in a round trip");

    let excludes = Excludes::new(&record.excludes).ok();
    for f in &record.files {
        if let Some(x) = &excludes {
            let _ = x.matches(&f.path);
        }
        let _ = likely_harmless(&f.path);
    }
    let mut opts = record.options();
    let _ = seal_hash(&record.files, &opts);
    opts.order = match opts.order {
        PathOrder::Bytes => PathOrder::Locale,
        PathOrder::Locale => PathOrder::Bytes,
    };
    let _ = seal_hash(&record.files, &opts);
    for w in record.files.windows(2) {
        let _ = locale_cmp(&w[0].path, &w[1].path);
    }
    let half = &record.files[..record.files.len() / 2];
    let _ = diff_files(&record.files, half);
    let _ = diff_files(half, &record.files);
});
