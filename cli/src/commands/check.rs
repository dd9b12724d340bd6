//! `gapscore check`: judge Gap Reports against spec §5.2 and conformance levels 1–3. The logic
//! lives in `gapscore_conformance::checker`; this reads the evidence, checks each file and
//! prints.

use anyhow::Result;
use gapscore_conformance::checker::{CheckOutput, Evidence, check_path, render_text};

use crate::args::{CheckArgs, CheckFormat};
use crate::io;

/// Checks every report; the exit code says whether the requested level holds.
pub fn run(args: &CheckArgs) -> Result<u8> {
    // Evidence that cannot be read is a usage error: without it the check would say less than
    // was asked for.
    let evidence = Evidence::load(args.sealed_dir.as_deref(), args.seal.as_deref())?;
    let files = args
        .reports
        .iter()
        .map(|p| check_path(p, &evidence, args.level))
        .collect();
    let out = CheckOutput::new(
        args.level,
        args.sealed_dir.is_some(),
        args.seal.is_some(),
        files,
    );
    for f in out.files.iter().filter(|f| f.unreadable()) {
        if let gapscore_conformance::checker::Document::Unreadable { error } = &f.document {
            io::error(error);
        }
    }
    let text = match args.format {
        CheckFormat::Text => render_text(&out),
        CheckFormat::Json => {
            let mut t = serde_json::to_string_pretty(&out)?;
            t.push('\n');
            t
        }
    };
    io::write_output(None, &text)?;
    Ok(out.exit_code)
}
