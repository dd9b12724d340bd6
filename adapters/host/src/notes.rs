//! Documentation beside results: a README or notes file that no adapter recognises, found in a
//! results directory, is left out with a warning instead of failing the suite. Only a file that
//! is plainly prose: named as documentation, text, read to its end (a file longer than the
//! detection prefix is never documentation: what lies past the prefix went unchecked), and with
//! nothing in it that reads like test output (a broken results file stays an error: it may hold
//! the failures).

/// Names (before the extension, any case) that documentation goes by.
const DOC_STEMS: [&str; 7] = [
    "readme",
    "notes",
    "license",
    "licence",
    "changelog",
    "authors",
    "contributing",
];

/// Extensions of prose files (not `.txt`: `output.txt` is as likely a runner's log).
const DOC_EXTENSIONS: [&str; 4] = ["md", "markdown", "rst", "adoc"];

/// Words whose presence makes a file read like test output (any case).
const RESULT_WORDS: [&str; 10] = [
    "not ok",
    "fail",
    "error",
    "traceback",
    "panic",
    "1..",
    "exception",
    "segmentation fault",
    "core dumped",
    "killed",
];

/// Whether the file `name`, whose first bytes are `prefix`, is documentation (never results).
/// `whole` says whether `prefix` is the whole file: only a file checked to its end can be.
pub(crate) fn is_documentation(name: Option<&str>, prefix: &[u8], whole: bool) -> bool {
    let Some(name) = name else {
        return false;
    };
    if !whole {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    let (stem, ext) = lower.rsplit_once('.').unwrap_or((lower.as_str(), ""));
    let named = DOC_STEMS.iter().any(|s| stem.starts_with(s)) || DOC_EXTENSIONS.contains(&ext);
    if !named {
        return false;
    }
    let Ok(text) = std::str::from_utf8(prefix) else {
        return false;
    };
    let text = text.to_ascii_lowercase();
    let structured = text.trim_start().starts_with(['{', '[', '<']);
    !structured && !RESULT_WORDS.iter().any(|w| text.contains(w))
}

#[cfg(test)]
mod tests {
    use super::is_documentation;

    #[test]
    fn prose_named_as_documentation_is_documentation() {
        assert!(is_documentation(
            Some("notes.txt"),
            b"these are my notes\n",
            true
        ));
        assert!(is_documentation(
            Some("README"),
            b"# Sealed results\n",
            true
        ));
        assert!(is_documentation(Some("Readme.md"), b"", true));
    }

    #[test]
    fn anything_that_may_be_results_is_not() {
        // Named as results, or structured, or reading like test output, or not text.
        assert!(!is_documentation(Some("results.json"), b"garbage", true));
        assert!(!is_documentation(Some("notes.txt"), b"{\"tests\": [", true));
        assert!(!is_documentation(Some("notes.txt"), b"<testsuite", true));
        assert!(!is_documentation(
            Some("out.txt"),
            b"ok 1\nnot ok 2\n",
            true
        ));
        assert!(!is_documentation(Some("out.txt"), b"--- FAIL: TestX", true));
        assert!(!is_documentation(Some("output.txt"), b"all good\n", true));
        assert!(!is_documentation(
            Some("NOTES.txt"),
            b"Segmentation fault (core dumped)\n",
            true
        ));
        assert!(!is_documentation(Some("notes.txt"), b"\xff\xfe", true));
        assert!(!is_documentation(None, b"notes", true));
    }

    #[test]
    fn a_file_not_read_to_its_end_is_not() {
        // Failure words may lie past the prefix that was checked.
        assert!(!is_documentation(Some("NOTES.md"), b"all passing\n", false));
    }
}
