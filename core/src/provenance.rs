//! Spec v2 provenance (§3.6, §4.2.1, §5.2): who wrote the implementation and the sealed
//! tests, the [`Independence`] class worked out from their model families, and the report's
//! [`SpecVersion`].

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// Families and models compare by the one name fold: case, spacing, invisible characters and
// lookalike letters aside.
use crate::fold::same_name;

/// The spec version a report is written to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum SpecVersion {
    /// Spec 1.0.0: no provenance fields.
    #[default]
    #[serde(rename = "1.0.0")]
    V1,
    /// Spec 2.0.0: provenance, independence and the §5.4 advisory conditions.
    #[serde(rename = "2.0.0")]
    V2,
}

impl SpecVersion {
    /// `1.0.0` or `2.0.0`, as written in `shadow_score_spec_version`.
    pub fn as_str(self) -> &'static str {
        match self {
            SpecVersion::V1 => "1.0.0",
            SpecVersion::V2 => "2.0.0",
        }
    }
}

/// §3.6.1 authorship independence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Independence {
    /// The implementer's family is not among the seal authors' families.
    Strong,
    /// The implementer shares a family (or a model) with a seal author: the report is advisory.
    Weak,
}

/// §4.3 `report.workspace_isolation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WorkspaceIsolation {
    /// A disposable verification workspace.
    Strict,
    /// The v1.0.0 copy-in procedure (sealed tests placed in the implementer's own workspace).
    Legacy,
}

impl std::str::FromStr for WorkspaceIsolation {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "strict" => Ok(WorkspaceIsolation::Strict),
            "legacy" => Ok(WorkspaceIsolation::Legacy),
            other => Err(format!(
                "invalid workspace isolation `{other}` (expected strict or legacy)"
            )),
        }
    }
}

/// Who authored what, as declared by the caller (flags or a provenance file).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Provenance {
    /// Model family of the implementer.
    #[serde(default)]
    pub implementer_family: Option<String>,
    /// The implementer's model.
    #[serde(default)]
    pub implementer_model: Option<String>,
    /// Model families of the seal authors.
    #[serde(default)]
    pub seal_author_families: Vec<String>,
    /// The seal authors' models.
    #[serde(default)]
    pub seal_author_models: Vec<String>,
    /// How the sealed tests were kept out of the implementer's workspace.
    #[serde(default)]
    pub workspace_isolation: Option<WorkspaceIsolation>,
    /// The conformance level claimed (1–4).
    #[serde(default)]
    pub conformance_level: Option<u8>,
    /// Model name → family: how families are worked out from models (§4.2.1 "family
    /// assignment MUST be declared").
    #[serde(default)]
    pub families: BTreeMap<String, String>,
}

impl Provenance {
    /// Parses a provenance file (TOML: the fields of [`Provenance`] and a `[families]` table).
    pub fn from_toml(text: &str) -> Result<Provenance, String> {
        toml::from_str(text).map_err(|e| e.message().to_owned())
    }

    /// True when nothing was declared.
    pub fn is_empty(&self) -> bool {
        *self == Provenance::default()
    }

    /// Works out the families the `[families]` table gives the models, checks them against
    /// the declared ones and the conformance level, and returns the provenance to report.
    pub fn resolve(&self) -> Result<Resolved, String> {
        // A model is looked up by its fold too: `GPT-5` finds the table's `gpt-5`.
        let family_of = |model: &str| {
            self.families.get(model).cloned().or_else(|| {
                self.families
                    .iter()
                    .find(|(k, _)| same_name(k, model))
                    .map(|(_, f)| f.clone())
            })
        };
        let implementer_family = match (&self.implementer_family, &self.implementer_model) {
            (Some(f), Some(m)) => {
                if let Some(mapped) = family_of(m)
                    && !same_name(&mapped, f)
                {
                    return Err(format!(
                        "the implementer's family is `{f}`, but [families] puts its model `{m}` in `{mapped}`"
                    ));
                }
                Some(f.clone())
            }
            (Some(f), None) => Some(f.clone()),
            (None, Some(m)) => family_of(m),
            (None, None) => None,
        };
        let mut seal_author_families: Vec<String> = Vec::new();
        let mut add = |f: &str| {
            if !seal_author_families.iter().any(|g| same_name(g, f)) {
                seal_author_families.push(f.to_owned());
            }
        };
        for f in &self.seal_author_families {
            add(f);
        }
        for m in &self.seal_author_models {
            match family_of(m) {
                Some(f) => add(&f),
                None if self.seal_author_families.is_empty() => {
                    return Err(format!(
                        "no family for the seal author model `{m}`: declare it in [families] or give the seal authors' families"
                    ));
                }
                None => {}
            }
        }
        if let Some(l) = self.conformance_level
            && !(1..=4).contains(&l)
        {
            return Err(format!("conformance level {l} is not one of 1, 2, 3, 4"));
        }
        let independence = independence(
            implementer_family.as_deref(),
            self.implementer_model.as_deref(),
            &seal_author_families,
            &self.seal_author_models,
        );
        if self.conformance_level == Some(4) {
            let mut missing = Vec::new();
            if implementer_family.is_none() {
                missing.push(
                    "the implementer's family (--implementer-family, or its model in [families])",
                );
            }
            if seal_author_families.is_empty() {
                missing.push("the seal authors' families (--seal-author-family)");
            }
            if !missing.is_empty() {
                return Err(format!(
                    "conformance level 4 needs report.independence, report.implementer_family and report.seal_author_families (§5.2, §6), but {} {} not given",
                    missing.join(" and "),
                    if missing.len() == 1 { "was" } else { "were" }
                ));
            }
        }
        Ok(Resolved {
            implementer_family,
            implementer_model: self.implementer_model.clone(),
            seal_author_families,
            seal_author_models: self.seal_author_models.clone(),
            workspace_isolation: self.workspace_isolation,
            conformance_level: self.conformance_level,
            independence,
            spec_ambiguity: None,
        })
    }
}

/// §3.6.1: weak when the implementer shares a family or a model with a seal author, strong
/// otherwise; unknown without both sides' families.
fn independence(
    implementer_family: Option<&str>,
    implementer_model: Option<&str>,
    seal_author_families: &[String],
    seal_author_models: &[String],
) -> Option<Independence> {
    let imp = implementer_family?;
    if seal_author_families.is_empty() {
        return None;
    }
    let shared_family = seal_author_families.iter().any(|f| same_name(f, imp));
    let same_model =
        implementer_model.is_some_and(|m| seal_author_models.iter().any(|s| same_name(s, m)));
    Some(if shared_family || same_model {
        Independence::Weak
    } else {
        Independence::Strong
    })
}

impl Resolved {
    /// Takes the seal authors' families from a combined seal (§4.6 seal plurality), whose
    /// record tags every suite with its author's family: they fill `seal_author_families` when
    /// none were declared, and independence is worked out again. Declared families that are
    /// not the record's (as a set of folded names, [`crate::fold`]) are contradictory evidence: refused.
    pub fn adopt_seal_families(&mut self, families: &[String]) -> Result<(), String> {
        let set = |list: &[String]| -> std::collections::BTreeSet<String> {
            list.iter().map(|f| crate::fold::name_fold(f)).collect()
        };
        if self.seal_author_families.is_empty() {
            for f in families {
                if !self.seal_author_families.iter().any(|g| same_name(g, f)) {
                    self.seal_author_families.push(f.trim().to_owned());
                }
            }
        } else if set(&self.seal_author_families) != set(families) {
            return Err(format!(
                "the seal authors' families declared ({}) are not the seal record's ({}): the seal record names each sealed suite's author family; declare those, or none",
                self.seal_author_families.join(", "),
                families.join(", ")
            ));
        }
        self.independence = independence(
            self.implementer_family.as_deref(),
            self.implementer_model.as_deref(),
            &self.seal_author_families,
            &self.seal_author_models,
        );
        Ok(())
    }
}

/// Provenance checked and worked out, as written under `report`.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Resolved {
    /// `report.implementer_family`.
    pub implementer_family: Option<String>,
    /// `report.implementer_model`.
    pub implementer_model: Option<String>,
    /// `report.seal_author_families` (no duplicates).
    pub seal_author_families: Vec<String>,
    /// `report.seal_author_models`.
    pub seal_author_models: Vec<String>,
    /// `report.workspace_isolation`.
    pub workspace_isolation: Option<WorkspaceIsolation>,
    /// `report.conformance_level`.
    pub conformance_level: Option<u8>,
    /// `report.independence`, when both sides' families are known.
    pub independence: Option<Independence>,
    /// `report.spec_ambiguity` (§4.6.2), from the contradictions found between the sealed
    /// suites of a plural seal.
    pub spec_ambiguity: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_family_is_weak_and_a_table_works_it_out() {
        let p = Provenance::from_toml(
            "implementer_model = \"claude-x\"\nseal_author_models = [\"gpt-y\", \"claude-z\"]\n[families]\n\"claude-x\" = \"anthropic\"\n\"claude-z\" = \"anthropic\"\n\"gpt-y\" = \"openai\"\n",
        )
        .unwrap();
        let r = p.resolve().unwrap();
        assert_eq!(r.implementer_family.as_deref(), Some("anthropic"));
        assert_eq!(r.seal_author_families, ["openai", "anthropic"]);
        assert_eq!(r.independence, Some(Independence::Weak));
    }

    #[test]
    fn names_disguised_by_case_invisible_characters_or_lookalikes_are_one_family() {
        // A zero-width space, a Cyrillic `о`, letter case: one family, so weak.
        for family in ["open\u{200b}ai", "\u{43e}penai", "OPENAI"] {
            let p = Provenance {
                implementer_family: Some(family.into()),
                seal_author_families: vec!["openai".into()],
                ..Provenance::default()
            };
            let r = p.resolve().unwrap();
            assert_eq!(r.independence, Some(Independence::Weak), "{family:?}");
        }
        // One model written in two cases is one model: weak, whatever the families say.
        let p = Provenance {
            implementer_family: Some("anthropic".into()),
            implementer_model: Some("GPT-5".into()),
            seal_author_families: vec!["openai".into()],
            seal_author_models: vec!["gpt-5".into()],
            ..Provenance::default()
        };
        assert_eq!(p.resolve().unwrap().independence, Some(Independence::Weak));
    }

    #[test]
    fn different_families_are_strong_and_level_4_needs_them() {
        let mut p = Provenance {
            implementer_family: Some("anthropic".into()),
            seal_author_families: vec!["openai".into(), "OpenAI".into()],
            conformance_level: Some(4),
            ..Provenance::default()
        };
        let r = p.resolve().unwrap();
        assert_eq!(r.independence, Some(Independence::Strong));
        assert_eq!(r.seal_author_families, ["openai"]);
        p.implementer_family = None;
        assert!(p.resolve().unwrap_err().contains("conformance level 4"));
    }

    #[test]
    fn a_combined_seals_families_fill_or_must_match_the_declared_ones() {
        let p = Provenance {
            implementer_family: Some("anthropic".into()),
            ..Provenance::default()
        };
        let mut r = p.resolve().unwrap();
        assert_eq!(r.independence, None);
        let combined = vec!["anthropic".to_owned(), "openai".to_owned()];
        r.adopt_seal_families(&combined).unwrap();
        assert_eq!(r.seal_author_families, combined);
        assert_eq!(r.independence, Some(Independence::Weak));
        let mut declared = Provenance {
            implementer_family: Some("google".into()),
            seal_author_families: vec!["OpenAI".into(), "anthropic".into()],
            ..Provenance::default()
        }
        .resolve()
        .unwrap();
        declared.adopt_seal_families(&combined).unwrap();
        assert_eq!(declared.independence, Some(Independence::Strong));
        declared.seal_author_families = vec!["openai".into()];
        assert!(
            declared
                .adopt_seal_families(&combined)
                .unwrap_err()
                .contains("not the seal record's")
        );
    }

    #[test]
    fn unknown_keys_are_refused() {
        assert!(Provenance::from_toml("seal_families = [\"x\"]").is_err());
    }
}
