//! Markdown: the report fit for a pull-request comment, and the escaping every Markdown output
//! uses.

use std::fmt::Write as _;

use super::github::{LEGACY_MARK, ZERO_WIDTH_SPACE, inert_plain, text_reads_command};
use super::headline::{advisory_head, provenance_line, score_text};
use super::numbers::{grouped, grouped_usize, natural_cmp};
use super::text::cut;
use super::{MARKDOWN_LIMIT, RenderOptions, Sink, to_string};
use crate::failures::Failure;
use crate::level::Level;
use crate::report::{Dialect, GapReport};
use gapscore_model::Category;

/// Text someone else chose (a failure message, expected and actual values, a suite name, a
/// reason) as Markdown that renders as that text and nothing else: inline markup (emphasis,
/// links, images, strikethrough, code, HTML, table pipes) is escaped, line breaks become
/// `<br>`, and a character that would open a block at the start of a line (a heading, a list,
/// a setext underline; a quote's `>` is an entity already) is escaped too, so the text can stand at the start of a
/// paragraph. One line of Markdown whatever the input.
fn cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let first = s.trim_start_matches([' ', '\t']);
    let lead = s.len() - first.len();
    out.push_str(&s[..lead]);
    if let Some(c) = first.chars().next()
        && (matches!(c, '#' | '+' | '-' | '=' | ':')
            || (c.is_ascii_digit()
                && first
                    .trim_start_matches(|d: char| d.is_ascii_digit())
                    .starts_with(['.', ')'])))
    {
        // A digit is escaped by escaping what follows its digits; the others themselves.
        if c.is_ascii_digit() {
            let digits = first.len() - first.trim_start_matches(|d: char| d.is_ascii_digit()).len();
            out.push_str(&first[..digits]);
            out.push('\\');
            return inline(&first[digits..], out);
        }
        out.push('\\');
    }
    inline(first, out)
}

/// [`cell`]'s escaping of inline markup, appended to `out`.
fn inline(s: &str, mut out: String) -> String {
    for c in s.chars() {
        match c {
            '\n' => out.push_str("<br>"),
            '\r' => {}
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '|' | '`' | '*' | '_' | '[' | ']' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Text as a Markdown code span, which shows it as it is: one line, between backtick fences
/// longer than any backtick run inside (backslashes are not escapes in a code span, so the
/// fence is the only way to keep a backtick in), padded when it starts or ends with one.
fn code_span(s: &str) -> String {
    let one_line: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut longest = 0;
    let mut run = 0;
    for c in one_line.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest + 1);
    let pad = if one_line.starts_with('`') || one_line.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{one_line}{pad}{fence}")
}

/// A name (a repository's) for a one-line Markdown table cell: every character Markdown or HTML
/// would read as markup is escaped, so a name shows as it is and cannot inject a link, an image
/// or a tag. One line, at most 160 characters.
pub fn name_cell(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in short_line(s).chars() {
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

/// Other text (a reason, a list of problems) for a one-line Markdown table cell: the cell
/// cannot be broken out of and HTML tags cannot get through. One line, at most 160 characters.
pub fn text_cell(s: &str) -> String {
    cell(&short_line(s))
}

/// One line (control characters become spaces), at most 160 characters.
fn short_line(s: &str) -> String {
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

/// A fenced block whose fence is longer than any backtick run inside, so content cannot break out.
fn fenced(s: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}text\n{}\n{fence}\n", s.trim_end_matches('\n'))
}

/// Markdown made inert to GitHub's runner (which reads a line starting with `::` after white
/// space, or holding `##[`, as a workflow command) and rendered the same: outside code a
/// leading `::` becomes `\::` and `##[` becomes `##\[` (backslash escapes Markdown drops);
/// inside code (fenced blocks, code spans), where backslashes show, a U+200B ZERO WIDTH SPACE
/// goes between the two `:` or the two `#` ([`inert_plain`]). Markdown with nothing the runner
/// reads is returned as it is. Applying it twice changes nothing more.
pub fn inert_markdown(text: &str) -> std::borrow::Cow<'_, str> {
    if !text_reads_command(text) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut fence: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let body = line.trim_start();
        let ticks = body.bytes().take_while(|&b| b == b'`').count();
        match fence {
            Some(n) if ticks >= n && body[ticks..].trim().is_empty() => fence = None,
            Some(_) => {}
            None if ticks >= 3 => fence = Some(ticks),
            None => {
                prose_line(line, &mut out);
                continue;
            }
        }
        out.push_str(&inert_plain(line));
    }
    out.into()
}

/// One Markdown line outside fenced blocks: backslash escapes in text, U+200B in code spans.
fn prose_line(line: &str, out: &mut String) {
    let mut span: Option<usize> = None;
    let mut line_start = true;
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if line_start && rest.starts_with("::") {
            if span.is_some() {
                out.push(':');
                out.push(ZERO_WIDTH_SPACE);
            } else {
                out.push('\\');
                out.push(':');
            }
            rest = &rest[1..];
            line_start = false;
            continue;
        }
        if rest.starts_with(LEGACY_MARK) {
            if span.is_some() {
                out.push('#');
                out.push(ZERO_WIDTH_SPACE);
                rest = &rest[1..];
            } else {
                out.push_str("##\\[");
                rest = &rest[3..];
            }
            line_start = false;
            continue;
        }
        if c == '\\' && span.is_none() && rest[1..].starts_with('`') {
            out.push_str("\\`");
            rest = &rest[2..];
            line_start = false;
            continue;
        }
        if c == '`' {
            let n = rest.bytes().take_while(|&b| b == b'`').count();
            span = match span {
                Some(open) if open == n => None,
                Some(open) => Some(open),
                None if closes(&rest[n..], n) => Some(n),
                None => None,
            };
            out.push_str(&rest[..n]);
            rest = &rest[n..];
            line_start = false;
            continue;
        }
        out.push(c);
        line_start = c == '\r' || (line_start && c.is_whitespace());
        rest = &rest[c.len_utf8()..];
    }
}

/// Whether a backtick run of exactly `n` follows in `rest` (closing a code span opened by one).
fn closes(rest: &str, n: usize) -> bool {
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            let run = b[i..].iter().take_while(|&&x| x == b'`').count();
            if run == n {
                return true;
            }
            i += run;
        } else {
            i += 1;
        }
    }
    false
}

/// [`inert_markdown`] of an owned text, without a copy when nothing needs breaking.
fn inert_owned(text: String) -> String {
    if text_reads_command(&text) {
        inert_markdown(&text).into_owned()
    } else {
        text
    }
}

/// Markdown: headline with score and level, counts, suites table, failures with
/// expected/actual, and the category comparison when open results were given.
pub fn render_markdown(report: &GapReport) -> String {
    to_string(|s| markdown_into(report, &RenderOptions::default(), s))
}

/// Markdown: a name (suite, test, id) is cut after this many bytes.
const NAME_CUT: usize = 300;
/// Markdown: a message or advisory reason is cut after this many bytes.
const TEXT_CUT: usize = 2_000;
/// Markdown: an expected or actual value is cut after this many bytes.
const CELL_CUT: usize = 500;
/// Markdown: rows of a list (suites, flaky, duplicate and unexpected ids) shown at most.
const LIST_ROWS: usize = 50;
/// Markdown: bytes for the `<details>` block that counts the failures not shown.
const OMITTED_BUDGET: usize = 8_000;
/// Markdown: distinct suites counted apart in that block (more are counted together).
const SUITE_GROUPS: usize = 10_000;

/// The report's title and its score line: the least a Markdown report says.
fn markdown_headline(report: &GapReport, out: &mut Sink<'_>) {
    let dialect = report.dialect();
    let name = dialect.score_name();
    let level = report.report.level;
    let report_name = match dialect {
        Dialect::Gap => "Gap Report",
        Dialect::Shadow | Dialect::Both => "Shadow Report",
    };
    let _ = writeln!(out, "# {report_name}\n");
    let mark =
        advisory_head(report).unwrap_or_else(|| format!("{} {}", level.indicator(), level.title()));
    let _ = writeln!(out, "**{name}: {}%** {mark}\n", score_text(report));
}

fn markdown_head(report: &GapReport, out: &mut Sink<'_>) {
    let level = report.report.level;
    markdown_headline(report, out);
    if let Some(p) = provenance_line(report) {
        let _ = writeln!(out, "{}\n", cell(&p));
    }
    if let Some(reason) = &report.report.advisory_reason {
        let _ = writeln!(
            out,
            "> [!WARNING]\n> **Advisory:** {}\n",
            cell(&cut(reason, TEXT_CUT))
        );
    }
    if let Some(g) = report.gapscore.as_ref().and_then(|e| e.gate.as_ref()) {
        let mark = match g.verdict {
            crate::report::Verdict::Passed => "✅",
            _ => "❌",
        };
        let _ = writeln!(
            out,
            "**Gate:** {mark} {} · {}\n",
            g.verdict,
            cell(&g.reason)
        );
    }
    if level != Level::Perfect
        && report.sealed_tests.failed > 0
        && report.score_value() == Some(0.0)
    {
        let exact = report.gapscore.as_ref().map_or(0.0, |e| e.score_exact);
        let _ = writeln!(
            out,
            "_The score rounds to 0.0 but is {exact:.4}%: {} of {} sealed tests failed._\n",
            grouped(report.sealed_tests.failed),
            grouped(report.sealed_tests.total)
        );
    }

    let _ = writeln!(out, "| Suite | Total | Passed | Failed |");
    let _ = writeln!(out, "|---|---:|---:|---:|");
    let s = &report.sealed_tests;
    let _ = writeln!(
        out,
        "| Sealed | {} | {} | {} |",
        grouped(s.total),
        grouped(s.passed),
        grouped(s.failed)
    );
    if let Some(o) = &report.open_tests {
        let _ = writeln!(
            out,
            "| Open | {} | {} | {} |",
            grouped(o.total),
            grouped(o.passed),
            grouped(o.failed)
        );
    }
    out.push('\n');

    let mut meta = Vec::new();
    if let Some(id) = &report.report.id {
        meta.push(format!("Run {}", code_span(&cut(id, NAME_CUT))));
    }
    if let Some(spec) = &report.report.specification {
        meta.push(format!("specification {}", code_span(&cut(spec, NAME_CUT))));
    }
    if let Some(h) = &report.report.sealed_hash {
        meta.push(format!("sealed hash {}", code_span(h)));
    }
    match report.report.seal_broken {
        Some(false) => meta.push("seal verified".to_owned()),
        Some(true) => meta.push("**seal broken**".to_owned()),
        None => {}
    }
    if !meta.is_empty() {
        let _ = writeln!(out, "{}\n", meta.join(" · "));
    }

    if let Some(ext) = &report.gapscore
        && (ext.suites.len() > 1 || ext.suites.values().any(|c| c.failed > 0))
    {
        let _ = writeln!(out, "## Sealed suites\n");
        let _ = writeln!(out, "| Suite | Total | Passed | Failed |");
        let _ = writeln!(out, "|---|---:|---:|---:|");
        // The suites that failed most first, then by name as people count (suite2 before
        // suite10): the rows a reader needs stay within the first LIST_ROWS.
        let mut suites: Vec<_> = ext.suites.iter().collect();
        suites.sort_by(|(a, x), (b, y)| y.failed.cmp(&x.failed).then_with(|| natural_cmp(a, b)));
        for (suite, c) in suites.into_iter().take(LIST_ROWS) {
            let mark = if c.failed > 0 { "❌" } else { "✅" };
            let _ = writeln!(
                out,
                "| {mark} {} | {} | {} | {} |",
                cell(&cut(suite, NAME_CUT)),
                grouped(c.total),
                grouped(c.passed),
                grouped(c.failed)
            );
        }
        if ext.suites.len() > LIST_ROWS {
            let _ = writeln!(
                out,
                "\n_{} more suites are not shown here; the JSON report counts every one._",
                grouped_usize(ext.suites.len() - LIST_ROWS)
            );
        }
        out.push('\n');
    }
}

/// The failures section: entries in full while they fit in `budget` bytes (and within
/// `--max-failures`), then the rest counted per suite inside `<details>`.
fn markdown_failures(report: &GapReport, opts: &RenderOptions, budget: usize, out: &mut Sink<'_>) {
    let total = report.failures.len();
    if total == 0 {
        return;
    }
    let _ = writeln!(out, "## Failures ({})\n", grouped_usize(total));
    let max = opts.max_failures.unwrap_or(usize::MAX);
    let mut used = 0;
    let mut shown = 0;
    for f in report.failures.iter().take(max) {
        let entry = inert_owned(failure_entry(&f));
        if used + entry.len() > budget {
            break;
        }
        used += entry.len();
        out.push_str(&entry);
        shown += 1;
    }
    if shown == total {
        return;
    }
    let why = if shown == max {
        format!("`--max-failures {max}`")
    } else {
        format!("GitHub's limit of {MARKDOWN_LIMIT} characters for a comment or job summary")
    };
    let _ = writeln!(
        out,
        "_{} more failure{} not shown in full ({why}); the JSON report lists every one._\n",
        grouped_usize(total - shown),
        if total - shown == 1 { " is" } else { "s are" }
    );
    omitted_by_suite(report, shown, out);
}

/// The suite a failure entry counts under in the omitted-failures table: the part of its
/// name before the last `::`, or the run-level problems together.
fn suite_of(f: &Failure) -> &str {
    if f.problem.is_some() {
        return "(run-level problems)";
    }
    f.test_name
        .rsplit_once("::")
        .map_or("(no suite)", |(suite, _)| suite)
}

/// Failures past the first `shown`, counted per suite (most first) in a `<details>` block of
/// at most [`OMITTED_BUDGET`] bytes.
fn omitted_by_suite(report: &GapReport, shown: usize, out: &mut Sink<'_>) {
    let mut counts: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
    let mut others = 0u64;
    for f in report.failures.iter().skip(shown) {
        let suite = suite_of(&f);
        if let Some(n) = counts.get_mut(suite) {
            *n += 1;
        } else if counts.len() < SUITE_GROUPS {
            counts.insert(suite.to_owned(), 1);
        } else {
            others += 1;
        }
    }
    let mut rows: Vec<(String, u64)> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let omitted = report.failures.len() - shown;
    let mut block = format!(
        "<details><summary>{} more failure{} in {} suite{}</summary>\n\n| Suite | Failures not shown |\n|---|---:|\n",
        grouped_usize(omitted),
        if omitted == 1 { "" } else { "s" },
        rows.len() + usize::from(others > 0),
        if rows.len() + usize::from(others > 0) == 1 {
            ""
        } else {
            "s"
        },
    );
    let mut rest = 0u64;
    let mut rest_suites = 0usize;
    for (suite, n) in rows {
        let row = format!("| {} | {} |\n", cell(&cut(&suite, NAME_CUT)), grouped(n));
        if rest_suites > 0 || block.len() + row.len() > OMITTED_BUDGET {
            rest += n;
            rest_suites += 1;
        } else {
            block.push_str(&row);
        }
    }
    if others > 0 || rest_suites > 0 {
        let _ = writeln!(
            block,
            "| _{} other suite{}_ | {} |",
            if others > 0 {
                "more".to_owned()
            } else {
                rest_suites.to_string()
            },
            if rest_suites == 1 && others == 0 {
                ""
            } else {
                "s"
            },
            rest + others
        );
    }
    block.push_str("\n</details>\n\n");
    out.push_str(&block);
}

/// One failure in full: heading, facts, message and expected/actual, long texts cut.
fn failure_entry(f: &Failure) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### ❌ {}\n", code_span(&cut(&f.test_name, NAME_CUT)));
    let mut facts = vec![format!("**Category:** {}", f.category)];
    if let Some(s) = f.status {
        facts.push(format!("**Status:** {s}"));
    }
    if let Some(p) = f.problem {
        facts.push(format!("**Problem:** {p}"));
    }
    let _ = writeln!(out, "{}\n", facts.join(" · "));
    if !f.message.is_empty() {
        let message = cut(&f.message, TEXT_CUT);
        if message.contains('\n') {
            out.push_str(&fenced(&message));
            out.push('\n');
        } else {
            let _ = writeln!(out, "{}\n", cell(&message));
        }
    }
    if !f.expected.is_empty() || !f.actual.is_empty() {
        let _ = writeln!(out, "| Expected | Actual |\n|---|---|");
        let _ = writeln!(
            out,
            "| {} | {} |\n",
            cell(&cut(&f.expected, CELL_CUT)),
            cell(&cut(&f.actual, CELL_CUT))
        );
    }
    out
}

/// Markdown: headline with score and level, counts, suites table, failures with
/// expected/actual, and the category comparison when open results were given; always within
/// [`MARKDOWN_LIMIT`].
pub(super) fn markdown_into(report: &GapReport, opts: &RenderOptions, out: &mut Sink<'_>) {
    // Every piece is made inert before it is measured, so the budget holds what is written.
    let head = inert_owned(to_string(|s| markdown_head(report, s)));
    let tail = inert_owned(to_string(|s| markdown_tail(report, s)));
    out.push_str(&head);
    let limit = opts
        .markdown_budget
        .map_or(MARKDOWN_LIMIT, |b| b.min(MARKDOWN_LIMIT));
    let budget = limit.saturating_sub(head.len() + tail.len() + OMITTED_BUDGET + 1024);
    let failures = to_string(|s| markdown_failures(report, opts, budget, s));
    out.push_str(&inert_markdown(&failures));
    out.push_str(&tail);
}

/// What closes a Markdown report cut to its headline or head to fit its budget.
const CUT_TO_FIT: &str = "_The rest of this report did not fit in the space left here (GitHub's limit of 65536 characters); the JSON report holds all of it._\n";

/// The Markdown report within `opts.markdown_budget` characters (default [`MARKDOWN_LIMIT`]),
/// for a file it is appended to (a job summary that must stay within the limit as a whole):
/// the whole report when it fits (its failures listed while they fit), else its head (score,
/// counts, suites) with a closing note, else its headline (title and score) with the note, else
/// `None`: even the headline does not fit, and nothing should be written.
pub fn markdown_within(report: &GapReport, opts: &RenderOptions) -> Option<String> {
    let limit = opts
        .markdown_budget
        .map_or(MARKDOWN_LIMIT, |b| b.min(MARKDOWN_LIMIT));
    let fits = |s: &String| s.chars().count() <= limit;
    let whole = to_string(|s| markdown_into(report, opts, s));
    if fits(&whole) {
        return Some(whole);
    }
    let head = inert_owned(to_string(|s| {
        markdown_head(report, s);
        s.push_str(CUT_TO_FIT);
    }));
    if fits(&head) {
        return Some(head);
    }
    let headline = inert_owned(to_string(|s| {
        markdown_headline(report, s);
        s.push_str(CUT_TO_FIT);
    }));
    fits(&headline).then_some(headline)
}

fn markdown_tail(report: &GapReport, out: &mut Sink<'_>) {
    if let Some(cc) = &report.coverage_comparison {
        let _ = writeln!(out, "## Coverage by category\n");
        let _ = writeln!(out, "| Category | Sealed | Open | Delta |");
        let _ = writeln!(out, "|---|---:|---:|---:|");
        let rows = [
            (Category::HappyPath, Some(cc.happy_path)),
            (Category::EdgeCase, Some(cc.edge_case)),
            (Category::ErrorHandling, Some(cc.error_handling)),
            (Category::Security, Some(cc.security)),
            (Category::Unknown, cc.unknown),
        ];
        for (cat, row) in rows {
            if let Some(r) = row {
                let _ = writeln!(out, "| {cat} | {} | {} | {:+} |", r.sealed, r.open, r.delta);
            }
        }
        out.push('\n');
        if let Some(d) = report.gapscore.as_ref().and_then(|e| e.coverage_delta) {
            let spec = [cc.happy_path, cc.edge_case, cc.error_handling, cc.security];
            let sealed = spec.iter().filter(|r| r.sealed > 0).count();
            let open = spec.iter().filter(|r| r.open > 0).count();
            let _ = writeln!(
                out,
                "Coverage delta (§3.5): |{sealed} categories tested by the sealed suite − {open} by the open suite| = {d}.\n"
            );
        }
    }

    if let Some(h) = &report.hardening {
        let _ = writeln!(out, "## Hardening loop\n");
        let initial = h.initial_shadow_score.or(h.initial_gap_score);
        let fin = h.final_shadow_score.or(h.final_gap_score);
        if let (Some(i), Some(f)) = (initial, fin) {
            let _ = writeln!(
                out,
                "{} of {} cycles: {i:.1} → {f:.1}{}.\n",
                h.cycles_completed,
                h.max_cycles,
                h.hardening_velocity
                    .map(|v| format!(", {v:.1} points per cycle"))
                    .unwrap_or_default()
            );
        }
        if !h.history.is_empty() {
            let _ = writeln!(
                out,
                "| Cycle | Failed | Score | Reveal |\n|---:|---:|---:|---|"
            );
            for c in &h.history {
                let _ = writeln!(
                    out,
                    "| {} | {}/{} | {:.1} | {} |",
                    c.cycle,
                    grouped(c.sealed_failed),
                    grouped(c.sealed_total),
                    c.score,
                    c.reveal.map(|r| r.to_string()).unwrap_or_default()
                );
            }
            out.push('\n');
        }
        if let Some(e) = &h.escalation {
            let _ = writeln!(out, "**{}**\n", cell(&cut(e, TEXT_CUT)));
        }
    }

    if let Some(ext) = &report.gapscore {
        if let Some(o) = &ext.overlap {
            let _ = writeln!(
                out,
                "## Overlap (approximate)\n\n{} of {} sealed tests have an open test with a similar name (ratio {:.2}, threshold {}).\n",
                o.matched, o.sealed_total, o.ratio, o.threshold
            );
        }
        if !ext.flaky.is_empty() {
            let _ = writeln!(out, "## Flaky sealed tests ({})\n", ext.flaky.len());
            id_list(&ext.flaky, out);
            out.push('\n');
        }
        if !ext.duplicates.is_empty() {
            let _ = writeln!(
                out,
                "## Duplicate sealed test ids ({})\n\nEach entry was counted separately.\n",
                ext.duplicates.len()
            );
            id_list(&ext.duplicates, out);
            out.push('\n');
        }
        if let Some(m) = &ext.manifest {
            let _ = writeln!(
                out,
                "## Expected sealed tests\n\n{} expected by the seal record; {} did not run (each counted as failed above).\n",
                m.expected,
                m.missing.len()
            );
            if !m.unexpected.is_empty() {
                let _ = writeln!(
                    out,
                    "Results for {} test{} the record does not list (renamed or injected; not counted):\n",
                    m.unexpected.len(),
                    if m.unexpected.len() == 1 { "" } else { "s" }
                );
                id_list(&m.unexpected, out);
                out.push('\n');
            }
        }
        let _ = writeln!(
            out,
            "<sub>{} · level decided on exact counts · skipped: {}, xfail: {}, flaky: {}</sub>",
            ext.tool, ext.status_policy.skipped, ext.status_policy.xfail, ext.status_policy.flaky
        );
    }
}

/// A bulleted list of ids, at most [`LIST_ROWS`] of them, each cut at [`NAME_CUT`] bytes.
fn id_list(ids: &[String], out: &mut Sink<'_>) {
    for id in ids.iter().take(LIST_ROWS) {
        let _ = writeln!(out, "- `{}`", cut(id, NAME_CUT).replace('`', "'"));
    }
    if ids.len() > LIST_ROWS {
        let _ = writeln!(
            out,
            "- … {} more (the JSON report lists every one)",
            ids.len() - LIST_ROWS
        );
    }
}

/// A refused score (no report): one line saying so, with the refusal's code and message.
pub(super) fn refused_into(code: gapscore_model::Code, message: &str, out: &mut Sink<'_>) {
    let _ = writeln!(
        out,
        "**gapscore refused the score** (`{code}`, no report was made): {}",
        text_cell(message)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_never_a_command_and_keeps_its_text() {
        let md = "::notice::x\n  ::error::y and ##[add-mask]z\n`a ##[b` c ##[d\n```text\n::stop-commands::t\n##[x]\n```\n| \\`##[q | r |\n";
        let inert = inert_markdown(md);
        assert!(!text_reads_command(&inert), "{inert}");
        assert_eq!(
            inert,
            "\\::notice::x\n  \\::error::y and ##\\[add-mask]z\n`a #\u{200B}#[b` c ##\\[d\n```text\n:\u{200B}:stop-commands::t\n#\u{200B}#[x]\n```\n| \\`##\\[q | r |\n"
        );
        assert_eq!(inert_markdown(&inert), inert);
        assert!(matches!(
            inert_markdown("a::b `#` [x]"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn fences_outgrow_backticks_inside() {
        assert_eq!(fenced("a ``` b"), "````text\na ``` b\n````\n");
        assert_eq!(fenced("plain"), "```text\nplain\n```\n");
    }

    #[test]
    fn cells_escape_table_breakers() {
        assert_eq!(cell("a|b\nc<d>"), "a\\|b<br>c&lt;d&gt;");
    }

    #[test]
    fn text_renders_as_text_never_as_markup() {
        // A forged headline and badge (attack i34 B, F6), a quote, a list, a link.
        assert_eq!(
            cell("# ✅ Shadow Score: 0 % ![b](https://x/y.svg)"),
            "\\# ✅ Shadow Score: 0 % \\!\\[b\\](https://x/y.svg)"
        );
        // `>` is an entity, which opens no quote.
        assert_eq!(cell("> quoted"), "&gt; quoted");
        assert_eq!(cell("- item"), "\\- item");
        assert_eq!(cell("12. item"), "12\\. item");
        assert_eq!(
            cell("a \\[x](y) *b* _c_ ~~d~~"),
            "a \\\\\\[x\\](y) \\*b\\* \\_c\\_ \\~\\~d\\~\\~"
        );
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x`"), "`` `x` ``");
        assert_eq!(code_span("a\nb"), "`a b`");
    }

    #[test]
    fn one_line_cells_cannot_break_out_or_inject_markup() {
        assert_eq!(
            name_cell("[x](y) <b>|*_~`\\"),
            "\\[x\\](y) &lt;b&gt;\\|\\*\\_\\~\\`\\\\"
        );
        assert_eq!(text_cell("a|b\n<i>&"), "a\\|b &lt;i&gt;&amp;");
        let long = "é".repeat(200);
        assert_eq!(text_cell(&long), format!("{}…", "é".repeat(160)));
    }
}
