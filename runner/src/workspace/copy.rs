//! Copying the project into the disposable workspace and placing the sealed tests in it.
//!
//! The project is walked with the `ignore` crate: `.gitignore` files at every level are obeyed
//! (negations included, whether or not the project is a git checkout), `.git` (a directory, or
//! the file a worktree or submodule has) is always left out, and nothing outside the project is
//! read: no `.gitignore` of a parent directory, no global gitignore, no `.git/info/exclude` (the
//! workspace is built from the project's committed-style content, the same on every machine).
//!
//! Symbolic links are never followed. A link whose target stays inside the project is copied as a
//! link; one that could leave it (an absolute target, or `..` that climbs above the project root
//! or follows a name) is left out, and reported. Regular files keep their permission bits.
//! Anything else (fifos, sockets, devices) is left out and reported.

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

/// What the project copy left out.
#[derive(Debug, Default)]
pub(super) struct CopyReport {
    /// Regular files copied.
    pub(super) files: usize,
    /// Links left out because they could point out of the project: (link, target).
    pub(super) outside_links: Vec<(PathBuf, PathBuf)>,
    /// Entries that are neither files, directories nor links.
    pub(super) special: Vec<PathBuf>,
}

/// How much a project copy will hold: the regular files and their bytes, counted by the walk
/// before anything is copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CopySize {
    /// Regular files to copy.
    pub files: usize,
    /// Their total size in bytes.
    pub bytes: u64,
}

impl CopySize {
    /// More files than this make a copy large enough to announce.
    pub const LARGE_FILES: usize = 2_000;
    /// More bytes than this (100 MB) make a copy large enough to announce.
    pub const LARGE_BYTES: u64 = 100_000_000;

    /// Whether the copy is large enough that the user should hear of it before it starts.
    pub fn is_large(self) -> bool {
        self.files > Self::LARGE_FILES || self.bytes > Self::LARGE_BYTES
    }
}

/// One walked entry, copied after the walk.
enum Entry {
    Dir(PathBuf),
    File(PathBuf),
    Link(PathBuf, PathBuf),
}

/// Copies `src` into the existing empty directory `dst`, leaving out `skip` (the sealed
/// directory's place, which is filled from the verified sealed directory instead). The project
/// is walked first and copied after, so `on_size` hears how large the copy is before it starts
/// (one walk: the entries are kept, not walked again).
pub(super) fn copy_project(
    src: &Path,
    dst: &Path,
    skip: Option<&Path>,
    on_size: &mut dyn FnMut(CopySize),
) -> io::Result<CopyReport> {
    let skip = skip.map(Path::to_owned);
    let walker = ignore::WalkBuilder::new(src)
        .hidden(false)
        .parents(false)
        .ignore(false)
        .git_global(false)
        .git_exclude(false)
        .git_ignore(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |entry| {
            entry.depth() == 0
                || (entry.file_name() != OsStr::new(".git")
                    && skip.as_deref() != Some(entry.path()))
        })
        .build();
    let mut report = CopyReport::default();
    let mut entries = Vec::new();
    let mut size = CopySize { files: 0, bytes: 0 };
    for entry in walker {
        let entry = entry.map_err(|e| match e.into_io_error() {
            Some(io) => io,
            None => io::Error::other("cannot walk the project"),
        })?;
        if entry.depth() == 0 {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(src)
            .map_err(|_| io::Error::other("walked outside the project"))?;
        let meta = fs::symlink_metadata(entry.path())?;
        let kind = meta.file_type();
        if kind.is_symlink() {
            entries.push(Entry::Link(rel.to_owned(), fs::read_link(entry.path())?));
        } else if kind.is_dir() {
            entries.push(Entry::Dir(rel.to_owned()));
        } else if kind.is_file() {
            size.files += 1;
            size.bytes += meta.len();
            entries.push(Entry::File(rel.to_owned()));
        } else {
            report.special.push(rel.to_owned());
        }
    }
    on_size(size);
    for entry in entries {
        match entry {
            Entry::Link(rel, link) => {
                if !(link_stays_inside(&rel, &link) && make_symlink(&link, &dst.join(&rel)).is_ok())
                {
                    report.outside_links.push((rel, link));
                }
            }
            Entry::Dir(rel) => fs::create_dir(dst.join(rel))?,
            Entry::File(rel) => {
                // std::fs::copy carries the permission bits over (executables stay executable).
                fs::copy(src.join(&rel), dst.join(&rel))?;
                report.files += 1;
            }
        }
    }
    Ok(report)
}

/// Whether a link at `rel` (relative to the project root) with target `link` resolves inside the
/// project however the names in it resolve: relative, with `..` only as leading components and
/// no more of them than the link has parent directories. (A `..` after a name is refused, because
/// the name may itself be a link, and `..` then climbs from wherever that link points.)
pub(super) fn link_stays_inside(rel: &Path, link: &Path) -> bool {
    let depth = rel.components().count().saturating_sub(1);
    let mut ups = 0;
    let mut named = false;
    for component in link.components() {
        match component {
            Component::ParentDir if named => return false,
            Component::ParentDir => ups += 1,
            Component::CurDir => {}
            Component::Normal(_) => named = true,
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    ups <= depth
}

#[cfg(unix)]
fn make_symlink(link: &Path, at: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(link, at)
}

#[cfg(not(unix))]
fn make_symlink(_link: &Path, _at: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "links are copied on Unix only",
    ))
}

/// Puts a fresh copy of the verified `sealed` directory at `dst.join(rel)`. Whatever the project
/// copy has there (the implementer's own copy of the tests, planted files, a link) is removed
/// first, never merged; a link or file on the way there is replaced by a real directory, so the
/// tests land at that place and nowhere a link would send them. Returns the number of files.
pub(super) fn place_sealed(sealed: &Path, dst: &Path, rel: &Path) -> io::Result<usize> {
    let mut at = dst.to_owned();
    let mut names = rel.components().peekable();
    while let Some(component) = names.next() {
        let Component::Normal(name) = component else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("unexpected component in the sealed place {}", rel.display()),
            ));
        };
        at.push(name);
        let last = names.peek().is_none();
        match fs::symlink_metadata(&at) {
            Ok(meta) if meta.is_dir() && !last => continue,
            Ok(meta) if meta.is_dir() => fs::remove_dir_all(&at)?,
            Ok(_) => fs::remove_file(&at)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        fs::create_dir(&at)?;
    }
    copy_tree(sealed, &at)
}

/// Copies a sealed directory in full (hidden files included, no ignore rules): the seal covers
/// regular files only, so a link or special file in it is an error.
fn copy_tree(src: &Path, dst: &Path) -> io::Result<usize> {
    let mut files = 0;
    for entry in fs::read_dir(src)? {
        let entry = entry?;
        let from = entry.path();
        let to = dst.join(entry.file_name());
        let kind = fs::symlink_metadata(&from)?.file_type();
        if kind.is_dir() {
            fs::create_dir(&to)?;
            files += copy_tree(&from, &to)?;
        } else if kind.is_file() {
            fs::copy(&from, &to)?;
            files += 1;
        } else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the sealed directory holds {}, which is not a regular file or directory \
                     (a sealed directory holds regular files only)",
                    from.display()
                ),
            ));
        }
    }
    Ok(files)
}
