//! The category-rules reader (`core/src/categories.rs`, `--categories FILE`): TOML text to
//! rules, with the error's place computed from the parser's span; rules that compile are then
//! applied to tests whose suite, name and file come from the input's own lines.
#![no_main]

use gapscore_core::categories::CategoryRules;
use gapscore_core::{Category, Status, TestCase};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let rules = match CategoryRules::from_toml(text) {
        Ok(r) => r,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let lines: Vec<&str> = text.lines().take(16).collect();
    for (i, name) in lines.iter().enumerate() {
        let mut t = TestCase::new(lines.get(i + 1).map(|s| (*s).to_owned()), *name, Status::Failed);
        t.file = lines.get(i + 2).map(|s| (*s).to_owned());
        rules.apply(&mut t);
        let _ = Category::from_title(name);
    }
});
