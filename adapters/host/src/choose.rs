//! Which adapter reads a file, and as which format: [`choose`], the one decision that both
//! [`ingest`](crate::ingest) acts on and [`explain`](crate::explain()) shows
//! (`gapscore adapters --explain FILE`), so the two cannot disagree.

use gapscore_adapter_sdk::DETECT_PREFIX_LEN;

use crate::registry::{DetectError, Registered, Registry};

pub use crate::registry::SURE;

/// What the host does with one file, from its (decoded) prefix and name.
#[derive(Debug)]
pub(crate) enum Choice<'r> {
    /// Read it with this adapter, as this format.
    Read {
        /// The adapter.
        entry: &'r Registered,
        /// Its confidence (100 for a forced format).
        confidence: u8,
        /// The head rule decided, on this many content lines ([`crate::head`]).
        head_lines: Option<usize>,
        /// The format id passed to it.
        format: String,
    },
    /// Found in a directory and not read: a guess below [`SURE`], or documentation.
    LeftOut {
        /// Why, for the caller's note.
        reason: String,
    },
    /// Found in a directory and not read: no adapter recognises it.
    Skipped {
        /// Why.
        reason: String,
    },
    /// No adapter could be chosen (a tie, no claim on a named file, an unknown forced format).
    Failed(DetectError),
}

/// Chooses the adapter for a file: the forced `format` when given; otherwise the highest
/// detection score, alone at the top (a tie is an error), among the adapters that claim the
/// file's head when any does (the head rule, [`crate::head`]). A file found in a directory
/// (`explicit` false) is left out when the winner is below [`SURE`] or it is documentation,
/// and skipped when nothing claims it.
pub(crate) fn choose<'r>(
    registry: &'r Registry,
    prefix: &[u8],
    file_name: Option<&str>,
    explicit: bool,
    format: Option<&str>,
) -> Choice<'r> {
    let chosen = match format {
        Some(id) => registry.by_format(id).map(|e| (e, 100, None)),
        None => registry
            .detect_explained(prefix, file_name)
            .map(|d| (d.entry, d.confidence, d.head_lines)),
    };
    let (entry, confidence, head_lines) = match chosen {
        Ok((e, confidence, _)) if confidence < SURE && !explicit => {
            return Choice::LeftOut {
                reason: format!(
                    "the `{}` adapter would read it only as a guess ({confidence}/100: it holds more than results, like metadata or a summary), so it is not read as a second copy of the results; name the file to read it",
                    e.name()
                ),
            };
        }
        Ok(found) => found,
        Err(DetectError::NoMatch { .. })
            if !explicit
                && crate::notes::is_documentation(
                    file_name,
                    prefix,
                    // A full prefix may have more behind it, unchecked.
                    prefix.len() < DETECT_PREFIX_LEN,
                ) =>
        {
            return Choice::LeftOut {
                reason: "documentation (a README or notes), not results".to_owned(),
            };
        }
        Err(DetectError::NoMatch { .. }) if !explicit => {
            return Choice::Skipped {
                reason: "no adapter recognises it".to_owned(),
            };
        }
        Err(DetectError::NotResults { reason }) if !explicit => {
            return Choice::Skipped { reason };
        }
        Err(error) => return Choice::Failed(error),
    };
    let info = entry.adapter.info();
    let known = |id: &String| info.formats.iter().any(|f| f == id);
    let format = match format {
        Some(id) if known(&id.to_owned()) => id.to_owned(),
        _ => entry
            .adapter
            .detect_format(prefix, file_name)
            .filter(known)
            .or_else(|| info.formats.first().cloned())
            .unwrap_or_default(),
    };
    Choice::Read {
        entry,
        confidence,
        head_lines,
        format,
    }
}
