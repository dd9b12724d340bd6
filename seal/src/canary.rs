//! The canary file of spec v2 §4.5: placed in the sealed directory before it is hashed, its
//! access time (atime) kept in the seal record, and compared before the directory is read again.
//!
//! [`plant`] writes a new canary (or adopts an existing file); [`settle`] sets its atime back to
//! its mtime after gapscore's own read (hashing) and records it; [`check`] reads the atime before
//! a verification hashes the directory, and [`settle_again`] undoes that verification's own
//! read. [`atime_policy`] reads `/proc/mounts` to say whether the filesystem keeps access times.
//!
//! Why the atime is set back to the mtime: under `relatime` (Linux's default) a read updates
//! the atime only when it is not later than the mtime (or is a day old). With the atime equal to
//! the mtime, the first read after sealing shows; a second read before the next verification
//! does not add anything, and under `noatime` nothing shows at all.

use std::fs::{File, FileTimes, OpenOptions};
use std::io::Write as _;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::digest::sha256_hex;
use crate::error::Error;
use crate::record::Canary;

/// What the directory's filesystem does with access times.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AtimePolicy {
    /// `strictatime`: every read updates the atime.
    Strict,
    /// `relatime` (the Linux default): a read updates it when it is not later than the mtime or
    /// is a day old; gapscore keeps the canary's atime at its mtime, so the first read shows.
    Relative,
    /// `noatime`: reads never update it; a canary cannot show anything.
    Never,
    /// Not found in `/proc/mounts` (not Linux, or not readable).
    Unknown,
}

impl AtimePolicy {
    /// A warning for the user, unless access times are kept on every read.
    pub fn warning(&self, mount: &str) -> Option<String> {
        match self {
            AtimePolicy::Strict => None,
            AtimePolicy::Relative => Some(format!(
                "the sealed directory's filesystem ({mount}) is mounted relatime: the canary shows the first read after sealing or verifying, but not how often or by whom it was read"
            )),
            AtimePolicy::Never => Some(format!(
                "the sealed directory's filesystem ({mount}) is mounted noatime: reads never change an access time, so the canary cannot show that the sealed tests were read"
            )),
            AtimePolicy::Unknown => Some(
                "cannot tell from /proc/mounts whether the sealed directory's filesystem keeps access times: the canary may not show a read".to_owned(),
            ),
        }
    }
}

/// The atime policy of the filesystem holding `dir`, and its mount point: the longest mount
/// point in `/proc/mounts` that contains the directory's canonical path.
pub fn atime_policy(dir: &Path) -> (AtimePolicy, String) {
    let Ok(mounts) = std::fs::read_to_string("/proc/mounts") else {
        return (AtimePolicy::Unknown, String::new());
    };
    let Ok(canon) = dir.canonicalize() else {
        return (AtimePolicy::Unknown, String::new());
    };
    policy_from_mounts(&mounts, &canon.to_string_lossy())
}

/// [`atime_policy`] over the text of `/proc/mounts`.
pub fn policy_from_mounts(mounts: &str, path: &str) -> (AtimePolicy, String) {
    let mut best: Option<(usize, AtimePolicy, String)> = None;
    for line in mounts.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let [_, point, fstype, options, ..] = f[..] else {
            continue;
        };
        // `/proc/mounts` escapes spaces in paths as `\040`.
        let point = point.replace("\\040", " ");
        let inside = point == "/"
            || path == point
            || path
                .strip_prefix(point.as_str())
                .is_some_and(|r| r.starts_with('/'));
        if !inside || best.as_ref().is_some_and(|(n, ..)| *n > point.len()) {
            continue;
        }
        let opts: Vec<&str> = options.split(',').collect();
        let policy = if opts.contains(&"noatime") {
            AtimePolicy::Never
        } else if opts.contains(&"strictatime") {
            AtimePolicy::Strict
        } else {
            // `relatime` is listed explicitly; without any atime option the kernel default
            // (relatime since Linux 2.6.30) applies.
            AtimePolicy::Relative
        };
        best = Some((point.len(), policy, format!("{point}, {fstype}, {options}")));
    }
    best.map_or((AtimePolicy::Unknown, String::new()), |(_, p, m)| (p, m))
}

fn random_hex() -> String {
    let mut bytes = [0u8; 16];
    let read = File::open("/dev/urandom").and_then(|mut f| {
        use std::io::Read as _;
        f.read_exact(&mut bytes)
    });
    if read.is_err() {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        return sha256_hex(format!("{now:?} {}", std::process::id()).as_bytes())[..32].to_owned();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes a new canary file with a random name and content into `dir`, or adopts `existing` (a
/// path relative to `dir`); returns its relative path. Call before hashing.
pub fn plant(dir: &Path, existing: Option<&str>) -> Result<String, Error> {
    if let Some(rel) = existing {
        let p = dir.join(rel);
        if !p.is_file() {
            return Err(Error::Usage(format!(
                "--canary={rel}: `{}` is not a file in the sealed directory",
                p.display()
            )));
        }
        return Ok(rel.trim_start_matches("./").to_owned());
    }
    let id = random_hex();
    let rel = format!("notes-{}.txt", &id[..12]);
    let path = dir.join(&rel);
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| Error::Input(format!("`{}`: {e}", path.display())))?;
    writeln!(f, "{id}").map_err(|e| Error::Input(format!("`{}`: {e}", path.display())))?;
    Ok(rel)
}

/// Removes a canary gapscore wrote when sealing fails after it was written, unless
/// [`Planted::keep`] is called.
#[derive(Debug)]
pub struct Planted(Option<std::path::PathBuf>);

impl Planted {
    /// Guards `dir/rel` when gapscore wrote it (`created`); an adopted file is never removed.
    pub fn new(dir: &Path, rel: &str, created: bool) -> Self {
        Planted(created.then(|| dir.join(rel)))
    }

    /// The seal succeeded: the canary stays.
    pub fn keep(mut self) {
        self.0 = None;
    }
}

impl Drop for Planted {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn times(path: &Path) -> Result<(SystemTime, SystemTime), Error> {
    let m =
        std::fs::metadata(path).map_err(|e| Error::Input(format!("`{}`: {e}", path.display())))?;
    let io = |e: std::io::Error| Error::Input(format!("`{}`: {e}", path.display()));
    Ok((m.accessed().map_err(io)?, m.modified().map_err(io)?))
}

fn set_atime(path: &Path, atime: SystemTime) -> Result<(), Error> {
    let f = OpenOptions::new()
        .write(true)
        .open(path)
        .or_else(|_| File::open(path))
        .map_err(|e| Error::Input(format!("`{}`: {e}", path.display())))?;
    f.set_times(FileTimes::new().set_accessed(atime))
        .map_err(|e| {
            Error::Input(format!(
                "`{}`: cannot set its access time: {e}",
                path.display()
            ))
        })
}

fn split(t: SystemTime) -> (i64, u32) {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    (
        i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        d.subsec_nanos(),
    )
}

fn join(secs: i64, nanos: u32) -> SystemTime {
    UNIX_EPOCH + Duration::new(u64::try_from(secs).unwrap_or(0), nanos)
}

/// Sets the canary's atime to its mtime (so that under relatime the next read updates it) and
/// returns the record entry. Call after hashing.
pub fn settle(dir: &Path, rel: &str) -> Result<Canary, Error> {
    let path = dir.join(rel);
    let (_, mtime) = times(&path)?;
    set_atime(&path, mtime)?;
    let (atime, _) = times(&path)?;
    let (secs, nanos) = split(atime);
    Ok(Canary::new(
        rel,
        secs,
        nanos,
        humantime::format_rfc3339_nanos(atime).to_string(),
    ))
}

/// The canary as found before a verification.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CanaryCheck {
    /// The record's canary.
    pub canary: Canary,
    /// Its atime now (RFC 3339), when it could be read.
    pub atime_now: Option<String>,
    /// True when the atime is later than recorded: the sealed tests were read after sealing.
    pub read: bool,
    /// What the filesystem does with access times.
    pub policy: AtimePolicy,
    /// The mount, as `/proc/mounts` lists it.
    pub mount: String,
}

impl CanaryCheck {
    /// The problem to report, when the canary was read.
    pub fn problem(&self) -> Option<String> {
        self.read.then(|| {
            format!(
                "the sealed tests were read after sealing: the canary `{}` was accessed at {}, after {} as recorded",
                self.canary.path,
                self.atime_now.as_deref().unwrap_or("?"),
                self.canary.atime
            )
        })
    }
}

/// Reads the canary's atime: call before anything reads the directory.
pub fn check(dir: &Path, canary: &Canary) -> CanaryCheck {
    let (policy, mount) = atime_policy(dir);
    let now = times(&dir.join(&canary.path)).ok().map(|(a, _)| a);
    let read = now.is_some_and(|a| {
        let (s, n) = split(a);
        canary.read_since(s, n)
    });
    CanaryCheck {
        canary: canary.clone(),
        atime_now: now.map(|a| humantime::format_rfc3339_nanos(a).to_string()),
        read,
        policy,
        mount,
    }
}

/// Sets the canary's atime back to the recorded one after a verification's own read, so the
/// next read shows again (not called when a read was found: the evidence stays). Errors are
/// ignored: a directory whose times cannot be set only loses that.
pub fn settle_again(dir: &Path, canary: &Canary) {
    let _ = set_atime(
        &dir.join(&canary.path),
        join(canary.atime_secs, canary.atime_nanos),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_mount_point_decides() {
        let mounts = "/dev/sda1 / ext4 rw,relatime 0 0\n/dev/sdb1 /work ext4 rw,noatime 0 0\n/dev/sdc1 /work2 ext4 rw,strictatime 0 0\n";
        assert_eq!(policy_from_mounts(mounts, "/work/s").0, AtimePolicy::Never);
        assert_eq!(
            policy_from_mounts(mounts, "/work2/s").0,
            AtimePolicy::Strict
        );
        assert_eq!(
            policy_from_mounts(mounts, "/workx").0,
            AtimePolicy::Relative
        );
        assert_eq!(policy_from_mounts("", "/x").0, AtimePolicy::Unknown);
    }
}
