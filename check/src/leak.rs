//! The leak scan of Level 3 (spec §4.4, requirement `L3.no-source`): with `--sealed-dir`, nothing
//! the report carries holds a line of sealed test source.
//!
//! Every string and every object key anywhere in the document is scanned (`failures`,
//! `hardening`, and any other field, known or not: `implementer_feedback` at the root too),
//! whole, folded as `gapscore feedback` matches ([`gapscore_core::fold`]: whitespace, case,
//! invisible characters and Cyrillic or Greek lookalike letters do not hide a line), and before
//! anything is taken out: a stack frame or location carrying source (`at test_calc.py:5 assert
//! add(1, 2) == 2`) is a leak, not a location. Then each string again after undoing the
//! encodings of [`decode`] (HTML references, percent, base64, hex, backslash escapes,
//! reversal; up to two deep); then the strings of one failure joined (in document order, and
//! every two of them in either order at their seam), and each failure's strings joined with the
//! next failure's at the seam, so a line split between `expected` and `actual`, or across two
//! failures, is found. A text naming a place in a sealed file, without source, is a warning.
//!
//! A sealed line that is only a literal (`"Hello, World!",`; see
//! [`gapscore_core::sealed_source::SourceMatch::literal`]) is not a leak where its value is the
//! failure's `expected` or `actual` value (within the failure's texts), or any failure's (in
//! texts outside the failures): spec v2 §4.4 step 2 shares expected results with the
//! implementer.
//!
//! The sealed lines are one Aho-Corasick automaton ([`gapscore_core::sealed_source`]), so each
//! text costs time linear in its length, and the seams cost time linear in the longest sealed
//! line.

mod decode;

use std::borrow::Cow;
use std::collections::BTreeSet;

use gapscore_adapter_sdk::text::strip_ansi;
use gapscore_core::feedback::SealedSource;
use gapscore_core::fold::fold;
use gapscore_core::sealed_source::SourceMatch;
use serde_json::Value;

use crate::checker::{Checker, ptr};
use crate::model::RequirementVerdict;
use crate::rules;

/// At most this many characters of a text are quoted in a finding.
const SHOWN: usize = 80;

/// A failure with at most this many strings and keys has every two of them joined at their
/// seam, in both orders; one with more, each two neighbours (in both orders).
const ALL_PAIRS_UP_TO: usize = 16;

/// One string or key of the document.
struct Text<'a> {
    pointer: String,
    /// An object key rather than a value.
    key: bool,
    text: &'a str,
    /// The index of the failure entry it is under.
    failure: Option<usize>,
}

/// A value or an object key, on the walk's stack.
enum Node<'a> {
    Value(&'a Value),
    Key(&'a str),
}

/// Every string and key under the root, in document order (a key before its value), without
/// recursion: the document may nest as deep as the parser allows.
fn texts(root: &Value) -> Vec<Text<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![(Node::Value(root), String::new(), None)];
    while let Some((node, base, failure)) = stack.pop() {
        let v = match node {
            Node::Key(k) => {
                out.push(Text {
                    pointer: base,
                    key: true,
                    text: k,
                    failure,
                });
                continue;
            }
            Node::Value(v) => v,
        };
        match v {
            Value::String(s) => out.push(Text {
                pointer: base,
                key: false,
                text: s,
                failure,
            }),
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate().rev() {
                    let failure = if base == "/failures" {
                        Some(i)
                    } else {
                        failure
                    };
                    let at = format!("{base}{}", ptr(&[&i.to_string()]));
                    stack.push((Node::Value(x), at, failure));
                }
            }
            Value::Object(o) => {
                for (k, x) in o.iter().rev() {
                    let at = format!("{base}{}", ptr(&[k]));
                    stack.push((Node::Value(x), at.clone(), failure));
                    stack.push((Node::Key(k), at, failure));
                }
            }
            _ => {}
        }
    }
    out
}

fn quote(s: &str) -> String {
    s.trim().chars().take(SHOWN).collect()
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The last `n` bytes of `s`, widened to a character boundary.
fn tail(s: &str, n: usize) -> &str {
    let mut i = s.len().saturating_sub(n);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    &s[i..]
}

/// The first `n` bytes of `s`, widened to a character boundary.
fn head(s: &str, n: usize) -> &str {
    let mut i = n.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[..i]
}

/// What the scan matches against: the prepared sealed source and the literal values v2 shares.
struct Scan<'s> {
    source: &'s SealedSource,
    /// Per failure, its `expected` and `actual` values, folded.
    shared: Vec<Vec<String>>,
}

impl<'s> Scan<'s> {
    /// The sealed lines in a folded text that are leaks: all but the literal-only lines whose
    /// value is one of `shared`.
    fn leaks(&self, folded: &str, shared: &[&str]) -> Vec<SourceMatch<'s>> {
        let mut found = self.source.matches_in_folded(folded);
        found.retain(|m| {
            !m.literal
                .is_some_and(|lit| shared.iter().any(|v| v.contains(lit)))
        });
        found
    }

    /// The values shared with the implementer that a text's literal lines may be: its failure's,
    /// or every failure's for a text outside the failures.
    fn shared_for(&self, failure: Option<usize>) -> Vec<&str> {
        match failure {
            Some(i) => self.shared[i].iter().map(String::as_str).collect(),
            None => self.shared.iter().flatten().map(String::as_str).collect(),
        }
    }
}

impl Checker<'_> {
    pub(crate) fn leak_scan(&mut self) -> (RequirementVerdict, String) {
        let Some(dir) = self.evidence.sealed_dir.as_ref() else {
            return (
                RequirementVerdict::Attested,
                "not scanned: give --sealed-dir to scan the report's texts for sealed source"
                    .into(),
            );
        };
        let source: Cow<'_, SealedSource> = if dir.source.is_prepared() {
            Cow::Borrowed(&dir.source)
        } else {
            let mut s = dir.source.clone();
            s.prepare();
            Cow::Owned(s)
        };
        let lines = source.line_count();
        let texts = texts(self.doc);
        let failures = self
            .root
            .get("failures")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let shared: Vec<Vec<String>> = (0..failures)
            .map(|i| {
                ["expected", "actual"]
                    .iter()
                    .filter_map(|k| self.doc.pointer(&ptr(&["failures", &i.to_string(), k])))
                    .filter_map(Value::as_str)
                    .map(fold)
                    .filter(|v| !v.is_empty())
                    .collect()
            })
            .collect();
        let scan = Scan {
            source: &source,
            shared,
        };
        let mut leaks = 0usize;
        let mut located = 0usize;
        // Per failure: the lines found so far (the joins report only new ones) and its texts,
        // folded, in document order.
        let mut found: Vec<BTreeSet<&str>> = vec![BTreeSet::new(); failures];
        let mut folded_of: Vec<Vec<(String, bool, String)>> = vec![Vec::new(); failures];
        for t in &texts {
            let shared = scan.shared_for(t.failure);
            let plain = strip_ansi(t.text);
            let folded = fold(&plain);
            let hits = scan.leaks(&folded, &shared);
            if let Some(i) = t.failure {
                found[i].extend(hits.iter().map(|m| m.line));
            }
            let what = if t.key { "its key holds" } else { "holds" };
            if let Some(first) = hits.first() {
                leaks += hits.len();
                // Quote the text's own line when one line holds the source, else the source.
                let own = plain
                    .lines()
                    .find(|l| !scan.leaks(&fold(l), &shared).is_empty())
                    .map(quote);
                let n = hits.len();
                let message = match (n, own) {
                    (1, Some(line)) => format!("{what} a line of sealed test source: `{line}`"),
                    (1, None) => format!(
                        "{what} a line of sealed test source, broken over several lines: `{}`",
                        quote(first.line)
                    ),
                    (n, Some(line)) => format!(
                        "{what} {n} lines of sealed test source (a sealed file pasted in?), the first here: `{line}`"
                    ),
                    (n, None) => format!(
                        "{what} {n} lines of sealed test source (a sealed file pasted in?), the first: `{}`",
                        quote(first.line)
                    ),
                };
                self.err(&rules::FEEDBACK_LEAK, &t.pointer, message);
            } else if let Some((chain, hits)) = decoded_leak(&scan, &plain, &shared) {
                leaks += hits.len();
                if let Some(i) = t.failure {
                    found[i].extend(hits.iter().map(|m| m.line));
                }
                let names: Vec<&str> = chain.iter().map(|e| e.name()).collect();
                self.err(
                    &rules::FEEDBACK_LEAK,
                    &t.pointer,
                    format!(
                        "{} {} line{} of sealed test source once {} {} undone: `{}`",
                        what,
                        hits.len(),
                        plural(hits.len()),
                        names.join(" then "),
                        if names.len() == 1 { "is" } else { "are" },
                        quote(hits[0].line)
                    ),
                );
            } else {
                for line in plain.lines().filter(|l| source.locations_in(l) > 0) {
                    located += 1;
                    self.warn(
                        &rules::FEEDBACK_LEAK,
                        &t.pointer,
                        format!("names a place in a sealed test file: `{}`", quote(line)),
                    );
                }
            }
            if let Some(i) = t.failure {
                folded_of[i].push((t.pointer.clone(), t.key, folded));
            }
        }
        leaks += self.joined_leaks(&scan, &folded_of, &mut found);
        let n = texts.len();
        if leaks > 0 {
            return (
                RequirementVerdict::Failed,
                format!(
                    "{leaks} line{} of sealed source in the report's strings and keys",
                    plural(leaks)
                ),
            );
        }
        (
            RequirementVerdict::Verified,
            format!(
                "{n} string{} and key{} of the report scanned (decoded, and joined within and between failures) against {lines} sealed source line{}: none found{}",
                plural(n),
                plural(n),
                plural(lines),
                if located > 0 {
                    format!(" ({located} naming sealed file locations)")
                } else {
                    String::new()
                }
            ),
        )
    }

    /// Lines split between the texts of one failure, or between two neighbouring failures;
    /// each is an error, and counted. `found` holds each failure's lines already reported.
    fn joined_leaks<'s>(
        &mut self,
        scan: &Scan<'s>,
        folded_of: &[Vec<(String, bool, String)>],
        found: &mut [BTreeSet<&'s str>],
    ) -> usize {
        let seam = scan.source.longest_folded();
        let mut leaks = 0;
        let mut whole: Vec<String> = Vec::with_capacity(folded_of.len());
        for (i, texts) in folded_of.iter().enumerate() {
            let shared = scan.shared_for(Some(i));
            let here = ptr(&["failures", &i.to_string()]);
            // The values in document order (the keys between them would break the join).
            let joined: String = texts
                .iter()
                .filter(|(_, key, _)| !key)
                .map(|(_, _, f)| f.as_str())
                .collect();
            let new = |found: &mut BTreeSet<&'s str>, hits: Vec<SourceMatch<'s>>| {
                hits.into_iter()
                    .filter(|m| found.insert(m.line))
                    .collect::<Vec<_>>()
            };
            let hits = new(&mut found[i], scan.leaks(&joined, &shared));
            if let Some(first) = hits.first() {
                leaks += hits.len();
                self.err(
                    &rules::FEEDBACK_LEAK,
                    &here,
                    format!(
                        "holds {} line{} of sealed test source split across its fields: `{}`",
                        hits.len(),
                        plural(hits.len()),
                        quote(first.line)
                    ),
                );
            }
            let pairs: Vec<(usize, usize)> = if texts.len() <= ALL_PAIRS_UP_TO {
                (0..texts.len())
                    .flat_map(|a| (0..texts.len()).map(move |b| (a, b)))
                    .filter(|(a, b)| a != b)
                    .collect()
            } else {
                (1..texts.len())
                    .flat_map(|b| [(b - 1, b), (b, b - 1)])
                    .collect()
            };
            for (a, b) in pairs {
                let window = format!("{}{}", tail(&texts[a].2, seam), head(&texts[b].2, seam));
                let hits = new(&mut found[i], scan.leaks(&window, &shared));
                if let Some(first) = hits.first() {
                    leaks += hits.len();
                    self.err(
                        &rules::FEEDBACK_LEAK,
                        &texts[a].0,
                        format!(
                            "holds, joined with {}, a line of sealed test source split between them: `{}`",
                            texts[b].0,
                            quote(first.line)
                        ),
                    );
                }
            }
            whole.push(joined);
        }
        for i in 1..whole.len() {
            let mut shared = scan.shared_for(Some(i - 1));
            shared.extend(scan.shared_for(Some(i)));
            for (a, b) in [(i - 1, i), (i, i - 1)] {
                let window = format!("{}{}", tail(&whole[a], seam), head(&whole[b], seam));
                let hits: Vec<_> = scan
                    .leaks(&window, &shared)
                    .into_iter()
                    .filter(|m| !found[i - 1].contains(m.line) && !found[i].contains(m.line))
                    .collect();
                if let Some(first) = hits.first() {
                    leaks += hits.len();
                    found[i].extend(hits.iter().map(|m| m.line));
                    self.err(
                        &rules::FEEDBACK_LEAK,
                        &ptr(&["failures", &a.to_string()]),
                        format!(
                            "holds, joined with the failure at {}, a line of sealed test source split between the two: `{}`",
                            ptr(&["failures", &b.to_string()]),
                            quote(first.line)
                        ),
                    );
                }
            }
        }
        leaks
    }
}

/// The first decoding of `plain` ([`decode::each_decoding`]) that holds sealed lines, with the
/// encodings undone.
fn decoded_leak<'s>(
    scan: &Scan<'s>,
    plain: &str,
    shared: &[&str],
) -> Option<(Vec<decode::Encoding>, Vec<SourceMatch<'s>>)> {
    let mut first = None;
    decode::each_decoding(plain, &mut |chain, decoded| {
        if first.is_none() {
            let hits = scan.leaks(&fold(decoded), shared);
            if !hits.is_empty() {
                first = Some((chain.to_vec(), hits));
            }
        }
    });
    first
}
