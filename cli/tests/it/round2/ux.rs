//! Issue 35, the items of the `ux` part (see `round2/mod.rs`).
