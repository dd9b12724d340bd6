//! `gapscore schema`: print a JSON Schema.

use anyhow::Result;
use gapscore_engine::ExitCode;
use gapscore_schema::SchemaId;

use crate::args::{SchemaArg, SchemaArgs};
use crate::io;

/// Prints the chosen schema as shipped (the committed files, which a test keeps equal to what
/// the types generate).
pub fn run(args: &SchemaArgs) -> Result<ExitCode> {
    let id = match args.which {
        // Kept by the checker's crate (the schema crate cannot depend on the checker's types).
        SchemaArg::CheckOutput => {
            io::write_output(args.output.as_deref(), gapscore_check::OUTPUT_SCHEMA)?;
            return Ok(ExitCode::Ok);
        }
        SchemaArg::Report => SchemaId::Report,
        SchemaArg::Results => SchemaId::Results,
        SchemaArg::SealRecord => SchemaId::SealRecord,
        SchemaArg::ShadowV1 => SchemaId::ShadowV1,
        SchemaArg::ShadowV2 => SchemaId::ShadowV2,
        SchemaArg::Gap => SchemaId::GapPreRename,
    };
    io::write_output(args.output.as_deref(), id.text())?;
    Ok(ExitCode::Ok)
}
