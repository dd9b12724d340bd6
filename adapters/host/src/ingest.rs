//! Parallel ingestion: expand the user's inputs ([`expand_inputs`]), then read, detect and parse
//! every file on a rayon pool ([`ingest`]). Results come back in input order whatever the
//! number of threads, and one bad file never stops the others.

use std::fs::{self, File};
use std::io::Read as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use gapscore_adapter_sdk::PathRoot;
use gapscore_adapter_sdk::encoding::{self, Encoding};
use gapscore_adapter_sdk::{
    AdapterError, DETECT_PREFIX_LEN, EventSink, InputError, Location, Normalizer, ParseOptions,
};
use rayon::prelude::*;

pub use crate::choose::SURE;
use crate::choose::{Choice, choose};
use crate::loader::PluginAdapter;
use crate::registry::{DetectError, Origin, Registry};
use crate::split::{
    AppendParts, PartInput, Parted, SplitOptions, SplitPoints, part_input, read_split, split_points,
};

/// One input file, and whether the user named it (rather than a directory or glob finding it).
///
/// Standard input (`-`) and a pipe passed by path (`<(go test -json)`, which the shell passes
/// as `/dev/fd/N`) are copied to a temporary file first: a file that failed is read again to
/// turn a byte offset into a line and column, and a suite with repeated test ids is read twice.
/// The copy is removed when the last clone of the input is dropped.
#[derive(Debug, Clone)]
pub struct Input {
    /// The path as the user gave it; `<stdin>` for `-`. Messages and reports name this.
    pub path: PathBuf,
    /// Named on the command line. A file found in a directory that no adapter recognises is
    /// skipped with a note instead of failing the run.
    pub explicit: bool,
    /// The copy of a pipe that is read in place of `path`.
    spool: Option<Arc<tempfile::TempPath>>,
    /// A file read in place of `path`, which names it ([`Input::shown_as`]).
    read_from: Option<PathBuf>,
}

impl Input {
    /// A file to read.
    pub fn new(path: impl Into<PathBuf>, explicit: bool) -> Self {
        Input {
            path: path.into(),
            explicit,
            spool: None,
            read_from: None,
        }
    }

    /// The file `source`, named `shown` in messages and reports: a copy made elsewhere whose
    /// own path means nothing to the user (`gapscore run --results -` reads the command's
    /// standard output from a temporary file and names it `-`).
    pub fn shown_as(shown: impl Into<PathBuf>, source: impl Into<PathBuf>) -> Self {
        Input {
            path: shown.into(),
            explicit: true,
            spool: None,
            read_from: Some(source.into()),
        }
    }

    /// The file that holds the bytes: the path, or the copy of a pipe (which can be read
    /// again, unlike the pipe), or the file it is [shown as](Input::shown_as) another name of.
    pub fn source(&self) -> &Path {
        match (&self.spool, &self.read_from) {
            (Some(t), _) => t.as_ref(),
            (None, Some(p)) => p,
            (None, None) => &self.path,
        }
    }
}

impl PartialEq for Input {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path && self.explicit == other.explicit
    }
}

impl Eq for Input {}

/// How standard input is named in messages and reports.
pub const STDIN_NAME: &str = "<stdin>";

/// Standard input can be read once per process.
static STDIN_TAKEN: AtomicBool = AtomicBool::new(false);

/// A path the shell made for a pipe (process substitution) or for standard input.
fn is_pipe_path(path: &Path) -> bool {
    let fd_dir = |dir: &str| {
        path.strip_prefix(dir)
            .is_ok_and(|rest| rest.to_str().is_some_and(|n| n.parse::<u32>().is_ok()))
    };
    (fd_dir("/dev/fd") || fd_dir("/proc/self/fd") || path == Path::new("/dev/stdin"))
        && is_fifo(path)
}

#[cfg(unix)]
fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt as _;
    fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

#[cfg(not(unix))]
fn is_fifo(_: &Path) -> bool {
    false
}

/// Copies standard input or a pipe to a temporary file, as the input that names it.
fn spool(arg: &Path) -> Result<Input, IngestError> {
    let stdin = arg == Path::new("-");
    let shown = if stdin {
        STDIN_NAME.to_owned()
    } else {
        arg.display().to_string()
    };
    let fail = |reason: String| IngestError::Read {
        path: shown.clone(),
        reason,
    };
    if stdin && STDIN_TAKEN.swap(true, Ordering::SeqCst) {
        return Err(fail(
            "standard input (`-`) was already read for another argument".to_owned(),
        ));
    }
    let mut tmp = tempfile::NamedTempFile::new().map_err(|e| {
        fail(format!(
            "cannot make a temporary copy: {}",
            crate::io_reason(&e)
        ))
    })?;
    let copied = if stdin {
        std::io::copy(&mut std::io::stdin().lock(), &mut tmp)
    } else {
        File::open(arg).and_then(|mut f| std::io::copy(&mut f, &mut tmp))
    };
    copied.map_err(|e| fail(crate::io_reason(&e)))?;
    Ok(Input {
        path: PathBuf::from(shown),
        explicit: true,
        spool: Some(Arc::new(tmp.into_temp_path())),
        read_from: None,
    })
}

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IngestError {
    /// The file could not be opened or read.
    #[error("{path}: cannot read: {reason}")]
    Read {
        /// The file as given.
        path: String,
        /// The OS reason.
        reason: String,
    },
    /// A glob matched nothing.
    #[error("{pattern}: pattern matched no files")]
    NoMatch {
        /// The pattern.
        pattern: String,
    },
    /// No adapter could be chosen.
    #[error("{path}: {error}")]
    Detect {
        /// The file.
        path: String,
        /// Why.
        error: DetectError,
    },
    /// The chosen adapter rejected the file.
    #[error("{path}{}{error} ({adapter} adapter)", sep(.error))]
    Parse {
        /// The file.
        path: String,
        /// The adapter's name.
        adapter: String,
        /// What it said.
        error: AdapterError,
    },
}

fn sep(e: &AdapterError) -> &'static str {
    // `file:line:col: message` when the error has a line and column, `file: message` otherwise.
    match e {
        AdapterError::Input(i) if i.location().is_some() => ":",
        _ => ": ",
    }
}

impl IngestError {
    /// The file (or pattern) the error is about.
    pub fn path(&self) -> &str {
        match self {
            IngestError::Read { path, .. }
            | IngestError::Detect { path, .. }
            | IngestError::Parse { path, .. } => path,
            IngestError::NoMatch { pattern } => pattern,
        }
    }
}

/// Expands the user's arguments into files: a directory is walked (sorted, not following
/// symbolic links to directories, so loops cannot hang it), a path with `*`, `?` or `[` that
/// does not exist as written is a glob, anything else is taken as a file.
pub fn expand_inputs(args: &[PathBuf]) -> (Vec<Input>, Vec<IngestError>) {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    for arg in args {
        let text = arg.to_string_lossy();
        if arg == Path::new("-") || is_pipe_path(arg) {
            match spool(arg) {
                Ok(input) => inputs.push(input),
                Err(e) => errors.push(e),
            }
        } else if arg.is_dir() {
            let before = inputs.len();
            walk(arg, &mut inputs);
            if inputs.len() == before {
                errors.push(IngestError::Read {
                    path: text.into_owned(),
                    reason: "directory contains no files".to_owned(),
                });
            }
        } else if !arg.exists() && text.contains(['*', '?', '[']) {
            match glob::glob(&text) {
                Ok(paths) => {
                    let mut found: Vec<PathBuf> = paths.filter_map(Result::ok).collect();
                    found.sort();
                    if found.is_empty() {
                        errors.push(IngestError::NoMatch {
                            pattern: text.into_owned(),
                        });
                    }
                    for p in found {
                        if p.is_dir() {
                            walk(&p, &mut inputs);
                        } else {
                            inputs.push(Input::new(p, true));
                        }
                    }
                }
                Err(e) => errors.push(IngestError::Read {
                    path: text.into_owned(),
                    reason: format!("invalid pattern: {e}"),
                }),
            }
        } else {
            inputs.push(Input::new(arg.clone(), true));
        }
    }
    (inputs, errors)
}

fn walk(dir: &Path, out: &mut Vec<Input>) {
    let Ok(entries) = fs::read_dir(dir) else {
        out.push(Input::new(dir, true));
        return;
    };
    let mut children: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    children.sort();
    for c in children {
        // symlink_metadata: a symlink to a directory is not followed.
        match fs::symlink_metadata(&c) {
            Ok(m) if m.is_dir() => walk(&c, out),
            Ok(_) if c.is_file() => out.push(Input::new(c, false)),
            _ => {}
        }
    }
}

/// Options for [`ingest`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct IngestOptions {
    /// A format id (or adapter name) forced for every file, instead of detection.
    pub format: Option<String>,
    /// Worker threads; 0 means one per core.
    pub jobs: usize,
    /// Run on the rayon pool the caller is already in (batch scoring reads many repositories
    /// on one pool) instead of building a pool of `jobs` threads for this call.
    pub current_pool: bool,
    /// When and in how many parts [`ingest_appendable`] reads a large JUnit file.
    pub split: SplitOptions,
    /// Where the run that wrote the files happened, when the caller knows: removed from the
    /// start of test ids, suites and files (Jest and Vitest write absolute paths), so ids do
    /// not depend on where the run happened ([`Normalizer::relative_to`]). `None` (the default)
    /// keeps them as written.
    pub relative_to: Option<PathRoot>,
}

impl IngestOptions {
    /// Options with a forced format and a thread count.
    pub fn new(format: Option<String>, jobs: usize) -> Self {
        IngestOptions {
            format,
            jobs,
            current_pool: false,
            split: SplitOptions::default(),
            relative_to: None,
        }
    }
}

/// What was read from one file.
#[derive(Debug)]
pub struct Parsed<C> {
    /// The adapter that read it.
    pub adapter: String,
    /// The format id.
    pub format: String,
    /// The consumer, holding what it kept of the events.
    pub consumer: C,
}

/// The outcome for one input file, in input order.
#[derive(Debug)]
pub enum Outcome<C> {
    /// Read.
    Parsed(Parsed<C>),
    /// A file found in a directory that no adapter recognises. Not read; the caller decides
    /// what that means (scoring treats it as an error, as for a named file: a result file the
    /// tool cannot read must never be dropped silently).
    Skipped {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// A file found in a directory that an adapter would read only as a guess (a JSON object
    /// with a `tests` array beside other data: metadata, a summary, ground truth). Not read, so
    /// it is never counted as a second copy of the results; the caller says so. Named on the
    /// command line, the same file is read.
    LeftOut {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// Could not be read.
    Failed(IngestError),
}

/// Reads, detects and parses every input on a pool of `opts.jobs` threads. `make` builds the
/// consumer for a file (given its display path and format id); each file's events pass through
/// a [`Normalizer`] into it. Adapter panics are caught and become that file's error.
pub fn ingest<C, F>(
    registry: &Registry,
    inputs: &[Input],
    opts: &IngestOptions,
    make: F,
) -> Vec<Outcome<C>>
where
    C: EventSink + Send,
    F: Fn(&str, &str) -> C + Sync,
{
    ingest_with(registry, inputs, opts, make, None)
}

/// [`ingest`], with a large JUnit file read in parts on several threads when `opts.split`
/// allows it (see [`SplitOptions`]), and a v2 plugin that reads in parts offered the file so:
/// its consumer is made once per part and the later ones appended to the first as `append`
/// says.
pub fn ingest_appendable<C, F>(
    registry: &Registry,
    inputs: &[Input],
    opts: &IngestOptions,
    append: AppendParts<C>,
    make: F,
) -> Vec<Outcome<C>>
where
    C: EventSink + Send + 'static,
    F: Fn(&str, &str) -> C + Sync,
{
    ingest_with(registry, inputs, opts, make, Some(&append))
}

/// How [`ingest_appendable`] reads one file in parts, with the built-in JUnit reader and with a
/// v2 plugin. A trait object, so that [`ingest`]'s consumers need not be `'static` (which only
/// the plugin side's hand-back of its parts, through `Any`, needs).
trait ReadInParts<C>: Sync {
    /// The built-in JUnit reader on `whole`, its later parts from `points`.
    fn builtin(
        &self,
        whole: &mut dyn std::io::BufRead,
        points: SplitPoints,
        make: &(dyn Fn() -> C + Sync),
        root: Option<&PathRoot>,
    ) -> Result<C, AdapterError>;

    /// A v2 plugin offered the file in parts ([`crate::loader::PartInput`]).
    fn plugin(
        &self,
        plugin: &PluginAdapter,
        whole: &mut dyn std::io::BufRead,
        opts: &ParseOptions,
        input: PartInput,
        make: &(dyn Fn() -> C + Sync),
        root: Option<&PathRoot>,
    ) -> Result<C, AdapterError>;
}

impl<C: EventSink + Send + 'static> ReadInParts<C> for AppendParts<C> {
    fn builtin(
        &self,
        whole: &mut dyn std::io::BufRead,
        points: SplitPoints,
        make: &(dyn Fn() -> C + Sync),
        root: Option<&PathRoot>,
    ) -> Result<C, AdapterError> {
        read_split(whole, points, *self, make, root)
    }

    fn plugin(
        &self,
        plugin: &PluginAdapter,
        whole: &mut dyn std::io::BufRead,
        opts: &ParseOptions,
        input: PartInput,
        make: &(dyn Fn() -> C + Sync),
        root: Option<&PathRoot>,
    ) -> Result<C, AdapterError> {
        let mut sink = Parted {
            sink: Normalizer::new(make()).relative_to(root.cloned()),
            make,
            append: *self,
            root: root.cloned(),
        };
        plugin.parse_parted(whole, opts, &mut sink, input)?;
        Ok(sink.sink.finish())
    }
}

fn ingest_with<C, F>(
    registry: &Registry,
    inputs: &[Input],
    opts: &IngestOptions,
    make: F,
    split: Option<&dyn ReadInParts<C>>,
) -> Vec<Outcome<C>>
where
    C: EventSink + Send,
    F: Fn(&str, &str) -> C + Sync,
{
    let work = || -> Vec<Outcome<C>> {
        inputs
            .par_iter()
            .map(|input| ingest_one(registry, input, opts, &make, split))
            .collect()
    };
    if opts.current_pool {
        return work();
    }
    match rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .build()
    {
        Ok(pool) => pool.install(work),
        // No pool (thread creation refused): the global pool still gives correct, ordered results.
        Err(_) => work(),
    }
}

fn ingest_one<C, F>(
    registry: &Registry,
    input: &Input,
    opts: &IngestOptions,
    make: &F,
    split: Option<&dyn ReadInParts<C>>,
) -> Outcome<C>
where
    C: EventSink + Send,
    F: Fn(&str, &str) -> C + Sync,
{
    let shown = input.path.display().to_string();
    // Only the first 64 KiB are read for detection; the rest streams into the adapter, so a
    // streaming adapter keeps memory flat whatever the file's size.
    let (prefix, file, encoding) = match open_with_prefix(input.source()) {
        Ok(p) => p,
        Err(reason) => {
            return Outcome::Failed(IngestError::Read {
                path: shown,
                reason,
            });
        }
    };
    let file_name = input.path.file_name().and_then(|n| n.to_str());
    let (entry, format) = match choose(
        registry,
        &prefix,
        file_name,
        input.explicit,
        opts.format.as_deref(),
    ) {
        Choice::Read { entry, format, .. } => (entry, format),
        Choice::LeftOut { reason } => {
            return Outcome::LeftOut {
                path: shown,
                reason,
            };
        }
        Choice::Skipped { reason } => {
            return Outcome::Skipped {
                path: shown,
                reason,
            };
        }
        Choice::Failed(error) => {
            return Outcome::Failed(IngestError::Detect { path: shown, error });
        }
    };
    let info = entry.adapter.info();
    let mut popts = ParseOptions::with_source(shown.clone());
    popts.format_id = Some(format.clone());
    // The built-in JUnit reader: its parts give its one pass's events. A v2 plugin is offered
    // parts and decides itself whether its format can be cut.
    let utf8 = encoding == Encoding::Utf8;
    let in_parts = split
        .filter(|_| entry.origin == Origin::BuiltIn && info.name == "junit" && utf8)
        .and_then(|read| Some((read, split_points(input.source(), &opts.split)?)));
    let plugin_parts = split
        .zip(entry.plugin.as_ref())
        .filter(|(_, plugin)| utf8 && plugin.takes_parts())
        .and_then(|(read, plugin)| Some((read, plugin, part_input(input.source(), &opts.split)?)));
    let root = opts.relative_to.as_ref();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut reader =
            std::io::BufReader::with_capacity(64 * 1024, std::io::Cursor::new(prefix).chain(file));
        let make_part = || make(&shown, &format);
        if let Some((read, points)) = in_parts {
            return read.builtin(&mut reader, points, &make_part, root);
        }
        if let Some((read, plugin, part_input)) = plugin_parts {
            return read.plugin(plugin, &mut reader, &popts, part_input, &make_part, root);
        }
        let mut sink = Normalizer::new(make(&shown, &format)).relative_to(root.cloned());
        entry
            .adapter
            .parse_reader(&mut reader, &popts, &mut sink)
            .map(|()| sink.finish())
    }));
    let error = match result {
        Ok(Ok(consumer)) => {
            return Outcome::Parsed(Parsed {
                adapter: info.name.clone(),
                format,
                consumer,
            });
        }
        Ok(Err(e)) => locate(e, input.source(), encoding),
        Err(p) => AdapterError::Panic(
            p.downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "non-string panic payload".to_owned()),
        ),
    };
    Outcome::Failed(IngestError::Parse {
        path: shown,
        adapter: info.name.clone(),
        error,
    })
}

/// A result file opened for reading: UTF-8 as it is on disk, or UTF-16 or Latin-1 decoded to
/// UTF-8 as it streams (the adapters read UTF-8 only).
pub(crate) type Source = Box<dyn std::io::Read + Send>;

/// Opens a file and reads up to [`DETECT_PREFIX_LEN`] bytes of it (decoded, when it is UTF-16
/// or declared Latin-1);
/// a directory, FIFO, unreadable file or UTF-32 file is an error with a plain reason.
pub(crate) fn open_with_prefix(path: &Path) -> Result<(Vec<u8>, Source, Encoding), String> {
    let meta = fs::metadata(path).map_err(|e| crate::io_reason(&e))?;
    if meta.is_dir() {
        return Err("is a directory, not a result file".to_owned());
    }
    if is_fifo(path) {
        return Err(
            "a named pipe (FIFO): gapscore does not open one, as it would wait for a \
             writer that may never come; pipe the results into `-` or pass `<(command)`"
                .to_owned(),
        );
    }
    if !meta.is_file() {
        return Err("not a regular file".to_owned());
    }
    let mut f = File::open(path).map_err(|e| crate::io_reason(&e))?;
    let mut prefix = Vec::with_capacity(DETECT_PREFIX_LEN.min(meta.len() as usize));
    (&mut f)
        .take(DETECT_PREFIX_LEN as u64)
        .read_to_end(&mut prefix)
        .map_err(|e| crate::io_reason(&e))?;
    let encoding = encoding::sniff(&prefix);
    match encoding {
        Encoding::Utf16 { .. } | Encoding::Latin1 => {
            let mut decoded = decoding(encoding, std::io::Cursor::new(prefix).chain(f));
            let mut prefix = Vec::with_capacity(DETECT_PREFIX_LEN);
            (&mut decoded)
                .take(DETECT_PREFIX_LEN as u64)
                .read_to_end(&mut prefix)
                .map_err(|e| format!("{} file: {e}", encoding.name()))?;
            Ok((prefix, decoded, encoding))
        }
        Encoding::Utf32 { .. } => Err(format!(
            "the file is {0}; gapscore reads UTF-8 and UTF-16 (convert it: iconv -f {0} -t UTF-8)",
            encoding.name()
        )),
        _ => Ok((prefix, Box::new(f), encoding)),
    }
}

/// The file's bytes as UTF-8: decoded when it is UTF-16 or declared Latin-1, as they are otherwise.
fn decoding(encoding: Encoding, raw: impl std::io::Read + Send + 'static) -> Source {
    match encoding {
        Encoding::Utf16 { big_endian } => Box::new(encoding::Utf16Reader::new(raw, big_endian)),
        Encoding::Latin1 => Box::new(encoding::Latin1Reader::new(raw)),
        _ => Box::new(raw),
    }
}

/// A streaming adapter reports a byte offset; the host has the file, so it turns the offset
/// into a line and column by reading the file again up to that point (decoded as the adapter
/// read it: the offset counts UTF-8 bytes).
fn locate(e: AdapterError, path: &Path, encoding: Encoding) -> AdapterError {
    let AdapterError::Input(InputError::Syntax {
        location: Location::Offset(offset),
        message,
    }) = e
    else {
        return e;
    };
    let Ok(f) = File::open(path) else {
        return AdapterError::Input(InputError::Syntax {
            location: Location::Offset(offset),
            message,
        });
    };
    let f = decoding(encoding, f);
    let (mut line, mut column) = (1usize, 1usize);
    let mut reader = std::io::BufReader::new(f.take(offset));
    let mut buf = Vec::with_capacity(64 * 1024);
    let mut partial: Vec<u8> = Vec::new();
    loop {
        buf.clear();
        match std::io::BufRead::read_until(&mut reader, b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    line += 1;
                    partial.clear();
                } else {
                    partial.extend_from_slice(&buf);
                }
            }
        }
    }
    column += String::from_utf8_lossy(&partial).chars().count();
    AdapterError::Input(InputError::Syntax {
        location: Location::LineCol { line, column },
        message,
    })
}
