//! `gapscore adapters`: list built-in adapters and loaded plugins.

use std::fmt::Write as _;

use anyhow::Result;
use gapscore_engine::ExitCode;

use crate::args::AdaptersArgs;
use crate::{host, io};

/// Prints one line per adapter: name, version, formats, origin.
pub fn run(args: &AdaptersArgs) -> Result<ExitCode> {
    let (registry, failed) = host::registry(&args.host);
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
    io::write_output(args.output.as_deref(), &out)?;
    Ok(if failed > 0 {
        ExitCode::Error
    } else {
        ExitCode::Ok
    })
}
