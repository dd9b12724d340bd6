//! A failed test's message drawn from its captured output: libtest writes the panic as
//! `thread '<name>' (<id>) panicked at <file>:<line>:<col>:` followed by the panic message and,
//! with `RUST_BACKTRACE`, a backtrace; Rust before 1.73 wrote `thread '<name>' panicked at
//! '<message>', <file>:<line>:<col>` on one line.

/// What a failed test's output says about the failure.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Panic {
    /// The panic message (several lines when the panic's text has them).
    pub message: String,
    /// The source file of the panic, as the panic location names it.
    pub file: Option<String>,
    /// Its line.
    pub line: Option<u32>,
}

/// Lines that end a panic message: the backtrace and libtest's notes about it.
fn ends_message(line: &str) -> bool {
    line.starts_with("stack backtrace:")
        || line.starts_with("note: run with `RUST_BACKTRACE")
        || line.starts_with("note: Some details are omitted")
}

/// `file:line:col` → (file, line).
fn location(loc: &str) -> Option<(String, u32)> {
    let mut parts = loc.rsplitn(3, ':');
    let _col: u32 = parts.next()?.parse().ok()?;
    let line: u32 = parts.next()?.parse().ok()?;
    let file = parts.next()?;
    (!file.is_empty()).then(|| (file.to_owned(), line))
}

/// The first panic in `output`, if it holds one.
pub fn find_panic(output: &str) -> Option<Panic> {
    let mut lines = output.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("thread '") else {
            continue;
        };
        let Some((_, after)) = rest.split_once(" panicked at ") else {
            continue;
        };
        // Rust ≥ 1.73: the location ends the line with a colon, the message follows.
        if let Some(loc) = after.strip_suffix(':')
            && let Some((file, line_no)) = location(loc)
        {
            let message: Vec<&str> = lines.by_ref().take_while(|l| !ends_message(l)).collect();
            let message = message.join("\n").trim_end().to_owned();
            return Some(Panic {
                message,
                file: Some(file),
                line: Some(line_no),
            });
        }
        // Rust < 1.73: `'message', file:line:col` on the same line.
        if let Some(quoted) = after.strip_prefix('\'')
            && let Some((message, loc)) = quoted.rsplit_once("', ")
        {
            let (file, line_no) = location(loc).unzip();
            return Some(Panic {
                message: message.to_owned(),
                file,
                line: line_no,
            });
        }
        return Some(Panic {
            message: after.to_owned(),
            ..Panic::default()
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_multi_line_panic_stops_at_the_backtrace() {
        let out = "some context\n\nthread 'tests::x' (17757) panicked at src/lib.rs:41:9:\nfirst line\n  second\nstack backtrace:\n   0: x\n";
        let p = find_panic(out).unwrap();
        assert_eq!(p.message, "first line\n  second");
        assert_eq!(p.file.as_deref(), Some("src/lib.rs"));
        assert_eq!(p.line, Some(41));
    }

    #[test]
    fn the_note_without_a_backtrace_ends_the_message() {
        let out = "thread 'a' panicked at tests/a.rs:9:7:\nboom\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        let p = find_panic(out).unwrap();
        assert_eq!(p.message, "boom");
        assert_eq!(p.line, Some(9));
    }

    #[test]
    fn the_old_one_line_form() {
        let out = "thread 'adds' panicked at 'assertion failed: 1 == 2', src/lib.rs:3:5\n";
        let p = find_panic(out).unwrap();
        assert_eq!(p.message, "assertion failed: 1 == 2");
        assert_eq!(p.file.as_deref(), Some("src/lib.rs"));
        assert_eq!(p.line, Some(3));
    }

    #[test]
    fn output_without_a_panic() {
        assert_eq!(find_panic("just printing\n"), None);
        assert_eq!(find_panic(""), None);
    }
}
