//! Format detection: the registry's choice and every built-in adapter's `detect` and
//! `detect_format`, on the prefix the host passes (at most 64 KiB) and under several file names.
#![no_main]

use std::sync::LazyLock;

use gapscore_adapter_sdk::DETECT_PREFIX_LEN;
use gapscore_adapters::Registry;
use libfuzzer_sys::fuzz_target;

static REGISTRY: LazyLock<Registry> = LazyLock::new(Registry::builtin);

const NAMES: &[Option<&str>] = &[
    None,
    Some("report.xml"),
    Some("results.json"),
    Some("go-test.jsonl"),
    Some("out.tap"),
    Some("pytest.log"),
    Some(""),
];

fuzz_target!(|data: &[u8]| {
    let prefix = &data[..data.len().min(DETECT_PREFIX_LEN)];
    for name in NAMES {
        let _ = REGISTRY.detect(prefix, *name);
    }
    for entry in REGISTRY.entries() {
        let c = entry.adapter.detect(prefix, None);
        assert!(c <= 100, "{} claimed {c}", entry.name());
        if let Some(f) = entry.adapter.detect_format(prefix, None) {
            assert!(
                entry.adapter.info().formats.contains(&f),
                "{} detected unknown format {f}",
                entry.name()
            );
        }
    }
});
