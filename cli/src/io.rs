//! File and terminal I/O for the commands: writing outputs atomically and printing
//! diagnostics. Inputs are read by the adapter host.

use std::io::{self, Write};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};

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
        Some(path) => {
            let fail = |e: &io::Error| {
                anyhow::anyhow!(
                    "cannot write `{}`: {}",
                    path.display(),
                    gapscore_adapters::io_reason(e)
                )
            };
            if path.is_dir() {
                anyhow::bail!("cannot write `{}`: is a directory", path.display());
            }
            let dir = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let mut builder = tempfile::Builder::new();
            builder.prefix(".gapscore-").suffix(".tmp");
            // A temporary file is created owner-only; the report gets the mode of the file it
            // replaces, or the usual 0644 for a new one.
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt as _;
                let mode =
                    std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
                builder.permissions(std::fs::Permissions::from_mode(mode));
            }
            let mut tmp = builder.tempfile_in(dir).map_err(|e| fail(&e))?;
            write(&mut tmp)
                .and_then(|()| tmp.as_file().sync_all())
                .map_err(|e| fail(&e))?;
            tmp.persist(path).map_err(|e| fail(&e.error))?;
            Ok(())
        }
    }
}

/// Prints a warning line on standard error.
pub fn warn(message: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "warning: {message}");
}

/// Prints an informational line on standard error (stdout carries the command's output).
pub fn info(message: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{message}");
}

/// Prints an error line on standard error.
pub fn error(message: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "error: {message}");
}

/// Prints an error with its chain of causes (`error: outer: inner`).
pub fn report_error(e: &anyhow::Error) {
    error(&format!("{e:#}"));
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
