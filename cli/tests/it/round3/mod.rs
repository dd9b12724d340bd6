//! Issue 36 ("an adapter author's path that works outside this repository"): one test (or more)
//! per item, named `itemNN_…`. Every gapscore invocation goes through `crate::common::bin()`, so
//! they can be pointed at an older build with `GAPSCORE_TEST_BIN`.

mod author;
