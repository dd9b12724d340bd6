//! What the sealed suite's tally says about the seal record's expected tests, as warnings: the
//! listed tests that did not run, results the record does not list, and (issue 35) results
//! that name their tests another way than the record, so that "all missing, all unlisted" is
//! said as what it is, with what to do.

use gapscore_core::{Code, Tally};

use crate::suite::Diagnostic;

/// The first few items of a list, for a one-line message.
fn preview(items: &[String]) -> String {
    let shown: Vec<&str> = items.iter().take(5).map(String::as_str).collect();
    match items.len() {
        n if n > 5 => format!("{} and {} more", shown.join(", "), n - 5),
        _ => shown.join(", "),
    }
}

/// The warnings about the seal record's expected tests, in the order they are shown.
pub(crate) fn notes(sealed: &Tally) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if !sealed.missing.is_empty() {
        out.push(Diagnostic::warning(
            Code::ExpectedTestsMissing,
            format!(
                "{} expected sealed test{} did not run (each counted as failed): {}",
                sealed.missing.len(),
                if sealed.missing.len() == 1 { "" } else { "s" },
                preview(&sealed.missing)
            ),
        ));
    }
    if !sealed.unexpected.is_empty() {
        out.push(Diagnostic::warning(Code::UnexpectedSealedResults, format!(
            "{} passing sealed result{} for tests the seal record does not list (renamed or injected; not counted): {}",
            sealed.unexpected.len(),
            if sealed.unexpected.len() == 1 {
                " is"
            } else {
                "s are"
            },
            preview(&sealed.unexpected)
        )));
    }
    if !sealed.unexpected_failed.is_empty() {
        out.push(Diagnostic::warning(Code::UnexpectedSealedResults, format!(
            "{} failing sealed result{} for tests the seal record does not list (a hook, a whole file or a renamed test; each counted as failed): {}",
            sealed.unexpected_failed.len(),
            if sealed.unexpected_failed.len() == 1 {
                " is"
            } else {
                "s are"
            },
            preview(&sealed.unexpected_failed)
        )));
    }
    for (a, b) in sealed.manifest_key_collisions() {
        out.push(Diagnostic::warning(
            Code::ListedIdsCollide,
            format!(
                "the seal record lists `{a}` and `{b}`, which pytest's JUnit XML names alike: a JUnit result for either is matched to neither (score pytest-json or reportlog results, which keep node ids)"
            ),
        ));
    }
    let unlisted: Vec<String> = sealed
        .unexpected
        .iter()
        .chain(&sealed.unexpected_failed)
        .cloned()
        .collect();
    if let Some(listed) = sealed.manifest_ids()
        && sealed.listing_unmatched()
    {
        out.push(Diagnostic::warning(
            Code::IdsDoNotMatch,
            format!(
                "none of the {} sealed results is a test the seal record lists: the record names tests like {}, these results like {}; the record was made from another format or directory: seal with `seal --expect` on results in the format you score, or score the format the record was made from",
                unlisted.len(),
                preview(&listed.iter().take(2).map(|i| format!("`{i}`")).collect::<Vec<_>>()),
                preview(&unlisted.iter().take(2).map(|i| format!("`{i}`")).collect::<Vec<_>>()),
            ),
        ));
    }
    out
}
