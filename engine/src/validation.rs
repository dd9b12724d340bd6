//! One validation of the sealed suite, for `gapscore feedback` and `gapscore harden record`: read
//! from a Gap Report (any tool's, either dialect) or scored from result files; and the
//! hardening history those cycles are recorded in.

use std::io::Read;
use std::path::{Path, PathBuf};

use gapscore_adapters::{IngestOptions, Registry, expand_inputs};
use gapscore_core::feedback::FailureInput;
use gapscore_core::hardening::History;
use gapscore_core::{Category, Score, StatusPolicy};
use gapscore_seal::digest::canonical_sha256;
use gapscore_seal::sealed_dir::FsError;
use serde_json::Value;

use crate::error::Error;
use crate::suite::{Diagnostic, SuiteOptions, tally_inputs, tally_warnings};

/// One validation of the sealed suite: its failures and score.
#[derive(Debug)]
#[non_exhaustive]
pub struct Validation {
    /// Failure entries, run-level problems included.
    pub failures: Vec<FailureInput>,
    /// The score.
    pub score: Score,
    /// The report's `sealed_hash`, when read from a report.
    pub sealed_hash: Option<String>,
}

/// Reads a validation: one Gap Report when `inputs` is a single file that is one, otherwise
/// sealed result files in any format, read by [`tally_suite`](crate::suite::tally_suite) under
/// the default status policy exactly as `gapscore score` reads them (console text beside structured results left out,
/// repeated ids named, a file nothing recognises an error), so a cycle recorded from files is
/// the score a report of them says. Diagnostics (files left out or unreadable, the inputs'
/// warnings) are pushed to `diagnostics` in order; any unreadable input is an error.
pub fn load_validation(
    inputs: &[PathBuf],
    registry: &Registry,
    ingest_opts: &IngestOptions,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Validation, Error> {
    // Expanded first, so that a pipe or standard input is copied once and can then be looked
    // at as a possible report and still be read as result files.
    let (expanded, errors) = expand_inputs(inputs);
    if let ([_], [one], []) = (inputs, expanded.as_slice(), errors.as_slice())
        && one.explicit
        && let Some(v) = read_report(&one.path, one.source())?
    {
        return Ok(v);
    }
    let mut opts = SuiteOptions::new(StatusPolicy::default());
    opts.ingest = ingest_opts.clone();
    let suite = tally_inputs(registry, "sealed", expanded, errors, &opts);
    diagnostics.extend(suite.diagnostics);
    if suite.failed > 0 {
        return Err(Error::Input(format!(
            "{} input{} could not be read",
            suite.failed,
            if suite.failed == 1 { "" } else { "s" }
        )));
    }
    let mut tally = suite.tally;
    diagnostics.extend(tally_warnings(&tally, None));
    let score = tally.score();
    if score.total == 0 {
        diagnostics.push(Diagnostic::Warning(
            "no sealed tests were counted: the score 0.0 over zero tests proves nothing (a report of these files is advisory)".to_owned(),
        ));
    }
    Ok(Validation {
        score,
        // Moved out of the tally, not copied: the entries are held once.
        failures: std::mem::take(&mut tally.failures)
            .into_entries()
            .map(|f| FailureInput {
                name: f.test_name,
                category: Some(f.category),
                expected: f.expected,
                actual: f.actual,
                message: f.message,
            })
            .collect(),
        sealed_hash: None,
    })
}

/// A Gap Report, when the file is one: a JSON object with `sealed_tests` and `failures`. `shown`
/// is the path as the user gave it (messages name it); `source` holds the bytes (the path, or
/// the copy of a pipe).
fn read_report(shown: &Path, source: &Path) -> Result<Option<Validation>, Error> {
    // Result files are streamed by the readers; only a file that may be a report is held
    // whole, so that a large result file costs no more memory here than it does in `score`.
    if !may_be_report(source) {
        return Ok(None);
    }
    let Ok(bytes) = std::fs::read(source) else {
        return Ok(None); // Not a readable file: let the result reader report it.
    };
    let Ok(doc) = serde_json::from_slice::<Value>(&bytes) else {
        return Ok(None);
    };
    let (Some(counts), Some(list)) = (doc.get("sealed_tests"), doc.get("failures")) else {
        return Ok(None);
    };
    let shown = shown.display();
    let number = |key: &str| -> Result<u64, Error> {
        let v = &counts[key];
        v.as_u64()
            .or_else(|| {
                v.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                    .map(|f| f as u64)
            })
            .ok_or_else(|| Error::Input(format!("{shown}: /sealed_tests/{key} is not a count")))
    };
    let (total, failed) = (number("total")?, number("failed")?);
    if failed > total {
        return Err(Error::Input(format!(
            "{shown}: /sealed_tests says {failed} failed of {total}"
        )));
    }
    let Some(items) = list.as_array() else {
        return Err(Error::Input(format!("{shown}: /failures is not an array")));
    };
    let text = |f: &Value, key: &str| f.get(key).and_then(Value::as_str).map(str::to_owned);
    let failures = items
        .iter()
        .map(|f| FailureInput {
            name: text(f, "test_name").unwrap_or_else(|| "(unnamed)".to_owned()),
            category: text(f, "category").and_then(|c| Category::parse_lenient(&c)),
            expected: text(f, "expected").filter(|s| !s.is_empty()),
            actual: text(f, "actual").filter(|s| !s.is_empty()),
            message: text(f, "message").filter(|s| !s.is_empty()),
        })
        .collect();
    let sealed_hash = doc
        .pointer("/report/sealed_hash")
        .and_then(Value::as_str)
        .and_then(|h| canonical_sha256(h).ok());
    Ok(Some(Validation {
        failures,
        score: Score::new(failed, total),
        sealed_hash,
    }))
}

/// Whether a file could be a Gap Report: a JSON object (its first byte past whitespace is `{`)
/// that mentions `"sealed_tests"` somewhere. Read in bounded chunks; an unreadable file is not
/// one (the result reader reports it).
fn may_be_report(path: &Path) -> bool {
    const KEY: &[u8] = b"\"sealed_tests\"";
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let finder = memchr::memmem::Finder::new(KEY);
    let mut buf = vec![0u8; 64 * 1024];
    // The last KEY.len() - 1 bytes of the previous chunk, so a key cut by a chunk is found.
    let mut carry = Vec::new();
    let mut opened = false;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) | Err(_) => return false,
            Ok(n) => n,
        };
        let mut chunk = &buf[..n];
        if !opened {
            let start = chunk.iter().position(|b| !b.is_ascii_whitespace());
            match start.map(|i| chunk[i]) {
                None => continue,
                Some(b'{') => opened = true,
                Some(_) => return false,
            }
            chunk = &chunk[start.unwrap_or(0)..];
        }
        carry.extend_from_slice(chunk);
        if finder.find(&carry).is_some() {
            return true;
        }
        let keep = carry.len().min(KEY.len() - 1);
        carry.drain(..carry.len() - keep);
    }
}

/// Reads a hardening history file; a missing file is an empty history.
pub fn load_history(path: &Path) -> Result<History, Error> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(History::default()),
        Err(e) => return Err(FsError::read(path, e).into()),
    };
    let history: History = serde_json::from_str(&text).map_err(|e| {
        Error::Input(format!(
            "{}:{}:{}: not a hardening history: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })?;
    if history.gapscore_history != History::VERSION {
        return Err(Error::Input(format!(
            "{}: history version {} is not supported (this gapscore reads version {})",
            path.display(),
            history.gapscore_history,
            History::VERSION
        )));
    }
    Ok(history)
}

/// Writes a hardening history (pretty JSON, atomically).
pub fn save_history(path: &Path, history: &History) -> Result<(), Error> {
    let mut text = serde_json::to_string_pretty(history)
        .map_err(|e| Error::Input(format!("{}: {e}", path.display())))?;
    text.push('\n');
    crate::fs::write_atomic(path, true, &mut |w| w.write_all(text.as_bytes()))
        .map_err(|e: FsError| e.into())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Test code.

    use super::*;

    fn may_be(bytes: &[u8]) -> bool {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, bytes).unwrap();
        may_be_report(&path)
    }

    #[test]
    fn only_a_json_object_naming_sealed_tests_may_be_a_report() {
        assert!(may_be(
            br#"{"sealed_tests": {"total": 1, "failed": 0}, "failures": []}"#
        ));
        assert!(may_be(b"\n  \t{\"failures\": [], \"sealed_tests\": {}}"));
        assert!(!may_be(
            br#"{"tests": [{"name": "a", "status": "passed"}]}"#
        ));
        assert!(!may_be(
            b"<testsuites><testcase name=\"sealed_tests\"/></testsuites>"
        ));
        assert!(!may_be(b"[{\"sealed_tests\": 1}]"));
        assert!(!may_be(b""));
        assert!(!may_be(b"   \n"));
        let missing = Path::new("/nonexistent/gapscore/f.json");
        assert!(!may_be_report(missing));
    }

    #[test]
    fn the_key_is_found_across_a_chunk_boundary_and_far_into_the_file() {
        let key = b"\"sealed_tests\"";
        for cut in 1..key.len() {
            // The key starts `cut` bytes before the end of the first 64 KiB chunk.
            let mut bytes = b"{\"x\": \"".to_vec();
            bytes.resize(64 * 1024 - cut, b'a');
            bytes.extend_from_slice(key);
            bytes.extend_from_slice(b": {}}");
            assert!(may_be(&bytes), "cut at {cut}");
        }
        let mut far = b"{\"x\": \"".to_vec();
        far.resize(300 * 1024, b' ');
        far.extend_from_slice(b"\", \"sealed_tests\": {}}");
        assert!(may_be(&far));
        // Leading whitespace longer than a chunk.
        let mut spaced = vec![b' '; 70 * 1024];
        spaced.extend_from_slice(b"{\"sealed_tests\": {}}");
        assert!(may_be(&spaced));
    }
}
