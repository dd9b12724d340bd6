//! Issue 35, the items of the `ids` part (see `round2/mod.rs`).
