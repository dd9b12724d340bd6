//! Leak-scan benchmark (issue 33): a report whose one failure message is 8 MB, checked against a
//! sealed directory of 200,000 distinct source lines (200 files of 1,000 lines), once clean and
//! once with a sealed line planted at the end. Prints the wall time of `check_bytes` (best of
//! three) and of reading the sealed files. Then two shapes attack B5 (issue 33) found quadratic:
//! a 1 MB `expected` ending in a literal-only sealed line's value with 20,000 strings holding
//! that line (the literal exemption), and 10,000 strings naming a sealed location under 10,000
//! nested arrays (a pointer per finding). `cargo bench -p gapscore-check --bench leak`
//! (arguments: sealed lines, message megabytes; default 200000 8).

#![allow(clippy::print_stdout, clippy::unwrap_used)] // A benchmark reports on stdout.

use std::time::Instant;

use gapscore_check::{Evidence, SealedDir, check_bytes};

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse::<usize>().ok());
    let lines = args.next().unwrap_or(200_000);
    let megabytes = args.next().unwrap_or(8);
    let per_file = 1_000;
    let files: Vec<(String, Vec<u8>)> = (0..lines.div_ceil(per_file))
        .map(|f| {
            let text: String = (f * per_file..((f + 1) * per_file).min(lines))
                .map(|i| format!("    assert compute_{i}(x_{i}, {}) == {}\n", i * 7, i * 13))
                .collect();
            (format!("tests/test_part_{f}.py"), text.into_bytes())
        })
        .chain(std::iter::once((
            "tests/test_literals.py".to_owned(),
            (0..1_000)
                .map(|i| format!("    \"expected greeting number {i}\",\n"))
                .collect::<String>()
                .into_bytes(),
        )))
        .collect();
    let t = Instant::now();
    let dir = SealedDir::from_files(
        "sealed",
        files.iter().map(|(p, b)| (p.as_str(), b.as_slice())),
    );
    let evidence = Evidence::new(Some(dir), None);
    println!(
        "sealed: {lines} lines in {} files read in {:.2} s",
        files.len(),
        t.elapsed().as_secs_f64()
    );
    let mut message = String::with_capacity(megabytes << 20);
    let mut i = 0u64;
    while message.len() < megabytes << 20 {
        message.push_str(&format!(
            "log line {i}: computed value={} for input {} status=ok\n",
            i.wrapping_mul(2_654_435_761) % 1_000_003,
            i * 31
        ));
        i += 1;
    }
    let literal = "    \"expected greeting number 999\",";
    let mut expected = "x".repeat(1 << 20);
    expected.push_str("expected greeting number 999");
    let mut literal_report: serde_json::Value = serde_json::from_str(&report("")).unwrap();
    literal_report["failures"][0]["expected"] = expected.into();
    literal_report["failures"][0]["lines"] = vec![literal; 20_000].into();
    // Written as text: a value this deep is not built (nor dropped) recursively here.
    let frames = vec!["\"at test_part_0.py:1\""; 10_000].join(",");
    let deep = format!("{}{frames}{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_report =
        report("").replacen("\"message\"", &format!("\"frames\":{deep},\"message\""), 1);
    for (name, bytes) in [
        (
            "literal exemption",
            serde_json::to_vec(&literal_report).unwrap(),
        ),
        ("deep", deep_report.into_bytes()),
    ] {
        let t = Instant::now();
        let result = check_bytes("report.json", &bytes, &evidence, 3);
        println!(
            "{name}: {:.1} MB report: check {:.2} s, {} finding(s)",
            bytes.len() as f64 / 1_048_576.0,
            t.elapsed().as_secs_f64(),
            result.findings.len()
        );
    }
    for (name, planted) in [
        ("clean", String::new()),
        (
            "planted",
            "assert compute_199999(x_199999, 1399993) == 2599987".to_owned(),
        ),
    ] {
        let report = report(&format!("{message}{planted}"));
        let mut best = f64::MAX;
        let mut leaks = 0;
        for _ in 0..3 {
            let t = Instant::now();
            let result = check_bytes("report.json", report.as_bytes(), &evidence, 3);
            best = best.min(t.elapsed().as_secs_f64());
            leaks = result
                .findings
                .iter()
                .filter(|f| f.rule == "feedback.leak")
                .count();
        }
        println!(
            "{name}: {:.1} MB message, {lines} sealed lines: check {best:.2} s (best of 3), {leaks} feedback.leak finding(s)",
            report.len() as f64 / 1_048_576.0
        );
    }
}

/// A level-3 report with one failure whose message is `message`.
fn report(message: &str) -> String {
    let failure = serde_json::json!({
        "test_name": "test_part_0::test_compute",
        "category": "happy_path",
        "expected": "7",
        "actual": "8",
        "message": message,
    });
    format!(
        r#"{{"shadow_score_spec_version":"1.0.0","report":{{"id":"r","timestamp":"2026-03-01T12:00:00Z","specification":"PRD.md","shadow_score":50.0,"level":"significant"}},"sealed_tests":{{"total":2,"passed":1,"failed":1}},"failures":[{failure}]}}"#
    )
}
