//! Warnings grouped by code. A big input can raise the same warning thousands of times (a JUnit
//! file whose every suite declares the wrong failure count, a directory with ten thousand
//! repeated ids); they are shown and reported once per *code*, with a count and the first few
//! places.
//!
//! The grouping key is the warning's stable [`Code`] (and, in a report, which suite raised it),
//! never its text. Each group also shows a *kind* for reading: the first message with the parts
//! that vary masked ([`kind_of`]: the input file in front becomes `<file>: `, every
//! backtick-quoted name `` `…` `` and every run of digits `N`), and its place ([`place_of`]):
//! the file and the first quoted name. Both are display only: nothing decides on them.

use std::collections::HashMap;

use gapscore_model::Code;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The warnings a report keeps in `gapscore.warnings`; the rest are counted in
/// `gapscore.warning_counts`.
pub const REPORT_WARNINGS: usize = 100;

/// The kinds a report counts apart; further kinds are counted together under [`OTHER_KINDS`].
pub const REPORT_KINDS: usize = 100;

/// Where the kinds past [`REPORT_KINDS`] are counted.
pub const OTHER_KINDS: &str = "(other kinds)";

/// Places named on a grouped warning line.
pub const PLACES_SHOWN: usize = 3;

/// How many warnings of one code were raised (`gapscore.warning_counts`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct WarningCount {
    /// The first message of the code, masked (see the module documentation): for reading only.
    pub kind: String,
    /// The warnings' code; absent for the catch-all [`OTHER_KINDS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Code>,
    /// How many warnings of this code.
    pub count: u64,
}

/// What warnings are counted apart by: the code, and whether the open suite raised them.
type Key = (Option<Code>, bool);

/// The input file a warning starts with (`path: message`), if it looks like one: no spaces, and
/// a `/` or a `.` in it. An `open: ` prefix is skipped.
fn file_prefix(message: &str) -> Option<(usize, &str)> {
    let start = if message.starts_with("open: ") { 6 } else { 0 };
    let rest = &message[start..];
    let end = rest.find(": ")?;
    let head = &rest[..end];
    (!head.is_empty() && !head.contains(' ') && (head.contains('/') || head.contains('.')))
        .then_some((start, head))
}

/// The first backtick-quoted name in `s`.
fn first_quoted(s: &str) -> Option<&str> {
    let open = s.find('`')?;
    let rest = &s[open + 1..];
    rest.find('`').map(|close| &rest[..close])
}

/// A warning's kind: the message with its file, quoted names and numbers masked.
pub fn kind_of(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    if let Some((start, head)) = file_prefix(message) {
        out.push_str(&message[..start]);
        out.push_str("<file>");
        rest = &message[start + head.len()..];
    }
    let mut quoted = false;
    let mut digits = false;
    for c in rest.chars() {
        if c == '`' {
            if !quoted {
                out.push_str("`…`");
            }
            quoted = !quoted;
            digits = false;
            continue;
        }
        if quoted {
            continue;
        }
        if c.is_ascii_digit() {
            if !digits {
                out.push('N');
            }
            digits = true;
            continue;
        }
        digits = false;
        out.push(c);
    }
    out
}

/// Where a warning points: its file and its first quoted name, as far as it has them.
pub fn place_of(message: &str) -> Option<String> {
    let file = file_prefix(message);
    let after = file.map_or(message, |(start, head)| &message[start + head.len()..]);
    match (file.map(|(_, h)| h), first_quoted(after)) {
        (Some(f), Some(q)) => Some(format!("{f} `{q}`")),
        (Some(f), None) => Some(f.to_owned()),
        (None, Some(q)) => Some(format!("`{q}`")),
        (None, None) => None,
    }
}

/// Warning messages a [`WarningLog`] keeps whole (shown on standard error, each with
/// `--verbose`); past them a warning is only counted, so a hostile input raising millions of
/// warnings does not grow memory with them.
pub const KEPT_WARNINGS: usize = 10_000;

/// Kinds a [`WarningLog`] counts apart (more than a report shows, so that logs merged in
/// order count as one log would, up to this many kinds); further kinds are counted under
/// [`OTHER_KINDS`].
pub const LOGGED_KINDS: usize = 1_000;

/// The warnings raised while reading, bounded: the first [`KEPT_WARNINGS`] messages with their
/// codes, and a count of every warning by code (in first-seen order, [`LOGGED_KINDS`] apart).
#[derive(Clone, Default)]
pub struct WarningLog {
    kept: Vec<(Code, String)>,
    total: u64,
    kinds: Vec<WarningCount>,
    keys: Vec<Key>,
    at: HashMap<Key, usize>,
}

impl std::fmt::Debug for WarningLog {
    // The index map is left out: its order is not deterministic.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WarningLog")
            .field("kept", &self.kept)
            .field("total", &self.total)
            .field("kinds", &self.kinds)
            .finish()
    }
}

impl WarningLog {
    /// Records one warning.
    pub fn push(&mut self, code: Code, message: String) {
        self.total += 1;
        if !self.at.contains_key(&(Some(code), false)) {
            self.count_kind((Some(code), false), kind_of(&message), 1, LOGGED_KINDS);
        } else {
            self.count_kind((Some(code), false), String::new(), 1, LOGGED_KINDS);
        }
        if self.kept.len() < KEPT_WARNINGS {
            self.kept.push((code, message));
        }
    }

    /// Adds `other`'s warnings after this log's, as if they had been pushed here in order.
    pub fn append(&mut self, other: WarningLog) {
        self.total += other.total;
        for (k, key) in other.kinds.into_iter().zip(other.keys) {
            self.count_kind(key, k.kind, k.count, LOGGED_KINDS);
        }
        let room = KEPT_WARNINGS.saturating_sub(self.kept.len());
        self.kept.extend(other.kept.into_iter().take(room));
    }

    // Counts `n` warnings under `key`; `kind` names a key seen for the first time.
    fn count_kind(&mut self, mut key: Key, mut kind: String, n: u64, apart: usize) {
        if !self.at.contains_key(&key) && self.at.len() >= apart {
            key = (None, false);
            OTHER_KINDS.clone_into(&mut kind);
        }
        match self.at.get(&key) {
            Some(&i) => self.kinds[i].count += n,
            None => {
                self.at.insert(key, self.kinds.len());
                self.keys.push(key);
                self.kinds.push(WarningCount {
                    kind,
                    code: key.0,
                    count: n,
                });
            }
        }
    }

    /// The messages kept with their codes, in the order they were raised.
    pub fn messages(&self) -> &[(Code, String)] {
        &self.kept
    }

    /// How many warnings were raised, kept or not.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// True when no warning was raised.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// How many warnings were counted but not kept.
    pub fn not_kept(&self) -> u64 {
        self.total - self.kept.len() as u64
    }

    /// Every warning counted by code, in first-seen order.
    pub fn counts(&self) -> &[WarningCount] {
        &self.kinds
    }
}

/// The report's share of the sealed suite's warnings and the open suite's (each message of the
/// open suite prefixed `open: `): the first [`REPORT_WARNINGS`] messages and their codes, and
/// the count of every warning by code and suite (at most [`REPORT_KINDS`] apart), in first-seen
/// order. The counts are empty when there was no warning.
pub fn report_share(sealed: &WarningLog, open: Option<&WarningLog>) -> ReportWarnings {
    let mut share = WarningLog::default();
    let mut kept: Vec<(Code, String)> = sealed.kept.iter().take(REPORT_WARNINGS).cloned().collect();
    for (k, key) in sealed.kinds.iter().zip(&sealed.keys) {
        share.count_kind(*key, k.kind.clone(), k.count, REPORT_KINDS);
    }
    if let Some(o) = open {
        let room = REPORT_WARNINGS.saturating_sub(kept.len());
        kept.extend(
            o.kept
                .iter()
                .take(room)
                .map(|(c, w)| (*c, format!("open: {w}"))),
        );
        for (k, key) in o.kinds.iter().zip(&o.keys) {
            // The catch-all stays one kind across both suites.
            let (key, kind) = match key.0 {
                None => ((None, false), OTHER_KINDS.to_owned()),
                Some(c) => ((Some(c), true), format!("open: {}", k.kind)),
            };
            share.count_kind(key, kind, k.count, REPORT_KINDS);
        }
    }
    let (codes, warnings) = kept.into_iter().unzip();
    ReportWarnings {
        warnings,
        codes,
        counts: share.kinds,
    }
}

/// A report's share of the warnings ([`report_share`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportWarnings {
    /// The messages (`gapscore.warnings`).
    pub warnings: Vec<String>,
    /// Their codes, in the same order (`gapscore.warning_codes`).
    pub codes: Vec<Code>,
    /// Every warning counted by code (`gapscore.warning_counts`).
    pub counts: Vec<WarningCount>,
}

/// One kind of warning among several, for the grouped line.
#[derive(Debug)]
pub struct Group {
    /// The code the group's warnings share.
    pub code: Code,
    /// The first message of the code, shown in full.
    pub first: String,
    /// How many messages of the kind.
    pub count: u64,
    /// The places of the later messages, distinct, at most [`PLACES_SHOWN`].
    pub places: Vec<String>,
    /// Whether more distinct places than those were seen.
    pub more_places: bool,
}

impl Group {
    /// The one line that stands for the group: the first message, then, when there were more,
    /// how many and where (`… (and 41 more like it: a.xml, b.xml, c.xml, …; --verbose shows
    /// each)`).
    pub fn line(&self) -> String {
        if self.count <= 1 {
            return self.first.clone();
        }
        let mut places = self.places.join(", ");
        if self.more_places {
            places.push_str(", …");
        }
        let sep = if places.is_empty() { "" } else { ": " };
        format!(
            "{} (and {} more like it{sep}{places}; --verbose shows each)",
            self.first,
            self.count - 1
        )
    }
}

/// Groups messages by code, in the order each code first occurs.
pub fn group<'a>(messages: impl IntoIterator<Item = (Code, &'a str)>) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut at: HashMap<Code, usize> = HashMap::new();
    let mut first_place: Vec<Option<String>> = Vec::new();
    for (code, m) in messages {
        match at.get(&code) {
            Some(&i) => {
                let g = &mut groups[i];
                g.count += 1;
                if let Some(p) = place_of(m)
                    && first_place[i].as_ref() != Some(&p)
                    && !g.places.contains(&p)
                {
                    if g.places.len() < PLACES_SHOWN {
                        g.places.push(p);
                    } else {
                        g.more_places = true;
                    }
                }
            }
            None => {
                at.insert(code, groups.len());
                first_place.push(place_of(m));
                groups.push(Group {
                    code,
                    first: m.to_owned(),
                    count: 1,
                    places: Vec::new(),
                    more_places: false,
                });
            }
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_mask_files_names_and_numbers() {
        assert_eq!(
            kind_of("a/b.xml: testsuite `x` declares failures=\"0\" but holds 13"),
            "<file>: testsuite `…` declares failures=\"N\" but holds N"
        );
        assert_eq!(
            kind_of("open: r.json: tests[4] `x`: unknown category `p`"),
            "open: <file>: tests[N] `…`: unknown category `…`"
        );
        assert_eq!(
            place_of("a.xml: testsuite `x` declares"),
            Some("a.xml `x`".into())
        );
        assert_eq!(place_of("no sealed tests were counted: x"), None);
    }

    #[test]
    fn groups_are_by_code_not_by_wording() {
        let msgs: Vec<(Code, String)> = (0..10)
            .map(|i| {
                (
                    Code::DuplicateTestId,
                    format!("sealed test id `t{i}` occurs 2 times; every entry is counted"),
                )
            })
            // Worded differently, same code: one group.
            .chain([(Code::DuplicateTestId, "id `z` twice".to_owned())])
            // Worded alike, another code: a group of its own.
            .chain([(
                Code::AdvisoryReport,
                "sealed test id `t0` occurs 2 times; every entry is counted".to_owned(),
            )])
            .collect();
        let g = group(msgs.iter().map(|(c, m)| (*c, m.as_str())));
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].code, Code::DuplicateTestId);
        assert_eq!(
            g[0].line(),
            "sealed test id `t0` occurs 2 times; every entry is counted (and 10 more like it: `t1`, `t2`, `t3`, …; --verbose shows each)"
        );
        assert_eq!(g[1].count, 1);
        let mut log = WarningLog::default();
        for (c, m) in msgs.iter().cycle().take(250) {
            log.push(*c, m.clone());
        }
        let share = report_share(&log, None);
        assert_eq!(share.warnings.len(), REPORT_WARNINGS);
        assert_eq!(share.codes.len(), REPORT_WARNINGS);
        assert_eq!(share.counts.len(), 2);
        assert_eq!(share.counts[0].code, Some(Code::DuplicateTestId));
        assert_eq!(share.counts[0].count, 230); // 11 of every 12, over 20 rounds and 10 more
    }

    /// What the report said when every message was held: the first messages and the count of
    /// every code over the sealed list followed by the open one, at most `REPORT_KINDS` apart.
    fn held_share(sealed: &[(Code, String)], open: &[(Code, String)]) -> ReportWarnings {
        let all: Vec<(Code, String, bool)> = sealed
            .iter()
            .map(|(c, w)| (*c, w.clone(), false))
            .chain(open.iter().map(|(c, w)| (*c, format!("open: {w}"), true)))
            .collect();
        let mut keys: Vec<Key> = Vec::new();
        let mut counts: Vec<WarningCount> = Vec::new();
        for (code, w, is_open) in &all {
            let mut key = (Some(*code), *is_open);
            let mut kind = kind_of(w);
            let known = keys.contains(&key);
            if !known && keys.iter().filter(|k| k.0.is_some()).count() >= REPORT_KINDS {
                key = (None, false);
                OTHER_KINDS.clone_into(&mut kind);
            }
            match keys.iter().position(|k| *k == key) {
                Some(i) => counts[i].count += 1,
                None => {
                    keys.push(key);
                    counts.push(WarningCount {
                        kind,
                        code: key.0,
                        count: 1,
                    });
                }
            }
        }
        let (codes, warnings) = all
            .into_iter()
            .take(REPORT_WARNINGS)
            .map(|(c, w, _)| (c, w))
            .unzip();
        ReportWarnings {
            warnings,
            codes,
            counts,
        }
    }

    #[test]
    fn a_log_in_pieces_reports_as_the_whole_list_did_and_keeps_memory_bounded() {
        // 150 codes over 30,000 warnings, split into three logs appended in order; the open
        // suite's 5 codes come after.
        let all: Vec<Code> = Code::all().collect();
        let code = |k: usize| all[k % all.len()];
        let msg = |i: usize| (code(i % 150), format!("x.xml: kind `t{i}` at line {i}"));
        let sealed: Vec<(Code, String)> = (0..30_000).map(msg).collect();
        let open: Vec<(Code, String)> = (0..40)
            .map(|i| (code(i % 5), format!("o.xml: other {i}")))
            .collect();
        let mut whole = WarningLog::default();
        for piece in sealed.chunks(7_001) {
            let mut log = WarningLog::default();
            for (c, m) in piece {
                log.push(*c, m.clone());
            }
            whole.append(log);
        }
        let mut o = WarningLog::default();
        for (c, m) in &open {
            o.push(*c, m.clone());
        }
        assert_eq!(whole.len(), 30_000);
        assert_eq!(whole.messages().len(), KEPT_WARNINGS);
        assert_eq!(whole.not_kept(), 20_000);
        assert_eq!(report_share(&whole, Some(&o)), held_share(&sealed, &open));
        assert_eq!(report_share(&o, Some(&o)), held_share(&open, &open));
    }
}
