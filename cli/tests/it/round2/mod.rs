//! Issue 35 ("everyday use, round 2"): one test (or more) per item, each failing on fc04303 and
//! passing after. Every gapscore invocation goes through `crate::common::bin()`, so the same tests
//! can be pointed at an older build with `GAPSCORE_TEST_BIN` to show they fail there. Test names
//! start with the item's number (`item01_…`).

mod ids;
mod mocha;
mod run;
mod ux;
