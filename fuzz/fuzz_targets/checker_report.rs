//! The conformance checker's report reader (`gapscore check`): any bytes as a report, at level 3,
//! once with no evidence and once with the sealed directory and seal record of the checker's
//! `l3-everything-verified` fixture (so the seal, hash and feedback-leak rules run too); the
//! results are gathered, rendered as text and serialised as `--format json` would.
#![no_main]

use std::path::PathBuf;
use std::sync::LazyLock;

use gapscore_check::{CheckOutput, Evidence, check_bytes, render_text};
use libfuzzer_sys::fuzz_target;

static EVIDENCE: LazyLock<Evidence> = LazyLock::new(|| {
    let case = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance-tests/fixtures/evidence/l3-everything-verified");
    Evidence::load(Some(&case.join("sealed")), Some(&case.join("seal.json")))
        .expect("the l3-everything-verified fixture's evidence reads")
});

fuzz_target!(|data: &[u8]| {
    let bare = check_bytes("fuzz.json", data, &Evidence::default(), 3);
    let full = check_bytes("fuzz.json", data, &EVIDENCE, 3);
    let out = CheckOutput::new(3, true, true, vec![bare, full]);
    let _ = render_text(&out);
    let _ = serde_json::to_vec(&out);
});
