//! Writes a synthetic batch tree: `cargo run -p gapscore-batch --example generate -- DIR N`.

#![allow(clippy::print_stderr)]

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(n)) = (args.get(1), args.get(2).and_then(|n| n.parse().ok())) else {
        eprintln!("usage: generate DIR N");
        return std::process::ExitCode::from(2);
    };
    match gapscore_batch::generate::generate(
        std::path::Path::new(dir),
        &gapscore_batch::generate::GenerateOptions::new(n),
    ) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::from(2)
        }
    }
}
