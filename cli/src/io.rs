//! File and terminal I/O for the commands: writing outputs atomically and printing
//! diagnostics. Inputs are read by the adapter host.

use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};

/// Writes `content` to `out` atomically (a temporary file in the same directory, then a
/// rename), or to standard output when `out` is `None`. A closed pipe on stdout is not an error.
pub fn write_output(out: Option<&Path>, content: &str) -> Result<()> {
    match out {
        None => {
            let mut stdout = io::stdout().lock();
            match stdout
                .write_all(content.as_bytes())
                .and_then(|()| stdout.flush())
            {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(e).context("cannot write to standard output"),
            }
        }
        Some(path) => {
            if path.is_dir() {
                anyhow::bail!("cannot write `{}`: is a directory", path.display());
            }
            let dir = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let mut tmp = tempfile::Builder::new()
                .prefix(".gapscore-")
                .suffix(".tmp")
                .tempfile_in(dir)
                .with_context(|| format!("cannot write `{}`", path.display()))?;
            tmp.write_all(content.as_bytes())
                .and_then(|()| tmp.as_file().sync_all())
                .with_context(|| format!("cannot write `{}`", path.display()))?;
            tmp.persist(path)
                .map_err(|e| e.error)
                .with_context(|| format!("cannot write `{}`", path.display()))?;
            Ok(())
        }
    }
}

/// Prints a warning line on standard error.
pub fn warn(message: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "warning: {message}");
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
