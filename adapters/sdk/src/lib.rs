#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! - [`Adapter`]: the trait every adapter implements — [`AdapterInfo`] (name, version, format
//!   ids), [`Adapter::detect`] (a 0–100 confidence from a file's first bytes and name) and
//!   [`Adapter::parse`] (bytes in, events out into an [`EventSink`]).
//! - [`abi`]: the C ABI — v2, streaming ([`abi::GapscoreAdapterV2`], [`abi::GapscoreHost`]:
//!   a read callback and an event-sink table), and v1, one JSON document
//!   ([`abi::GapscoreAdapterV1`]), which hosts still load — the [`export_adapter!`] macro that
//!   turns an [`Adapter`] into a loadable v2 plugin (its `parse_reader` streams; its
//!   [`Adapter::parse_in_parts`] may read a large file on several threads, [`abi::parts`]),
//!   and [`abi::c_header`], from which the committed `include/gapscore_adapter.h` is generated.
//! - [`detect`]: why an adapter claims a file ([`detect::Detection`], [`detect::Why`]), for
//!   [`Adapter::explain_detect`] and `gapscore adapters --explain FILE`.
//! - [`text`]: capped text ([`text::push_capped`], [`text::TEXT_CAP`], [`text::CUT_NOTE`]):
//!   messages and output kept per test are cut at 64 KiB with a note.
//! - [`json`]: what every JSON reader refuses the same way: a key given twice in one object
//!   ([`json::check_unique_keys`], at the second key's line and column); and
//!   [`json::stream`], one JSON document read from a stream in bounded memory, the elements
//!   of an array handed over one at a time ([`json::stream::for_each_element`]), syntax,
//!   UTF-8 and duplicate keys checked as it reads, a cut document kept up to the cut.
//!   (`serde_json::from_reader` on a `&mut dyn BufRead` makes a virtual call per byte: wrap
//!   the reader in a [`std::io::BufReader`], or use [`json::stream`].)
//! - [`lines`]: line-based streams ([`lines::LineReader`]): one line at a time from one reused
//!   buffer, each with its file offset, number and whether it ended in `\n`; line 1's UTF-8
//!   byte order mark left out of its bytes but counted in columns ([`lines::Line::column`]).
//! - [`encoding`]: result files in UTF-16 or XML declared Latin-1 ([`encoding::sniff`],
//!   [`encoding::Utf16Reader`], [`encoding::Latin1Reader`]), which the host decodes to UTF-8
//!   before any adapter sees them. A UTF-8 file's byte order mark does reach the adapter:
//!   [`encoding::strip_bom`] and [`encoding::skip_bom`] take it off.
//!
//! The canonical model ([`TestRun`], [`TestCase`], [`Status`], ...) is re-exported from
//! `gapscore-model`, the versioned crate of what crosses the boundary, so an adapter crate
//! depends on this crate alone. Test and benchmark helpers for adapter crates (the fixture
//! harness, the real-corpus truth checks, the bench harness) are in
//! `gapscore-adapter-testing`, a dev-dependency, so no plugin compiles them.

#![deny(missing_docs)]

pub mod abi;
pub mod detect;
pub mod encoding;
pub mod json;
pub use gapscore_model::{Code, codes};
pub mod lines;
pub mod text;

use serde::{Deserialize, Serialize};

pub use gapscore_model::{
    Attempt, Category, EventSink, InputError, Location, Normalizer, Problem, ProblemKind, Producer,
    RunCollector, Status, TestCase, TestCaseRef, TestRun, replay,
};
// Evidence beside the records (gapscore-model 0.4), which readers report and `judge` decides.
pub use gapscore_model::{Declared, DeclaredCount, Evidence, EvidenceSource, ReadCounts};
// Where a run happened, made relative by the host's normalizer (gapscore-model 0.5).
pub use gapscore_model::PathRoot;

/// What an adapter is: its name, version and the format ids it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AdapterInfo {
    /// Adapter name, `[a-z0-9][a-z0-9_-]*` (`junit`, `simple`, `c-lines`).
    pub name: String,
    /// The adapter's own version.
    pub version: String,
    /// Format ids it reads (`junit-xml`), at least one.
    pub formats: Vec<String>,
}

impl AdapterInfo {
    /// Describes an adapter.
    pub fn new(name: impl Into<String>, version: impl Into<String>, formats: &[&str]) -> Self {
        AdapterInfo {
            name: name.into(),
            version: version.into(),
            formats: formats.iter().map(|f| (*f).to_owned()).collect(),
        }
    }
}

/// Options for one parse call. Crosses the C ABI as a JSON object; unknown keys are ignored, so
/// new options never need a new ABI version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ParseOptions {
    /// The file name as the user gave it, for messages and `TestRun::source`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_name: Option<String>,
    /// The format id the host chose (for adapters reading several formats).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format_id: Option<String>,
}

impl ParseOptions {
    /// Options naming the source file.
    pub fn with_source(source: impl Into<String>) -> Self {
        ParseOptions {
            source_name: Some(source.into()),
            format_id: None,
        }
    }
}

/// Why an adapter could not read an input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AdapterError {
    /// The input is not valid for the format; carries the place.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The adapter does not support this input (a format variant it cannot read).
    #[error("unsupported input: {0}")]
    Unsupported(String),
    /// A plugin misbehaved (bad ABI, invalid output); the message names the plugin file.
    #[error("{0}")]
    Plugin(String),
    /// The adapter panicked; the message is the panic's.
    #[error("adapter panicked: {0}")]
    Panic(String),
    /// Reading the input failed part way, said in words only. Readers give
    /// [`AdapterError::Io`] instead, which keeps the operating system's error.
    #[error("cannot read: {0}")]
    Read(String),
    /// Reading the input failed part way (an I/O error, not bad content); the I/O error is the
    /// source. (Added in 0.3, beside [`AdapterError::Read`].)
    #[error(transparent)]
    Io(#[from] ReadError),
}

impl AdapterError {
    /// An I/O error met while reading, kept as the source.
    pub fn io(source: std::io::Error) -> Self {
        let reason = source.to_string();
        AdapterError::Io(ReadError::new(reason, source))
    }
}

impl From<std::io::Error> for AdapterError {
    fn from(e: std::io::Error) -> Self {
        AdapterError::io(e)
    }
}

/// An I/O error met part way through an input, kept whole as the [`std::error::Error::source`]
/// (shared, so that the error stays `Clone`), with the words it is shown in.
#[derive(Debug, Clone)]
pub struct ReadError {
    reason: String,
    source: std::sync::Arc<std::io::Error>,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot read: {}", self.reason)
    }
}

// By hand: the source is the `io::Error` itself, not the `Arc` around it, so that a caller
// can downcast it.
impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

impl ReadError {
    /// The error, shown as `cannot read: {reason}`.
    pub fn new(reason: impl Into<String>, source: std::io::Error) -> Self {
        ReadError {
            reason: reason.into(),
            source: std::sync::Arc::new(source),
        }
    }

    /// The I/O error.
    pub fn io_error(&self) -> &std::io::Error {
        &self.source
    }
}

// Two read errors are the same when they say the same of the same kind of failure.
impl PartialEq for ReadError {
    fn eq(&self, other: &Self) -> bool {
        self.reason == other.reason && self.source.kind() == other.source.kind()
    }
}

impl Eq for ReadError {}

/// A gapscore adapter. Implementations must be pure with respect to their inputs: `detect` and
/// `parse` may be called concurrently from many threads on different inputs.
pub trait Adapter: Send + Sync {
    /// Name, version and format ids.
    fn info(&self) -> &AdapterInfo;

    /// How sure the adapter is that it can read a file, 0 (no) to 100 (certain), from at most
    /// the first 64 KiB (`prefix`) and the file name (which may be absent).
    fn detect(&self, prefix: &[u8], file_name: Option<&str>) -> u8;

    /// [`Adapter::detect`], or why no score could be had at all: for a host, an adapter whose
    /// detection runs elsewhere and can fail (a plugin isolated in a child process that crashed
    /// or hung while detecting). The host fails the file with the reason rather than read a
    /// failed detection as "no claim", which would leave a file found in a directory unread.
    /// The default is [`Adapter::detect`], which cannot fail.
    fn try_detect(&self, prefix: &[u8], file_name: Option<&str>) -> Result<u8, String> {
        Ok(self.detect(prefix, file_name))
    }

    /// [`Adapter::detect`]'s score for a file, with the conditions it checked and their
    /// outcomes, for `gapscore adapters --explain FILE`. The default gives the score only and
    /// says so; an adapter that writes its detection once over a [`detect::Why`] answers both
    /// from the same code.
    fn explain_detect(&self, prefix: &[u8], file_name: Option<&str>) -> detect::Detection {
        detect::Detection::score_only(
            self.detect(prefix, file_name),
            "this adapter gives its score only, not the conditions behind it",
        )
    }

    /// For an adapter reading several formats: which of its format ids a file it detected is
    /// in, from the same prefix and name. The host passes it as [`ParseOptions::format_id`]
    /// and records it as the file's format. `None` (the default) means the first id.
    /// Plugins cannot answer through the C ABI: a plugin's parse receives its first id when
    /// its file was detected, and tells its formats apart itself.
    fn detect_format(&self, _prefix: &[u8], _file_name: Option<&str>) -> Option<String> {
        None
    }

    /// Reads one whole document and pushes what it finds into `sink`.
    fn parse(
        &self,
        input: &[u8],
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError>;

    /// Reads a document from a stream. The default reads it whole and calls [`Adapter::parse`];
    /// streaming adapters override it so memory does not grow with the file. Errors may carry
    /// a [`Location::Offset`]: the host, which knows the file, turns it into a line and column.
    fn parse_reader(
        &self,
        reader: &mut dyn std::io::BufRead,
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        let mut input = Vec::new();
        reader.read_to_end(&mut input).map_err(AdapterError::io)?;
        self.parse(&input, opts, sink)
    }

    /// Reads a document that the host also offers in parts ([`abi::parts`]: a plugin, a large
    /// file, more than one thread): an adapter that can read a later stretch of its format on
    /// its own may read some of it on other threads, into [`abi::parts::PartSink`]s, and
    /// append them; the events must be those [`Adapter::parse_reader`] gives. The default
    /// ignores the offer.
    fn parse_in_parts(
        &self,
        reader: &mut dyn std::io::BufRead,
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
        parts: &abi::parts::Parts<'_>,
    ) -> Result<(), AdapterError> {
        let _ = parts;
        self.parse_reader(reader, opts, sink)
    }
}

/// For detection: true when `key` (with its quotes, `b"\"tests\""`) occurs in `text` as a JSON
/// object key, followed by optional whitespace and `:`. The same word as a value (a
/// `package.json`'s `"files": ["tests"]`) or inside a string (escaped quotes) does not count.
pub fn json_has_key(text: &[u8], key: &[u8]) -> bool {
    let mut rest = text;
    while let Some(pos) = rest.windows(key.len()).position(|w| w == key) {
        let after = &rest[pos + key.len()..];
        if after.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b':') {
            return true;
        }
        rest = &rest[pos + 1..];
    }
    false
}

/// How many bytes of a file [`Adapter::detect`] sees.
pub const DETECT_PREFIX_LEN: usize = 64 * 1024;

/// Parses a whole input into a [`TestRun`] (through a [`Normalizer`], so unfinished tests become
/// problems), naming the run's source and format.
pub fn parse_to_run(
    adapter: &dyn Adapter,
    input: &[u8],
    opts: &ParseOptions,
) -> Result<TestRun, AdapterError> {
    let format = opts
        .format_id
        .clone()
        .or_else(|| adapter.info().formats.first().cloned())
        .unwrap_or_default();
    let mut sink = Normalizer::new(RunCollector::new(format, opts.source_name.clone()));
    adapter.parse(input, opts, &mut sink)?;
    Ok(sink.finish().into_run())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn a_read_error_keeps_the_io_error_as_its_source() {
        let e = AdapterError::io(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "gone",
        ));
        assert_eq!(e.to_string(), "cannot read: gone");
        // `Io` is transparent: its source is the read error's, the I/O error.
        let io = e.source().and_then(|s| s.downcast_ref::<std::io::Error>());
        assert_eq!(
            io.map(std::io::Error::kind),
            Some(std::io::ErrorKind::UnexpectedEof)
        );
        assert_eq!(e.clone(), e);
    }
}
