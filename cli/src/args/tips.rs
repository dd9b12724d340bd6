//! Tips added to clap's usage errors where the mistake is a common one.

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// Adds a tip to `e` when it is `gapscore score FILE`: a results file given without `--sealed`
/// (clap says only "unexpected argument").
pub fn add_tip(mut e: clap::Error) -> clap::Error {
    if e.kind() != ErrorKind::UnknownArgument {
        return e;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return e;
    };
    if arg.starts_with('-') {
        return e;
    }
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if argv
        .iter()
        .find(|a| !a.starts_with('-'))
        .map(String::as_str)
        != Some("score")
    {
        return e;
    }
    let tip = format!(
        "sealed results are given with --sealed (open ones with --open): `gapscore score --sealed {arg}`"
    );
    let mut tips = match e.get(ContextKind::Suggested) {
        Some(ContextValue::StyledStrs(t)) => t.clone(),
        _ => Vec::new(),
    };
    tips.insert(0, tip.into());
    e.insert(ContextKind::Suggested, ContextValue::StyledStrs(tips));
    e
}
