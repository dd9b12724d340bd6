//! The failure log's and list's tests: every append state pair, the spill file read back.

#![allow(clippy::unwrap_used)] // Test code.

use super::*;
use gapscore_model::{Category, ProblemKind, Status};

fn entry(i: usize) -> FailureEntry {
    FailureEntry {
        test_name: format!("suite::test_{i}"),
        category: Category::EdgeCase,
        expected: i.is_multiple_of(2).then(|| format!("{i}")),
        actual: Some("x\ny \"quoted\"".to_owned()),
        message: Some(format!("failure number {i}")),
        origin: if i.is_multiple_of(7) {
            FailureOrigin::Problem(ProblemKind::Crash)
        } else {
            FailureOrigin::Test(Status::Failed)
        },
    }
}

fn temp_file() -> io::Result<File> {
    // A named file removed at once: what an anonymous temporary file is.
    let path = std::env::temp_dir().join(format!(
        "gapscore-failures-test-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)?;
    std::fs::remove_file(&path)?;
    Ok(f)
}

fn spill(budget: usize) -> Spill {
    Spill::new(budget, Arc::new(temp_file))
}

#[test]
fn a_spilling_log_keeps_every_entry_in_order() {
    let all: Vec<FailureEntry> = (0..1000).map(entry).collect();
    let mut log = FailureLog::with_spill(spill(4096));
    for e in &all[..400] {
        log.push(e.clone());
    }
    let mut other = FailureLog::with_spill(spill(2048));
    for e in &all[400..] {
        other.push(e.clone());
    }
    assert!(other.spilled() > 0);
    log.append(other);
    log.flush();
    assert_eq!(log.len(), 1000);
    assert!(log.spilled() > 900, "{}", log.spilled());
    assert!(log.in_memory().len() < 40);
    assert_eq!(log.to_vec(), all);
    let list = log.to_list();
    let want: Vec<Failure> = all.iter().map(Failure::from).collect();
    assert_eq!(list.len(), 1000);
    assert_eq!(list.to_vec(), want);
    // Serialised, it is the same array as an in-memory list, and reads back equal.
    let streamed = serde_json::to_string(&list).unwrap();
    let plain = serde_json::to_string(&FailureList::from(want.clone())).unwrap();
    assert_eq!(streamed, plain);
    let back: FailureList = serde_json::from_str(&streamed).unwrap();
    assert_eq!(back, list);
    // Pushing after a report was taken does not change the report.
    log.push(entry(5000));
    assert_eq!(list.len(), 1000);
    assert_eq!(list.to_vec(), want);
}

#[test]
fn without_a_spill_or_when_the_file_cannot_be_made_entries_stay_in_memory() {
    let mut plain = FailureLog::new();
    let mut broken = FailureLog::with_spill(Spill::new(
        10,
        Arc::new(|| Err(io::Error::other("disk full"))),
    ));
    for i in 0..50 {
        plain.push(entry(i));
        broken.push(entry(i));
    }
    assert_eq!(plain.spilled(), 0);
    assert_eq!(broken.spilled(), 0);
    assert_eq!(broken.in_memory().len(), 50);
    assert_eq!(broken.spill_error(), Some("disk full"));
    assert_eq!(plain.to_vec(), broken.to_vec());
}

/// A file that can be read but not written: every spill write fails once the writer's buffer
/// has to go to it.
fn read_only_file() -> io::Result<File> {
    let path = std::env::temp_dir().join(format!(
        "gapscore-failures-ro-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    File::create(&path)?;
    let f = File::open(&path)?;
    std::fs::remove_file(&path)?;
    Ok(f)
}

/// The states a log can be in before an append.
#[derive(Debug, Clone, Copy)]
enum State {
    Empty,
    InMemory,
    Spilled,
}

/// A log in `state` holding entries `from..` (as many as the state needs), and those entries.
fn log_in(state: State, from: usize) -> (FailureLog, Vec<FailureEntry>) {
    let n = match state {
        State::Empty => 0,
        State::InMemory => 5,
        State::Spilled => 300,
    };
    let all: Vec<FailureEntry> = (from..from + n).map(entry).collect();
    let mut log = FailureLog::with_spill(spill(4096));
    for e in &all {
        log.push(e.clone());
    }
    match state {
        State::Spilled => assert!(log.spilled() > 0),
        _ => assert_eq!(log.spilled(), 0),
    }
    (log, all)
}

#[test]
fn append_keeps_every_entry_in_order_in_every_state_pair() {
    use State::*;
    for ours in [Empty, InMemory, Spilled] {
        for theirs in [Empty, InMemory, Spilled] {
            let (mut log, mut want) = log_in(ours, 0);
            let (other, more) = log_in(theirs, 10_000);
            let (spilled_before, other_spilled) = (log.spilled(), other.spilled());
            want.extend(more);
            log.append(other);
            let case = format!("{ours:?} + {theirs:?}");
            assert_eq!(log.len(), want.len(), "{case}");
            assert_eq!(log.to_vec(), want, "{case}");
            assert_eq!(log.spill_error(), None, "{case}");
            // Spilled entries stay spilled (copied or taken over, never read into memory).
            assert!(log.spilled() >= spilled_before + other_spilled, "{case}");
            // Later pushes come after everything appended, and the report reads the same.
            log.push(entry(50_000));
            want.push(entry(50_000));
            assert_eq!(log.to_vec(), want, "{case}");
            let list = log.to_list();
            let failures: Vec<Failure> = want.iter().map(Failure::from).collect();
            assert_eq!(list.to_vec(), failures, "{case}");
            assert_eq!(
                serde_json::to_string_pretty(&list).unwrap(),
                serde_json::to_string_pretty(&failures).unwrap(),
                "{case}"
            );
        }
    }
}

#[test]
fn appending_to_an_empty_log_takes_the_other_whole() {
    let (mut log, _) = log_in(State::Empty, 0);
    let (other, want) = log_in(State::Spilled, 0);
    let (in_memory, spilled) = (other.in_memory().len(), other.spilled());
    log.append(other);
    assert_eq!((log.in_memory().len(), log.spilled()), (in_memory, spilled));
    assert_eq!(log.to_vec(), want);
}

#[test]
fn appending_a_spilled_log_to_a_spilled_log_copies_its_file() {
    let (mut log, mut want) = log_in(State::Spilled, 0);
    let (other, more) = log_in(State::Spilled, 1000);
    let head = log.in_memory().len();
    let spilled = log.spilled() + other.in_memory().len() as u64 + other.spilled();
    want.extend(more);
    log.append(other);
    // Ours stay as they were; every entry of theirs went to our file.
    assert_eq!((log.in_memory().len(), log.spilled()), (head, spilled));
    assert_eq!(log.to_vec(), want);
}

#[test]
fn a_spill_write_failure_keeps_every_entry_in_order() {
    // Pushing: the writer's buffer fills, its write fails, everything comes back to memory.
    let mut log = FailureLog::with_spill(Spill::new(1024, Arc::new(read_only_file)));
    let all: Vec<FailureEntry> = (0..2000).map(entry).collect();
    for e in &all {
        log.push(e.clone());
    }
    assert!(log.spill_error().is_some());
    assert_eq!(log.spilled(), 0);
    assert_eq!(log.to_vec(), all);

    // Appending a spilled log onto a log whose file cannot be written (not noticed yet: what
    // it spilled is still in the writer's buffer).
    let mut log = FailureLog::with_spill(Spill::new(1024, Arc::new(read_only_file)));
    let mut want: Vec<FailureEntry> = (0..50).map(entry).collect();
    for e in &want {
        log.push(e.clone());
    }
    assert!(log.spilled() > 0 && log.spill_error().is_none());
    let mut other = FailureLog::with_spill(spill(1024));
    for e in (100..2100).map(entry) {
        other.push(e.clone());
        want.push(e);
    }
    log.append(other);
    assert!(log.spill_error().is_some());
    assert_eq!(log.spilled(), 0);
    assert_eq!(log.to_vec(), want);
    // Later pushes stay in memory, after them.
    log.push(entry(9999));
    want.push(entry(9999));
    assert_eq!(log.to_vec(), want);
}

#[test]
fn another_logs_spill_error_is_reported_and_our_file_still_used() {
    let mut log = FailureLog::with_spill(spill(1024));
    let mut want: Vec<FailureEntry> = (0..100).map(entry).collect();
    for e in &want {
        log.push(e.clone());
    }
    let mut broken = FailureLog::with_spill(Spill::new(
        10,
        Arc::new(|| Err(io::Error::other("disk full"))),
    ));
    for e in (200..210).map(entry) {
        broken.push(e.clone());
        want.push(e);
    }
    let spilled = log.spilled();
    log.append(broken);
    assert_eq!(log.spill_error(), Some("disk full"));
    // Our file keeps taking entries, in order.
    assert_eq!(log.spilled(), spilled + 10);
    log.push(entry(300));
    want.push(entry(300));
    assert_eq!(log.to_vec(), want);
}
