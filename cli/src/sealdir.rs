//! Reading a sealed directory for hashing: every regular file, as `find DIR -type f` lists
//! them (symbolic links neither followed nor hashed), each hashed as a stream.

use std::fs::{self, File};
use std::io::Read;
use std::path::Path;

use anyhow::{Result, bail};
use gapscore_core::feedback::SealedSource;
use gapscore_core::seal::{Excludes, FileHasher, SealedFile};

/// The files of a directory and what was left out by the excludes.
#[derive(Debug, Default)]
pub struct Scan {
    /// Regular files, paths relative and `/`-separated.
    pub files: Vec<SealedFile>,
    /// Relative paths left out by `--exclude`.
    pub excluded: Vec<String>,
}

/// Reads every regular file under `dir`.
pub fn scan(dir: &Path, excludes: &Excludes) -> Result<Scan> {
    let meta = fs::metadata(dir).map_err(|e| {
        anyhow::anyhow!(
            "cannot read sealed directory `{}`: {}",
            dir.display(),
            gapscore_adapters::io_reason(&e)
        )
    })?;
    if !meta.is_dir() {
        bail!("`{}` is not a directory", dir.display());
    }
    let mut scan = Scan::default();
    walk(dir, "", excludes, &mut scan)?;
    scan.files
        .sort_unstable_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    Ok(scan)
}

fn walk(dir: &Path, rel: &str, excludes: &Excludes, scan: &mut Scan) -> Result<()> {
    let entries = fs::read_dir(dir).map_err(|e| {
        anyhow::anyhow!(
            "cannot read directory `{}`: {}",
            dir.display(),
            gapscore_adapters::io_reason(&e)
        )
    })?;
    for entry in entries {
        let entry = entry.map_err(|e| {
            anyhow::anyhow!(
                "cannot read directory `{}`: {}",
                dir.display(),
                gapscore_adapters::io_reason(&e)
            )
        })?;
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            bail!(
                "`{}`: file names that are not UTF-8 cannot be sealed",
                path.display()
            );
        };
        let child = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        // `symlink_metadata`: a link is neither followed nor hashed, as with `find -type f`.
        let kind = entry.file_type().map_err(|e| {
            anyhow::anyhow!("`{}`: {}", path.display(), gapscore_adapters::io_reason(&e))
        })?;
        if excludes.matches(&child) {
            scan.excluded.push(child);
            continue;
        }
        if kind.is_dir() {
            walk(&path, &child, excludes, scan)?;
        } else if kind.is_file() {
            scan.files.push(SealedFile {
                sha256: hash_file(&path)?,
                path: child,
            });
        }
    }
    Ok(())
}

/// Reads the sealed tests' source for scrubbing feedback: every regular file under `dir`.
pub fn sealed_source(dir: &Path, min_len: usize) -> Result<SealedSource> {
    let scan = scan(dir, &Excludes::default())?;
    let mut source = SealedSource::new(min_len);
    for f in &scan.files {
        let path = dir.join(&f.path);
        let bytes = fs::read(&path).map_err(|e| {
            anyhow::anyhow!(
                "cannot read `{}`: {}",
                path.display(),
                gapscore_adapters::io_reason(&e)
            )
        })?;
        source.add_file(&f.path, &bytes);
    }
    Ok(source)
}

fn hash_file(path: &Path) -> Result<String> {
    let fail = |e: std::io::Error| {
        anyhow::anyhow!(
            "cannot read `{}`: {}",
            path.display(),
            gapscore_adapters::io_reason(&e)
        )
    };
    let mut file = File::open(path).map_err(fail)?;
    let mut hasher = FileHasher::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(fail(e)),
        }
    }
    Ok(hasher.finish())
}
