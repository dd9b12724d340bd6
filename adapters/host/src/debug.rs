//! What a plugin returned, shown to its author when the host rejects it (`--plugin-debug`):
//! bounded (a window around the offending byte) and escaped (control characters and bytes that
//! are not UTF-8 written as escapes), so any output is safe to print on a terminal.

use std::fmt::Write as _;

/// How many bytes of a rejected output are shown, at most.
pub const EXCERPT_LEN: usize = 240;

/// `reason`, then either the excerpt of `returned` (around byte `at`) when `debug` is on, or
/// how to see it.
pub fn with_returned(
    reason: impl std::fmt::Display,
    debug: bool,
    returned: &[u8],
    at: Option<usize>,
) -> String {
    if debug {
        format!("{reason}\n  it returned: {}", excerpt(returned, at))
    } else {
        format!("{reason} (run with --plugin-debug to see what it returned)")
    }
}

/// At most [`EXCERPT_LEN`] bytes of `bytes`, around `at` when given, escaped, with `…` where it
/// was cut, the whole quoted.
pub fn excerpt(bytes: &[u8], at: Option<usize>) -> String {
    let at = at.unwrap_or(0).min(bytes.len());
    let start = at.saturating_sub(EXCERPT_LEN / 2);
    let end = (start + EXCERPT_LEN).min(bytes.len());
    let mut out = String::from("\"");
    if start > 0 {
        out.push('…');
    }
    for chunk in bytes[start..end].utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' | '\\' => {
                    out.push('\\');
                    out.push(c);
                }
                c if c.is_control() => out.extend(c.escape_default()),
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    if end < bytes.len() {
        out.push('…');
    }
    out.push('"');
    let _ = write!(out, " ({} bytes", bytes.len());
    if at > 0 {
        let _ = write!(out, ", the error at byte {at}");
    }
    out.push(')');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_escaped_and_bounded() {
        assert_eq!(
            excerpt(b"{\"a\":\xff\n}", Some(5)),
            r#""{\"a\":\xff\n}" (8 bytes, the error at byte 5)"#
        );
        let long = vec![b'x'; 1000];
        let e = excerpt(&long, Some(500));
        assert!(e.starts_with("\"…x") && e.contains("x…\""), "{e}");
        assert_eq!(e.matches('x').count(), EXCERPT_LEN);
        assert!(
            with_returned("bad", false, b"", None)
                .ends_with("--plugin-debug to see what it returned)")
        );
    }
}
