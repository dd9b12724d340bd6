//! JSON helpers shared by the JSON readers.
//!
//! - The duplicate-key rule, for a text in memory: [`find_duplicate_key`] and
//!   [`check_unique_keys`]. A key given twice in one object
//!   (`{"status":"failed","status":"passed"}`) is contradictory evidence: serde_json keeps one
//!   of the two (the last, or an error only for the fields a typed reader knows), another tool
//!   may keep the other. gapscore reads neither: every JSON reader refuses the document at the
//!   second key's place, in any object at any depth, keys compared by their decoded text (`"a"`
//!   and `"\u0061"` are the same key). The scan is one pass over the bytes and decides nothing
//!   else: on anything that is not JSON it stops and answers "no duplicate", so the reader's
//!   own parser reports the syntax error.
//! - [`stream`]: one JSON document read from a [`std::io::BufRead`] in bounded memory: the
//!   elements of an array handed over one at a time (raw text, file place, complete or cut),
//!   with the same duplicate-key rule checked as it reads. [`stream::for_each_element`] is the
//!   common case.
//!
//! Reading with serde_json from a stream: `serde_json::from_reader` reads a byte at a time
//! through the reader, a virtual call per byte on a `&mut dyn BufRead` (6.5 s against 2.75 s
//! on a large file). Wrap the reader in a [`std::io::BufReader`] first, or better, use
//! [`stream`] and parse each element with `serde_json::from_str`.

mod keys;
mod place;
mod scan;
pub mod stream;
mod tail;

pub use keys::{DuplicateKey, check_unique_keys, find_duplicate_key};
