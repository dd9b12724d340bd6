//! File and terminal I/O for the commands: writing outputs atomically and printing
//! diagnostics. Inputs are read by the adapter host.

use std::io::{self, Write};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use gapscore_engine::fs;
use gapscore_engine::{Diagnostic, Severity};
use gapscore_seal::sealed_dir::{FsError, io_reason};

/// Writes `content` to `out` atomically (a temporary file in the same directory, then a
/// rename), or to standard output when `out` is `None`. A closed pipe on stdout is not an error.
pub fn write_output(out: Option<&Path>, content: &str) -> Result<()> {
    write_output_with(out, &mut |w| w.write_all(content.as_bytes()))
}

/// Like [`write_output`], with the content written by `write` as it is produced (a large report
/// is never held whole): to standard output, or to a temporary file renamed over `out` only once
/// it is complete.
pub fn write_output_with(
    out: Option<&Path>,
    write: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    match out {
        None => {
            let mut stdout = io::stdout().lock();
            match write(&mut stdout).and_then(|()| stdout.flush()) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(e).context("cannot write to standard output"),
            }
        }
        Some(path) => Ok(fs::write_atomic(path, true, write)?),
    }
}

/// Like [`write_output_with`], for an output written as its inputs are read, which `write`
/// may find should not be kept (it answers whether to keep it): a file is then not written
/// (nor replaced), see [`fs::write_atomic_if`]. Standard output cannot take back what it was
/// given, so there `write` must write only what it keeps; it is given a writer on which a
/// closed pipe ends the output quietly (the writes after it are dropped, and the command reads
/// on to its own verdict). Returns whether the output was written.
pub fn write_output_if(
    out: Option<&Path>,
    write: &mut dyn FnMut(&mut (dyn Write + Send)) -> io::Result<bool>,
) -> Result<bool> {
    match out {
        None => {
            let mut stdout = ClosedPipeEnds {
                inner: io::stdout(),
                closed: false,
                failed: false,
            };
            match write(&mut stdout).and_then(|_| stdout.flush()) {
                Ok(()) => Ok(true),
                Err(e) if stdout.failed => Err(e).context("cannot write to standard output"),
                // An error of the writer's own (a spool it could not write), named by it.
                Err(e) => Err(e.into()),
            }
        }
        Some(path) => Ok(fs::write_atomic_if(path, true, write)?),
    }
}

/// Standard output on which a closed pipe (`gapscore parse FILE | head -1`) is the end of the
/// output rather than an error.
struct ClosedPipeEnds {
    inner: io::Stdout,
    closed: bool,
    // An error came from standard output itself.
    failed: bool,
}

impl Write for ClosedPipeEnds {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            Err(e) => {
                self.failed = true;
                Err(e)
            }
            r => r,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            Err(e) => {
                self.failed = true;
                Err(e)
            }
            r => r,
        }
    }
}

/// Prints a warning line on standard error.
pub fn warn(message: &str) {
    stderr_line(&format!("warning: {message}"));
}

/// Prints an informational line on standard error (stdout carries the command's output).
pub fn info(message: &str) {
    stderr_line(message);
}

/// Prints a notice on standard error (`gapscore: note: ...`): something the user may want to
/// act on that is neither a warning about the results nor an error.
pub fn note(message: &str) {
    stderr_line(&format!("gapscore: note: {message}"));
}

/// Prints an error line on standard error.
pub fn error(message: &str) {
    stderr_line(&format!("error: {message}"));
}

/// Every line gapscore prints on standard error, as one line that GitHub's runner never reads
/// as a workflow command: diagnostics quote names and messages the implementation chose
/// (threat model, I13).
fn stderr_line(line: &str) {
    let mut err = io::stderr().lock();
    let line = crate::terminal::inert_text(line);
    let _ = writeln!(err, "{}", gapscore_core::render::github::inert_line(&line));
}

/// Prints an error with its chain of causes (`error: outer: inner`), an operating-system error
/// in gapscore's style (`no such file or directory`).
pub fn report_error(e: &anyhow::Error) {
    let mut line = String::new();
    for (i, cause) in e.chain().enumerate() {
        if i > 0 {
            line.push_str(": ");
        }
        match cause.downcast_ref::<io::Error>() {
            Some(io) => line.push_str(&io_reason(io)),
            None => line.push_str(&cause.to_string()),
        }
        // A seal record's error names its cause itself.
        if cause
            .downcast_ref::<FsError>()
            .is_some_and(|f| matches!(f, FsError::Record { .. }))
        {
            break;
        }
    }
    error(&line);
}

/// Prints the engine's diagnostics in order.
pub fn diagnostics(list: &[Diagnostic]) {
    for d in list {
        match d.severity {
            Severity::Error => error(&d.message),
            Severity::Warning => warn(&d.message),
            Severity::Note => info(&d.message),
        }
    }
}

/// Prints the engine's diagnostics in order, warnings of one code as one line: the first
/// message, with how many more there were and where (`gapscore_core::warnings`), at the place
/// the first one arose. With `verbose`, every warning is printed.
pub fn diagnostics_grouped(list: &[Diagnostic], verbose: bool) {
    if verbose {
        return diagnostics(list);
    }
    let warnings = list
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| (d.code, d.message.as_str()));
    let mut groups = gapscore_core::warnings::group(warnings).into_iter();
    let mut seen = std::collections::HashSet::new();
    for d in list {
        match d.severity {
            Severity::Error => error(&d.message),
            Severity::Note => info(&d.message),
            Severity::Warning => {
                if seen.insert(d.code)
                    && let Some(g) = groups.next()
                {
                    warn(&g.line());
                }
            }
        }
    }
}

/// The report time: `SOURCE_DATE_EPOCH` when set (reproducible output), otherwise now.
pub fn report_time() -> SystemTime {
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map_or_else(SystemTime::now, |secs| {
            UNIX_EPOCH + Duration::from_secs(secs)
        })
}

/// `$GITHUB_WORKSPACE` (the repository's root on a GitHub runner), which annotation paths are
/// made relative to; `None` when unset or empty.
pub(crate) fn github_workspace() -> Option<String> {
    std::env::var("GITHUB_WORKSPACE")
        .ok()
        .filter(|w| !w.is_empty())
}
