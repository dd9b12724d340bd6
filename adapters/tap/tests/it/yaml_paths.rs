//! The YAML fast path against the general reader: every diagnostics block of the TAP fixtures
//! (corpus real streams, wild files, issue 18 runs, hand-written valid and invalid input) and
//! generated blocks built from the forms the fast path must refuse (quotes, block scalars, flow
//! collections, anchors, tags, comments, continuation lines, duplicate keys, tabs, odd
//! indentation, CR, Unicode whitespace) go through both: `parse` (fast path first) must give
//! exactly what `parse_general` gives, and whatever `parse_flat` accepts must be the general
//! reader's value.

use std::path::Path;

use gapscore_adapter_tap::yaml::{parse, parse_flat, parse_general};

/// Checks one block through both paths; returns whether the fast path took it.
fn same(text: &str, origin: &str) -> bool {
    let general = parse_general(text);
    assert_eq!(parse(text), general, "{origin}: {text:?}");
    match parse_flat(text) {
        Some(v) => {
            assert_eq!(Ok(&v), general.as_ref(), "{origin}: {text:?}");
            true
        }
        None => false,
    }
}

/// The YAML blocks of a TAP stream, cut as the reader cuts them: the lines after a `---` that
/// are blank or indented at least as far as it, up to `...`, without that indentation.
fn blocks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for line in text.lines() {
        let indent = line
            .bytes()
            .position(|b| b != b' ' && b != b'\t')
            .unwrap_or(line.len());
        let c = &line[indent..];
        if let Some((base, buf)) = open.as_mut() {
            if c.trim_end() == "..." {
                out.push(std::mem::take(buf));
                open = None;
                continue;
            }
            if c.is_empty() || indent >= *base {
                buf.push_str(line.get((*base).min(indent)..).unwrap_or(""));
                buf.push('\n');
                continue;
            }
            out.push(std::mem::take(buf));
            open = None;
        }
        if c.trim_end() == "---" {
            open = Some((indent, String::new()));
        }
    }
    if let Some((_, buf)) = open {
        out.push(buf);
    }
    out
}

fn tap_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            tap_files(&p, out);
        } else if p
            .extension()
            .is_some_and(|x| x != "json" && x != "md" && x != "toml")
        {
            out.push(p);
        }
    }
}

#[test]
fn fixture_blocks_read_the_same_by_both_paths() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files = Vec::new();
    tap_files(&root, &mut files);
    files.sort();
    let (mut seen, mut fast) = (0, 0);
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for b in blocks(&text) {
            seen += 1;
            fast += usize::from(same(&b, &f.display().to_string()));
        }
    }
    // The fixtures have both kinds: node's `duration_ms` blocks are flat, most failures' not.
    assert!(seen > 40, "{seen} blocks");
    assert!(
        fast > 10 && fast < seen,
        "{fast} of {seen} blocks on the fast path"
    );
}

/// Key, separator and value forms, flat and not; blocks are drawn from them.
const KEYS: &[&str] = &[
    "message",
    "duration_ms",
    "a.b-c_d",
    "_x",
    "9",
    "key with space",
    "'quoted'",
    "\"dq\"",
    "-dash",
    "a:b",
    "",
    "tab\tkey",
    "ünï",
    "message",
];
const SEPS: &[&str] = &[": ", ":", ":  ", ":\t", " : ", ": \t"];
const VALUES: &[&str] = &[
    "plain value",
    "0.819652",
    "null",
    "~",
    "a: b",
    "http://x:1",
    "x # comment",
    "x#y",
    "#c",
    "'single'",
    "'it''s'",
    "\"double \\t\"",
    "\"open",
    "|",
    "|-",
    ">+",
    "[1, 2]",
    "{a: 1}",
    "&anchor v",
    "*alias",
    "!tag v",
    "- item",
    "-1",
    "? q",
    "%p",
    "@at",
    "`bt`",
    "trailing ",
    "trailing\u{a0}",
    "\u{3000}lead",
    "tab\tinside",
    "cr\r",
    "",
    "ünïcödé ✓",
    "...",
    "---",
];
const PREFIXES: &[&str] = &["", "", "", "", " ", "  ", "\t", "- "];
const EXTRA_LINES: &[&str] = &[
    "",
    "  continued",
    "    deeper",
    "# comment",
    "- item",
    "  - item",
    "\t",
    "  nested: 1",
    "...",
];

#[test]
fn generated_blocks_read_the_same_by_both_paths() {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    let (mut fast, mut total) = (0, 0);
    for _ in 0..60_000 {
        let mut text = String::new();
        for _ in 0..1 + next(5) {
            if next(8) == 0 {
                text.push_str(EXTRA_LINES[next(EXTRA_LINES.len())]);
            } else {
                // Mostly plain lines, so that one odd line in a block is what sends it away.
                let plain = next(3) > 0;
                let (k, s, v, p) = if plain {
                    (KEYS[next(5)], ": ", VALUES[next(5)], "")
                } else {
                    (
                        KEYS[next(KEYS.len())],
                        SEPS[next(SEPS.len())],
                        VALUES[next(VALUES.len())],
                        PREFIXES[next(PREFIXES.len())],
                    )
                };
                text.push_str(p);
                text.push_str(k);
                text.push_str(s);
                text.push_str(v);
            }
            text.push_str(if next(10) == 0 { "\r\n" } else { "\n" });
        }
        if next(10) == 0 {
            text.pop();
        }
        total += 1;
        fast += usize::from(same(&text, "generated"));
    }
    assert!(fast > 5_000 && fast < total - 5_000, "{fast} of {total}");
}

#[test]
fn what_the_fast_path_refuses() {
    for t in [
        "a: 1\na: 2\n",
        "a: 'q'\n",
        "a: |\n  x\n",
        "a: [1]\n",
        "a: &x 1\n",
        "a: !t 1\n",
        "a: 1 # c\n",
        "a: 1\n  b\n",
        " a: 1\n",
        "a:\t1\n",
        "a: 1\r\n",
        "a:\n",
        "\n",
        "",
        "a: 1\n\nb: 2\n",
    ] {
        assert!(parse_flat(t).is_none(), "{t:?}");
        let _ = same(t, "refused");
    }
    assert!(parse_flat("duration_ms: 0.8\nlocation: /x.js:9:1\n").is_some());
}
