//! `gapscore adapters`: list built-in adapters and loaded plugins, as a table or as JSON; with
//! `--explain FILE…`, each adapter's detection of each file and the choice ([`explain`]).

mod explain;

use std::fmt::Write as _;

use anyhow::Result;
use gapscore_adapters::Origin;
use gapscore_engine::ExitCode;
use serde::Serialize;

use crate::args::{AdaptersArgs, AdaptersFormat};
use crate::{host, io};

/// The version of the JSON listing's shape; a field is only ever added within one version.
const LISTING_VERSION: u32 = 1;

/// `adapters --format json`: the listing.
#[derive(Serialize)]
struct Listing<'a> {
    version: u32,
    adapters: Vec<Entry<'a>>,
    /// With `--explain FILE…`: each file's detections and the choice (added in version 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<Vec<explain::ExplainedFile<'a>>>,
}

/// One adapter in the JSON listing.
#[derive(Serialize)]
struct Entry<'a> {
    name: &'a str,
    version: &'a str,
    formats: &'a [String],
    /// `built-in`, `plugin` or `plugin-exec`.
    origin: &'static str,
    /// The plugin file, or the executable adapter's command line; `null` for a built-in.
    path: Option<String>,
}

/// Prints one line per adapter (name, version, formats, origin), or the JSON listing.
pub fn run(args: &AdaptersArgs) -> Result<ExitCode> {
    let (registry, mut failed) = host::registry(&args.host);
    let out = if args.explain.is_empty() {
        match args.format {
            AdaptersFormat::Text => table(&registry),
            AdaptersFormat::Json => json(&registry, None)?,
        }
    } else {
        // Expanded as for reading, so a directory's files are judged as found in one.
        let (inputs, errors) = gapscore_adapters::expand_inputs(&args.explain);
        for e in &errors {
            io::error(&e.to_string());
        }
        let files = gapscore_adapters::explain(&registry, &inputs);
        failed += errors.len() + files.iter().filter(|f| f.is_err()).count();
        match args.format {
            AdaptersFormat::Text => explain::text(&registry, &files),
            AdaptersFormat::Json => json(&registry, Some(&files))?,
        }
    };
    io::write_output(args.output.as_deref(), &out)?;
    Ok(if failed > 0 {
        ExitCode::Error
    } else {
        ExitCode::Ok
    })
}

/// The origin as the JSON listing names it, and its path or command line.
fn origin(o: &Origin) -> (&'static str, Option<String>) {
    match o {
        Origin::BuiltIn => ("built-in", None),
        Origin::Plugin(p) => ("plugin", Some(p.display().to_string())),
        Origin::Exec(c) => ("plugin-exec", Some(c.clone())),
    }
}

fn json(
    registry: &gapscore_adapters::Registry,
    files: Option<
        &[Result<gapscore_adapters::FileExplanation<'_>, gapscore_adapters::IngestError>],
    >,
) -> Result<String> {
    let adapters = registry
        .entries()
        .iter()
        .map(|e| {
            let info = e.adapter.info();
            let (origin, path) = origin(&e.origin);
            Entry {
                name: &info.name,
                version: &info.version,
                formats: &info.formats,
                origin,
                path,
            }
        })
        .collect();
    let listing = Listing {
        version: LISTING_VERSION,
        adapters,
        // A file that could not be read was reported on stderr.
        files: files.map(|f| f.iter().flatten().map(explain::json_file).collect()),
    };
    let mut out = serde_json::to_string_pretty(&listing)?;
    out.push('\n');
    Ok(out)
}

fn table(registry: &gapscore_adapters::Registry) -> String {
    let rows: Vec<[String; 4]> = registry
        .entries()
        .iter()
        .map(|e| {
            let info = e.adapter.info();
            [
                info.name.clone(),
                info.version.clone(),
                info.formats.join(","),
                e.origin.to_string(),
            ]
        })
        .collect();
    let header = ["NAME", "VERSION", "FORMATS", "ORIGIN"].map(str::to_owned);
    let mut widths = [0usize; 4];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let line = format!(
            "{:w0$}  {:w1$}  {:w2$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}
