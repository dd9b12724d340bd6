//! The batch outputs, each a pure function of the rows (sorted by name), so a sharded run
//! merged gives byte for byte what a single run gives: `results.ndjson`, `summary.csv`,
//! `summary.md`, `aggregate.json` and `report.html` ([`write_outputs`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

use gapscore_core::render::csv::CsvTable;
use gapscore_core::render::markdown::{name_cell, text_cell};
use gapscore_core::{Level, Threshold, Verdict};
use serde::{Deserialize, Serialize};

use crate::BatchError;
use crate::row::{RepoRow, repositories};
use gapscore_core::render::numbers::{grouped, grouped_usize};
use gapscore_engine::fs::write_atomic;

mod html;

/// Repositories per level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LevelCounts {
    /// No sealed test failed.
    pub perfect: u64,
    /// Up to 15 %.
    pub minor: u64,
    /// Up to 30 %.
    pub moderate: u64,
    /// Up to 50 %.
    pub significant: u64,
    /// Above 50 %.
    pub critical: u64,
}

impl LevelCounts {
    fn add(&mut self, level: Level) {
        match level {
            Level::Perfect => self.perfect += 1,
            Level::Minor => self.minor += 1,
            Level::Moderate => self.moderate += 1,
            Level::Significant => self.significant += 1,
            Level::Critical => self.critical += 1,
        }
    }

    /// `(level, count)` from perfect to critical.
    pub fn pairs(&self) -> [(Level, u64); 5] {
        [
            (Level::Perfect, self.perfect),
            (Level::Minor, self.minor),
            (Level::Moderate, self.moderate),
            (Level::Significant, self.significant),
            (Level::Critical, self.critical),
        ]
    }
}

/// One of the worst repositories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Worst {
    /// The repository.
    pub name: String,
    /// Its score.
    pub score: f64,
    /// Its level.
    pub level: Level,
}

/// A category's failures across the batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CategoryFailures {
    /// Repositories with at least one failed sealed test in it.
    pub repos: u64,
    /// Failed sealed tests in it.
    pub failures: u64,
}

/// `aggregate.json`: the batch at a glance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Aggregate {
    /// Repositories in the batch (this shard's, for a shard).
    pub repos: u64,
    /// Scored.
    pub scored: u64,
    /// Could not be scored (error rows).
    pub errors: u64,
    /// Scored, with an advisory report.
    pub advisory: u64,
    /// Scored repositories per level, advisory ones left out: an advisory report's level is not
    /// a result (a zero-test repository would otherwise count as perfect); they are in `advisory`.
    pub levels: LevelCounts,
    /// Mean score (two decimals).
    pub mean: Option<f64>,
    /// Median score.
    pub median: Option<f64>,
    /// 90th percentile (nearest rank).
    pub p90: Option<f64>,
    /// The threshold, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// Repositories above it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_threshold: Option<u64>,
    /// Up to ten repositories with the highest scores above 0 (ties by name).
    pub worst: Vec<Worst>,
    /// Failed sealed tests per category.
    pub failing_categories: BTreeMap<String, CategoryFailures>,
    /// Repositories per run-level problem kind.
    pub problems: BTreeMap<String, u64>,
}

/// Aggregates rows sorted by name.
pub fn aggregate(rows: &[RepoRow], threshold: Option<Threshold>) -> Aggregate {
    let mut levels = LevelCounts::default();
    let mut scores = Vec::new();
    let mut failing_categories: BTreeMap<String, CategoryFailures> = BTreeMap::new();
    let mut problems: BTreeMap<String, u64> = BTreeMap::new();
    let (mut scored, mut advisory) = (0u64, 0u64);
    for r in rows.iter().filter(|r| r.is_scored()) {
        scored += 1;
        advisory += u64::from(r.advisory);
        if let Some(l) = r.level.filter(|_| !r.advisory) {
            levels.add(l);
        }
        scores.push(r.score.unwrap_or(0.0));
        for (cat, n) in &r.failing_categories {
            let e = failing_categories.entry(cat.clone()).or_default();
            e.repos += 1;
            e.failures = e.failures.saturating_add(*n);
        }
        let mut kinds: Vec<String> = r.problems.iter().map(|p| p.kind.to_string()).collect();
        kinds.sort();
        kinds.dedup();
        for k in kinds {
            *problems.entry(k).or_default() += 1;
        }
    }
    scores.sort_by(f64::total_cmp);
    let n = scores.len();
    let round2 = |x: f64| (x * 100.0).round() / 100.0;
    let mean = (n > 0).then(|| round2(scores.iter().sum::<f64>() / n as f64));
    let median = match n {
        0 => None,
        _ if n % 2 == 1 => scores.get(n / 2).copied(),
        _ => match (scores.get(n / 2 - 1), scores.get(n / 2)) {
            (Some(a), Some(b)) => Some(round2((a + b) / 2.0)),
            _ => None,
        },
    };
    let p90 = (n > 0)
        .then(|| scores.get((n * 9).div_ceil(10).saturating_sub(1)).copied())
        .flatten();
    let mut worst: Vec<&RepoRow> = rows
        .iter()
        .filter(|r| r.is_scored() && r.score_exact.unwrap_or(0.0) > 0.0)
        .collect();
    worst.sort_by(|a, b| {
        b.score_exact
            .unwrap_or(0.0)
            .total_cmp(&a.score_exact.unwrap_or(0.0))
            .then_with(|| a.name.cmp(&b.name))
    });
    Aggregate {
        repos: rows.len() as u64,
        scored,
        errors: rows.len() as u64 - scored,
        advisory,
        levels,
        mean,
        median,
        p90,
        threshold: threshold.map(Threshold::value),
        over_threshold: threshold.map(|t| {
            rows.iter()
                .filter(|r| r.gate_verdict(t, true) == Some(Verdict::Failed))
                .count() as u64
        }),
        worst: worst
            .into_iter()
            .take(10)
            .map(|r| Worst {
                name: r.name.clone(),
                score: r.score.unwrap_or(0.0),
                level: r.level.unwrap_or(Level::Perfect),
            })
            .collect(),
        failing_categories,
        problems,
    }
}

/// Writes every summary output into `out` (atomically, each file) and returns the aggregate.
pub fn write_outputs(
    out: &Path,
    rows: &[RepoRow],
    threshold: Option<Threshold>,
    timestamp: Option<&str>,
) -> Result<Aggregate, BatchError> {
    let agg = aggregate(rows, threshold);
    let write = |name: &str, text: String| {
        write_atomic(&out.join(name), true, &mut |w| w.write_all(text.as_bytes()))
            .map_err(BatchError::from)
    };
    write("results.ndjson", ndjson(rows))?;
    write_atomic(&out.join("summary.csv"), true, &mut |w| csv(rows, w))
        .map_err(BatchError::from)?;
    write(
        "summary.md",
        gapscore_core::render::markdown::inert_markdown(&markdown(rows, &agg)).into_owned(),
    )?;
    let mut a = gapscore_core::render::json::to_string_pretty(&agg).unwrap_or_default();
    a.push('\n');
    write("aggregate.json", a)?;
    write("report.html", html::page(rows, &agg, timestamp))?;
    Ok(agg)
}

/// One JSON object per line.
pub fn ndjson(rows: &[RepoRow]) -> String {
    let mut s = String::new();
    for r in rows {
        if let Ok(line) = gapscore_core::render::json::to_string_compact(r) {
            s.push_str(&line);
            s.push('\n');
        }
    }
    s
}

pub(crate) fn opt_num(x: Option<u64>) -> String {
    x.map(|n| n.to_string()).unwrap_or_default()
}

pub(crate) fn problem_list(r: &RepoRow) -> String {
    let mut kinds: Vec<String> = r
        .problems
        .iter()
        .map(|p| format!("{}:{}", p.role, p.kind))
        .collect();
    kinds.dedup();
    if !r.left_out.is_empty() {
        kinds.push(format!("left-out:{}", r.left_out.len()));
    }
    kinds.join(" ")
}

/// `summary.csv`: one row per repository.
pub fn csv(rows: &[RepoRow], out: &mut dyn io::Write) -> io::Result<()> {
    let mut table = CsvTable::new(
        out,
        [
            "name",
            "score",
            "level",
            "sealed_total",
            "sealed_passed",
            "sealed_failed",
            "open_total",
            "open_passed",
            "open_failed",
            "advisory",
            "problems",
            "error",
        ],
    )?;
    for r in rows {
        let advisory = if r.error.is_some() {
            ""
        } else if r.advisory {
            "true"
        } else {
            "false"
        };
        table.row([
            r.name.as_str(),
            &r.score.map(|x| format!("{x:.1}")).unwrap_or_default(),
            r.level.map(Level::as_str).unwrap_or_default(),
            &opt_num(r.sealed.map(|c| c.total)),
            &opt_num(r.sealed.map(|c| c.passed)),
            &opt_num(r.sealed.map(|c| c.failed)),
            &opt_num(r.open.map(|c| c.total)),
            &opt_num(r.open.map(|c| c.passed)),
            &opt_num(r.open.map(|c| c.failed)),
            advisory,
            &problem_list(r),
            r.error.as_deref().unwrap_or(""),
        ])?;
    }
    table.finish()
}

pub(crate) fn stat(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_owned(), |v| format!("{v:.1}"))
}

/// `summary.md`: levels, statistics, the worst repositories and the errors, short enough for a
/// pull-request comment or a CI job summary (the full table is `summary.csv`).
pub fn markdown(rows: &[RepoRow], agg: &Aggregate) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## Gap Score batch: {}\n\n{} scored, {} could not be scored, {} advisory.\n",
        repositories(agg.repos),
        grouped(agg.scored),
        grouped(agg.errors),
        grouped(agg.advisory)
    );
    s.push_str("| Level | Repositories |\n|---|---:|\n");
    for (level, n) in agg.levels.pairs() {
        let _ = writeln!(
            s,
            "| {} {} | {} |",
            level.indicator(),
            level.title(),
            grouped(n)
        );
    }
    if agg.advisory > 0 {
        let _ = writeln!(
            s,
            "| ⚠️ Advisory (level not counted) | {} |",
            grouped(agg.advisory)
        );
    }
    if agg.errors > 0 {
        let _ = writeln!(s, "| ⚠️ Error | {} |", grouped(agg.errors));
    }
    let _ = writeln!(
        s,
        "\nMean {}, median {}, p90 {}.",
        stat(agg.mean),
        stat(agg.median),
        stat(agg.p90)
    );
    if let (Some(t), Some(n)) = (agg.threshold, agg.over_threshold) {
        let _ = writeln!(s, "{} above the threshold of {t}.", grouped(n));
    }
    if !agg.worst.is_empty() {
        s.push_str("\n### Highest scores\n\n| Repository | Score | Level | Sealed failed | Problems |\n|---|---:|---|---:|---|\n");
        for w in &agg.worst {
            let row = rows.iter().find(|r| r.name == w.name);
            let _ = writeln!(
                s,
                "| {} | {:.1} | {} | {} | {} |",
                name_cell(&w.name),
                w.score,
                if row.is_some_and(|r| r.advisory) {
                    format!("⚠️ {}, advisory", w.level.as_str())
                } else {
                    format!("{} {}", w.level.indicator(), w.level.as_str())
                },
                row.and_then(|r| r.sealed)
                    .map(|c| format!("{}/{}", grouped(c.failed), grouped(c.total)))
                    .unwrap_or_default(),
                text_cell(&row.map(problem_list).unwrap_or_default()),
            );
        }
    }
    let errors: Vec<&RepoRow> = rows.iter().filter(|r| r.error.is_some()).collect();
    if !errors.is_empty() {
        s.push_str("\n### Could not be scored\n\n| Repository | Reason |\n|---|---|\n");
        for r in errors.iter().take(20) {
            let _ = writeln!(
                s,
                "| {} | {} |",
                name_cell(&r.name),
                text_cell(r.error.as_deref().unwrap_or(""))
            );
        }
        if errors.len() > 20 {
            let _ = writeln!(
                s,
                "\n… and {} more (see summary.csv).",
                grouped_usize(errors.len() - 20)
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Test code.

    use super::*;

    #[test]
    fn a_name_or_reason_with_commas_quotes_or_line_breaks_stays_one_csv_field() {
        let rows = [RepoRow::error("a,\"b\"", "line 1\nline 2")];
        let mut out = Vec::new();
        csv(&rows, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let record = text.lines().skip(1).collect::<Vec<_>>().join("\n");
        assert_eq!(record, "\"a,\"\"b\"\"\",,,,,,,,,,,\"line 1\nline 2\"");
    }

    #[test]
    fn report_html_escapes_names_and_reasons() {
        let rows = [RepoRow::error(
            "<script>x()</script>",
            "bad \"<b>\" & worse",
        )];
        let agg = aggregate(&rows, None);
        let page = html::page(&rows, &agg, Some("<t>"));
        assert!(!page.contains("<script>x()"), "{page}");
        assert!(page.contains("&lt;script&gt;x()&lt;/script&gt;"));
        assert!(page.contains("<span class=\"err\">bad &quot;&lt;b&gt;&quot; &amp; worse</span>"));
        assert!(page.contains("batch run at &lt;t&gt;."));
        assert_eq!(
            page.matches("<script>").count(),
            1,
            "only the page's own script"
        );
    }
}
