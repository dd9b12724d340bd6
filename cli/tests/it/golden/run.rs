//! Running the jobs, with their output redacted (temporary and workspace paths).

use super::*;

/// What one run did, redacted.
#[derive(Debug, Clone)]
pub(super) struct Section {
    pub(super) header: String,
    pub(super) exit: String,
    pub(super) stdout: Vec<u8>,
    pub(super) stderr: Vec<u8>,
    pub(super) files: Vec<(String, Vec<u8>)>,
}

/// Replaces every occurrence of `from` in `text` with `to`.
pub(super) fn replace_bytes(text: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() || text.len() < from.len() {
        return text.to_vec();
    }
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

pub(super) struct Redactions(Vec<(Vec<u8>, Vec<u8>)>);

impl Redactions {
    /// `paths` (each also canonicalised), longest first.
    fn new(paths: &[(PathBuf, &str)]) -> Redactions {
        let mut list: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        for (p, name) in paths {
            let mut forms = vec![p.clone()];
            if let Ok(c) = p.canonicalize() {
                forms.push(c);
            }
            for f in forms {
                let f = f.to_str().unwrap().as_bytes().to_vec();
                if !list.iter().any(|(x, _)| *x == f) {
                    list.push((f, name.as_bytes().to_vec()));
                }
            }
        }
        list.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
        Redactions(list)
    }

    fn apply(&self, text: &[u8]) -> Vec<u8> {
        let mut t = text.to_vec();
        for (from, to) in &self.0 {
            t = replace_bytes(&t, from, to);
        }
        t
    }

    fn apply_str(&self, text: &str) -> String {
        String::from_utf8(self.apply(text.as_bytes())).unwrap()
    }
}

/// An argument as the header shows it: quoted when it holds anything but plain characters.
pub(super) fn shown_arg(a: &str) -> String {
    let plain = !a.is_empty()
        && a.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./:=@%+,-$".contains(&b));
    if plain {
        a.to_owned()
    } else {
        format!("'{}'", a.replace('\'', r"'\''"))
    }
}

pub(super) fn exit_text(s: ExitStatus) -> String {
    if let Some(c) = s.code() {
        return c.to_string();
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return format!("signal {sig}");
        }
    }
    "unknown".to_owned()
}

/// Every file under `p` (or `p` itself), by path, sorted.
pub(super) fn captured(p: &Path) -> Vec<PathBuf> {
    if p.is_dir() {
        let mut out = Vec::new();
        let mut entries: Vec<PathBuf> = fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for e in entries {
            out.extend(captured(&e));
        }
        out
    } else {
        vec![p.to_owned()]
    }
}

/// Runs one step from the workspace root; `logs` is this worker's scratch directory.
pub(super) fn run_step(root: &Path, step: &Step, logs: &Path, base: &[(PathBuf, &str)]) -> Section {
    let mut names = step.redact.clone();
    names.extend(base.iter().cloned());
    let redact = Redactions::new(&names);
    let out_path = logs.join("stdout");
    let err_path = logs.join("stderr");
    let mut child = Command::new(BIN)
        .args(&step.argv)
        .current_dir(step.cwd.as_deref().unwrap_or(root))
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env("NO_COLOR", "1")
        .env_remove("GAPSCORE_PLUGIN_PATH")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .env_remove("COLUMNS")
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out_path).unwrap())
        .stderr(fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut pause = Duration::from_micros(200);
    let exit = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break exit_text(s);
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break format!("killed: no exit in {} s", TIME_LIMIT.as_secs());
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
    };
    let mut header = std::iter::once("gapscore".to_owned())
        .chain(step.argv.iter().map(|a| shown_arg(&redact.apply_str(a))))
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(cwd) = &step.cwd {
        header.push_str(&format!(
            "  (run in {})",
            redact.apply_str(cwd.to_str().unwrap())
        ));
    }
    let mut files = Vec::new();
    for c in &step.capture {
        for f in captured(c) {
            let name = redact.apply_str(f.to_str().unwrap());
            let body = fs::read(&f).unwrap_or_else(|e| format!("(unreadable: {e})").into_bytes());
            files.push((name, redact.apply(&body)));
        }
        if !c.exists() {
            files.push((
                redact.apply_str(c.to_str().unwrap()),
                b"(not written)\n".to_vec(),
            ));
        }
    }
    Section {
        header,
        exit,
        stdout: redact.apply(&fs::read(&out_path).unwrap()),
        stderr: redact.apply(&fs::read(&err_path).unwrap()),
        files,
    }
}

/// Runs every job on `workers` threads; the sections of job `i` at index `i`.
pub(super) fn run_all(root: &Path, tmp: &Path, jobs: &[Job], workers: usize) -> Vec<Vec<Section>> {
    let base = [
        (tmp.to_owned(), "$TMP"),
        (root.to_owned(), "$ROOT"),
        (PathBuf::from(BIN), "$BIN"),
    ];
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by(|&a, &b| jobs[b].weight.cmp(&jobs[a].weight).then(a.cmp(&b)));
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<Vec<Section>>> = vec![None; jobs.len()];
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let (order, next, base) = (&order, &next, &base);
                let logs = tmp.join("work").join(w.to_string());
                fs::create_dir_all(&logs).unwrap();
                s.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&i) = order.get(k) else {
                            break;
                        };
                        let sections = jobs[i]
                            .steps
                            .iter()
                            .map(|step| run_step(root, step, &logs, base))
                            .collect::<Vec<_>>();
                        done.push((i, sections));
                    }
                    done
                })
            })
            .collect();
        for h in handles {
            for (i, sections) in h.join().unwrap() {
                results[i] = Some(sections);
            }
        }
    });
    results.into_iter().map(Option::unwrap).collect()
}
