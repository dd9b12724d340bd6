//! `--plugin-isolate`: a C-ABI plugin read in a child gapscore process instead of this one.
//! The child is `gapscore __plugin-serve FILE` ([`super::serve_plugin`]), which loads the
//! plugin there and speaks the executable adapter protocol on its stdout, so the parent reads
//! it with the [`ExecAdapter`] machinery: a plugin that segfaults, aborts or is killed fails
//! the one file it was reading, with an error naming the plugin and the signal, and every other
//! file is read as usual.
//!
//! Detection runs in a child too (`--gapscore-detect`, one short process per file and plugin):
//! a plugin can crash in `detect` as well. A detection that failed fails the file
//! ([`Adapter::try_detect`](gapscore_adapter_sdk::Adapter::try_detect)), never "no claim",
//! and `gapscore adapters --explain FILE` shows the signal.

use std::io::{Read as _, Write as _};
use std::path::Path;
use std::process::ExitStatus;
use std::time::Instant;

use gapscore_adapter_sdk::AdapterError;
use gapscore_adapter_sdk::detect::Detection;

use super::{ExecAdapter, INFO_TIMEOUT, collect_stderr, describe, spawn, stderr_note, wait_until};
use crate::fault::{PluginFault, signal_name};

/// The hidden gapscore subcommand that serves one plugin file to its parent.
pub const SERVE_COMMAND: &str = "__plugin-serve";

/// Loads the plugin file `path` through `serve`, the command that serves it (gapscore's own
/// binary and [`SERVE_COMMAND`]): the plugin is loaded and checked in the child only, never in
/// this process. The error is the reason, as for a plugin loaded in-process.
pub fn load_isolated(serve: &[String], path: &Path, debug: bool) -> Result<ExecAdapter, String> {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let Some(file) = absolute.to_str() else {
        return Err("--plugin-isolate needs a plugin path that is valid UTF-8".to_owned());
    };
    let mut argv = serve.to_vec();
    if debug {
        argv.push("--plugin-debug".to_owned());
    }
    argv.push(file.to_owned());
    let command = argv.join(" ");
    let mut adapter = super::load_argv(argv, &command, true)?;
    adapter.isolated = Some(path.to_path_buf());
    Ok(adapter.with_debug(debug))
}

/// How a crash shows: the signal, when the child was killed by one.
fn signal_of(status: ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        status.signal()
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        None
    }
}

/// The parse error for a child that exited unsuccessfully.
pub(super) fn failure(adapter: &ExecAdapter, status: ExitStatus, stderr: &[u8]) -> AdapterError {
    if let Some(signal) = signal_of(status) {
        return adapter.fail(PluginFault::Crashed {
            signal,
            name: signal_name(signal),
        });
    }
    // The child's message names the plugin, in the words of an in-process failure.
    let said = String::from_utf8_lossy(stderr).trim().to_owned();
    if said.is_empty() {
        adapter.fail(format!(
            "its isolated process failed ({})",
            describe(status)
        ))
    } else {
        AdapterError::Plugin(said)
    }
}

/// The crash, when a child that failed the event stream was killed by a signal: a stream cut
/// by a crash is the crash. Waits briefly for the child to be reaped.
pub(super) fn crash_of(
    adapter: &ExecAdapter,
    child: &mut std::process::Child,
) -> Option<AdapterError> {
    let status = wait_until(
        child,
        Instant::now() + std::time::Duration::from_millis(500),
    )?;
    let signal = signal_of(status)?;
    Some(adapter.fail(PluginFault::Crashed {
        signal,
        name: signal_name(signal),
    }))
}

/// The plugin's confidence for a file, asked of a child; the error is the reason it gave none.
pub(super) fn detect(
    adapter: &ExecAdapter,
    prefix: &[u8],
    file_name: Option<&str>,
) -> Result<u8, String> {
    let mut extra = vec!["--gapscore-detect"];
    extra.extend(file_name);
    let mut child = spawn(&adapter.argv, adapter.dir.as_deref(), &extra, true)?;
    let stdin = child.stdin.take();
    let input = prefix.to_vec();
    // Fed on a thread: a prefix larger than the pipe's buffer must not block on a child
    // that writes first.
    let writer = std::thread::spawn(move || {
        if let Some(mut s) = stdin {
            let _ = s.write_all(&input);
        }
    });
    let stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stdout {
            let _ = s.take(64).read_to_end(&mut buf);
        }
        buf
    });
    let stderr = collect_stderr(&mut child);
    let Some(status) = wait_until(&mut child, Instant::now() + INFO_TIMEOUT) else {
        return Err(format!(
            "detection did not finish within {} s",
            INFO_TIMEOUT.as_secs()
        ));
    };
    let _ = writer.join();
    let out = reader.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if let Some(signal) = signal_of(status) {
        return Err(PluginFault::CrashedInDetect {
            signal,
            name: signal_name(signal),
        }
        .to_string());
    }
    if !status.success() {
        return Err(format!(
            "detection failed ({}){}",
            describe(status),
            stderr_note(&stderr)
        ));
    }
    String::from_utf8_lossy(&out)
        .trim()
        .parse::<u8>()
        .map(|n| n.min(100))
        .map_err(|_| "detection printed no confidence".to_owned())
}

/// [`detect`], said: a C-ABI plugin gives its score only.
pub(super) fn explain_detect(
    adapter: &ExecAdapter,
    prefix: &[u8],
    file_name: Option<&str>,
) -> Detection {
    match detect(adapter, prefix, file_name) {
        Ok(score) => Detection::score_only(
            score,
            "a C-ABI plugin gives its score only (the ABI has no way to say why); asked in its isolated process (--plugin-isolate)",
        ),
        Err(reason) => Detection::score_only(
            0,
            format!(
                "plugin `{}`: {reason}; the file is not read (a failed detection is never \"not this format\")",
                adapter.info.name
            ),
        ),
    }
}
