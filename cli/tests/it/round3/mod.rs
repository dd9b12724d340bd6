//! Issue 36 ("an adapter author's path outside this repository, flat memory for every built-in
//! format"): one test (or more) per item, each failing on dbe9709 where that makes sense. Every
//! gapscore invocation goes through `crate::common::bin()`, so the same tests can be pointed at an
//! older build with `GAPSCORE_TEST_BIN`. Test names start with the item's number (`item05_…`).

mod plugins;
