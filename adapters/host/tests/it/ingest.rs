//! Ingestion: input order whatever the thread count, one panicking or broken file never stops
//! the others, detection refuses to guess, and input expansion walks directories and globs.

use std::fs;
use std::path::PathBuf;
use std::sync::Arc;

use gapscore_adapter_sdk::{
    Adapter, AdapterError, AdapterInfo, EventSink, ParseOptions, RunCollector, Status, TestCase,
};
use gapscore_adapters::{
    DetectError, IngestError, IngestOptions, Input, Origin, Outcome, Registry, expand_inputs,
    ingest,
};

/// A toy adapter: claims files starting with its marker; each line is a passing test; a line
/// `panic` panics, a line `bad` is a parse error.
struct Lines {
    info: AdapterInfo,
    marker: &'static [u8],
    confidence: u8,
}

impl Lines {
    fn new(name: &str, marker: &'static [u8], confidence: u8) -> Arc<Self> {
        Arc::new(Lines {
            info: AdapterInfo::new(name, "0", &[name]),
            marker,
            confidence,
        })
    }
}

impl Adapter for Lines {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }
    fn detect(&self, prefix: &[u8], _: Option<&str>) -> u8 {
        if prefix.starts_with(self.marker) {
            self.confidence
        } else {
            0
        }
    }
    fn parse(
        &self,
        input: &[u8],
        _: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        for line in String::from_utf8_lossy(input).lines().skip(1) {
            match line {
                "panic" => panic!("adapter bug"),
                "bad" => return Err(AdapterError::Unsupported("bad line".into())),
                name => sink.test_finished(TestCase::new(None, name, Status::Passed)),
            }
        }
        Ok(())
    }
}

fn registry() -> Registry {
    let mut r = Registry::empty();
    r.add(Lines::new("alpha", b"ALPHA", 80), Origin::BuiltIn)
        .unwrap();
    r.add(Lines::new("beta", b"BETA", 80), Origin::BuiltIn)
        .unwrap();
    r.add(Lines::new("gamma", b"ALPHA", 40), Origin::BuiltIn)
        .unwrap();
    r
}

fn write_files(dir: &std::path::Path, n: usize) -> Vec<Input> {
    (0..n)
        .map(|i| {
            let p = dir.join(format!("f{i:04}.txt"));
            let body: Vec<String> = (0..(i % 13)).map(|k| format!("t{i}_{k}")).collect();
            fs::write(&p, format!("ALPHA\n{}", body.join("\n"))).unwrap();
            Input::new(p, true)
        })
        .collect()
}

fn names(outcomes: Vec<Outcome<RunCollector>>) -> Vec<String> {
    outcomes
        .into_iter()
        .map(|o| match o {
            Outcome::Parsed(p) => serde_json::to_string(&p.consumer.into_run()).unwrap(),
            Outcome::Skipped { path, reason } => format!("skipped {path}: {reason}"),
            Outcome::LeftOut { path, reason } => format!("left out {path}: {reason}"),
            Outcome::Failed(e) => format!("failed {e}"),
        })
        .collect()
}

#[test]
fn results_come_back_in_input_order_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = write_files(dir.path(), 300);
    let reg = registry();
    let run = |jobs| {
        names(ingest(
            &reg,
            &inputs,
            &IngestOptions::new(None, jobs),
            |src, fmt| RunCollector::new(fmt, Some(src.to_owned())),
        ))
    };
    let one = run(1);
    assert_eq!(one.len(), 300);
    assert!(one[7].contains("\"source\":") && one[7].contains("f0007.txt"));
    assert_eq!(one, run(2));
    assert_eq!(one, run(8));
}

#[test]
fn a_panicking_or_failing_file_does_not_stop_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = write_files(dir.path(), 3);
    fs::write(&inputs[1].path, "ALPHA\nok\npanic\n").unwrap();
    let bad = dir.path().join("bad.txt");
    fs::write(&bad, "ALPHA\nbad\n").unwrap();
    inputs.push(Input::new(bad.clone(), true));
    let out = ingest(
        &registry(),
        &inputs,
        &IngestOptions::new(None, 2),
        |_, fmt| RunCollector::new(fmt, None),
    );
    assert!(matches!(out[0], Outcome::Parsed(_)));
    assert!(matches!(out[2], Outcome::Parsed(_)));
    match &out[1] {
        Outcome::Failed(e @ IngestError::Parse { adapter, error, .. }) => {
            assert_eq!(adapter, "alpha");
            assert_eq!(error, &AdapterError::Panic("adapter bug".into()));
            assert!(
                e.to_string()
                    .ends_with("adapter panicked: adapter bug (alpha adapter)")
            );
        }
        other => panic!("{other:?}"),
    }
    match &out[3] {
        Outcome::Failed(e) => assert_eq!(
            e.to_string(),
            format!(
                "{}: unsupported input: bad line (alpha adapter)",
                bad.display()
            )
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn detection_refuses_ties_and_unknowns_and_a_forced_format_wins() {
    let reg = registry();
    assert_eq!(reg.detect(b"ALPHA\n", None).unwrap().name(), "alpha");
    assert_eq!(reg.detect(b"BETA\n", None).unwrap().name(), "beta");
    let err = reg.detect(b"QUUX\n", Some("x.txt")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "no adapter recognises this file (known formats: alpha, beta, gamma); name one with --input-format ID"
    );
    // What gapscore can name, it names (issue 20): here an XML root no adapter claims.
    let err = reg.detect(b"<xml/>", Some("x.xml")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("an XML file whose root element is `<xml>`, not JUnit XML's"),
        "{err}"
    );
    let mut tied = registry();
    tied.add(Lines::new("delta", b"BETA", 80), Origin::BuiltIn)
        .unwrap();
    assert_eq!(
        tied.detect(b"BETA", None).unwrap_err(),
        DetectError::Tie {
            candidates: vec!["`beta`".into(), "`delta`".into()],
            confidence: 80
        }
    );
    // Forcing a format reads the file with it, detection or not.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x");
    fs::write(&p, "ALPHA\na\n").unwrap();
    let input = [Input::new(p, true)];
    let out = ingest(
        &reg,
        &input,
        &IngestOptions::new(Some("gamma".into()), 1),
        |_, fmt| RunCollector::new(fmt, None),
    );
    match &out[0] {
        Outcome::Parsed(p) => {
            assert_eq!(p.adapter, "gamma");
            assert_eq!(p.format, "gamma");
        }
        other => panic!("{other:?}"),
    }
    let out = ingest(
        &reg,
        &input,
        &IngestOptions::new(Some("nope".into()), 1),
        |_, fmt| RunCollector::new(fmt, None),
    );
    assert!(matches!(
        &out[0],
        Outcome::Failed(IngestError::Detect {
            error: DetectError::UnknownFormat { .. },
            ..
        })
    ));
    assert_eq!(reg.entries().len(), 3);
    let dup = reg
        .clone()
        .add(Lines::new("alpha", b"X", 1), Origin::BuiltIn);
    assert!(dup.is_err());
}

#[test]
fn expansion_walks_directories_and_globs_and_skips_unrecognised_found_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("a/b")).unwrap();
    fs::write(root.join("a/2.txt"), "ALPHA\nx").unwrap();
    fs::write(root.join("a/b/1.txt"), "ALPHA\ny").unwrap();
    fs::write(root.join("a/notes.md"), "# not results").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.join("a"), root.join("a/b/loop")).unwrap();
    fs::create_dir(root.join("empty")).unwrap();

    let (inputs, errors) = expand_inputs(&[
        root.join("a"),
        PathBuf::from(format!("{}/a/*.txt", root.display())),
        PathBuf::from(format!("{}/nothing-*.xml", root.display())),
        root.join("empty"),
        root.join("missing.json"),
    ]);
    let shown: Vec<(String, bool)> = inputs
        .iter()
        .map(|i| {
            (
                i.path.strip_prefix(root).unwrap().display().to_string(),
                i.explicit,
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("a/2.txt".to_owned(), false),
            ("a/b/1.txt".to_owned(), false),
            ("a/notes.md".to_owned(), false),
            ("a/2.txt".to_owned(), true),
            ("missing.json".to_owned(), true),
        ]
    );
    assert_eq!(errors.len(), 2);
    assert!(
        errors[0]
            .to_string()
            .ends_with("nothing-*.xml: pattern matched no files")
    );
    assert!(
        errors[1]
            .to_string()
            .ends_with("empty: cannot read: directory contains no files")
    );

    let out = ingest(
        &registry(),
        &inputs,
        &IngestOptions::new(None, 2),
        |_, f| RunCollector::new(f, None),
    );
    // Documentation found beside results is left out (with a warning by the caller), not an
    // unrecognised file (issue 35).
    assert!(
        matches!(&out[2], Outcome::LeftOut { reason, .. } if reason.starts_with("documentation"))
    );
    match &out[4] {
        Outcome::Failed(e) => assert!(
            e.to_string()
                .ends_with("missing.json: cannot read: no such file or directory"),
            "{e}"
        ),
        other => panic!("{other:?}"),
    }
}

#[cfg(unix)]
#[test]
fn named_pipes_are_refused_not_opened() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let ok = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return;
    }
    let out = ingest(
        &registry(),
        &[Input::new(fifo, true)],
        &IngestOptions::new(None, 1),
        |_, f| RunCollector::new(f, None),
    );
    match &out[0] {
        Outcome::Failed(e) => assert!(
            e.to_string()
                .contains("cannot read: a named pipe (FIFO): gapscore does not open one"),
            "{e}"
        ),
        other => panic!("{other:?}"),
    }
}

/// Two formats in one adapter: `detect_format` names the one a file is in.
struct TwoFormats {
    info: AdapterInfo,
}

impl Adapter for TwoFormats {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }
    fn detect(&self, prefix: &[u8], _: Option<&str>) -> u8 {
        if prefix.starts_with(b"ONE") || prefix.starts_with(b"TWO") {
            90
        } else {
            0
        }
    }
    fn detect_format(&self, prefix: &[u8], _: Option<&str>) -> Option<String> {
        prefix.starts_with(b"TWO").then(|| "two-fmt".to_owned())
    }
    fn parse(
        &self,
        _: &[u8],
        opts: &ParseOptions,
        sink: &mut dyn EventSink,
    ) -> Result<(), AdapterError> {
        // The test's name is the format the host passed.
        let name = opts.format_id.clone().unwrap_or_default();
        sink.test_finished(TestCase::new(None, name, Status::Passed));
        Ok(())
    }
}

#[test]
fn a_multi_format_adapter_names_the_detected_format() {
    let mut reg = Registry::empty();
    reg.add(
        Arc::new(TwoFormats {
            info: AdapterInfo::new("two", "0", &["one-fmt", "two-fmt"]),
        }),
        Origin::BuiltIn,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let inputs: Vec<Input> = ["ONE", "TWO"]
        .iter()
        .map(|body| {
            let path = dir.path().join(body);
            fs::write(&path, body).unwrap();
            Input::new(path, true)
        })
        .collect();
    let formats = |opts: IngestOptions| -> Vec<(String, String)> {
        ingest(&reg, &inputs, &opts, |_, fmt| RunCollector::new(fmt, None))
            .into_iter()
            .map(|o| match o {
                Outcome::Parsed(p) => {
                    let run = p.consumer.into_run();
                    (p.format, run.tests[0].name.clone())
                }
                other => panic!("{other:?}"),
            })
            .collect()
    };
    let pair = |a: &str| (a.to_owned(), a.to_owned());
    assert_eq!(
        formats(IngestOptions::new(None, 1)),
        [pair("one-fmt"), pair("two-fmt")]
    );
    // A format the user names wins over detection.
    assert_eq!(
        formats(IngestOptions::new(Some("two-fmt".into()), 1)),
        [pair("two-fmt"), pair("two-fmt")]
    );
}
