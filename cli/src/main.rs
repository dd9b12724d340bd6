//! The `gapscore` binary: everything lives in the library's [`gapscore::run`].

#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    gapscore::run()
}
