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
}

/// Equal as displayed numbers (a tolerance for binary noise only).
pub fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
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

/// More decimals than this are not read exactly (the binary value is judged instead).
const MAX_DECIMALS: u32 = 30;

impl Written {
    /// Reads a JSON number token (`-12.50`, `1.5e1`); `None` for anything else or for a number
    /// whose digits do not fit 38 places.
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
        let mut decimals = i64::try_from(fraction.len()).ok()? - exponent;
        while decimals < 0 {
            mantissa = mantissa.checked_mul(10)?;
            decimals += 1;
        }
        let decimals = u32::try_from(decimals)
            .ok()
            .filter(|d| *d <= MAX_DECIMALS)?;
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
        match exact {
            Some(diff) => diff.unsigned_abs() < den.unsigned_abs(),
            // Past i128: the binary values, to the same precision.
            None => {
                (self.value() - num as f64 / den as f64).abs() < 10f64.powi(-(self.decimals as i32))
            }
        }
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
pub fn match_score(reported: Written, failed: u64, total: u64) -> ScoreMatch {
    let value = reported.value();
    let hits: Vec<Rounding> = Rounding::ALL
        .into_iter()
        .filter(|r| same(value, r.apply(failed, total)))
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
