#![allow(clippy::unwrap_used, clippy::print_stdout)]
//! Prints the canonical run of a TAP file as JSON (a debugging aid).
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let a = gapscore_adapter_tap::Tap::new();
    match gapscore_adapter_sdk::parse_to_run(&a, &bytes, &Default::default()) {
        Ok(run) => println!("{}", serde_json::to_string_pretty(&run).unwrap()),
        Err(e) => println!("error: {e}"),
    }
}
