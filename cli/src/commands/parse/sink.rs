//! The consumer `gapscore parse` puts behind each file's adapter: it writes every finished test
//! out as it arrives and keeps only what a run's frame needs (producer, problems, warnings, the
//! number of tests and an 8-byte fingerprint per id for the duplicate check), so memory does not
//! grow with the tests' text.
//!
//! In the JSON layout a run's `problems` come before its `tests` (the keys are sorted) and are
//! only known at the end, so the tests go to a spool (memory up to [`SPOOL_IN_MEMORY`], then a
//! temporary file) and the run is written whole when its file has been read; a file that fails
//! half-way leaves nothing behind. In the NDJSON layout each event is a line of the output as
//! it is read.

use gapscore_core::Code;
use std::io::{self, BufWriter, Seek as _, SeekFrom, Write};

use gapscore_core::{DuplicateTracker, EventSink, Problem, ProblemKind, Producer, TestCase};
use tempfile::SpooledTempFile;

use gapscore_core::render::json::results::{self as json, RunFrame};
use gapscore_core::render::ndjson::Record;

/// How much of one run's tests the JSON layout holds in memory before it moves them to a
/// temporary file.
pub(super) const SPOOL_IN_MEMORY: usize = 4 << 20;

/// The output the runs are written to.
pub(super) type Dest<'w> = &'w mut (dyn Write + Send);

/// One file's run, as it is read.
pub(super) struct RunSink<'w> {
    index: usize,
    source: String,
    format: String,
    out: Option<Dest<'w>>,
    // JSON: the tests, held until the run's frame is known. NDJSON: none, every event is a line
    // of `out` at once.
    held: Option<BufWriter<SpooledTempFile>>,
    count: u64,
    producer: Option<Producer>,
    problems: Vec<Problem>,
    warnings: Vec<String>,
    // The code of each warning, in step with `warnings`.
    warning_codes: Vec<Code>,
    dups: DuplicateTracker,
    scratch: Vec<u8>,
    // The first write error; events after it are not written (the read goes on, so the
    // diagnostics and the exit code are those of a complete read).
    failed: Option<io::Error>,
}

impl<'w> RunSink<'w> {
    /// A run in the JSON layout, to be written to `out` whole by [`RunSink::finish`].
    pub(super) fn json(index: usize, source: &str, format: &str, out: Option<Dest<'w>>) -> Self {
        let spool = BufWriter::with_capacity(64 * 1024, SpooledTempFile::new(SPOOL_IN_MEMORY));
        Self::new(index, source, format, out, Some(spool))
    }

    /// A run in the NDJSON layout, its `run` line written to `out` at once.
    pub(super) fn ndjson(index: usize, source: &str, format: &str, out: Option<Dest<'w>>) -> Self {
        let mut sink = Self::new(index, source, format, out, None);
        sink.emit(&Record::Run {
            run: index,
            source,
            format,
        });
        sink
    }

    /// `out` is `None` only if the caller handed its output to two runs at once: then nothing
    /// is written, and the run fails when it is finished.
    fn new(
        index: usize,
        source: &str,
        format: &str,
        out: Option<Dest<'w>>,
        held: Option<BufWriter<SpooledTempFile>>,
    ) -> Self {
        let failed = out
            .is_none()
            .then(|| io::Error::other("the output was given to two runs at once"));
        RunSink {
            index,
            source: source.to_owned(),
            format: format.to_owned(),
            out,
            held,
            count: 0,
            producer: None,
            problems: Vec::new(),
            warnings: Vec::new(),
            warning_codes: Vec::new(),
            dups: DuplicateTracker::default(),
            scratch: Vec::new(),
            failed,
        }
    }

    /// The fingerprints of the ids seen more than once (see [`DuplicateTracker::repeated`]).
    pub(super) fn repeated(&mut self) -> Vec<u64> {
        self.dups.repeated()
    }

    /// Whether the run has a `truncated` problem: its file was cut off.
    pub(super) fn truncated(&self) -> bool {
        self.problems
            .iter()
            .any(|p| p.kind == ProblemKind::Truncated)
    }

    /// The file the run was read from, as the user named it.
    pub(super) fn source(&self) -> &str {
        &self.source
    }

    /// The warnings, in the order they came.
    pub(super) fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Writes an NDJSON record, unless an earlier write failed (a JSON run writes nothing here).
    fn emit(&mut self, record: &Record<'_>) {
        if self.failed.is_some() || self.held.is_some() {
            return;
        }
        if let Some(out) = &mut self.out
            && let Err(e) = record.write(&mut **out)
        {
            self.failed = Some(e);
        }
    }

    /// Ends the run, its file read to the end. JSON: writes the run whole (after a separator
    /// unless `first`), its tests copied from the spool. NDJSON: writes the `end` line.
    pub(super) fn finish(mut self, first: bool) -> io::Result<()> {
        let Some(spool) = self.held.take() else {
            let end = Record::End {
                run: self.index,
                tests: self.count,
                problems: self.problems.len(),
                warnings: self.warnings.len(),
            };
            self.emit(&end);
            return self.failed.map_or(Ok(()), Err);
        };
        if let Some(e) = self.failed {
            return Err(e);
        }
        let mut spool = spool.into_inner().map_err(io::IntoInnerError::into_error)?;
        spool.seek(SeekFrom::Start(0))?;
        let frame = RunFrame {
            source: &self.source,
            format: &self.format,
            producer: self.producer.as_ref(),
            problems: &self.problems,
            warnings: &self.warnings,
            warning_codes: &self.warning_codes,
        };
        let out = self
            .out
            .ok_or_else(|| io::Error::other("a run without an output"))?;
        json::write_run(out, &frame, first, self.count, &mut spool)
    }
}

impl EventSink for RunSink<'_> {
    fn producer(&mut self, producer: Producer) {
        self.emit(&Record::Producer {
            run: self.index,
            producer: &producer,
        });
        self.producer = Some(producer);
    }

    fn test_finished(&mut self, test: TestCase) {
        self.dups.record(&test.id);
        let first = self.count == 0;
        self.count += 1;
        if self.failed.is_some() {
            return;
        }
        let written = match (&mut self.held, &mut self.out) {
            (Some(spool), _) => {
                json::write_test(spool, &test, first, &mut self.scratch).map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!(
                            "cannot hold the tests of `{}` in a temporary file in {}: {}",
                            self.source,
                            std::env::temp_dir().display(),
                            gapscore_seal::sealed_dir::io_reason(&e)
                        ),
                    )
                })
            }
            (None, Some(out)) => Record::Test {
                run: self.index,
                test: &test,
            }
            .write(&mut **out),
            (None, None) => Ok(()),
        };
        if let Err(e) = written {
            self.failed = Some(e);
        }
    }

    fn problem(&mut self, problem: Problem) {
        self.emit(&Record::Problem {
            run: self.index,
            problem: &problem,
        });
        self.problems.push(problem);
    }

    fn warning(&mut self, message: String) {
        self.coded_warning(Code::AdapterWarning, message);
    }

    fn coded_warning(&mut self, code: Code, message: String) {
        self.emit(&Record::Warning {
            run: self.index,
            code,
            warning: &message,
        });
        self.warnings.push(message);
        self.warning_codes.push(code);
    }
}
