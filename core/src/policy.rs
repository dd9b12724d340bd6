//! The status policy: what each of the seven statuses counts as for the score. [`StatusPolicy`]
//! holds the three choices a user can make (skipped, xfail, flaky; each parsed from and printed
//! as its command-line word) and maps one test to a [`CountsAs`]. The defaults are the strict
//! reading; the policy is applied by the tally and recorded in the report.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use gapscore_model::{Status, TestCase};

/// What a skipped or todo sealed test counts as.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SkippedPolicy {
    /// Counted as passed.
    Pass,
    /// Counted as failed: the requirement was not verified (the default).
    #[default]
    Fail,
    /// Left out of the total entirely (and listed as excluded).
    Exclude,
}

/// What an xfailed sealed test counts as.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum XfailPolicy {
    /// Counted as passed (the xfail marker is trusted).
    Pass,
    /// Counted as failed: the assertion failed, so the requirement is unmet (the default).
    #[default]
    Fail,
}

/// What a flaky sealed test (failed, then passed on a retry the format marks) counts as.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FlakyPolicy {
    /// Counted as passed, listed as flaky, and the report is advisory (the default).
    #[default]
    Pass,
    /// Counted as failed.
    Fail,
}

macro_rules! policy_from_str {
    ($ty:ty, $($s:literal => $v:expr),+) => {
        impl FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($s => Ok($v),)+
                    other => Err(format!(
                        "invalid value `{other}` (expected one of: {})",
                        [$($s),+].join(", ")
                    )),
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                $(if *self == $v { return f.write_str($s); })+
                Ok(())
            }
        }
    };
}
policy_from_str!(SkippedPolicy, "pass" => SkippedPolicy::Pass, "fail" => SkippedPolicy::Fail, "exclude" => SkippedPolicy::Exclude);
policy_from_str!(XfailPolicy, "pass" => XfailPolicy::Pass, "fail" => XfailPolicy::Fail);
policy_from_str!(FlakyPolicy, "pass" => FlakyPolicy::Pass, "fail" => FlakyPolicy::Fail);

/// How statuses count for the sealed suite. The defaults are the honest reading: anything that
/// did not demonstrably pass is not a pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct StatusPolicy {
    /// Skipped and todo tests.
    pub skipped: SkippedPolicy,
    /// Expected failures that failed.
    pub xfail: XfailPolicy,
    /// Tests that passed only on a retry.
    pub flaky: FlakyPolicy,
}

impl StatusPolicy {
    /// A policy from its three parts.
    pub fn new(skipped: SkippedPolicy, xfail: XfailPolicy, flaky: FlakyPolicy) -> Self {
        StatusPolicy {
            skipped,
            xfail,
            flaky,
        }
    }

    /// What one test counts as under this policy.
    pub fn outcome(&self, test: &TestCase) -> CountsAs {
        self.outcome_for(test.status, || test.is_flaky())
    }

    /// [`StatusPolicy::outcome`] of a test with this status; `flaky` is asked only when it
    /// matters (a pass under `--flaky fail`).
    pub fn outcome_for(&self, status: Status, flaky: impl FnOnce() -> bool) -> CountsAs {
        match status {
            Status::Passed | Status::Xpassed => {
                if self.flaky == FlakyPolicy::Fail && flaky() {
                    CountsAs::Fail
                } else {
                    CountsAs::Pass
                }
            }
            Status::Failed | Status::Errored => CountsAs::Fail,
            Status::Xfailed => match self.xfail {
                XfailPolicy::Pass => CountsAs::Pass,
                XfailPolicy::Fail => CountsAs::Fail,
            },
            Status::Skipped | Status::Todo => match self.skipped {
                SkippedPolicy::Pass => CountsAs::Pass,
                SkippedPolicy::Fail => CountsAs::Fail,
                SkippedPolicy::Exclude => CountsAs::Excluded,
            },
        }
    }
}

/// A repository's policy key that would have loosened the operator's (see
/// [`StatusPolicy::tightened_by`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loosening {
    /// The key (`skipped`, `xfail`, `flaky`).
    pub key: &'static str,
    /// The value the repository asked for.
    pub asked: String,
    /// The operator's value, kept.
    pub kept: String,
}

impl SkippedPolicy {
    /// How strict the choice is: `fail` (the requirement is unmet) over `exclude` (left out)
    /// over `pass` (counted as met).
    fn strictness(self) -> u8 {
        match self {
            SkippedPolicy::Pass => 0,
            SkippedPolicy::Exclude => 1,
            SkippedPolicy::Fail => 2,
        }
    }
}

impl StatusPolicy {
    /// This (the operator's) policy, tightened by a repository's own choices: a choice at least
    /// as strict as the operator's is taken, a looser one is ignored and returned, so that a
    /// repository can never score itself more leniently than the operator decided.
    pub fn tightened_by(
        self,
        skipped: Option<SkippedPolicy>,
        xfail: Option<XfailPolicy>,
        flaky: Option<FlakyPolicy>,
    ) -> (StatusPolicy, Vec<Loosening>) {
        let mut out = self;
        let mut ignored = Vec::new();
        let mut note = |key, asked: String, kept: String| {
            ignored.push(Loosening { key, asked, kept });
        };
        if let Some(s) = skipped {
            if s.strictness() >= self.skipped.strictness() {
                out.skipped = s;
            } else {
                note("skipped", s.to_string(), self.skipped.to_string());
            }
        }
        if let Some(x) = xfail {
            if x == XfailPolicy::Fail || self.xfail == XfailPolicy::Pass {
                out.xfail = x;
            } else {
                note("xfail", x.to_string(), self.xfail.to_string());
            }
        }
        if let Some(f) = flaky {
            if f == FlakyPolicy::Fail || self.flaky == FlakyPolicy::Pass {
                out.flaky = f;
            } else {
                note("flaky", f.to_string(), self.flaky.to_string());
            }
        }
        (out, ignored)
    }
}

/// What a test counts as for the score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountsAs {
    /// Counted in total and passed.
    Pass,
    /// Counted in total and failed.
    Fail,
    /// Not counted.
    Excluded,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Test code.

    use super::*;
    use gapscore_model::Attempt;

    #[test]
    fn outcomes_follow_each_choice_and_names_round_trip() {
        let test = |status| TestCase::new(None, "t", status);
        let strict = StatusPolicy::default();
        let lenient = StatusPolicy::new(SkippedPolicy::Pass, XfailPolicy::Pass, FlakyPolicy::Pass);
        let exclude =
            StatusPolicy::new(SkippedPolicy::Exclude, XfailPolicy::Fail, FlakyPolicy::Fail);
        for (status, s, l, e) in [
            (
                Status::Passed,
                CountsAs::Pass,
                CountsAs::Pass,
                CountsAs::Pass,
            ),
            (
                Status::Xpassed,
                CountsAs::Pass,
                CountsAs::Pass,
                CountsAs::Pass,
            ),
            (
                Status::Failed,
                CountsAs::Fail,
                CountsAs::Fail,
                CountsAs::Fail,
            ),
            (
                Status::Errored,
                CountsAs::Fail,
                CountsAs::Fail,
                CountsAs::Fail,
            ),
            (
                Status::Xfailed,
                CountsAs::Fail,
                CountsAs::Pass,
                CountsAs::Fail,
            ),
            (
                Status::Skipped,
                CountsAs::Fail,
                CountsAs::Pass,
                CountsAs::Excluded,
            ),
            (
                Status::Todo,
                CountsAs::Fail,
                CountsAs::Pass,
                CountsAs::Excluded,
            ),
        ] {
            let t = test(status);
            assert_eq!(
                (strict.outcome(&t), lenient.outcome(&t), exclude.outcome(&t)),
                (s, l, e),
                "{status}"
            );
        }
        let mut flaky = test(Status::Passed);
        flaky.attempts.push(Attempt::new(Status::Failed));
        assert_eq!(strict.outcome(&flaky), CountsAs::Pass);
        assert_eq!(exclude.outcome(&flaky), CountsAs::Fail);

        for word in ["pass", "fail", "exclude"] {
            assert_eq!(word.parse::<SkippedPolicy>().unwrap().to_string(), word);
        }
        assert_eq!("pass".parse::<XfailPolicy>().unwrap().to_string(), "pass");
        assert_eq!("fail".parse::<FlakyPolicy>().unwrap().to_string(), "fail");
        assert_eq!(
            "exclude".parse::<XfailPolicy>().unwrap_err(),
            "invalid value `exclude` (expected one of: pass, fail)"
        );
    }

    #[test]
    fn a_repository_may_tighten_the_operator_s_policy_never_loosen_it() {
        let strict = StatusPolicy::default();
        let (p, ignored) = strict.tightened_by(
            Some(SkippedPolicy::Exclude),
            Some(XfailPolicy::Pass),
            Some(FlakyPolicy::Fail),
        );
        assert_eq!(
            p,
            StatusPolicy::new(SkippedPolicy::Fail, XfailPolicy::Fail, FlakyPolicy::Fail)
        );
        let keys: Vec<_> = ignored
            .iter()
            .map(|l| (l.key, l.asked.as_str(), l.kept.as_str()))
            .collect();
        assert_eq!(
            keys,
            [("skipped", "exclude", "fail"), ("xfail", "pass", "fail")]
        );

        let lenient = StatusPolicy::new(SkippedPolicy::Pass, XfailPolicy::Pass, FlakyPolicy::Pass);
        let (p, ignored) =
            lenient.tightened_by(Some(SkippedPolicy::Exclude), Some(XfailPolicy::Fail), None);
        assert_eq!(
            p,
            StatusPolicy::new(SkippedPolicy::Exclude, XfailPolicy::Fail, FlakyPolicy::Pass)
        );
        assert!(ignored.is_empty());
        let exclude =
            StatusPolicy::new(SkippedPolicy::Exclude, XfailPolicy::Fail, FlakyPolicy::Pass);
        let (p, ignored) = exclude.tightened_by(Some(SkippedPolicy::Pass), None, None);
        assert_eq!(p.skipped, SkippedPolicy::Exclude);
        assert_eq!(ignored.len(), 1);
    }
}
