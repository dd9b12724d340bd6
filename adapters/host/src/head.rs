//! The head rule (issue 36): a format declared at a file's head wins over evidence found deeper.
//!
//! Line-based detectors find their evidence anywhere in the prefix, so lines the implementation
//! under test prints (into a JUnit `<failure>`, pytest's captured output, a go `-v` log) could
//! outscore the file's true format. The head is the part of the prefix the runner itself writes
//! before any test runs: leading blank lines and XML prolog lines (declaration, comment,
//! DOCTYPE), then the first content line; when no adapter claims that, the first two content
//! lines (prove's `t/x.t ..` header needs its plan or first test point). It is capped at
//! [`HEAD_MAX_BYTES`] and [`HEAD_MAX_LINES`] lines of any kind.

/// The most content lines (not blank, not XML prolog) a head holds.
pub(crate) const HEAD_CONTENT_LINES: usize = 2;
/// The most lines of any kind a head holds (prolog lines included).
pub(crate) const HEAD_MAX_LINES: usize = 8;
/// The most bytes a head holds: a JUnit file written on one line keeps only its start.
pub(crate) const HEAD_MAX_BYTES: usize = 4096;

/// The prefix up to and including its `content`-th content line (1-based), within the caps;
/// `None` when the prefix has fewer content lines inside them.
pub(crate) fn head(prefix: &[u8], content: usize) -> Option<&[u8]> {
    let capped = &prefix[..prefix.len().min(HEAD_MAX_BYTES)];
    let mut start = 0;
    let mut seen = 0;
    for _ in 0..HEAD_MAX_LINES {
        if start >= capped.len() {
            return None;
        }
        let end = capped[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(capped.len(), |i| start + i + 1);
        if !is_prolog_or_blank(&capped[start..end]) {
            seen += 1;
            if seen == content {
                return Some(&capped[..end]);
            }
        }
        start = end;
    }
    None
}

/// Blank, or an XML declaration, comment or DOCTYPE line (a UTF-8 byte order mark ignored).
fn is_prolog_or_blank(line: &[u8]) -> bool {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let text = String::from_utf8_lossy(line);
    let t = text.trim();
    t.is_empty()
        || t.starts_with("<?xml")
        || t.starts_with("<!--")
        || t.get(..9)
            .is_some_and(|d| d.eq_ignore_ascii_case("<!DOCTYPE"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_skips_blank_and_prolog_lines() {
        let p = b"\n<?xml version=\"1.0\"?>\n<!-- x -->\n<testsuites>\n<testsuite>\n";
        assert_eq!(
            head(p, 1),
            Some(&b"\n<?xml version=\"1.0\"?>\n<!-- x -->\n<testsuites>\n"[..])
        );
        assert_eq!(head(p, 2), Some(&p[..]));
        assert_eq!(head(p, 3), None);
    }

    #[test]
    fn the_head_is_capped() {
        let long = vec![b'a'; HEAD_MAX_BYTES * 2];
        assert_eq!(head(&long, 1).map(<[u8]>::len), Some(HEAD_MAX_BYTES));
        let blanks = "\n".repeat(HEAD_MAX_LINES) + "ok 1\n";
        assert_eq!(head(blanks.as_bytes(), 1), None);
    }
}
