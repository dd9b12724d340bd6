//! The golden files: made from the runs, compared with the committed ones, rewritten.

use super::*;

/// An output as stored: whole, or (over `BIG` bytes) its first KiB and its length and hash.
pub(super) fn body(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if text.is_empty() {
        return out;
    }
    if text.len() > BIG {
        let mut cut = SHOWN;
        // Not inside a UTF-8 character.
        if let Err(e) = std::str::from_utf8(&text[..cut])
            && e.error_len().is_none()
        {
            cut = e.valid_up_to();
        }
        out.extend_from_slice(&text[..cut]);
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        let hash = Sha256::digest(text);
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        out.extend_from_slice(
            format!("… ({} bytes in all, sha256 {hex})\n", text.len()).as_bytes(),
        );
    } else {
        out.extend_from_slice(text);
        if !text.ends_with(b"\n") {
            out.extend_from_slice(b"\n\\ no newline at end\n");
        }
    }
    out
}

pub(super) fn render(s: &Section) -> Vec<u8> {
    let mut out = format!("### {}\nexit: {}\n--- stdout\n", s.header, s.exit).into_bytes();
    out.extend(body(&s.stdout));
    out.extend_from_slice(b"--- stderr\n");
    out.extend(body(&s.stderr));
    for (name, content) in &s.files {
        out.extend_from_slice(format!("--- file {name}\n").as_bytes());
        out.extend(body(content));
    }
    out
}

pub(super) const SECTION_START: &[u8] = b"### gapscore ";

/// A golden file's sections by header line (as far as lines starting `### gapscore ` divide
/// it; the whole file is compared byte for byte as well).
pub(super) fn sections_of(text: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut starts: Vec<usize> = Vec::new();
    if text.starts_with(SECTION_START) {
        starts.push(0);
    }
    for (i, w) in text.windows(SECTION_START.len() + 1).enumerate() {
        if w[0] == b'\n' && &w[1..] == SECTION_START {
            starts.push(i + 1);
        }
    }
    let mut out = BTreeMap::new();
    for (k, &s) in starts.iter().enumerate() {
        // A section but the last is followed by the blank line that separates it from the next.
        let end = starts.get(k + 1).map_or(text.len(), |&next| next - 1);
        let chunk = &text[s..end];
        let header_end = chunk
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(chunk.len());
        let header = String::from_utf8_lossy(&chunk[..header_end]).into_owned();
        out.insert(header, chunk.to_vec());
    }
    out
}

/// Builds every golden file: sections sorted by header, a blank line between them.
pub(super) fn golden_files(jobs: &[Job], results: &[Vec<Section>]) -> BTreeMap<String, Vec<u8>> {
    let mut by_file: BTreeMap<String, BTreeMap<String, Vec<u8>>> = BTreeMap::new();
    for (j, sections) in jobs.iter().zip(results) {
        let file = by_file.entry(format!("{}.txt", j.golden)).or_default();
        for s in sections {
            let header = format!("### {}", s.header);
            assert!(
                !s.stdout
                    .windows(SECTION_START.len())
                    .any(|w| w == SECTION_START)
                    && !s
                        .stderr
                        .windows(SECTION_START.len())
                        .any(|w| w == SECTION_START),
                "{header}: its output holds `### gapscore `, which divides golden files"
            );
            let old = file.insert(header.clone(), render(s));
            assert!(old.is_none(), "two runs in {}: {header}", j.golden);
        }
    }
    by_file
        .into_iter()
        .map(|(name, sections)| {
            let mut text = Vec::new();
            for (k, s) in sections.values().enumerate() {
                if k > 0 {
                    text.push(b'\n');
                }
                text.extend_from_slice(s);
            }
            (name, text)
        })
        .collect()
}

/// The committed golden files (`*.txt` under `cli/tests/golden/`), by relative path.
pub(super) fn committed(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    if !dir.is_dir() {
        return out;
    }
    for p in captured(dir) {
        let name = p
            .strip_prefix(dir)
            .unwrap()
            .to_str()
            .unwrap()
            .replace('\\', "/");
        if name.ends_with(".txt") {
            out.insert(name, fs::read(&p).unwrap());
        }
    }
    out
}

pub(super) fn short_diff(old: &[u8], new: &[u8]) -> String {
    let (old, new) = (String::from_utf8_lossy(old), String::from_utf8_lossy(new));
    let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .context_radius(2)
        .header("golden", "now")
        .to_string();
    let lines: Vec<&str> = diff.lines().collect();
    let mut text = lines
        .iter()
        .take(40)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    if lines.len() > 40 {
        text.push_str(&format!("\n  ... ({} more diff lines)", lines.len() - 40));
    }
    text
}

/// Every difference between the committed golden files and this run, described.
pub(super) fn differences(
    old: &BTreeMap<String, Vec<u8>>,
    new: &BTreeMap<String, Vec<u8>>,
) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let mut runs = 0;
    let names: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for name in names {
        match (old.get(name), new.get(name)) {
            (None, Some(n)) => {
                let headers: Vec<String> = sections_of(n).into_keys().collect();
                runs += headers.len();
                problems.push(format!(
                    "cli/tests/golden/{name}: missing, so {} run(s) have no golden output (a new fixture?):\n{}",
                    headers.len(),
                    headers.join("\n")
                ));
            }
            (Some(_), None) => problems.push(format!(
                "cli/tests/golden/{name}: no run writes to it any more (a fixture removed?)"
            )),
            (Some(o), Some(n)) if o != n => {
                let (os, ns) = (sections_of(o), sections_of(n));
                let mut any = false;
                for h in os.keys().chain(ns.keys()).collect::<BTreeSet<_>>() {
                    match (os.get(h), ns.get(h)) {
                        (None, Some(_)) => {
                            problems.push(format!(
                                "{h}\n  new run (a new fixture?) without golden output ({name})"
                            ));
                        }
                        (Some(_), None) => {
                            problems
                                .push(format!("{h}\n  in the golden file, no longer run ({name})"));
                        }
                        (Some(a), Some(b)) if a != b => {
                            problems.push(format!("{h}\n{}", short_diff(a, b)));
                        }
                        _ => continue,
                    }
                    runs += 1;
                    any = true;
                }
                if !any {
                    problems.push(format!(
                        "cli/tests/golden/{name}: same runs, different layout:\n{}",
                        short_diff(o, n)
                    ));
                }
            }
            _ => {}
        }
    }
    (problems, runs)
}

pub(super) fn write_golden(dir: &Path, files: &BTreeMap<String, Vec<u8>>) {
    for (name, _) in committed(dir) {
        if !files.contains_key(&name) {
            fs::remove_file(dir.join(&name)).unwrap();
        }
    }
    for (name, text) in files {
        let p = dir.join(name);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        if fs::read(&p).ok().as_deref() != Some(text.as_slice()) {
            fs::write(&p, text).unwrap();
        }
    }
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() && fs::read_dir(&p).unwrap().next().is_none() {
            fs::remove_dir(&p).unwrap();
        }
    }
}
