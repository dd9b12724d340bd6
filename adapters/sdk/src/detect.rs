//! Why an adapter claims a file: [`Detection`], the score with the conditions
//! [`Adapter::detect`](crate::Adapter::detect) checked and their outcomes, which
//! [`Adapter::explain_detect`](crate::Adapter::explain_detect) returns and
//! `gapscore adapters --explain FILE` shows.
//!
//! An adapter writes its detection once, taking a [`Why`]: `detect` passes [`Why::silent`],
//! which records nothing (no allocation), and `explain_detect` passes [`Why::recording`]. The
//! score and its reasons therefore come from the same code and cannot disagree.
//!
//! ```
//! use gapscore_adapter_sdk::detect::{Detection, Why};
//!
//! fn detection(prefix: &[u8], why: &mut Why) -> u8 {
//!     if why.check("starts with `PASS ` or `FAIL `", prefix.starts_with(b"PASS ") || prefix.starts_with(b"FAIL ")) {
//!         80
//!     } else {
//!         0
//!     }
//! }
//!
//! assert_eq!(detection(b"PASS adds", &mut Why::silent()), 80);
//! let mut why = Why::recording();
//! let score = detection(b"{}", &mut why);
//! let d: Detection = why.finish(score);
//! assert_eq!(d.score, 0);
//! assert_eq!(d.checks[0].condition, "starts with `PASS ` or `FAIL `");
//! assert!(!d.checks[0].held);
//! ```

/// One condition a detection checked, and whether it held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetectCheck {
    /// The condition in words (`a \"numTotalTests\" key`).
    pub condition: String,
    /// Whether it held for this file.
    pub held: bool,
}

/// An adapter's detection score for one file, with why.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Detection {
    /// The score, 0 (not this format) to 100, as [`Adapter::detect`](crate::Adapter::detect)
    /// gives it.
    pub score: u8,
    /// The conditions checked, in the order they were checked; empty when the adapter gives
    /// its score only.
    pub checks: Vec<DetectCheck>,
    /// What the score means or why there are no checks, when the adapter says.
    pub note: Option<String>,
}

impl Detection {
    /// A score without reasons: what [`Adapter::explain_detect`](crate::Adapter::explain_detect)
    /// gives for an adapter that does not explain itself.
    pub fn score_only(score: u8, note: impl Into<String>) -> Self {
        Detection {
            score,
            checks: Vec::new(),
            note: Some(note.into()),
        }
    }

    /// The same detection with a note.
    #[must_use]
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }
}

/// Where a detection records the conditions it checks: nowhere ([`Why::silent`], for
/// `detect`), or a list ([`Why::recording`], for `explain_detect`).
#[derive(Debug, Default)]
pub struct Why {
    checks: Option<Vec<DetectCheck>>,
}

impl Why {
    /// Records nothing: [`Why::check`] only returns its outcome.
    pub fn silent() -> Self {
        Why { checks: None }
    }

    /// Records every check.
    pub fn recording() -> Self {
        Why {
            checks: Some(Vec::new()),
        }
    }

    /// Records that `condition` was checked and `held`, and returns `held`, so it reads inline:
    /// `if why.check("starts with `{`", p[0] == b'{') { … }`.
    pub fn check(&mut self, condition: &str, held: bool) -> bool {
        if let Some(checks) = &mut self.checks {
            checks.push(DetectCheck {
                condition: condition.to_owned(),
                held,
            });
        }
        held
    }

    /// [`Why::check`] with a condition that costs something to write (a count, a quoted
    /// name): `condition` is called only when recording.
    pub fn check_with(&mut self, condition: impl FnOnce() -> String, held: bool) -> bool {
        if let Some(checks) = &mut self.checks {
            checks.push(DetectCheck {
                condition: condition(),
                held,
            });
        }
        held
    }

    /// Whether checks are recorded: a detection may skip building a costly condition text
    /// when they are not.
    pub fn is_recording(&self) -> bool {
        self.checks.is_some()
    }

    /// The detection: `score` with the checks recorded.
    pub fn finish(self, score: u8) -> Detection {
        Detection {
            score,
            checks: self.checks.unwrap_or_default(),
            note: None,
        }
    }
}
