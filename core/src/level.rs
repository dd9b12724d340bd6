//! The Gap Score and its §3.4 level: [`Score`] is `failed` of `total` sealed tests, [`Level`]
//! the interpretation band, both decided on exact integers so that no rounding can move a run
//! into a kinder band; [`Threshold`] is the validated limit a score is compared with (on the
//! displayed, rounded value, as the reference validators do). Nothing here knows how tests are
//! counted: that is the tally's business.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The §3.4 interpretation scale.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// No sealed test failed.
    Perfect,
    /// Up to 15 %.
    Minor,
    /// Above 15 % up to 30 %.
    Moderate,
    /// Above 30 % up to 50 %.
    Significant,
    /// Above 50 %.
    Critical,
}

impl Level {
    /// The level for `failed` of `total`, decided on exact integers: any failure is at least
    /// minor (1 in 3000 is minor, never perfect); the bands close the spec's gaps (0–1 %,
    /// 15–16 %, ...) with `<=` as the reference validators do, but on `failed*100` against
    /// `15*total` instead of a rounded float.
    pub fn from_counts(failed: u64, total: u64) -> Level {
        if failed == 0 || total == 0 {
            return Level::Perfect;
        }
        let f = u128::from(failed) * 100;
        let t = u128::from(total);
        if f <= 15 * t {
            Level::Minor
        } else if f <= 30 * t {
            Level::Moderate
        } else if f <= 50 * t {
            Level::Significant
        } else {
            Level::Critical
        }
    }

    /// The lowercase name (`perfect`, `minor`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Perfect => "perfect",
            Level::Minor => "minor",
            Level::Moderate => "moderate",
            Level::Significant => "significant",
            Level::Critical => "critical",
        }
    }

    /// The indicator the spec's table and the reference validators print.
    pub fn indicator(self) -> &'static str {
        match self {
            Level::Perfect => "✅",
            Level::Minor => "🟢",
            Level::Moderate => "🟡",
            Level::Significant => "🟠",
            Level::Critical => "🔴",
        }
    }

    /// The name with a capital first letter (`Minor`), for prose.
    pub fn title(self) -> &'static str {
        match self {
            Level::Perfect => "Perfect",
            Level::Minor => "Minor",
            Level::Moderate => "Moderate",
            Level::Significant => "Significant",
            Level::Critical => "Critical",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A score threshold: a finite percentage from 0 to 100. Written as `15`, `15.5` or `15%`.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Threshold(f64);

/// Why a threshold was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ThresholdError {
    /// Not a number at all.
    #[error("threshold `{0}` is not a number")]
    NotANumber(String),
    /// NaN or infinite.
    #[error("threshold `{0}` must be a finite number")]
    NotFinite(String),
    /// Below zero.
    #[error("threshold `{0}` must not be negative")]
    Negative(String),
    /// Above 100: no score can exceed it, so the gate could never fail.
    #[error(
        "threshold `{0}` is above 100: a score is a percentage of the sealed tests, so no score could exceed it"
    )]
    AboveHundred(String),
}

impl Threshold {
    /// Validates a threshold value.
    pub fn new(value: f64) -> Result<Self, ThresholdError> {
        if !value.is_finite() {
            Err(ThresholdError::NotFinite(value.to_string()))
        } else if value < 0.0 {
            Err(ThresholdError::Negative(value.to_string()))
        } else if value > 100.0 {
            Err(ThresholdError::AboveHundred(value.to_string()))
        } else {
            Ok(Threshold(value))
        }
    }

    /// The value.
    pub fn value(self) -> f64 {
        self.0
    }
}

impl FromStr for Threshold {
    type Err = ThresholdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // `15%` is the same as `15`: the score is a percentage, and people write it so.
        let t = s.trim();
        let t = t.strip_suffix('%').map_or(t, str::trim_end);
        let v: f64 = t
            .parse()
            .map_err(|_| ThresholdError::NotANumber(s.to_owned()))?;
        if !v.is_finite() {
            return Err(ThresholdError::NotFinite(s.to_owned()));
        }
        if v < 0.0 {
            return Err(ThresholdError::Negative(s.to_owned()));
        }
        if v > 100.0 {
            return Err(ThresholdError::AboveHundred(s.to_owned()));
        }
        Ok(Threshold(v))
    }
}

/// `failed` of `total` sealed tests, with the derived score and level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Score {
    /// Sealed tests counted as failed (including one entry per run-level problem).
    pub failed: u64,
    /// Sealed tests counted.
    pub total: u64,
}

impl Score {
    /// A score from counts.
    pub fn new(failed: u64, total: u64) -> Self {
        Score { failed, total }
    }

    /// The unrounded percentage; 0 for an empty suite.
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.failed as f64 / self.total as f64 * 100.0
        }
    }

    /// The displayed score with one decimal. `format!("{:.1}")` rounds the exact binary value
    /// with ties to even, which reproduces the Python reference's `round(x, 1)`.
    pub fn display(&self) -> String {
        format!("{:.1}", self.percent())
    }

    /// The displayed score as a number (what reports carry).
    pub fn rounded(&self) -> f64 {
        // The string always holds a finite number formatted by us, so parsing cannot fail; fall
        // back to the unrounded value rather than panic.
        self.display().parse().unwrap_or_else(|_| self.percent())
    }

    /// The level, on exact integers.
    pub fn level(&self) -> Level {
        Level::from_counts(self.failed, self.total)
    }

    /// Whether the score exceeds a threshold. The displayed (rounded) score is compared with `>`,
    /// as the reference validators do (11.1 % against a threshold of 11.1 passes); a threshold of
    /// zero means "no failures at all", so a failure that rounds to 0.0 still exceeds it.
    pub fn exceeds(&self, threshold: Threshold) -> bool {
        self.rounded() > threshold.value() || (threshold.value() == 0.0 && self.failed > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_boundaries_on_exact_integers() {
        assert_eq!(Level::from_counts(0, 10), Level::Perfect);
        assert_eq!(Level::from_counts(1, 3000), Level::Minor);
        assert_eq!(Level::from_counts(3, 20), Level::Minor); // exactly 15 %
        assert_eq!(Level::from_counts(4, 25), Level::Moderate); // 16 %
        assert_eq!(Level::from_counts(17, 113), Level::Moderate); // 15.04 %, displays 15.0
        assert_eq!(Level::from_counts(3, 10), Level::Moderate); // exactly 30 %
        assert_eq!(Level::from_counts(31, 100), Level::Significant);
        assert_eq!(Level::from_counts(1, 2), Level::Significant); // exactly 50 %
        assert_eq!(Level::from_counts(1001, 2001), Level::Critical);
        assert_eq!(Level::from_counts(9, 15), Level::Critical);
        assert_eq!(Level::from_counts(0, 0), Level::Perfect);
        assert_eq!(Level::from_counts(u64::MAX, u64::MAX), Level::Critical);
    }

    #[test]
    fn display_rounds_like_python() {
        assert_eq!(Score::new(2, 18).display(), "11.1");
        assert_eq!(Score::new(1, 16).display(), "6.2"); // ties to even on the binary value
        assert_eq!(Score::new(1, 80).display(), "1.2");
        assert_eq!(Score::new(5, 16).display(), "31.2");
        assert_eq!(Score::new(1, 3000).display(), "0.0");
        assert_eq!(Score::new(0, 0).display(), "0.0");
        assert_eq!(Score::new(4, 4).display(), "100.0");
    }

    #[test]
    fn threshold_compares_displayed_score() {
        let th = |s: &str| s.parse::<Threshold>().unwrap();
        assert!(!Score::new(2, 18).exceeds(th("11.1")));
        assert!(Score::new(2, 18).exceeds(th("10")));
        assert!(!Score::new(2, 18).exceeds(th("15")));
        assert!(Score::new(9, 15).exceeds(th("0")));
        assert!(!Score::new(0, 5).exceeds(th("0")));
        // A failure that rounds to 0.0 still exceeds a zero threshold.
        assert!(Score::new(1, 3000).exceeds(th("0")));
    }

    #[test]
    fn threshold_rejects_nan_inf_negative() {
        for s in [
            "nan", "NaN", "inf", "-inf", "infinity", "-5", "-0.1", "x", "",
        ] {
            assert!(s.parse::<Threshold>().is_err(), "{s}");
        }
        assert!("-0".parse::<Threshold>().is_ok());
        assert!(Threshold::new(f64::NAN).is_err());
    }

    #[test]
    fn threshold_takes_a_percent_sign_and_stops_at_100() {
        let th = |s: &str| s.parse::<Threshold>().map(Threshold::value);
        assert_eq!(th("50%"), Ok(50.0));
        assert_eq!(th(" 12.5 % "), Ok(12.5));
        assert_eq!(th("100%"), Ok(100.0));
        assert_eq!(th("150"), Err(ThresholdError::AboveHundred("150".into())));
        assert_eq!(
            th("100.1%"),
            Err(ThresholdError::AboveHundred("100.1%".into()))
        );
        assert!(th("%").is_err() && th("50%%").is_err());
        assert!(Threshold::new(101.0).is_err());
    }
}
