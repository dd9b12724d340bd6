//! `junit` adapter: parse (every format id and none), parse_reader through a small buffer,
//! and scoring, on arbitrary bytes.
#![no_main]

use std::sync::LazyLock;

use gapscore_adapter_junit::JUnit;
use libfuzzer_sys::fuzz_target;

static ADAPTER: LazyLock<JUnit> = LazyLock::new(JUnit::new);

fuzz_target!(|data: &[u8]| {
    gapscore_fuzz::exercise(&*ADAPTER, data);
});
