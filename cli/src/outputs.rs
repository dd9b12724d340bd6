//! Where `score` and `run` write their report: the main output (`--format`, `-o`, `--append`)
//! and every `--also` and `--also-append` one, all from the one score, so a CI step that can
//! run its sealed suite once gets annotations on standard output, the JSON report in a file,
//! the Markdown added to the job summary and the step outputs, together.
//!
//! Replaced outputs go through the atomic writer as `-o` always has; appended ones are
//! rendered whole in memory and added in one write (`gapscore_engine::fs::append`), the
//! Markdown cut to what the file has left of GitHub's 65,536 characters.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use gapscore_core::render::markdown::markdown_within;
use gapscore_core::{
    Code, GapReport, MARKDOWN_LIMIT, OutputFormat, RenderContext, RenderOptions, render_refusal_to,
    render_scored_to,
};
use gapscore_engine::fs;

use crate::args::ScoreOptions;
use crate::{io, terminal};

/// One output of a report.
#[derive(Debug)]
pub(crate) struct Output {
    /// The flag that asked for it, as the user wrote it, for messages.
    flag: String,
    format: OutputFormat,
    /// `None`: standard output.
    path: Option<PathBuf>,
    append: bool,
}

/// Every output the options ask for: the main one first, then `--also`, then `--also-append`,
/// in the order given.
pub(crate) fn outputs(args: &ScoreOptions) -> Vec<Output> {
    let main_flag = match (&args.output, args.append) {
        (Some(p), true) => format!("-o {} --append", p.display()),
        (Some(p), false) => format!("-o {}", p.display()),
        (None, _) => format!("--format {}", format_name(args.format.into())),
    };
    let mut list = vec![Output {
        flag: main_flag,
        format: args.format.into(),
        path: args.output.clone(),
        append: args.append,
    }];
    for (also, append) in args
        .also
        .iter()
        .map(|a| (a, false))
        .chain(args.also_append.iter().map(|a| (a, true)))
    {
        let name = if append { "--also-append" } else { "--also" };
        let format: OutputFormat = also.format.into();
        list.push(Output {
            flag: format!("{name} {}={}", format_name(format), also.path.display()),
            format,
            path: (also.path.as_os_str() != "-").then(|| also.path.clone()),
            append,
        });
    }
    list
}

fn format_name(f: OutputFormat) -> &'static str {
    match f {
        OutputFormat::Json => "json",
        OutputFormat::Markdown => "markdown",
        OutputFormat::Summary => "summary",
        OutputFormat::Reward => "reward",
        OutputFormat::GithubOutput => "github-output",
        OutputFormat::Github => "github",
        OutputFormat::Junit => "junit",
    }
}

/// Whether any output the options ask for is in `format` (JUnit needs the engine's listing of
/// every sealed test; `--max-annotations` needs a GitHub output).
pub(crate) fn writes(args: &ScoreOptions, format: OutputFormat) -> bool {
    outputs(args).iter().any(|o| o.format == format)
}

/// What is wrong with the outputs asked for, before anything is read or run: standard output
/// taken twice, a path to a directory, a symbolic link at an output's path (never written
/// through; checked again when it is written), an appended output that is not a regular file (a
/// symbolic link, a device, a FIFO), a one-document format (JSON, JUnit, reward) appended,
/// appending to standard output. One message, naming the flag.
pub(crate) fn usage_error(list: &[Output]) -> Option<String> {
    let mut stdout_flag: Option<&str> = None;
    for (i, o) in list.iter().enumerate() {
        let Some(path) = &o.path else {
            if o.append {
                return Some(format!(
                    "{}: standard output cannot be appended to; give a file",
                    o.flag
                ));
            }
            if let Some(first) = stdout_flag {
                return Some(format!(
                    "{}: standard output already carries the report of {first}; give -o FILE for the main report, or a file here",
                    o.flag
                ));
            }
            stdout_flag = Some(&o.flag);
            continue;
        };
        if o.append
            && matches!(
                o.format,
                OutputFormat::Json | OutputFormat::Junit | OutputFormat::Reward
            )
        {
            // One document per file: appended after another, a reader takes the first.
            return Some(format!(
                "{}: the {} format is one document and is never appended (a reader would take the document already there); write it with {} instead",
                o.flag,
                format_name(o.format),
                if i == 0 {
                    "-o FILE without --append"
                } else {
                    "--also"
                }
            ));
        }
        if let Some(link) = fs::linked_component(path) {
            return Some(format!(
                "{}: `{}` goes through `{}`, a symbolic link under the current directory; an output is never written through a link",
                o.flag,
                path.display(),
                link.display()
            ));
        }
        if !o.append
            && let Some(kind) = fs::not_replaceable(path)
        {
            return Some(format!(
                "{}: `{}` is {kind}; an output is never written through a link",
                o.flag,
                path.display()
            ));
        }
        if o.append {
            if let Some(kind) = fs::not_appendable(path) {
                return Some(format!(
                    "{}: `{}` is {kind}; an appended output must be a regular file",
                    o.flag,
                    path.display()
                ));
            }
        } else if i > 0 && path.is_dir() {
            // `-o DIR` is refused by the writer itself, as it always was.
            return Some(format!(
                "{}: cannot write `{}`: is a directory",
                o.flag,
                path.display()
            ));
        }
    }
    None
}

/// Writes a report to every output, in order. Stops at the first that cannot be written.
pub(crate) fn write_report(
    list: &[Output],
    report: &GapReport,
    ctx: &RenderContext<'_>,
    opts: &RenderOptions,
) -> Result<()> {
    for (i, o) in list.iter().enumerate() {
        let written = match (&o.path, o.append) {
            (Some(path), true) => append_report(o, path, report, ctx, opts),
            // The summary, for a person: control characters shown, never obeyed (anywhere), and
            // on standard output the terminal's look (colour, ASCII marks).
            (path, false) if o.format == OutputFormat::Summary => {
                let mut text = Vec::new();
                render_scored_to(report, ctx, o.format, opts, &mut text)?;
                let text = String::from_utf8_lossy(&text);
                let text = terminal::inert_text(&text);
                match path {
                    None => io::write_output(None, &terminal::stdout_look().paint(&text)),
                    Some(path) => io::write_output(Some(path), &text),
                }
            }
            (path, _) => io::write_output_with(path.as_deref(), &mut |w| {
                render_scored_to(report, ctx, o.format, opts, w)
            }),
        };
        named(i, o, written)?;
    }
    Ok(())
}

/// An error of an output, named by its flag unless it is the main output (whose errors read
/// as they always have: ``cannot write `out`: is a directory``).
fn named(i: usize, o: &Output, r: Result<()>) -> Result<()> {
    if i == 0 {
        r
    } else {
        r.with_context(|| o.flag.clone())
    }
}

/// A refused score (no report): every output is written in its format's refusal form
/// ([`render_refusal_to`]), so no output the operator named is left as an earlier run (or a
/// planted file) made it. JSON has no such form: a regular file or a symbolic link at its path
/// is removed, so that no report stands where none was made.
pub(crate) fn write_refusal(list: &[Output], code: Code, message: &str) -> Result<()> {
    for (i, o) in list.iter().enumerate() {
        let mut held = Vec::new();
        if !render_refusal_to(o.format, code, message, &mut held)? {
            if let Some(path) = &o.path {
                named(i, o, remove_stale(path))?;
            }
            continue;
        }
        let written = match (&o.path, o.append) {
            (Some(path), true) => fs::append(path, &held).map_err(Into::into),
            (path, _) => io::write_output(path.as_deref(), &String::from_utf8_lossy(&held)),
        };
        named(i, o, written)?;
    }
    Ok(())
}

/// Removes a regular file or a symbolic link (the link, not what it names) at `path`; leaves
/// anything else (a device, a FIFO, a directory) and a missing path alone.
fn remove_stale(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() || m.file_type().is_symlink() => std::fs::remove_file(path)
            .with_context(|| format!("cannot remove `{}`", path.display())),
        _ => Ok(()),
    }
}

/// Adds the report to the end of `path`: Markdown within what the file has left of
/// [`MARKDOWN_LIMIT`] (nothing, with a warning, when not even its headline fits), any other
/// format whole.
fn append_report(
    o: &Output,
    path: &Path,
    report: &GapReport,
    ctx: &RenderContext<'_>,
    opts: &RenderOptions,
) -> Result<()> {
    let content = if o.format == OutputFormat::Markdown {
        let used = chars_in(path)?;
        let left = MARKDOWN_LIMIT.saturating_sub(used);
        match markdown_within(report, &opts.markdown_budget(left)) {
            Some(text) => text.into_bytes(),
            None => {
                io::warn(&format!(
                    "{}: `{}` already holds {used} characters, and not even the report's headline fits in the {left} left of GitHub's limit of {MARKDOWN_LIMIT}; nothing was added",
                    o.flag,
                    path.display()
                ));
                return Ok(());
            }
        }
    } else {
        let mut held = Vec::new();
        render_scored_to(report, ctx, o.format, opts, &mut held)?;
        held
    };
    Ok(fs::append(path, &content)?)
}

/// How many characters a file holds (0 when it does not exist). A file of more than four
/// bytes per character of the limit is over it whatever it holds, and is not read.
fn chars_in(path: &Path) -> Result<usize> {
    // Read without following a link or waiting on a FIFO: the path may have been swapped
    // during an in-place run.
    let cap = 4 * MARKDOWN_LIMIT as u64;
    let Some(bytes) = fs::read_regular(path, cap + 1)? else {
        return Ok(0);
    };
    if bytes.len() as u64 > cap {
        return Ok(MARKDOWN_LIMIT + 1);
    }
    Ok(String::from_utf8_lossy(&bytes).chars().count())
}
