//! A generated file of every built-in format, written as its tool writes it, with failures,
//! skips and captured output, streamed to disk a test at a time.

mod documents;
mod lines;
mod out;
mod pytest;

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::Path;

use out::Out;
pub use out::Plan;

/// One built-in format: the file name, the format `gapscore` must detect, and the generator
/// (which writes tests 1..=n).
pub struct Format {
    pub file: &'static str,
    pub detected: &'static str,
    generate: fn(&mut Out, u64),
}

/// Every built-in format (`gapscore adapters`), Vitest's shape of `jest-json` beside Jest's.
pub const FORMATS: &[Format] = &[
    Format {
        file: "junit.xml",
        detected: "junit-xml",
        generate: documents::junit,
    },
    Format {
        file: "go-test.jsonl",
        detected: "go-test-json",
        generate: lines::go_json,
    },
    Format {
        file: "go-test-v.txt",
        detected: "go-test-text",
        generate: lines::go_text,
    },
    Format {
        file: "prove.tap",
        detected: "tap",
        generate: lines::tap,
    },
    Format {
        file: "libtest.jsonl",
        detected: "libtest-json",
        generate: lines::libtest,
    },
    Format {
        file: "pytest-json-report.json",
        detected: "pytest-json-report",
        generate: pytest::json_report,
    },
    Format {
        file: "pytest-reportlog.jsonl",
        detected: "pytest-reportlog",
        generate: pytest::reportlog,
    },
    Format {
        file: "pytest-v.txt",
        detected: "pytest-text",
        generate: pytest::text,
    },
    Format {
        file: "jest.json",
        detected: "jest-json",
        generate: documents::jest,
    },
    Format {
        file: "vitest.json",
        detected: "jest-json",
        generate: documents::vitest,
    },
    Format {
        file: "ctrf.json",
        detected: "ctrf-json",
        generate: documents::ctrf,
    },
    Format {
        file: "mocha.json",
        detected: "mocha-json",
        generate: documents::mocha,
    },
    Format {
        file: "simple.json",
        detected: "simple",
        generate: documents::simple,
    },
];

/// Tests in the calibration run that sizes a file.
const SAMPLE: u64 = 10_000;

impl Format {
    /// Writes about `target` bytes of this format to `path` and returns what it holds. The
    /// number of tests comes from a sample written to `io::sink()`: every format repeats one
    /// pattern a hundred tests long, so its size grows in proportion to its tests.
    pub fn write(&self, path: &Path, target: u64) -> (u64, Plan) {
        let mut sink = std::io::sink();
        let mut sample = Out::new(&mut sink);
        (self.generate)(&mut sample, SAMPLE);
        let tests = (target * SAMPLE / sample.bytes).max(100);
        let mut w = BufWriter::with_capacity(1 << 20, File::create(path).unwrap());
        let mut out = Out::new(&mut w);
        (self.generate)(&mut out, tests);
        let bytes = out.bytes;
        w.flush().unwrap();
        (bytes, Plan::of(tests))
    }
}
