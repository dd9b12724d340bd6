//! Level 2 (spec §6.2): the tamper-evidence hash is stored and, given the evidence, recomputed;
//! the tests were sealed before implementation began; isolation, which no report can show.

use gapscore_seal::digest::canonical_sha256;
use gapscore_seal::dir_hash::{HashMode, PathOrder, SealOptions, seal_hash};
use gapscore_seal::record::SealDiff;
use gapscore_seal::verify::verify;
use serde_json::Value;

use crate::checker::Checker;
use crate::evidence::SealedDir;
use crate::model::RequirementVerdict;
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
                RequirementVerdict::Verified,
                format!("report.sealed_hash is {h}"),
            ),
            Err(d) => self.require(
                "L2.hash-stored",
                2,
                "§4.5",
                "a tamper-evidence hash is computed and stored",
                RequirementVerdict::Failed,
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
            RequirementVerdict::Attested,
            detail,
        );
    }

    fn recompute(&mut self, stored: Option<&str>) -> (RequirementVerdict, String) {
        if self.meta_get("seal_broken") == Some(&Value::Bool(true)) {
            let msg =
                "the report says its seal is broken (`seal_broken: true`): the score is invalid"
                    .to_owned();
            self.err(&rules::SEAL_BROKEN, "/report/seal_broken", msg.clone());
            return (RequirementVerdict::Failed, msg);
        }
        // The canary (§4.5) is evidence like the files: a read after sealing breaks the seal
        // (v2 §5.2), whatever the report says of it.
        if !self.evidence.canary_reads.is_empty() {
            let msg = format!(
                "the seal record's canary shows the sealed tests were read after sealing: {}",
                self.evidence.canary_reads.join("; ")
            );
            self.err(&rules::SEAL_BROKEN, "/report/seal_broken", msg.clone());
            return (RequirementVerdict::Failed, msg);
        }
        if let Some(c) = self.evidence.combined.clone() {
            return self.recompute_combined(&c, stored);
        }
        let record = self.evidence.seal.as_ref();
        let dir = self.evidence.sealed_dir.as_ref();
        if record.is_none() && dir.is_none() {
            return (
                RequirementVerdict::Attested,
                "stored, not recomputed: give --sealed-dir (and --seal) to recompute it".into(),
            );
        }
        let Some(stored) = stored else {
            return (
                RequirementVerdict::Failed,
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
                return (RequirementVerdict::Failed, msg);
            }
        }
        let Some(dir) = dir else {
            return (
                RequirementVerdict::Attested,
                "the seal record names the same hash; give --sealed-dir to recompute it".into(),
            );
        };
        // A hash of nothing verifies nothing, and a link can point a sealed test anywhere (as
        // `gapscore seal` refuses and warns).
        if let Some(msg) = dir_unverifiable(dir) {
            self.err(&rules::HASH_RECOMPUTED, "/report/sealed_hash", msg.clone());
            return (RequirementVerdict::Failed, msg);
        }
        match record {
            Some(r) => {
                // The one seal verification (gapscore-seal): the record's excludes, mode, order and
                // spelling, and one way of saying what differs.
                let v = verify(r, &dir.files);
                let diff = v.diff.clone().unwrap_or_default();
                if v.actual.hash == stored.to_ascii_lowercase() && diff.is_empty() {
                    (
                        RequirementVerdict::Verified,
                        format!(
                            "recomputed from `{}` in {} mode ({} files) as the seal record prescribes: {stored}",
                            dir.given, r.mode, v.actual.hashed
                        ),
                    )
                } else if v.actual.hash == stored.to_ascii_lowercase() {
                    // The hash matches, but a file the mode leaves out (or one added beside
                    // the hashed ones) is not as the record lists it.
                    let msg = format!(
                        "`{}` hashes to {stored} in {} mode, but files that mode leaves out differ from the seal record: {}",
                        dir.given,
                        r.mode,
                        describe_diff(&diff)
                    );
                    self.err(&rules::HASH_RECOMPUTED, "/report/sealed_hash", msg.clone());
                    (RequirementVerdict::Failed, msg)
                } else {
                    let msg = format!("`{}` does not match its seal: {v}", dir.given);
                    self.err(&rules::HASH_RECOMPUTED, "/report/sealed_hash", msg.clone());
                    (RequirementVerdict::Failed, msg)
                }
            }
            None => match recompute_any(dir, &stored.to_ascii_lowercase()) {
                Some(Recomputed::Whole(how)) => (
                    RequirementVerdict::Verified,
                    format!("recomputed from `{}`: {how}", dir.given),
                ),
                Some(Recomputed::Partial { how, left_out }) => {
                    let n = left_out.len();
                    let shown: Vec<&str> = left_out.iter().take(3).map(String::as_str).collect();
                    let msg = format!(
                        "`{}` hashes to {stored} only in {how}, which leaves out {n} of its files ({}{}): a hash that does not cover every file cannot show they are unchanged; give the seal record (--seal), which lists every file",
                        dir.given,
                        shown.join(", "),
                        if n > 3 { ", ..." } else { "" }
                    );
                    self.err(&rules::HASH_RECOMPUTED, "/report/sealed_hash", msg.clone());
                    (RequirementVerdict::Failed, msg)
                }
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
                    (RequirementVerdict::Failed, msg)
                }
            },
        }
    }

    /// The hash under a combined seal (§4.6): the report's must be the combined record's, and
    /// every suite must hold, as `seal --verify COMBINED DIR` checks them.
    fn recompute_combined(
        &mut self,
        c: &crate::evidence::CombinedSeal,
        stored: Option<&str>,
    ) -> (RequirementVerdict, String) {
        let Some(stored) = stored else {
            return (
                RequirementVerdict::Failed,
                "no well-formed stored hash to compare with".into(),
            );
        };
        let rec = canonical_sha256(&c.hash).unwrap_or_else(|_| c.hash.clone());
        if rec != stored.to_ascii_lowercase() {
            let msg = format!(
                "the combined seal record's hash {rec} is not the report's {stored}: the report was not made under this seal"
            );
            self.err(&rules::SEAL_RECORD, "/report/sealed_hash", msg.clone());
            return (RequirementVerdict::Failed, msg);
        }
        if !c.problems.is_empty() {
            let msg = format!(
                "the combined seal `{}` does not hold: {}",
                c.record,
                c.problems.join("; ")
            );
            self.err(&rules::HASH_RECOMPUTED, "/report/sealed_hash", msg.clone());
            return (RequirementVerdict::Failed, msg);
        }
        (
            RequirementVerdict::Verified,
            format!(
                "the combined hash {stored} holds: every suite recomputed against its record ({})",
                c.suites.join(", ")
            ),
        )
    }

    /// A time the report gives at `pointer`: `None` when absent; a time that is not a string
    /// or not an RFC 3339 date-time (placeholders, impossible dates or offsets) is a
    /// `time.format` error, unless the schema already said so at that place.
    pub(crate) fn time_at(&mut self, v: Option<&Value>, pointer: &str) -> Option<(i128, String)> {
        let v = v?;
        if let Some(t) = v.as_str().and_then(parse_rfc3339) {
            return Some((t, v.as_str().unwrap_or_default().to_owned()));
        }
        let flagged = self
            .findings
            .iter()
            .any(|f| f.pointer == pointer && f.severity == crate::model::Severity::Error);
        if !flagged && !v.is_null() {
            self.err(
                &rules::TIME_FORMAT,
                pointer,
                format!(
                    "{v} is not an RFC 3339 date-time (`2026-03-01T09:00:00Z`, an offset within ±23:59): the time cannot be ordered"
                ),
            );
        }
        None
    }

    /// One time the report gives under several keys: every key that holds one must agree (a
    /// disagreement is a `seal.order` error, not "the first key wins").
    fn one_time(&mut self, keys: &[&str], what: &str) -> Option<(i128, String, String)> {
        let mut found: Option<(i128, String, String)> = None;
        for key in keys {
            let p = format!("/report/{key}");
            let Some((t, s)) = self.time_at(self.meta_get(key), &p) else {
                continue;
            };
            match &found {
                Some((ft, fs, fwhere)) if *ft != t => {
                    let msg = format!(
                        "{fwhere} says {what} {fs}, report.{key} says {s}: one time, two values"
                    );
                    self.err(&rules::SEAL_ORDER, &p, msg);
                }
                Some(_) => {}
                None => found = Some((t, s, format!("report.{key}"))),
            }
        }
        found
    }

    fn seal_order(&mut self) -> (RequirementVerdict, String) {
        let before = self.findings.len();
        let claimed = self.one_time(&["sealed_at", "seal_created", "sealed_timestamp"], "sealed");
        // The seal record is the trusted evidence: its `created` is the seal time, whatever
        // the report says; a report that says otherwise is in conflict with its seal.
        // Under a combined seal (§4.6) the seal time is the latest of the combined record's
        // `created` and every suite record's: the whole was sealed when its last suite was
        // sealed and combined in, and no suite was sealed before it existed.
        let records: Vec<(String, String)> = match (&self.evidence.seal, &self.evidence.combined) {
            (Some(r), _) => vec![(r.created.clone(), "the seal record".to_owned())],
            (None, Some(c)) => {
                std::iter::once((c.created.clone(), "the combined seal record".to_owned()))
                    .chain(c.suite_records.iter().map(|(dir, r, _)| {
                        (
                            r.created.clone(),
                            format!("the seal record of suite `{dir}`"),
                        )
                    }))
                    .collect()
            }
            (None, None) => Vec::new(),
        };
        let mut recorded: Option<(i128, String, String)> = None;
        for (c, what) in records {
            match parse_rfc3339(&c) {
                Some(t) => {
                    if recorded.as_ref().is_none_or(|(latest, _, _)| t > *latest) {
                        recorded = Some((t, c, what));
                    }
                }
                None => self.err(
                    &rules::TIME_FORMAT,
                    "",
                    format!("{what}'s `created` {c:?} is not an RFC 3339 date-time"),
                ),
            }
        }
        let sealed = match (claimed, recorded) {
            (Some((ct, cs, cwhere)), Some(rec)) => {
                if ct != rec.0 {
                    let p = format!("/{}", cwhere.replace('.', "/"));
                    self.err(
                        &rules::SEAL_ORDER,
                        &p,
                        format!(
                            "{cwhere} says sealed {cs}, but {} was created {}: the record's time is the seal time",
                            rec.2, rec.1
                        ),
                    );
                }
                Some(rec)
            }
            (c, r) => r.or(c),
        };
        let implementation = self.one_time(
            &[
                "implementation_started_at",
                "implementation_started",
                "implementation_start",
            ],
            "implementation began",
        );
        // Every validation: the report's own time and each recorded cycle's.
        let mut validations: Vec<(i128, String, String)> = Vec::new();
        if let Some((t, s)) = self.time_at(self.meta_get("timestamp"), "/report/timestamp") {
            validations.push((t, s, "the report".to_owned()));
        }
        let history = self
            .hardening()
            .and_then(|h| h.get("history"))
            .and_then(Value::as_array);
        // Cycles without a time cannot be ordered against the seal.
        let mut untimed = Vec::new();
        for (i, c) in history.into_iter().flatten().enumerate() {
            let p = format!("/hardening/history/{i}/timestamp");
            let time = self.time_at(c.get("timestamp"), &p);
            if time.is_none() {
                untimed.push(i.to_string());
            }
            if let Some((t, s)) = time {
                let what = if i == 0 {
                    "the first recorded validation".to_owned()
                } else {
                    format!("recorded validation {i}")
                };
                validations.push((t, s, what));
            }
        }
        // The earliest validation; of equal times, the first listed.
        let validation = validations
            .into_iter()
            .reduce(|a, b| if b.0 < a.0 { b } else { a });
        let Some((st, ss, swhere)) = sealed else {
            return self.order_verdict(
                before,
                RequirementVerdict::Attested,
                "neither the report nor a seal record says when the tests were sealed".into(),
            );
        };
        if let Some((vt, vs, vwhere)) = &validation
            && st > *vt
        {
            let msg = format!(
                "sealed {ss} ({swhere}), after {vwhere} at {vs}: the seal cannot predate the implementation"
            );
            self.err(&rules::SEAL_ORDER, "/report", msg);
        }
        if let Some((it, is, iwhere)) = implementation {
            if st < it {
                return self.order_verdict(
                    before,
                    RequirementVerdict::Verified,
                    format!("sealed {ss} ({swhere}), implementation began {is} ({iwhere})"),
                );
            }
            let msg = format!("sealed {ss} ({swhere}), after implementation began {is} ({iwhere})");
            self.err(&rules::SEAL_ORDER, "/report", msg);
            return self.order_verdict(before, RequirementVerdict::Verified, String::new());
        }
        // A claim without evidence caps the level: with the seal time known, sealed-first is
        // shown only against a time of implementation or of every validation.
        if !untimed.is_empty() {
            let detail = format!(
                "sealed {ss} ({swhere}), but hardening cycle{} {} record{} no time and implementation's start is not recorded: the seal cannot be shown to precede {}",
                if untimed.len() == 1 { "" } else { "s" },
                untimed.join(", "),
                if untimed.len() == 1 { "s" } else { "" },
                if untimed.len() == 1 { "it" } else { "them" }
            );
            return self.order_verdict(before, RequirementVerdict::Failed, detail);
        }
        let Some((_, vs, vwhere)) = validation else {
            let detail = format!(
                "sealed {ss} ({swhere}), but the report records no time of implementation or validation (`report.timestamp`, `report.implementation_started_at`, history timestamps): the seal cannot be shown to come first"
            );
            return self.order_verdict(before, RequirementVerdict::Failed, detail);
        };
        let detail = format!(
            "sealed {ss} ({swhere}), before {vwhere} at {vs}; when implementation began is not recorded"
        );
        self.order_verdict(before, RequirementVerdict::Attested, detail)
    }

    /// The sealed-first verdict: failed with the first error found since `before`, else as
    /// given.
    fn order_verdict(
        &self,
        before: usize,
        verdict: RequirementVerdict,
        detail: String,
    ) -> (RequirementVerdict, String) {
        match self.findings[before..]
            .iter()
            .find(|f| f.severity == crate::model::Severity::Error)
        {
            Some(f) => (RequirementVerdict::Failed, f.message.clone()),
            None => (verdict, detail),
        }
    }
}

/// Why a sealed directory can verify no hash: it holds no regular file, or a symbolic link.
fn dir_unverifiable(dir: &SealedDir) -> Option<String> {
    let links = || {
        let shown: Vec<String> = dir
            .links
            .iter()
            .take(3)
            .map(|(p, t)| format!("{p} -> {t}"))
            .collect();
        format!(
            "{} symbolic link{} ({}{})",
            dir.links.len(),
            if dir.links.len() == 1 { "" } else { "s" },
            shown.join(", "),
            if dir.links.len() > 3 { ", ..." } else { "" }
        )
    };
    if dir.files.is_empty() {
        return Some(format!(
            "`{}` holds no regular file{}: a hash of nothing protects nothing, so it verifies nothing",
            dir.given,
            if dir.links.is_empty() {
                String::new()
            } else {
                format!(", only {}", links())
            }
        ));
    }
    (!dir.links.is_empty()).then(|| {
        format!(
            "`{}` holds {}: a seal covers regular files only, and a link can point a sealed test anywhere",
            dir.given,
            links()
        )
    })
}

/// What differs between a seal record and the directory, in one line.
fn describe_diff(d: &SealDiff) -> String {
    let mut parts = Vec::new();
    for (list, what) in [
        (&d.changed, "changed"),
        (&d.added, "added"),
        (&d.removed, "removed"),
    ] {
        if !list.is_empty() {
            parts.push(format!("{what}: {}", list.join(", ")));
        }
    }
    parts.join("; ")
}

/// A mode and spelling that give the stored hash: over every file, or over some of them.
enum Recomputed {
    /// Every file of the directory is in the hash.
    Whole(String),
    /// The mode leaves files out (stampede: all but `*.sh`; spec: names `xargs` splits).
    Partial { how: String, left_out: Vec<String> },
}

/// Tries every hash mode and spelling of the directory the references use; says which matched
/// and whether the hash covers every file.
fn recompute_any(dir: &SealedDir, want: &str) -> Option<Recomputed> {
    let strict = seal_hash(&dir.files, &SealOptions::default());
    if strict.hash == want {
        return Some(Recomputed::Whole(format!(
            "strict mode, {} files",
            strict.hashed
        )));
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
                    let subset = match mode {
                        HashMode::Stampede => " (the mode hashes `*.sh` files only)",
                        _ => {
                            " (the mode leaves out names `xargs` splits: blanks, quotes, backslashes)"
                        }
                    };
                    let how = format!(
                        "{mode} mode as `{as_}`, {order}, {} file{}",
                        h.hashed,
                        if h.hashed == 1 { "" } else { "s" }
                    );
                    if h.unhashed.is_empty() && h.hashed > 0 {
                        return Some(Recomputed::Whole(how));
                    }
                    return Some(Recomputed::Partial {
                        how: format!("{how}{subset}"),
                        left_out: h.unhashed,
                    });
                }
            }
        }
    }
    None
}
