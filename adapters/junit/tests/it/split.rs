//! The split reader (`parser::split`) against the sequential one: for every JUnit file in the
//! repository's fixtures and the bad-input corpus, and many split points in each (every `<`
//! of a small file, alone, in pairs and all of its boundary guesses at once), the events of
//! the parts, in order, must be the sequential read's events, and an error the same error at
//! the same offset. `cargo test` tries a fixed sample of the points; the exhaustive sweep is
//! `#[ignore]`d and run by `.ci/run` on an optimised build. Hand-made files check that each kind of false guess falls back and that
//! real boundaries are split.

use std::fs::File;
use std::io::{BufReader, Write as _};
use std::path::{Path, PathBuf};

use gapscore_adapter_junit::parser::parse_reader;
use gapscore_adapter_junit::parser::split::{
    Fallback, Part, Split, find_split, parse_split, parse_split_in_parts,
};
use gapscore_adapter_sdk::AdapterError;
use gapscore_adapter_testing::EventLog;

type Read = Result<Vec<String>, String>;

fn sequential(path: &Path) -> Read {
    let mut rec = EventLog::default();
    let mut r = BufReader::new(File::open(path).unwrap());
    parse_reader(&mut r, &mut rec)
        .map(|()| rec.0)
        .map_err(|e: AdapterError| format!("{e:?}"))
}

/// The split read at `at`: its events (A's then B's) and how it went.
fn split(path: &Path, at: u64) -> (Read, Option<Fallback>) {
    split_parts(path, &[at])
}

/// The read in parts from each of `ats` (increasing): its events (A's, then each part's) and
/// how it went.
fn split_parts(path: &Path, ats: &[u64]) -> (Read, Option<Fallback>) {
    read_in_parts(path, ats, &parse_split_in_parts)
}

type SplitFn<'a> = &'a dyn Fn(
    &mut BufReader<File>,
    Vec<Part<EventLog>>,
    &mut EventLog,
    &dyn Fn(&EventLog, &[EventLog]) -> bool,
) -> Result<Split<EventLog>, AdapterError>;

fn read_in_parts(path: &Path, ats: &[u64], read: SplitFn<'_>) -> (Read, Option<Fallback>) {
    let mut a = EventLog::default();
    let mut r = BufReader::new(File::open(path).unwrap());
    let parts = ats
        .iter()
        .map(|&at| Part {
            file: File::open(path).unwrap(),
            at,
            sink: EventLog::default(),
        })
        .collect();
    match read(&mut r, parts, &mut a, &|_, _| true) {
        Ok(Split::Appended(later)) => {
            for b in later {
                a.0.extend(b.0);
            }
            (Ok(a.0), None)
        }
        Ok(Split::Sequential(why)) => (Ok(a.0), Some(why)),
        Err(e) => (Err(format!("{e:?}")), None),
    }
}

fn xml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            xml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "xml") {
            out.push(p);
        }
    }
}

/// How many split points a sweep tries in each file.
#[derive(Clone, Copy)]
struct Sweep {
    /// At most this many `<` offsets, evenly spaced (every `<` of a smaller file).
    lts: usize,
    /// At most this many of the file's boundary guesses, evenly spaced, each alone (all of them
    /// are tried at once too).
    guesses: usize,
    /// With the next offset as a second point (three parts) for every this-many-th offset.
    pairs_every: usize,
}

/// Every `<` of a small file (about 60 per file) and every boundary guess, half of them paired:
/// the whole sweep, 112 s on two cores in a debug build (a file of 399 suites alone took 100),
/// so run by `.ci/run` on the optimised `ci-release` profile.
const EXHAUSTIVE: Sweep = Sweep {
    lts: 60,
    guesses: usize::MAX,
    pairs_every: 2,
};

/// A fixed sample for `cargo test`: four or five evenly spaced `<` of each file (its first,
/// the root, among them) and three of its boundary guesses, some paired, and all the guesses at
/// once. The same points every run, so a failure repeats.
const SAMPLE: Sweep = Sweep {
    lts: 4,
    guesses: 3,
    pairs_every: 3,
};

/// Offsets to split at: evenly spaced `<` (at most `sweep.lts`), and evenly spaced boundary
/// guesses of [`find_split`] (at most `sweep.guesses`).
fn offsets(path: &Path, sweep: Sweep) -> Vec<u64> {
    let bytes = std::fs::read(path).unwrap();
    let lts: Vec<u64> = (0..bytes.len())
        .filter(|&i| bytes[i] == b'<')
        .map(|i| i as u64)
        .collect();
    let step = (lts.len() / sweep.lts).max(1);
    let mut out: Vec<u64> = lts.iter().copied().step_by(step).collect();
    let guesses = guesses(path);
    let step = guesses.len().div_ceil(sweep.guesses).max(1);
    out.extend(guesses.iter().copied().step_by(step));
    out.sort_unstable();
    out.dedup();
    out
}

/// Every boundary guess [`find_split`] makes in a file, in order.
fn guesses(path: &Path) -> Vec<u64> {
    let mut f = File::open(path).unwrap();
    let (mut out, mut from) = (Vec::new(), 0);
    while let Some(at) = find_split(&mut f, from).unwrap() {
        out.push(at);
        from = at + 1;
    }
    out
}

/// Every JUnit file of the adapter's fixtures and the bad-input corpus, split at the points of
/// `sweep`, reads as in one pass: events, or the same error at the same offset. Returns how
/// many reads were appended from two parts and from many.
fn sweep_every_fixture(sweep: Sweep) -> (usize, usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    xml_files(&root.join("tests/fixtures"), &mut files);
    xml_files(&root.join("../../tests/bad-input/junit"), &mut files);
    files.sort();
    assert!(files.len() > 100, "fixtures not found: {}", files.len());
    let (mut appended, mut in_many) = (0, 0);
    for path in &files {
        let want = sequential(path);
        let offsets = offsets(path, sweep);
        for (i, &at) in offsets.iter().enumerate() {
            let (got, why) = split(path, at);
            assert_eq!(got, want, "{} split at byte {at} ({why:?})", path.display());
            appended += usize::from(why.is_none() && got.is_ok());
            // With the next offset as a second point: three parts.
            if let (0, Some(&next)) = (i % sweep.pairs_every, offsets.get(i + 1)) {
                let (got, why) = split_parts(path, &[at, next]);
                assert_eq!(
                    got,
                    want,
                    "{} split at {at} and {next} ({why:?})",
                    path.display()
                );
            }
        }
        // Every guess at once: as many parts as the file has top-level suites, nearly; and
        // so again with A reading on through the parts no other thread has started.
        let all = guesses(path);
        if all.len() > 1 {
            let (got, why) = split_parts(path, &all);
            assert_eq!(got, want, "{} split at {all:?} ({why:?})", path.display());
            in_many += usize::from(why.is_none() && got.is_ok());
            let (got, why) = read_in_parts(path, &all, &|r, p, a, ok| {
                parse_split(r, p, a, ok, &|_, _| true)
            });
            assert_eq!(got, want, "{} read on at {all:?} ({why:?})", path.display());
        }
    }
    (appended, in_many)
}

#[test]
fn every_fixture_split_at_sampled_points_reads_as_in_one_pass() {
    let (appended, in_many) = sweep_every_fixture(SAMPLE);
    // Not vacuous: many reads really went through two parts, and some through more.
    assert!(appended > 30, "only {appended} split reads were appended");
    assert!(
        in_many > 5,
        "only {in_many} reads in many parts were appended"
    );
}

/// The exhaustive sweep: `cargo test --profile ci-release -p gapscore-adapter-junit --test it
/// -- --ignored split::` (as `.ci/run` does).
#[test]
#[ignore = "exhaustive: about 60 split points a file; .ci/run runs it on an optimised build"]
fn every_fixture_split_anywhere_reads_as_in_one_pass() {
    let (appended, in_many) = sweep_every_fixture(EXHAUSTIVE);
    assert!(appended > 300, "only {appended} split reads were appended");
    assert!(
        in_many > 5,
        "only {in_many} reads in many parts were appended"
    );
}

/// A temporary file holding `text`.
fn file(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

/// Splits `text` at the `n`-th (from 0) occurrence of `mark`, checks the events against one
/// pass and returns how it went (`None`: appended).
fn split_at_mark(text: &str, mark: &str, n: usize) -> Option<Fallback> {
    let at = text.match_indices(mark).nth(n).expect("mark").0 as u64;
    let f = file(text);
    let (got, why) = split(f.path(), at);
    assert_eq!(got, sequential(f.path()), "split at {at}");
    why
}

const GOOD: &str = r#"<?xml version="1.0"?>
<testsuites tests="5">
  <testsuite name="one" tests="2"><testcase classname="a" name="t1"/><testcase classname="a" name="t2"><failure message="x">boom</failure></testcase></testsuite>
  <testsuite name="two" tests="2"><testcase classname="b" name="t1"/><testcase classname="a" name="t1"/></testsuite>
  <testsuite name="three" tests="1"><testcase classname="c" name="t1"/></testsuite>
</testsuites>
"#;

/// A caller that says the parts are not worth reading (a file too large for them to be
/// appended) gets the one-pass read, and no part is read.
#[test]
fn parts_not_worth_reading_are_not_read() {
    let f = file(GOOD);
    let two = GOOD.find("<testsuite name=\"two\"").unwrap() as u64;
    let asked = std::cell::Cell::new(None);
    let (got, why) = read_in_parts(f.path(), &[two], &|r, p, a, ok| {
        parse_split(r, p, a, ok, &|offset, tests| {
            asked.set(Some((offset, tests)));
            false
        })
    });
    assert_eq!(
        (got, why),
        (sequential(f.path()), Some(Fallback::NotSplittable))
    );
    // Asked after the first suite: where it ends and the two tests it holds.
    let first_end = GOOD.find("</testsuite>").unwrap() + "</testsuite>".len();
    assert_eq!(asked.get(), Some((first_end as u64, 2)));
}

#[test]
fn a_real_boundary_is_split_and_root_totals_add_up() {
    assert_eq!(split_at_mark(GOOD, "<testsuite name=\"two\"", 0), None);
    assert_eq!(split_at_mark(GOOD, "<testsuite name=\"three\"", 0), None);
    // Three parts: the root's total adds up across all of them.
    let two = GOOD.find("<testsuite name=\"two\"").unwrap() as u64;
    let three = GOOD.find("<testsuite name=\"three\"").unwrap() as u64;
    let f = file(GOOD);
    assert_eq!(
        split_parts(f.path(), &[two, three]),
        (sequential(f.path()), None)
    );
    // The root declares 5 and holds 5 only across both halves: no warning, as in one pass.
    let f = file(GOOD);
    assert!(
        !sequential(f.path())
            .unwrap()
            .iter()
            .any(|e| e.starts_with("warning"))
    );
}

#[test]
fn a_guess_in_a_comment_cdata_or_instruction_falls_back() {
    let comment = GOOD.replace(
        "  <testsuite name=\"two\"",
        "  <!-- </testsuite> <testsuite name=\"fake\"> -->\n  <testsuite name=\"two\"",
    );
    assert_eq!(
        split_at_mark(&comment, "<testsuite name=\"fake\"", 0),
        Some(Fallback::GuessDidNotHold)
    );
    // A false guess between two real ones: the part before it does not end there.
    let fake = comment.find("<testsuite name=\"fake\"").unwrap() as u64;
    let two = comment.find("<testsuite name=\"two\"").unwrap() as u64;
    let three = comment.find("<testsuite name=\"three\"").unwrap() as u64;
    let f = file(&comment);
    for ats in [[fake, two], [two, three]] {
        let (got, _) = split_parts(f.path(), &ats);
        assert_eq!(got, sequential(f.path()), "{ats:?}");
    }
    assert_eq!(split_parts(f.path(), &[two, three]).1, None);
    assert_eq!(
        split_parts(f.path(), &[fake, three]).1,
        Some(Fallback::GuessDidNotHold)
    );
    let cdata = GOOD.replace(
        "<testcase classname=\"b\" name=\"t1\"/>",
        "<testcase classname=\"b\" name=\"t1\"><system-out><![CDATA[</testsuite> <testsuite name=\"fake\">]]></system-out></testcase>",
    );
    assert_eq!(
        split_at_mark(&cdata, "<testsuite name=\"fake\"", 0),
        Some(Fallback::GuessDidNotHold)
    );
    let pi = GOOD.replace(
        "  <testsuite name=\"two\"",
        "  <?note </testsuite> <testsuite name=\"fake\" ?>\n  <testsuite name=\"two\"",
    );
    assert_eq!(
        split_at_mark(&pi, "<testsuite name=\"fake\"", 0),
        Some(Fallback::GuessDidNotHold)
    );
    // A nested suite is not a top-level boundary.
    let nested = GOOD.replace(
        "<testsuite name=\"two\" tests=\"2\">",
        "<testsuite name=\"two\" tests=\"2\"><testsuite name=\"in\"></testsuite><testsuite name=\"in2\"></testsuite>",
    );
    assert_eq!(
        split_at_mark(&nested, "<testsuite name=\"in2\"", 0),
        Some(Fallback::GuessDidNotHold)
    );
}

#[test]
fn go_parents_and_gotestsum_reruns_near_the_split_read_as_one_pass() {
    // go-junit-report: a parent right before its subtests; gotestsum: reruns in one suite.
    let go = r#"<testsuites>
  <testsuite name="pkg/a" tests="2" id="0"><properties><property name="go.version" value="go1.22"/></properties><testcase classname="pkg/a" name="TestA"/><testcase classname="pkg/a" name="TestA/b"><failure message="f"/></testcase></testsuite>
  <testsuite name="pkg/b" tests="2" id="1"><testcase classname="pkg/b" name="TestB"/><testcase classname="pkg/b" name="TestB/c"/></testsuite>
  <testsuite name="pkg/c" tests="1" id="2"><testcase classname="pkg/b" name="TestB/d"><failure message="late"/></testcase></testsuite>
</testsuites>"#;
    assert_eq!(split_at_mark(go, "<testsuite name=\"pkg/b\"", 0), None);
    assert_eq!(split_at_mark(go, "<testsuite name=\"pkg/c\"", 0), None);
    let gotestsum = r#"<testsuites tests="4">
  <testsuite name="pkg/a" tests="3"><properties><property name="go.version" value="go1.22"/></properties><testcase classname="pkg/a" name="TestX"><failure message="1st"/></testcase><testcase classname="pkg/a" name="TestX"/><testcase classname="pkg/a" name="TestY"/></testsuite>
  <testsuite name="pkg/b" tests="1"><testcase classname="pkg/b" name="TestZ"><failure message="f"/></testcase></testsuite>
  <testsuite name="pkg/c" tests="1"><testcase classname="pkg/b" name="TestZ"/></testsuite>
</testsuites>"#;
    assert_eq!(
        split_at_mark(gotestsum, "<testsuite name=\"pkg/b\"", 0),
        None
    );
    assert_eq!(
        split_at_mark(gotestsum, "<testsuite name=\"pkg/c\"", 0),
        None
    );
}

#[test]
fn a_once_per_file_flag_set_before_the_split_is_carried_or_falls_back() {
    let jest = r#"<testsuites name="jest tests">
  <testsuite name="x.test.js" tests="1"><testcase classname="Test suite failed to run" name="x.test.js"><failure>SyntaxError</failure></testcase></testsuite>
  <testsuite name="x.test.js" tests="1"><testcase classname="Test suite failed to run" name="x.test.js"><failure>SyntaxError</failure></testcase></testsuite>
  <testsuite name="y.test.js" tests="1"><testcase classname="Test suite failed to run" name="y.test.js"><failure>TypeError</failure></testcase></testsuite>
  <testsuite name="y.test.js" tests="1"><testcase classname="Test suite failed to run" name="y.test.js"><failure>TypeError</failure></testcase></testsuite>
</testsuites>"#;
    // After the first suite: the flag for x is in the carried state, and still the same there.
    assert_eq!(
        split_at_mark(jest, "<testsuite name=\"x.test.js\"", 1),
        None
    );
    assert_eq!(
        split_at_mark(jest, "<testsuite name=\"y.test.js\"", 0),
        None
    );
    // After the third: y's flag was set after the state was carried, so the guess is refused.
    assert_eq!(
        split_at_mark(jest, "<testsuite name=\"y.test.js\"", 1),
        Some(Fallback::GuessDidNotHold)
    );
}

#[test]
fn a_file_cut_or_broken_after_the_split_reads_as_one_pass() {
    let cut = &GOOD[..GOOD.find("<testcase classname=\"c\"").unwrap() + 20];
    assert_eq!(split_at_mark(cut, "<testsuite name=\"two\"", 0), None);
    let broken = GOOD.replace("</testsuite>\n</testsuites>", "</testcase>\n</testsuites>");
    let at = broken.find("<testsuite name=\"two\"").unwrap() as u64;
    let f = file(&broken);
    let (got, _) = split(f.path(), at);
    assert!(got.is_err());
    assert_eq!(got, sequential(f.path()));
    // A byte-order mark moves every offset by three bytes, in both halves alike.
    let bom = format!("\u{feff}{}", broken);
    let at = bom.find("<testsuite name=\"two\"").unwrap() as u64;
    let f = file(&bom);
    assert_eq!(split(f.path(), at).0, sequential(f.path()));
}

/// An invalid UTF-8 byte after the split (found by the `junit_split` fuzz target): B's decoder
/// placed the error elsewhere than the one-pass read; now B's error sends A on alone.
#[test]
fn an_error_after_the_split_is_the_one_pass_error_at_its_place() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/split/invalid-utf8-after-the-split.xml");
    let (got, _) = split(&path, 679);
    assert!(got.is_err(), "{got:?}");
    assert_eq!(got, sequential(&path));
}
