//! Category rules (`--categories FILE`): ordered regular-expression rules on a test's suite,
//! name and file that set its §5.3 category. [`CategoryRules::from_toml`] reads them;
//! [`CategoryRules::category_of`] applies them.
//!
//! ```toml
//! # The first rule that matches wins; every field a rule gives must match.
//! [[rule]]
//! category = "security"
//! name = "(?i)inject|forged|unauthori[sz]ed"
//!
//! [[rule]]
//! category = "edge_case"
//! suite = "boundar|limits"
//! ```
//!
//! Rules are applied after the adapters' own metadata (a `[security]` title tag, a pytest
//! marker, a CTRF tag) and win over it: they are the pipeline owner's final word. A test no
//! rule matches keeps what the adapter said, or stays `unknown`; it is never dropped.

use regex::Regex;
use serde::Deserialize;

use gapscore_model::error::Location;
use gapscore_model::{Category, TestCase};

/// A rules file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RulesError {
    /// Not valid TOML, or not the rules shape.
    #[error("{location}: {message}")]
    Syntax {
        /// Where.
        location: Location,
        /// What.
        message: String,
    },
    /// A rule that cannot work.
    #[error("rule {rule}: {message}")]
    Rule {
        /// 1-based rule number.
        rule: usize,
        /// What is wrong.
        message: String,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRules {
    #[serde(default)]
    rule: Vec<RawRule>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    category: String,
    suite: Option<String>,
    name: Option<String>,
    file: Option<String>,
}

#[derive(Debug, Clone)]
struct Rule {
    category: Category,
    suite: Option<Regex>,
    name: Option<Regex>,
    file: Option<Regex>,
}

/// Ordered category rules.
#[derive(Debug, Clone, Default)]
pub struct CategoryRules {
    rules: Vec<Rule>,
}

impl CategoryRules {
    /// Reads rules from TOML text.
    pub fn from_toml(text: &str) -> Result<Self, RulesError> {
        let raw: RawRules = toml::from_str(text).map_err(|e| RulesError::Syntax {
            location: e
                .span()
                .map_or(Location::LineCol { line: 1, column: 1 }, |s| {
                    line_col(text, s.start)
                }),
            message: e.message().trim().to_owned(),
        })?;
        let mut rules = Vec::with_capacity(raw.rule.len());
        for (i, r) in raw.rule.into_iter().enumerate() {
            let n = i + 1;
            let category = match Category::parse_lenient(&r.category) {
                Some(c) if c != Category::Unknown => c,
                _ => {
                    return Err(RulesError::Rule {
                        rule: n,
                        message: format!(
                            "unknown category `{}` (expected happy_path, edge_case, error_handling or security)",
                            r.category
                        ),
                    });
                }
            };
            if r.suite.is_none() && r.name.is_none() && r.file.is_none() {
                return Err(RulesError::Rule {
                    rule: n,
                    message: "a rule needs at least one of `suite`, `name`, `file`".into(),
                });
            }
            let compile = |field: &str, re: Option<String>| -> Result<Option<Regex>, RulesError> {
                re.map(|p| {
                    Regex::new(&p).map_err(|e| RulesError::Rule {
                        rule: n,
                        message: format!("invalid `{field}` regex: {e}"),
                    })
                })
                .transpose()
            };
            rules.push(Rule {
                category,
                suite: compile("suite", r.suite)?,
                name: compile("name", r.name)?,
                file: compile("file", r.file)?,
            });
        }
        Ok(CategoryRules { rules })
    }

    /// Number of rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// True without rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The category of the first rule matching the test, if any. A field the test lacks (no
    /// suite, no file) does not match a rule that asks for it.
    pub fn category_of(&self, test: &TestCase) -> Option<Category> {
        self.category_for(test.suite.as_deref(), &test.name, test.file.as_deref())
    }

    /// The category of the first rule that matches a test's suite, name and file.
    pub fn category_for(
        &self,
        suite: Option<&str>,
        name: &str,
        file: Option<&str>,
    ) -> Option<Category> {
        let hit = |re: &Option<Regex>, value: Option<&str>| match re {
            None => true,
            Some(re) => value.is_some_and(|v| re.is_match(v)),
        };
        self.rules
            .iter()
            .find(|r| hit(&r.suite, suite) && hit(&r.name, Some(name)) && hit(&r.file, file))
            .map(|r| r.category)
    }

    /// Sets the test's category when a rule matches.
    pub fn apply(&self, test: &mut TestCase) {
        if let Some(c) = self.category_of(test) {
            test.category = Some(c);
        }
    }
}

fn line_col(text: &str, offset: usize) -> Location {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Location::LineCol { line, column }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gapscore_model::Status;

    const RULES: &str = r#"
[[rule]]
category = "security"
name = "(?i)inject|forged"

[[rule]]
category = "edge-case"
suite = "limits"
file = "_edge\\.py$"

[[rule]]
category = "happy_path"
suite = "."
"#;

    fn test(suite: Option<&str>, name: &str, file: Option<&str>) -> TestCase {
        let mut t = TestCase::new(suite.map(str::to_owned), name, Status::Passed);
        t.file = file.map(str::to_owned);
        t
    }

    #[test]
    fn the_first_matching_rule_wins_and_every_field_must_match() {
        let r = CategoryRules::from_toml(RULES).unwrap();
        assert_eq!(r.len(), 3);
        let c = |s, n, f| r.category_of(&test(s, n, f));
        assert_eq!(
            c(Some("limits"), "SQL Injection", None),
            Some(Category::Security)
        );
        assert_eq!(
            c(Some("limits"), "max", Some("t_edge.py")),
            Some(Category::EdgeCase)
        );
        // The edge rule wants a file; without one the next rule matches.
        assert_eq!(c(Some("limits"), "max", None), Some(Category::HappyPath));
        assert_eq!(c(None, "max", None), None);
        let mut t = test(None, "forged token", None);
        t.category = Some(Category::HappyPath);
        r.apply(&mut t);
        assert_eq!(t.category, Some(Category::Security));
    }

    #[test]
    fn bad_rules_are_refused_with_their_place() {
        let e = CategoryRules::from_toml("[[rule]]\ncategory = \n").unwrap_err();
        assert!(
            matches!(
                e,
                RulesError::Syntax {
                    location: Location::LineCol { line: 2, .. },
                    ..
                }
            ),
            "{e}"
        );
        let e =
            CategoryRules::from_toml("[[rule]]\ncategory = \"speed\"\nname = \"x\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "rule 1: unknown category `speed` (expected happy_path, edge_case, error_handling or security)"
        );
        let e = CategoryRules::from_toml("[[rule]]\ncategory = \"security\"\nname = \"(\"\n")
            .unwrap_err();
        assert!(
            e.to_string().starts_with("rule 1: invalid `name` regex"),
            "{e}"
        );
        let e = CategoryRules::from_toml("[[rule]]\ncategory = \"security\"\n").unwrap_err();
        assert!(e.to_string().contains("at least one of"), "{e}");
        let e = CategoryRules::from_toml("[[rule]]\ncategory = \"security\"\nnmae = \"x\"\n")
            .unwrap_err();
        assert!(e.to_string().contains("nmae"), "{e}");
    }
}
