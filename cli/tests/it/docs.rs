//! The docs cannot drift: every command example in README.md and docs/*.md is run, and its
//! shown output compared.
//!
//! The convention (docs/design.md, "Docs are tested"):
//!
//! - A fenced ```` ```sh ```` block is run line by line: `#` comments are skipped, a line ending
//!   in `\` continues on the next, and every command must start with `gapscore ` or
//!   `cargo run -q -- ` (both run the binary under test). A command must exit 0 unless it ends
//!   with a comment `# exit N`.
//! - It runs in the repository root, or, after `<!-- doc-test: cwd docs/examples -->`, in a
//!   fresh copy of that directory (so commands may write files).
//! - A ```` ```text ```` block right after it (only blank lines between) is the last command's
//!   output: standard output, then standard error. Both are compared after normalising: trailing
//!   blanks, RFC 3339 times (`<TIME>`), the run time of a batch (`<SECS> s (<RATE> …/s)`).
//! - A block that cannot run (it needs a project, a runner, the network, other tools) is marked
//!   `<!-- doc-test: skip REASON -->` right before it, or has the info string `sh no-run`.
//!
//! A failure names the file and line, the command and the difference. `GAPSCORE_UPDATE_DOCS=1`
//! rewrites every shown output in place with what the command printed.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::BIN;

/// One ```` ```sh ```` block and what follows it.
#[derive(Debug)]
struct Example {
    /// 1-based line of the opening fence.
    line: usize,
    /// The block's lines.
    body: Vec<String>,
    skip: Option<String>,
    cwd: Option<String>,
    /// The ```` ```text ```` block after it: the line range of its body (0-based, end
    /// exclusive) and its text.
    shown: Option<(usize, usize, String)>,
    /// The fence's indentation (a block in a list item), taken off every line and put back on
    /// rewritten output.
    indent: String,
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn doc_files() -> Vec<PathBuf> {
    let root = repo_root();
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The end (0-based, exclusive) of the fenced block opening at `start`.
fn fence_end(lines: &[&str], start: usize) -> usize {
    let fence: String = lines[start]
        .trim_start()
        .chars()
        .take_while(|c| *c == '`')
        .collect();
    (start + 1..lines.len())
        .find(|&i| lines[i].trim() == fence)
        .unwrap_or(lines.len())
}

fn examples(text: &str) -> Vec<Example> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim_start();
        if !l.starts_with("```") {
            i += 1;
            continue;
        }
        let indent = lines[i][..lines[i].len() - l.len()].to_owned();
        let unindent = |s: &str| {
            s.strip_prefix(indent.as_str())
                .unwrap_or(s.trim_start())
                .to_owned()
        };
        let end = fence_end(&lines, i);
        let info = l.trim_start_matches('`').trim();
        if info == "sh" || info.starts_with("sh ") {
            let mut skip = info
                .strip_prefix("sh")
                .map(str::trim)
                .filter(|r| r.starts_with("no-run"))
                .map(str::to_owned);
            let mut cwd = None;
            // Directives: HTML comments in the lines right above (blank lines allowed).
            let mut j = i;
            while j > 0
                && (lines[j - 1].trim().is_empty() || lines[j - 1].trim_start().starts_with("<!--"))
            {
                j -= 1;
                let d = lines[j].trim();
                if let Some(rest) = d
                    .strip_prefix("<!-- doc-test:")
                    .and_then(|r| r.strip_suffix("-->"))
                {
                    let rest = rest.trim();
                    if let Some(r) = rest.strip_prefix("skip") {
                        skip = Some(r.trim().to_owned());
                    } else if let Some(d) = rest.strip_prefix("cwd") {
                        cwd = Some(d.trim().to_owned());
                    }
                }
            }
            let mut k = end + 1;
            while k < lines.len() && lines[k].trim().is_empty() {
                k += 1;
            }
            let shown = (k < lines.len() && lines[k].trim() == "```text").then(|| {
                let e = fence_end(&lines, k);
                let text: Vec<String> = lines[k + 1..e].iter().map(|s| unindent(s)).collect();
                (k + 1, e, text.join("\n"))
            });
            out.push(Example {
                line: i + 1,
                body: lines[i + 1..end].iter().map(|s| unindent(s)).collect(),
                skip,
                cwd,
                shown,
                indent,
            });
        }
        i = end + 1;
    }
    out
}

/// The commands of a block: `(line offset in the block, words, expected exit code)`, or why the
/// block cannot be run.
fn commands(body: &[String]) -> Result<Vec<(usize, Vec<String>, i32)>, String> {
    let mut out = Vec::new();
    let mut pending = String::new();
    let mut first = 0;
    for (n, line) in body.iter().enumerate() {
        let t = line.trim();
        if pending.is_empty() {
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            first = n;
        }
        if let Some(head) = t.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(t);
        let full = std::mem::take(&mut pending);
        let (cmd, comment) = match full.split_once(" #") {
            Some((c, m)) => (c.trim().to_owned(), m.trim().to_owned()),
            None => (full.trim().to_owned(), String::new()),
        };
        let exit = comment
            .strip_prefix("exit ")
            .and_then(|c| c.split_whitespace().next())
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let rest = cmd
            .strip_prefix("gapscore ")
            .or_else(|| cmd.strip_prefix("cargo run -q -- "))
            .ok_or_else(|| {
                format!("`{cmd}` is not a gapscore command: mark the block `<!-- doc-test: skip REASON -->`")
            })?;
        let words = shell_words(rest)?;
        out.push((first, words, exit));
    }
    Ok(out)
}

/// Splits a command line into words: blanks separate, single and double quotes group. Pipes,
/// redirections and substitutions are refused (the block must be marked).
fn shell_words(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut w = String::new();
    let mut any = false;
    let mut quote = None;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => w.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !w.is_empty() {
                    words.push(std::mem::take(&mut w));
                }
                any = false;
            }
            (None, '|' | '>' | '<' | '$' | ';' | '&' | '`') => {
                return Err(format!(
                    "`{s}` uses the shell (`{c}`): mark the block `<!-- doc-test: skip REASON -->`"
                ));
            }
            (None, c) => w.push(c),
        }
    }
    if any || !w.is_empty() {
        words.push(w);
    }
    Ok(words)
}

/// Output as compared: trailing blanks gone, times and rates replaced.
fn normalise(s: &str) -> String {
    let time =
        regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)").unwrap();
    let rate = regex::Regex::new(r"\d+(\.\d+)? s \(\d+ (\w+)/s\)").unwrap();
    let s = time.replace_all(s, "<TIME>");
    let s = rate.replace_all(&s, "<SECS> s (<RATE> $2/s)");
    let lines: Vec<&str> = s.lines().map(str::trim_end).collect();
    lines.join("\n").trim_end().to_owned()
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// A line-by-line difference, `-` shown, `+` printed.
fn diff(shown: &str, got: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (shown.lines().collect(), got.lines().collect());
    let mut out = String::new();
    for i in 0..a.len().max(b.len()) {
        match (a.get(i), b.get(i)) {
            (Some(x), Some(y)) if x == y => {
                let _ = writeln!(out, "  {x}");
            }
            (x, y) => {
                if let Some(x) = x {
                    let _ = writeln!(out, "- {x}");
                }
                if let Some(y) = y {
                    let _ = writeln!(out, "+ {y}");
                }
            }
        }
    }
    out
}

#[test]
fn every_command_example_in_the_docs_runs_and_prints_what_is_shown() {
    let update = std::env::var_os("GAPSCORE_UPDATE_DOCS").is_some_and(|v| v == "1");
    let root = repo_root();
    let mut failures = Vec::new();
    let mut ran = 0;
    let (mut blocks, mut compared) = (0, 0);
    let mut skipped: std::collections::BTreeMap<String, usize> = Default::default();
    for file in doc_files() {
        let rel = file
            .strip_prefix(&root)
            .unwrap_or(&file)
            .display()
            .to_string();
        let text = fs::read_to_string(&file).unwrap();
        let mut rewrites: Vec<(usize, usize, String)> = Vec::new();
        for ex in examples(&text) {
            if let Some(reason) = &ex.skip {
                assert!(
                    !reason.is_empty(),
                    "{rel}:{}: a skipped block must say why",
                    ex.line
                );
                *skipped.entry(reason.clone()).or_default() += 1;
                continue;
            }
            let cmds = match commands(&ex.body) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{rel}:{}: {e}", ex.line));
                    continue;
                }
            };
            blocks += 1;
            let tmp = tempfile::tempdir().unwrap();
            let cwd = match &ex.cwd {
                Some(d) => {
                    copy_dir(&root.join(d), tmp.path());
                    tmp.path().to_path_buf()
                }
                None => root.clone(),
            };
            let mut last = String::new();
            for (offset, words, exit) in &cmds {
                ran += 1;
                let at = format!("{rel}:{}", ex.line + 1 + offset);
                let o = Command::new(BIN)
                    .args(words)
                    .current_dir(&cwd)
                    .env("SOURCE_DATE_EPOCH", "1700000000")
                    .env("NO_COLOR", "1")
                    .output()
                    .unwrap();
                last = format!(
                    "{}{}",
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                );
                if o.status.code() != Some(*exit) {
                    failures.push(format!(
                        "{at}: `gapscore {}` exited {:?}, the docs expect {exit} (say `# exit N` after the command if it should):\n{last}",
                        words.join(" "),
                        o.status.code()
                    ));
                }
            }
            if let (Some((from, to, shown)), Some((offset, words, _))) = (&ex.shown, cmds.last()) {
                compared += 1;
                let (want, got) = (normalise(shown), normalise(&last));
                if want != got {
                    if update {
                        let new: Vec<String> = last
                            .trim_end()
                            .lines()
                            .map(|l| {
                                if l.is_empty() {
                                    String::new()
                                } else {
                                    format!("{}{l}", ex.indent)
                                }
                            })
                            .collect();
                        rewrites.push((*from, *to, new.join("\n")));
                    } else {
                        failures.push(format!(
                            "{rel}:{} (output shown at {rel}:{}): `gapscore {}` printed something else (- shown, + printed; GAPSCORE_UPDATE_DOCS=1 rewrites it):\n{}",
                            ex.line + 1 + offset,
                            from + 1,
                            words.join(" "),
                            diff(&want, &got)
                        ));
                    }
                }
            }
        }
        if !rewrites.is_empty() {
            let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
            for (from, to, new) in rewrites.into_iter().rev() {
                lines.splice(from..to, new.lines().map(str::to_owned));
            }
            let mut new = lines.join("\n");
            new.push('\n');
            fs::write(&file, new).unwrap();
        }
    }
    eprintln!("docs: {blocks} blocks run ({ran} commands), {compared} outputs compared");
    for (reason, n) in &skipped {
        eprintln!("docs: {n} skipped: {reason}");
    }
    assert!(ran > 0, "no command examples found");
    assert!(
        failures.is_empty(),
        "{} doc example(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// docs/score.md shows the Markdown coverage section of the 02-minor-gaps example (a ```markdown
/// block, not a command): it must be what `score --format markdown` prints for that example.
#[test]
fn the_coverage_section_shown_in_score_md_is_what_gapscore_prints() {
    let root = repo_root();
    let doc = fs::read_to_string(root.join("docs/score.md")).unwrap();
    let intro = "the coverage section of the 02-minor-gaps example reads:";
    let at = doc
        .find(intro)
        .expect("the coverage example is in docs/score.md");
    let rest = &doc[at..];
    let start = rest.find("```markdown\n").unwrap() + "```markdown\n".len();
    let shown = &rest[start..start + rest[start..].find("\n```").unwrap()];
    let ex = "conformance-tests/upstream/examples/02-minor-gaps";
    let o = Command::new(BIN)
        .args([
            "score",
            "--sealed",
            &format!("{ex}/sealed-results.json"),
            "--open",
            &format!("{ex}/open-results.json"),
            "--format",
            "markdown",
        ])
        .current_dir(&root)
        .output()
        .unwrap();
    let md = String::from_utf8(o.stdout).unwrap();
    let from = md
        .find("## Coverage by category")
        .expect("a coverage section");
    let section = &md[from..];
    let end = section.find("Coverage delta").unwrap();
    let section = &section[..end + section[end..].find('\n').unwrap()];
    assert_eq!(
        shown.trim_end(),
        section.trim_end(),
        "docs/score.md's coverage example"
    );
}
