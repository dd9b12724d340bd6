//! What Mocha's JSON reporter never writes, found anywhere in the document: a key outside its
//! fixed set (at the top, in `stats`, in a test entry), and a Mocha document nested inside a
//! test entry (`err`'s members are the thrown error's own, so any key may be there, but not a
//! whole document). A forged document printed before Mocha's own on a shared stream can make
//! Mocha's (with its failures) the value of such a key, where no reader looks; either is
//! foreign content (P024).

use std::collections::BTreeSet;
use std::fmt;

use gapscore_adapter_sdk::{Problem, ProblemKind, json_has_key};
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};

/// The `stats` members Mocha 12 writes (`lib/stats-collector.js`): the counts the reader
/// reads, and `suites`, `start`, `end`, `duration`, which it does not.
pub(crate) const STATS_UNREAD: [&str; 4] = ["suites", "start", "end", "duration"];

/// Keys of a test entry beyond the ones the reader reads: Mocha's reporter writes `title`,
/// `fullTitle`, `file`, `duration`, `currentRetry`, `speed` and `err` (`lib/reporters/json.js`,
/// `clean`), so anything here but `speed` is someone else's.
#[derive(Default)]
pub(crate) struct OtherKeys(pub(crate) Vec<String>);

impl<'de> Deserialize<'de> for OtherKeys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OtherKeys;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a test object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OtherKeys, A::Error> {
                let mut keys = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    if k != "speed" {
                        keys.push(k);
                    }
                }
                Ok(OtherKeys(keys))
            }
        }
        d.deserialize_map(V)
    }
}

/// True when a test entry's text holds the shape of a Mocha document: an object key `stats`
/// with `tests`, `passes` or `failures` (no entry Mocha writes has any of them as a key).
pub(crate) fn nests_a_document(entry: &str) -> bool {
    let text = entry.as_bytes();
    json_has_key(text, b"\"stats\"")
        && [&b"\"tests\""[..], b"\"passes\"", b"\"failures\""]
            .into_iter()
            .any(|k| json_has_key(text, k))
}

/// What was found, by place (`stats.mocha`, `tests[].context`), each once: one forged entry
/// shows in several arrays.
#[derive(Default)]
pub(crate) struct Foreign {
    keys: BTreeSet<String>,
    nested_in: BTreeSet<String>,
}

/// At most this many places are named in the problem.
const NAMED: usize = 8;

impl Foreign {
    pub(crate) fn key(&mut self, place: String) {
        self.keys.insert(place);
    }

    /// A Mocha document inside an entry of the array `list`.
    pub(crate) fn nested(&mut self, list: &str) {
        self.nested_in.insert(format!("`{list}[]`"));
    }

    /// One P024 problem naming what was found; `None` when nothing was.
    pub(crate) fn problem(&self) -> Option<Problem> {
        let mut parts = Vec::new();
        if !self.keys.is_empty() {
            let names: Vec<String> = self
                .keys
                .iter()
                .take(NAMED)
                .map(|k| format!("`{k}`"))
                .collect();
            let more = self.keys.len().saturating_sub(NAMED);
            parts.push(format!(
                "{} {}{} Mocha's JSON reporter never writes",
                if self.keys.len() == 1 { "key" } else { "keys" },
                names.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                },
            ));
        }
        if !self.nested_in.is_empty() {
            let places: Vec<&str> = self.nested_in.iter().map(String::as_str).collect();
            parts.push(format!(
                "a Mocha document (`stats` with `tests`, `passes` or `failures`) inside an entry of {}",
                places.join(", ")
            ));
        }
        (!parts.is_empty()).then(|| {
            Problem::new(
                ProblemKind::ForeignContent,
                format!(
                    "{}: something other than Mocha wrote into the document",
                    parts.join("; ")
                ),
            )
        })
    }
}
