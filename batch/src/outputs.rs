//! The batch outputs, each a pure function of the rows (sorted by name), so a sharded run
//! merged gives byte for byte what a single run gives: `results.ndjson`, `summary.csv`,
//! `summary.md`, `aggregate.json` and `report.html` ([`write_outputs`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use gapscore_core::{Level, Threshold, Verdict};
use serde::{Deserialize, Serialize};

use crate::BatchError;
use crate::row::{RepoRow, repositories};
use gapscore_engine::fs::write_atomic;

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
    write("summary.csv", csv(rows))?;
    write("summary.md", markdown(rows, &agg))?;
    let mut a = serde_json::to_string_pretty(&agg).unwrap_or_default();
    a.push('\n');
    write("aggregate.json", a)?;
    write("report.html", html(rows, &agg, timestamp))?;
    Ok(agg)
}

/// One JSON object per line.
pub fn ndjson(rows: &[RepoRow]) -> String {
    let mut s = String::new();
    for r in rows {
        if let Ok(line) = serde_json::to_string(r) {
            s.push_str(&line);
            s.push('\n');
        }
    }
    s
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

fn opt_num(x: Option<u64>) -> String {
    x.map(|n| n.to_string()).unwrap_or_default()
}

fn problem_list(r: &RepoRow) -> String {
    let mut kinds: Vec<String> = r
        .problems
        .iter()
        .map(|p| format!("{}:{}", p.role, p.kind))
        .collect();
    kinds.dedup();
    kinds.join(" ")
}

/// `summary.csv`: one row per repository.
pub fn csv(rows: &[RepoRow]) -> String {
    let mut s = String::from(
        "name,score,level,sealed_total,sealed_passed,sealed_failed,open_total,open_passed,open_failed,advisory,problems,error\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&r.name),
            r.score.map(|x| format!("{x:.1}")).unwrap_or_default(),
            r.level.map(Level::as_str).unwrap_or_default(),
            opt_num(r.sealed.map(|c| c.total)),
            opt_num(r.sealed.map(|c| c.passed)),
            opt_num(r.sealed.map(|c| c.failed)),
            opt_num(r.open.map(|c| c.total)),
            opt_num(r.open.map(|c| c.passed)),
            opt_num(r.open.map(|c| c.failed)),
            if r.error.is_some() {
                ""
            } else if r.advisory {
                "true"
            } else {
                "false"
            },
            csv_field(&problem_list(r)),
            csv_field(r.error.as_deref().unwrap_or("")),
        );
    }
    s
}

fn md_cell(s: &str) -> String {
    md_short(s).replace('|', "\\|")
}

/// One line, at most 160 characters.
fn md_short(s: &str) -> String {
    let one_line: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let short: String = one_line.chars().take(160).collect();
    if one_line.chars().count() > 160 {
        format!("{short}…")
    } else {
        short
    }
}

/// A repository name in Markdown: every character Markdown or HTML would read as markup is
/// escaped, so a name shows as it is and cannot inject a link, an image or a tag.
fn md_name(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in md_short(s).chars() {
        match c {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            '\\' | '|' | '`' | '*' | '_' | '[' | ']' | '~' => {
                o.push('\\');
                o.push(c);
            }
            c => o.push(c),
        }
    }
    o
}

/// Other text in a Markdown cell (reasons, problems): HTML tags cannot get through.
fn md_text(s: &str) -> String {
    md_cell(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn stat(x: Option<f64>) -> String {
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
        agg.scored,
        agg.errors,
        agg.advisory
    );
    s.push_str("| Level | Repositories |\n|---|---:|\n");
    for (level, n) in agg.levels.pairs() {
        let _ = writeln!(s, "| {} {} | {n} |", level.indicator(), level.title());
    }
    if agg.advisory > 0 {
        let _ = writeln!(s, "| ⚠️ Advisory (level not counted) | {} |", agg.advisory);
    }
    if agg.errors > 0 {
        let _ = writeln!(s, "| ⚠️ Error | {} |", agg.errors);
    }
    let _ = writeln!(
        s,
        "\nMean {}, median {}, p90 {}.",
        stat(agg.mean),
        stat(agg.median),
        stat(agg.p90)
    );
    if let (Some(t), Some(n)) = (agg.threshold, agg.over_threshold) {
        let _ = writeln!(s, "{n} above the threshold of {t}.");
    }
    if !agg.worst.is_empty() {
        s.push_str("\n### Highest scores\n\n| Repository | Score | Level | Sealed failed | Problems |\n|---|---:|---|---:|---|\n");
        for w in &agg.worst {
            let row = rows.iter().find(|r| r.name == w.name);
            let _ = writeln!(
                s,
                "| {} | {:.1} | {} | {} | {} |",
                md_name(&w.name),
                w.score,
                if row.is_some_and(|r| r.advisory) {
                    format!("⚠️ {}, advisory", w.level.as_str())
                } else {
                    format!("{} {}", w.level.indicator(), w.level.as_str())
                },
                row.and_then(|r| r.sealed)
                    .map(|c| format!("{}/{}", c.failed, c.total))
                    .unwrap_or_default(),
                md_text(&row.map(problem_list).unwrap_or_default()),
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
                md_name(&r.name),
                md_text(r.error.as_deref().unwrap_or(""))
            );
        }
        if errors.len() > 20 {
            let _ = writeln!(s, "\n… and {} more (see summary.csv).", errors.len() - 20);
        }
    }
    s
}

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

fn level_color(l: Option<Level>) -> &'static str {
    match l {
        Some(Level::Perfect) => "#2e7d32",
        Some(Level::Minor) => "#7cb342",
        Some(Level::Moderate) => "#fbc02d",
        Some(Level::Significant) => "#f57c00",
        Some(Level::Critical) => "#c62828",
        None => "#757575",
    }
}

/// The histogram, one bar per level (their boundaries: 0, 15, 30, 50) and one for the error
/// rows, each in its level's colour.
const BARS: [(&str, Option<Level>); 6] = [
    ("0", Some(Level::Perfect)),
    ("≤15", Some(Level::Minor)),
    ("≤30", Some(Level::Moderate)),
    ("≤50", Some(Level::Significant)),
    (">50", Some(Level::Critical)),
    ("error", None),
];

fn histogram(rows: &[RepoRow]) -> [u64; 6] {
    let mut bins = [0u64; 6];
    for r in rows {
        let level = if r.is_scored() { r.level } else { None };
        if let Some(i) = BARS.iter().position(|(_, l)| *l == level) {
            bins[i] += 1;
        }
    }
    bins
}

fn svg(rows: &[RepoRow]) -> String {
    let bins = histogram(rows);
    let max = bins.iter().copied().max().unwrap_or(0).max(1);
    let (w, h, left, bottom, bar) = (720u64, 260u64, 40u64, 40u64, 100u64);
    let mut s = format!(
        "<svg id=\"distribution\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"score distribution\">\n"
    );
    let plot = h - bottom - 20;
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#999\"/>",
        h - bottom,
        w - 10,
        h - bottom
    );
    for (i, (n, (label, level))) in bins.iter().zip(BARS).enumerate() {
        let color = level_color(level);
        let name = level.map_or("error", Level::as_str);
        let bh = n * plot / max;
        let x = left + i as u64 * (bar + 12);
        let y = h - bottom - bh;
        let _ = writeln!(
            s,
            "<rect class=\"bar\" x=\"{x}\" y=\"{y}\" width=\"{bar}\" height=\"{bh}\" fill=\"{color}\"><title>{} ({name}): {}</title></rect>",
            esc(label),
            repositories(*n)
        );
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{n}</text>",
            x + bar / 2,
            y.saturating_sub(4)
        );
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{} {name}</text>",
            x + bar / 2,
            h - bottom + 16,
            esc(label)
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">Gap Score (%)</text>\n</svg>",
        w / 2,
        h - 6
    );
    s
}

/// A repository name in a link to `reports/<name>.json`: everything but unreserved characters
/// percent-encoded.
fn url_path(name: &str) -> String {
    let mut o = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            o.push(char::from(b));
        } else {
            let _ = write!(o, "%{b:02X}");
        }
    }
    o
}

const SCRIPT: &str = r#"
(function () {
  var table = document.getElementById('repos');
  var heads = table.tHead.rows[0].cells;
  for (var i = 0; i < heads.length; i++) {
    (function (col) {
      heads[col].addEventListener('click', function () {
        var asc = heads[col].getAttribute('aria-sort') !== 'ascending';
        for (var j = 0; j < heads.length; j++) heads[j].removeAttribute('aria-sort');
        heads[col].setAttribute('aria-sort', asc ? 'ascending' : 'descending');
        var num = heads[col].getAttribute('data-type') === 'num';
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col].getAttribute('data-v'), y = b.cells[col].getAttribute('data-v');
          var c;
          if (num) { c = (x === '' ? -1 : parseFloat(x)) - (y === '' ? -1 : parseFloat(y)); }
          else { c = x < y ? -1 : x > y ? 1 : 0; }
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    })(i);
  }
  document.body.setAttribute('data-ready', String(table.tBodies[0].rows.length));
})();
"#;

/// `report.html`: one self-contained page (no network): the distribution as inline SVG, the
/// counts per level, and every repository in a table sortable by clicking a column head.
/// The footer says which version wrote the page and when the batch ran (its report
/// timestamp).
pub fn html(rows: &[RepoRow], agg: &Aggregate, timestamp: Option<&str>) -> String {
    let mut s = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n<title>Gap Score batch</title>\n<style>\nbody{font-family:system-ui,sans-serif;margin:2em;color:#222}\ntable{border-collapse:collapse}\nth,td{border:1px solid #ccc;padding:2px 8px;text-align:left}\nth{cursor:pointer;background:#eee}\nth[aria-sort=ascending]::after{content:' ▲'}\nth[aria-sort=descending]::after{content:' ▼'}\ntd.num{text-align:right}\n.err{color:#c62828}\n</style>\n</head>\n<body>\n",
    );
    let _ = writeln!(
        s,
        "<h1>Gap Score batch: {}</h1>\n<p>{} scored, {} could not be scored, {} advisory. Mean {}, median {}, p90 {}.</p>",
        repositories(agg.repos),
        agg.scored,
        agg.errors,
        agg.advisory,
        stat(agg.mean),
        stat(agg.median),
        stat(agg.p90)
    );
    if let (Some(t), Some(n)) = (agg.threshold, agg.over_threshold) {
        let _ = writeln!(
            s,
            "<p id=\"threshold\">Threshold {t}: {} above it.</p>",
            repositories(n)
        );
    }
    s.push_str(&svg(rows));
    s.push_str("<h2>Levels</h2>\n<table id=\"levels\"><thead><tr><th>Level</th><th>Repositories</th></tr></thead><tbody>\n");
    for (level, n) in agg.levels.pairs() {
        let _ = writeln!(
            s,
            "<tr><td><span style=\"color:{}\">■</span> {}</td><td class=\"num\">{n}</td></tr>",
            level_color(Some(level)),
            level.title()
        );
    }
    let _ = writeln!(
        s,
        "<tr><td>Advisory (level not counted)</td><td class=\"num\">{}</td></tr>",
        agg.advisory
    );
    let _ = writeln!(
        s,
        "<tr><td>Error</td><td class=\"num\">{}</td></tr>\n</tbody></table>",
        agg.errors
    );
    s.push_str("<h2>Repositories</h2>\n<table id=\"repos\"><thead><tr><th data-type=\"text\">Repository</th><th data-type=\"num\">Score</th><th data-type=\"text\">Level</th><th data-type=\"num\">Sealed failed</th><th data-type=\"num\">Sealed total</th><th data-type=\"num\">Open total</th><th data-type=\"text\">Advisory</th><th data-type=\"text\">Problems / error</th></tr></thead>\n<tbody>\n");
    for r in rows {
        let score = r.score.map(|x| format!("{x:.1}")).unwrap_or_default();
        let level = r.level.map(Level::as_str).unwrap_or("error");
        let note = match &r.error {
            Some(e) => format!("<span class=\"err\">{}</span>", esc(e)),
            None => esc(&problem_list(r)),
        };
        let sealed_failed = opt_num(r.sealed.map(|c| c.failed));
        let sealed_total = opt_num(r.sealed.map(|c| c.total));
        let open_total = opt_num(r.open.map(|c| c.total));
        let advisory = if r.advisory { "yes" } else { "" };
        let _ = writeln!(
            s,
            "<tr><td data-v=\"{n}\">{link}</td><td class=\"num\" data-v=\"{score}\">{score}</td><td data-v=\"{level}\" style=\"color:{color}\">{level}</td><td class=\"num\" data-v=\"{sealed_failed}\">{sealed_failed}</td><td class=\"num\" data-v=\"{sealed_total}\">{sealed_total}</td><td class=\"num\" data-v=\"{open_total}\">{open_total}</td><td data-v=\"{advisory}\">{advisory}</td><td data-v=\"{notev}\">{note}</td></tr>",
            n = esc(&r.name),
            link = if r.is_scored() {
                format!(
                    "<a href=\"reports/{}.json\">{}</a>",
                    url_path(&r.name),
                    esc(&r.name)
                )
            } else {
                esc(&r.name)
            },
            color = level_color(r.level),
            notev = esc(r.error.as_deref().unwrap_or(&problem_list(r))),
        );
    }
    s.push_str("</tbody></table>\n<script>");
    s.push_str(SCRIPT);
    s.push_str("</script>\n");
    let _ = writeln!(
        s,
        "<footer><p>Written by gapscore {}{}.</p></footer>",
        env!("CARGO_PKG_VERSION"),
        timestamp.map_or(String::new(), |t| format!("; batch run at {}", esc(t)))
    );
    s.push_str("</body>\n</html>\n");
    s
}
