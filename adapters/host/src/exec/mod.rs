//! Executable adapters (`--plugin-exec CMD`): any program that prints an info document for
//! `CMD --gapscore-info` and, run as `CMD --gapscore-parse OPTIONS_JSON`, reads the result file
//! on stdin and writes NDJSON events on stdout is an adapter. [`ExecAdapter`] implements the
//! same [`Adapter`] trait as the built-ins; docs/abi.md ("Executable adapters") is the contract.
//!
//! The input is fed to the child by a writer thread, its stdout lines come back through a
//! reader thread, and the calling thread applies the events to the sink (which is not `Send`)
//! and refills the writer: one bounded channel between them keeps memory flat whatever the
//! sizes. A stream that ends without its `end` event, a line that is not an event, a non-zero
//! exit or a timeout fails the parse with an error naming the command (and the line): never a
//! silent partial pass.

mod isolate;
mod protocol;
mod serve;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::time::{Duration, Instant};

use gapscore_adapter_sdk::{
    Adapter, AdapterError, AdapterInfo, EventSink, InputError, Location, ParseOptions,
};

pub use isolate::{SERVE_COMMAND, load_isolated};
pub use protocol::{EXEC_PROTOCOL_VERSION, REGEX_SIZE_LIMIT};
pub use serve::{Served, serve_plugin};

use gapscore_adapter_sdk::detect::{Detection, Why};
use protocol::{Info, Rule, Stream};

/// How long `CMD --gapscore-info` may take.
pub const INFO_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one parse may take by default.
pub const PARSE_TIMEOUT: Duration = Duration::from_secs(600);
/// The longest event line accepted (64 MiB): a longer one is an error, not a memory blow-up.
pub const MAX_LINE_LEN: usize = 64 * 1024 * 1024;
/// How much of the child's stderr is kept for an error message (the end of it).
const STDERR_TAIL: usize = 4096;
/// Input chunk size fed to the child.
const CHUNK: usize = 64 * 1024;

/// An adapter that is a program.
#[derive(Debug)]
pub struct ExecAdapter {
    info: AdapterInfo,
    command: String,
    argv: Vec<String>,
    /// The directory the program was loaded from: every later start runs there, so relative
    /// paths in the command mean what they meant when it was given.
    dir: Option<std::path::PathBuf>,
    rules: Vec<Rule>,
    timeout: Duration,
    debug: bool,
    /// Set when the program is gapscore itself serving a C-ABI plugin (`--plugin-isolate`):
    /// the plugin file, which errors name, and detection asks the program.
    isolated: Option<std::path::PathBuf>,
}

/// Splits a command line into words: whitespace separates, `'…'` and `"…"` quote (no escapes
/// inside single quotes; `\` escapes the next character elsewhere). No shell runs.
pub fn split_command(cmd: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err("unterminated ' quote".to_owned()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => cur.push(c),
                            None => return Err("unterminated \" quote".to_owned()),
                        },
                        Some(c) => cur.push(c),
                        None => return Err("unterminated \" quote".to_owned()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    cur.push(c);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    if words.is_empty() {
        return Err("empty command".to_owned());
    }
    Ok(words)
}

/// Starts `CMD --gapscore-info`, checks its info document and returns the adapter. The error is
/// the reason (the caller names the command).
pub fn load_exec(command: &str) -> Result<ExecAdapter, String> {
    let mut argv = split_command(command)?;
    // The program is found once, now, and kept as an absolute path: a relative path (or a
    // relative `PATH` entry) must not resolve elsewhere when a later read runs from another
    // directory (`gapscore run` reads its results from the workspace the implementer wrote).
    argv[0] = absolute_program(&argv[0]);
    load_argv(argv, command, false)
}

/// [`load_exec`] for a command already split into words, its program absolute.
/// `isolated`: the program is gapscore serving a plugin ([`load_isolated`]), whose failure to
/// load is said on its stderr, in the words of an in-process load.
fn load_argv(argv: Vec<String>, command: &str, isolated: bool) -> Result<ExecAdapter, String> {
    let dir = std::env::current_dir().ok();
    let mut child = spawn(&argv, dir.as_deref(), &["--gapscore-info"], false)?;
    let mut out = Vec::new();
    let stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stdout {
            let _ = s.take(1024 * 1024).read_to_end(&mut buf);
        }
        buf
    });
    let stderr = collect_stderr(&mut child);
    let status = wait_until(&mut child, Instant::now() + INFO_TIMEOUT);
    let Some(status) = status else {
        return Err(format!(
            "`--gapscore-info` did not finish within {} s",
            INFO_TIMEOUT.as_secs()
        ));
    };
    if let Ok(b) = reader.join() {
        out = b;
    }
    let stderr = stderr.join().unwrap_or_default();
    if !status.success() && isolated {
        let said = String::from_utf8_lossy(&stderr).trim().to_owned();
        return Err(if said.is_empty() {
            format!(
                "could not be loaded in its isolated process ({})",
                describe(status)
            )
        } else {
            said
        });
    }
    if !status.success() {
        return Err(format!(
            "`--gapscore-info` failed ({}){}",
            describe(status),
            stderr_note(&stderr)
        ));
    }
    let info: Info = serde_json::from_slice(trim_ascii(&out)).map_err(|e| {
        format!(
            "`--gapscore-info` printed no valid info document: {e}\n  it printed: {}",
            crate::debug::excerpt(&out, None)
        )
    })?;
    info.check()?;
    let rules = info.rules()?;
    let formats: Vec<&str> = info.formats.iter().map(String::as_str).collect();
    Ok(ExecAdapter {
        info: AdapterInfo::new(info.name.clone(), info.version.clone(), &formats),
        command: command.to_owned(),
        argv,
        dir,
        rules,
        timeout: PARSE_TIMEOUT,
        debug: false,
        isolated: None,
    })
}

/// `program` as an absolute path: a path with a `/` made absolute against the current
/// directory, a bare name looked up on `PATH` (its relative entries made absolute too); a name
/// not found is left as it is (starting it reports the error).
fn absolute_program(program: &str) -> String {
    let abs = |p: &std::path::Path| {
        std::path::absolute(p)
            .ok()
            .and_then(|a| a.to_str().map(str::to_owned))
    };
    if program.contains('/') {
        return abs(std::path::Path::new(program)).unwrap_or_else(|| program.to_owned());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|c| c.is_file())
        .and_then(|c| abs(&c))
        .unwrap_or_else(|| program.to_owned())
}

fn trim_ascii(b: &[u8]) -> &[u8] {
    b.trim_ascii()
}

fn spawn(
    argv: &[String],
    dir: Option<&std::path::Path>,
    extra: &[&str],
    stdin: bool,
) -> Result<Child, String> {
    let mut cmd = Command::new(&argv[0]);
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    cmd.args(&argv[1..])
        .args(extra)
        .stdin(if stdin { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn()
        .map_err(|e| format!("cannot run `{}`: {}", argv[0], crate::io_reason(&e)))
}

/// Waits for the child until `deadline`; kills it and returns `None` past it.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<std::process::ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

fn describe(status: std::process::ExitStatus) -> String {
    match status.code() {
        Some(c) => format!("exit status {c}"),
        None => format!("{status}"),
    }
}

/// Reads the child's stderr on a thread (so a chatty child never blocks on a full pipe),
/// keeping its last [`STDERR_TAIL`] bytes.
fn collect_stderr(child: &mut Child) -> std::thread::JoinHandle<Vec<u8>> {
    let stderr = child.stderr.take();
    std::thread::spawn(move || stderr_tail(stderr))
}

fn stderr_tail(stderr: Option<std::process::ChildStderr>) -> Vec<u8> {
    let mut all = Vec::new();
    if let Some(mut e) = stderr {
        let mut buf = [0u8; 8192];
        while let Ok(n) = e.read(&mut buf) {
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
            if all.len() > 2 * STDERR_TAIL {
                all.drain(..all.len() - STDERR_TAIL);
            }
        }
    }
    if all.len() > STDERR_TAIL {
        all.drain(..all.len() - STDERR_TAIL);
    }
    all
}

fn stderr_note(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim();
    if text.is_empty() {
        String::new()
    } else {
        format!("; its stderr ends: {}", text.replace('\n', "\n    "))
    }
}

impl ExecAdapter {
    /// The command line as given.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Shows the offending line when the host rejects the event stream.
    #[must_use]
    pub fn with_debug(mut self, debug: bool) -> Self {
        self.debug = debug;
        self
    }

    /// Sets the parse timeout.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    fn fail(&self, reason: impl std::fmt::Display) -> AdapterError {
        match &self.isolated {
            // As the plugin loaded in-process is named (`PluginAdapter`).
            Some(path) => AdapterError::Plugin(format!(
                "plugin `{}` ({}): {reason}",
                self.info.name,
                path.display()
            )),
            None => AdapterError::Plugin(format!(
                "plugin-exec `{}` ({}): {reason}",
                self.command, self.info.name
            )),
        }
    }

    /// The confidence: the highest of the matching rules', each rule's checks recorded in
    /// `why` (every rule is checked, so the explanation shows each one).
    fn score(&self, prefix: &[u8], file_name: Option<&str>, why: &mut Why) -> u8 {
        let mut best = 0;
        for (i, r) in self.rules.iter().enumerate() {
            let matched = r.matches(i, prefix, file_name, why);
            why.check_with(
                || format!("rule detect[{i}] matches (confidence {})", r.confidence),
                matched,
            );
            if matched {
                best = best.max(r.confidence.min(100));
            }
        }
        best
    }

    /// How long, and which flag raises it, for a timeout's message.
    fn limit(&self) -> String {
        format!(
            "{} s (--plugin-exec-timeout SECS sets the limit)",
            self.timeout.as_secs()
        )
    }
}

/// What the threads tell the calling thread.
enum Msg {
    /// The writer finished a chunk and wants the next.
    Ready,
    /// One stdout line, without its `\n`; `false` when the stream ended without one.
    Line(Vec<u8>, bool),
    /// A stdout line longer than [`MAX_LINE_LEN`].
    TooLong,
    /// Stdout is closed.
    End,
}

fn feed(mut stdin: std::process::ChildStdin, chunks: Receiver<Vec<u8>>, tx: SyncSender<Msg>) {
    for chunk in chunks {
        // A child that stops reading (it exited, or needs no more) closes the pipe: stop
        // feeding; its exit status and event stream decide the outcome.
        if stdin.write_all(&chunk).is_err() || tx.send(Msg::Ready).is_err() {
            return;
        }
    }
}

fn drain(stdout: std::process::ChildStdout, tx: SyncSender<Msg>) {
    let mut r = BufReader::with_capacity(64 * 1024, stdout);
    loop {
        let mut line = Vec::new();
        match (&mut r)
            .take(MAX_LINE_LEN as u64 + 1)
            .read_until(b'\n', &mut line)
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let terminated = line.last() == Some(&b'\n');
                if terminated {
                    line.pop();
                } else if line.len() > MAX_LINE_LEN {
                    let _ = tx.send(Msg::TooLong);
                    return;
                }
                if tx.send(Msg::Line(line, terminated)).is_err() {
                    return;
                }
            }
        }
    }
    let _ = tx.send(Msg::End);
}

impl ExecAdapter {
    fn run(
        &self,
        reader: &mut dyn BufRead,
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        let deadline = Instant::now() + self.timeout;
        let opts_json = serde_json::to_string(opts).map_err(|e| self.fail(e))?;
        let mut child = spawn(
            &self.argv,
            self.dir.as_deref(),
            &["--gapscore-parse", &opts_json],
            true,
        )
        .map_err(|e| self.fail(e))?;
        let (tx, rx) = sync_channel::<Msg>(256);
        let (chunk_tx, chunk_rx) = sync_channel::<Vec<u8>>(1);
        if let Some(stdin) = child.stdin.take() {
            let tx = tx.clone();
            std::thread::spawn(move || feed(stdin, chunk_rx, tx));
        }
        if let Some(stdout) = child.stdout.take() {
            let tx = tx.clone();
            std::thread::spawn(move || drain(stdout, tx));
        }
        drop(tx);
        let stderr = collect_stderr(&mut child);
        let mut chunk_tx = Some(chunk_tx);
        let mut stream = Stream::default();
        // The first chunk; then one more each time the writer is ready.
        let mut failure = self.refill(reader, &mut chunk_tx).err();
        let mut saw_end_of_stdout = false;
        while failure.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(Msg::Ready) => failure = self.refill(reader, &mut chunk_tx).err(),
                Ok(Msg::Line(line, terminated)) => {
                    if !terminated {
                        failure = Some(self.bad_line(
                            stream.line + 1,
                            "the last line has no newline: the event stream was cut".to_owned(),
                            &line,
                        ));
                    } else if let Err(reason) = stream.handle(&line, sink) {
                        failure = Some(self.bad_line(stream.line, reason, &line));
                    }
                }
                Ok(Msg::TooLong) => {
                    failure = Some(self.fail(format!(
                        "stdout line {}: longer than {MAX_LINE_LEN} bytes",
                        stream.line + 1
                    )));
                }
                Ok(Msg::End) | Err(RecvTimeoutError::Disconnected) => {
                    saw_end_of_stdout = true;
                    break;
                }
                Err(RecvTimeoutError::Timeout) => {
                    failure =
                        Some(self.fail(format!("did not finish within {}; stopped", self.limit())));
                }
            }
        }
        drop(chunk_tx);
        if let Some(f) = failure {
            // A stream cut by an isolated plugin's crash is the crash.
            if self.isolated.is_some()
                && let Some(crash) = isolate::crash_of(self, &mut child)
            {
                return Err(crash);
            }
            let _ = child.kill();
            let _ = child.wait();
            return Err(f);
        }
        debug_assert!(saw_end_of_stdout);
        let Some(status) = wait_until(&mut child, deadline) else {
            return Err(self.fail(format!(
                "did not exit within {} after closing its output; stopped",
                self.limit()
            )));
        };
        let stderr = stderr.join().unwrap_or_default();
        if let Some(e) = stream.error.take() {
            // The adapter says the input is invalid: an input error at its place.
            let location = match (e.line, e.column, e.offset) {
                (Some(line), column, _) if line > 0 => Some(Location::LineCol {
                    line: usize::try_from(line).unwrap_or(usize::MAX),
                    column: usize::try_from(column.unwrap_or(1).max(1)).unwrap_or(usize::MAX),
                }),
                (_, _, Some(offset)) => Some(Location::Offset(offset)),
                _ => None,
            };
            return Err(AdapterError::Input(match location {
                Some(location) => InputError::Syntax {
                    location,
                    message: e.message,
                },
                None => InputError::Unlocated(e.message),
            }));
        }
        if !status.success() {
            if self.isolated.is_some() {
                return Err(isolate::failure(self, status, &stderr));
            }
            return Err(self.fail(format!(
                "failed ({}){}",
                describe(status),
                stderr_note(&stderr)
            )));
        }
        if stream.ended.is_none() {
            return Err(self.fail(format!(
                "the event stream ended after {} lines without its `end` event: it was cut, so its results are not used",
                stream.line
            )));
        }
        Ok(())
    }

    /// Sends the writer the next input chunk, or closes its channel at the end of the input.
    fn refill(
        &self,
        reader: &mut dyn BufRead,
        chunk_tx: &mut Option<SyncSender<Vec<u8>>>,
    ) -> Result<(), AdapterError> {
        let Some(tx) = chunk_tx.as_ref() else {
            return Ok(());
        };
        let mut chunk = vec![0u8; CHUNK];
        let n = loop {
            match reader.read(&mut chunk) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(AdapterError::Io(gapscore_adapter_sdk::ReadError::new(
                        crate::io_reason(&e),
                        e,
                    )));
                }
            }
        };
        if n == 0 {
            *chunk_tx = None;
            return Ok(());
        }
        chunk.truncate(n);
        // The writer is idle (it asked for this chunk, or has not started): this never blocks.
        if tx.send(chunk).is_err() {
            *chunk_tx = None;
        }
        Ok(())
    }

    fn bad_line(&self, line: u64, reason: String, bytes: &[u8]) -> AdapterError {
        self.fail(format!(
            "stdout line {line}: {}",
            crate::debug::with_returned(reason, self.debug, bytes, None)
        ))
    }
}

impl Adapter for ExecAdapter {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn detect(&self, prefix: &[u8], file_name: Option<&str>) -> u8 {
        self.try_detect(prefix, file_name).unwrap_or(0)
    }

    /// An isolated plugin's detection that failed (a crash, a hang, no answer) is an error the
    /// host fails the file with, never "no claim": a file the plugin would have read must not
    /// be left unread because its bytes crashed the plugin.
    fn try_detect(&self, prefix: &[u8], file_name: Option<&str>) -> Result<u8, String> {
        if self.isolated.is_some() {
            return isolate::detect(self, prefix, file_name)
                .map_err(|reason| format!("plugin `{}`: {reason}", self.info.name));
        }
        Ok(self.score(prefix, file_name, &mut Why::silent()))
    }

    fn explain_detect(&self, prefix: &[u8], file_name: Option<&str>) -> Detection {
        if self.isolated.is_some() {
            return isolate::explain_detect(self, prefix, file_name);
        }
        let mut why = Why::recording();
        let score = self.score(prefix, file_name, &mut why);
        let d = why.finish(score);
        if self.rules.is_empty() {
            d.with_note("no detection rules: only --input-format reaches this adapter")
        } else {
            d.with_note("the highest confidence of the matching rules; 0 when none matches")
        }
    }

    fn parse(
        &self,
        input: &[u8],
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        self.run(&mut std::io::Cursor::new(input), opts, sink)
    }

    fn parse_reader(
        &self,
        reader: &mut dyn BufRead,
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        self.run(reader, opts, sink)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_like_a_shell_without_one() {
        assert_eq!(
            split_command(r#"python3 "my dir/lines.py" --x 'a b' c\ d"#).unwrap(),
            vec!["python3", "my dir/lines.py", "--x", "a b", "c d"]
        );
        assert_eq!(split_command("  ").unwrap_err(), "empty command");
        assert_eq!(split_command("a 'b").unwrap_err(), "unterminated ' quote");
    }
}
