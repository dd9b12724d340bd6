//! The child's side of `--plugin-isolate`: `gapscore __plugin-serve FILE VERB…` loads one C-ABI
//! plugin in this process and answers as an executable adapter would (docs/abi.md, "Executable
//! adapters"): `--gapscore-info` prints the info document, `--gapscore-parse OPTIONS_JSON`
//! reads the file on stdin and writes NDJSON events. One more verb, for the parent only:
//! `--gapscore-detect [NAME]` reads a file's first 64 KiB on stdin and prints the plugin's
//! confidence.

use std::io::{BufWriter, Read as _, Write};
use std::path::Path;

use gapscore_adapter_sdk::{
    Adapter, AdapterError, Code, DETECT_PREFIX_LEN, EventSink, InputError, Location, ParseOptions,
    Problem, Producer, TestCase,
};
use serde::Serialize;

use crate::loader::load_plugin;

/// How a [`serve_plugin`] call ended, for the child's exit status (the CLI maps it onto its
/// exit codes: 0, 1, 2), which the parent reads as an executable adapter's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    /// Answered (exit 0).
    Done,
    /// The plugin found the input invalid; the `error` event says where (exit 1, as the
    /// protocol asks).
    InvalidInput,
    /// The plugin could not be loaded or failed; stderr holds the message, which names the
    /// plugin (exit 2).
    Failed,
}

/// Serves the plugin `path` for one verb. Whatever the plugin does to this process, the
/// parent only loses this one call.
pub fn serve_plugin(path: &Path, debug: bool, verb: &[String]) -> Served {
    let plugin = match load_plugin(path) {
        Ok(p) => p.with_debug(debug),
        Err(e) => return say(&e.reason),
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let status = match verb {
        [v] if v == "--gapscore-info" => {
            let info = plugin.info();
            let doc = serde_json::json!({
                "gapscore_exec_adapter": super::EXEC_PROTOCOL_VERSION,
                "name": info.name,
                "version": info.version,
                "formats": info.formats,
            });
            writeln!(out, "{doc}").map_or(Served::Failed, |()| Served::Done)
        }
        [v, name @ ..] if v == "--gapscore-detect" && name.len() <= 1 => {
            let mut prefix = Vec::with_capacity(DETECT_PREFIX_LEN);
            if let Err(e) = std::io::stdin()
                .lock()
                .take(DETECT_PREFIX_LEN as u64)
                .read_to_end(&mut prefix)
            {
                return say(&format!("cannot read the prefix: {e}"));
            }
            let score = plugin.detect(&prefix, name.first().map(String::as_str));
            writeln!(out, "{score}").map_or(Served::Failed, |()| Served::Done)
        }
        [v, opts] if v == "--gapscore-parse" => {
            let opts: ParseOptions = match serde_json::from_str(opts) {
                Ok(o) => o,
                Err(e) => return say(&format!("invalid parse options: {e}")),
            };
            return parse(&plugin, &opts, out);
        }
        _ => say(
            "expected --gapscore-info, --gapscore-detect [NAME] or --gapscore-parse OPTIONS_JSON",
        ),
    };
    if out.flush().is_err() {
        return Served::Failed;
    }
    status
}

/// Writes `message` on stderr: the failure the parent shows.
fn say(message: &str) -> Served {
    let _ = writeln!(std::io::stderr(), "{message}");
    Served::Failed
}

fn parse(plugin: &dyn Adapter, opts: &ParseOptions, out: impl Write) -> Served {
    let stdin = std::io::stdin();
    let mut input = std::io::BufReader::with_capacity(64 * 1024, stdin.lock());
    let mut sink = Emit {
        out,
        tests: 0,
        broken: false,
    };
    // What the plugin leaves unread is not drained: the parent stops writing when the pipe
    // closes, as for any executable adapter.
    let result = plugin.parse_reader(&mut input, opts, &mut sink);
    let status = match result {
        Ok(()) => {
            let tests = sink.tests;
            sink.line(&Line::End { tests });
            Served::Done
        }
        Err(AdapterError::Input(e)) => {
            let (message, line, column, offset) = error_parts(&e);
            sink.line(&Line::Error {
                message: &message,
                line,
                column,
                offset,
            });
            Served::InvalidInput
        }
        // The same words as in-process (`unsupported input: …`, `plugin `x` (path): …`).
        Err(e) => say(&e.to_string()),
    };
    if sink.out.flush().is_err() || sink.broken {
        return Served::Failed;
    }
    status
}

/// One event line of the protocol.
#[derive(Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum Line<'a> {
    Producer {
        name: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        version: Option<&'a str>,
    },
    TestStarted {
        #[serde(skip_serializing_if = "Option::is_none")]
        suite: Option<&'a str>,
        name: &'a str,
        id: &'a str,
    },
    TestFinished {
        test: &'a TestCase,
    },
    Problem {
        problem: &'a Problem,
    },
    Warning {
        message: &'a str,
        code: &'a str,
    },
    Error {
        message: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        line: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        column: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        offset: Option<u64>,
    },
    End {
        tests: u64,
    },
}

/// An input error as the `error` event's members: message, line, column, offset.
fn error_parts(e: &InputError) -> (String, Option<u64>, Option<u64>, Option<u64>) {
    let (location, message) = match e {
        InputError::Syntax { location, message } | InputError::Content { location, message } => {
            (Some(location), message.clone())
        }
        InputError::Empty(m) | InputError::Unlocated(m) => (None, m.clone()),
        // A kind this host does not know: its words, unlocated.
        other => (None, other.to_string()),
    };
    match location {
        Some(Location::LineCol { line, column }) => {
            (message, Some(*line as u64), Some(*column as u64), None)
        }
        Some(Location::Offset(o)) => (message, None, None, Some(*o)),
        _ => (message, None, None, None),
    }
}

/// The sink that writes each event as a protocol line.
struct Emit<W: Write> {
    out: W,
    tests: u64,
    /// Stdout failed (the parent stopped reading): later events are dropped.
    broken: bool,
}

impl<W: Write> Emit<W> {
    fn line(&mut self, line: &Line<'_>) {
        if self.broken {
            return;
        }
        let written = serde_json::to_writer(&mut self.out, line)
            .map_err(std::io::Error::from)
            .and_then(|()| self.out.write_all(b"\n"));
        if written.is_err() {
            self.broken = true;
        }
    }
}

impl<W: Write> EventSink for Emit<W> {
    fn producer(&mut self, producer: Producer) {
        self.line(&Line::Producer {
            name: &producer.name,
            version: producer.version.as_deref(),
        });
    }

    fn test_started(&mut self, suite: Option<&str>, name: &str, id: &str) {
        self.line(&Line::TestStarted { suite, name, id });
    }

    fn test_finished(&mut self, test: TestCase) {
        self.tests += 1;
        self.line(&Line::TestFinished { test: &test });
    }

    fn problem(&mut self, problem: Problem) {
        self.line(&Line::Problem { problem: &problem });
    }

    fn warning(&mut self, message: String) {
        self.coded_warning(Code::AdapterWarning, message);
    }

    fn coded_warning(&mut self, code: Code, message: String) {
        self.line(&Line::Warning {
            message: &message,
            code: code.as_str(),
        });
    }
}
