//! Plugin loading: every broken entry point of the fixture plugin library is rejected with its
//! exact message while the host keeps working; the built-in simple adapter loaded as its cdylib
//! gives results identical to the static one on every fixture; discovery finds only files named
//! like plugins.

use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gapscore_adapter_sdk::{
    Adapter, AdapterError, InputError, Location, ParseOptions, Status, parse_to_run,
};
use gapscore_adapter_simple::Simple;
use gapscore_adapter_testing::built_cdylib;
use gapscore_adapters::loader::load_with_symbol;
use gapscore_adapters::{Origin, PluginSearch, Registry, load_plugin};

fn fixtures_lib() -> PathBuf {
    built_cdylib("gapscore-fixture-plugins")
}

/// Copies a library under a plugin file name into a fresh directory (a loaded library must not
/// be overwritten in place).
fn as_plugin(lib: &Path, name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir
        .path()
        .join(format!("{DLL_PREFIX}gapscore_adapter_{name}{DLL_SUFFIX}"));
    fs::copy(lib, &path).unwrap();
    (dir, path)
}

fn load_error(symbol: &str) -> String {
    let lib = fixtures_lib();
    let err = load_with_symbol(&lib, symbol).unwrap_err();
    assert_eq!(err.path, lib);
    err.reason
}

#[test]
fn broken_descriptors_are_rejected_with_their_reason() {
    let v = env!("CARGO_PKG_VERSION");
    assert_eq!(
        load_error("gapscore_adapter_bad_abi"),
        format!(
            "adapter ABI v999 is not supported by gapscore {v} (supports v1..=v2); rebuild the plugin against gapscore-adapter-sdk {v}"
        )
    );
    assert_eq!(
        load_error("gapscore_adapter_short_struct"),
        "descriptor is 16 bytes, smaller than the 64 bytes of ABI v1"
    );
    assert_eq!(
        load_error("gapscore_adapter_null_fn"),
        "function `parse` is null"
    );
    assert_eq!(
        load_error("gapscore_adapter_null_free"),
        "function `free_buf` is null"
    );
    assert_eq!(
        load_error("gapscore_adapter_null_desc"),
        "entry function returned a null descriptor"
    );
    assert_eq!(
        load_error("gapscore_adapter_misnamed"),
        "adapter name `something_else` does not match its entry symbol `gapscore_adapter_misnamed`"
    );
    assert_eq!(
        load_error("gapscore_adapter_nope"),
        "not a gapscore adapter: symbol `gapscore_adapter_nope` not found"
    );
    // The message names the file.
    let lib = fixtures_lib();
    let shown = load_with_symbol(&lib, "gapscore_adapter_null_fn")
        .unwrap_err()
        .to_string();
    assert_eq!(
        shown,
        format!("plugin `{}`: function `parse` is null", lib.display())
    );
    // A file that is not a library at all.
    let dir = tempfile::tempdir().unwrap();
    let fake = dir
        .path()
        .join(format!("{DLL_PREFIX}gapscore_adapter_fake{DLL_SUFFIX}"));
    fs::write(&fake, b"not a shared object").unwrap();
    let err = load_plugin(&fake).unwrap_err();
    assert!(err.reason.starts_with("cannot load: "), "{}", err.reason);
}

fn parse_error(symbol: &str) -> String {
    let lib = fixtures_lib();
    let adapter = load_with_symbol(&lib, symbol).unwrap();
    match parse_to_run(&adapter, b"input", &ParseOptions::default()) {
        Err(AdapterError::Plugin(m)) => m,
        other => panic!("{symbol}: expected a plugin error, got {other:?}"),
    }
}

#[test]
fn misbehaving_parsers_are_rejected_and_the_host_survives() {
    let lib = fixtures_lib();
    let at = |name: &str| format!("plugin `{name}` ({}): ", lib.display());
    assert_eq!(
        parse_error("gapscore_adapter_bad_json"),
        format!(
            "{}returned invalid results JSON: EOF while parsing a list at line 1 column 58 (run with --plugin-debug to see what it returned)",
            at("bad_json")
        )
    );
    assert_eq!(
        parse_error("gapscore_adapter_bad_utf8"),
        format!(
            "{}returned non-UTF-8 output (at byte 37) (run with --plugin-debug to see what it returned)",
            at("bad_utf8")
        )
    );
    assert_eq!(
        parse_error("gapscore_adapter_unknown_status"),
        format!(
            "{}returned invalid results JSON: unknown variant `great`, expected one of `passed`, `failed`, `errored`, `skipped`, `xfailed`, `xpassed`, `todo` at line 1 column 56 (run with --plugin-debug to see what it returned)",
            at("unknown_status")
        )
    );
    assert_eq!(
        parse_error("gapscore_adapter_huge_len"),
        format!(
            "{}returned an output length of {} bytes (more than the 268435456-byte limit of adapter ABI v1; a v2 plugin streams its events with no limit)",
            at("huge_len"),
            usize::MAX / 2
        )
    );
    assert_eq!(
        parse_error("gapscore_adapter_status_77"),
        format!("{}returned unknown status 77", at("status_77"))
    );
    assert_eq!(
        parse_error("gapscore_adapter_panics"),
        format!("{}panicked: boom from plugin", at("panics"))
    );
    // Still alive, and a well-behaved entry of the same library works.
    let ok = load_with_symbol(&lib, "gapscore_adapter_ok").unwrap();
    let run = parse_to_run(&ok, b"", &ParseOptions::default()).unwrap();
    assert_eq!(run.tests.len(), 1);
    assert_eq!(run.tests[0].status, Status::Passed);
    assert_eq!(
        run.tests[0].id, "t",
        "an id left out by a plugin is derived"
    );
}

/// Every fixture of a built-in adapter: `adapters/<name>/tests/fixtures/{valid,invalid}`.
fn fixture_files(adapter: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(adapter)
        .join("tests/fixtures");
    let mut files = Vec::new();
    for kind in ["valid", "invalid"] {
        for e in fs::read_dir(root.join(kind)).unwrap() {
            files.push(e.unwrap().path());
        }
    }
    files.sort();
    files
}

#[test]
fn every_built_in_cdylib_gives_the_same_results_as_the_static_adapter() {
    let builtins = Registry::builtin();
    for entry in builtins.entries() {
        let name = entry.name().to_owned();
        // Each built-in crate is a dev-dependency of this crate, so cargo built its cdylib.
        let plugin = load_plugin(&built_cdylib(&format!("gapscore-adapter-{name}"))).unwrap();
        let builtin = entry.adapter.as_ref();
        assert_eq!(plugin.info(), builtin.info());
        let files = fixture_files(&name);
        assert!(files.len() >= 10, "{name}: too few fixtures");
        for file in files {
            let bytes = fs::read(&file).unwrap();
            let file_name = file.file_name().unwrap().to_str();
            assert_eq!(
                plugin.detect(&bytes, file_name),
                builtin.detect(&bytes, file_name),
                "{}",
                file.display()
            );
            let opts = ParseOptions::with_source(file.display().to_string());
            // A v2 plugin streams, so its errors may carry a byte offset where the built-in's
            // whole-buffer parse has a line and column: compare both as line and column.
            let a = parse_to_run(builtin, &bytes, &opts).map_err(|e| located(&bytes, e));
            let b = parse_to_run(&plugin, &bytes, &opts).map_err(|e| located(&bytes, e));
            assert_eq!(a, b, "{name}: {}", file.display());
        }
    }
    // The parity for the simple adapter is also checked against the crate directly.
    assert_eq!(
        builtins.by_format("simple").unwrap().adapter.info(),
        Simple::new().info()
    );
}

/// An error as text, a byte offset written as its line and column (columns count characters).
fn located(input: &[u8], e: AdapterError) -> String {
    let AdapterError::Input(InputError::Syntax {
        location: Location::Offset(offset),
        message,
    }) = e
    else {
        return e.to_string();
    };
    let before = &input[..(offset as usize).min(input.len())];
    let start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    format!("{line}:{column}: {message}")
}

#[test]
fn discovery_takes_only_plugin_file_names_and_never_guesses() {
    let simple = built_cdylib("gapscore-adapter-simple");
    let (dir, good) = as_plugin(&simple, "simple");
    fs::copy(
        &simple,
        dir.path().join(format!("{DLL_PREFIX}other{DLL_SUFFIX}")),
    )
    .unwrap();
    fs::write(dir.path().join("gapscore_adapter_notes.txt"), "x").unwrap();
    fs::create_dir(
        dir.path()
            .join(format!("{DLL_PREFIX}gapscore_adapter_dir{DLL_SUFFIX}")),
    )
    .unwrap();
    let missing = dir.path().join("missing-dir");
    let bad_name = dir.path().join("whatever.so");
    let search = PluginSearch::new(
        vec![bad_name.clone()],
        vec![dir.path().to_path_buf(), missing],
    );
    let (found, errors) = search.discover();
    assert_eq!(found, vec![good.clone()]);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].to_string().contains("not a plugin file name"));
    assert!(errors[1].to_string().contains("cannot read directory"));

    // Built-in names are reserved: the copy of the simple adapter is refused, the host keeps
    // its built-in.
    let mut registry = Registry::builtin();
    let errors = registry.load_plugins(&PluginSearch::new(vec![good.clone()], vec![]));
    assert_eq!(errors.len(), 1);
    assert_eq!(
        errors[0].reason,
        "adapter name `simple` is already taken by the built-in adapter"
    );
    assert_eq!(
        registry.entries().len(),
        Registry::builtin().entries().len()
    );

    // In an empty registry it loads, with its origin recorded.
    let mut registry = Registry::empty();
    assert!(
        registry
            .load_plugins(&PluginSearch::new(vec![good.clone()], vec![]))
            .is_empty()
    );
    assert_eq!(registry.entries()[0].origin, Origin::Plugin(good));
}

#[test]
fn environment_paths_are_split() {
    let joined = std::env::join_paths(["/a", "/b"]).unwrap();
    let s = PluginSearch::default().with_env_dirs(Some(&joined));
    assert_eq!(s.dirs, vec![PathBuf::from("/a"), PathBuf::from("/b")]);
    let none = PluginSearch::default().with_env_dirs(None);
    assert!(none.dirs.is_empty());
}

#[test]
fn concurrent_parses_through_a_plugin_are_correct() {
    let plugin = Arc::new(load_plugin(&built_cdylib("gapscore-adapter-simple")).unwrap());
    let handles: Vec<_> = (0..8)
        .map(|t| {
            let p = Arc::clone(&plugin);
            std::thread::spawn(move || {
                for i in 0..250 {
                    let n = (t * 250 + i) % 7 + 1;
                    let tests: Vec<String> = (0..n)
                        .map(|k| format!(r#"{{"name":"t{k}","status":"passed"}}"#))
                        .collect();
                    let doc = format!(r#"{{"tests":[{}]}}"#, tests.join(","));
                    let run =
                        parse_to_run(p.as_ref(), doc.as_bytes(), &ParseOptions::default()).unwrap();
                    assert_eq!(run.tests.len(), n);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}
