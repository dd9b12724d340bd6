//! Recognising the test runner in a command, and what confines each one.
//!
//! Recognised (by the file name of a program, so `/venv/bin/pytest` counts too; a `.exe` suffix
//! is ignored):
//!
//! - pytest: `pytest`, `py.test`; `python`, `python3` or `pythonX.Y` with `-m pytest` (or
//!   `-mpytest`), after any of the interpreter's flags that take no value (`-B`, `-u`, `-I`, ...).
//! - prove: `prove`.
//! - each of the above behind `uv run`, `poetry run`, `pipenv run`, `pdm run` or `hatch run`,
//!   when the runner follows `run` directly (a wrapper option such as `uv run --with X pytest`
//!   is not parsed, and the command is then not recognised).
//!
//! Anything else (`env X=1 pytest`, `sh -c "pytest"`, `make test`, `tox`) is not recognised,
//! and gets only the environment neutralisation that applies to every command.

use std::ffi::{OsStr, OsString};
use std::path::Path;

/// The runner a command starts, as far as gapscore confines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Runner {
    /// pytest, started through its own script (`via_python_m` false) or `python -m pytest`.
    Pytest {
        /// Started as `python -m pytest`: the working directory is first on `sys.path`.
        via_python_m: bool,
    },
    /// Perl's `prove`.
    Prove,
    /// Not recognised.
    Other,
}

/// The program's file name without a `.exe` suffix.
pub(super) fn program_name(arg: &OsStr) -> Option<&str> {
    let name = Path::new(arg).file_name()?.to_str()?;
    Some(name.strip_suffix(".exe").unwrap_or(name))
}

fn is_python(name: &str) -> bool {
    let Some(version) = name.strip_prefix("python") else {
        return false;
    };
    version.is_empty()
        || (version.starts_with(|c: char| c.is_ascii_digit())
            && version.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// Interpreter flags that take no value and may come before `-m`.
const PYTHON_FLAGS: &[&str] = &[
    "-B", "-b", "-bb", "-d", "-E", "-I", "-i", "-O", "-OO", "-P", "-q", "-R", "-s", "-S", "-u",
    "-v", "-x",
];

const WRAPPERS: &[&str] = &["uv", "poetry", "pipenv", "pdm", "hatch"];

/// Recognises the runner `command` starts.
pub(super) fn recognise(command: &[OsString]) -> Runner {
    let Some(first) = command.first() else {
        return Runner::Other;
    };
    let Some(name) = program_name(first) else {
        return Runner::Other;
    };
    match name {
        "pytest" | "py.test" => {
            return Runner::Pytest {
                via_python_m: false,
            };
        }
        "prove" => return Runner::Prove,
        _ => {}
    }
    if WRAPPERS.contains(&name) && command.get(1).is_some_and(|a| a == "run") {
        return recognise(&command[2..]);
    }
    if is_python(name) {
        let mut rest = command[1..].iter().map(|a| a.to_str());
        while let Some(Some(arg)) = rest.next() {
            if arg == "-mpytest" || (arg == "-m" && rest.next() == Some(Some("pytest"))) {
                return Runner::Pytest { via_python_m: true };
            }
            if !PYTHON_FLAGS.contains(&arg) {
                break;
            }
        }
    }
    Runner::Other
}

/// For a Python interpreter command: the interpreter's value-less flags before `-m` or the
/// script, and the module `-m` names, if it names one.
pub(super) fn python_flags_and_module(
    command: &[OsString],
) -> Option<(Vec<OsString>, Option<String>)> {
    if !is_python(program_name(command.first()?)?) {
        return None;
    }
    let mut flags = Vec::new();
    let mut rest = command[1..].iter();
    while let Some(arg) = rest.next() {
        let Some(s) = arg.to_str() else { break };
        if let Some(module) = s.strip_prefix("-m") {
            let module = match module {
                "" => rest.next().and_then(|m| m.to_str()).map(str::to_owned),
                m => Some(m.to_owned()),
            };
            return Some((flags, module));
        }
        if !PYTHON_FLAGS.contains(&s) {
            break;
        }
        flags.push(arg.clone());
    }
    Some((flags, None))
}

/// Environment variables that let whoever sets the environment load code into the runner.
/// The command's environment is default-deny (`crate::environment`), so these are absent
/// unless `--env` names them; the notes then say so.: each lets whoever sets the environment
/// (a CI file the implementer can edit, a `.envrc`) load code into the runner.
pub(super) const CODE_LOADING_ENV: &[&str] = &[
    // pytest: extra options (`-p plugin`) and plugin modules.
    "PYTEST_ADDOPTS",
    "PYTEST_PLUGINS",
    // node, jest, vitest, node --test: `--require`/`--import` of any module.
    "NODE_OPTIONS",
    // perl, prove: `-M` of any module, for perl and for every test prove starts.
    "PERL5OPT",
    "HARNESS_PERL_SWITCHES",
    "HARNESS_OPTIONS",
    // go: `-exec`, `-toolexec`, `-overlay` for every go command.
    "GOFLAGS",
    // module search paths and start-up files.
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONHOME",
    "PERL5LIB",
    "PERLLIB",
    "NODE_PATH",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
];

/// The files pytest reads as its configuration, in the order it looks for them in a directory,
/// with the section a file must hold to count (`None`: the file counts whatever it holds).
/// When the sealed directory holds one (the seal covers it), the first is passed with `-c`
/// (pytest 9 reads each kind given with `-c`), otherwise an empty one of gapscore's.
const PYTEST_CONFIGS: &[(&str, Option<&[&str]>)] = &[
    ("pytest.toml", None),
    (".pytest.toml", None),
    ("pytest.ini", None),
    (".pytest.ini", None),
    (
        "pyproject.toml",
        Some(&["[tool.pytest.ini_options]", "[tool.pytest]"]),
    ),
    ("tox.ini", Some(&["[pytest]"])),
    ("setup.cfg", Some(&["[tool:pytest]"])),
];

/// The sealed directory's own pytest configuration, if it holds one.
pub(super) fn sealed_pytest_config(sealed: &Path) -> Option<std::path::PathBuf> {
    PYTEST_CONFIGS.iter().find_map(|(name, section)| {
        let path = sealed.join(name);
        if !path.is_file() {
            return None;
        }
        match section {
            None => Some(path),
            Some(headers) => {
                let text = std::fs::read_to_string(&path).ok()?;
                text.lines()
                    .any(|l| headers.contains(&l.trim()))
                    .then_some(path)
            }
        }
    })
}

/// The `pythonpath` entries a pytest configuration file sets (relative to its directory), or
/// `None` when it sets none. Read loosely (`pythonpath = a b`, `pythonpath = ["a", "b"]`, and
/// indented continuation lines): an entry too many only widens the shadow check.
pub(super) fn config_pythonpath(config: &Path) -> Option<Vec<std::path::PathBuf>> {
    let text = std::fs::read_to_string(config).ok()?;
    let base = config.parent()?;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim_start().strip_prefix("pythonpath") else {
            continue;
        };
        let Some(value) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let mut value = value.to_owned();
        while let Some(next) = lines.peek() {
            let cont = next.starts_with([' ', '\t']) && !next.trim().is_empty();
            let open_list = value.contains('[') && !value.contains(']');
            if !(cont || open_list) {
                break;
            }
            value.push(' ');
            value.push_str(next);
            lines.next();
        }
        let entries = value
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | '[' | ']'))
            .map(|e| e.trim_matches(|c| c == '"' || c == '\''))
            .filter(|e| !e.is_empty())
            .map(|e| base.join(e))
            .collect();
        return Some(entries);
    }
    None
}

/// The note to give when pytest refused an option because the plugin that adds it did not load
/// (`PYTEST_DISABLE_PLUGIN_AUTOLOAD=1`, which `gapscore run` sets): pytest's error
/// `unrecognized arguments: --json-report` names the option, and the plugin is named when it is
/// one gapscore knows. `None` when autoload was left on or the output names no such option.
pub fn plugin_autoload_hint(env: &[(OsString, OsString)], output: &str) -> Option<String> {
    let autoload_off = env
        .iter()
        .any(|(k, v)| k == "PYTEST_DISABLE_PLUGIN_AUTOLOAD" && v == "1");
    if !autoload_off {
        return None;
    }
    let line = output.lines().find_map(|l| {
        l.split_once("error: unrecognized arguments:")
            .map(|(_, a)| a)
    })?;
    let option = line.split_whitespace().next()?;
    let name = option.split('=').next().unwrap_or(option);
    let plugin = match name {
        "--json-report" | "--json-report-file" => Some("pytest_jsonreport"),
        "--cov" | "--cov-report" => Some("pytest_cov"),
        "--timeout" => Some("pytest_timeout"),
        "--report-log" => Some("pytest_reportlog"),
        "-n" | "--numprocesses" => Some("xdist.plugin"),
        "--html" => Some("pytest_html.plugin"),
        _ => None,
    };
    let load = match plugin {
        Some(p) => format!("add `-p {p}` to the command to load the plugin that adds it"),
        None => "add `-p MODULE` to the command for the plugin that adds it".to_owned(),
    };
    Some(format!(
        "pytest did not recognise `{name}`: gapscore run turns pytest's plugin autoload off (PYTEST_DISABLE_PLUGIN_AUTOLOAD=1, so no planted plugin loads); {load}"
    ))
}
