//! The sealed-directory reader, one walker for `gapscore seal`, `score --seal`, `feedback`,
//! `check` and `batch`, so they all see the same files; reading a seal record; hashing a file as
//! a stream; and [`FsError`], the I/O error that carries its path and keeps the OS error as its
//! source.
//!
//! [`scan`] lists every regular file as `find DIR -type f` does (symbolic links neither followed
//! nor hashed, so a link loop cannot hang it), hashing each as a stream; [`scan_contents`] also
//! hands each file's bytes to the caller (the sealed source for scrubbing and leak scans);
//! [`read_record`] reads a seal record through [`SealRecord::from_json`]; [`sha256_file`] hashes
//! a file.
//!
//! [`FsError`] lives here, beside the first reader that needs it, rather than in the engine: the
//! checker names it without depending on the engine. The engine's atomic writer
//! (`gapscore_engine::fs::write_atomic`) reports through it too (its write variants), so every
//! command prints one I/O error type, through [`chain`].

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::digest::FileHasher;
use crate::dir_hash::SealedFile;
use crate::excludes::Excludes;
use crate::record::{RecordError, SealRecord};

/// Directories nested deeper than this are refused rather than walked (a stack guard: links are
/// not followed, so only a real, absurdly deep tree reaches it).
pub const MAX_DEPTH: usize = 64;

/// What was being done when an I/O error struck, for the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Op {
    /// Opening or reading.
    Read,
    /// Creating, writing or renaming.
    Write,
}

/// Why a file, a sealed directory or a seal record cannot be read or written. The I/O error is
/// kept as the [`std::error::Error::source`]; [`chain`] prints it in gapscore's style
/// (`cannot read `x`: no such file or directory`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FsError {
    /// A file or directory cannot be read or written.
    #[error("cannot {} `{}`", match .op { Op::Read => "read", Op::Write => "write" }, .path.display())]
    Io {
        /// What could not be read or written.
        path: PathBuf,
        /// Reading or writing.
        op: Op,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// The sealed directory is a file, or something else.
    #[error("`{}` is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// An output path that is a directory.
    #[error("cannot write `{}`: is a directory", .0.display())]
    IsADirectory(PathBuf),
    /// An output whose directory does not exist: gapscore does not create it (a typo in `-o`
    /// should not leave a tree of directories behind).
    #[error("cannot write `{}`: the directory `{}` does not exist (create it first: mkdir -p {})", .path.display(), .dir.display(), .dir.display())]
    MissingDirectory {
        /// The output asked for.
        path: PathBuf,
        /// Its missing directory.
        dir: PathBuf,
    },
    /// A file name that is not UTF-8: it has no stable spelling to hash.
    #[error("`{}`: file names that are not utf-8 cannot be sealed", .0.display())]
    NotUtf8(PathBuf),
    /// An entry that is neither a regular file, a directory nor a symbolic link (a FIFO, a
    /// socket, a device): it has no bytes to hash, and what reading it gives is whatever its
    /// writer says at the time, so a sealed directory holding one can be neither sealed nor
    /// verified.
    #[error("`{}` is {kind}, not a regular file: a sealed directory holds regular files only, so it can be neither sealed nor verified; remove it", .path.display())]
    NotRegular {
        /// The entry.
        path: PathBuf,
        /// What it is (`a FIFO`, `a socket`, `a device`).
        kind: &'static str,
    },
    /// Directories nested deeper than [`MAX_DEPTH`].
    #[error("`{}`: directories nested more than {MAX_DEPTH} deep", .0.display())]
    TooDeep(PathBuf),
    /// A seal record that cannot be used; the message names the file and the place.
    #[error("{}", .source.at(.path))]
    Record {
        /// The record file.
        path: PathBuf,
        /// What is wrong with it.
        source: RecordError,
    },
}

impl FsError {
    /// A read error at `path`.
    pub fn read(path: &Path, source: io::Error) -> Self {
        FsError::Io {
            path: path.to_owned(),
            op: Op::Read,
            source,
        }
    }

    /// A write error at `path`.
    pub fn write(path: &Path, source: io::Error) -> Self {
        FsError::Io {
            path: path.to_owned(),
            op: Op::Write,
            source,
        }
    }
}

fn io(path: &Path, e: io::Error) -> FsError {
    FsError::read(path, e)
}

/// An I/O error as a message in gapscore's style: the OS text lowercased, without
/// "(os error N)" or a path suffix (the caller names the file). The same wording as the
/// adapter host's `io_reason` (which cannot depend on this crate); a test in the engine, which
/// sees both, keeps them equal.
pub fn io_reason(e: &io::Error) -> String {
    let s = e.to_string();
    let s = s.split(" (os error").next().unwrap_or(&s);
    let s = s.split(" at path ").next().unwrap_or(s).to_owned();
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => s,
    }
}

/// An error and its causes on one line, `outer: inner: ...`, with an operating-system error in
/// gapscore's style ([`io_reason`]: lowercase, without "(os error N)"). A seal record's error
/// already names its cause, so the chain stops there.
pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    if e.downcast_ref::<FsError>()
        .is_some_and(|f| matches!(f, FsError::Record { .. }))
    {
        return out;
    }
    let mut cause = e.source();
    while let Some(c) = cause {
        out.push_str(": ");
        match c.downcast_ref::<io::Error>() {
            Some(io) => out.push_str(&io_reason(io)),
            None => out.push_str(&c.to_string()),
        }
        cause = c.source();
    }
    out
}

/// Shows an error with its causes ([`chain`]).
#[derive(Debug)]
pub struct Chain<'a>(pub &'a (dyn std::error::Error + 'static));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&chain(self.0))
    }
}

/// The files of a sealed directory and what the excludes left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Scan {
    /// Regular files, paths relative and `/`-separated, in byte order of path.
    pub files: Vec<SealedFile>,
    /// Relative paths left out by the excludes (a directory's own path when it was excluded
    /// whole).
    pub excluded: Vec<String>,
    /// Symbolic links found (not followed, not hashed), relative paths with their target text.
    /// A sealed directory holds regular files only: a link can point the sealed tests anywhere,
    /// so sealing refuses one and verification counts one as a change.
    pub links: Vec<(String, String)>,
    /// Entries that are neither files, directories nor links (relative path, what it is: `a
    /// FIFO`, `a socket`, `a device`). [`scan`] and [`scan_contents`] stop at the first one;
    /// only [`scan_contents_listing_special`] lists them, for a checker that reports them.
    pub special: Vec<(String, &'static str)>,
}

/// Lists and hashes every regular file under `dir`, streaming each file through the hasher.
pub fn scan(dir: &Path, excludes: &Excludes) -> Result<Scan, FsError> {
    walk_dir(dir, excludes, false, &mut |path, _| sha256_file(path))
}

/// Like [`scan`], listing FIFOs, sockets and devices in [`Scan::special`] instead of stopping
/// at the first: a verification says what the directory holds besides its files.
pub fn scan_listing_special(dir: &Path, excludes: &Excludes) -> Result<Scan, FsError> {
    walk_dir(dir, excludes, true, &mut |path, _| sha256_file(path))
}

/// Lists every entry under `dir` as [`scan_listing_special`] does, without reading or
/// hashing any file (each [`SealedFile::sha256`] is empty): what lies under a directory, for a
/// check that asks whether a seal covers it.
pub fn list(dir: &Path) -> Result<Scan, FsError> {
    walk_dir(dir, &Excludes::default(), true, &mut |_, _| {
        Ok(String::new())
    })
}

/// Like [`scan`], reading each file whole and handing `(relative path, bytes)` to `visit`
/// before hashing it: sealed test directories are small, and this reads each file once.
pub fn scan_contents(
    dir: &Path,
    excludes: &Excludes,
    visit: &mut dyn FnMut(&str, &[u8]),
) -> Result<Scan, FsError> {
    walk_dir(dir, excludes, false, &mut read_and_hash(visit))
}

/// Like [`scan_contents`], listing FIFOs, sockets and devices in [`Scan::special`] instead of
/// stopping at the first: `gapscore check` judges a sealed directory it did not make, and says
/// what it holds as findings rather than refusing to read it.
pub fn scan_contents_listing_special(
    dir: &Path,
    excludes: &Excludes,
    visit: &mut dyn FnMut(&str, &[u8]),
) -> Result<Scan, FsError> {
    walk_dir(dir, excludes, true, &mut read_and_hash(visit))
}

fn read_and_hash<'a>(
    visit: &'a mut dyn FnMut(&str, &[u8]),
) -> impl FnMut(&Path, &str) -> Result<String, FsError> + 'a {
    move |path, rel| {
        let bytes = fs::read(path).map_err(|e| io(path, e))?;
        visit(rel, &bytes);
        let mut hasher = FileHasher::new();
        hasher.update(&bytes);
        Ok(hasher.finish())
    }
}

/// Reads a seal record file.
pub fn read_record(path: &Path) -> Result<SealRecord, FsError> {
    let text = fs::read_to_string(path).map_err(|e| io(path, e))?;
    SealRecord::from_json(&text).map_err(|source| FsError::Record {
        path: path.to_owned(),
        source,
    })
}

type Hash<'a> = dyn FnMut(&Path, &str) -> Result<String, FsError> + 'a;

fn walk_dir(
    dir: &Path,
    excludes: &Excludes,
    list_special: bool,
    hash: &mut Hash<'_>,
) -> Result<Scan, FsError> {
    let meta = fs::metadata(dir).map_err(|e| io(dir, e))?;
    if !meta.is_dir() {
        return Err(FsError::NotADirectory(dir.to_owned()));
    }
    let mut scan = Scan::default();
    let mut walker = Walker {
        excludes,
        list_special,
        hash,
        scan: &mut scan,
    };
    walker.walk(dir, "", 0)?;
    scan.files
        .sort_unstable_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    Ok(scan)
}

/// One walk of a sealed directory: what it leaves out, whether special files are listed or
/// stop it, how each file is hashed, and what was found.
struct Walker<'w, 'h> {
    excludes: &'w Excludes,
    list_special: bool,
    hash: &'w mut Hash<'h>,
    scan: &'w mut Scan,
}

impl Walker<'_, '_> {
    fn walk(&mut self, dir: &Path, rel: &str, depth: usize) -> Result<(), FsError> {
        if depth > MAX_DEPTH {
            return Err(FsError::TooDeep(dir.to_owned()));
        }
        for entry in fs::read_dir(dir).map_err(|e| io(dir, e))? {
            let entry = entry.map_err(|e| io(dir, e))?;
            let path = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                return Err(FsError::NotUtf8(path));
            };
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if self.excludes.matches(&child) {
                self.scan.excluded.push(child);
                continue;
            }
            // The entry's own type: a link is neither followed nor hashed, as with `find -type f`.
            let kind = entry.file_type().map_err(|e| io(&path, e))?;
            if kind.is_dir() {
                self.walk(&path, &child, depth + 1)?;
            } else if kind.is_file() {
                let sha256 = (self.hash)(&path, &child)?;
                self.scan.files.push(SealedFile {
                    sha256,
                    path: child,
                });
            } else if kind.is_symlink() {
                let target = fs::read_link(&path).map_err(|e| io(&path, e))?;
                self.scan
                    .links
                    .push((child, target.to_string_lossy().into_owned()));
            } else if self.list_special {
                self.scan.special.push((child, special_kind(kind)));
            } else {
                // Nothing in a sealed directory is passed over: a FIFO, a socket or a device is
                // neither hashed nor skipped, it stops the scan (or is listed, for the checker).
                return Err(FsError::NotRegular {
                    path,
                    kind: special_kind(kind),
                });
            }
        }
        Ok(())
    }
}

/// What a directory entry that is not a file, a directory or a link is, for the error.
fn special_kind(kind: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    let _ = kind;
    "a special file"
}

/// The SHA-256 of a file's bytes, as lowercase hex, read as a stream.
pub fn sha256_file(path: &Path) -> Result<String, FsError> {
    let mut file = File::open(path).map_err(|e| io(path, e))?;
    let mut hasher = FileHasher::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io(path, e)),
        }
    }
    Ok(hasher.finish())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Test code.

    use super::*;

    #[test]
    fn scan_and_scan_contents_agree_and_links_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/b/test_x.py"), "assert add(1, 2) == 3\n").unwrap();
        fs::write(root.join("top.t"), "ok 1\n").unwrap();
        fs::create_dir(root.join("__pycache__")).unwrap();
        fs::write(root.join("__pycache__/x.pyc"), [0u8, 1, 2]).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root, root.join("a/loop")).unwrap();
        let excludes = Excludes::new(&["__pycache__"]).unwrap();
        let streamed = scan(root, &excludes).unwrap();
        let mut seen = Vec::new();
        let whole = scan_contents(root, &excludes, &mut |rel, bytes| {
            seen.push((rel.to_owned(), bytes.len()));
        })
        .unwrap();
        assert_eq!(streamed, whole);
        let paths: Vec<&str> = streamed.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["a/b/test_x.py", "top.t"]);
        assert_eq!(streamed.excluded, ["__pycache__"]);
        seen.sort();
        assert_eq!(
            seen,
            [("a/b/test_x.py".to_owned(), 22), ("top.t".to_owned(), 5)]
        );
    }

    /// A FIFO or a socket in a sealed directory is neither hashed nor passed over: scanning
    /// stops with an error naming it (the seal, `seal --verify`, `score --seal` and `check` all
    /// scan through here).
    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_socket_stops_the_scan_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("test_a.py"), "def test_a(): pass\n").unwrap();
        fs::create_dir(root.join("sub")).unwrap();
        let socket = root.join("sub/s.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        for result in [
            scan(root, &Excludes::default()).map(|_| ()),
            scan_contents(root, &Excludes::default(), &mut |_, _| {}).map(|_| ()),
        ] {
            match result {
                Err(FsError::NotRegular { path, kind }) => {
                    assert_eq!((path.as_path(), kind), (socket.as_path(), "a socket"));
                }
                other => panic!("a socket in a sealed directory: {other:?}"),
            }
        }
        // Left out by an exclude, it is not read at all.
        assert!(scan(root, &Excludes::new(&["sub"]).unwrap()).is_ok());
        // The checker's scan lists it instead, and reads everything else.
        let listed =
            scan_contents_listing_special(root, &Excludes::default(), &mut |_, _| {}).unwrap();
        assert_eq!(listed.special, [("sub/s.sock".to_owned(), "a socket")]);
        assert_eq!(listed.files.len(), 1);
        let fifo = root.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = scan(root, &Excludes::new(&["sub"]).unwrap()).unwrap_err();
            assert!(
                e.to_string().contains("is a FIFO, not a regular file"),
                "{e}"
            );
        }
    }

    #[test]
    fn errors_name_the_place() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        fs::write(&file, "x").unwrap();
        assert!(matches!(
            scan(&file, &Excludes::default()),
            Err(FsError::NotADirectory(_))
        ));
        let missing = dir.path().join("missing");
        let e = chain(&scan(&missing, &Excludes::default()).unwrap_err());
        assert!(
            e.starts_with("cannot read `") && e.ends_with("no such file or directory"),
            "{e}"
        );
        let mut deep = dir.path().join("d");
        for _ in 0..=MAX_DEPTH + 1 {
            deep = deep.join("d");
        }
        fs::create_dir_all(&deep).unwrap();
        assert!(matches!(
            scan(&dir.path().join("d"), &Excludes::default()),
            Err(FsError::TooDeep(_))
        ));
        let rec = dir.path().join("seal.json");
        fs::write(&rec, "{\n  \"gapscore_seal\": 1,\n  oops").unwrap();
        let e = read_record(&rec).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}:3:3: not a seal record", rec.display())),
            "{e}"
        );
    }
}
