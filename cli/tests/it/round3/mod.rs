//! Issue 36 ("an adapter author's path outside this repository, and flat memory for every
//! built-in format"): one module per part, each test named after its item (`itemNN_…`). Every
//! gapscore invocation goes through `crate::common::bin()`, so the tests can be pointed at an
//! older build with `GAPSCORE_TEST_BIN` to show which fail there.

mod stream;
