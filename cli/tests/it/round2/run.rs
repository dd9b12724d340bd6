//! Issue 35, the items of the `run` part (see `round2/mod.rs`).
