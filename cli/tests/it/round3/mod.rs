//! Issue 36 ("an adapter author's path that works outside this repository, flat memory for every
//! built-in format"): one test (or more) per item, named `itemNN_…`, each failing on dbe9709 where
//! that makes sense. Every gapscore invocation goes through `crate::common::bin()`, so they can be
//! pointed at an older build with `GAPSCORE_TEST_BIN`.

mod author;
mod plugins;
