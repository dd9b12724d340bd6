//! Level 4 (spec v2 §6, "Adversarial Independence"), judged when `--level 4` is asked for:
//! the §5.2 provenance at its full paths, strong independence consistent with the families
//! reported, a disposable verification workspace, the §5.4 advisory conditions, `spec_ambiguity`
//! under seal plurality, and enforcement before dispatch (attested: a report cannot show it).

use gapscore_core::fold::{name_fold, same_name, show_disguises};
use serde_json::Value;

use crate::checker::{Checker, ptr};
use crate::model::RequirementVerdict;
use crate::rules;

/// The level-4 requirements: id, spec section, title.
const L4_REQUIREMENTS: [(&str, &str, &str); 8] = [
    (
        "L4.spec-v2",
        "§6 (v2)",
        "the report follows spec v2, which defines Level 4",
    ),
    (
        "L4.provenance",
        "§5.2 (v2)",
        "independence, seal_author_families and implementer_family are reported under `report`",
    ),
    (
        "L4.independence",
        "§3.6.1 (v2)",
        "seal authors and implementer are of different model families (strong independence)",
    ),
    (
        "L4.workspace",
        "§4.3 (v2)",
        "validation uses a disposable verification workspace",
    ),
    (
        "L4.advisory",
        "§5.4 (v2)",
        "advisory conditions are detected and reported",
    ),
    (
        "L4.ambiguity",
        "§4.6.2 (v2)",
        "spec_ambiguity is reported when seal plurality is used",
    ),
    (
        "L4.escalation",
        "§4.4.2 (v2)",
        "hardening escalation never moves the implementer into a seal author's family",
    ),
    (
        "L4.before-dispatch",
        "§4.2.1 (v2)",
        "authorship independence is enforced before dispatch",
    ),
];

/// The three provenance fields Level 4 requires (§5.2), in `report`.
const PROVENANCE: [&str; 3] = ["independence", "seal_author_families", "implementer_family"];

/// The provenance a report gives, when all three fields are present and well formed.
struct Provenance {
    strong: bool,
    /// The seal author families as written, and folded ([`family`]).
    seal: Vec<(String, String)>,
    implementer: String,
}

/// A model family or model as compared: its name fold (the one identity of names, shared with
/// `score`: case, spacing, punctuation, invisible characters, compatibility forms and
/// lookalike letters aside).
fn family(s: &str) -> String {
    name_fold(s)
}

/// A non-empty list of names, none of which folds to nothing (a name of invisible characters
/// or punctuation only, `\u{200b}` or `-`, declares no family: §4.2.1 requires one declared).
fn names(v: &Value) -> Option<Vec<String>> {
    let list = v.as_array()?;
    let out: Vec<String> = list
        .iter()
        .map(|x| {
            x.as_str()
                .filter(|s| !name_fold(s).is_empty())
                .map(str::to_owned)
        })
        .collect::<Option<_>>()?;
    (!out.is_empty()).then_some(out)
}

impl Checker<'_> {
    pub(crate) fn level4(&mut self) {
        if self.major < 2 {
            let version = self.version.clone().unwrap_or_else(|| "1".to_owned());
            let msg = format!(
                "a spec v{version} report cannot hold level 4: Level 4 (adversarial independence) is defined by spec v2.0.0, and v1 has no field to show it (no independence class, no model families, no workspace isolation, no advisory status)"
            );
            let pointer = if self.root.contains_key("shadow_score_spec_version") {
                "/shadow_score_spec_version"
            } else if self.root.contains_key("gap_score_spec_version") {
                "/gap_score_spec_version"
            } else {
                ""
            };
            self.err(&rules::L4_VERSION, pointer, msg.clone());
            for (id, spec, title) in L4_REQUIREMENTS {
                self.require(id, 4, spec, title, RequirementVerdict::Failed, msg.clone());
            }
            return;
        }
        let version = self.version.clone().unwrap_or_default();
        let (id, spec, title) = L4_REQUIREMENTS[0];
        self.require(
            id,
            4,
            spec,
            title,
            RequirementVerdict::Verified,
            format!("spec {version}"),
        );

        let provenance = self.provenance();
        let (verdict, detail) = match &provenance {
            Ok(p) => (
                RequirementVerdict::Verified,
                format!(
                    "independence {}, implementer family `{}`, seal author families {}",
                    if p.strong { "strong" } else { "weak" },
                    p.implementer,
                    quoted(p.seal.iter().map(|(s, _)| s.as_str()))
                ),
            ),
            Err(d) => (RequirementVerdict::Failed, d.clone()),
        };
        self.require_l4(1, verdict, detail);

        let (verdict, detail) = self.independence(provenance.as_ref().ok());
        self.require_l4(2, verdict, detail);
        let (verdict, detail) = self.workspace();
        self.require_l4(3, verdict, detail);
        let (verdict, detail) = self.advisory_conditions();
        self.require_l4(4, verdict, detail);
        let (verdict, detail) = self.ambiguity(provenance.as_ref().ok());
        self.require_l4(5, verdict, detail);

        let (verdict, detail) = self.escalation(provenance.as_ref().ok());
        self.require_l4(6, verdict, detail);

        let msg = "a report cannot show that the families were compared before any agent was dispatched, or that the specifier and reviewers are outside the families they feed or review: taken as attested".to_owned();
        self.note(&rules::DISPATCH, "/report", msg.clone());
        self.require_l4(7, RequirementVerdict::Attested, msg);
    }

    fn require_l4(&mut self, i: usize, verdict: RequirementVerdict, detail: String) {
        let (id, spec, title) = L4_REQUIREMENTS[i];
        self.require(id, 4, spec, title, verdict, detail);
    }

    /// The three provenance fields, each present under `report` and well formed; an error for
    /// each that is not (one written at the root or under the superseded `seal_families` name is
    /// absent, §5.2).
    fn provenance(&mut self) -> Result<Provenance, String> {
        let mut problems = Vec::new();
        for key in PROVENANCE {
            let at = ptr(&["report", key]);
            let (pointer, msg) = match self.meta_get(key) {
                None => {
                    let alias = (key == "seal_author_families")
                        .then(|| self.meta_get("seal_families"))
                        .flatten();
                    if self.root.contains_key(key) {
                        (
                            ptr(&[key]),
                            format!(
                                "`{key}` is at the root, not at `report.{key}`: a provenance field at the wrong depth is not present (§5.2)"
                            ),
                        )
                    } else if alias.is_some() {
                        (
                            "/report/seal_families".to_owned(),
                            "`report.seal_families` is the superseded spelling of `report.seal_author_families`: the field is not present under its name (§5.2)".to_owned(),
                        )
                    } else {
                        ("/report".to_owned(), format!("no `report.{key}`"))
                    }
                }
                Some(v) => {
                    let ok = match key {
                        "independence" => matches!(v.as_str(), Some("strong" | "weak")),
                        "seal_author_families" => names(v).is_some(),
                        _ => v.as_str().is_some_and(|s| !name_fold(s).is_empty()),
                    };
                    if ok {
                        continue;
                    }
                    let want = match key {
                        "independence" => "`strong` or `weak`",
                        "seal_author_families" => "a non-empty list of family names",
                        _ => "a family name",
                    };
                    (at, format!("`report.{key}` is {v}, not {want}"))
                }
            };
            self.err(&rules::PROVENANCE, &pointer, msg.clone());
            problems.push(msg);
        }
        if !problems.is_empty() {
            return Err(problems.join("; "));
        }
        let get = |k: &str| self.meta_get(k).cloned().unwrap_or_default();
        let seal = names(&get("seal_author_families")).unwrap_or_default();
        Ok(Provenance {
            strong: get("independence").as_str() == Some("strong"),
            seal: seal
                .into_iter()
                .map(|s| (family(&s), s))
                .map(|(n, s)| (s, n))
                .collect(),
            implementer: get("implementer_family")
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        })
    }

    /// `strong` independence, with no family (or model) shared by the implementer and a seal
    /// author.
    fn independence(&mut self, p: Option<&Provenance>) -> (RequirementVerdict, String) {
        let Some(p) = p else {
            return (
                RequirementVerdict::Failed,
                "the provenance is incomplete (provenance.present)".to_owned(),
            );
        };
        if !p.strong {
            let msg = "independence is `weak` (the seal author and the implementer share a model family or are one agent): a weak score is advisory (§3.6.1, §5.4) and holds no level 4".to_owned();
            self.err(&rules::INDEPENDENCE, "/report/independence", msg.clone());
            return (RequirementVerdict::Failed, msg);
        }
        let implementer = family(&p.implementer);
        if let Some((shared, _)) = p.seal.iter().find(|(_, n)| *n == implementer) {
            let msg = format!(
                "independence is `strong`, but the implementer's family `{}` is also a seal author's (`{}` in seal_author_families): a shared family is weak independence (§3.6.1; names compare by their fold: case, spacing, punctuation, invisible characters, compatibility forms and lookalike letters aside)",
                show_disguises(&p.implementer),
                show_disguises(shared)
            );
            self.err(
                &rules::INDEPENDENCE,
                "/report/implementer_family",
                msg.clone(),
            );
            return (RequirementVerdict::Failed, msg);
        }
        let model = self.meta_get("implementer_model").and_then(Value::as_str);
        let seal_models = self
            .meta_get("seal_author_models")
            .and_then(names)
            .unwrap_or_default();
        if let Some(m) = model
            && seal_models.iter().any(|s| same_name(s, m))
        {
            let msg = format!(
                "independence is `strong`, but the implementer's model `{}` is also a seal author's (seal_author_models): one model is one family (§4.2.1; names compare by their fold)",
                show_disguises(m)
            );
            self.err(
                &rules::INDEPENDENCE,
                "/report/implementer_model",
                msg.clone(),
            );
            return (RequirementVerdict::Failed, msg);
        }
        (
            RequirementVerdict::Verified,
            format!(
                "strong: the implementer's family `{}` is none of the seal authors' ({})",
                p.implementer,
                quoted(p.seal.iter().map(|(s, _)| s.as_str()))
            ),
        )
    }

    /// `workspace_isolation` other than `legacy`; `strict` is the report's word (attested).
    fn workspace(&mut self) -> (RequirementVerdict, String) {
        match self.meta_get("workspace_isolation").map(|v| (v, v.as_str())) {
            Some((_, Some("strict"))) => (
                RequirementVerdict::Attested,
                "the report says `strict` (a disposable verification workspace); a report cannot show it".to_owned(),
            ),
            Some((_, Some("legacy"))) => {
                let msg = "`workspace_isolation: legacy`: the sealed tests were copied into the implementer's workspace (the v1.0.0 procedure); Level 4 requires a disposable verification workspace (§4.3)".to_owned();
                self.err(&rules::WORKSPACE, "/report/workspace_isolation", msg.clone());
                (RequirementVerdict::Failed, msg)
            }
            Some((v, _)) => (
                RequirementVerdict::Failed,
                format!("`report.workspace_isolation` is {v}, neither `strict` nor `legacy`"),
            ),
            None => {
                let msg = "no `report.workspace_isolation`: the disposable verification workspace (§4.3) is not reported; taken on trust".to_owned();
                self.warn(&rules::WORKSPACE, "/report", msg.clone());
                (RequirementVerdict::Attested, msg)
            }
        }
    }

    /// The §5.4 conditions a report can show (weak independence, a broken seal) against its
    /// advisory flag; both ways an advisory report holds no level (`report.advisory`, and the
    /// v2 schema's conditionals).
    fn advisory_conditions(&self) -> (RequirementVerdict, String) {
        let mut conditions: Vec<String> = Vec::new();
        if self.meta_get("independence").and_then(Value::as_str) == Some("weak") {
            conditions.push("`independence: weak`".to_owned());
        }
        if self.meta_get("seal_broken") == Some(&Value::Bool(true)) {
            conditions.push("`seal_broken: true`".to_owned());
        }
        conditions.extend(self.advisory_evidence().into_iter().map(|(_, what)| what));
        let advisory = self.advisory_flag();
        match (conditions.is_empty(), advisory) {
            (true, false) => (
                RequirementVerdict::Verified,
                "no §5.4 condition a report can show holds (independence not weak, seal not broken, sealed tests counted, none of its producer's advisory records) and the report is not advisory".to_owned(),
            ),
            (true, true) => (
                RequirementVerdict::Failed,
                "the report is advisory (report.advisory): not a conformant score".to_owned(),
            ),
            (false, true) => (
                RequirementVerdict::Failed,
                format!(
                    "{} is reported as advisory, as §5.4 asks: an advisory score holds no level",
                    conditions.join(" and ")
                ),
            ),
            (false, false) => (
                RequirementVerdict::Failed,
                format!(
                    "{} without `advisory: true` (§5.4; the v2 schema rejects it)",
                    conditions.join(" and ")
                ),
            ),
        }
    }

    /// `spec_ambiguity` when the report records several seal authors (families or models).
    fn ambiguity(&mut self, p: Option<&Provenance>) -> (RequirementVerdict, String) {
        let mut families: Vec<&str> = p
            .map(|p| p.seal.iter().map(|(_, n)| n.as_str()).collect())
            .unwrap_or_default();
        families.sort_unstable();
        families.dedup();
        let mut models: Vec<String> = self
            .meta_get("seal_author_models")
            .and_then(names)
            .unwrap_or_default()
            .iter()
            .map(|m| family(m))
            .collect();
        models.sort_unstable();
        models.dedup();
        let plural = families.len() > 1 || models.len() > 1;
        let what = if families.len() > 1 {
            format!("{} seal author families", families.len())
        } else {
            format!("{} seal author models", models.len())
        };
        match (plural, self.meta_get("spec_ambiguity")) {
            (false, _) => (
                RequirementVerdict::Verified,
                "one seal author: plurality not used, spec_ambiguity not required".to_owned(),
            ),
            (true, None) => {
                let msg = format!(
                    "{what} (seal plurality) but no `report.spec_ambiguity` (§4.6.2, §6 Level 4)"
                );
                self.err(&rules::AMBIGUITY, "/report", msg.clone());
                (RequirementVerdict::Failed, msg)
            }
            (true, Some(v)) => match v.as_f64() {
                Some(x) if (0.0..=1.0).contains(&x) => (
                    RequirementVerdict::Verified,
                    format!("{what}: spec_ambiguity {v}"),
                ),
                _ => (
                    RequirementVerdict::Failed,
                    format!("`report.spec_ambiguity` is {v}, not a ratio from 0 to 1"),
                ),
            },
        }
    }
}

impl Checker<'_> {
    /// §4.4.2: no hardening cycle's implementer is of a seal author's family or model, judged
    /// on the history's per-cycle `implementer_family` / `implementer_model` (gapscore's history
    /// records the family); attested when the report records no cycle's implementer. (gapscore's
    /// `hardening.escalation` is §4.4 step 7's escalation to human review, not a model change.)
    fn escalation(&mut self, p: Option<&Provenance>) -> (RequirementVerdict, String) {
        let seal_models = self
            .meta_get("seal_author_models")
            .and_then(names)
            .unwrap_or_default();
        let seal_families: Vec<String> = p
            .map(|p| p.seal.iter().map(|(s, _)| s.clone()).collect())
            .unwrap_or_default();
        let history = self
            .hardening()
            .and_then(|h| h.get("history"))
            .and_then(Value::as_array);
        let mut recorded = 0;
        let mut bad = Vec::new();
        for (i, cycle) in history.into_iter().flatten().enumerate() {
            for (key, seal) in [
                ("implementer_family", &seal_families),
                ("implementer_model", &seal_models),
            ] {
                let Some(name) = cycle.get(key).and_then(Value::as_str) else {
                    continue;
                };
                recorded += 1;
                if let Some(author) = seal.iter().find(|s| same_name(s, name)) {
                    let n = cycle
                        .get("cycle")
                        .and_then(Value::as_u64)
                        .unwrap_or(i as u64);
                    bad.push((
                        ptr(&["hardening", "history", &i.to_string(), key]),
                        format!(
                            "hardening cycle {n}'s implementer `{}` ({key}) is a seal author's (`{}`): escalating into a seal author's family reproduces teach-to-test through model correlation (§4.4.2)",
                            show_disguises(name),
                            show_disguises(author)
                        ),
                    ));
                }
            }
        }
        if let Some((_, first)) = bad.first().cloned() {
            for (pointer, msg) in bad {
                self.err(&rules::ESCALATION_FAMILY, &pointer, msg);
            }
            return (RequirementVerdict::Failed, first);
        }
        if recorded == 0 {
            return (
                RequirementVerdict::Attested,
                "no hardening cycle records its implementer (`hardening.history[].implementer_family`): taken as attested".to_owned(),
            );
        }
        (
            RequirementVerdict::Verified,
            format!(
                "{recorded} recorded cycle implementer{} outside every seal author's family and model",
                if recorded == 1 { "" } else { "s" }
            ),
        )
    }
}

/// `a`, `b` as backquoted names.
fn quoted<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
