//! `gapscore completions` and `gapscore man`: a shell completion script and the man pages,
//! generated from the same argument definitions as the help (clap_complete, clap_mangen).

use anyhow::{Context, Result};
use clap::CommandFactory;
use clap_complete::Shell as Target;
use gapscore_engine::ExitCode;

use crate::args::{Cli, CompletionsArgs, ManArgs, Shell};
use crate::io;

/// Prints the completion script for the shell.
pub fn run(args: &CompletionsArgs) -> Result<ExitCode> {
    let target = match args.shell {
        Shell::Bash => Target::Bash,
        Shell::Zsh => Target::Zsh,
        Shell::Fish => Target::Fish,
        Shell::Powershell => Target::PowerShell,
    };
    let mut out = Vec::new();
    clap_complete::generate(target, &mut Cli::command(), "gapscore", &mut out);
    io::write_output(None, &String::from_utf8_lossy(&out))?;
    Ok(ExitCode::Ok)
}

/// Prints `gapscore.1`, or writes it and one page per command into `--dir`.
pub fn man(args: &ManArgs) -> Result<ExitCode> {
    let cmd = Cli::command();
    match &args.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create `{}`", dir.display()))?;
            clap_mangen::generate_to(cmd, dir)
                .with_context(|| format!("cannot write the man pages into `{}`", dir.display()))?;
        }
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut out)?;
            io::write_output(None, &String::from_utf8_lossy(&out))?;
        }
    }
    Ok(ExitCode::Ok)
}
