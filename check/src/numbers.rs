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

/// How a reported score relates to the counts.
#[derive(Debug, Clone, PartialEq)]
pub enum ScoreMatch {
    /// Equal to these roundings of failed/total×100.
    Roundings(Vec<Rounding>),
    /// No reference rounding, but within ±0.05 of the exact value (a finer rounding).
    Close,
    /// Not failed/total×100 under any rounding.
    Mismatch,
}

/// Compares a reported score with failed/total×100.
pub fn match_score(reported: f64, failed: u64, total: u64) -> ScoreMatch {
    let hits: Vec<Rounding> = Rounding::ALL
        .into_iter()
        .filter(|r| same(reported, r.apply(failed, total)))
        .collect();
    if !hits.is_empty() {
        return ScoreMatch::Roundings(hits);
    }
    let exact = Rounding::Unrounded.apply(failed, total);
    if (reported - exact).abs() <= 0.05 + 1e-9 {
        ScoreMatch::Close
    } else {
        ScoreMatch::Mismatch
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
            match_score(6.3, 1, 16),
            ScoreMatch::Roundings(vec![Rounding::GoHalfUp])
        );
        assert_eq!(match_score(11.11, 2, 18), ScoreMatch::Close);
        assert_eq!(match_score(12.0, 2, 18), ScoreMatch::Mismatch);
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
