//! Line lexing: the parts of a test point line (`ok`/`not ok`, number, description, `# SKIP`/
//! `# TODO` directive, `# time=`, a buffered subtest's `{`) and of a plan line (`1..N`,
//! `1..0 # SKIP why`). Pure functions of the line's text; `Parser::handle` (parser.rs) picks
//! which one a line goes to from its first byte. Fixed-form lines (`TAP version`, `pragma`,
//! `Bail out!`, comments, `---`, `}`) are recognised in that match itself, kept whole because it
//! runs for every line.
//!
//! Every function here is `#[inline]`: release builds give each module its own codegen unit,
//! and the hint keeps these compiled into the per-line code that calls them, as when they lived
//! in parser.rs (the per-line path was tuned with callgrind).

/// The title mocha's TAP reporter gives an error thrown outside any test (`not ok N Uncaught
/// error outside test suite`): a failure it writes beyond its plan (its `# tests` counts it).
pub(crate) const MOCHA_UNCAUGHT: &str = "Uncaught error outside test suite";

/// A test point, as read from its line.
#[derive(Debug, PartialEq)]
pub(crate) struct Point<'a> {
    pub(crate) ok: bool,
    pub(crate) number: Option<u64>,
    pub(crate) desc: &'a str,
    pub(crate) directive: Directive<'a>,
    pub(crate) time: Option<f64>,
    /// `ok 1 - name {`: a buffered subtest follows.
    pub(crate) opens_block: bool,
    /// The description has a `[`, so it may name a category.
    pub(crate) bracket: bool,
    /// An `ok` line that ends in another point's `not ok` (`ok 1 # time=not ok 1`): text printed
    /// without a newline just before the harness's own verdict ([`glued_failure`]).
    pub(crate) glued_failure: bool,
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Directive<'a> {
    None,
    Skip(&'a str),
    Todo(&'a str),
}

/// `s` without its leading spaces and tabs (a byte loop: the char-set pattern is not inlined).
#[inline]
fn trim_blank_start(s: &str) -> &str {
    let n = s.bytes().take_while(|b| matches!(b, b' ' | b'\t')).count();
    s.get(n..).unwrap_or("")
}

/// `s.trim_end()`, its ASCII whitespace taken off by a byte loop: only a non-ASCII last byte
/// (which may end a Unicode space) goes to `str::trim_end`.
#[inline]
fn trim_end_fast(s: &str) -> &str {
    let b = s.as_bytes();
    let mut end = b.len();
    while end > 0 && matches!(b[end - 1], b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r') {
        end -= 1;
    }
    let t = &s[..end];
    if end > 0 && !b[end - 1].is_ascii() {
        t.trim_end()
    } else {
        t
    }
}

/// `s.trim_start()`, the same way from the front.
#[inline]
fn trim_start_fast(s: &str) -> &str {
    let b = s.as_bytes();
    let start = b
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r'))
        .unwrap_or(b.len());
    let t = &s[start..];
    if t.as_bytes().first().is_some_and(|c| !c.is_ascii()) {
        t.trim_start()
    } else {
        t
    }
}

/// Reads `ok`/`not ok` lines: `(not )?ok\b( \d+)?( -)? desc( # directive)?`.
#[inline]
pub(crate) fn parse_point(c: &str) -> Option<Point<'_>> {
    let (ok, rest) = if let Some(r) = c.strip_prefix("ok") {
        (true, r)
    } else if let Some(r) = c.strip_prefix("not ok") {
        (false, r)
    } else {
        return None;
    };
    // `\b`: `okay` is not a test point.
    if rest
        .as_bytes()
        .first()
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    {
        return None;
    }
    let rest = trim_blank_start(rest);
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let (number, rest) = if digits > 0 && digits <= 19 {
        // At most 19 digits always fit in a u64: folded directly, as `parse` would give.
        let n = Some(
            rest.bytes()
                .take(digits)
                .fold(0u64, |n, d| n * 10 + u64::from(d - b'0')),
        );
        (n, &rest[digits..])
    } else {
        (None, rest)
    };
    // A number glued to text (`ok 1a`) is part of the description.
    let (number, rest) = match rest.as_bytes().first() {
        Some(b) if number.is_some() && !matches!(b, b' ' | b'\t' | b'#') => {
            (None, c[c.len() - rest.len() - digits..].trim_start())
        }
        _ => (number, rest),
    };
    let mut rest = trim_blank_start(rest);
    if let Some(r) = rest.strip_prefix('-')
        && (r.is_empty() || r.starts_with([' ', '\t']))
    {
        rest = trim_blank_start(r);
    }
    let rest = trim_end_fast(rest);
    let (rest, opens_block) = match rest.strip_suffix('{') {
        Some(r) if r.is_empty() || r.ends_with([' ', '\t']) => (trim_end_fast(r), true),
        _ => (rest, false),
    };
    // One scan answers both questions for most lines: no `#` (directive) and no `[` (category).
    let (desc, directive, time, bracket) = match memchr::memchr2(b'#', b'[', rest.as_bytes()) {
        None => (rest, Directive::None, None, false),
        Some(at) => {
            // Nothing before `at` is a `#`: the directive search starts there.
            let (desc, directive, time) = split_directive(rest, at);
            // The first hit a `#` that ends the description: no `[` before it, no second scan.
            let bracket = !(rest.as_bytes()[at] == b'#' && desc.len() <= at)
                && memchr::memchr(b'[', desc.as_bytes()).is_some();
            (desc, directive, time, bracket)
        }
    };
    Some(Point {
        ok,
        number,
        desc,
        directive,
        time,
        opens_block,
        bracket,
        glued_failure: ok && glued_failure(rest),
    })
}

/// True when `rest` (an `ok` line after its `ok`) holds another point's verdict `not ok`, alone
/// or with a number and a description or directive after it, to the end of the line: the
/// implementation printed `ok 1 # time=` (or `ok 1 # TODO `) without a newline right before
/// Test::More's own `not ok 1`, and the harness's failure must not read as the pass in front of
/// it (found by an attack on the build). A description that merely says "not ok" in words
/// (`ok 3 - returns not ok status`, a test named `not ok`) is not one: the verdict must be
/// numbered or inside a directive, and followed by nothing, ` - ` or ` #`.
fn glued_failure(rest: &str) -> bool {
    let b = rest.as_bytes();
    memchr::memmem::find_iter(b, b"not ok").any(|at| {
        let before_ok = at == 0 || !(b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_');
        let after = trim_blank_start(&rest[at + "not ok".len()..]);
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        // Numbered (as harnesses number their points), or inside a directive; a test merely
        // named `not ok` (`ok 50 not ok`, in tap's own suite) is neither.
        let numbered_or_directive = digits > 0 || memchr::memchr(b'#', &b[..at]).is_some();
        let after = trim_end_fast(trim_blank_start(&after[digits..]));
        before_ok
            && numbered_or_directive
            && (after.is_empty()
                || after.starts_with("- ")
                || after == "-"
                || after.starts_with('#'))
    })
}

/// The description's parts read without the shortcuts of [`parse_point`] (the directive
/// searched from the start, the bracket by its own scan): the reference its fast path is
/// checked against.
#[cfg(test)]
fn desc_parts_general(rest: &str) -> (&str, Directive<'_>, Option<f64>, bool) {
    let (desc, directive, time) = split_directive(rest, 0);
    let bracket = memchr::memchr(b'[', desc.as_bytes()).is_some();
    (desc, directive, time, bracket)
}

/// Splits a description from its directive: the first unescaped `#` (at the start or after
/// whitespace) followed by `SKIP`, `TODO` (any case) or `time=`. Any other `#` is part of the
/// name, which keeps escapes as written. `from`: where to start looking (no `#` before it).
#[inline]
fn split_directive(s: &str, from: usize) -> (&str, Directive<'_>, Option<f64>) {
    let b = s.as_bytes();
    let mut from = from;
    while let Some(i) = memchr::memchr(b'#', &b[from..]).map(|i| i + from) {
        from = i + 1;
        let escaped = i > 0 && b[i - 1] == b'\\';
        let separated = i == 0 || matches!(b[i - 1], b' ' | b'\t');
        if escaped || !separated {
            continue;
        }
        let after = trim_start_fast(&s[i + 1..]);
        let desc = trim_end_fast(&s[..i]);
        let word_end = |w: usize| {
            after
                .as_bytes()
                .get(w)
                .is_none_or(|c| !c.is_ascii_alphabetic())
        };
        let starts = |w: &str| {
            after
                .get(..w.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(w))
        };
        // The first letter picks the one or two words to check.
        match after.as_bytes().first().map(u8::to_ascii_lowercase) {
            Some(b's') => {
                if starts("skipped") && word_end(7) {
                    return (desc, Directive::Skip(reason(&after[7..])), None);
                }
                if starts("skip") && word_end(4) {
                    return (desc, Directive::Skip(reason(&after[4..])), None);
                }
            }
            Some(b't') => {
                if starts("todo") && word_end(4) {
                    return (desc, Directive::Todo(reason(&after[4..])), None);
                }
                if let Some(t) = after.strip_prefix("time=") {
                    return (desc, Directive::None, parse_time(t));
                }
            }
            _ => {}
        }
    }
    (s, Directive::None, None)
}

/// Milliseconds to seconds, rounded to the nanosecond so `0.894649` ms does not print as
/// `0.0008946490000000001` s.
#[inline]
pub(crate) fn ms_to_secs(ms: f64) -> f64 {
    (ms * 1e6).round() / 1e9
}

#[inline]
fn reason(s: &str) -> &str {
    s.trim_start_matches([':', ' ', '\t']).trim()
}

/// `12ms`, `1.5s`, `12` (milliseconds, node-tap's unit) → seconds.
#[inline]
fn parse_time(t: &str) -> Option<f64> {
    let t = trim_end_fast(trim_start_fast(t));
    // A byte scan: a non-ASCII character is neither a digit nor a dot, and its first byte ends
    // the number just as the character would.
    let num_end = t
        .bytes()
        .position(|b| !(b.is_ascii_digit() || b == b'.'))
        .unwrap_or(t.len());
    let num = &t[..num_end];
    let v: f64 = match decimal_fast(num) {
        Some(v) => v,
        None => num.parse().ok()?,
    };
    let unit = trim_end_fast(trim_start_fast(&t[num_end..]));
    let secs = match unit {
        "" | "ms" => ms_to_secs(v),
        "s" => v,
        "us" | "µs" => v / 1e6,
        _ => return None,
    };
    (secs.is_finite() && secs >= 0.0).then_some(secs)
}

/// `digits[.digits]` with at most 15 digits in all, as `str::parse::<f64>` reads it: the digits
/// as an integer (exact below 2^53) divided by a power of ten (exact up to 10^22) is one
/// correctly rounded operation, so the result is the correctly rounded value `parse` gives
/// (its own fast path is the same division). Anything else (more digits, no digit, two dots)
/// is left to `parse`. Every test point of node's TAP has a `# time=`.
#[inline]
fn decimal_fast(s: &str) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let mut m: u64 = 0;
    let mut digits = 0usize;
    let mut frac: Option<usize> = None;
    for b in s.bytes() {
        if b == b'.' {
            if frac.is_some() {
                return None;
            }
            frac = Some(0);
        } else {
            m = m * 10 + u64::from(b - b'0');
            digits += 1;
            if digits > 15 {
                return None;
            }
            if let Some(f) = frac.as_mut() {
                *f += 1;
            }
        }
    }
    if digits == 0 {
        return None;
    }
    // m < 10^15 < 2^53: exact as an f64.
    #[allow(clippy::cast_precision_loss)]
    let m = m as f64;
    Some(m / POW10[frac.unwrap_or(0)])
}

/// `1..N` with an optional `# SKIP reason` or `# comment`.
#[inline]
pub(crate) fn parse_plan(c: &str) -> Option<(u64, u64, Option<&str>)> {
    let dots = c.find("..")?;
    let first: u64 = c[..dots].parse().ok()?;
    let rest = &c[dots + 2..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 19 {
        return None;
    }
    let last: u64 = rest[..digits].parse().ok()?;
    let tail = rest[digits..].trim();
    if !(tail.is_empty() || tail.starts_with('#')) {
        return None;
    }
    let skip = tail.strip_prefix('#').and_then(|t| {
        let t = t.trim_start();
        t.get(..4)
            .is_some_and(|p| p.eq_ignore_ascii_case("skip"))
            .then(|| reason(t.get(4..).unwrap_or("")))
    });
    Some((first, last, skip))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn test_points() {
        let p = parse_point("ok 1 - add returns sum").unwrap();
        assert_eq!((p.ok, p.number, p.desc), (true, Some(1), "add returns sum"));
        let p = parse_point("not ok 12 greet # TODO later").unwrap();
        assert_eq!(p.directive, Directive::Todo("later"));
        assert_eq!(p.desc, "greet");
        let p = parse_point("ok 5 # skip requires network").unwrap();
        assert_eq!(
            (p.desc, p.directive),
            ("", Directive::Skip("requires network"))
        );
        let p = parse_point("ok - escaped \\# hash").unwrap();
        assert_eq!((p.number, p.desc), (None, "escaped \\# hash"));
        let p = parse_point("ok 3 - issue #12 fixed").unwrap();
        assert_eq!((p.desc, p.directive), ("issue #12 fixed", Directive::None));
        let p = parse_point("ok 3 - t # time=12.5ms").unwrap();
        assert_eq!(p.time, Some(0.0125));
        let p = parse_point("ok 2 - sub {").unwrap();
        assert!(p.opens_block);
        assert_eq!(p.desc, "sub");
        assert!(parse_point("okay").is_none());
        assert!(parse_point("ok").is_some());
        let p = parse_point("ok 5 calc fetch remote # SKIP -").unwrap();
        assert_eq!(p.directive, Directive::Skip("-"));
    }

    /// Every test point line of the fixtures, and generated ones, read by `parse_point` and by
    /// the general split of its description: the same parts.
    #[test]
    fn point_lines_read_the_same_by_both_paths() {
        fn check(line: &str) -> bool {
            let Some(p) = parse_point(line) else {
                return false;
            };
            // The text parse_point split: from the description's start (a slice of the line)
            // to the line's end, without a block's `{`.
            let start = (p.desc.as_ptr() as usize)
                .checked_sub(line.as_ptr() as usize)
                .filter(|s| *s <= line.len())
                .unwrap_or(line.len());
            let tail = line[start..].trim_end();
            let tail = match tail.strip_suffix('{') {
                Some(r) if p.opens_block && (r.is_empty() || r.ends_with([' ', '\t'])) => {
                    r.trim_end()
                }
                _ => tail,
            };
            let (desc, directive, time, bracket) = desc_parts_general(tail);
            assert_eq!(
                (p.desc, &p.directive, p.time.map(f64::to_bits), p.bracket),
                (desc, &directive, time.map(f64::to_bits), bracket),
                "{line:?}"
            );
            true
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut dirs = vec![root];
        let mut points = 0;
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                    continue;
                }
                let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
                for l in text.lines() {
                    points += usize::from(check(l.trim_start()));
                }
            }
        }
        assert!(points > 300, "{points} point lines");
        let parts = [
            "x",
            "#",
            " #",
            "\\#",
            "[",
            "]",
            " # SKIP",
            " # skip: r",
            " # skipped",
            " # Todo",
            " # TODO later",
            " # time=1.5ms",
            " # TIME=2",
            " #time=3s",
            " # tim",
            "\t#\tskip",
            " {",
            "{",
            " # [a]",
            "[tag] ",
            "é",
            "\u{a0}",
            "# todo",
            " ## skip",
        ];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..30_000 {
            let mut line = String::from(if x & 1 == 0 { "ok 1 - " } else { "not ok " });
            for _ in 0..1 + x % 6 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                line.push_str(parts[(x % parts.len() as u64) as usize]);
            }
            assert!(check(&line), "{line:?}");
        }
    }

    #[test]
    fn fast_trims_trim_as_str_does() {
        let parts = [
            " ", "\t", "\r", "\n", "\x0B", "\x0C", "\x1F", "\u{a0}", "\u{3000}", "a", "é", "",
        ];
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..50_000 {
            let mut t = String::new();
            for _ in 0..x % 6 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                t.push_str(parts[(x % parts.len() as u64) as usize]);
            }
            assert_eq!(trim_end_fast(&t), t.trim_end(), "{t:?}");
            assert_eq!(trim_start_fast(&t), t.trim_start(), "{t:?}");
        }
    }

    #[test]
    fn fast_decimals_read_as_parse_does() {
        let mut cases: Vec<String> = [
            "0",
            "7.542",
            "0.894649",
            "5.",
            ".5",
            "123456789012345",
            "1.23456789012345",
            "0.00000000000001",
            "99999.9999999999",
            "3.0000000000001",
            "47.385",
            "0.1",
            "0.3",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        // Deterministic spread of values with 1 to 15 digits and every dot position.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 15 + 1) as usize;
            let digits = format!("{:015}", x % 1_000_000_000_000_000);
            let d = &digits[15 - n..];
            let dot = (x >> 40) as usize % (n + 1);
            cases.push(format!("{}.{}", &d[..dot], &d[dot..]));
            cases.push(d.to_owned());
        }
        for c in &cases {
            let want: f64 = c.parse().unwrap();
            assert_eq!(
                decimal_fast(c).map(f64::to_bits),
                Some(want.to_bits()),
                "{c}"
            );
        }
        for c in ["", ".", "1.2.3", "1234567890123456", "0.000000000000001"] {
            assert_eq!(decimal_fast(c), None, "{c}");
        }
        assert_eq!(parse_time("1.5s"), Some(1.5));
        assert_eq!(parse_time("12"), Some(0.012));
        assert_eq!(parse_time("1.2.3ms"), None);
        assert_eq!(parse_time("2µs"), Some(2e-6));
    }

    #[test]
    fn plans() {
        assert_eq!(parse_plan("1..12"), Some((1, 12, None)));
        assert_eq!(parse_plan("1..0 # SKIP no db"), Some((1, 0, Some("no db"))));
        assert_eq!(parse_plan("1..3 # plan"), Some((1, 3, None)));
        assert_eq!(parse_plan("1..x"), None);
        assert_eq!(parse_plan("12 items"), None);
    }

    #[test]
    fn a_failure_glued_onto_a_pass_is_seen_and_words_are_not() {
        let glued = |l: &str| parse_point(l).unwrap().glued_failure;
        assert!(glued("ok 1 # time=not ok 1"));
        assert!(glued("ok 1 # TODO not ok 1"));
        assert!(glued("ok 1 - adds # TODO not ok 1 - adds"));
        assert!(glued("ok 4 not ok 5 - muls"));
        assert!(!glued("ok 50 not ok"));
        assert!(!glued("ok 3 - returns not ok status"));
        assert!(!glued("ok 3 - returns not ok 5 times"));
        assert!(!glued("ok 126 captures not ok SKIP"));
        assert!(!glued("not ok 1 # TODO not ok 1"));
    }
}
