//! `report.html`: one self-contained page (no network): the distribution as inline SVG, the
//! counts per level, and every repository in a table sortable by clicking a column head. A maud
//! template (`gapscore_core::render::html`), so every name and reason is escaped where it is
//! inserted.

use std::fmt::Write as _;

use gapscore_core::Level;
use gapscore_core::render::html::{level_color, self_contained_page};
use maud::{Markup, PreEscaped, html};

use super::{Aggregate, opt_num, problem_list, stat};
use crate::row::{RepoRow, repositories};
use gapscore_core::render::numbers::grouped;

const STYLE: &str = "\nbody{font-family:system-ui,sans-serif;margin:2em;color:#222}\ntable{border-collapse:collapse}\nth,td{border:1px solid #ccc;padding:2px 8px;text-align:left}\nth{cursor:pointer;background:#eee}\nth[aria-sort=ascending]::after{content:' ▲'}\nth[aria-sort=descending]::after{content:' ▼'}\ntd.num{text-align:right}\n.err{color:#c62828}\n";

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

/// The page. The footer says which version wrote it and when the batch ran (its report
/// timestamp).
pub(super) fn page(rows: &[RepoRow], agg: &Aggregate, timestamp: Option<&str>) -> String {
    let body = html! {
        h1 { "Gap Score batch: " (repositories(agg.repos)) } "\n"
        p {
            (grouped(agg.scored)) " scored, " (grouped(agg.errors)) " could not be scored, " (grouped(agg.advisory))
            " advisory. Mean " (stat(agg.mean)) ", median " (stat(agg.median)) ", p90 "
            (stat(agg.p90)) "."
        }
        "\n"
        @if let (Some(t), Some(n)) = (agg.threshold, agg.over_threshold) {
            p id="threshold" { "Threshold " (t) ": " (repositories(n)) " above it." } "\n"
        }
        (distribution(rows))
        h2 { "Levels" } "\n"
        table id="levels" {
            thead { tr { th { "Level" } th { "Repositories" } } }
            tbody {
                "\n"
                @for (level, n) in agg.levels.pairs() {
                    tr {
                        td { span style={ "color:" (level_color(Some(level))) } { "■" } " " (level.title()) }
                        td.num { (grouped(n)) }
                    }
                    "\n"
                }
                tr { td { "Advisory (level not counted)" } td.num { (grouped(agg.advisory)) } } "\n"
                tr { td { "Error" } td.num { (grouped(agg.errors)) } } "\n"
            }
        }
        "\n"
        h2 { "Repositories" } "\n"
        table id="repos" {
            thead {
                tr {
                    th data-type="text" { "Repository" }
                    th data-type="num" { "Score" }
                    th data-type="text" { "Level" }
                    th data-type="num" { "Sealed failed" }
                    th data-type="num" { "Sealed total" }
                    th data-type="num" { "Open total" }
                    th data-type="text" { "Advisory" }
                    th data-type="text" { "Problems / error" }
                }
            }
            "\n"
            tbody {
                "\n"
                @for r in rows { (repository_row(r)) "\n" }
            }
        }
        "\n"
        script { (PreEscaped(SCRIPT)) } "\n"
        footer {
            p {
                "Written by gapscore " (env!("CARGO_PKG_VERSION"))
                @if let Some(t) = timestamp { "; batch run at " (t) }
                "."
            }
        }
        "\n"
    };
    self_contained_page("Gap Score batch", STYLE, body)
}

/// A count cell's text as shown: grouped (`12,000`); its `data-v` keeps the plain number.
fn shown(plain: &str) -> String {
    plain
        .parse::<u64>()
        .map_or_else(|_| plain.to_owned(), grouped)
}

/// One repository's row; each cell's `data-v` is what the page's script sorts by.
fn repository_row(r: &RepoRow) -> Markup {
    let score = r.score.map(|x| format!("{x:.1}")).unwrap_or_default();
    let level = r.level.map(Level::as_str).unwrap_or("error");
    let sealed_failed = opt_num(r.sealed.map(|c| c.failed));
    let sealed_total = opt_num(r.sealed.map(|c| c.total));
    let open_total = opt_num(r.open.map(|c| c.total));
    let advisory = if r.advisory { "yes" } else { "" };
    let problems = problem_list(r);
    html! {
        tr {
            td data-v=(r.name) {
                @if r.is_scored() {
                    a href={ "reports/" (url_path(&r.name)) ".json" } { (r.name) }
                } @else {
                    (r.name)
                }
            }
            td.num data-v=(score) { (score) }
            td data-v=(level) style={ "color:" (level_color(r.level)) } { (level) }
            td.num data-v=(sealed_failed) { (shown(&sealed_failed)) }
            td.num data-v=(sealed_total) { (shown(&sealed_total)) }
            td.num data-v=(open_total) { (shown(&open_total)) }
            td data-v=(advisory) { (advisory) }
            td data-v=(r.error.as_deref().unwrap_or(&problems)) {
                @match &r.error {
                    Some(e) => span.err { (e) },
                    None => (problems),
                }
            }
        }
    }
}

/// The histogram as inline SVG, one bar per level and one for the error rows.
fn distribution(rows: &[RepoRow]) -> Markup {
    let bins = histogram(rows);
    let max = bins.iter().copied().max().unwrap_or(0).max(1);
    let (w, h, left, bottom, bar) = (720u64, 260u64, 40u64, 40u64, 100u64);
    let plot = h - bottom - 20;
    html! {
        svg id="distribution" xmlns="http://www.w3.org/2000/svg" width=(w) height=(h)
            viewBox={ "0 0 " (w) " " (h) } role="img" aria-label="score distribution" {
            "\n"
            // The axis as SVG writes an empty element, self-closed (maud has no syntax for
            // that, and `<line>` alone would leave the element open in SVG); numbers only.
            (PreEscaped(format!(
                "<line x1=\"{left}\" y1=\"{y}\" x2=\"{x2}\" y2=\"{y}\" stroke=\"#999\"/>",
                y = h - bottom,
                x2 = w - 10
            )))
            "\n"
            @for (i, (n, (label, level))) in bins.iter().zip(BARS).enumerate() {
                @let name = level.map_or("error", Level::as_str);
                @let bh = n * plot / max;
                @let x = left + i as u64 * (bar + 12);
                @let y = h - bottom - bh;
                rect.bar x=(x) y=(y) width=(bar) height=(bh) fill=(level_color(level)) {
                    title { (label) " (" (name) "): " (repositories(*n)) }
                }
                "\n"
                text x=(x + bar / 2) y=(y.saturating_sub(4)) font-size="12" text-anchor="middle" { (n) }
                "\n"
                text x=(x + bar / 2) y=(h - bottom + 16) font-size="12" text-anchor="middle" {
                    (label) " " (name)
                }
                "\n"
            }
            text x=(w / 2) y=(h - 6) font-size="12" text-anchor="middle" { "Gap Score (%)" }
            "\n"
        }
        "\n"
    }
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
