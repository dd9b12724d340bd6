//! One `tests` entry of a pytest-json-report document: its typed shape (borrowed from the
//! entry's text) and how its setup, call and teardown phases fold into one status and message.

use std::borrow::Cow;

use serde::Deserialize;

use gapscore_adapter_sdk::Status;

use crate::common::{Markers, Str, skip_reason};

#[derive(Deserialize)]
pub(super) struct RawTest<'a> {
    #[serde(borrow)]
    pub(super) nodeid: Cow<'a, str>,
    #[serde(default)]
    pub(super) lineno: Option<u32>,
    #[serde(borrow)]
    pub(super) outcome: Cow<'a, str>,
    #[serde(default, borrow)]
    pub(super) keywords: Markers<'a>,
    #[serde(default, borrow)]
    pub(super) setup: Option<Phase<'a>>,
    #[serde(default, borrow)]
    pub(super) call: Option<Phase<'a>>,
    #[serde(default, borrow)]
    pub(super) teardown: Option<Phase<'a>>,
}

#[derive(Deserialize)]
pub(super) struct Phase<'a> {
    #[serde(default)]
    pub(super) duration: Option<f64>,
    #[serde(borrow)]
    pub(super) outcome: Cow<'a, str>,
    #[serde(default, borrow)]
    pub(super) crash: Option<Crash<'a>>,
    #[serde(default, borrow)]
    pub(super) longrepr: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) stdout: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) stderr: Option<Str<'a>>,
}

#[derive(Deserialize)]
pub(super) struct Crash<'a> {
    #[serde(default, borrow)]
    pub(super) message: Option<Str<'a>>,
}

impl Phase<'_> {
    pub(super) fn failed(&self) -> bool {
        matches!(self.outcome.as_ref(), "failed" | "error")
    }

    /// The phase's failure text: the full `longrepr` (the traceback pytest prints), else the
    /// crash message.
    pub(super) fn message(&self) -> Option<&str> {
        self.longrepr
            .as_deref()
            .filter(|s| !s.is_empty())
            .or_else(|| self.crash.as_ref().and_then(|c| c.message.as_deref()))
    }
}

/// Folds one test's phases into one status and message. A failed setup or teardown makes the
/// test errored whatever its call did; a failed call followed by a failed teardown keeps both
/// messages. The message borrows the phase's text unless the folding writes one.
pub(super) fn fold<'r>(raw: &'r RawTest<'_>) -> Result<(Status, Option<Cow<'r, str>>), String> {
    let declared = match raw.outcome.as_ref() {
        "passed" => Status::Passed,
        "failed" => Status::Failed,
        "error" => Status::Errored,
        "skipped" => Status::Skipped,
        "xfailed" => Status::Xfailed,
        "xpassed" => Status::Xpassed,
        other => {
            return Err(format!(
                "unknown outcome `{other}` for `{}` (expected passed, failed, error, skipped, xfailed or xpassed)",
                raw.nodeid
            ));
        }
    };
    let setup_failed = raw.setup.as_ref().is_some_and(Phase::failed);
    let teardown_failed = raw.teardown.as_ref().is_some_and(Phase::failed);
    let (status, message): (Status, Option<Cow<'r, str>>) = if setup_failed {
        (
            Status::Errored,
            raw.setup
                .as_ref()
                .and_then(Phase::message)
                .map(Cow::Borrowed),
        )
    } else if teardown_failed {
        let tear = raw.teardown.as_ref().and_then(Phase::message);
        let call = raw
            .call
            .as_ref()
            .filter(|c| c.failed())
            .and_then(Phase::message);
        let message = match (call, tear) {
            (Some(c), Some(t)) => Some(Cow::Owned(format!("{c}\n\nerror at teardown:\n{t}"))),
            (c, t) => t.or(c).map(Cow::Borrowed),
        };
        (Status::Errored, message)
    } else {
        let message = match declared {
            Status::Skipped => raw
                .call
                .as_ref()
                .or(raw.setup.as_ref())
                .and_then(|p| p.longrepr.as_deref())
                .map(skip_reason),
            Status::Passed => None,
            _ => raw
                .call
                .as_ref()
                .and_then(Phase::message)
                .or_else(|| raw.setup.as_ref().and_then(Phase::message)),
        };
        (declared, message.map(Cow::Borrowed))
    };
    Ok(match status {
        Status::Passed | Status::Xpassed => contradiction(raw)
            .map(|(s, m)| (s, m.map(Cow::Owned)))
            .unwrap_or((status, message)),
        _ => (status, message),
    })
}

/// What a test whose outcome says it passed really did, when its phases say otherwise: a
/// failed call phase, or a `crash` in any phase (pytest-json-report writes one only for a
/// phase that failed), makes it failed (errored for setup or teardown); a setup without
/// a call phase (the run stopped inside the test, or `--setup-only`) makes it errored, since
/// its body never ran. `None` when the phases agree (or the test has none to read).
fn contradiction(raw: &RawTest<'_>) -> Option<(Status, Option<String>)> {
    // Not `longrepr` alone: under pytest-xdist every phase, passed ones too, carries one
    // naming the worker (`[gw0] linux -- Python 3.11.7 ...`).
    let evidence = |p: &Phase<'_>| p.failed() || p.crash.is_some();
    if let Some(call) = raw.call.as_ref().filter(|c| evidence(c)) {
        let said = call.message().unwrap_or_default();
        return Some((
            Status::Failed,
            Some(format!(
                "the report says `{}` but its call phase is `{}` with a failure:\n{said}",
                raw.outcome, call.outcome
            )),
        ));
    }
    for (name, phase) in [("setup", &raw.setup), ("teardown", &raw.teardown)] {
        if let Some(p) = phase.as_ref().filter(|p| evidence(p)) {
            let said = p.message().unwrap_or_default();
            return Some((
                Status::Errored,
                Some(format!(
                    "the report says `{}` but its {name} phase holds a failure:\n{said}",
                    raw.outcome
                )),
            ));
        }
    }
    if raw.setup.is_some() && raw.call.is_none() {
        let why = if raw.teardown.is_none() {
            "the run stopped after its setup (KeyboardInterrupt or pytest.exit())"
        } else {
            "it has setup and teardown phases only (--setup-only or an edited report)"
        };
        return Some((
            Status::Errored,
            Some(format!(
                "the report says `{}` but the test's call phase never ran: {why}",
                raw.outcome
            )),
        ));
    }
    None
}
