//! The committed C header equals what the Rust definitions generate, and a C compiler (when one
//! is installed) accepts it, including its layout assertions against the Rust offsets.

#![allow(clippy::print_stderr)] // Test code.

use std::path::PathBuf;
use std::process::Command;

use gapscore_adapter_sdk::abi::c_header;

fn header_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include/gapscore_adapter.h")
}

#[test]
fn committed_header_is_up_to_date() {
    let generated = c_header();
    let path = header_path();
    if std::env::var_os("GAPSCORE_UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let diff = similar::TextDiff::from_lines(&committed, &generated)
            .unified_diff()
            .header("committed", "generated")
            .to_string();
        panic!(
            "adapters/sdk/include/gapscore_adapter.h is stale: the ABI definitions changed.\n\
             Regenerate with `GAPSCORE_UPDATE_HEADER=1 cargo test -p gapscore-adapter-sdk` and commit it.\n{diff}"
        );
    }
}

#[test]
fn header_compiles_with_its_layout_assertions() {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    if Command::new(&cc).arg("--version").output().is_err() {
        eprintln!("skipped: no C compiler (`{cc}`) found");
        return;
    }
    let dir = tempfile_dir();
    let src = dir.join("check.c");
    std::fs::write(
        &src,
        "#include \"gapscore_adapter.h\"\nint main(void) { return GAPSCORE_ABI_V2 == 2u && GAPSCORE_MAX_ABI_VERSION == 2u && GAPSCORE_MIN_ABI_VERSION == 1u ? 0 : 1; }\n",
    )
    .unwrap();
    let out = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Werror", "-fsyntax-only", "-I"])
        .arg(header_path().parent().unwrap())
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{cc} rejected the header:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn tempfile_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sdk-header-check");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
