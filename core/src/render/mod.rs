//! Every writer of a gapscore output, one module per format: [`json`] (reports, and test results
//! streamed a test at a time for `parse`), [`ndjson`] (`parse`'s event lines), [`summary`] (the
//! reference validators' text), [`markdown`] (reports, and the escaping the batch's `summary.md`
//! uses), [`csv`] (through the `csv` crate), [`html`] (maud templates, escaped at compile
//! time), [`reward`] (a benchmark harness's `reward.json`), [`github_output`] (step outputs
//! for `$GITHUB_OUTPUT`), [`github`] (workflow commands: annotations) and [`junit`] (the scored
//! sealed suite as JUnit XML). A format's escaping rules live in its module and nowhere else. Two writers live
//! elsewhere on purpose: the checker's text (`gapscore-check`, over its own types) and the CTRF
//! writer (beside the CTRF reader, whose status mapping it shares).
//!
//! A [`GapReport`] is rendered with [`render`] or streamed with [`render_to`]; what a format
//! needs beyond the report (the listing of every sealed test for JUnit, the workspace that
//! annotation paths are relative to) comes in a [`RenderContext`] through [`render_scored_to`].

use std::fmt;

use crate::listing::TestListing;
use crate::report::GapReport;
use crate::report::StepVerdict;

pub mod csv;
pub mod github;
pub mod github_output;
mod headline;

pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod ndjson;
pub mod numbers;
pub mod reward;
pub mod summary;
mod text;

pub use json::render_json;
pub use markdown::render_markdown;
pub use summary::{SUMMARY_MESSAGE_CAP, render_summary};

/// Output formats of a report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OutputFormat {
    /// Pretty JSON, 2-space indent, trailing newline.
    #[default]
    Json,
    /// Markdown for humans.
    Markdown,
    /// The reference validators' summary lines.
    Summary,
    /// A benchmark harness's `reward.json` (Harbor): `reward` = 1 − score/100, 0 when advisory.
    Reward,
    /// `key=value` step outputs for `$GITHUB_OUTPUT`.
    GithubOutput,
    /// GitHub Actions workflow commands: annotations.
    Github,
    /// The scored sealed suite as JUnit XML.
    Junit,
}

impl std::str::FromStr for OutputFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "json" => Ok(OutputFormat::Json),
            "markdown" | "md" => Ok(OutputFormat::Markdown),
            "summary" => Ok(OutputFormat::Summary),
            "reward" => Ok(OutputFormat::Reward),
            "github-output" => Ok(OutputFormat::GithubOutput),
            "github" => Ok(OutputFormat::Github),
            "junit" => Ok(OutputFormat::Junit),
            other => Err(format!(
                "invalid format `{other}` (expected one of: json, markdown, summary, reward, github-output, github, junit)"
            )),
        }
    }
}

/// Renders a report in the given format.
pub fn render(report: &GapReport, format: OutputFormat) -> String {
    match format {
        OutputFormat::Json => render_json(report),
        OutputFormat::Markdown => render_markdown(report),
        OutputFormat::Summary => render_summary(report),
        OutputFormat::Reward => reward::render_reward(report),
        OutputFormat::GithubOutput => github_output::render_github_output(report),
        OutputFormat::Github | OutputFormat::Junit => {
            let mut buf = Vec::new();
            // Writing to a `Vec` cannot fail.
            let _ = render_to(report, format, &mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        }
    }
}

/// How the human formats (Markdown, summary) are cut to fit where they go. JSON is never cut:
/// §5.2 asks it to list every failed sealed test, and `gapscore check` holds a report to that.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenderOptions {
    /// List at most this many failures in full; the rest are counted (per suite in Markdown).
    pub max_failures: Option<usize>,
    /// Markdown: the most characters it may take (default [`MARKDOWN_LIMIT`]); less when it is
    /// appended to a file that already holds some (a job summary), so the whole stays within
    /// the limit. See [`markdown::markdown_within`].
    pub markdown_budget: Option<usize>,
    /// GitHub: write at most this many error annotations (default
    /// [`github::DEFAULT_MAX_ANNOTATIONS`]); a last notice counts the rest.
    pub max_annotations: Option<usize>,
}

impl RenderOptions {
    /// Options that list at most `max_failures` failures in full.
    pub fn with_max_failures(max_failures: Option<usize>) -> Self {
        RenderOptions {
            max_failures,
            ..RenderOptions::default()
        }
    }

    /// These options with the Markdown held to at most `chars` characters.
    #[must_use]
    pub fn markdown_budget(self, chars: usize) -> Self {
        RenderOptions {
            markdown_budget: Some(chars),
            ..self
        }
    }

    /// These options with at most `n` error annotations (`None`: the default).
    #[must_use]
    pub fn max_annotations(self, n: Option<usize>) -> Self {
        RenderOptions {
            max_annotations: n,
            ..self
        }
    }
}

/// What a format needs beyond the report: the engine's listing of the sealed tests that did
/// not fail (JUnit lists every sealed test; see
/// [`Tally::list_tests`](crate::Tally::list_tests)), and the workspace that annotation paths are
/// made relative to (GitHub's `$GITHUB_WORKSPACE`). Formats that need neither ignore it.
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct RenderContext<'a> {
    /// The sealed tests that did not fail, when the engine listed them.
    pub listing: Option<&'a TestListing>,
    /// The repository's root, for annotation paths.
    pub workspace: Option<&'a str>,
    /// The engine's final word (one decision with the exit code: a hardening escalation fails
    /// a score the gate passed); `None`: the gate's verdict in the report
    /// ([`StepVerdict::of_report`]).
    pub verdict: Option<StepVerdict>,
}

impl<'a> RenderContext<'a> {
    /// A context with a listing (when there is one) and a workspace (when known).
    pub fn new(listing: Option<&'a TestListing>, workspace: Option<&'a str>) -> Self {
        RenderContext {
            listing,
            workspace,
            verdict: None,
        }
    }

    /// The context with the engine's verdict (`github-output`'s `verdict`).
    #[must_use]
    pub fn with_verdict(self, verdict: StepVerdict) -> Self {
        RenderContext {
            verdict: Some(verdict),
            ..self
        }
    }
}

/// GitHub's limit on a pull-request comment or a job summary, in characters. The Markdown
/// report stays below it whatever the report holds: failures past the budget are counted per
/// suite instead of listed, and long texts and lists are cut with a note.
pub const MARKDOWN_LIMIT: usize = 65_536;

/// Writes a report in the given format as it is produced, reading a spilled failure list back
/// entry by entry, so a report with a million failures is never held whole in any format.
pub fn render_to(
    report: &GapReport,
    format: OutputFormat,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    render_to_with(report, format, &RenderOptions::default(), out)
}

/// [`render_to`] with [`RenderOptions`] for the human formats (ignored for JSON).
pub fn render_to_with(
    report: &GapReport,
    format: OutputFormat,
    opts: &RenderOptions,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    render_scored_to(report, &RenderContext::default(), format, opts, out)
}

/// [`render_to_with`] with what the engine gave beside the report ([`RenderContext`]).
pub fn render_scored_to(
    report: &GapReport,
    ctx: &RenderContext<'_>,
    format: OutputFormat,
    opts: &RenderOptions,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        OutputFormat::Json => {
            json::to_writer(out, report)?;
            out.write_all(b"\n")?;
            out.flush()
        }
        OutputFormat::Markdown => streamed(out, |s| markdown::markdown_into(report, opts, s)),
        OutputFormat::Summary => streamed(out, |s| summary::summary_into(report, opts, s)),
        OutputFormat::Reward => streamed(out, |s| reward::reward_into(report, s)),
        OutputFormat::GithubOutput => {
            streamed(out, |s| github_output::github_output_into(report, ctx, s))
        }
        OutputFormat::Github => streamed(out, |s| github::github_into(report, ctx, opts, s)),
        OutputFormat::Junit => streamed(out, |s| junit::junit_into(report, ctx, s)),
    }
}

/// What a format writes when the score was refused (no report: a broken seal, unreadable
/// inputs, zero sealed tests under `--strict`), so that every output the operator named says
/// so and none left from an earlier run (or planted) stands in for it: `reward` (reward 0),
/// `github-output` (`verdict=refused`, the worst score and level), `junit` (one `<error>` test
/// case), `github` (one `::error`), `markdown` and `summary` (one line). `code` is the
/// refusal's registry code, `message` its one line. Returns whether the format has such a form:
/// JSON has none (no report was made; the caller removes a file at its path).
pub fn render_refusal_to(
    format: OutputFormat,
    code: gapscore_model::Code,
    message: &str,
    out: &mut dyn std::io::Write,
) -> std::io::Result<bool> {
    match format {
        OutputFormat::Reward => streamed(out, |s| reward::refused_into(code, s)),
        OutputFormat::GithubOutput => streamed(out, |s| github_output::refused_into(code, s)),
        OutputFormat::Junit => streamed(out, |s| junit::refused_into(code, message, s)),
        OutputFormat::Github => streamed(out, |s| github::refused_into(code, message, s)),
        OutputFormat::Markdown => streamed(out, |s| markdown::refused_into(code, message, s)),
        OutputFormat::Summary => streamed(out, |s| summary::refused_into(code, message, s)),
        OutputFormat::Json => return Ok(false),
    }
    .map(|()| true)
}

/// Text written through [`std::fmt::Write`] into an [`std::io::Write`], buffered; the first I/O
/// error stops the writing and is kept, so the renderers can ignore `writeln!`'s result.
pub(crate) struct Sink<'a> {
    w: std::io::BufWriter<&'a mut dyn std::io::Write>,
    error: Option<std::io::Error>,
}

impl Sink<'_> {
    pub(crate) fn push(&mut self, c: char) {
        let _ = fmt::Write::write_char(self, c);
    }

    pub(crate) fn push_str(&mut self, s: &str) {
        let _ = fmt::Write::write_str(self, s);
    }
}

impl fmt::Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.error.is_some() {
            return Err(fmt::Error);
        }
        std::io::Write::write_all(&mut self.w, s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            fmt::Error
        })
    }
}

fn streamed(
    out: &mut dyn std::io::Write,
    render: impl FnOnce(&mut Sink<'_>),
) -> std::io::Result<()> {
    let mut sink = Sink {
        w: std::io::BufWriter::with_capacity(64 * 1024, out),
        error: None,
    };
    render(&mut sink);
    match sink.error {
        Some(e) => Err(e),
        None => std::io::Write::flush(&mut sink.w),
    }
}

/// Renders into memory through the streaming renderer (writing to a `Vec` cannot fail).
pub(crate) fn to_string(render: impl FnOnce(&mut Sink<'_>)) -> String {
    let mut buf = Vec::new();
    let _ = streamed(&mut buf, render);
    String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}
