//! [`PluginFault`]: the ways a plugin can misbehave that the host names itself, as typed values
//! (their `Display` is the reason shown after the plugin's name), rather than strings written
//! at each place that notices one.

/// A plugin broke its contract in a way the host can name without the plugin's help.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PluginFault {
    /// A v2 plugin returned `GAPSCORE_ERR_PARSE` without calling the table's `error()`, so the
    /// input is invalid by its word but there is no message, line or offset to show.
    #[error("returned GAPSCORE_ERR_PARSE without calling error(); no reason given")]
    ParseWithoutError,
    /// A plugin called `error()` (the input is invalid, at a place) and then returned
    /// `GAPSCORE_OK`: its own word says the file cannot be read, so it is not read as valid
    /// with the tests handed over before the error.
    #[error("called error() ({message}) but returned GAPSCORE_OK; the file is not read as valid")]
    OkAfterError {
        /// What the plugin said.
        message: String,
    },
    /// A v1 plugin returned `GAPSCORE_ERR_PARSE` with an empty output buffer: no error document.
    #[error("returned GAPSCORE_ERR_PARSE without an error document; no reason given")]
    ParseWithoutDocument,
    /// An isolated plugin's child process was killed by a signal (a segfault, an abort, the
    /// kernel's out-of-memory killer) while it read the file.
    #[error(
        "crashed in its isolated process (--plugin-isolate): killed by signal {signal}{}; this file is not read, the others are",
        name.map(|n| format!(" ({n})")).unwrap_or_default()
    )]
    Crashed {
        /// The signal number.
        signal: i32,
        /// Its name (`SIGSEGV`), when the host knows it.
        name: Option<&'static str>,
    },
    /// An isolated plugin's child process was killed by a signal while it answered detection.
    #[error(
        "crashed in its isolated process (--plugin-isolate) while detecting the file's format: killed by signal {signal}{}",
        name.map(|n| format!(" ({n})")).unwrap_or_default()
    )]
    CrashedInDetect {
        /// The signal number.
        signal: i32,
        /// Its name, when the host knows it.
        name: Option<&'static str>,
    },
}

/// The conventional name of a signal that ends a crashing process (Linux numbering).
#[cfg(target_os = "linux")]
pub(crate) fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        _ => return None,
    })
}

/// Other systems number some signals differently: the number alone is shown.
#[cfg(not(target_os = "linux"))]
pub(crate) fn signal_name(_: i32) -> Option<&'static str> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn a_crash_names_its_signal() {
        let f = PluginFault::Crashed {
            signal: 11,
            name: signal_name(11),
        };
        assert_eq!(
            f.to_string(),
            "crashed in its isolated process (--plugin-isolate): killed by signal 11 (SIGSEGV); this file is not read, the others are"
        );
        assert_eq!(signal_name(99), None);
    }
}
