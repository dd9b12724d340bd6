//! The evidence table of docs/score.md ("Evidence beside the records: the worst wins"): every
//! row names a format, a piece of evidence, the code raised when it says worse than the records,
//! and an example file in the repository. Each example is scored with `--threshold 15`: it must
//! fail the gate (exit 1), be advisory, and hold a problem with the row's code. A row without an
//! example, or an example that does not exist, fails the test, so the table cannot promise what
//! the readers do not do.

use std::path::Path;

use crate::common::gate::{advisory, score_gate};

struct Row {
    line: usize,
    format: String,
    evidence: String,
    code: String,
    example: String,
}

/// The table's rows, read from docs/score.md.
fn rows() -> Vec<Row> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(root.join("docs/score.md")).unwrap();
    let start = doc
        .find("#### Evidence beside the records: the worst wins")
        .expect("the evidence section of docs/score.md");
    let first_line = doc[..start].lines().count();
    let mut rows = Vec::new();
    let mut in_table = false;
    for (i, line) in doc[start..].lines().enumerate() {
        if line.starts_with("| Format | Evidence |") {
            in_table = true;
            continue;
        }
        if !in_table || line.starts_with("|---") {
            continue;
        }
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(
            cells.len(),
            5,
            "docs/score.md:{}: five cells",
            first_line + i
        );
        let code = cells[3]
            .split(|c: char| !c.is_ascii_alphanumeric())
            .find(|w| {
                w.len() == 4 && w.starts_with('P') && w[1..].bytes().all(|b| b.is_ascii_digit())
            })
            .unwrap_or_else(|| {
                panic!(
                    "docs/score.md:{}: no P-code in `{}`",
                    first_line + i,
                    cells[3]
                )
            })
            .to_owned();
        let example = cells[4].trim_matches('`').to_owned();
        rows.push(Row {
            line: first_line + i,
            format: cells[0].to_owned(),
            evidence: cells[1].to_owned(),
            code,
            example,
        });
    }
    rows
}

#[test]
fn every_row_of_the_evidence_table_fails_the_gate_with_its_code() {
    let rows = rows();
    assert!(
        rows.len() >= 12,
        "the evidence table lists {} rows",
        rows.len()
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut wrong = Vec::new();
    for row in &rows {
        let path = root.join(&row.example);
        let at = format!(
            "docs/score.md:{} ({} / {}: {})",
            row.line, row.format, row.evidence, row.example
        );
        if !path.is_file() {
            wrong.push(format!("{at}: no such file"));
            continue;
        }
        let (dir, file) = (
            path.parent().unwrap(),
            path.file_name().unwrap().to_str().unwrap(),
        );
        let (code, r) = score_gate(dir, file, "15", false);
        let codes: Vec<&str> = r["gapscore"]["problems"]
            .as_array()
            .map(|ps| ps.iter().filter_map(|p| p["code"].as_str()).collect())
            .unwrap_or_default();
        if code != 1 || !advisory(&r) || !codes.contains(&row.code.as_str()) {
            wrong.push(format!(
                "{at}: exit {code}, advisory {}, problem codes {codes:?}; expected exit 1, advisory, {}",
                advisory(&r),
                row.code
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
