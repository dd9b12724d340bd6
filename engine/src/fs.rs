//! The engine's one filesystem module: reading a sealed directory and a seal record (one walker
//! for `gapscore seal`, `score --seal`, `feedback`, `check` and `batch`, so they all see the same
//! files), hashing a file as a stream, writing an output atomically, and the I/O error that
//! carries its path and keeps the OS error as its source.
//!
//! [`scan`] lists every regular file as `find DIR -type f` does (symbolic links neither followed
//! nor hashed, so a link loop cannot hang it), hashing each as a stream; [`scan_contents`] also
//! hands each file's bytes to the caller (the sealed source for scrubbing and leak scans);
//! [`read_record`] reads a seal record through [`SealRecord::from_json`]; [`write_atomic`]
//! replaces a file only once its new content is complete; [`sha256_file`] hashes a file.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use gapscore_core::feedback::SealedSource;
use gapscore_core::seal::{Excludes, FileHasher, RecordError, SealRecord, SealedFile};

pub use gapscore_adapters::io_reason;

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
}

/// Lists and hashes every regular file under `dir`, streaming each file through the hasher.
pub fn scan(dir: &Path, excludes: &Excludes) -> Result<Scan, FsError> {
    walk_dir(dir, excludes, &mut |path, _| sha256_file(path))
}

/// Like [`scan`], reading each file whole and handing `(relative path, bytes)` to `visit`
/// before hashing it: sealed test directories are small, and this reads each file once.
pub fn scan_contents(
    dir: &Path,
    excludes: &Excludes,
    visit: &mut dyn FnMut(&str, &[u8]),
) -> Result<Scan, FsError> {
    walk_dir(dir, excludes, &mut |path, rel| {
        let bytes = fs::read(path).map_err(|e| io(path, e))?;
        visit(rel, &bytes);
        let mut hasher = FileHasher::new();
        hasher.update(&bytes);
        Ok(hasher.finish())
    })
}

/// The sealed tests' source, for scrubbing feedback and scanning for leaks: every regular file
/// under `dir`.
pub fn sealed_source(dir: &Path, min_len: usize) -> Result<SealedSource, FsError> {
    sealed_source_of(&[dir], min_len)
}

/// [`sealed_source`] of several sealed directories at once (the suites of a plural seal).
pub fn sealed_source_of(dirs: &[&Path], min_len: usize) -> Result<SealedSource, FsError> {
    let mut source = SealedSource::new(min_len);
    for dir in dirs {
        scan_contents(dir, &Excludes::default(), &mut |rel, bytes| {
            source.add_file(rel, bytes);
        })?;
    }
    Ok(source)
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

fn walk_dir(dir: &Path, excludes: &Excludes, hash: &mut Hash<'_>) -> Result<Scan, FsError> {
    let meta = fs::metadata(dir).map_err(|e| io(dir, e))?;
    if !meta.is_dir() {
        return Err(FsError::NotADirectory(dir.to_owned()));
    }
    let mut scan = Scan::default();
    walk(dir, "", 0, excludes, hash, &mut scan)?;
    scan.files
        .sort_unstable_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    Ok(scan)
}

fn walk(
    dir: &Path,
    rel: &str,
    depth: usize,
    excludes: &Excludes,
    hash: &mut Hash<'_>,
    scan: &mut Scan,
) -> Result<(), FsError> {
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
        if excludes.matches(&child) {
            scan.excluded.push(child);
            continue;
        }
        // The entry's own type: a link is neither followed nor hashed, as with `find -type f`.
        let kind = entry.file_type().map_err(|e| io(&path, e))?;
        if kind.is_dir() {
            walk(&path, &child, depth + 1, excludes, hash, scan)?;
        } else if kind.is_file() {
            let sha256 = hash(&path, &child)?;
            scan.files.push(SealedFile {
                sha256,
                path: child,
            });
        } else if kind.is_symlink() {
            let target = fs::read_link(&path).map_err(|e| io(&path, e))?;
            scan.links
                .push((child, target.to_string_lossy().into_owned()));
        }
    }
    Ok(())
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

/// Writes an output to `path`: a regular file (or a new path) atomically, anything else
/// through. For a regular file, `write` fills a temporary file in the same directory, which is
/// then renamed over `path`, so a killed run leaves the old file or the new one, never a torn
/// one; the new file gets the mode of the file it replaces, or 0644. `sync` flushes it to disk
/// before the rename (for outputs a user keeps; batch's thousands of per-repository reports skip
/// it for speed, which only matters on power loss).
///
/// A symbolic link is followed: its target is written (atomically when it is a regular file or
/// missing), and the link stays a link. A character device (`/dev/null`, `/dev/stdout`), a FIFO
/// or a socket is written to as it is: a rename would replace it with a regular file, which as
/// root would break `/dev/null` for the whole machine.
pub fn write_atomic(
    path: &Path,
    sync: bool,
    write: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> Result<(), FsError> {
    let target = resolve_links(path)?;
    if let Ok(m) = fs::metadata(&target)
        && !m.is_file()
        && !m.is_dir()
    {
        // Always kept, so a device gets the output as it is written, not held first.
        return write_through(&target, write);
    }
    write_atomic_if(path, sync, &mut |w| write(w).map(|()| true)).map(|_| ())
}

/// Like [`write_atomic`], for an output written as its inputs are read, which may turn out not
/// to be wanted (`gapscore parse -o FILE` with an input that fails half-way): `write` answers
/// whether to keep what it wrote. A regular file (or a new path) is then renamed into place or
/// left alone, as if never started. A device, FIFO or socket cannot take back what it was given,
/// so its content is held in a spool (in memory up to [`HELD_IN_MEMORY`], then in a temporary
/// file) and written through only when kept. Returns whether the output was written.
pub fn write_atomic_if(
    path: &Path,
    sync: bool,
    write: &mut dyn FnMut(&mut (dyn Write + Send)) -> io::Result<bool>,
) -> Result<bool, FsError> {
    let target = resolve_links(path)?;
    match fs::metadata(&target) {
        Ok(m) if m.is_dir() => return Err(FsError::IsADirectory(path.to_owned())),
        Ok(m) if !m.is_file() => return write_through_if(&target, write),
        _ => {}
    }
    let path = target.as_path();
    let fail = |e: io::Error| FsError::write(path, e);
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".gapscore-").suffix(".tmp");
    // A temporary file is created owner-only; the output gets the mode of the file it
    // replaces, or the usual 0644 for a new one.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
        builder.permissions(fs::Permissions::from_mode(mode));
    }
    if let Err(e) = fs::metadata(dir)
        && e.kind() == io::ErrorKind::NotFound
    {
        return Err(FsError::MissingDirectory {
            path: path.to_owned(),
            dir: dir.to_owned(),
        });
    }
    let mut tmp = builder.tempfile_in(dir).map_err(fail)?;
    if !write(&mut tmp).map_err(fail)? {
        // Dropping the temporary file removes it: the target is untouched.
        return Ok(false);
    }
    if sync {
        tmp.as_file().sync_all().map_err(fail)?;
    }
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(true)
}

/// How much of an output for a device or FIFO [`write_atomic_if`] holds in memory before it
/// moves the rest to a temporary file.
pub const HELD_IN_MEMORY: usize = 8 << 20;

/// How many symbolic links [`write_atomic`] follows before it gives up (as the kernel's limit).
const MAX_LINKS: usize = 40;

/// `path` with every symbolic link at its end followed (a missing target is fine: it is
/// created). A link loop is an error.
fn resolve_links(path: &Path) -> Result<PathBuf, FsError> {
    let mut now = path.to_owned();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&now) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&now).map_err(|e| FsError::read(&now, e))?;
                now = match now.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(now),
        }
    }
    Err(FsError::write(
        path,
        io::Error::other("too many levels of symbolic links"),
    ))
}

/// Writes to a device, FIFO or socket in place.
fn write_through(
    path: &Path,
    write: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> Result<(), FsError> {
    let fail = |e: io::Error| FsError::write(path, e);
    let mut f = fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(fail)?;
    write(&mut f).and_then(|()| f.flush()).map_err(fail)
}

/// Writes to a device, FIFO or socket in place, once `write` has said to keep its output: until
/// then the output is held in a spool, so a discarded output never reaches the device. The device
/// is opened first, so that a device that cannot be written fails before any work is done.
fn write_through_if(
    path: &Path,
    write: &mut dyn FnMut(&mut (dyn Write + Send)) -> io::Result<bool>,
) -> Result<bool, FsError> {
    use std::io::{Seek as _, SeekFrom};
    let fail = |e: io::Error| FsError::write(path, e);
    let mut f = fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(fail)?;
    let mut held = tempfile::SpooledTempFile::new(HELD_IN_MEMORY);
    let keep = {
        let mut buffered = io::BufWriter::new(&mut held);
        let keep = write(&mut buffered).map_err(fail)?;
        buffered.flush().map_err(fail)?;
        keep
    };
    if !keep {
        return Ok(false);
    }
    held.seek(SeekFrom::Start(0)).map_err(fail)?;
    io::copy(&mut held, &mut f)
        .and_then(|_| f.flush())
        .map_err(fail)?;
    Ok(true)
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

    #[cfg(unix)]
    #[test]
    fn outputs_write_through_devices_and_links_and_replace_only_regular_files() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let text = |t: &'static str| move |w: &mut dyn Write| w.write_all(t.as_bytes());
        // A character device is written to, never replaced by a regular file.
        write_atomic(Path::new("/dev/null"), true, &mut text("x")).unwrap();
        let null = fs::symlink_metadata("/dev/null").unwrap();
        assert!(!null.is_file() && !null.file_type().is_symlink());
        // A link to a regular file: the target gets the content, the link stays a link.
        let real = dir.path().join("real.json");
        fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.json");
        symlink("real.json", &link).unwrap();
        write_atomic(&link, true, &mut text("new")).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        // A dangling link: its target is created.
        let dangling = dir.path().join("dangling.json");
        symlink("made.json", &dangling).unwrap();
        write_atomic(&dangling, true, &mut text("made")).unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("made.json")).unwrap(),
            "made"
        );
        // An output its writer does not keep: a new file is not made, an old one is untouched,
        // and a device is given nothing.
        let discard = |t: &'static str| {
            move |w: &mut (dyn Write + Send)| w.write_all(t.as_bytes()).map(|()| false)
        };
        assert!(!write_atomic_if(&real, true, &mut discard("half")).unwrap());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        let never = dir.path().join("never.json");
        assert!(!write_atomic_if(&never, true, &mut discard("half")).unwrap());
        assert!(!never.exists());
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            4,
            "no temporary file is left"
        );
        assert!(!write_atomic_if(Path::new("/dev/null"), true, &mut discard("x")).unwrap());
        let keep = |w: &mut (dyn Write + Send)| w.write_all(b"kept").map(|()| true);
        assert!(write_atomic_if(&never, true, &mut { keep }).unwrap());
        assert_eq!(fs::read_to_string(&never).unwrap(), "kept");
        // A FIFO gets a kept output whole, and nothing of a discarded one.
        let fifo = dir.path().join("fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        for kept in [true, false] {
            let reader = {
                let fifo = fifo.clone();
                std::thread::spawn(move || fs::read(fifo).unwrap())
            };
            let mut w = |w: &mut (dyn Write + Send)| w.write_all(b"all of it").map(|()| kept);
            assert_eq!(write_atomic_if(&fifo, true, &mut w).unwrap(), kept);
            let got = reader.join().unwrap();
            assert_eq!(got, if kept { &b"all of it"[..] } else { b"" });
        }
        // A link loop is an error, not a hang.
        let a = dir.path().join("a");
        symlink("b", &a).unwrap();
        symlink("a", dir.path().join("b")).unwrap();
        assert!(write_atomic(&a, true, &mut text("x")).is_err());
        // A missing directory is named, and not created.
        let missing = dir.path().join("nope/x.json");
        let e = write_atomic(&missing, true, &mut text("x")).unwrap_err();
        assert!(matches!(&e, FsError::MissingDirectory { dir: d, .. } if d.ends_with("nope")));
        assert!(e.to_string().contains("does not exist"), "{e}");
        assert!(!dir.path().join("nope").exists());
        // A directory is refused.
        assert!(matches!(
            write_atomic(dir.path(), true, &mut text("x")),
            Err(FsError::IsADirectory(_))
        ));
    }
}
