//! Nothing in the core, the engine or batch decides on a message's wording: what a warning,
//! problem or advisory reason is, its code says (`gapscore_model::codes`). This test reads the
//! sources of the three crates (tests left out) and fails on a string test of message text: a
//! `contains`, `starts_with`, `split`, `find`, ... whose literal holds `": "` or `"; "` (the
//! seams of composed messages), or any string test on a value named message, reason, detail,
//! warning or msg. The few display-only uses are listed in [`ALLOWED`], each must still exist.

use std::path::{Path, PathBuf};

/// String tests that classify text.
const METHODS: [&str; 12] = [
    "contains",
    "starts_with",
    "ends_with",
    "split",
    "split_once",
    "rsplit",
    "rsplit_once",
    "find",
    "rfind",
    "strip_prefix",
    "strip_suffix",
    "matches",
];

/// Names of values that hold message text.
const TEXT_NAMES: [&str; 5] = ["message", "reason", "detail", "warning", "msg"];

/// Lines allowed to look at message text, with why: (file, the line's code, trimmed).
const ALLOWED: [(&str, &str); 3] = [
    // `place_of` and `kind_of`: the place and kind shown beside a group of warnings, for
    // reading only; the group is decided by the code.
    (
        "core/src/warnings.rs",
        r#"let start = if message.starts_with("open: ") { 6 } else { 0 };"#,
    ),
    ("core/src/warnings.rs", r#"let end = rest.find(": ")?;"#),
    // `cut_place`: whether a cut file's message already names a byte offset, so that the file's
    // size is not added beside it; the problem itself is typed (`truncated`).
    (
        "engine/src/suite.rs",
        r#"let at = if detail.contains("byte") {"#,
    ),
];

/// The text tests in one source, as (line number, line) pairs, tests left out.
fn findings(source: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in source.lines().enumerate() {
        let code = line.trim();
        if code.starts_with("#[cfg(test)]") {
            break;
        }
        if code.starts_with("//") {
            continue;
        }
        if classifies(code) {
            out.push((i + 1, code.to_owned()));
        }
    }
    out
}

/// Whether a line tests text: a seam literal, or a string test on a message-named value.
fn classifies(code: &str) -> bool {
    METHODS.iter().any(|m| {
        let call = format!(".{m}(\"");
        code.match_indices(&call).any(|(at, _)| {
            let literal = &code[at + call.len()..];
            let literal = literal.split('"').next().unwrap_or("");
            let seam = literal.contains(": ") || literal.contains("; ");
            let before = &code[..at];
            let receiver = before
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '('))
                .next()
                .unwrap_or("");
            let text_value = TEXT_NAMES.iter().any(|n| receiver.contains(n));
            seam || text_value
        })
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "tests") {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs")
            && p.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(p);
        }
    }
}

#[test]
fn core_engine_and_batch_never_classify_message_text() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in ["core/src", "batch/src", "engine/src"] {
        rust_files(&root.join(krate), &mut files);
    }
    files.sort();
    assert!(
        files.len() > 20,
        "sources not found under {}",
        root.display()
    );
    let mut bad = Vec::new();
    let mut allowed_seen = [false; ALLOWED.len()];
    for f in &files {
        let rel = f
            .strip_prefix(&root)
            .unwrap_or(f)
            .to_string_lossy()
            .replace('\\', "/");
        let source = std::fs::read_to_string(f).unwrap_or_default();
        for (line, code) in findings(&source) {
            match ALLOWED
                .iter()
                .position(|(af, al)| *af == rel && *al == code)
            {
                Some(i) => allowed_seen[i] = true,
                None => bad.push(format!("{rel}:{line}: {code}")),
            }
        }
    }
    assert!(
        bad.is_empty(),
        "message text classified (decide on the code instead):\n{}",
        bad.join("\n")
    );
    for (i, seen) in allowed_seen.iter().enumerate() {
        assert!(seen, "allowed line no longer found: {:?}", ALLOWED[i]);
    }
}

#[test]
fn the_scan_finds_what_batch_used_to_do() {
    // What batch/src/repo.rs did before codes, and forms like it.
    let old = [
        r#"Diagnostic::Warning(m) if m.contains(": skipped: ") => Some(m.clone()),"#,
        r#".map(|r| r.split("; ").map(str::to_owned).collect())"#,
        r#"if w.message.starts_with("duplicate") {"#,
        r#"let kind = p.detail.split_once("x").map(|s| s.0);"#,
    ];
    for line in old {
        assert!(classifies(line), "{line}");
    }
    let fine = [
        r#"if s.contains([',', '"', '\n', '\r']) {"#,
        r#"let (k, n) = s.split_once('/').ok_or_else(bad)?;"#,
        r#"if message.contains('\n') {"#,
        r#"name.contains("::")"#,
    ];
    for line in fine {
        assert!(!classifies(line), "{line}");
    }
    assert_eq!(
        findings("fn f() { m.contains(\": x\") }\n#[cfg(test)]\nmod t { m.contains(\": x\") }")
            .len(),
        1
    );
}

#[test]
fn built_in_readers_warn_with_a_code() {
    // Every warning a built-in reader raises goes through `coded_warning`, so that none reaches
    // a report as the generic `W001`.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters");
    let mut files = Vec::new();
    for reader in [
        "ctrf", "gotest", "jest", "junit", "libtest", "mocha", "pytest", "simple", "tap",
    ] {
        rust_files(&root.join(reader).join("src"), &mut files);
    }
    assert!(
        files.len() > 20,
        "sources not found under {}",
        root.display()
    );
    let mut bad = Vec::new();
    for f in &files {
        let source = std::fs::read_to_string(f).unwrap_or_default();
        for (i, line) in source.lines().enumerate() {
            if line.trim_start().starts_with("#[cfg(test)]") {
                break;
            }
            if line.contains(".warning(") {
                bad.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "a reader warns without a code (use coded_warning):\n{}",
        bad.join("\n")
    );
}
