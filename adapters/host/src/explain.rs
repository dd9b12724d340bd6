//! Why a file is read by the adapter that reads it: [`explain`] gives, for each file, every
//! adapter's detection score with its reasons ([`Adapter::explain_detect`]) and the host's
//! decision, taken by the same [`choose`](crate::choose) that ingestion acts on, after the same
//! decoding of the same 64 KiB prefix. `gapscore adapters --explain FILE` prints it.
//!
//! [`Adapter::explain_detect`]: gapscore_adapter_sdk::Adapter::explain_detect

use gapscore_adapter_sdk::DETECT_PREFIX_LEN;
use gapscore_adapter_sdk::detect::Detection;
use gapscore_adapter_sdk::encoding::Encoding;

use crate::choose::{Choice, SURE, choose};
use crate::ingest::{IngestError, Input, open_with_prefix};
use crate::registry::{Registered, Registry};

/// One adapter's detection of a file.
#[derive(Debug)]
pub struct AdapterDetection<'r> {
    /// The adapter.
    pub entry: &'r Registered,
    /// Its score, and why.
    pub detection: Detection,
}

/// What the host does with a file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// Read by this adapter, as this format.
    Read {
        /// The adapter's name.
        adapter: String,
        /// The format id.
        format: String,
        /// Its score.
        confidence: u8,
        /// Why this one: the rule that chose it.
        why: String,
    },
    /// Found in a directory and left out (a guess below [`SURE`], or documentation).
    LeftOut {
        /// Why.
        reason: String,
    },
    /// Found in a directory and skipped: nothing claims it.
    Skipped {
        /// Why.
        reason: String,
    },
    /// The file fails: no adapter can be chosen (a tie, or no claim on a named file).
    Failed {
        /// Why, as the error reads.
        reason: String,
    },
}

/// A file's detection, explained.
#[derive(Debug)]
pub struct FileExplanation<'r> {
    /// The file as the user named it.
    pub path: String,
    /// Named on the command line (rather than found in a directory).
    pub explicit: bool,
    /// The file's encoding on disk, as `iconv -f` names it (`UTF-8`, `UTF-16LE`,
    /// `windows-1252`).
    pub encoding: &'static str,
    /// UTF-16 or declared Latin-1, decoded to UTF-8 before any adapter saw the prefix.
    pub decoded: bool,
    /// The (decoded) prefix starts with a UTF-8 byte order mark, which adapters see.
    pub bom: bool,
    /// The bytes of the prefix the adapters judged (at most [`DETECT_PREFIX_LEN`]).
    pub prefix_len: usize,
    /// Every adapter's detection, in registry order.
    pub adapters: Vec<AdapterDetection<'r>>,
    /// What the host does with the file.
    pub decision: Decision,
}

/// Explains the detection of each input (expanded as for reading: see
/// [`expand_inputs`](crate::expand_inputs)); a file that cannot be opened is its error.
pub fn explain<'r>(
    registry: &'r Registry,
    inputs: &[Input],
) -> Vec<Result<FileExplanation<'r>, IngestError>> {
    inputs.iter().map(|i| explain_one(registry, i)).collect()
}

fn explain_one<'r>(
    registry: &'r Registry,
    input: &Input,
) -> Result<FileExplanation<'r>, IngestError> {
    let path = input.path.display().to_string();
    let (prefix, _, encoding) =
        open_with_prefix(input.source()).map_err(|reason| IngestError::Read {
            path: path.clone(),
            reason,
        })?;
    let file_name = input.path.file_name().and_then(|n| n.to_str());
    let adapters = registry
        .entries()
        .iter()
        .map(|entry| {
            let mut detection = entry.adapter.explain_detect(&prefix, file_name);
            detection.score = detection.score.min(100);
            AdapterDetection { entry, detection }
        })
        .collect();
    let decision = match choose(registry, &prefix, file_name, input.explicit, None) {
        Choice::Read {
            entry,
            confidence,
            head_lines,
            format,
        } => {
            let mut why = match head_lines {
                Some(lines) => format!(
                    "head rule: the highest score ({confidence}) among the adapters that claim the file's first {lines} line(s) alone at {SURE} or more, alone at the top"
                ),
                None => format!("the highest score ({confidence}), alone at the top"),
            };
            if !input.explicit {
                why.push_str(&format!(
                    "; found in a directory, a file needs {SURE} or more to be read"
                ));
            }
            Decision::Read {
                adapter: entry.name().to_owned(),
                format,
                confidence,
                why,
            }
        }
        Choice::LeftOut { reason } => Decision::LeftOut { reason },
        Choice::Skipped { reason } => Decision::Skipped { reason },
        Choice::Failed(e) => Decision::Failed {
            reason: e.to_string(),
        },
    };
    Ok(FileExplanation {
        path,
        explicit: input.explicit,
        encoding: encoding.name(),
        decoded: encoding != Encoding::Utf8,
        bom: prefix.starts_with(b"\xEF\xBB\xBF"),
        prefix_len: prefix.len().min(DETECT_PREFIX_LEN),
        adapters,
        decision,
    })
}
