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
//!   resolves; under pytest, which top-level module of each directory pytest puts on `sys.path`
//!   (its `pythonpath`, the directory it prepends for each sealed test file), in any form the
//!   interpreter imports, the interpreter already finds elsewhere: that one is shadowed;
//! - Perl (`prove`, `perl`): each `.pm`/`.pmc` under `lib/`, `blib/` or an include directory
//!   the command adds (`-l`, `-b`, `-I`, `PERL5LIB` when `--env` passes it), links followed,
//!   that perl's own `@INC` also has (a planted `lib/Test/More.pm`);
//! - cargo: a `.cargo/config.toml` that names a program (`runner`, `rustc-wrapper`, ...) and a
//!   `rust-toolchain.toml` with a `path`.
//!
//! A check that cannot complete (a launcher that cannot be read, a probe that fails) is
//! refused with its reason, never passed.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

mod cargo;
mod perl;

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
    shadow_dirs: &[PathBuf],
) -> Resolution {
    let mut r = Resolution::default();
    let path = env.get("PATH").unwrap_or_default().to_owned();
    follow(command, dir, env, &path, roots, shadow_dirs, &mut r);
    r
}

fn found(r: &mut Resolution, what: String, path: PathBuf) {
    r.found.push(WorkspaceRunner { what, path });
}

/// A check that cannot complete fails closed: refused like a runner in the workspace, with the
/// reason (`--trust-workspace-runner` takes it, and the report records it).
fn unchecked(r: &mut Resolution, why: String, path: PathBuf) {
    found(
        r,
        format!("cannot check where the runner resolves: {why}"),
        path,
    );
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
    shadow_dirs: &[PathBuf],
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
            shadow_dirs,
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
            shadow_dirs,
            r,
        );
    } else if matches!(name, "pytest" | "py.test") {
        // A pyenv shim is asked which script it runs; that one is read.
        let script = program.as_deref().map(|p| {
            match pyenv_shim(p).and_then(|_| through_pyenv(p, name, dir, env, r)) {
                Some(real) => real,
                None => p.to_owned(),
            }
        });
        if let Some(real) = script.as_deref().and_then(|s| roots.inside(s)) {
            found(r, format!("`{shown}` runs the workspace's {name}"), real);
            return;
        }
        match script.as_deref().and_then(|p| shebang_python(p, dir, path)) {
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
                    shadow_dirs,
                    r,
                );
            }
            None => unchecked(
                r,
                format!(
                    "`{shown}` is not a Python script gapscore can read the interpreter of (a \
                     shim?); run `python -m pytest` with the interpreter named"
                ),
                program.clone().unwrap_or_else(|| PathBuf::from(first)),
            ),
        }
    }
    if name == "cargo" {
        cargo::cargo(dir, roots, r);
    }
    if name == "env" {
        // `env [-i] [-u NAME] [NAME=VALUE]... program args`: the program is followed too.
        let mut i = 0;
        while let Some(a) = args.get(i).map(|a| a.to_string_lossy()) {
            if a == "-u" || a == "--unset" || a == "-C" || a == "--chdir" {
                i += 2;
            } else if a.starts_with('-') || a.contains('=') {
                i += 1;
            } else {
                break;
            }
        }
        if i < args.len() {
            follow(&args[i..], dir, env, path, roots, shadow_dirs, r);
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
            Some(p) => perl::perl(&p, name, args, dir, env, roots, r),
            None => unchecked(
                r,
                "no perl on the command's PATH to ask about its include directories".to_owned(),
                PathBuf::from("perl"),
            ),
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

/// A pyenv shim (`exec "<root>/libexec/pyenv" exec "$program"`): pyenv, and its root.
fn pyenv_shim(script: &Path) -> Option<(PathBuf, String)> {
    let text = fs::read_to_string(script).ok()?;
    if text.len() > 4096 {
        return None;
    }
    let root = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("export PYENV_ROOT="))?
        .trim_matches('"')
        .to_owned();
    let pyenv = text.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("exec \"")?;
        let (program, tail) = rest.split_once('"')?;
        (program.ends_with("/libexec/pyenv") && tail.trim_start().starts_with("exec "))
            .then(|| PathBuf::from(program))
    })?;
    Some((pyenv, root))
}

/// The script a pyenv shim runs for `name` in `dir`, as pyenv itself answers (`pyenv which`).
fn through_pyenv(
    shim: &Path,
    name: &str,
    dir: &Path,
    env: &RunEnv,
    r: &mut Resolution,
) -> Option<PathBuf> {
    let (pyenv, root) = pyenv_shim(shim)?;
    let mut cmd = Command::new("/usr/bin/env");
    cmd.arg(format!("PYENV_ROOT={root}"))
        .arg(&pyenv)
        .args(["which", name]);
    let out = probe(cmd, None, dir, env, r)?;
    let line = out.lines().next()?.trim();
    (!line.is_empty()).then(|| PathBuf::from(line))
}

/// The Python a script's `#!` line names (directly or through `env`), if it names one.
fn shebang_python(script: &Path, dir: &Path, path: &OsStr) -> Option<PathBuf> {
    let mut head = [0u8; 1024];
    let n = fs::File::open(script)
        .and_then(|mut f| f.read(&mut head))
        .ok()?;
    let mut lines = std::str::from_utf8(&head[..n]).ok()?.lines();
    let line = lines.next()?;
    let mut words = line.strip_prefix("#!")?.split_whitespace();
    let first = words.next()?;
    // pip's form for an interpreter path too long for `#!`:
    // `#!/bin/sh` then `'''exec' "/long/path/python" "$0" "$@"`.
    if Path::new(first).file_name()? == "sh"
        && let Some(rest) = lines.next().and_then(|l| l.strip_prefix("'''exec' "))
    {
        let program = PathBuf::from(rest.split_whitespace().next()?.trim_matches('"'));
        let name = program_name(program.as_os_str())?;
        return name.starts_with("python").then_some(program);
    }
    let program = if Path::new(first).file_name()? == "env" {
        which(OsStr::new(words.next()?), dir, path)?
    } else {
        PathBuf::from(first)
    };
    let name = program_name(program.as_os_str())?;
    name.starts_with("python").then_some(program)
}

/// Asks the interpreter, which reads its questions from standard input (`root\t<dir>`,
/// `module\t<name>`, `dir\t<dir>` lines, any number of them): which `sys.path` entries are in a
/// root; where each module resolves; and, for each `dir`, which top-level module it offers in any
/// form this interpreter imports (source, bytecode, extension: `importlib.machinery`'s
/// suffixes; a regular package with any such `__init__`; a namespace portion) that the
/// interpreter otherwise finds elsewhere. Ends with `done`, so a cut-off answer is a failure.
const PYTHON_PROBE: &str = r"
import importlib.machinery as m, importlib.util, os, sys
roots, modules, dirs = [], [], []
for line in sys.stdin.read().split('\n'):
    kind, _, value = line.partition('\t')
    {'root': roots, 'module': modules, 'dir': dirs}.get(kind, []).append(value)
roots = [os.path.realpath(r) for r in roots]
def inside(p):
    p = os.path.realpath(p)
    return any(p == r or p.startswith(r + os.sep) for r in roots)
for e in sys.path:
    e = e or os.getcwd()
    if os.path.exists(e) and inside(e):
        print('path\t' + os.path.realpath(e))
sys.path[:] = [e for e in sys.path if not inside(e or os.getcwd())]
importlib.invalidate_caches()
def spec(n):
    try:
        return importlib.util.find_spec(n)
    except Exception:
        return None
def origin(s):
    o = s.origin if s.has_location else None
    if o is None and s.submodule_search_locations:
        o = list(s.submodule_search_locations)[0]
    return o
for n in modules:
    s = spec(n)
    o = s and origin(s)
    if o:
        print('spec\t' + n + '\t' + os.path.realpath(o))
suffixes = sorted(m.all_suffixes(), key=len, reverse=True)
for d in dirs:
    try:
        names = sorted(os.listdir(d))
    except OSError:
        continue
    for f in names:
        p = os.path.join(d, f)
        name, namespace = None, False
        if os.path.isdir(p):
            if not f.isidentifier():
                continue
            name = f
            namespace = not any(os.path.isfile(os.path.join(p, '__init__' + x)) for x in suffixes)
        else:
            for x in suffixes:
                if f.endswith(x) and f[:-len(x)].isidentifier():
                    name = f[:-len(x)]
                    break
        if name is None:
            continue
        s = spec(name)
        if s is None:
            continue
        if s.origin is not None and not s.has_location:
            # Built-in and frozen modules are found before any path entry.
            continue
        if namespace and s.origin is not None:
            # A namespace portion never hides a module or regular package found later; it
            # joins a namespace package, and may then hide its submodules.
            continue
        o = origin(s)
        print('shadow\t' + name + '\t' + p + '\t' + (o or s.origin or 'built-in'))
print('done')
";

#[allow(clippy::too_many_arguments)]
fn python(
    interpreter: &Path,
    flags: &[OsString],
    module: Option<&str>,
    dir: &Path,
    env: &RunEnv,
    roots: &Roots,
    shadow_dirs: &[PathBuf],
    r: &mut Resolution,
) {
    let is_pytest = module == Some("pytest");
    let mut questions = String::new();
    for root in &roots.0 {
        questions.push_str(&format!("root\t{}\n", root.display()));
    }
    if let Some(module) = module {
        questions.push_str(&format!("module\t{module}\n"));
    }
    if is_pytest {
        for d in shadow_dirs {
            if let Some(real) = roots.inside(d) {
                questions.push_str(&format!("dir\t{}\n", real.display()));
            }
        }
    }
    let mut cmd = Command::new(interpreter);
    cmd.args(flags).arg("-c").arg(PYTHON_PROBE);
    let Some(out) = probe(cmd, Some(questions), dir, env, r) else {
        return;
    };
    if out.lines().last() != Some("done") {
        unchecked(
            r,
            format!(
                "the interpreter {} did not finish answering where modules resolve",
                interpreter.display()
            ),
            interpreter.to_owned(),
        );
        return;
    }
    for line in out.lines() {
        let parts: Vec<&str> = line.split('\t').collect();
        match parts[..] {
            ["path", entry] => found(
                r,
                "an entry of the interpreter's sys.path (PYTHONPATH, a virtual environment or a \
                 .pth file) is in the workspace"
                    .to_owned(),
                PathBuf::from(entry),
            ),
            ["spec", name, origin] => {
                if Some(name) == module
                    && let Some(real) = roots.inside(Path::new(origin))
                {
                    found(
                        r,
                        format!("the module `{name}` (`-m {name}`) is the workspace's"),
                        real,
                    );
                }
            }
            ["shadow", name, planted, origin] => found(
                r,
                format!(
                    "`{name}` in the workspace would hide the module the interpreter loads from \
                     {origin} once pytest puts its directory on sys.path"
                ),
                PathBuf::from(planted),
            ),
            _ => {}
        }
    }
}

/// Runs `cmd` in the command's environment, with `input` on its standard input, and returns
/// its standard output; when it cannot start, fails or takes too long, the check fails closed.
fn probe(
    mut cmd: Command,
    input: Option<String>,
    dir: &Path,
    env: &RunEnv,
    r: &mut Resolution,
) -> Option<String> {
    let program = PathBuf::from(cmd.get_program());
    cmd.env_clear()
        .envs(env.vars.iter().map(|(k, v)| (k, v)))
        .current_dir(dir)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let result = (|| -> io::Result<Option<String>> {
        let mut child = cmd.spawn()?;
        let writer = child.stdin.take().map(|mut stdin| {
            let input = input.unwrap_or_default();
            thread::spawn(move || {
                use std::io::Write;
                let _ = stdin.write_all(input.as_bytes());
            })
        });
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
        if let Some(w) = writer {
            let _ = w.join();
        }
        let out = reader.join().unwrap_or_default();
        Ok(status.filter(|s| s.success()).map(|_| out))
    })();
    let shown = program.display();
    match result {
        Ok(Some(out)) => Some(out),
        Ok(None) => {
            let why = format!(
                "asking {shown} where the runner's modules resolve failed or took over {} s",
                PROBE_LIMIT.as_secs()
            );
            unchecked(r, why, program.clone());
            None
        }
        Err(e) => {
            let why = format!("cannot start {shown} to ask where modules resolve ({e})");
            unchecked(r, why, program.clone());
            None
        }
    }
}
