//! Level 2 (spec §6.2): the tamper-evidence hash is stored and, given the evidence, recomputed;
//! the tests were sealed before implementation began; isolation, which no report can show.

use gapscore_engine::core::hash::canonical_sha256;
use gapscore_engine::core::seal::{HashMode, PathOrder, SealOptions, seal_hash};
use gapscore_engine::seal::verify;
use serde_json::Value;

use crate::checker::Checker;
use crate::evidence::SealedDir;
use crate::model::Verdict;
use crate::rules;
use crate::time::parse_rfc3339;

impl Checker<'_> {
    pub(crate) fn level2(&mut self) {
        // Stored.
        let stored = match self.hash.clone() {
            None => {
                let msg = if self.meta_get("sealed_hash").is_some() {
                    "`report.sealed_hash` is not a string".to_owned()
                } else {
                    "no `report.sealed_hash`: the tamper-evidence hash is not stored".to_owned()
                };
                self.err(&rules::HASH_PRESENT, "/report", msg.clone());
                Err(msg)
            }
            Some(h) => {
                let well_formed = h
                    .strip_prefix("sha256:")
                    .is_some_and(|x| x.len() == 64 && x.bytes().all(|b| b.is_ascii_hexdigit()));
                if well_formed {
                    Ok(h)
                } else {
                    let msg = match canonical_sha256(&h) {
                        Ok(c) => {
                            format!("`{h}` is a hash without the `sha256:` prefix (write `{c}`)")
                        }
                        Err(_) => format!(
                            "`{h}` is not `sha256:` + 64 hex digits (a placeholder or a truncated display value)"
                        ),
                    };
                    self.err(&rules::HASH_FORMAT, "/report/sealed_hash", msg.clone());
                    Err(msg)
                }
            }
        };
        match &stored {
            Ok(h) => self.require(
                "L2.hash-stored",
                2,
                "§4.5",
                "a tamper-evidence hash is computed and stored",
                Verdict::Verified,
                format!("report.sealed_hash is {h}"),
            ),
            Err(d) => self.require(
                "L2.hash-stored",
                2,
                "§4.5",
                "a tamper-evidence hash is computed and stored",
                Verdict::Failed,
                d.clone(),
            ),
        }

        // Recomputed.
        let recomputed = self.recompute(stored.as_ref().ok().map(String::as_str));
        let (verdict, detail) = recomputed;
        self.require(
            "L2.hash-recomputed",
            2,
            "§4.5",
            "the hash, recomputed before validation, matches",
            verdict,
            detail,
        );

        // Sealed before implementation.
        let (verdict, detail) = self.seal_order();
        self.require(
            "L2.sealed-first",
            2,
            "§4.1",
            "sealed tests are generated before implementation begins",
            verdict,
            detail,
        );

        // Isolation.
        let claims: Vec<String> = ["workspace_isolation", "independence"]
            .iter()
            .filter_map(|k| {
                self.meta_get(k)
                    .and_then(Value::as_str)
                    .map(|v| format!("{k}: {v}"))
            })
            .collect();
        let detail = if claims.is_empty() {
            "no report can show isolation; taken on trust".to_owned()
        } else {
            format!("the report claims {}; not checkable", claims.join(", "))
        };
        self.require(
            "L2.isolation",
            2,
            "§4.2",
            "information isolation at context level or stronger",
            Verdict::Attested,
            detail,
        );
    }

    fn recompute(&mut self, stored: Option<&str>) -> (Verdict, String) {
        if self.meta_get("seal_broken") == Some(&Value::Bool(true)) {
            let msg =
                "the report says its seal is broken (`seal_broken: true`): the score is invalid"
                    .to_owned();
            self.err(&rules::SEAL_BROKEN, "/report/seal_broken", msg.clone());
            return (Verdict::Failed, msg);
        }
        let record = self.evidence.seal.as_ref();
        let dir = self.evidence.sealed_dir.as_ref();
        if record.is_none() && dir.is_none() {
            return (
                Verdict::Attested,
                "stored, not recomputed: give --sealed-dir (and --seal) to recompute it".into(),
            );
        }
        let Some(stored) = stored else {
            return (
                Verdict::Failed,
                "no well-formed stored hash to compare with".into(),
            );
        };
        if let Some(r) = record {
            let rec = canonical_sha256(&r.hash).unwrap_or_else(|_| r.hash.clone());
            if rec != stored.to_ascii_lowercase() {
                let msg = format!(
                    "the seal record's hash {rec} is not the report's {stored}: the report was not made under this seal"
                );
                self.err(&rules::SEAL_RECORD, "/report/sealed_hash", msg.clone());
                return (Verdict::Failed, msg);
            }
        }
        let Some(dir) = dir else {
            return (
                Verdict::Attested,
                "the seal record names the same hash; give --sealed-dir to recompute it".into(),
            );
        };
        match record {
            Some(r) => {
                // The engine's one seal verification: the record's excludes, mode, order and
                // spelling, and one way of saying what differs.
                let v = verify(r, &dir.files);
                if v.actual.hash == stored.to_ascii_lowercase() {
                    (
                        Verdict::Verified,
                        format!(
                            "recomputed from `{}` in {} mode ({} files) as the seal record prescribes: {stored}",
                            dir.given, r.mode, v.actual.hashed
                        ),
                    )
                } else {
                    let msg = format!("`{}` does not match its seal: {v}", dir.given);
                    self.err(&rules::HASH_RECOMPUTED, "/report/sealed_hash", msg.clone());
                    (Verdict::Failed, msg)
                }
            }
            None => match recompute_any(dir, &stored.to_ascii_lowercase()) {
                Some(how) => (
                    Verdict::Verified,
                    format!("recomputed from `{}`: {how}", dir.given),
                ),
                None => {
                    let msg = format!(
                        "`{}` does not hash to {stored} in any mode (strict; spec and stampede as `{}`{}, byte and locale order): the sealed tests changed or were hashed elsewhere; a seal record (--seal) would say which files differ",
                        dir.given,
                        dir.given,
                        dir.absolute
                            .as_ref()
                            .map(|a| format!(" or `{a}`"))
                            .unwrap_or_default()
                    );
                    self.err(&rules::HASH_RECOMPUTED, "/report/sealed_hash", msg.clone());
                    (Verdict::Failed, msg)
                }
            },
        }
    }

    fn seal_order(&mut self) -> (Verdict, String) {
        let time_of = |v: Option<&Value>| {
            v.and_then(Value::as_str)
                .and_then(|s| parse_rfc3339(s).map(|t| (t, s.to_owned())))
        };
        let mut sealed: Option<(i128, String, String)> = None;
        for key in ["sealed_at", "seal_created", "sealed_timestamp"] {
            if let Some((t, s)) = time_of(self.meta_get(key)) {
                sealed = Some((t, s, format!("report.{key}")));
                break;
            }
        }
        if sealed.is_none()
            && let Some(r) = &self.evidence.seal
            && let Some(t) = parse_rfc3339(&r.created)
        {
            sealed = Some((t, r.created.clone(), "the seal record".to_owned()));
        }
        let mut implementation: Option<(i128, String, String)> = None;
        for key in [
            "implementation_started_at",
            "implementation_started",
            "implementation_start",
        ] {
            if let Some((t, s)) = time_of(self.meta_get(key)) {
                implementation = Some((t, s, format!("report.{key}")));
                break;
            }
        }
        let mut validation: Option<(i128, String, String)> = None;
        let first_cycle = self
            .hardening()
            .and_then(|h| h.get("history"))
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(|c| c.get("timestamp"));
        for (v, what) in [
            (first_cycle, "the first recorded validation"),
            (self.meta_get("timestamp"), "the report"),
        ] {
            if let Some((t, s)) = time_of(v)
                && validation.as_ref().is_none_or(|(vt, _, _)| t < *vt)
            {
                validation = Some((t, s, what.to_owned()));
            }
        }
        let Some((st, ss, swhere)) = sealed else {
            return (
                Verdict::Attested,
                "neither the report nor a seal record says when the tests were sealed".into(),
            );
        };
        if let Some((it, is, iwhere)) = implementation {
            if st < it {
                return (
                    Verdict::Verified,
                    format!("sealed {ss} ({swhere}), implementation began {is} ({iwhere})"),
                );
            }
            let msg = format!("sealed {ss} ({swhere}), after implementation began {is} ({iwhere})");
            self.err(&rules::SEAL_ORDER, "/report", msg.clone());
            return (Verdict::Failed, msg);
        }
        match validation {
            Some((vt, vs, vwhere)) if st > vt => {
                let msg = format!(
                    "sealed {ss} ({swhere}), after {vwhere} at {vs}: the seal cannot predate the implementation"
                );
                self.err(&rules::SEAL_ORDER, "/report", msg.clone());
                (Verdict::Failed, msg)
            }
            Some((_, vs, vwhere)) => (
                Verdict::Attested,
                format!(
                    "sealed {ss} ({swhere}), before {vwhere} at {vs}; when implementation began is not recorded"
                ),
            ),
            None => (
                Verdict::Attested,
                format!(
                    "sealed {ss} ({swhere}); no implementation or validation time to compare with"
                ),
            ),
        }
    }
}

/// Tries every hash mode and spelling of the directory the references use; says which matched.
fn recompute_any(dir: &SealedDir, want: &str) -> Option<String> {
    let strict = seal_hash(&dir.files, &SealOptions::default());
    if strict.hash == want {
        return Some(format!("strict mode, {} files", strict.hashed));
    }
    let mut spellings = vec![dir.given.clone()];
    let trimmed = dir.given.trim_end_matches('/');
    if !trimmed.is_empty() && trimmed != dir.given {
        spellings.push(trimmed.to_owned());
    }
    if !dir.given.starts_with('/') && !dir.given.starts_with("./") && dir.given != "." {
        spellings.push(format!("./{}", dir.given));
    }
    if let Some(a) = &dir.absolute {
        spellings.push(a.clone());
    }
    for mode in [HashMode::Spec, HashMode::Stampede] {
        for order in [PathOrder::Bytes, PathOrder::Locale] {
            for as_ in &spellings {
                let opts = SealOptions {
                    mode,
                    order,
                    hash_as: as_.clone(),
                };
                let h = seal_hash(&dir.files, &opts);
                if h.hash == want {
                    let order = match order {
                        PathOrder::Bytes => "byte order",
                        PathOrder::Locale => "locale order",
                    };
                    return Some(format!(
                        "{mode} mode as `{as_}`, {order}, {} files",
                        h.hashed
                    ));
                }
            }
        }
    }
    None
}
