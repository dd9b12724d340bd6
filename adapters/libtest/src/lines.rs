//! The lines of a libtest stream that are not JSON: what cargo writes on standard error when it
//! is merged into the stream (`2>&1`). Its `Running`/`Doc-tests` lines name the test binary
//! whose suite follows, `error: could not compile` is a build failure, and the other status
//! lines carry no results. Anything else (a test's own output under `--nocapture`) is counted
//! and named in one warning.

/// What a non-JSON line says.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// `Running <target> (<path>)` or `Doc-tests <crate>`: the next suite's binary.
    Binary(&'a str),
    /// `process didn't exit successfully: ... (signal: 6, SIGABRT: ...)`: why the binary
    /// before it stopped.
    Exit(&'a str),
    /// `error: could not compile ...`.
    BuildFailure(&'a str),
    /// One of cargo's other status lines (`Compiling`, `Finished`, `error: test failed, to
    /// rerun pass`, ...): no result in it.
    Cargo,
    /// Anything else.
    Other,
}

/// Cargo's status words and messages that say nothing about a test's result.
const CARGO_PREFIXES: &[&str] = &[
    "Compiling ",
    "Checking ",
    "Finished ",
    "Fresh ",
    "Blocking ",
    "Updating ",
    "Locking ",
    "Adding ",
    "Downloading ",
    "Downloaded ",
    "Building ",
    "warning: ",
    "error: test failed, to rerun pass",
    "error: doctest failed, to rerun pass",
    "Caused by:",
];

/// Classifies one non-JSON line (already trimmed).
pub fn classify(line: &str) -> Line<'_> {
    if let Some(rest) = line.strip_prefix("Running ") {
        // `Running unittests src/lib.rs (target/debug/deps/x-0123)`: the target, not the path.
        // `unittests src/lib.rs`: the source path alone names the binary.
        let target = rest.rsplit_once(" (").map_or(rest, |(t, _)| t).trim();
        return Line::Binary(target.strip_prefix("unittests ").unwrap_or(target));
    }
    if line.starts_with("Doc-tests ") {
        return Line::Binary(line);
    }
    if let Some((_, why)) = line.split_once("process didn't exit successfully: ") {
        return Line::Exit(why);
    }
    if line.starts_with("error: could not compile") {
        return Line::BuildFailure(line);
    }
    if CARGO_PREFIXES.iter().any(|p| line.starts_with(p)) || is_failed_target(line) {
        return Line::Cargo;
    }
    Line::Other
}

/// cargo's list after `error: N targets failed:` (`` `--lib` ``, `` `--test aborts` ``, ...)
/// and the line that opens it.
fn is_failed_target(line: &str) -> bool {
    (line.starts_with("error: ") && line.ends_with(" targets failed:"))
        || (line.starts_with("`--") && line.ends_with('`'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_lines() {
        assert_eq!(
            classify("Running unittests src/lib.rs (target/debug/deps/ltdemo-11da)"),
            Line::Binary("src/lib.rs")
        );
        assert_eq!(
            classify("Running tests/aborts.rs (target/debug/deps/aborts-a179)"),
            Line::Binary("tests/aborts.rs")
        );
        assert_eq!(
            classify("Doc-tests ltdemo"),
            Line::Binary("Doc-tests ltdemo")
        );
        assert_eq!(
            classify(
                "process didn't exit successfully: `x` (signal: 6, SIGABRT: process abort signal)"
            ),
            Line::Exit("`x` (signal: 6, SIGABRT: process abort signal)")
        );
        assert_eq!(
            classify("error: could not compile `x` (lib test) due to 1 previous error"),
            Line::BuildFailure("error: could not compile `x` (lib test) due to 1 previous error")
        );
        assert_eq!(classify("`--test aborts`"), Line::Cargo);
        assert_eq!(classify("error: 4 targets failed:"), Line::Cargo);
        assert_eq!(classify("hello from a test"), Line::Other);
        assert_eq!(classify("error[E0308]: mismatched types"), Line::Other);
    }
}
