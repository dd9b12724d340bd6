//! `gapscore explain`: the registry entry of a code (`gapscore_model::codes`): what went wrong
//! and what to do. `--list` lists every code; `--markdown` prints the registry as docs/codes.md
//! holds it (generated from here, and compared by a test).

use anyhow::Result;
use gapscore_core::ProblemKind;
use gapscore_core::codes::{Code, REGISTRY};
use gapscore_engine::ExitCode;

use crate::args::ExplainArgs;
use crate::io;

/// Prints the entry, the list or the Markdown; an unknown code is exit 2 with a suggestion.
pub fn run(args: &ExplainArgs) -> Result<ExitCode> {
    if args.markdown {
        io::write_output(None, &markdown())?;
        return Ok(ExitCode::Ok);
    }
    if args.list {
        io::write_output(None, &list())?;
        return Ok(ExitCode::Ok);
    }
    let asked = args.code.as_deref().unwrap_or("");
    match lookup(asked) {
        Some(code) => {
            io::write_output(None, &entry(code))?;
            Ok(ExitCode::Ok)
        }
        None => {
            let hint = match nearest(asked) {
                Some(c) => format!("did you mean `{c}` ({})? ", c.title()),
                None => String::new(),
            };
            io::error(&format!(
                "unknown code `{asked}`; {hint}`gapscore explain --list` lists every code"
            ));
            Ok(ExitCode::Error)
        }
    }
}

/// A code as written, or the code of a problem kind named as in JSON (`missing-results`).
fn lookup(asked: &str) -> Option<Code> {
    asked.parse().ok().or_else(|| {
        ProblemKind::ALL
            .iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(asked.trim()))
            .map(|k| k.code())
    })
}

/// The code nearest to a mistyped one: at most two edits away.
fn nearest(asked: &str) -> Option<Code> {
    let asked = asked.trim().to_ascii_uppercase();
    Code::all()
        .map(|c| (edits(&asked, c.as_str()), c))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance, over bytes (codes are ASCII).
fn edits(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// One code's entry, as `explain CODE` prints it.
fn entry(code: Code) -> String {
    let e = code.entry();
    let mut out = format!("{code}: {}\n", e.title);
    out.push_str(&format!("  raised by: {}\n", e.source));
    out.push_str(&format!("  what to do: {}\n", e.what_to_do));
    if let Some(kind) = ProblemKind::ALL.iter().find(|k| k.code() == code) {
        out.push_str(&format!("  problem kind: `{kind}`\n"));
    }
    out
}

/// Every code with its title, one a line.
fn list() -> String {
    REGISTRY
        .iter()
        .map(|e| format!("{}  {}\n", e.code, e.title))
        .collect()
}

/// The registry as Markdown: docs/codes.md.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Codes\n\n\
         <!-- Generated from the registry (model/src/codes.rs) by `gapscore explain --markdown`; \
         cli/src/commands/explain.rs compares it, `GAPSCORE_UPDATE_DOCS=1 cargo test -p gapscore \
         --lib explain` rewrites it. -->\n\n\
         Everything a user can see go wrong has a stable code: a run-level problem (`P`), a \
         warning (`W0` the reading seam's, `W1` a reader's, `W2` the engine's or the seal's), an \
         error (`E`), a reason a report is advisory (`A`) and a refused score (`R`). Reports \
         carry them (`code` on each problem, `gapscore.warning_codes`, `warning_counts[].code`, \
         `gapscore.advisory_reasons[].code`), and so do `gapscore parse`'s runs and NDJSON \
         records; grouping and batch decide on them, never on the wording. \
         `gapscore explain CODE` prints one entry.\n\n\
         A plugin warns with a code through `EventSink::coded_warning` (the C ABI's \
         `warning_coded`, the process protocol's `code` field); a code this gapscore does not \
         know, or a warning without one, is read as `W001`, its message kept.\n",
    );
    let sections = [
        ('P', "Problems"),
        ('W', "Warnings"),
        ('E', "Errors"),
        ('A', "Advisory reasons"),
        ('R', "Refusals"),
    ];
    for (letter, title) in sections {
        out.push_str(&format!(
            "\n## {title}\n\n| Code | Raised by | What went wrong | What to do |\n|---|---|---|---|\n"
        ));
        for e in REGISTRY
            .iter()
            .filter(|e| e.code.as_str().starts_with(letter))
        {
            let kind = ProblemKind::ALL
                .iter()
                .find(|k| k.code() == e.code)
                .map(|k| format!(" (`{k}`)"))
                .unwrap_or_default();
            out.push_str(&format!(
                "| `{}`{kind} | {} | {} | {} |\n",
                e.code,
                e.source,
                e.title.replace('|', "\\|"),
                e.what_to_do.replace('|', "\\|")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_problem_kinds_are_found_and_typos_get_a_suggestion() {
        assert_eq!(lookup("w101"), Some(Code::DeclaredCountMismatch));
        assert_eq!(lookup("missing-results"), Some(Code::MissingResults));
        assert_eq!(lookup("nothing"), None);
        assert_eq!(nearest("W1011"), Some(Code::DeclaredCountMismatch));
        assert_eq!(nearest("completely different"), None);
        assert!(entry(Code::MissingResults).contains("problem kind: `missing-results`"));
    }

    #[test]
    fn docs_codes_md_is_the_registry() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/codes.md");
        let want = markdown();
        if std::env::var_os("GAPSCORE_UPDATE_DOCS").is_some() {
            std::fs::write(path, &want).expect("write docs/codes.md");
            return;
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "docs/codes.md is not the registry: run `GAPSCORE_UPDATE_DOCS=1 cargo test -p gapscore --lib explain`"
        );
        // Every code is in it, once.
        for c in Code::all() {
            assert_eq!(have.matches(&format!("| `{c}`")).count(), 1, "{c}");
        }
    }
}
