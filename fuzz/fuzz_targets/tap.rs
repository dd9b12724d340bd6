//! `tap` adapter: parse (every format id and none), parse_reader through a small buffer,
//! and scoring, on arbitrary bytes; and the input as a YAML diagnostics block through the
//! fast path and the general reader, which must agree.
#![no_main]

use std::sync::LazyLock;

use gapscore_adapter_tap::{Tap, yaml};
use libfuzzer_sys::fuzz_target;

static ADAPTER: LazyLock<Tap> = LazyLock::new(Tap::new);

fuzz_target!(|data: &[u8]| {
    gapscore_fuzz::exercise(&*ADAPTER, data);
    let text = String::from_utf8_lossy(data);
    let general = yaml::parse_general(&text);
    if let Some(flat) = yaml::parse_flat(&text) {
        assert_eq!(Ok(&flat), general.as_ref(), "fast path differs on {text:?}");
    }
    assert_eq!(yaml::parse(&text), general);
});
