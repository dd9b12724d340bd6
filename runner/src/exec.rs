//! Running the command: directly (no shell), in its own process group, with its output passed
//! through and a bounded tail of each stream kept, a time limit that ends the whole group, and
//! Ctrl-C forwarded to the group. What happened is a [`RunEvidence`].

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime};

use rustix::process::{Pid, Signal, kill_process_group, test_kill_process_group};

use crate::recognise::{Recognised, merge};
use crate::scan::{Scanned, StreamScanner};
use crate::summary::ConsoleSummary;

/// How much of each stream is kept by default: the last 64 KiB.
pub const DEFAULT_TAIL_BYTES: usize = 64 * 1024;

/// How long the group has after `SIGTERM` (a time limit, an interruption, leftovers) before it
/// is sent `SIGKILL`.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(3);

/// How long a group has to end after a forwarded `SIGINT` before it also gets `SIGTERM`.
const INT_GRACE: Duration = Duration::from_secs(1);

/// How often the wait loop looks at the child, the clock and the interrupt flag.
const POLL: Duration = Duration::from_millis(20);

/// How long the output is waited for once the command's process group has ended: its pipes
/// hold at most a buffer's worth, read at once. A process still holding them open after that
/// left the group (`setsid`) and is not waited for.
const OUTPUT_GRACE: Duration = Duration::from_secs(1);

/// What to run and how.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ExecOptions {
    /// The program and its arguments (never through a shell).
    pub command: Vec<OsString>,
    /// The working directory.
    pub dir: PathBuf,
    /// Environment variables to set on top of gapscore's own environment.
    pub env: Vec<(OsString, OsString)>,
    /// Environment variables to remove from gapscore's own environment (doors a planted
    /// setting could open: `PYTEST_ADDOPTS`, `NODE_OPTIONS`, ...).
    pub env_remove: Vec<OsString>,
    /// Start the command with [`ExecOptions::env`] only, none of gapscore's own environment
    /// (`gapscore run` does: the environment is default-deny).
    pub clear_env: bool,
    /// End the whole process group after this long.
    pub timeout: Option<Duration>,
    /// Time between `SIGTERM` and `SIGKILL`.
    pub grace: Duration,
    /// Bytes kept of each stream's end.
    pub tail_bytes: usize,
    /// Also copy the command's whole standard output to this file (for `--results -`).
    pub stdout_file: Option<PathBuf>,
    /// Pass the command's output through (both streams to gapscore's standard error, which
    /// keeps standard output for the report). Off in tests of this module.
    pub passthrough: bool,
    /// Fence the passed-through output for GitHub's runner (`gapscore run` under GitHub
    /// Actions): `::stop-commands::TOKEN` on standard error before the command starts and
    /// `::TOKEN::` after its output, so that nothing the command prints (`::error`,
    /// `::add-mask::`, `::stop-commands::`) is read as a workflow command. The token is random
    /// ([`fence_token`]) and never shown to the command.
    pub github_fence: bool,
    /// Result files last written before this are an earlier run's: a stamp taken before the
    /// workspace was prepared ([`fs_stamp`]); when absent, one taken just before the start.
    pub fresh_after: Option<SystemTime>,
    /// A program and arguments that run [`ExecOptions::command`] (a sandbox:
    /// [`crate::sandbox::Sandbox::wrapper`]); the evidence names the command alone.
    pub wrapper: Vec<OsString>,
    /// The wrapper reports a command killed by signal N as exit status 128 + N (bubblewrap does),
    /// so such a status is read as that signal.
    pub signal_as_exit_status: bool,
}

impl ExecOptions {
    /// Runs `command` in `dir`, no time limit, output passed through.
    pub fn new(command: Vec<OsString>, dir: impl Into<PathBuf>) -> Self {
        ExecOptions {
            command,
            dir: dir.into(),
            env: Vec::new(),
            env_remove: Vec::new(),
            clear_env: false,
            timeout: None,
            grace: DEFAULT_GRACE,
            tail_bytes: DEFAULT_TAIL_BYTES,
            stdout_file: None,
            passthrough: true,
            github_fence: false,
            fresh_after: None,
            wrapper: Vec::new(),
            signal_as_exit_status: false,
        }
    }
}

/// What running the command showed: the evidence only the program that ran it holds.
#[derive(Debug, Clone, serde::Serialize)]
#[non_exhaustive]
pub struct RunEvidence {
    /// The command as run (lossy UTF-8).
    pub command: Vec<String>,
    /// When it was started.
    #[serde(skip)]
    pub started: SystemTime,
    /// Result files last written before this are an earlier run's: the start time as the
    /// filesystem's clock (which can lag the system clock by a tick) saw it.
    #[serde(skip)]
    pub fresh_after: SystemTime,
    /// [`RunEvidence::started`], RFC 3339 UTC with microseconds.
    pub started_at: String,
    /// How long it ran, in seconds.
    pub duration_secs: f64,
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// The time limit was reached and the group ended.
    pub timed_out: bool,
    /// gapscore was interrupted (Ctrl-C, `SIGTERM`) and forwarded it to the group.
    pub interrupted: bool,
    /// The signal gapscore received, when [`RunEvidence::interrupted`] (2 for Ctrl-C).
    #[serde(skip)]
    pub interrupt_signal: Option<i32>,
    /// The time limit given ([`ExecOptions::timeout`]), in seconds.
    #[serde(skip)]
    pub limit_secs: Option<f64>,
    /// When the command was told to stop (a time limit, an interruption): how long its group
    /// took to end after that, in seconds.
    #[serde(skip)]
    pub stop_secs: Option<f64>,
    /// The group had not ended [`ExecOptions::grace`] after `SIGTERM` and was sent `SIGKILL`.
    #[serde(skip)]
    pub killed_after_grace: bool,
    /// Processes of the group still alive once the command had ended, which were ended too.
    pub leftovers_killed: bool,
    /// A process outside the group (one that called `setsid`) still held the output open after
    /// the group had ended: it was not waited for, and what it printed later is not in the
    /// tails.
    pub output_held_open: bool,
    /// The last [`ExecOptions::tail_bytes`] of standard output (lossy UTF-8).
    pub stdout_tail: String,
    /// The last [`ExecOptions::tail_bytes`] of standard error (lossy UTF-8).
    pub stderr_tail: String,
    /// Failure lines recognised in the whole of both streams, standard output's first.
    #[serde(skip)]
    pub recognised: Vec<Recognised>,
    /// Console summaries read in the whole of both streams, standard output's first.
    #[serde(skip)]
    pub summaries: Vec<ConsoleSummary>,
}

impl RunEvidence {
    /// The signal's name (`SIGKILL`), when a signal ended the command.
    pub fn signal_name(&self) -> Option<String> {
        self.signal.map(signal_name)
    }

    /// True when the command exited by itself with status 0.
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.interrupted
    }
}

/// The conventional name of a signal number (`SIGKILL`), or `signal N`.
pub fn signal_name(n: i32) -> String {
    let name = match n {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        10 => "SIGUSR1",
        11 => "SIGSEGV",
        12 => "SIGUSR2",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        _ => return format!("signal {n}"),
    };
    name.to_owned()
}

/// The signal gapscore itself received (Ctrl-C is `SIGINT`), 0 for none: set by the handlers
/// [`install_interrupt_handlers`] registers, read by [`execute`].
#[derive(Debug, Clone, Default)]
pub struct Interrupt(Arc<AtomicUsize>);

impl Interrupt {
    /// A flag nothing sets (tests, or callers that handle signals themselves).
    pub fn none() -> Self {
        Interrupt::default()
    }

    /// The signal received, if any.
    pub fn received(&self) -> Option<i32> {
        match self.0.load(Ordering::SeqCst) {
            0 => None,
            n => i32::try_from(n).ok(),
        }
    }
}

/// Catches `SIGINT` and `SIGTERM` in gapscore (they no longer end it): [`execute`] forwards
/// them to the command's process group and reports the run as interrupted. The command runs
/// in its own group, so the terminal's Ctrl-C reaches only gapscore, which passes it on.
pub fn install_interrupt_handlers() -> io::Result<Interrupt> {
    let flag = Interrupt::default();
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let value = usize::try_from(sig).unwrap_or(2);
        signal_hook::flag::register_usize(sig, Arc::clone(&flag.0), value)?;
    }
    Ok(flag)
}

/// The last `limit` bytes written to it.
#[derive(Debug)]
struct Tail {
    buf: Vec<u8>,
    limit: usize,
}

impl Tail {
    fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() > self.limit.saturating_mul(2) {
            let cut = self.buf.len() - self.limit;
            self.buf.drain(..cut);
        }
    }

    fn into_string(mut self) -> String {
        if self.buf.len() > self.limit {
            let cut = self.buf.len() - self.limit;
            self.buf.drain(..cut);
        }
        String::from_utf8_lossy(&self.buf).into_owned()
    }
}

/// What a copy thread has seen so far, shared so that the run need not wait for the thread
/// when a process outside the group holds the pipe open.
#[derive(Debug)]
struct TeeState {
    tail: Tail,
    copy: Option<File>,
    error: Option<io::Error>,
    /// Reads every line as it passes (recognisers, console summaries).
    scanner: Option<StreamScanner>,
}

/// One stream's copy: its thread and what it has seen.
struct Tee {
    thread: JoinHandle<()>,
    state: Arc<Mutex<TeeState>>,
    /// Set when the run stopped waiting: the thread stops passing output through.
    abandoned: Arc<AtomicBool>,
}

impl Tee {
    /// The tail so far and what reading the stream found, and the copy file closed; an error
    /// the copy met.
    fn finish(self) -> io::Result<(String, Scanned)> {
        {
            let _terminal = io::stderr().lock();
            self.abandoned.store(true, Ordering::SeqCst);
        }
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(e) = state.error.take() {
            return Err(e);
        }
        if let Some(mut f) = state.copy.take() {
            f.flush()?;
        }
        let tail = std::mem::replace(
            &mut state.tail,
            Tail {
                buf: Vec::new(),
                limit: 0,
            },
        );
        let scanned = state
            .scanner
            .take()
            .map(StreamScanner::finish)
            .unwrap_or_default();
        Ok((tail.into_string(), scanned))
    }
}

/// Copies `from` to the terminal (gapscore's standard error) and to `copy`, keeping a tail and
/// reading every line as it passes ([`StreamScanner`]).
fn tee(
    mut from: impl Read + Send + 'static,
    stream: &'static str,
    passthrough: bool,
    copy: Option<File>,
    limit: usize,
) -> Tee {
    let state = Arc::new(Mutex::new(TeeState {
        tail: Tail {
            buf: Vec::new(),
            limit,
        },
        copy,
        error: None,
        scanner: Some(StreamScanner::new(stream)),
    }));
    let abandoned = Arc::new(AtomicBool::new(false));
    let (shared, stop) = (Arc::clone(&state), Arc::clone(&abandoned));
    let thread = thread::spawn(move || {
        let mut chunk = vec![0u8; 16 * 1024];
        let mut terminal_ok = passthrough;
        loop {
            let n = match from.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    shared.lock().unwrap_or_else(PoisonError::into_inner).error = Some(e);
                    break;
                }
            };
            let bytes = &chunk[..n];
            if terminal_ok {
                // The stop is read under the terminal's lock, which `Tee::finish` takes to set
                // it: once finished, no chunk of this stream reaches the terminal after what
                // gapscore writes next (the fence's closing token included).
                let mut err = io::stderr().lock();
                if stop.load(Ordering::SeqCst) {
                    continue;
                }
                // A closed terminal must not stop the copy nor the run.
                terminal_ok = err.write_all(bytes).and_then(|()| err.flush()).is_ok();
            } else if stop.load(Ordering::SeqCst) {
                continue;
            }
            let mut state = shared.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(f) = state.copy.as_mut()
                && let Err(e) = f.write_all(bytes)
            {
                state.copy = None;
                state.error = Some(e);
            }
            state.tail.push(bytes);
            if let Some(scanner) = state.scanner.as_mut() {
                scanner.push(bytes);
            }
        }
    });
    Tee {
        thread,
        state,
        abandoned,
    }
}

/// Waits up to [`OUTPUT_GRACE`] for both copies to reach the end of their streams; returns
/// whether they did. A copy that did not is left to its thread, which ends when the last
/// process holding the pipe does.
fn wait_for_output(tees: &[&Option<Tee>]) -> bool {
    let deadline = Instant::now() + OUTPUT_GRACE;
    loop {
        let done = tees
            .iter()
            .all(|t| t.as_ref().is_none_or(|t| t.thread.is_finished()));
        if done || Instant::now() >= deadline {
            return done;
        }
        thread::sleep(POLL);
    }
}

/// Whether any process of group `pid` is still alive (a zombie leader counts until reaped; a
/// zombie whose parent is not gapscore does not: it waits for init to reap it, which under
/// bubblewrap, whose PID namespace's init becomes one, can take seconds in a container).
fn group_alive(pid: Pid) -> bool {
    if test_kill_process_group(pid).is_err() {
        return false;
    }
    living_members(pid).unwrap_or(true)
}

/// Whether `/proc` shows a member of group `pgid` that is not a zombie of someone else's, or
/// `None` when `/proc` cannot be read.
fn living_members(pgid: Pid) -> Option<bool> {
    let me = std::process::id();
    let want = pgid.as_raw_nonzero().get();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        let Some(name) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        // "pid (comm) state ppid pgrp ...": comm may hold anything but its last ')'.
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{name}/stat")) else {
            continue;
        };
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let (Some(state), Some(ppid), Some(pgrp)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if pgrp.parse::<i32>().ok() != Some(want) {
            continue;
        }
        if state != "Z" || ppid.parse::<u32>().ok() == Some(me) {
            return Some(true);
        }
    }
    Some(false)
}

/// Sends `sig` to the group, ignoring a group already gone.
fn signal_group(pid: Pid, sig: Signal) {
    let _ = kill_process_group(pid, sig);
}

/// Waits up to `within` for the leader to be reaped and its group to empty. Returns the leader's
/// status if it was reaped, and whether the whole group ended.
fn wait_group(
    child: &mut Child,
    pid: Pid,
    mut status: Option<ExitStatus>,
    within: Duration,
) -> io::Result<(Option<ExitStatus>, bool)> {
    let deadline = Instant::now() + within;
    loop {
        if status.is_none() {
            status = child.try_wait()?;
        }
        if status.is_some() && !group_alive(pid) {
            return Ok((status, true));
        }
        if Instant::now() >= deadline {
            return Ok((status, false));
        }
        thread::sleep(POLL);
    }
}

/// Waits until the leader is reaped and the group is empty, or `grace` passes; then `SIGKILL`s
/// whatever is left and waits for the leader. Returns the leader's status, and whether the
/// group had to be killed.
fn end_group(
    child: &mut Child,
    pid: Pid,
    status: Option<ExitStatus>,
    grace: Duration,
) -> io::Result<(ExitStatus, bool)> {
    let (status, ended) = wait_group(child, pid, status, grace)?;
    if !ended {
        signal_group(pid, Signal::KILL);
    }
    let status = match status {
        Some(s) => s,
        None => child.wait()?,
    };
    Ok((status, !ended))
}

/// Runs the command to its end (or its time limit, or an interruption) and returns what
/// happened. An error means it could not be started (or waited for): no evidence exists.
pub fn execute(opts: &ExecOptions, interrupt: &Interrupt) -> io::Result<RunEvidence> {
    if opts.command.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no command"));
    }
    // A wrapper would start and report the missing program as its own failure: say it here,
    // as a command run directly would.
    if !opts.wrapper.is_empty() && !findable(&opts.command[0], opts) {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            "no such program (looked for in the working directory or on PATH)",
        ));
    }
    let argv: Vec<&OsString> = opts.wrapper.iter().chain(&opts.command).collect();
    let Some((program, args)) = argv.split_first() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no command"));
    };
    let mut cmd = Command::new(program);
    if opts.clear_env {
        cmd.env_clear();
    }
    for k in &opts.env_remove {
        cmd.env_remove(k);
    }
    cmd.args(args)
        .current_dir(&opts.dir)
        .envs(opts.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let copy = opts.stdout_file.as_ref().map(File::create).transpose()?;
    let started = SystemTime::now();
    let fresh_after = match opts.fresh_after {
        Some(t) => t,
        None => fs_stamp()?,
    };
    let fence = (opts.passthrough && opts.github_fence).then(crate::fence::Fence::open);
    let clock = Instant::now();
    let mut child = cmd.spawn()?;
    let pid = Pid::from_child(&child);
    let out = child
        .stdout
        .take()
        .map(|s| tee(s, "stdout", opts.passthrough, copy, opts.tail_bytes));
    let err = child
        .stderr
        .take()
        .map(|s| tee(s, "stderr", opts.passthrough, None, opts.tail_bytes));

    let mut timed_out = false;
    let mut interrupted = None;
    // When the command was told to stop (time limit, interruption).
    let mut stopping: Option<Instant> = None;
    let leader = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if let Some(sig) = interrupt.received() {
            interrupted = Some(sig);
            stopping = Some(Instant::now());
            let sig = Signal::from_named_raw(sig).unwrap_or(Signal::INT);
            signal_group(pid, sig);
            // A command started from a non-interactive shell's background job inherits SIGINT
            // ignored: if the group is still there after a moment, it gets SIGTERM before the
            // grace period ends in SIGKILL.
            if sig == Signal::INT {
                let (status, ended) = wait_group(&mut child, pid, None, INT_GRACE)?;
                if !ended {
                    signal_group(pid, Signal::TERM);
                }
                if status.is_some() {
                    break status;
                }
            }
            break None;
        }
        if let Some(limit) = opts.timeout {
            let elapsed = clock.elapsed();
            if elapsed >= limit {
                timed_out = true;
                stopping = Some(Instant::now());
                signal_group(pid, Signal::TERM);
                break None;
            }
            // Wake at the limit, not up to a poll after it.
            thread::sleep(POLL.min(limit - elapsed));
            continue;
        }
        thread::sleep(POLL);
    };
    // The leader is gone (or told to go): anything left in its group is a leftover, which would
    // also keep the output pipes open. End it.
    let leftovers_killed = leader.is_some() && group_alive(pid);
    if leftovers_killed {
        signal_group(pid, Signal::TERM);
    }
    let (status, killed) = end_group(&mut child, pid, leader, opts.grace)?;
    let duration = clock.elapsed();
    let stop_secs = stopping.map(|t| round_ms(t.elapsed().as_secs_f64()));
    // The group is gone; a process that left it may still hold the pipes (`setsid`). The run
    // ends now, whoever holds them.
    let output_held_open = !wait_for_output(&[&out, &err]);
    let (stdout_tail, out_scan) = out.map(Tee::finish).transpose()?.unwrap_or_default();
    let (stderr_tail, err_scan) = err.map(Tee::finish).transpose()?.unwrap_or_default();
    drop(fence);
    let mut summaries = out_scan.summaries;
    summaries.extend(err_scan.summaries);
    let (exit_code, signal) = match (status.code(), status.signal()) {
        (Some(c @ 129..=159), None) if opts.signal_as_exit_status => (None, Some(c - 128)),
        other => other,
    };
    Ok(RunEvidence {
        command: opts
            .command
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        started,
        fresh_after: fresh_after.min(started),
        started_at: humantime::format_rfc3339_micros(started).to_string(),
        duration_secs: round_ms(duration.as_secs_f64()),
        exit_code,
        signal,
        timed_out,
        interrupted: interrupted.is_some(),
        interrupt_signal: interrupted,
        limit_secs: opts.timeout.map(|t| t.as_secs_f64()),
        stop_secs,
        killed_after_grace: killed && stopping.is_some(),
        leftovers_killed,
        output_held_open,
        stdout_tail,
        stderr_tail,
        recognised: merge(out_scan.recognised, err_scan.recognised),
        summaries,
    })
}

/// Seconds to the millisecond.
fn round_ms(secs: f64) -> f64 {
    (secs * 1000.0).round() / 1000.0
}

/// Whether `program` names a file the command could start: a path (relative to the working
/// directory) or a name found on the `PATH` the command gets.
fn findable(program: &OsString, opts: &ExecOptions) -> bool {
    let path = std::path::Path::new(program);
    if path.components().count() > 1 || path.is_absolute() {
        return opts.dir.join(path).is_file();
    }
    let search = opts
        .env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default();
    std::env::split_paths(&search).any(|dir| opts.dir.join(dir).join(path).is_file())
}

/// The time the filesystem gives a file written now (its clock is coarser than the system's:
/// a file written just after a start taken from the system clock can carry a time just before
/// it), or the system time if that is earlier. Take it before the workspace is prepared: a
/// result file written after it is this run's, by the clock.
pub fn fs_stamp() -> io::Result<SystemTime> {
    let now = SystemTime::now();
    let marker = tempfile::NamedTempFile::new()?;
    let stamped = marker.as_file().metadata()?.modified()?;
    Ok(stamped.min(now))
}

#[cfg(test)]
mod tests;
