//! The sandbox a command runs in (issue 32): bubblewrap (`bwrap`, Flatpak's unprivileged
//! sandbox), when it works here.
//!
//! Under bubblewrap the command sees the whole filesystem read-only (`--ro-bind / /`), its own
//! `/dev`, `/proc` and empty `/tmp`, and can write only to the run's temporary directory (the
//! workspace copy, gapscore's scratch, HOME and TMPDIR), the project itself in an in-place run,
//! and the directories `--results` names outside those. The sealed tests are mounted read-only
//! over their place in the workspace, after the writable mounts, so nothing can write them. The
//! network is gone (`--unshare-net`) unless `--share-net` is given, and the command's process
//! tree is in its own PID namespace (`--unshare-pid`, `--die-with-parent`): when the command or
//! gapscore ends, the kernel ends every process of the tree, including one that left the
//! process group with `setsid`.
//!
//! `--new-session` is not used: it would move the command out of the process group gapscore
//! signals, so a time limit or a Ctrl-C would reach only bubblewrap, never the test runner (which
//! would lose its chance to write its results on `SIGINT`). The command's standard input is
//! `/dev/null` and it is not in the terminal's foreground group.
//!
//! Bubblewrap reports a command killed by signal N as exit status 128 + N;
//! [`Sandbox::reports_signal_as_status`] says so to [`crate::exec`] so the evidence names the
//! signal. (A command that itself exits with 137 reads as killed by `SIGKILL`: a failure
//! either way.)

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What `--sandbox` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxMode {
    /// Bubblewrap where it works here, else none (and the report says so).
    #[default]
    Auto,
    /// Bubblewrap, or no run at all.
    Bwrap,
    /// No sandbox.
    None,
}

/// The sandbox options of a run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SandboxOptions {
    /// What to use.
    pub mode: SandboxMode,
    /// Keep the network (`--share-net`).
    pub share_net: bool,
    /// The bubblewrap program (found on `PATH` when not a path).
    pub program: PathBuf,
}

impl SandboxOptions {
    /// `mode`, no network, `bwrap` from `PATH`.
    pub fn new(mode: SandboxMode) -> Self {
        SandboxOptions {
            mode,
            share_net: false,
            program: PathBuf::from("bwrap"),
        }
    }
}

/// The sandbox a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxKind {
    /// Bubblewrap.
    Bwrap,
    /// None: the command can write anywhere gapscore's user can.
    None,
}

impl SandboxKind {
    /// `bwrap` or `none`, as the report names it.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxKind::Bwrap => "bwrap",
            SandboxKind::None => "none",
        }
    }
}

impl fmt::Display for SandboxKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The sandbox chosen for a run, and why.
#[derive(Debug, Clone)]
pub struct Sandbox {
    /// What is used.
    pub kind: SandboxKind,
    /// The network is kept (`--share-net`).
    pub share_net: bool,
    /// What was decided and why, for the report.
    pub notes: Vec<String>,
    program: PathBuf,
}

/// The places a sandboxed command may reach, besides the read-only root.
#[derive(Debug, Clone, Default)]
pub struct Places {
    /// Writable, in this order.
    pub writable: Vec<PathBuf>,
    /// Every directory between a writable place and a sealed directory inside it, bound onto
    /// itself after the writable places: a mount point cannot be renamed or removed (`EBUSY`),
    /// so the path to the sealed tests stays the same for the whole run.
    pub pinned: Vec<PathBuf>,
    /// Read-only, mounted after every writable place (so a sealed directory inside the
    /// workspace stays read-only).
    pub read_only: Vec<PathBuf>,
    /// The working directory.
    pub chdir: PathBuf,
}

/// Runs bubblewrap with every feature a run uses around `true`: the one probe of whether it
/// works here (it needs user namespaces, or root). The error is bubblewrap's own message.
fn probe(program: &Path) -> Result<(), String> {
    let out = Command::new(program)
        .args([
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
            "--tmpfs",
            "/run",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--cap-drop",
            "ALL",
            "--die-with-parent",
            "true",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot start `{}`: {e}", program.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        let msg = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        Err(format!(
            "`{}` does not work here ({}){}",
            program.display(),
            out.status,
            if msg.is_empty() {
                String::new()
            } else {
                format!(": {msg}")
            }
        ))
    }
}

/// Chooses the sandbox: `auto` probes bubblewrap once and runs without it (saying why) when it
/// does not work; `bwrap` is an error then.
pub fn choose(opts: &SandboxOptions) -> io::Result<Sandbox> {
    let mut sandbox = Sandbox {
        kind: SandboxKind::None,
        share_net: opts.share_net,
        notes: Vec::new(),
        program: opts.program.clone(),
    };
    match opts.mode {
        SandboxMode::None => sandbox.notes.push(
            "sandbox none (--sandbox none): the command could write anywhere gapscore's user can, \
             reach the network and leave processes outside its process group"
                .to_owned(),
        ),
        SandboxMode::Auto | SandboxMode::Bwrap => match probe(&opts.program) {
            Ok(()) => {
                sandbox.kind = SandboxKind::Bwrap;
                sandbox.notes.push(format!(
                    "sandbox bwrap: root read-only, own /tmp and PID namespace, the sealed tests \
                     read-only{}",
                    if opts.share_net {
                        ", network shared (--share-net)"
                    } else {
                        ", no network"
                    }
                ));
            }
            Err(why) if opts.mode == SandboxMode::Auto => sandbox.notes.push(format!(
                "sandbox none (--sandbox auto): {why}; install bubblewrap (Debian: bubblewrap) or \
                 allow unprivileged user namespaces for a sandboxed run"
            )),
            Err(why) => {
                return Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    format!("--sandbox bwrap: {why}"),
                ));
            }
        },
    }
    Ok(sandbox)
}

impl Sandbox {
    /// No sandbox (tests, callers that confine the command themselves).
    pub fn none() -> Self {
        Sandbox {
            kind: SandboxKind::None,
            share_net: false,
            notes: Vec::new(),
            program: PathBuf::from("bwrap"),
        }
    }

    /// Whether the wrapper reports a command killed by signal N as exit status 128 + N.
    pub fn reports_signal_as_status(&self) -> bool {
        self.kind == SandboxKind::Bwrap
    }

    /// The program and arguments that run a command in this sandbox, before the command
    /// ([`crate::exec::ExecOptions::wrapper`]); empty when there is none.
    pub fn wrapper(&self, places: &Places) -> Vec<OsString> {
        if self.kind == SandboxKind::None {
            return Vec::new();
        }
        let mut argv: Vec<OsString> = vec![self.program.clone().into_os_string()];
        let mut push = |args: &[&std::ffi::OsStr]| argv.extend(args.iter().map(OsString::from));
        push(&[
            "--ro-bind".as_ref(),
            "/".as_ref(),
            "/".as_ref(),
            "--dev".as_ref(),
            "/dev".as_ref(),
            "--proc".as_ref(),
            "/proc".as_ref(),
            "--tmpfs".as_ref(),
            "/tmp".as_ref(),
            "--tmpfs".as_ref(),
            "/run".as_ref(),
        ]);
        for dir in &places.writable {
            push(&["--bind".as_ref(), dir.as_os_str(), dir.as_os_str()]);
        }
        for dir in &places.pinned {
            push(&["--bind".as_ref(), dir.as_os_str(), dir.as_os_str()]);
        }
        for dir in &places.read_only {
            push(&["--ro-bind".as_ref(), dir.as_os_str(), dir.as_os_str()]);
        }
        // No capability inside, root or not: with them a command run as root could remount
        // `/` (or a sealed directory) writable, unmount `/proc` or bind a copy over the sealed
        // tests. Its own IPC and UTS namespaces: no host SysV queue, semaphore or shared memory.
        push(&[
            "--unshare-pid".as_ref(),
            "--unshare-ipc".as_ref(),
            "--unshare-uts".as_ref(),
            "--cap-drop".as_ref(),
            "ALL".as_ref(),
            "--die-with-parent".as_ref(),
        ]);
        if !self.share_net {
            push(&["--unshare-net".as_ref()]);
        }
        push(&["--chdir".as_ref(), places.chdir.as_os_str(), "--".as_ref()]);
        argv
    }
}

/// Whether `arg` has a glob character in it.
fn is_pattern(arg: &Path) -> bool {
    arg.to_string_lossy().contains(['*', '?', '[', '{'])
}

/// The directory a `--results` argument's files are written in: the argument itself when it is
/// a directory, else the directory of its literal part (before any pattern), which must exist.
pub fn results_dir(arg: &Path, cwd: &Path) -> Option<PathBuf> {
    if arg.as_os_str() == "-" {
        return None;
    }
    let abs = cwd.join(arg);
    let literal: PathBuf = if is_pattern(&abs) {
        abs.components()
            .take_while(|c| !is_pattern(Path::new(c.as_os_str())))
            .collect()
    } else {
        abs
    };
    let dir = if literal.is_dir() {
        literal
    } else {
        literal.parent()?.to_owned()
    };
    dir.canonicalize().ok()
}

/// The places of a run: `temp_root` (the workspace copy, gapscore's scratch, HOME, TMPDIR) and
/// `work_dir` writable (canonicalised: the places themselves, never a link's target), nothing
/// else; every sealed directory read-only, and every directory between a writable place and a
/// sealed directory in it pinned ([`Places::pinned`]).
///
/// A `--results` path outside the writable places is not made writable: the implementer chooses
/// it (an absolute path, or one through a link the project holds), so it could name any
/// directory of the host. Such a result is read as missing when the command cannot write it,
/// and a note says so.
pub fn places(
    temp_root: &Path,
    work_dir: &Path,
    sealed: &[&Path],
    results: &[PathBuf],
    notes: &mut Vec<String>,
) -> Places {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_owned());
    let temp_root = canon(temp_root);
    let work_dir = canon(work_dir);
    let mut writable = vec![temp_root.clone()];
    if !work_dir.starts_with(&temp_root) {
        writable.push(work_dir.clone());
    }
    for arg in results {
        let Some(dir) = results_dir(arg, &work_dir) else {
            continue;
        };
        if writable.iter().any(|w| dir.starts_with(w)) {
            continue;
        }
        notes.push(format!(
            "sandbox: --results {} is in {}, outside the workspace: not writable for the \
             command (only the workspace is), so a result written there reads as missing",
            arg.display(),
            dir.display()
        ));
    }
    let mut read_only: Vec<PathBuf> = Vec::new();
    for dir in sealed.iter().map(|d| canon(d)) {
        if !read_only.contains(&dir) {
            read_only.push(dir);
        }
    }
    let mut pinned: Vec<PathBuf> = Vec::new();
    for dir in &read_only {
        for root in writable.iter().filter(|w| dir.starts_with(w)) {
            let mut between: Vec<PathBuf> = dir
                .ancestors()
                .skip(1)
                .take_while(|a| a.starts_with(root) && *a != root.as_path())
                .map(Path::to_owned)
                .collect();
            between.reverse();
            for a in between {
                if !pinned.contains(&a) && !read_only.contains(&a) {
                    pinned.push(a);
                }
            }
        }
    }
    // Outermost first, so each bind is made on the directory the command will see.
    pinned.sort_by_key(|p| p.components().count());
    Places {
        writable,
        pinned,
        read_only,
        chdir: work_dir,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn none_leaves_the_command_alone() {
        let none = Sandbox::none();
        assert!(none.wrapper(&Places::default()).is_empty());
        assert!(!none.reports_signal_as_status());
    }

    #[test]
    fn the_sealed_directory_is_mounted_read_only_after_the_workspace() {
        let temp = tempfile::tempdir().unwrap();
        let ws = temp.path().join("project");
        let sealed = ws.join("tests/sealed");
        std::fs::create_dir_all(&sealed).unwrap();
        let mut notes = Vec::new();
        let places = places(temp.path(), &ws, &[&sealed], &[], &mut notes);
        assert!(notes.is_empty());
        let mut sandbox = Sandbox::none();
        sandbox.kind = SandboxKind::Bwrap;
        let argv = sandbox.wrapper(&places);
        assert!(sandbox.reports_signal_as_status());
        let argv: Vec<String> = argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let at = |flag: &str, path: &Path| {
            let path = path.canonicalize().unwrap().display().to_string();
            argv.windows(3)
                .position(|w| w[0] == flag && w[1] == path && w[2] == path)
                .unwrap_or_else(|| panic!("no {flag} {path} in {argv:?}"))
        };
        assert!(at("--bind", temp.path()) < at("--ro-bind", &sealed));
        assert!(argv.contains(&"--unshare-net".to_owned()));
        assert!(argv.contains(&"--unshare-pid".to_owned()));
        assert!(argv.contains(&"--unshare-ipc".to_owned()));
        assert!(
            argv.windows(2)
                .any(|w| w[0] == "--cap-drop" && w[1] == "ALL"),
            "{argv:?}"
        );
        assert_eq!(argv.last().unwrap(), "--");
    }

    #[test]
    fn results_outside_the_workspace_are_not_made_writable_but_noted() {
        let temp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let ws = temp.path().join("project");
        std::fs::create_dir_all(ws.join("reports")).unwrap();
        // A link the project holds, out of it: its target is the implementer's choice.
        std::os::unix::fs::symlink(outside.path(), ws.join("out")).unwrap();
        let mut notes = Vec::new();
        let p = places(
            temp.path(),
            &ws,
            &[],
            &[
                PathBuf::from("reports/*.xml"),
                PathBuf::from("-"),
                outside.path().join("junit.xml"),
                PathBuf::from("out/r.xml"),
                ws.join("out/r.xml"),
            ],
            &mut notes,
        );
        assert_eq!(p.writable, [temp.path().canonicalize().unwrap()]);
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].contains("reads as missing"), "{notes:?}");
    }

    #[test]
    fn every_directory_between_the_workspace_and_the_sealed_tests_is_pinned() {
        let temp = tempfile::tempdir().unwrap();
        let ws = temp.path().join("project");
        let sealed = ws.join("tests/unit/sealed");
        std::fs::create_dir_all(&sealed).unwrap();
        let p = places(temp.path(), &ws, &[&sealed], &[], &mut Vec::new());
        let c = |p: &Path| p.canonicalize().unwrap();
        assert_eq!(
            p.pinned,
            [c(&ws), c(&ws.join("tests")), c(&ws.join("tests/unit"))]
        );
        // In place: the project is a writable root, bound as such.
        let scratch = tempfile::tempdir().unwrap();
        let p = places(scratch.path(), &ws, &[&sealed], &[], &mut Vec::new());
        assert_eq!(p.pinned, [c(&ws.join("tests")), c(&ws.join("tests/unit"))]);
    }

    /// Bubblewrap here, or `None` with the reason printed (CI sets GAPSCORE_REQUIRE_RUNNERS and
    /// installs it, so there the test cannot skip).
    fn bwrap_here() -> Option<Sandbox> {
        let s = choose(&SandboxOptions::new(SandboxMode::Auto)).unwrap();
        if s.kind == SandboxKind::Bwrap {
            return Some(s);
        }
        assert!(
            std::env::var_os("GAPSCORE_REQUIRE_RUNNERS").is_none(),
            "bubblewrap is required: {:?}",
            s.notes
        );
        eprintln!("skipped: {:?}", s.notes);
        None
    }

    #[test]
    fn under_bwrap_nothing_outlives_the_command_and_the_sealed_tests_cannot_be_written() {
        use crate::exec::{ExecOptions, Interrupt, execute};
        let Some(sandbox) = bwrap_here() else { return };
        let temp = tempfile::tempdir().unwrap();
        let ws = temp.path().join("project");
        std::fs::create_dir_all(ws.join("sealed")).unwrap();
        std::fs::write(ws.join("sealed/test_a.py"), "sealed\n").unwrap();
        let mut notes = Vec::new();
        let places = places(temp.path(), &ws, &[&ws.join("sealed")], &[], &mut notes);
        let script = "setsid sleep 8 & echo x > sealed/test_a.py; echo written > out.txt; exit 9";
        let mut o = ExecOptions::new(vec!["sh".into(), "-c".into(), script.into()], &ws);
        o.passthrough = false;
        o.wrapper = sandbox.wrapper(&places);
        o.signal_as_exit_status = sandbox.reports_signal_as_status();
        let e = execute(&o, &Interrupt::none()).unwrap();
        assert_eq!(e.exit_code, Some(9), "{e:?}");
        assert!(!e.output_held_open, "{e:?}");
        assert!(e.duration_secs < 3.0, "{e:?}");
        assert!(e.stderr_tail.contains("Read-only file system"), "{e:?}");
        assert_eq!(
            std::fs::read_to_string(ws.join("sealed/test_a.py")).unwrap(),
            "sealed\n"
        );
        assert_eq!(
            std::fs::read_to_string(ws.join("out.txt")).unwrap(),
            "written\n"
        );
        assert_eq!(e.command, ["sh", "-c", script]);
    }

    #[test]
    fn under_bwrap_a_signal_is_reported_as_the_signal() {
        use crate::exec::{ExecOptions, Interrupt, execute};
        let Some(sandbox) = bwrap_here() else { return };
        let temp = tempfile::tempdir().unwrap();
        let places = places(temp.path(), temp.path(), &[], &[], &mut Vec::new());
        let mut o = ExecOptions::new(
            vec!["sh".into(), "-c".into(), "kill -9 $$".into()],
            temp.path(),
        );
        o.passthrough = false;
        o.wrapper = sandbox.wrapper(&places);
        o.signal_as_exit_status = sandbox.reports_signal_as_status();
        let e = execute(&o, &Interrupt::none()).unwrap();
        assert_eq!((e.exit_code, e.signal), (None, Some(9)), "{e:?}");
    }

    /// Runs `script` with `sh -c` under bubblewrap in `ws` (sealed: `ws/tests/sealed`).
    fn run_in(sandbox: &Sandbox, temp: &Path, ws: &Path, script: &str) -> crate::exec::RunEvidence {
        use crate::exec::{ExecOptions, Interrupt, execute};
        let sealed = ws.join("tests/sealed");
        let places = places(temp, ws, &[&sealed], &[], &mut Vec::new());
        let mut o = ExecOptions::new(vec!["sh".into(), "-c".into(), script.into()], ws);
        o.passthrough = false;
        o.wrapper = sandbox.wrapper(&places);
        o.signal_as_exit_status = sandbox.reports_signal_as_status();
        execute(&o, &Interrupt::none()).unwrap()
    }

    fn sealed_project() -> (tempfile::TempDir, PathBuf) {
        let temp = tempfile::tempdir().unwrap();
        let ws = temp.path().join("project");
        std::fs::create_dir_all(ws.join("tests/sealed")).unwrap();
        std::fs::write(ws.join("tests/sealed/test_a.py"), "sealed\n").unwrap();
        (temp, ws)
    }

    /// a/F14: as root, bubblewrap used to keep every capability, and the command remounted `/`
    /// and the sealed tests writable. Run as root (CI's container is) to see it.
    #[test]
    fn under_bwrap_the_command_has_no_capability_and_cannot_remount() {
        let Some(sandbox) = bwrap_here() else { return };
        let (temp, ws) = sealed_project();
        let script = "grep CapEff /proc/self/status; \
            mount -o remount,bind,rw / && echo REMOUNTED-ROOT; \
            mount -o remount,bind,rw tests/sealed && echo REMOUNTED-SEALED; \
            mount --bind . tests/sealed && echo BOUND-OVER; \
            umount -l /proc && echo UNMOUNTED-PROC; \
            echo weakened > tests/sealed/test_a.py; \
            exit 0";
        let e = run_in(&sandbox, temp.path(), &ws, script);
        let out = format!("{}{}", e.stdout_tail, e.stderr_tail);
        assert!(out.contains("CapEff:\t0000000000000000"), "{out}");
        for escaped in [
            "REMOUNTED-ROOT",
            "REMOUNTED-SEALED",
            "BOUND-OVER",
            "UNMOUNTED-PROC",
        ] {
            assert!(!out.contains(escaped), "{out}");
        }
        assert_eq!(
            std::fs::read_to_string(ws.join("tests/sealed/test_a.py")).unwrap(),
            "sealed\n"
        );
    }

    /// a/F2: the sealed directory's writable parent renamed away, weakened tests written at the
    /// same path, run, and the original put back. No directory on the way can move.
    #[test]
    fn under_bwrap_no_directory_on_the_path_to_the_sealed_tests_can_be_renamed() {
        let Some(sandbox) = bwrap_here() else { return };
        let (temp, ws) = sealed_project();
        let script = "mv tests .tests_sealed && echo MOVED-TESTS; \
            mv tests/sealed tests/x && echo MOVED-SEALED; \
            rmdir tests 2>/dev/null && echo REMOVED; \
            mv ../project ../moved && echo MOVED-WORKSPACE; \
            echo ok > tests/other.txt && echo WROTE-BESIDE; exit 0";
        let e = run_in(&sandbox, temp.path(), &ws, script);
        let out = format!("{}{}", e.stdout_tail, e.stderr_tail);
        assert!(out.contains("WROTE-BESIDE"), "{out}");
        for escaped in ["MOVED-TESTS", "MOVED-SEALED", "REMOVED", "MOVED-WORKSPACE"] {
            assert!(!out.contains(escaped), "{out}");
        }
        assert!(ws.join("tests/sealed/test_a.py").is_file());
    }

    /// a/F11: the host's IPC namespace, and daemons' sockets under /run, out of reach.
    #[test]
    fn under_bwrap_host_ipc_and_run_are_out_of_reach() {
        let Some(sandbox) = bwrap_here() else { return };
        let (temp, ws) = sealed_project();
        let host_ipc = std::fs::read_link("/proc/self/ns/ipc").unwrap();
        let host_uts = std::fs::read_link("/proc/self/ns/uts").unwrap();
        let script = "readlink /proc/self/ns/ipc /proc/self/ns/uts; \
            echo RUN:$(ls -A /run | wc -l); echo VARRUN:$(ls -A /var/run/ | wc -l)";
        let e = run_in(&sandbox, temp.path(), &ws, script);
        let out = e.stdout_tail.clone();
        assert!(!out.contains(&*host_ipc.to_string_lossy()), "{out}");
        assert!(!out.contains(&*host_uts.to_string_lossy()), "{out}");
        assert!(out.contains("RUN:0"), "{out}");
        assert!(out.contains("VARRUN:0"), "{out}");
    }
}
