//! Where the runner and its framework come from (issue 32): the program the command names, and
//! the modules its framework loads, must resolve outside the workspace, which the implementer
//! writes. Each way a command can reach code the workspace holds is followed once here:
//!
//! - the program itself, found through the `PATH` the command gets (`./node_modules/.bin/jest`,
//!   a `PATH` entry in the project, a `.venv/bin/pytest` in it);
//! - `npx X` / `npm exec X` (the project's `node_modules/.bin` comes first), `npm test` /
//!   `npm run` / `yarn` / `pnpm` scripts and `make`, `just`, `tox`, `nox` (the task is the
//!   project's file), `node node_modules/...`;
//! - `uv run`, `poetry run`, `pipenv run`, `pdm run`, `hatch run` (the project's `.venv/bin`);
//! - Python (`python -m X`, `pytest`): the interpreter is asked, in the command's environment,
//!   for its `sys.path` (no entry may be in the workspace) and where the runner's module
//!   resolves; under pytest, where each top-level module of the workspace directory (which
//!   gapscore adds as pytest's `pythonpath`) would otherwise resolve: one the interpreter
//!   already finds elsewhere (standard library, installed) is shadowed;
//! - Perl (`prove -l`, `-b`, `-I`, `perl -I`, `PERL5LIB` when `--env` passes it): each `.pm`
//!   under an include directory in the workspace that perl's own `@INC` also has (a planted
//!   `lib/Test/More.pm`).

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::runners::{program_name, python_flags_and_module};
use crate::environment::RunEnv;

/// How long asking an interpreter may take.
const PROBE_LIMIT: Duration = Duration::from_secs(30);
/// At most this many `.pm` files are looked at under one include directory.
const PERL_FILE_LIMIT: usize = 20_000;

/// A runner, or a module its framework loads, that resolves inside the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceRunner {
    /// What resolves there, in words.
    pub what: String,
    /// The file or directory inside the workspace.
    pub path: PathBuf,
}

impl fmt::Display for WorkspaceRunner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.what, self.path.display())
    }
}

/// What was found, and what could not be checked.
#[derive(Debug, Default)]
pub(super) struct Resolution {
    pub(super) found: Vec<WorkspaceRunner>,
    pub(super) notes: Vec<String>,
}

/// The places the implementer writes: the directory the command runs in and the project.
pub(super) struct Roots(Vec<PathBuf>);

impl Roots {
    pub(super) fn new(paths: &[&Path]) -> Self {
        Roots(
            paths
                .iter()
                .filter_map(|p| fs::canonicalize(p).ok())
                .collect(),
        )
    }

    /// `path`'s real place when it is inside a root.
    fn inside(&self, path: &Path) -> Option<PathBuf> {
        let real = fs::canonicalize(path).ok()?;
        self.0.iter().any(|r| real.starts_with(r)).then_some(real)
    }
}

/// Follows `command` (run in `dir` with `env`) to the code it runs.
pub(super) fn resolve(
    command: &[OsString],
    dir: &Path,
    env: &RunEnv,
    roots: &Roots,
    pytest_pythonpath: bool,
) -> Resolution {
    let mut r = Resolution::default();
    let path = env.get("PATH").unwrap_or_default().to_owned();
    follow(command, dir, env, &path, roots, pytest_pythonpath, &mut r);
    r
}

fn found(r: &mut Resolution, what: String, path: PathBuf) {
    r.found.push(WorkspaceRunner { what, path });
}

/// The program `name` as the command's `PATH` finds it (relative entries and names with a `/`
/// from `dir`).
fn which(name: &OsStr, dir: &Path, path: &OsStr) -> Option<PathBuf> {
    let as_path = Path::new(name);
    if as_path.components().count() > 1 || name.to_string_lossy().contains('/') {
        return Some(dir.join(as_path)).filter(|p| p.is_file());
    }
    std::env::split_paths(path)
        .map(|entry| dir.join(entry).join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The first argument that is not an option, skipping the values of `with_value` options.
fn first_operand<'a>(args: &'a [OsString], with_value: &[&str]) -> Option<(usize, &'a OsString)> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let s = a.to_string_lossy();
        if !s.starts_with('-') {
            return Some((i, a));
        }
        i += if with_value.contains(&s.as_ref()) {
            2
        } else {
            1
        };
    }
    None
}

/// Task files whose tasks the named program runs.
const TASK_FILES: &[(&str, &[&str])] = &[
    ("make", &["Makefile", "makefile", "GNUmakefile"]),
    ("just", &["justfile", "Justfile", ".justfile"]),
    ("tox", &["tox.ini"]),
    ("nox", &["noxfile.py"]),
];

const PACKAGE_MANAGERS: &[&str] = &["npm", "pnpm", "yarn", "bun"];
const PACKAGE_EXEC: &[&str] = &["exec", "x", "dlx"];
const PYTHON_WRAPPERS: &[&str] = &["uv", "poetry", "pipenv", "pdm", "hatch"];

#[allow(clippy::too_many_arguments)]
fn follow(
    command: &[OsString],
    dir: &Path,
    env: &RunEnv,
    path: &OsStr,
    roots: &Roots,
    pytest_pythonpath: bool,
    r: &mut Resolution,
) {
    let Some((first, args)) = command.split_first() else {
        return;
    };
    let shown = first.to_string_lossy();
    let program = which(first, dir, path);
    let program_inside = program.as_deref().and_then(|p| roots.inside(p));
    if let Some(real) = program_inside.clone() {
        found(r, format!("the program `{shown}` is the workspace's"), real);
        // Asking it where its modules resolve would run the implementer's program.
        return;
    }
    let Some(name) = program_name(first) else {
        return;
    };
    if let Some((_, files)) = TASK_FILES.iter().find(|(n, _)| *n == name) {
        for file in *files {
            if let Some(real) = roots.inside(&dir.join(file)) {
                found(
                    r,
                    format!("`{name}` runs a task the workspace's {file} defines"),
                    real,
                );
            }
        }
    }
    let npx_like = name == "npx"
        || (PACKAGE_MANAGERS.contains(&name)
            && args
                .first()
                .is_some_and(|a| PACKAGE_EXEC.contains(&a.to_string_lossy().as_ref())));
    if npx_like {
        let rest = if name == "npx" { args } else { &args[1..] };
        if let Some((_, bin)) = first_operand(rest, &["-p", "--package", "-c", "--call"]) {
            node_modules_bin(bin, dir, roots, r);
        }
    } else if PACKAGE_MANAGERS.contains(&name) {
        // `npm test`, `npm run x`, `yarn x`: the command is a script of package.json.
        if let Some(real) = roots.inside(&dir.join("package.json")) {
            found(
                r,
                format!("`{name}` runs a script the workspace's package.json defines"),
                real,
            );
        }
    }
    if matches!(name, "node" | "nodejs")
        && let Some((_, script)) = first_operand(
            args,
            &[
                "-r",
                "--require",
                "--import",
                "--loader",
                "--experimental-loader",
            ],
        )
        && let Some(real) = roots.inside(&dir.join(script))
        && real.components().any(|c| c.as_os_str() == "node_modules")
    {
        found(
            r,
            "node runs a script from the workspace's node_modules".to_owned(),
            real,
        );
    }
    if PYTHON_WRAPPERS.contains(&name)
        && args.first().is_some_and(|a| a == "run")
        && let Some((at, _)) = first_operand(&args[1..], &["--with", "--python", "-p", "--env"])
    {
        // The wrapper puts the project's virtual environment first.
        let mut entries = vec![dir.join(".venv/bin")];
        entries.extend(std::env::split_paths(path));
        let inner_path = std::env::join_paths(entries).unwrap_or_else(|_| path.to_owned());
        follow(
            &args[1 + at..],
            dir,
            env,
            &inner_path,
            roots,
            pytest_pythonpath,
            r,
        );
    }
    if let Some((flags, module)) = python_flags_and_module(command) {
        let interpreter = program.clone().unwrap_or_else(|| PathBuf::from(first));
        python(
            &interpreter,
            &flags,
            module.as_deref(),
            dir,
            env,
            roots,
            pytest_pythonpath,
            r,
        );
    } else if matches!(name, "pytest" | "py.test") {
        match program
            .as_deref()
            .and_then(|p| shebang_python(p, dir, path))
        {
            Some(interpreter) if roots.inside(&interpreter).is_some() => found(
                r,
                format!("the interpreter `{shown}` names is the workspace's"),
                interpreter,
            ),
            Some(interpreter) => {
                python(
                    &interpreter,
                    &[],
                    Some("pytest"),
                    dir,
                    env,
                    roots,
                    pytest_pythonpath,
                    r,
                );
            }
            None => r.notes.push(format!(
                "`{shown}` is not a Python script gapscore can read the interpreter of (a shim?): \
                 the interpreter's sys.path was not checked; run `python -m pytest` to have it \
                 checked"
            )),
        }
    }
    if matches!(name, "prove" | "perl") {
        let perl_program = if name == "perl" {
            program.clone()
        } else {
            which(OsStr::new("perl"), dir, path)
        };
        match perl_program {
            Some(p) if roots.inside(&p).is_some() => {
                found(
                    r,
                    "the `perl` prove starts is the workspace's".to_owned(),
                    p,
                );
            }
            Some(p) => perl(&p, name, args, dir, env, roots, r),
            None => r
                .notes
                .push("no perl on the command's PATH: include directories not checked".to_owned()),
        }
    }
}

/// `X`'s place in `node_modules/.bin` of `dir` or a directory above it in the workspace.
fn node_modules_bin(bin: &OsStr, dir: &Path, roots: &Roots, r: &mut Resolution) {
    for at in dir.ancestors() {
        let candidate = at.join("node_modules/.bin").join(bin);
        if let Some(real) = roots.inside(&candidate) {
            found(
                r,
                format!(
                    "`{}` resolves to the workspace's node_modules/.bin",
                    bin.to_string_lossy()
                ),
                real,
            );
            return;
        }
        if roots.inside(at).is_none() {
            return;
        }
    }
}

/// The Python a script's `#!` line names (directly or through `env`), if it names one.
fn shebang_python(script: &Path, dir: &Path, path: &OsStr) -> Option<PathBuf> {
    let mut head = [0u8; 256];
    let n = fs::File::open(script)
        .and_then(|mut f| f.read(&mut head))
        .ok()?;
    let line = std::str::from_utf8(&head[..n]).ok()?.lines().next()?;
    let mut words = line.strip_prefix("#!")?.split_whitespace();
    let first = words.next()?;
    let program = if Path::new(first).file_name()? == "env" {
        which(OsStr::new(words.next()?), dir, path)?
    } else {
        PathBuf::from(first)
    };
    let name = program_name(program.as_os_str())?;
    name.starts_with("python").then_some(program)
}

const PYTHON_PROBE: &str = r"
import importlib.util, os, sys
cut = sys.argv.index('--')
roots = [os.path.realpath(r) for r in sys.argv[1:cut]]
def inside(p):
    p = os.path.realpath(p)
    return any(p == r or p.startswith(r + os.sep) for r in roots)
for e in sys.path:
    e = e or os.getcwd()
    if os.path.exists(e) and inside(e):
        print('path\t' + os.path.realpath(e))
for n in sys.argv[cut + 1:]:
    try:
        s = importlib.util.find_spec(n)
    except Exception:
        s = None
    if s is None:
        continue
    o = s.origin if s.has_location else None
    if o is None and s.submodule_search_locations:
        o = list(s.submodule_search_locations)[0]
    if o:
        print('spec\t' + n + '\t' + os.path.realpath(o))
";

/// Top-level modules of `dir` a Python path entry there would offer: `x.py`, and packages
/// (`x/__init__.py`; a directory without one never hides a module found elsewhere).
fn top_level_modules(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let p = e.path();
            let name = e.file_name().into_string().ok()?;
            let module = if p.is_dir() && p.join("__init__.py").is_file() {
                name
            } else {
                name.strip_suffix(".py")?.to_owned()
            };
            (!module.is_empty() && module.chars().all(|c| c == '_' || c.is_alphanumeric()))
                .then_some((module, p))
        })
        .collect();
    out.sort();
    out
}

#[allow(clippy::too_many_arguments)]
fn python(
    interpreter: &Path,
    flags: &[OsString],
    module: Option<&str>,
    dir: &Path,
    env: &RunEnv,
    roots: &Roots,
    pytest_pythonpath: bool,
    r: &mut Resolution,
) {
    let is_pytest = module == Some("pytest");
    let own: Vec<(String, PathBuf)> = if is_pytest && pytest_pythonpath {
        top_level_modules(dir)
    } else {
        Vec::new()
    };
    let mut cmd = Command::new(interpreter);
    cmd.args(flags).arg("-c").arg(PYTHON_PROBE);
    cmd.args(roots.0.iter()).arg("--");
    cmd.args(
        module
            .into_iter()
            .chain(own.iter().map(|(n, _)| n.as_str())),
    );
    let Some(out) = probe(cmd, dir, env, r) else {
        return;
    };
    for line in out.lines() {
        let mut parts = line.split('\t');
        match (parts.next(), parts.next(), parts.next()) {
            (Some("path"), Some(entry), None) => found(
                r,
                "an entry of the interpreter's sys.path (PYTHONPATH, a virtual environment or a \
                 .pth file) is in the workspace"
                    .to_owned(),
                PathBuf::from(entry),
            ),
            (Some("spec"), Some(name), Some(origin)) => {
                let origin = PathBuf::from(origin);
                if Some(name) == module
                    && let Some(real) = roots.inside(&origin)
                {
                    found(
                        r,
                        format!("the module `{name}` (`-m {name}`) is the workspace's"),
                        real,
                    );
                }
                if let Some((_, planted)) = own.iter().find(|(n, _)| n == name)
                    && roots.inside(&origin).is_none()
                {
                    found(
                        r,
                        format!(
                            "`{name}` in the workspace would hide the module the interpreter \
                             loads from {} once pytest puts the workspace on sys.path",
                            origin.display()
                        ),
                        planted.clone(),
                    );
                }
            }
            _ => {}
        }
    }
}

/// Include directories a `prove` or `perl` command adds, relative to where it runs.
fn perl_includes(name: &str, args: &[OsString], env: &RunEnv) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut it = args.iter().map(|a| a.to_string_lossy());
    while let Some(a) = it.next() {
        if a == "--" || !a.starts_with('-') {
            if name == "perl" {
                break;
            }
            continue;
        }
        if let Some(rest) = a.strip_prefix("-I") {
            match rest {
                "" => dirs.extend(it.next().map(|d| PathBuf::from(d.as_ref()))),
                d => dirs.push(PathBuf::from(d)),
            }
        } else if name == "prove" && (a == "--lib" || a == "--blib") {
            dirs.push(PathBuf::from(if a == "--lib" { "lib" } else { "blib/lib" }));
        } else if name == "prove" && !a.starts_with("--") {
            // Bundled short switches: `-lv`, `-vlr`.
            if a.contains('l') {
                dirs.push(PathBuf::from("lib"));
            }
            if a.contains('b') {
                dirs.extend([PathBuf::from("blib/lib"), PathBuf::from("blib/arch")]);
            }
        }
    }
    if let Some(lib) = env.get("PERL5LIB") {
        dirs.extend(std::env::split_paths(lib));
    }
    dirs
}

fn perl(
    perl_program: &Path,
    name: &str,
    args: &[OsString],
    dir: &Path,
    env: &RunEnv,
    roots: &Roots,
    r: &mut Resolution,
) {
    let mut modules: Vec<(String, PathBuf)> = Vec::new();
    for include in perl_includes(name, args, env) {
        let Some(real) = roots.inside(&dir.join(&include)) else {
            continue;
        };
        let walk = ignore::WalkBuilder::new(&real)
            .standard_filters(false)
            .follow_links(false)
            .build();
        for entry in walk.filter_map(Result::ok).take(PERL_FILE_LIMIT) {
            let p = entry.path();
            if p.extension().is_some_and(|e| e == "pm")
                && let Ok(rel) = p.strip_prefix(&real)
                && let Some(rel) = rel.to_str()
            {
                modules.push((rel.to_owned(), p.to_owned()));
            }
        }
    }
    if modules.is_empty() {
        return;
    }
    const FIND: &str = r#"for my $m (@ARGV) { for my $d (@INC) { next if ref $d; if (-f "$d/$m") { print "$m\t$d\n"; last } } }"#;
    for chunk in modules.chunks(500) {
        let mut cmd = Command::new(perl_program);
        cmd.arg("-e")
            .arg(FIND)
            .args(chunk.iter().map(|(rel, _)| rel));
        let Some(out) = probe(cmd, dir, env, r) else {
            return;
        };
        for line in out.lines() {
            if let Some((rel, inc)) = line.split_once('\t')
                && let Some((_, planted)) = chunk.iter().find(|(m, _)| m == rel)
                && roots.inside(Path::new(inc)).is_none()
            {
                found(
                    r,
                    format!(
                        "{rel} in an include directory in the workspace hides perl's own in {inc}"
                    ),
                    planted.clone(),
                );
            }
        }
    }
}

/// Runs `cmd` in the command's environment and returns its standard output, or notes why not.
fn probe(mut cmd: Command, dir: &Path, env: &RunEnv, r: &mut Resolution) -> Option<String> {
    let shown = format!("{:?}", cmd.get_program());
    cmd.env_clear()
        .envs(env.vars.iter().map(|(k, v)| (k, v)))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let result = (|| -> io::Result<Option<String>> {
        let mut child = cmd.spawn()?;
        let mut stdout = child.stdout.take();
        let reader = thread::spawn(move || {
            let mut s = String::new();
            if let Some(out) = stdout.as_mut() {
                let _ = out.read_to_string(&mut s);
            }
            s
        });
        let deadline = Instant::now() + PROBE_LIMIT;
        let status = loop {
            if let Some(s) = child.try_wait()? {
                break Some(s);
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            thread::sleep(Duration::from_millis(10));
        };
        let out = reader.join().unwrap_or_default();
        Ok(status.filter(|s| s.success()).map(|_| out))
    })();
    match result {
        Ok(Some(out)) => Some(out),
        Ok(None) => {
            r.notes.push(format!(
                "asking {shown} where the runner's modules resolve failed or took over {} s: not checked",
                PROBE_LIMIT.as_secs()
            ));
            None
        }
        Err(e) => {
            r.notes.push(format!(
                "cannot start {shown} to ask where modules resolve ({e}): not checked"
            ));
            None
        }
    }
}
