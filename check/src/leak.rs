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

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};

use gapscore_adapter_sdk::text::strip_ansi;
use gapscore_core::decode;
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
    /// Where it is ([`Places`]).
    place: usize,
    /// An object key rather than a value.
    key: bool,
    /// A string as it is, or a number as the document writes it (a number can be a sealed
    /// literal line).
    text: Cow<'a, str>,
    /// The index of the failure entry it is under.
    failure: Option<usize>,
}

/// One step of a pointer.
enum Segment<'a> {
    /// A root: the document's (pointer ``), or a value normalising set aside (its pointer).
    Root(&'a str),
    Index(usize),
    Key(&'a str),
}

/// Where each value and key of the document sits: its parent's place and its own step, so a
/// pointer is written only for a finding (a deeply nested document costs no quadratic
/// pointers). Place 0 is the root.
struct Places<'a>(Vec<(usize, Segment<'a>)>);

/// A value or an object key, on the walk's stack.
enum Node<'a> {
    Value(&'a Value),
    Key(&'a str),
}

/// Every string and key under the root, in document order (a key before its value), then those
/// of each value set aside, with the place of each and of each failure entry, without
/// recursion: the document may nest as deep as the parser allows.
fn texts<'a>(
    root: &'a Value,
    aside: &'a [(String, Value)],
) -> (Vec<Text<'a>>, Places<'a>, Vec<usize>) {
    let mut out = Vec::new();
    let mut places = Places(vec![(0, Segment::Root(""))]);
    let mut failure_places = Vec::new();
    let mut stack = Vec::with_capacity(1 + aside.len());
    for (pointer, value) in aside.iter().rev() {
        let place = places.0.len();
        places.0.push((place, Segment::Root(pointer)));
        stack.push((Node::Value(value), place, None));
    }
    stack.push((Node::Value(root), 0usize, None));
    while let Some((node, place, failure)) = stack.pop() {
        let v = match node {
            Node::Key(k) => {
                out.push(Text {
                    place,
                    key: true,
                    text: Cow::Borrowed(k),
                    failure,
                });
                continue;
            }
            Node::Value(v) => v,
        };
        match v {
            Value::String(s) => out.push(Text {
                place,
                key: false,
                text: Cow::Borrowed(s),
                failure,
            }),
            Value::Number(n) => out.push(Text {
                place,
                key: false,
                text: Cow::Owned(n.to_string()),
                failure,
            }),
            Value::Array(a) => {
                let is_failures =
                    places.0[place].0 == 0 && matches!(places.0[place].1, Segment::Key("failures"));
                let first = places.0.len();
                places
                    .0
                    .extend((0..a.len()).map(|i| (place, Segment::Index(i))));
                if is_failures {
                    failure_places.extend(first..first + a.len());
                }
                for (i, x) in a.iter().enumerate().rev() {
                    let failure = if is_failures { Some(i) } else { failure };
                    stack.push((Node::Value(x), first + i, failure));
                }
            }
            Value::Object(o) => {
                let first = places.0.len();
                places.0.extend(o.keys().map(|k| (place, Segment::Key(k))));
                for (i, (k, x)) in o.iter().enumerate().rev() {
                    stack.push((Node::Value(x), first + i, failure));
                    stack.push((Node::Key(k), first + i, failure));
                }
            }
            _ => {}
        }
    }
    (out, places, failure_places)
}

impl Places<'_> {
    /// The JSON pointer of a place.
    fn pointer(&self, mut at: usize) -> String {
        let mut steps = Vec::new();
        let prefix = loop {
            let (parent, step) = &self.0[at];
            steps.push(match step {
                Segment::Index(i) => i.to_string(),
                Segment::Key(k) => (*k).to_owned(),
                Segment::Root(prefix) => break *prefix,
            });
            at = *parent;
        };
        steps.reverse();
        let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
        format!("{prefix}{}", ptr(&steps))
    }
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
    /// Per failure, the sealed literal values its `expected` and `actual` hold (found in one
    /// pass over each value, so the exemption costs no time per text).
    shared: Vec<HashSet<&'s str>>,
    /// Every failure's values, folded, without the quotes around them.
    any_shared: HashSet<String>,
}

impl<'s> Scan<'s> {
    /// The sealed lines in a folded text that are leaks: all but the literal-only lines whose
    /// value the text's failure shares (`failure`), or, outside the failures, that is exactly
    /// one failure's value.
    fn leaks(&self, folded: &str, failure: &[usize]) -> Vec<SourceMatch<'s>> {
        let mut found = self.source.matches_in_folded(folded);
        found.retain(|m| !m.literal.is_some_and(|lit| self.is_shared(lit, failure)));
        found
    }

    fn is_shared(&self, literal: &str, failure: &[usize]) -> bool {
        if failure.is_empty() {
            return self.any_shared.contains(literal);
        }
        failure
            .iter()
            .filter_map(|i| self.shared.get(*i))
            .any(|held| held.contains(literal))
    }
}

impl Checker<'_> {
    /// The test ids the seal records given expect (a single record's, or every suite's of a
    /// combined record).
    fn sealed_test_names(&self) -> &[String] {
        self.evidence
            .seal
            .as_ref()
            .and_then(|r| r.expected_tests.as_deref())
            .or_else(|| {
                self.evidence
                    .combined
                    .as_ref()
                    .and_then(|c| c.expected_tests.as_deref())
            })
            .unwrap_or(&[])
    }

    pub(crate) fn leak_scan(&mut self) -> (RequirementVerdict, String) {
        let Some(dir) = self.evidence.sealed_dir.as_ref() else {
            return (
                RequirementVerdict::Attested,
                "not scanned: give --sealed-dir to scan the failure texts for sealed source".into(),
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
        let set_aside = std::mem::take(&mut self.set_aside);
        let (texts, places, failure_places) = texts(self.doc, &set_aside);
        let failures = self
            .root
            .get("failures")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let values: Vec<Vec<String>> = (0..failures)
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
        let source: &SealedSource = &source;
        let shared = values
            .iter()
            .map(|vs| {
                vs.iter()
                    .flat_map(|v| source.literals_in_folded(v))
                    .collect()
            })
            .collect();
        let any_shared = values
            .iter()
            .flatten()
            .map(|v| v.trim_matches(['"', '\'', '`']).to_owned())
            .collect();
        let scan = Scan {
            source,
            shared,
            any_shared,
        };
        // Test ids the seal record expects are shared with the implementer (v2 §4.4 step 2: the
        // test names): a string that is one of them (identity fold) is a name, whatever sealed
        // data file it was built from, and is left out of the scan and its joins.
        let shared_names: HashSet<String> = self
            .sealed_test_names()
            .iter()
            .map(|n| fold(n))
            .filter(|n| !n.is_empty())
            .collect();
        let mut leaks = 0usize;
        let mut located = 0usize;
        let mut names = 0usize;
        // Per failure: the lines found so far (the joins report only new ones) and its texts,
        // folded, in document order.
        let mut found: Vec<BTreeSet<&str>> = vec![BTreeSet::new(); failures];
        let mut folded_of: Vec<Vec<(usize, bool, String)>> = vec![Vec::new(); failures];
        for t in &texts {
            let shared: Vec<usize> = t.failure.into_iter().collect();
            if !t.key && !shared_names.is_empty() && shared_names.contains(&fold(&t.text)) {
                names += 1;
                continue;
            }
            // ANSI codes go before matching (a coloured diff), but a text that holds source only
            // as written is a leak too: an escape that is no well-formed code (`ESC ]` with no
            // terminator) makes the stripper drop the rest of the text.
            let stripped = strip_ansi(&t.text);
            let folded = fold(&stripped);
            let hits = scan.leaks(&folded, &shared);
            let (plain, folded, hits) = if hits.is_empty() && *stripped != *t.text {
                let raw = fold(&t.text);
                let raw_hits = scan.leaks(&raw, &shared);
                if raw_hits.is_empty() {
                    (stripped, folded, hits)
                } else {
                    (Cow::Borrowed(&*t.text), raw, raw_hits)
                }
            } else {
                (stripped, folded, hits)
            };
            if let Some(i) = t.failure {
                found[i].extend(hits.iter().map(|m| m.line));
            }
            let what = if t.key { "its key holds" } else { "holds" };
            if let Some(first) = hits.first() {
                leaks += hits.len();
                // Made only when listed: quoting the own line and the pointer cost the text's
                // length and the document's depth.
                self.err_with(&rules::FEEDBACK_LEAK, || {
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
    (places.pointer(t.place), message)
                });
            } else if let Some((chain, hits)) = decoded_leak(&scan, &plain, &shared) {
                leaks += hits.len();
                if let Some(i) = t.failure {
                    found[i].extend(hits.iter().map(|m| m.line));
                }
                self.err_with(&rules::FEEDBACK_LEAK, || {
                    let names: Vec<&str> = chain.iter().map(|e| e.name()).collect();
                    let lines = match hits.len() {
                        1 => "a line".to_owned(),
                        n => format!("{n} lines"),
                    };
                    (
                        places.pointer(t.place),
                        format!(
                            "{what}, with {} undone, {lines} of sealed test source: `{}`",
                            names.join(" then "),
                            quote(hits[0].line)
                        ),
                    )
                });
            } else {
                for line in plain.lines().filter(|l| source.locations_in(l) > 0) {
                    located += 1;
                    self.warn_with(&rules::FEEDBACK_LEAK, || {
                        (
                            places.pointer(t.place),
                            format!("names a place in a sealed test file: `{}`", quote(line)),
                        )
                    });
                }
            }
            if let Some(i) = t.failure {
                folded_of[i].push((t.place, t.key, folded));
            }
        }
        leaks += self.joined_leaks(&scan, &places, &failure_places, &folded_of, &mut found);
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
                "{n} string{} and key{} of the report scanned (decoded, and joined within and between failures) against {lines} sealed source line{}: none found{}{}",
                plural(n),
                plural(n),
                plural(lines),
                if names > 0 {
                    format!(
                        " ({names} being test id{} the seal record expects, shared)",
                        plural(names)
                    )
                } else {
                    String::new()
                },
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
        places: &Places<'_>,
        failure_places: &[usize],
        folded_of: &[Vec<(usize, bool, String)>],
        found: &mut [BTreeSet<&'s str>],
    ) -> usize {
        let seam = scan.source.longest_folded();
        let mut leaks = 0;
        let mut whole: Vec<String> = Vec::with_capacity(folded_of.len());
        for (i, texts) in folded_of.iter().enumerate() {
            let shared = [i];
            let here = failure_places
                .get(i)
                .map_or_else(String::new, |p| places.pointer(*p));
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
                    self.err_with(&rules::FEEDBACK_LEAK, || {
                        (
                            places.pointer(texts[a].0),
                            format!(
                                "holds, joined with {}, a line of sealed test source split between them: `{}`",
                                places.pointer(texts[b].0),
                                quote(first.line)
                            ),
                        )
                    });
                }
            }
            whole.push(joined);
        }
        for i in 1..folded_of.len() {
            let shared = [i - 1, i];
            let (here, there) = (failure_places[i - 1], failure_places[i]);
            for (a, b) in seams_between(
                &folded_of[i - 1],
                &folded_of[i],
                (here, &whole[i - 1]),
                (there, &whole[i]),
            ) {
                let window = format!("{}{}", tail(a.1, seam), head(b.1, seam));
                let hits: Vec<_> = scan
                    .leaks(&window, &shared)
                    .into_iter()
                    .filter(|m| !found[i - 1].contains(m.line) && !found[i].contains(m.line))
                    .collect();
                if let Some(first) = hits.first() {
                    leaks += hits.len();
                    found[i].extend(hits.iter().map(|m| m.line));
                    self.err_with(&rules::FEEDBACK_LEAK, || {
                        (
                            places.pointer(a.0),
                            format!(
                                "holds, joined with {}, a line of sealed test source split between the two failures: `{}`",
                                places.pointer(b.0),
                                quote(first.line)
                            ),
                        )
                    });
                }
            }
        }
        leaks
    }
}

/// One side of a seam: a text's place and its folded text.
type Side<'t> = (usize, &'t str);

/// The seams between two neighbouring failures, each as (place, folded text) on either side:
/// every value of one against every value of the other, in both orders, when both have at most
/// [`ALL_PAIRS_UP_TO`] values; else the two failures' values joined whole (each given as its
/// place and joined text).
fn seams_between<'t>(
    first: &'t [(usize, bool, String)],
    second: &'t [(usize, bool, String)],
    first_whole: Side<'t>,
    second_whole: Side<'t>,
) -> Vec<(Side<'t>, Side<'t>)> {
    let values = |texts: &'t [(usize, bool, String)]| -> Vec<Side<'t>> {
        texts
            .iter()
            .filter(|(_, key, _)| !key)
            .map(|(p, _, f)| (*p, f.as_str()))
            .collect()
    };
    let (a, b) = (values(first), values(second));
    if a.len() > ALL_PAIRS_UP_TO || b.len() > ALL_PAIRS_UP_TO {
        return vec![(first_whole, second_whole), (second_whole, first_whole)];
    }
    let mut out = Vec::with_capacity(2 * a.len() * b.len());
    for x in &a {
        for y in &b {
            out.push((*x, *y));
            out.push((*y, *x));
        }
    }
    out
}

/// The first decoding of `plain` ([`decode::each_decoding`]) that holds sealed lines, with the
/// encodings undone.
fn decoded_leak<'s>(
    scan: &Scan<'s>,
    plain: &str,
    shared: &[usize],
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

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::texts;

    #[test]
    fn every_string_and_key_comes_in_document_order_with_its_pointer() {
        let doc = json!({"a": {"b/c~": ["x"]}, "failures": [{"k": "v"}, "w"]});
        let (found, places, failures) = texts(&doc, &[]);
        let got: Vec<(String, bool, &str, Option<usize>)> = found
            .iter()
            .map(|t| (places.pointer(t.place), t.key, &*t.text, t.failure))
            .collect();
        let want = [
            ("/a", true, "a", None),
            ("/a/b~1c~0", true, "b/c~", None),
            ("/a/b~1c~0/0", false, "x", None),
            ("/failures", true, "failures", None),
            ("/failures/0/k", true, "k", Some(0)),
            ("/failures/0/k", false, "v", Some(0)),
            ("/failures/1", false, "w", Some(1)),
        ];
        let want: Vec<(String, bool, &str, Option<usize>)> = want
            .iter()
            .map(|(p, k, t, f)| ((*p).to_owned(), *k, *t, *f))
            .collect();
        assert_eq!(got, want);
        let failures: Vec<String> = failures.iter().map(|p| places.pointer(*p)).collect();
        assert_eq!(failures, ["/failures/0", "/failures/1"]);
    }

    /// Issue 33 (attack B3, B8): a number is scanned as written, and a value normalising set
    /// aside is scanned at its pointer in the document as given.
    #[test]
    fn numbers_and_values_set_aside_are_texts_too() {
        let doc = json!({"ids": [12345678901234u64]});
        let aside = [(
            "/coverage_comparison/edge_cases".to_owned(),
            json!({"s": "x"}),
        )];
        let (found, places, _) = texts(&doc, &aside);
        let got: Vec<(String, &str)> = found
            .iter()
            .map(|t| (places.pointer(t.place), &*t.text))
            .collect();
        assert_eq!(
            got,
            [
                ("/ids".to_owned(), "ids"),
                ("/ids/0".to_owned(), "12345678901234"),
                ("/coverage_comparison/edge_cases/s".to_owned(), "s"),
                ("/coverage_comparison/edge_cases/s".to_owned(), "x"),
            ]
        );
    }

    #[test]
    fn a_deeply_nested_string_is_reached_without_recursion() {
        let mut doc = json!("deep");
        for _ in 0..5_000 {
            doc = Value::Array(vec![doc]);
        }
        let (found, places, _) = texts(&doc, &[]);
        assert_eq!(found.len(), 1);
        assert_eq!(places.pointer(found[0].place), "/0".repeat(5_000));
    }
}
