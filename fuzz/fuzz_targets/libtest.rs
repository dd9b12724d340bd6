//! `libtest` adapter: parse, parse_reader through a small buffer, and scoring, on arbitrary
//! bytes (cargo test and cargo nextest libtest JSON, with cargo's stderr lines mixed in); and
//! the streamed read must give exactly what the whole-input read gives, so no chunk boundary
//! changes a result.
#![no_main]

use std::io::BufReader;
use std::sync::LazyLock;

use gapscore_adapter_libtest::{FORMAT, Libtest};
use gapscore_adapter_sdk::{Adapter, Normalizer, ParseOptions, RunCollector, parse_to_run};
use libfuzzer_sys::fuzz_target;

static ADAPTER: LazyLock<Libtest> = LazyLock::new(Libtest::new);

fuzz_target!(|data: &[u8]| {
    gapscore_fuzz::exercise(&*ADAPTER, data);
    let opts = ParseOptions::default();
    let whole = parse_to_run(&*ADAPTER, data, &opts).map_err(|e| e.to_string());
    let mut reader = BufReader::with_capacity(1 + data.len() % 13, data);
    let mut sink = Normalizer::new(RunCollector::new(FORMAT.to_owned(), None));
    let streamed = ADAPTER
        .parse_reader(&mut reader, &opts, &mut sink)
        .map(|()| sink.finish().into_run())
        .map_err(|e| e.to_string());
    assert_eq!(whole, streamed, "the streamed read differs from the whole read");
});
