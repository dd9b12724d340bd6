//! The reference implementations' arithmetic, so a finding can say which one a report's score
//! or level matches: Python rounds ties to even and classifies the unrounded score, Go rounds
//! half up and classifies the rounded score, the shell validator truncates to tenths, Terminal
//! Stampede truncates to whole percent. gapscore decides the level on exact integers
//! ([`Level::from_counts`]).

use gapscore_core::{Level, Score};

/// A way of turning failed/total into the displayed score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// Python's `round(x, 1)`: the binary value, ties to even (1/16 → 6.2). gapscore's own.
    PythonHalfEven,
    /// Go's `math.Round(x*10)/10`: half away from zero (1/16 → 6.3).
    GoHalfUp,
    /// The shell validator: `failed*1000/total` in integers, tenths truncated (2/3 → 66.6).
    Truncated,
    /// Terminal Stampede: `failed*100/total` in integers, whole percent truncated (2/18 → 11).
    WholePercent,
    /// No rounding at all.
    Unrounded,
}

impl Rounding {
    /// Every rounding, in the order they are named.
    pub const ALL: [Rounding; 5] = [
        Rounding::PythonHalfEven,
        Rounding::GoHalfUp,
        Rounding::Truncated,
        Rounding::WholePercent,
        Rounding::Unrounded,
    ];

    /// A name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Rounding::PythonHalfEven => "python half-even",
            Rounding::GoHalfUp => "go half-up",
            Rounding::Truncated => "truncation",
            Rounding::WholePercent => "whole-percent truncation (terminal stampede)",
            Rounding::Unrounded => "unrounded",
        }
    }

    /// The score this rounding displays for `failed` of `total` (0 for an empty suite, as all
    /// references do).
    pub fn apply(self, failed: u64, total: u64) -> f64 {
        if total == 0 {
            return 0.0;
        }
        let pct = Score::new(failed, total).percent();
        match self {
            Rounding::PythonHalfEven => Score::new(failed, total).rounded(),
            Rounding::GoHalfUp => (pct * 10.0).round() / 10.0,
            Rounding::Truncated => (u128::from(failed) * 1000 / u128::from(total)) as f64 / 10.0,
            Rounding::WholePercent => (u128::from(failed) * 100 / u128::from(total)) as f64,
            Rounding::Unrounded => pct,
        }
    }

    /// The decimal this rounding displays for `failed` of `total`, and the most decimals it
    /// writes it with: one for the tenths roundings, none for whole percent, and the shortest
    /// decimal of the binary value for the unrounded score (what Python, Go and JSON print).
    /// The unrounded score is the binary value of either order of the arithmetic
    /// (`failed / total * 100` or `failed * 100 / total`: 33.333333333333336 and
    /// 33.33333333333333 for 1/3), each as exactly as it prints.
    pub fn written(self, failed: u64, total: u64) -> Vec<(Written, u32)> {
        let max = match self {
            Rounding::PythonHalfEven | Rounding::GoHalfUp | Rounding::Truncated => 1,
            Rounding::WholePercent => 0,
            Rounding::Unrounded => {
                let (f, t) = (failed as f64, total.max(1) as f64);
                return [self.apply(failed, total), f / t * 100.0, f * 100.0 / t]
                    .into_iter()
                    .filter_map(Written::from_f64)
                    .map(|w| (w, w.decimals))
                    .collect();
            }
        };
        Written::from_f64(self.apply(failed, total))
            .map(|w| (w, max))
            .into_iter()
            .collect()
    }
}

/// Equal as numbers read from a report: exactly. Two texts of one decimal (`11.1`, `11.10`,
/// `1.11e1`) read as one binary value, so no tolerance is needed, and none is allowed: a
/// tolerance is a band a forged score hides in (49.99999996 for 1 of 2).
pub fn same(a: f64, b: f64) -> bool {
    a.total_cmp(&b).is_eq() || (a == 0.0 && b == 0.0)
}

/// Whether `value` is the binary value of the decimal `written` (the text a report wrote and
/// the number serde read from it): the only place a binary-noise tolerance stands, because
/// `mantissa / 10^decimals` computed in floating point may differ from the parsed value in
/// the last bit. It never compares a score with a count.
pub fn reads_as(written: Written, value: f64) -> bool {
    let w = written.value();
    (w - value).abs() <= 1e-12 * w.abs().max(value.abs()).max(1.0)
}

/// A decimal number exactly as a report wrote it: `mantissa / 10^decimals`, with the number
/// of decimals it was written with (`33.30` has two, `33.3` one, `1e1` none). A score is judged
/// at the precision it is written with, so the text matters, not the binary value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// The digits, signed, without the decimal point.
    pub mantissa: i128,
    /// How many of them are decimals.
    pub decimals: u32,
}

/// More decimals than this are not read (the number is unreadable as a score): a score of 0 to
/// 100 needs no more, and 10^20 times any count stays inside `i128`, so every comparison is
/// exact integer arithmetic.
const MAX_DECIMALS: u32 = 20;

impl Written {
    /// Reads a JSON number token (`-12.50`, `1.5e1`); `None` for anything else, for a number
    /// whose digits do not fit 38 places, or one with more than 20 decimals.
    pub fn parse(token: &str) -> Option<Written> {
        let (negative, rest) = match token.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, token),
        };
        let (number, exponent) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().ok()?),
            None => (rest, 0),
        };
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if whole.is_empty()
            || !whole
                .bytes()
                .chain(fraction.bytes())
                .all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let mut mantissa: i128 = 0;
        for b in whole.bytes().chain(fraction.bytes()) {
            mantissa = mantissa
                .checked_mul(10)?
                .checked_add(i128::from(b - b'0'))?;
        }
        // O(digits): the exponent is applied with one checked power, never a loop per unit of
        // it, and any exponent that over- or underflows is an unreadable number, not a panic.
        let decimals = i64::try_from(fraction.len()).ok()?.checked_sub(exponent)?;
        let decimals = if decimals < 0 {
            let shift = u32::try_from(decimals.checked_neg()?).ok()?;
            mantissa = mantissa.checked_mul(10i128.checked_pow(shift)?)?;
            0
        } else {
            u32::try_from(decimals)
                .ok()
                .filter(|d| *d <= MAX_DECIMALS)?
        };
        Some(Written {
            mantissa: if negative { -mantissa } else { mantissa },
            decimals,
        })
    }

    /// The shortest decimal that reads back as `x` (what a document parsed without its text
    /// can say about how the number was written).
    pub fn from_f64(x: f64) -> Option<Written> {
        if !x.is_finite() {
            return None;
        }
        Written::parse(&format!("{x}"))
    }

    /// The binary value.
    pub fn value(self) -> f64 {
        self.mantissa as f64 / 10f64.powi(self.decimals as i32)
    }

    /// Whether this is a rounding of the exact fraction `num / den` (`den > 0`) at the
    /// precision it is written with: the exact value rounded down or up to that many
    /// decimals, which covers half-even, half-up and truncation alike. 49.95 is no rounding of
    /// 50, and 0.05 none of 0; 33, 33.3, 33.33 and 33.334 are all roundings of 100/3.
    pub fn rounds(self, num: i128, den: i128) -> bool {
        if den <= 0 {
            return false;
        }
        // |m/10^d - num/den| < 1/10^d  <=>  |m*den - num*10^d| < den.
        let exact = 10i128
            .checked_pow(self.decimals)
            .and_then(|p| num.checked_mul(p))
            .zip(self.mantissa.checked_mul(den))
            .and_then(|(scaled, m)| m.checked_sub(scaled));
        // Past i128 (counts beyond any suite): no exact answer, so no match.
        exact.is_some_and(|diff| diff.unsigned_abs() < den.unsigned_abs())
    }

    /// Whether this is the decimal `reference` exactly, written with no more decimals than
    /// `max_decimals` (`14.0` is not `14` for a reference that writes whole percent, since
    /// `14.0` claims a tenth it does not know).
    pub fn is_exactly(self, reference: Written, max_decimals: u32) -> bool {
        if self.decimals > max_decimals {
            return false;
        }
        let d = self.decimals.max(reference.decimals);
        let scale = |w: Written| {
            10i128
                .checked_pow(d - w.decimals)
                .and_then(|p| w.mantissa.checked_mul(p))
        };
        matches!((scale(self), scale(reference)), (Some(a), Some(b)) if a == b)
    }
}

impl std::fmt::Display for Written {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digits = self.mantissa.unsigned_abs().to_string();
        let d = self.decimals as usize;
        let sign = if self.mantissa < 0 { "-" } else { "" };
        if d == 0 {
            return write!(f, "{sign}{digits}");
        }
        let padded = format!("{digits:0>width$}", width = d + 1);
        let (whole, fraction) = padded.split_at(padded.len() - d);
        write!(f, "{sign}{whole}.{fraction}")
    }
}

/// How a reported score relates to the counts.
#[derive(Debug, Clone, PartialEq)]
pub enum ScoreMatch {
    /// Equal to these roundings of failed/total×100.
    Roundings(Vec<Rounding>),
    /// No reference rounding, but a rounding of the exact failed/total×100 at the precision it
    /// is written with (this many decimals).
    Rounded(u32),
    /// Not failed/total×100 under any rounding.
    Mismatch,
}

/// Compares a reported score, as written, with failed/total×100: a reference
/// implementation's rounding, or any rounding of the exact value at the score's own precision.
/// Nothing within a tolerance passes: 0.05 is not a score of no failures.
///
/// A reference rounding counts only as that reference writes it: the exact decimal it
/// displays, with no more decimals than it writes (`14` for whole-percent truncation of
/// 149/1000, not `14.000000`, which claims six decimals the truncation never had).
pub fn match_score(reported: Written, failed: u64, total: u64) -> ScoreMatch {
    let hits: Vec<Rounding> = Rounding::ALL
        .into_iter()
        .filter(|r| {
            r.written(failed, total)
                .into_iter()
                .any(|(w, max)| reported.is_exactly(w, max))
        })
        .collect();
    if !hits.is_empty() {
        return ScoreMatch::Roundings(hits);
    }
    if total > 0 && reported.rounds(i128::from(failed) * 100, i128::from(total)) {
        ScoreMatch::Rounded(reported.decimals)
    } else {
        ScoreMatch::Mismatch
    }
}

/// Whether `reported` could be a score of `total` tests at all: k/total×100 for some whole
/// k from 0 to total, under a reference rounding or at its own precision.
pub fn possible_score(reported: Written, total: u64) -> bool {
    if total == 0 {
        return reported.mantissa == 0;
    }
    let value = reported.value();
    if !(0.0..=100.0).contains(&value) {
        return false;
    }
    // The candidates around value × total / 100; the roundings move k by less than one.
    let k = (value * total as f64 / 100.0).floor() as u64;
    (k.saturating_sub(1)..=k.saturating_add(1).min(total))
        .any(|k| !matches!(match_score(reported, k, total), ScoreMatch::Mismatch))
}

/// Whether `velocity` is a rounding, at its own precision, of (initial - final) / cycles
/// computed exactly from the two scores as written (0 when no cycle ran).
pub fn velocity_fits(velocity: Written, initial: Written, fin: Written, cycles: u64) -> bool {
    if cycles == 0 {
        return velocity.mantissa == 0;
    }
    let m = initial.decimals.max(fin.decimals);
    let scaled = |w: Written| {
        10i128
            .checked_pow(m - w.decimals)
            .and_then(|p| w.mantissa.checked_mul(p))
    };
    let exact = scaled(initial)
        .zip(scaled(fin))
        .and_then(|(i, f)| i.checked_sub(f))
        .zip(
            10i128
                .checked_pow(m)
                .and_then(|p| p.checked_mul(i128::from(cycles))),
        );
    match exact {
        Some((num, den)) => velocity.rounds(num, den),
        None => {
            let want = (initial.value() - fin.value()) / cycles as f64;
            (velocity.value() - want).abs() < 10f64.powi(-(velocity.decimals as i32))
        }
    }
}

/// A level rule of a reference implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelRule {
    /// gapscore: exact integers, any failure at least minor.
    Exact,
    /// Python: the unrounded score classified (`<= 0` perfect, `<= 15` minor, ...).
    Python,
    /// Go: the half-up rounded score classified.
    Go,
    /// Shell: tenths truncated, classified on `X10` (`== 0`, `<= 150`, ...).
    Shell,
    /// Terminal Stampede: the whole-percent truncated score classified.
    Stampede,
}

impl LevelRule {
    /// Every rule.
    pub const ALL: [LevelRule; 5] = [
        LevelRule::Exact,
        LevelRule::Python,
        LevelRule::Go,
        LevelRule::Shell,
        LevelRule::Stampede,
    ];

    /// A name for messages.
    pub fn name(self) -> &'static str {
        match self {
            LevelRule::Exact => "exact integer rule",
            LevelRule::Python => "python rule (unrounded score classified)",
            LevelRule::Go => "go rule (half-up rounded score classified)",
            LevelRule::Shell => "shell rule (truncated tenths classified)",
            LevelRule::Stampede => "terminal stampede rule (whole-percent truncated)",
        }
    }

    /// The level this rule gives for `failed` of `total`.
    pub fn apply(self, failed: u64, total: u64) -> Level {
        match self {
            LevelRule::Exact => Level::from_counts(failed, total),
            LevelRule::Python => classify(Rounding::Unrounded.apply(failed, total)),
            LevelRule::Go => classify(Rounding::GoHalfUp.apply(failed, total)),
            LevelRule::Shell => classify(Rounding::Truncated.apply(failed, total)),
            LevelRule::Stampede => classify(Rounding::WholePercent.apply(failed, total)),
        }
    }
}

/// The reference validators' `classify`: `<= 0` perfect, `<= 15` minor, `<= 30` moderate,
/// `<= 50` significant, else critical.
pub fn classify(score: f64) -> Level {
    if score <= 0.0 {
        Level::Perfect
    } else if score <= 15.0 {
        Level::Minor
    } else if score <= 30.0 {
        Level::Moderate
    } else if score <= 50.0 {
        Level::Significant
    } else {
        Level::Critical
    }
}

/// Reads a level name.
pub fn parse_level(s: &str) -> Option<Level> {
    match s {
        "perfect" => Some(Level::Perfect),
        "minor" => Some(Level::Minor),
        "moderate" => Some(Level::Moderate),
        "significant" => Some(Level::Significant),
        "critical" => Some(Level::Critical),
        _ => None,
    }
}

/// A number as the report wrote it: integers without a fraction, others as Rust prints them.
pub fn show(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_roundings_disagree_where_the_research_measured_it() {
        assert_eq!(Rounding::PythonHalfEven.apply(1, 16), 6.2);
        assert_eq!(Rounding::GoHalfUp.apply(1, 16), 6.3);
        assert_eq!(Rounding::Truncated.apply(2, 3), 66.6);
        assert_eq!(Rounding::PythonHalfEven.apply(2, 3), 66.7);
        assert_eq!(Rounding::WholePercent.apply(2, 18), 11.0);
        assert_eq!(
            match_score(w("6.3"), 1, 16),
            ScoreMatch::Roundings(vec![Rounding::GoHalfUp])
        );
        assert_eq!(match_score(w("11.11"), 2, 18), ScoreMatch::Rounded(2));
        assert_eq!(match_score(w("12.0"), 2, 18), ScoreMatch::Mismatch);
    }

    fn w(s: &str) -> Written {
        Written::parse(s).unwrap()
    }

    #[test]
    fn a_score_is_a_rounding_at_the_precision_it_is_written_with() {
        for ok in ["33", "33.3", "33.33", "33.333", "33.334", "33.3333333"] {
            assert!(
                !matches!(match_score(w(ok), 1, 3), ScoreMatch::Mismatch),
                "{ok} of 1/3"
            );
        }
        for bad in ["33.2", "33.32", "33.335", "34.0", "32"] {
            assert_eq!(
                match_score(w(bad), 1, 3),
                ScoreMatch::Mismatch,
                "{bad} of 1/3"
            );
        }
        // The "finer rounding" tolerance of ±0.05 is gone.
        assert_eq!(match_score(w("0.05"), 0, 2), ScoreMatch::Mismatch);
        assert_eq!(match_score(w("49.95"), 1, 2), ScoreMatch::Mismatch);
        assert_eq!(match_score(w("33.33"), 1, 3), ScoreMatch::Rounded(2));
        // Trailing zeros are precision: 0.10 is no rounding of 1/3000 at two decimals.
        assert_eq!(match_score(w("0.10"), 1, 3000), ScoreMatch::Mismatch);
        assert_eq!(match_score(w("0.03"), 1, 3000), ScoreMatch::Rounded(2));
        // The references' roundings still pass, whatever their precision.
        assert!(matches!(
            match_score(w("11"), 2, 18),
            ScoreMatch::Roundings(_)
        ));
        assert!(matches!(
            match_score(w("66.6"), 2, 3),
            ScoreMatch::Roundings(_)
        ));
        assert!(matches!(
            match_score(w("33.333333333333336"), 1, 3),
            ScoreMatch::Roundings(_)
        ));
    }

    #[test]
    fn numbers_are_read_as_written() {
        assert_eq!(
            w("33.30"),
            Written {
                mantissa: 3330,
                decimals: 2
            }
        );
        assert_eq!(
            w("-1.5e1"),
            Written {
                mantissa: -15,
                decimals: 0
            }
        );
        assert_eq!(
            w("1.25E-1"),
            Written {
                mantissa: 125,
                decimals: 3
            }
        );
        assert_eq!(w("0.05").to_string(), "0.05");
        assert_eq!(w("-0.5").to_string(), "-0.5");
        assert_eq!(Written::parse("1.2.3"), None);
        assert_eq!(Written::parse(".5"), None);
        assert_eq!(Written::from_f64(6.25), Some(w("6.25")));
    }

    #[test]
    fn a_reference_rounding_counts_only_at_the_precision_it_writes() {
        // No tolerance: 49.99999996 is no rounding of 50 at eight decimals.
        for bad in ["49.99999996", "50.00000004", "49.9999999"] {
            assert_eq!(match_score(w(bad), 1, 2), ScoreMatch::Mismatch, "{bad}");
        }
        // Whole-percent truncation writes 14 for 149/1000, tenths truncation 66.6 for 2/3.
        assert!(matches!(
            match_score(w("14"), 149, 1000),
            ScoreMatch::Roundings(_)
        ));
        for bad in ["14.000000", "14.0"] {
            assert_eq!(
                match_score(w(bad), 149, 1000),
                ScoreMatch::Mismatch,
                "{bad}"
            );
        }
        assert!(matches!(
            match_score(w("66.6"), 2, 3),
            ScoreMatch::Roundings(_)
        ));
        assert_eq!(match_score(w("66.600"), 2, 3), ScoreMatch::Mismatch);
        assert_eq!(match_score(w("0.000000"), 1, 101), ScoreMatch::Mismatch);
        assert!(matches!(
            match_score(w("0"), 1, 101),
            ScoreMatch::Roundings(_)
        ));
        // Trailing zeros a reference writes are fine: Python's 50.0, Go's 50.
        for ok in ["50", "50.0", "50.00", "5e1"] {
            assert!(
                !matches!(match_score(w(ok), 1, 2), ScoreMatch::Mismatch),
                "{ok}"
            );
        }
    }

    /// A small deterministic generator: the test needs no dependency and sees the same cases
    /// on every run.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self, below: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % below
        }
    }

    /// Independent oracle: `text` (a decimal with `d` decimals) is accepted exactly when it
    /// is the exact fraction rounded down or up at `d` decimals, or a reference rounding as
    /// that reference writes it.
    fn oracle(text: &str, failed: u64, total: u64) -> bool {
        let wr = w(text);
        let (f, t) = (i128::from(failed), i128::from(total));
        let p = 10i128.pow(wr.decimals);
        let down = f * 100 * p / t;
        let exact_multiple = (f * 100 * p) % t == 0;
        let at_precision = wr.mantissa == down || (!exact_multiple && wr.mantissa == down + 1);
        let reference = Rounding::ALL.iter().any(|r| {
            let shown = match r {
                Rounding::WholePercent => (f * 100 / t).to_string(),
                Rounding::Truncated => Written {
                    mantissa: f * 1000 / t,
                    decimals: 1,
                }
                .to_string(),
                Rounding::Unrounded => {
                    let (fl, tl) = (failed as f64, total as f64);
                    return [fl / tl * 100.0, fl * 100.0 / tl].iter().any(|x| {
                        let reference = w(&format!("{x}"));
                        wr.decimals <= reference.decimals
                            && wr.mantissa * 10i128.pow(reference.decimals - wr.decimals)
                                == reference.mantissa
                    });
                }
                _ => format!("{}", r.apply(failed, total)),
            };
            let reference = w(&shown);
            let max = if *r == Rounding::WholePercent { 0 } else { 1 };
            wr.decimals <= max
                && wr.mantissa * 10i128.pow(reference.decimals.saturating_sub(wr.decimals))
                    == reference.mantissa
                        * 10i128.pow(wr.decimals.saturating_sub(reference.decimals))
        });
        at_precision || reference
    }

    #[test]
    fn random_scores_match_exactly_when_the_oracle_says_so() {
        let mut rng = Lcg(33);
        for _ in 0..5000 {
            let total = 1 + rng.next(2000);
            let failed = rng.next(total + 1);
            let decimals = rng.next(10) as u32;
            let p = 10i128.pow(decimals);
            // Near the exact value: a few units of the last written digit either side.
            let centre = i128::from(failed) * 100 * p / i128::from(total);
            let mantissa = (centre + i128::from(rng.next(7)) - 3).max(0);
            let text = Written { mantissa, decimals }.to_string();
            let got = !matches!(match_score(w(&text), failed, total), ScoreMatch::Mismatch);
            assert_eq!(
                got,
                oracle(&text, failed, total),
                "{text} for {failed}/{total}"
            );
        }
    }

    #[test]
    fn extreme_exponents_are_unreadable_not_slow_or_a_panic() {
        for token in [
            "0e999999999",
            "0e9223372036854775807",
            "0e-9223372036854775808",
            "1e-9223372036854775808",
            "5e99",
            "1e-21",
            "0.000000000000000000001",
        ] {
            assert_eq!(Written::parse(token), None, "{token}");
        }
        assert_eq!(
            w("0e5"),
            Written {
                mantissa: 0,
                decimals: 0
            }
        );
        assert_eq!(w("5e-20").decimals, 20);
    }

    #[test]
    fn velocity_is_a_rounding_of_the_exact_difference() {
        assert!(velocity_fits(w("11.1"), w("100"), w("88.9"), 1));
        assert!(velocity_fits(w("33.33"), w("100.0"), w("0"), 3));
        assert!(velocity_fits(w("33.4"), w("100.0"), w("0"), 3));
        assert!(!velocity_fits(w("33.35"), w("100.0"), w("0"), 3));
        assert!(!velocity_fits(w("11.15"), w("100"), w("88.9"), 1));
        assert!(velocity_fits(w("-5"), w("10"), w("20"), 2));
        assert!(velocity_fits(w("0"), w("10"), w("20"), 0));
        assert!(!velocity_fits(w("0.04"), w("10"), w("10"), 1));
    }

    #[test]
    fn only_k_of_total_is_a_possible_score() {
        assert!(possible_score(w("50"), 2));
        assert!(possible_score(w("0.0"), 2));
        assert!(!possible_score(w("33.3"), 2));
        assert!(!possible_score(w("25.0"), 2));
        assert!(possible_score(w("33.3"), 3));
        assert!(possible_score(w("100"), 3));
        assert!(!possible_score(w("100.5"), 3));
    }

    #[test]
    fn the_level_rules_disagree_where_the_research_measured_it() {
        // 121/806: python 15.0 "moderate", go 15 "minor".
        assert_eq!(LevelRule::Python.apply(121, 806), Level::Moderate);
        assert_eq!(LevelRule::Go.apply(121, 806), Level::Minor);
        assert_eq!(LevelRule::Exact.apply(121, 806), Level::Moderate);
        // 1 in 3000: go and shell say perfect.
        assert_eq!(LevelRule::Go.apply(1, 3000), Level::Perfect);
        assert_eq!(LevelRule::Shell.apply(1, 3000), Level::Perfect);
        assert_eq!(LevelRule::Exact.apply(1, 3000), Level::Minor);
        // 8/53: python moderate, shell minor.
        assert_eq!(LevelRule::Shell.apply(8, 53), Level::Minor);
        assert_eq!(LevelRule::Python.apply(8, 53), Level::Moderate);
    }
}
