//! `junit` split read against one pass: the input written to a file, split at each of its
//! first boundary guesses and at the `<` its first byte picks, then at all of those at once;
//! the events of the parts, in order, must be the one-pass events, and an error the same
//! error at the same offset.
#![no_main]

use std::fs::File;
use std::io::{BufReader, Write as _};
use std::path::PathBuf;
use std::sync::LazyLock;

use gapscore_adapter_junit::parser::parse_reader;
use gapscore_adapter_junit::parser::split::{Part, Split, find_split, parse_split_in_parts};
use gapscore_adapter_testing::EventLog;
use libfuzzer_sys::fuzz_target;

static PATH: LazyLock<PathBuf> = LazyLock::new(|| {
    std::env::temp_dir().join(format!(
        "gapscore-fuzz-junit-split-{}.xml",
        std::process::id()
    ))
});

fuzz_target!(|data: &[u8]| {
    let path = &*PATH;
    File::create(path).unwrap().write_all(data).unwrap();
    let mut one = EventLog::default();
    let want = parse_reader(&mut BufReader::new(File::open(path).unwrap()), &mut one)
        .map(|()| one.0)
        .map_err(|e| format!("{e:?}"));
    let mut offsets = Vec::new();
    let mut f = File::open(path).unwrap();
    let mut from = 0;
    while offsets.len() < 4
        && let Some(at) = find_split(&mut f, from).unwrap()
    {
        offsets.push(at);
        from = at + 1;
    }
    let lts: Vec<usize> = (0..data.len()).filter(|&i| data[i] == b'<').collect();
    if let (Some(first), false) = (data.first(), lts.is_empty()) {
        offsets.push(lts[usize::from(*first) % lts.len()] as u64);
    }
    let mut all = offsets.clone();
    all.sort_unstable();
    all.dedup();
    let mut splits: Vec<Vec<u64>> = offsets.into_iter().map(|at| vec![at]).collect();
    splits.push(all);
    for ats in splits {
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
        let got = match parse_split_in_parts(&mut r, parts, &mut a, &|_, _| true) {
            Ok(Split::Appended(later)) => {
                for b in later {
                    a.0.extend(b.0);
                }
                Ok(a.0)
            }
            Ok(Split::Sequential(_)) => Ok(a.0),
            Err(e) => Err(format!("{e:?}")),
        };
        assert_eq!(got, want, "split at {ats:?}");
    }
});
