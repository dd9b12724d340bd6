//! The upstream suites bundled in `upstream/`, read through the runner: both parse in their
//! dialect, every input they name is there, and every expected output passes the runner's own
//! strict check. A failure lists every failing fixture by suite and id.

use std::path::Path;

use gapscore_conformance::upstream::{Strictness, Suite};
use gapscore_conformance::upstream_dir;

const SUITES: [&str; 2] = ["v1/fixtures.json", "v2/fixtures.json"];

fn suite(file: &str) -> Suite {
    Suite::parse(&std::fs::read_to_string(upstream_dir().join(file)).unwrap()).unwrap()
}

/// Fails once, naming every failing fixture.
fn assert_none_fail(what: &str, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} fixture(s) {what}:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

#[test]
fn the_bundled_suites_are_v1_in_the_gap_dialect_and_v2_in_the_shadow_dialect() {
    let v1 = suite(SUITES[0]);
    let v2 = suite(SUITES[1]);
    assert_eq!((v1.version.as_str(), v1.prefix()), ("1.0.0", "gap"));
    assert_eq!((v2.version.as_str(), v2.prefix()), ("2.0.0", "shadow"));
    assert_eq!(v1.fixtures.len() + v2.fixtures.len(), 36);
}

#[test]
fn every_input_a_fixture_names_is_bundled() {
    let base = upstream_dir();
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for file in SUITES {
        for f in &suite(file).fixtures {
            let args = match f.args(&base, tmp.path()) {
                Ok(args) => args,
                Err(e) => {
                    failures.push(format!("{file} {}: {e}", f.id));
                    continue;
                }
            };
            for pair in args.windows(2) {
                if matches!(pair[0].as_str(), "--sealed" | "--open")
                    && !Path::new(&pair[1]).is_file()
                {
                    failures.push(format!(
                        "{file} {}: {} {} is missing",
                        f.id, pair[0], pair[1]
                    ));
                }
            }
        }
    }
    assert_none_fail("name a missing input", &failures);
}

#[test]
fn every_expected_output_passes_the_strict_check() {
    let mut failures = Vec::new();
    for file in SUITES {
        let suite = suite(file);
        for f in &suite.fixtures {
            let stdout = f
                .expected_output
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default();
            let problems = f.check(
                f.expected_exit_code,
                &stdout,
                suite.prefix(),
                Strictness::Strict,
            );
            if !problems.is_empty() {
                failures.push(format!("{file} {}: {}", f.id, problems.join("; ")));
            }
        }
    }
    assert_none_fail("fail on their own expected output", &failures);
}
