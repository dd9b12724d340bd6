//! `gapscore new-adapter NAME [--lang rust|c|python] [--dir DIR]`: writes a working adapter
//! skeleton with a fixture and a test. The files are the templates under `cli/templates/new-adapter/`,
//! embedded at build time, with the name filled in. The folder appears whole or not at all: it is
//! written beside its place under a temporary name and renamed into place.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::Result;
use gapscore_adapter_sdk::abi::is_valid_name;
use gapscore_core::Code;
use gapscore_engine::ExitCode;

use crate::args::{AdapterLang, NewAdapterArgs};

/// The SDK version a Rust skeleton names (the workspace's `gapscore-adapter-sdk`; a test in
/// cli/tests/it/round3/author.rs holds them equal).
pub const SDK_VERSION: &str = "0.1.0";

const FIXTURE: &str = include_str!("../../templates/new-adapter/shared-fixture.txt");
const INVALID: &str = include_str!("../../templates/new-adapter/shared-invalid.txt");
/// The header every C plugin compiles against, as this gapscore loads it.
const C_HEADER: &str = include_str!("../../../adapters/sdk/include/gapscore_adapter.h");

/// Why no skeleton was written. Every variant is exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum NewAdapterError {
    /// The name is not an adapter name.
    #[error(
        "`{0}` is not an adapter name: lower-case letters, digits, `-` and `_`, starting with a letter or digit, at most 64 bytes"
    )]
    InvalidName(String),
    /// The directory exists and holds something.
    #[error(
        "`{}` exists and is not empty: new-adapter writes only into a new or empty directory (name another with --dir)",
        .0.display()
    )]
    NotEmpty(PathBuf),
    /// A file or directory could not be written.
    #[error("cannot write `{}`", path.display())]
    Io {
        /// What could not be written.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
}

impl NewAdapterError {
    /// The error's stable code (`gapscore explain CODE`).
    pub fn code(&self) -> Code {
        match self {
            NewAdapterError::InvalidName(_) | NewAdapterError::NotEmpty(_) => Code::UsageError,
            NewAdapterError::Io { .. } => Code::FileIo,
        }
    }
}

/// One file of a skeleton: its path inside the folder and its text, placeholders filled in.
#[derive(Debug, PartialEq, Eq)]
pub struct SkeletonFile {
    /// The path inside the skeleton's folder, `/`-separated.
    pub path: String,
    /// The file's contents.
    pub text: String,
    /// Whether the file is a program run directly (mode 0755 on Unix).
    pub executable: bool,
}

/// The files of the skeleton of adapter `name` in `lang`. `name` must be valid.
pub fn skeleton(name: &str, lang: AdapterLang) -> Vec<SkeletonFile> {
    let fixture = format!("tests/fixtures/valid/example.{name}");
    let invalid = format!("tests/fixtures/invalid/unknown-status.{name}");
    let mut files: Vec<(String, &str, bool)> = match lang {
        AdapterLang::Rust => vec![
            (
                "Cargo.toml".into(),
                include_str!("../../templates/new-adapter/rust/Cargo.toml"),
                false,
            ),
            (
                "README.md".into(),
                include_str!("../../templates/new-adapter/rust/README.md"),
                false,
            ),
            (
                "src/lib.rs".into(),
                include_str!("../../templates/new-adapter/rust/lib.rs"),
                false,
            ),
            (
                "tests/fixtures.rs".into(),
                include_str!("../../templates/new-adapter/rust/test.rs"),
                false,
            ),
        ],
        AdapterLang::C => vec![
            (
                "README.md".into(),
                include_str!("../../templates/new-adapter/c/README.md"),
                false,
            ),
            (
                "adapter.c".into(),
                include_str!("../../templates/new-adapter/c/adapter.c"),
                false,
            ),
            ("gapscore_adapter.h".into(), C_HEADER, false),
            (
                "Makefile".into(),
                include_str!("../../templates/new-adapter/c/Makefile"),
                false,
            ),
            (
                "test.sh".into(),
                include_str!("../../templates/new-adapter/c/test.sh"),
                true,
            ),
            (
                "tests/expected.json".into(),
                include_str!("../../templates/new-adapter/c/expected.json"),
                false,
            ),
        ],
        AdapterLang::Python => vec![
            (
                "README.md".into(),
                include_str!("../../templates/new-adapter/python/README.md"),
                false,
            ),
            (
                "adapter.py".into(),
                include_str!("../../templates/new-adapter/python/adapter.py"),
                true,
            ),
            (
                "test_adapter.py".into(),
                include_str!("../../templates/new-adapter/python/test_adapter.py"),
                false,
            ),
        ],
    };
    files.push((fixture, FIXTURE, false));
    files.push((invalid, INVALID, false));
    let symbol = format!("gapscore_adapter_{}", name.replace('-', "_"));
    files
        .into_iter()
        .map(|(path, text, executable)| SkeletonFile {
            path,
            text: text
                .replace("@NAME@", name)
                .replace("@SYMBOL@", &symbol)
                .replace("@SDK_VERSION@", SDK_VERSION),
            executable,
        })
        .collect()
}

/// Writes the skeleton and prints what it wrote and what to run next.
pub fn run(args: &NewAdapterArgs) -> Result<ExitCode> {
    if !is_valid_name(&args.name) {
        return Err(NewAdapterError::InvalidName(args.name.clone()).into());
    }
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("gapscore-adapter-{}", args.name)));
    let files = skeleton(&args.name, args.lang);
    write_whole(&dir, &files)?;
    let next = match args.lang {
        AdapterLang::Rust => {
            "cargo test (see README.md for the SDK's [patch] line until it is on crates.io)"
        }
        AdapterLang::C => "make test",
        AdapterLang::Python => "python3 -m unittest",
    };
    crate::io::write_output(
        None,
        &format!(
            "wrote {} files into {}\nnext: cd {} && {next}\n",
            files.len(),
            dir.display(),
            dir.display()
        ),
    )?;
    Ok(ExitCode::Ok)
}

/// Writes `files` into a sibling of `dir` under a temporary name, then renames it to `dir`
/// (which must be absent or an empty directory), so a failure leaves nothing behind.
fn write_whole(dir: &Path, files: &[SkeletonFile]) -> Result<(), NewAdapterError> {
    let io_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| NewAdapterError::Io { path, source }
    };
    match fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(NewAdapterError::NotEmpty(dir.to_path_buf()));
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
            return Err(NewAdapterError::NotEmpty(dir.to_path_buf()));
        }
        Err(e) => return Err(io_error(dir)(e)),
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).map_err(io_error(&parent))?;
    let staged = tempfile::Builder::new()
        .prefix(".gapscore-new-adapter-")
        .tempdir_in(&parent)
        .map_err(io_error(&parent))?;
    for file in files {
        let path = staged.path().join(&file.path);
        if let Some(folder) = path.parent() {
            fs::create_dir_all(folder).map_err(io_error(folder))?;
        }
        fs::write(&path, &file.text).map_err(io_error(&dir.join(&file.path)))?;
        #[cfg(unix)]
        if file.executable {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755))
                .map_err(io_error(&dir.join(&file.path)))?;
        }
    }
    // tempdir_in makes the folder 0700; a skeleton is an ordinary folder.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(staged.path(), fs::Permissions::from_mode(0o755))
            .map_err(io_error(dir))?;
    }
    // An empty `dir` is replaced by the rename (POSIX); the staged folder is removed on error.
    fs::rename(staged.path(), dir).map_err(io_error(dir))?;
    // Renamed away: nothing is left for the guard to remove.
    let _ = staged.keep();
    Ok(())
}
