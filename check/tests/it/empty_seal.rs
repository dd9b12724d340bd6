//! A sealed directory with no file verifies no hash (issue 23): git cannot keep an empty
//! directory, so this case is built in memory rather than in the fixture suite.

use std::path::Path;

use gapscore_check::{Evidence, RequirementVerdict, SealedDir, Severity, check_bytes};

/// The fully evidenced level-3 fixture's report with `hash` as its seal, everywhere.
fn report_with_hash(hash: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance-tests/fixtures/evidence/l3-everything-verified/report.json");
    let text = std::fs::read_to_string(path).unwrap();
    text.replace(
        "sha256:06bf3ba126aea79b9a908e14d92feee62738a8fc9ae95a532c609c8dd2a179a5",
        hash,
    )
    .into_bytes()
}

#[test]
fn an_empty_sealed_directory_verifies_no_hash() {
    // Strict mode over no file hashes empty input; the spec pipeline hashes `shasum`'s line
    // for an empty stdin. Neither may verify.
    let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    let spec_empty = gapscore_seal::digest::sha256_hex(format!("{empty}  -\n").as_bytes());
    for hash in [format!("sha256:{empty}"), format!("sha256:{spec_empty}")] {
        let dir = SealedDir::from_files("sealed", []);
        let evidence = Evidence::new(Some(dir), None);
        let r = check_bytes("report.json", &report_with_hash(&hash), &evidence, 3);
        let req = r
            .requirements
            .iter()
            .find(|q| q.id == "L2.hash-recomputed")
            .unwrap();
        assert_eq!(
            req.verdict,
            RequirementVerdict::Failed,
            "{hash}: {}",
            req.detail
        );
        assert!(
            req.detail.contains("holds no regular file"),
            "{}",
            req.detail
        );
        assert!(
            r.findings
                .iter()
                .any(|f| f.rule == "hash.recomputed" && f.severity == Severity::Error)
        );
        assert_eq!(r.level_met, 1, "{hash}");
    }
}
