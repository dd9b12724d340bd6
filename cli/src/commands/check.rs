//! `gapscore check`: judge Gap Reports against spec §5.2 and conformance levels 1–4. The logic
//! lives in `gapscore_check`; this reads the evidence, checks each file and
//! prints.

use anyhow::Result;
use gapscore_check::{
    CheckOutput, Evidence, FileResult, check_bytes, check_path_limited, read_limited, render_text,
    render_text_verbose,
};
use gapscore_engine::ExitCode;

use crate::args::{CheckArgs, CheckFormat};
use crate::io;

/// Checks every report; the exit code says whether the requested level holds.
pub fn run(args: &CheckArgs) -> Result<ExitCode> {
    // Evidence that cannot be read is a usage error: without it the check would say less than
    // was asked for.
    let evidence = Evidence::load(args.sealed_dir.as_deref(), args.seal.as_deref())?;
    let mut stdin_read = false;
    let files = args
        .reports
        .iter()
        .map(|p| {
            if p.as_os_str() == "-" {
                check_stdin(&mut stdin_read, &evidence, args)
            } else {
                check_path_limited(p, &evidence, args.level, args.max_size)
            }
        })
        .collect();
    let out = CheckOutput::new(
        args.level,
        args.sealed_dir.is_some(),
        args.seal.is_some(),
        files,
    );
    for f in out.files.iter().filter(|f| f.unreadable()) {
        if let gapscore_check::Document::Unreadable { error } = &f.document {
            io::error(error);
        }
    }
    let text = match args.format {
        CheckFormat::Text if args.verbose => render_text_verbose(&out),
        CheckFormat::Text => render_text(&out),
        CheckFormat::Github => {
            gapscore_check::render_github(&out, io::github_workspace().as_deref())
        }
        CheckFormat::Json => {
            let mut t = gapscore_core::render::json::to_string_pretty(&out)?;
            t.push('\n');
            t
        }
    };
    // Text on standard output in the terminal's look (colour, ASCII marks); files never.
    // Text for a person never obeys a control character a report carries (a forged test name
    // must not redraw the verdict).
    let text = match (args.format, &args.output) {
        (CheckFormat::Text, None) => {
            crate::terminal::stdout_look().paint(&crate::terminal::inert_text(&text))
        }
        (CheckFormat::Text, Some(_)) => crate::terminal::inert_text(&text).into_owned(),
        _ => text,
    };
    io::write_output(args.output.as_deref(), &text)?;
    Ok(match out.exit_code {
        0 => ExitCode::Ok,
        1 => ExitCode::Failed,
        _ => ExitCode::Error,
    })
}

/// `-`: the report on standard input (`gapscore score ... | gapscore check -`), read once.
fn check_stdin(read: &mut bool, evidence: &Evidence, args: &CheckArgs) -> FileResult {
    let (name, level) = (gapscore_adapters::STDIN_NAME, args.level);
    let result = if std::mem::replace(read, true) {
        Err("standard input (`-`) was already read for another argument".to_owned())
    } else {
        // Reading stops at the first byte past the limit.
        match read_limited(std::io::stdin().lock(), name, None, args.max_size) {
            Ok(Ok(bytes)) => Ok(bytes),
            Ok(Err(too_large)) => return FileResult::cannot_read(name, too_large, level),
            Err(e) => Err(gapscore_adapters::io_reason(&e)),
        }
    };
    match result {
        Ok(bytes) => check_bytes(name, &bytes, evidence, level),
        Err(reason) => {
            FileResult::cannot_read(name, format!("cannot read `{name}`: {reason}"), level)
        }
    }
}
