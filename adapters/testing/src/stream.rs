//! For streaming readers: [`Trickle`], a reader that hands its bytes over a few at a time (as
//! a pipe may), and [`assert_stream_agrees`], which reads one input whole and as a trickle,
//! however the reads split it, and fails unless both give the same run or the same error;
//! [`SPLITS`], the read sizes the adapters' stream tests use, and [`json_files`], the JSON
//! fixtures under a folder.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use gapscore_adapter_sdk::json::stream::locate;
use gapscore_adapter_sdk::{Adapter, AdapterError, Normalizer, ParseOptions, RunCollector};

/// A reader that hands over at most `steps[i]` bytes per read, cycling through `steps`.
#[derive(Debug)]
pub struct Trickle<'a> {
    data: &'a [u8],
    steps: Vec<usize>,
    turn: usize,
}

impl<'a> Trickle<'a> {
    /// `data`, a few bytes per read (a step of 0 counts as 1).
    pub fn new(data: &'a [u8], steps: &[usize]) -> Self {
        Trickle {
            data,
            steps: steps.iter().map(|s| (*s).max(1)).collect(),
            turn: 0,
        }
    }
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.fill_buf()?.len().min(out.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Trickle<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        let step = self.steps.get(self.turn % self.steps.len().max(1)).copied();
        Ok(&self.data[..step.unwrap_or(usize::MAX).min(self.data.len())])
    }
    fn consume(&mut self, n: usize) {
        self.data = &self.data[n..];
        self.turn += 1;
    }
}

/// Reads `input` through [`Adapter::parse`] and through [`Adapter::parse_reader`] on a
/// [`Trickle`] of each of `splits`, and panics (naming `what`) unless every reading gives the
/// same run (tests, problems, warnings, evidence: compared as JSON) or the same error (a
/// streamed error at a byte offset placed at its line and column, as the host places it).
pub fn assert_stream_agrees(adapter: &dyn Adapter, input: &[u8], splits: &[&[usize]], what: &str) {
    let opts = ParseOptions::default();
    let format = adapter.info().formats.first().cloned().unwrap_or_default();
    let read = |reader: Option<&mut dyn BufRead>| -> String {
        let mut sink = Normalizer::new(RunCollector::new(format.clone(), None));
        let r = match reader {
            None => adapter.parse(input, &opts, &mut sink),
            Some(r) => adapter.parse_reader(r, &opts, &mut sink),
        };
        match r {
            Ok(()) => serde_json::to_string(&sink.finish().into_run()).unwrap_or_default(),
            // A byte offset placed as the host places it in a file.
            Err(AdapterError::Input(e)) => format!("error: {}", locate(input, e)),
            Err(e) => format!("error: {e}"),
        }
    };
    let whole = read(None);
    for steps in splits {
        let mut trickle = Trickle::new(input, steps);
        let streamed = read(Some(&mut trickle));
        assert!(
            streamed == whole,
            "{what}: read in steps of {steps:?} gives\n{streamed}\nread whole gives\n{whole}"
        );
    }
}

/// The read sizes the adapters' stream tests split an input by: whole, a byte at a time, and two
/// uneven mixes (one across the SDK's buffer size).
pub const SPLITS: &[&[usize]] = &[&[usize::MAX], &[1], &[2, 7], &[4096, 3]];

/// The `.json` files under `dir`, at any depth, sorted.
pub fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for e in entries {
        let p = e
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .path();
        if p.is_dir() {
            out.extend(json_files(&p));
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
    out.sort();
    out
}
