//! Issue 35, the items of the `mocha` part (see `round2/mod.rs`).
