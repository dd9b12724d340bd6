//! Shared driver for the adapter fuzz targets: one input goes through every way gapscore reads
//! it — `parse` for each format id (and with none, so the adapter sniffs), `parse_reader` through
//! a small buffer (so streaming readers see lines and documents cut at odd places), and the
//! scoring path (`Normalizer<Tally>`, what `gapscore score` keeps) — and every run read is
//! serialised, as `gapscore parse` would.

use std::io::BufReader;

use gapscore_adapter_sdk::{Adapter, Normalizer, ParseOptions, RunCollector, parse_to_run};
use gapscore_core::{StatusPolicy, Tally};

/// Options naming a format (or none).
pub fn opts(format_id: Option<&str>) -> ParseOptions {
    let mut o = ParseOptions::with_source("fuzz-input");
    o.format_id = format_id.map(str::to_owned);
    o
}

/// Reads `data` every way `adapter` can be asked to. Errors are expected; panics are the bugs.
pub fn exercise(adapter: &dyn Adapter, data: &[u8]) {
    let formats: Vec<String> = adapter.info().formats.clone();
    let mut choices: Vec<Option<&str>> = vec![None];
    if formats.len() > 1 {
        choices.extend(formats.iter().map(|f| Some(f.as_str())));
    }
    for f in &choices {
        if let Ok(run) = parse_to_run(adapter, data, &opts(*f)) {
            let _ = serde_json::to_vec(&run);
        }
    }
    // A buffer size taken from the length, not the bytes, so seeds stay as they are: small
    // inputs are read through tiny buffers, which is where chunk-boundary bugs live.
    let cap = 1 + data.len() % 61;
    for f in &choices {
        let mut reader = BufReader::with_capacity(cap, data);
        let mut sink = Normalizer::new(RunCollector::new(f.unwrap_or("auto"), None));
        if adapter.parse_reader(&mut reader, &opts(*f), &mut sink).is_ok() {
            let _ = serde_json::to_vec(&sink.finish().into_run());
        }
    }
    let mut tally = Tally::new(StatusPolicy::default());
    {
        let mut reader = BufReader::with_capacity(cap, data);
        let mut sink = Normalizer::new(&mut tally);
        let _ = adapter.parse_reader(&mut reader, &opts(None), &mut sink);
        sink.finish();
    }
    tally.finish();
}
