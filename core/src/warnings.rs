//! Warnings grouped by kind. A big input can raise the same warning thousands of times (a JUnit
//! file whose every suite declares the wrong failure count, a directory with ten thousand
//! repeated ids); they are shown and reported once per *kind*, with a count and the first few
//! places.
//!
//! A warning's kind is its message with the parts that vary masked ([`kind_of`]): the input
//! file in front (`path: `) becomes `<file>: `, every backtick-quoted name becomes `` `…` `` and
//! every run of digits becomes `N`. So `` a.xml: testsuite `x` declares failures="0" but holds 3 ``
//! and `` b.xml: testsuite `y` declares failures="0" but holds 12 `` are one kind,
//! `` <file>: testsuite `…` declares failures="N" but holds N ``. Its place ([`place_of`]) is
//! what was masked first: the file and the first quoted name.

use std::collections::HashMap;

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

/// How many warnings of one kind were raised (`gapscore.warning_counts`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct WarningCount {
    /// The message template (see the module documentation).
    pub kind: String,
    /// How many warnings of this kind.
    pub count: u64,
}

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

/// The warnings raised while reading, bounded: the first [`KEPT_WARNINGS`] messages, and a count
/// of every warning by kind (in first-seen order, [`LOGGED_KINDS`] apart).
#[derive(Clone, Default)]
pub struct WarningLog {
    kept: Vec<String>,
    total: u64,
    kinds: Vec<WarningCount>,
    at: HashMap<String, usize>,
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
    pub fn push(&mut self, message: String) {
        self.total += 1;
        self.count_kind(kind_of(&message), 1, LOGGED_KINDS);
        if self.kept.len() < KEPT_WARNINGS {
            self.kept.push(message);
        }
    }

    /// Adds `other`'s warnings after this log's, as if they had been pushed here in order.
    pub fn append(&mut self, other: WarningLog) {
        self.total += other.total;
        for k in other.kinds {
            self.count_kind(k.kind, k.count, LOGGED_KINDS);
        }
        let room = KEPT_WARNINGS.saturating_sub(self.kept.len());
        self.kept.extend(other.kept.into_iter().take(room));
    }

    fn count_kind(&mut self, mut kind: String, n: u64, apart: usize) {
        if !self.at.contains_key(&kind) && self.at.len() >= apart {
            OTHER_KINDS.clone_into(&mut kind);
        }
        match self.at.get(&kind) {
            Some(&i) => self.kinds[i].count += n,
            None => {
                self.at.insert(kind.clone(), self.kinds.len());
                self.kinds.push(WarningCount { kind, count: n });
            }
        }
    }

    /// The messages kept, in the order they were raised.
    pub fn messages(&self) -> &[String] {
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

    /// Every warning counted by kind, in first-seen order.
    pub fn counts(&self) -> &[WarningCount] {
        &self.kinds
    }
}

/// The report's share of the sealed suite's warnings and the open suite's (each message of the
/// open suite prefixed `open: `): the first [`REPORT_WARNINGS`] messages, and the count of every
/// warning by kind (at most [`REPORT_KINDS`] apart), in first-seen order. The counts are empty
/// when there was no warning.
pub fn report_share(
    sealed: &WarningLog,
    open: Option<&WarningLog>,
) -> (Vec<String>, Vec<WarningCount>) {
    let mut share = WarningLog::default();
    let mut warnings: Vec<String> = sealed.kept.iter().take(REPORT_WARNINGS).cloned().collect();
    for k in &sealed.kinds {
        share.count_kind(k.kind.clone(), k.count, REPORT_KINDS);
    }
    if let Some(o) = open {
        let room = REPORT_WARNINGS.saturating_sub(warnings.len());
        warnings.extend(o.kept.iter().take(room).map(|w| format!("open: {w}")));
        for k in &o.kinds {
            // `kind_of("open: " + w)` is `"open: " + kind_of(w)`; the catch-all stays one kind.
            let kind = if k.kind == OTHER_KINDS {
                OTHER_KINDS.to_owned()
            } else {
                format!("open: {}", k.kind)
            };
            share.count_kind(kind, k.count, REPORT_KINDS);
        }
    }
    (warnings, share.kinds)
}

/// One kind of warning among several, for the grouped line.
#[derive(Debug)]
pub struct Group {
    /// The first message of the kind, shown in full.
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

/// Groups messages by kind, in the order each kind first occurs.
pub fn group<'a>(messages: impl IntoIterator<Item = &'a str>) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    let mut first_place: Vec<Option<String>> = Vec::new();
    for m in messages {
        let kind = kind_of(m);
        match at.get(&kind) {
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
                at.insert(kind, groups.len());
                first_place.push(place_of(m));
                groups.push(Group {
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
            kind_of("sealed test id `m::a` occurs 4 times; every entry is counted"),
            "sealed test id `…` occurs N times; every entry is counted"
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
    fn groups_count_and_name_places() {
        let msgs: Vec<String> = (0..10)
            .map(|i| format!("sealed test id `t{i}` occurs 2 times; every entry is counted"))
            .chain(["advisory report: x".to_owned()])
            .collect();
        let g = group(msgs.iter().map(String::as_str));
        assert_eq!(g.len(), 2);
        assert_eq!(
            g[0].line(),
            "sealed test id `t0` occurs 2 times; every entry is counted (and 9 more like it: `t1`, `t2`, `t3`, …; --verbose shows each)"
        );
        assert_eq!(g[1].line(), "advisory report: x");
        let mut log = WarningLog::default();
        for m in msgs.iter().cycle().take(250) {
            log.push(m.clone());
        }
        let (kept, counts) = report_share(&log, None);
        assert_eq!(kept.len(), REPORT_WARNINGS);
        assert_eq!(counts[0].count, 228);
    }

    /// What the report said when every message was held: the first messages and the count of
    /// every kind over the sealed list followed by the open one, at most `REPORT_KINDS` apart.
    fn held_share(sealed: &[String], open: &[String]) -> (Vec<String>, Vec<WarningCount>) {
        let all: Vec<String> = sealed
            .iter()
            .cloned()
            .chain(open.iter().map(|w| format!("open: {w}")))
            .collect();
        let mut counts: Vec<WarningCount> = Vec::new();
        for w in &all {
            let mut kind = kind_of(w);
            let known = counts.iter().any(|c| c.kind == kind);
            if !known && counts.iter().filter(|c| c.kind != OTHER_KINDS).count() >= REPORT_KINDS {
                OTHER_KINDS.clone_into(&mut kind);
            }
            match counts.iter_mut().find(|c| c.kind == kind) {
                Some(c) => c.count += 1,
                None => counts.push(WarningCount { kind, count: 1 }),
            }
        }
        (all.into_iter().take(REPORT_WARNINGS).collect(), counts)
    }

    #[test]
    fn a_log_in_pieces_reports_as_the_whole_list_did_and_keeps_memory_bounded() {
        // 150 kinds (`x.xml: kind-K line N`, the number masked) over 30,000 warnings, split
        // into three logs appended in order; the open suite's 5 kinds come after.
        let msg = |i: usize| format!("x.xml: kind{} `t{i}` at line {i}", char_kind(i % 150));
        let sealed: Vec<String> = (0..30_000).map(msg).collect();
        let open: Vec<String> = (0..40)
            .map(|i| format!("o.xml: other{}", char_kind(i % 5)))
            .collect();
        let mut whole = WarningLog::default();
        for piece in sealed.chunks(7_001) {
            let mut log = WarningLog::default();
            for m in piece {
                log.push(m.clone());
            }
            whole.append(log);
        }
        let mut o = WarningLog::default();
        for m in &open {
            o.push(m.clone());
        }
        assert_eq!(whole.len(), 30_000);
        assert_eq!(whole.messages().len(), KEPT_WARNINGS);
        assert_eq!(whole.not_kept(), 20_000);
        assert_eq!(report_share(&whole, Some(&o)), held_share(&sealed, &open));
        assert_eq!(report_share(&o, Some(&o)), held_share(&open, &open));
    }

    /// Letters for a kind number, so that the number is not masked.
    fn char_kind(k: usize) -> String {
        let a = char::from(b'a' + u8::try_from(k % 26).unwrap());
        let b = char::from(b'a' + u8::try_from(k / 26).unwrap());
        format!("{b}{a}")
    }
}
