//! The seal records judged like any input (issue 33): their excludes must leave the sealed
//! tests in the hash, nothing may lie under the excluded paths, the sealed directory holds
//! regular files only, and what the records say (expected tests, spec ambiguity, author
//! families) is held against what the report says. The claims table ([`crate::claims`]) walks
//! these checks.

use std::collections::BTreeSet;

use gapscore_core::fold::{fold, name_fold};
use gapscore_seal::dir_hash::SealedFile;
use gapscore_seal::record::{SealRecord, likely_harmless};
use gapscore_seal::verify::{excludes_problem, verify};
use serde_json::Value;

use crate::checker::Checker;
use crate::numbers::Written;
use crate::rules;

/// At most this many names are shown in one message.
const SHOWN: usize = 3;

fn shown(list: &[String]) -> String {
    let mut s = list
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if list.len() > SHOWN {
        s.push_str(&format!(", and {} more", list.len() - SHOWN));
    }
    s
}

/// The §4.6.2 ratio `n / total` as a report may write it: a rounding of the exact ratio at the
/// precision it is written with, at least the three decimals the record keeps (`0` is no
/// writing of 0.25, though it is a rounding of it), or the exact value with fewer (`0.25`,
/// `0.5`, `0`).
fn ratio_written(w: Written, n: u64, total: u64) -> bool {
    let (num, den) = (i128::from(n), i128::from(total));
    let exact = 10i128
        .checked_pow(w.decimals)
        .and_then(|p| num.checked_mul(p))
        .zip(w.mantissa.checked_mul(den))
        .is_some_and(|(scaled, m)| scaled == m);
    exact || (w.decimals >= 3 && w.rounds(num, den))
}

impl Checker<'_> {
    /// Every seal record given, with the files of its directory as read now (read without
    /// excludes; empty without `--sealed-dir`) and a name for messages.
    fn seal_records(&self) -> Vec<(String, &SealRecord, &[SealedFile])> {
        let mut out = Vec::new();
        if let Some(r) = &self.evidence.seal {
            let files = self
                .evidence
                .sealed_dir
                .as_ref()
                .map(|d| d.files.as_slice())
                .unwrap_or_default();
            out.push(("the seal record".to_owned(), r, files));
        }
        if let Some(c) = &self.evidence.combined {
            for (dir, r, files) in &c.suite_records {
                out.push((
                    format!("the seal record of suite `{dir}`"),
                    r,
                    files.as_slice(),
                ));
            }
        }
        out
    }

    /// A record whose excludes leave out every file, or every test file, seals nothing.
    pub(crate) fn claim_excludes(&mut self) {
        let problems: Vec<String> = self
            .seal_records()
            .into_iter()
            .filter_map(|(name, r, files)| {
                excludes_problem(r, files).map(|p| format!("{name}: {p}"))
            })
            .collect();
        for p in problems {
            self.err(&rules::SEAL_EXCLUDES, "/report/sealed_hash", p);
        }
    }

    /// Files under the paths a record excludes: a tool's cache is a warning, anything else an
    /// error (the seal cannot show such a file was not read or run). A record whose excludes
    /// cover the tests is `seal.excludes`' finding, not this one's.
    pub(crate) fn claim_excluded_present(&mut self) {
        let mut found: Vec<(String, Vec<String>, Vec<String>)> = Vec::new();
        for (name, r, files) in self.seal_records() {
            if files.is_empty() || excludes_problem(r, files).is_some() {
                continue;
            }
            let present = verify(r, files).excluded_present;
            let (harmless, other): (Vec<String>, Vec<String>) = present
                .into_iter()
                .partition(|p| likely_harmless(p).is_some());
            found.push((name, harmless, other));
        }
        for (name, harmless, other) in found {
            if !other.is_empty() {
                self.err(
                    &rules::SEAL_EXCLUDED_PRESENT,
                    "/report/sealed_hash",
                    format!(
                        "{} file{} under the paths {name} excludes ({}): the seal does not cover them, so it cannot show they were not read or run",
                        other.len(),
                        if other.len() == 1 { " lies" } else { "s lie" },
                        shown(&other)
                    ),
                );
            }
            if !harmless.is_empty() {
                self.warn(
                    &rules::SEAL_EXCLUDED_PRESENT,
                    "/report/sealed_hash",
                    format!(
                        "{} file{} that tools create under the paths {name} excludes ({})",
                        harmless.len(),
                        if harmless.len() == 1 {
                            " lies"
                        } else {
                            "s lie"
                        },
                        shown(&harmless)
                    ),
                );
            }
        }
    }

    /// FIFOs, sockets and devices in the sealed directory: no bytes to hash, and reading one
    /// gives whatever its writer says at the time.
    pub(crate) fn claim_regular_files(&mut self) {
        let Some(dir) = &self.evidence.sealed_dir else {
            return;
        };
        if dir.special.is_empty() {
            return;
        }
        let named: Vec<String> = dir
            .special
            .iter()
            .map(|(p, kind)| format!("{p} ({kind})"))
            .collect();
        let msg = format!(
            "`{}` holds {} entr{} that {} not a regular file ({}): a seal covers regular files only, so the directory can be neither sealed nor verified",
            dir.given,
            named.len(),
            if named.len() == 1 { "y" } else { "ies" },
            if named.len() == 1 { "is" } else { "are" },
            shown(&named)
        );
        self.err(&rules::SEAL_NOT_REGULAR, "/report/sealed_hash", msg);
    }

    /// The expected tests of the records given (a single record's, or a combined record's
    /// suites' merged), with where they come from.
    fn expected_tests(&self) -> Option<(&'static str, &[String])> {
        if let Some(e) = self
            .evidence
            .seal
            .as_ref()
            .and_then(|r| r.expected_tests.as_ref())
        {
            return Some(("the seal record", e));
        }
        self.evidence
            .combined
            .as_ref()
            .and_then(|c| c.expected_tests.as_deref())
            .map(|e| ("the combined seal's records", e))
    }

    /// A record that expects N sealed tests: the report's counts are the arithmetic gapscore's
    /// scoring does under the record (I7). Every expected test counts once (a missing one as
    /// failed), a skip the operator's `--skipped exclude` left out is not counted (as the
    /// report's `gapscore` extension records them), a passing test the record does not list
    /// never counts, and a failure that names no expected test (an unexpected failing result,
    /// a run-level problem entry, a repeat the runner gave) adds to the total, as it can only
    /// make the score worse. This half: the tests not failed and the excluded skips are at most
    /// N, and exactly N when the report lists no failures to account for the rest.
    pub(crate) fn claim_expected_total(&mut self) {
        if let Some(p) = self
            .evidence
            .combined
            .as_ref()
            .and_then(|c| c.expected_tests_problem.clone())
        {
            self.err(
                &rules::SEAL_EXPECTED_TESTS,
                "/sealed_tests/total",
                format!("the combined seal's expected tests cannot be held against the report's counts: {p}"),
            );
            return;
        }
        let (Some((from, expected)), Some(sealed)) = (self.expected_tests(), self.sealed) else {
            return;
        };
        let n = expected.len() as u64;
        let excluded = self.excluded_skips();
        let not_failed = sealed.total.saturating_sub(sealed.failed);
        let listed = self
            .root
            .get("failures")
            .and_then(Value::as_array)
            .is_some();
        if not_failed + excluded > n {
            self.err(
                &rules::SEAL_EXPECTED_TESTS,
                "/sealed_tests/total",
                format!(
                    "the report counts {} sealed tests, {not_failed} of them not failed{}, but {from} expects {n}: scored under the record, a test it does not list counts only when it fails",
                    sealed.total,
                    excluded_note(excluded)
                ),
            );
        } else if !listed && sealed.total + excluded != n {
            self.err(
                &rules::SEAL_EXPECTED_TESTS,
                "/sealed_tests/total",
                format!(
                    "the report counts {} sealed tests{}, but {from} expects {n}, and it lists no failures that could account for the difference",
                    sealed.total,
                    excluded_note(excluded)
                ),
            );
        }
    }

    /// The other half of [`Self::claim_expected_total`]: the expected tests the failures name
    /// (each once, through the identity fold; a name may carry or drop the file or class part)
    /// make up the rest, so not failed + expected tests failed + excluded skips = N. A failure
    /// naming no expected test is counted in the total, not forbidden.
    pub(crate) fn claim_expected_names(&mut self) {
        let (Some((from, expected)), Some(sealed)) = (self.expected_tests(), self.sealed) else {
            return;
        };
        let Some(failures) = self.root.get("failures").and_then(Value::as_array) else {
            return;
        };
        let n = expected.len() as u64;
        let excluded = self.excluded_skips();
        let not_failed = sealed.total.saturating_sub(sealed.failed);
        if not_failed + excluded > n {
            // Already the total's finding.
            return;
        }
        let folded: Vec<String> = expected.iter().map(|e| fold(e)).collect();
        let failed_expected: BTreeSet<String> = failures
            .iter()
            .filter_map(|f| f.get("test_name").and_then(Value::as_str))
            .map(fold)
            .filter(|name| !name.is_empty() && folded.iter().any(|e| same_test(e, name)))
            .collect();
        let k = failed_expected.len() as u64;
        if not_failed + k + excluded != n {
            self.err(
                &rules::SEAL_EXPECTED_TESTS,
                "/sealed_tests/total",
                format!(
                    "{from} expects {n} tests, but the report's {not_failed} test{} not failed and the {k} expected test{} its failures name{} make {}: scored under the record, every expected test counts once, failed or not",
                    if not_failed == 1 { "" } else { "s" },
                    if k == 1 { "" } else { "s" },
                    excluded_note(excluded),
                    not_failed + k + excluded
                ),
            );
        }
    }

    /// The skips the report says the operator's `--skipped exclude` left out of the sealed
    /// counts (`gapscore.sealed_excluded` under `gapscore.status_policy.skipped: exclude`);
    /// 0 otherwise.
    fn excluded_skips(&self) -> u64 {
        if !self.skips_excluded() {
            return 0;
        }
        self.root
            .get("gapscore")
            .and_then(|g| g.get("sealed_excluded"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    }

    /// The report was scored under `--skipped exclude` (`gapscore.status_policy.skipped`): a
    /// sealed test skipped in one cycle is not counted in it, so totals may differ by cycle.
    pub(crate) fn skips_excluded(&self) -> bool {
        self.root
            .get("gapscore")
            .and_then(|g| g.pointer("/status_policy/skipped"))
            .and_then(Value::as_str)
            == Some("exclude")
    }

    /// The combined record's spec ambiguity is the report's: the report's value is a rounding
    /// of the exact ratio of the record's counts at the precision it is written with (the
    /// record's own `value` is held against its counts by the seal crate: a record whose value
    /// is not its counts' ratio does not hold).
    pub(crate) fn claim_ambiguity(&mut self) {
        let Some((a, counts)) = self
            .evidence
            .combined
            .as_ref()
            .and_then(|c| c.spec_ambiguity.map(|a| (a, c.spec_ambiguity_counts)))
        else {
            return;
        };
        let reported = self.meta_get("spec_ambiguity").and_then(Value::as_f64);
        let holds = match (reported, counts) {
            (Some(r), Some((n, total))) if total > 0 => self
                .written("/report/spec_ambiguity", r)
                .is_some_and(|w| ratio_written(w, n, total)),
            (Some(r), _) => crate::numbers::same(r, a),
            (None, _) => false,
        };
        if holds {
            return;
        }
        let said = match reported {
            Some(r) => format!("reports a spec ambiguity of {r}"),
            None => "reports no spec ambiguity".to_owned(),
        };
        let computed = match counts {
            Some((n, total)) => format!("{n} / {total} ({a})"),
            None => a.to_string(),
        };
        self.err(
            &rules::SEAL_AMBIGUITY,
            "/report/spec_ambiguity",
            format!(
                "the report {said}, but the combined seal record computed {computed} (§4.6.2): a reported ratio is a rounding of the exact one"
            ),
        );
    }

    /// Every entry under the sealed directory lies in a suite of the combined seal (its records
    /// aside): what lies elsewhere is neither hashed nor scanned, so the seal cannot vouch for
    /// it. A warning, not an error: the directory a combined record's suites are relative to
    /// is usually the project's (`--sealed-dir .`, as `seal --combine` made the record there),
    /// which holds the implementation and the reports as well, and no reader can tell a suite
    /// left out from them. A directory holding the suites only shows a suite left out.
    pub(crate) fn claim_covered(&mut self) {
        let Some(c) = &self.evidence.combined else {
            return;
        };
        let (harmless, other): (Vec<String>, Vec<String>) = c
            .uncovered
            .iter()
            .cloned()
            .partition(|p| likely_harmless(p).is_some());
        let dir = self
            .evidence
            .sealed_dir
            .as_ref()
            .map(|d| d.given.clone())
            .unwrap_or_default();
        if !other.is_empty() {
            self.warn(
                &rules::SEAL_UNCOVERED,
                "/report/sealed_hash",
                format!(
                    "{} entr{} under the sealed directory `{dir}` lie{} in none of the combined seal's suites ({}): neither hashed nor scanned for sealed source",
                    other.len(),
                    if other.len() == 1 { "y" } else { "ies" },
                    if other.len() == 1 { "s" } else { "" },
                    shown(&other)
                ),
            );
        }
        if !harmless.is_empty() {
            self.warn(
                &rules::SEAL_UNCOVERED,
                "/report/sealed_hash",
                format!(
                    "{} file{} that tools create under the sealed directory `{dir}`, in none of the combined seal's suites ({})",
                    harmless.len(),
                    if harmless.len() == 1 { "" } else { "s" },
                    shown(&harmless)
                ),
            );
        }
    }

    /// The seal author families reported are the records' (as a set, through the identity
    /// fold); a record's family that is the implementer's is named as such.
    pub(crate) fn claim_families(&mut self) {
        let recorded: Vec<String> = match (&self.evidence.combined, &self.evidence.seal) {
            (Some(c), _) => c.families.clone(),
            (None, Some(r)) => r.author_family.iter().cloned().collect(),
            (None, None) => return,
        };
        if recorded.is_empty() {
            return;
        }
        let Some(reported) = self
            .meta_get("seal_author_families")
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
        else {
            return;
        };
        let set = |l: &[String]| l.iter().map(|f| name_fold(f)).collect::<BTreeSet<String>>();
        if set(&reported) == set(&recorded) {
            return;
        }
        let implementer = self
            .meta_get("implementer_family")
            .and_then(Value::as_str)
            .map(name_fold);
        let hidden: Vec<String> = recorded
            .iter()
            .filter(|f| !set(&reported).contains(&name_fold(f)))
            .map(|f| {
                if implementer.as_deref() == Some(name_fold(f).as_str()) {
                    format!("`{f}` (the implementer's family)")
                } else {
                    format!("`{f}`")
                }
            })
            .collect();
        let mut msg = format!(
            "the report names the seal author families {}, but the seal records name {}",
            quoted(&reported),
            quoted(&recorded)
        );
        if !hidden.is_empty() {
            msg.push_str(&format!("; not reported: {}", hidden.join(", ")));
        }
        self.err(&rules::SEAL_FAMILIES, "/report/seal_author_families", msg);
    }
}

fn quoted(list: &[String]) -> String {
    list.iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Two folded test names name one test: equal, or one is the other with a leading part
/// (`file::`, `Class.`, `dir/`) dropped.
/// `, and N skips excluded` when the operator excluded some.
fn excluded_note(excluded: u64) -> String {
    if excluded == 0 {
        String::new()
    } else {
        format!(
            " and {excluded} skip{} excluded (`--skipped exclude`)",
            if excluded == 1 { "" } else { "s" }
        )
    }
}

fn same_test(a: &str, b: &str) -> bool {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    long == short
        || long.strip_suffix(short).is_some_and(|head| {
            head.ends_with("::")
                || head.ends_with('.')
                || head.ends_with('/')
                || head.ends_with('>')
        })
}

#[cfg(test)]
mod tests {
    use super::same_test;

    #[test]
    fn test_names_match_with_or_without_their_file() {
        assert!(same_test("tests/test_a.py::test_x", "test_x"));
        assert!(same_test("test_x", "test_x"));
        assert!(same_test("suite.test_x", "test_x"));
        assert!(!same_test("tests/test_a.py::test_x", "test_y"));
        assert!(!same_test("test_xy", "y"));
    }
}
