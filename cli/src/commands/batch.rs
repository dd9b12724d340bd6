//! `gapscore batch`: score many repositories in one go (`gapscore_batch`), and
//! `gapscore batch merge`: combine shard outputs. See docs/batch.md.

use std::io::IsTerminal as _;
use std::path::PathBuf;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;
use gapscore_batch::{
    BatchOptions, BatchRun, NoProgress, Progress, RepoRow, discover, repositories,
};
use gapscore_core::render::numbers::{self, grouped, grouped_usize, rate};
use gapscore_core::{StatusPolicy, Threshold};
use gapscore_engine::ExitCode;

use crate::args::{BatchArgs, BatchCommand, DialectArg, SpecVersionArg};
use crate::{host, io};

/// The output directory: `-o/--output DIR`, or `--out DIR` (the old spelling, with a warning),
/// or `gapscore-batch`.
fn out_dir(output: Option<&PathBuf>, out: Option<&PathBuf>) -> PathBuf {
    if let Some(o) = out {
        io::warn("`batch --out DIR`: use `-o/--output DIR`");
        return o.clone();
    }
    output
        .cloned()
        .unwrap_or_else(|| PathBuf::from("gapscore-batch"))
}

/// Runs `gapscore batch` or `gapscore batch merge`.
pub fn run(args: BatchArgs) -> Result<ExitCode> {
    if let Some(BatchCommand::Merge(m)) = args.command {
        let out = out_dir(m.out.output.as_ref(), m.out.out_old.as_ref());
        let run = gapscore_batch::merge(&m.dirs, &out, m.out.threshold)?;
        if !m.quiet {
            summary(&run, &out, Duration::ZERO);
        }
        return Ok(exit_code(&run, m.out.threshold, m.out.allow_advisory));
    }
    let Some(input) = &args.input else {
        anyhow::bail!("give a ROOT directory or a MANIFEST");
    };
    if args.spec_version == SpecVersionArg::V2 && !matches!(args.dialect, DialectArg::Shadow) {
        anyhow::bail!(
            "spec v2 is written in the Shadow dialect only (shadow_score_spec_version, report.shadow_score): drop --dialect or use --spec-version 1"
        );
    }
    let provenance = match &args.provenance.provenance {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            gapscore_core::Provenance::from_toml(&text)
                .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.trim()))?
        }
        None => args.provenance.provenance(),
    };
    if !provenance.is_empty() {
        if args.spec_version != SpecVersionArg::V2 {
            anyhow::bail!("provenance is a spec v2 field (§5.2): add --spec-version 2");
        }
        // Checked once here, as `score` checks it, rather than once per repository.
        provenance.resolve().map_err(|e| anyhow::anyhow!(e))?;
    }
    let out = out_dir(args.out.output.as_ref(), args.out.out_old.as_ref());
    let repos = if input.is_dir() {
        discover::from_root_except(input, args.allow_outside, Some(&out))?
    } else {
        discover::from_manifest(input, args.allow_outside)?
    };
    if repos.is_empty() {
        io::warn(&format!("`{}`: no repositories found", input.display()));
    }
    let (registry, plugin_failures) = host::registry(&args.host);
    if plugin_failures > 0 {
        anyhow::bail!("a plugin could not be loaded; nothing scored");
    }
    let mut opts = BatchOptions::new(&out);
    opts.jobs = args.host.jobs.map_or(0, usize::from);
    opts.threshold = args.out.threshold;
    opts.allow_advisory = args.out.allow_advisory;
    opts.shard = args.shard;
    opts.resume = args.resume;
    opts.timestamp = Some(humantime::format_rfc3339_seconds(io::report_time()).to_string());
    opts.input_format.clone_from(&args.input_format);
    opts.policy = StatusPolicy::new(args.skipped.into(), args.xfail.into(), args.flaky.into());
    opts.trust_unlocated_skips = args.trust_unlocated_skips;
    opts.dialect = args.dialect.into();
    opts.spec_version = args.spec_version.into();
    opts.provenance = provenance;
    let started = Instant::now();
    let run = if args.quiet {
        gapscore_batch::run_batch(&repos, &registry, &opts, &NoProgress)?
    } else if std::io::stderr().is_terminal() {
        gapscore_batch::run_batch(&repos, &registry, &opts, &Bar::new())?
    } else {
        gapscore_batch::run_batch(&repos, &registry, &opts, &Lines::new())?
    };
    if !args.quiet {
        if let Some(s) = opts.shard {
            io::info(&format!(
                "shard {s}: {} of {} (the others belong to other shards)",
                run.rows.len(),
                repositories((run.rows.len() + run.other_shards) as u64)
            ));
        }
        if run.resumed > 0 {
            io::info(&format!(
                "resumed: {} kept from the earlier run, {} scored now",
                repositories(run.resumed as u64),
                run.rows.len() - run.resumed
            ));
        }
        summary(&run, &out, started.elapsed());
    }
    Ok(exit_code(&run, args.out.threshold, args.out.allow_advisory))
}

/// The batch's exit code ([`BatchRun::exit`]), saying why advisory repositories fail the gate.
fn exit_code(run: &BatchRun, threshold: Option<Threshold>, allow_advisory: bool) -> ExitCode {
    let (code, note) = run.exit(threshold, allow_advisory);
    if let Some(note) = note {
        io::error(&note);
    }
    code
}

fn summary(run: &BatchRun, out: &std::path::Path, took: Duration) {
    let a = &run.aggregate;
    let stat = |x: Option<f64>| x.map_or_else(|| "-".to_owned(), |v| format!("{v:.1}"));
    let mut line = format!(
        "{}: {} scored, {} could not be scored; mean {}, median {}, p90 {}",
        repositories(a.repos),
        grouped(a.scored),
        grouped(a.errors),
        stat(a.mean),
        stat(a.median),
        stat(a.p90)
    );
    if let (Some(t), Some(n)) = (a.threshold, a.over_threshold) {
        line.push_str(&format!("; {} above {t}", grouped(n)));
    }
    if !took.is_zero() {
        let secs = took.as_secs_f64();
        line.push_str(&format!(
            "; {:.2} s ({} repositories/s)",
            secs,
            rate(run.rows.len() as f64 / secs.max(1e-9))
        ));
    }
    io::info(&line);
    for r in run.rows.iter().filter(|r| !r.left_out.is_empty()).take(5) {
        for why in &r.left_out {
            io::warn(&format!("{}: {why}", r.name));
        }
    }
    for r in run.rows.iter().filter(|r| r.error.is_some()).take(5) {
        io::error(&format!(
            "{}: {}",
            r.name,
            r.error.as_deref().unwrap_or_default()
        ));
    }
    if run.errors() > 5 {
        io::error(&format!(
            "... and {} more (see summary.csv)",
            run.errors() - 5
        ));
    }
    io::info(&format!("outputs in `{}`", out.display()));
}

/// An indicatif bar on a terminal.
struct Bar(indicatif::ProgressBar);

impl Bar {
    fn new() -> Self {
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(0),
            indicatif::ProgressDrawTarget::stderr(),
        );
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} repositories  {per_sec}  ETA {eta}",
        ) {
            bar.set_style(style);
        }
        Bar(bar)
    }
}

impl Progress for Bar {
    fn start(&self, total: usize) {
        self.0.set_length(total as u64);
    }
    fn done(&self, _row: &RepoRow) {
        self.0.inc(1);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// Plain periodic lines when standard error is not a terminal (a CI log).
struct Lines {
    started: Instant,
    total: AtomicUsize,
    done: AtomicUsize,
    last: Mutex<Instant>,
}

impl Lines {
    fn new() -> Self {
        let now = Instant::now();
        Lines {
            started: now,
            total: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            last: Mutex::new(now),
        }
    }
}

impl Progress for Lines {
    fn start(&self, total: usize) {
        self.total.store(total, Ordering::Relaxed);
    }
    fn done(&self, _row: &RepoRow) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let Ok(mut last) = self.last.try_lock() else {
            return;
        };
        if last.elapsed() < Duration::from_secs(5) {
            return;
        }
        *last = Instant::now();
        let total = self.total.load(Ordering::Relaxed);
        let secs = self.started.elapsed().as_secs_f64().max(1e-9);
        let rate = done as f64 / secs;
        let eta = if rate > 0.0 {
            (total.saturating_sub(done)) as f64 / rate
        } else {
            0.0
        };
        io::info(&format!(
            "batch: {}/{} repositories ({}/s, ETA {eta:.0} s)",
            grouped_usize(done),
            grouped_usize(total),
            numbers::rate(rate)
        ));
    }
}
