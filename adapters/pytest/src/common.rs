//! What the three pytest formats share: node ids, categories from markers and titles, the
//! exit-status meaning, capped output and JSON error places.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use gapscore_adapter_sdk::text::push_capped;
use gapscore_adapter_sdk::{
    Category, Declared, Evidence, EvidenceSource, InputError, Problem, ProblemKind, ReadCounts,
    Status, TestCase, TestCaseRef,
};

/// A JSON string borrowed from the input when it has no escapes (serde borrows a `Cow` only
/// when it is a field of its own, not inside an `Option` or a `Vec`).
#[derive(Debug, serde::Deserialize)]
#[serde(transparent)]
pub(crate) struct Str<'a>(#[serde(borrow)] pub(crate) Cow<'a, str>);

impl std::ops::Deref for Str<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Str<'_> {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// A test from its pytest node id: `suite` is the id before the last `::` (outside a parameter
/// bracket, whose ids may hold `::` themselves), `name` after it; the id stays the node id.
pub(crate) fn test_from_nodeid(nodeid: &str, status: Status) -> TestCase {
    let parts = NodeId::split(nodeid);
    let mut t = TestCase::new(parts.suite.map(str::to_owned), parts.name, status);
    t.id = nodeid.to_owned();
    t.file = parts.file.map(str::to_owned);
    t
}

/// A node id's parts, borrowed from it: what [`test_from_nodeid`] copies into a test, and what
/// the borrowed fast path ([`TestCaseRef`]) hands the sink as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NodeId<'a> {
    /// The id before the last `::` outside a parameter bracket.
    pub(crate) suite: Option<&'a str>,
    /// The id after it (the whole id without a `::`).
    pub(crate) name: &'a str,
    /// The id before its first `::`, when not empty.
    pub(crate) file: Option<&'a str>,
}

impl<'a> NodeId<'a> {
    pub(crate) fn split(nodeid: &'a str) -> Self {
        let head = nodeid.find('[').map_or(nodeid, |i| &nodeid[..i]);
        let (suite, name) = match head.rfind("::") {
            Some(i) => (Some(&nodeid[..i]), &nodeid[i + 2..]),
            None => (None, nodeid),
        };
        let file = nodeid.find("::").map_or(nodeid, |i| &nodeid[..i]);
        NodeId {
            suite,
            name,
            file: (!file.is_empty()).then_some(file),
        }
    }

    /// The test, borrowed, with the node id as its id and the file set.
    pub(crate) fn test_ref(&self, nodeid: &'a str, status: Status) -> TestCaseRef<'a> {
        let mut t = TestCaseRef::new(self.suite, self.name, nodeid, status);
        t.file = self.file;
        t
    }
}

/// A collector pytest skipped — a module-level `pytest.skip(..., allow_module_level=True)` or
/// `pytest.importorskip` — as one skipped test standing for the tests it never collected: id,
/// name and file = the collector's node id (a module path, no `::`), message = the reason.
pub(crate) fn skipped_collector(nodeid: &str, reason: &str) -> TestCase {
    let mut t = test_from_nodeid(nodeid, Status::Skipped);
    t.message = Some(reason.to_owned());
    t
}

/// The category a marker names. Keywords mix markers with the node's own names (file, folders,
/// class, test, parameter ids), so a keyword that is part of the node id is passed over — a
/// `tests/security/` folder is not a `security` marker — and only the canonical spellings count
/// (`error` alone is too common a word to be a marker naming a category).
pub(crate) fn category_from_keyword(nodeid: &str, keyword: &str) -> Option<Category> {
    let cat = category_name(keyword)?;
    let in_nodeid = nodeid
        .split(['/', ':', '[', ']', '.', '-'])
        .any(|seg| seg == keyword);
    (!in_nodeid).then_some(cat)
}

/// The category a marker-like keyword spells, compared without allocating (this runs for
/// every keyword of every test): `-` and space count as `_`, case is ignored.
pub(crate) fn category_name(keyword: &str) -> Option<Category> {
    const NAMES: [(&str, Category); 6] = [
        ("happy_path", Category::HappyPath),
        ("happy_paths", Category::HappyPath),
        ("edge_case", Category::EdgeCase),
        ("edge_cases", Category::EdgeCase),
        ("error_handling", Category::ErrorHandling),
        ("security", Category::Security),
    ];
    let k = keyword.as_bytes();
    if !(8..=14).contains(&k.len()) {
        return None;
    }
    NAMES.iter().find_map(|(name, cat)| {
        let same = name.len() == k.len()
            && name.bytes().zip(k).all(|(n, &c)| {
                let c = if c == b'-' || c == b' ' {
                    b'_'
                } else {
                    c.to_ascii_lowercase()
                };
                n == c
            });
        same.then_some(*cat)
    })
}

/// A test module skipped while it was collected (a module-level `pytest.skip(allow_module_level=
/// True)`, `importorskip`, or one the implementation raised at import): none of its tests ran,
/// and how many there were is not recorded, so it is a suite that did not run, not one skip.
pub(crate) fn module_skipped(nodeid: &str, reason: &str) -> Problem {
    Problem::new(
        ProblemKind::SuiteError,
        format!("collecting `{nodeid}` was skipped ({reason}): none of its tests ran, and how many there were is not recorded"),
    )
    .with_suite(nodeid.to_owned())
}

/// pytest's exit status as a run-level problem, when it is one. 0 (all passed) and 1 (some
/// tests failed) are ordinary; the rest mean tests did not all run.
pub(crate) fn exit_problem(code: i64) -> Option<Problem> {
    let (kind, what) = match code {
        0 | 1 => return None,
        2 => (
            ProblemKind::Aborted,
            "pytest was interrupted (exit status 2: collection errors, Ctrl-C or pytest.exit): tests after the interruption did not run",
        ),
        3 => (
            ProblemKind::Crash,
            "pytest hit an internal error (exit status 3): the run did not complete",
        ),
        4 => (
            ProblemKind::Aborted,
            "pytest usage error (exit status 4): the command line was wrong, no tests ran",
        ),
        5 => (
            ProblemKind::MissingTests,
            "pytest collected no tests (exit status 5)",
        ),
        _ => {
            return Some(Problem::new(
                ProblemKind::Aborted,
                format!(
                    "pytest ended with exit status {code}, which it does not use itself (a plugin or the process was stopped)"
                ),
            ));
        }
    };
    Some(Problem::new(kind, what))
}

/// pytest's exit status as evidence: 0 says the run passed, every other status says it failed
/// (1: tests failed; 2 interrupted, 3 internal error, 4 usage error, 5 no tests collected: the
/// run did not complete, which [`exit_problem`] already reports, so those pass `problems`).
/// `failed` counts failed and errored tests and failed collectors read. Skips are not read as
/// explaining a failed status: pytest never exits non-zero for a skip.
pub(crate) fn exit_evidence(code: i64, tests: u64, failed: u64, problems: u64) -> Evidence {
    Evidence::new(
        EvidenceSource::ExitStatus,
        format!("pytest's exit status {code}"),
    )
    .declaring(Declared::new().run_failed(code != 0))
    // The problems explain a failed status; beside a status of 0 they are not a mismatch.
    .reading(ReadCounts::new(tests, failed, 0).with_problems(if code == 0 { 0 } else { problems }))
}

/// Where a skip was decided, from a skip's `longrepr` `(path, line, reason)` as pytest writes
/// it: `path:line`. json-report keeps the tuple's Python repr (`('/p/x.py', 6, 'Skipped: r')`),
/// reportlog a JSON array; both come here as the path and the line's text.
pub(crate) fn skip_location(path: &str, line: &str) -> Option<String> {
    let line = line.trim();
    (!path.is_empty() && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()))
        .then(|| format!("{path}:{line}"))
}

/// The `path:line` of a skip `longrepr` written as a Python tuple repr (json-report).
pub(crate) fn skip_location_repr(longrepr: &str) -> Option<String> {
    let inner = longrepr.trim().strip_prefix('(')?.strip_suffix(')')?;
    let q = inner.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let rest = &inner[1..];
    let end = rest.find(q)?;
    let path = &rest[..end];
    let after = rest[end + 1..].strip_prefix(", ")?;
    let line = &after[..after.find(',')?];
    skip_location(path, line)
}

/// Appends captured output, cut at 64 KiB with a note ([`push_capped`]).
pub(crate) fn push_output(dst: &mut Option<String>, text: &str) {
    if !text.is_empty() {
        push_capped(dst.get_or_insert_with(String::new), text);
    }
}

/// The reason in a skip's `longrepr`, which pytest writes as a `(path, line, reason)` tuple
/// (json-report keeps the tuple's Python repr): the reason, without the tuple around it.
pub(crate) fn skip_reason(longrepr: &str) -> &str {
    let t = longrepr.trim();
    if t.starts_with('(') && t.ends_with(')') {
        let inner = &t[1..t.len() - 1];
        for sep in [", '", ", \""] {
            if let Some(i) = inner.rfind(sep) {
                let r = &inner[i + sep.len()..];
                return r.strip_suffix(['\'', '"']).unwrap_or(r);
            }
        }
    }
    t
}

/// The line of a collection error worth a problem's first line: the last `E   ` line (the
/// exception), else the first line.
pub(crate) fn error_headline(longrepr: &str) -> &str {
    longrepr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("E ").map(str::trim))
        .filter(|l| !l.is_empty())
        .or_else(|| longrepr.lines().map(str::trim).find(|l| !l.is_empty()))
        .unwrap_or("")
}

/// A serde_json error as an input error at its line and column (1-based).
pub(crate) fn json_error(e: &serde_json::Error, line_offset: usize) -> InputError {
    InputError::from_json(e, line_offset)
}

pub(crate) use gapscore_adapter_sdk::json_has_key as has_key;

/// The keywords of a test that spell a category (json-report writes keywords as a list,
/// reportlog as an object's keys). Only those are kept: most tests have none, so reading
/// keywords allocates nothing.
#[derive(Default)]
pub(crate) struct Markers<'a>(Vec<Str<'a>>);

impl Markers<'_> {
    /// The category the first marker names, passing over the node's own names.
    pub(crate) fn category(&self, nodeid: &str) -> Option<Category> {
        self.0
            .iter()
            .find_map(|k| category_from_keyword(nodeid, k.as_ref()))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Markers<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Markers<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`keywords` to be an object")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Markers::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut keys = Vec::new();
                while let Some(k) = map.next_key::<Str<'de>>()? {
                    map.next_value::<IgnoredAny>()?;
                    if category_name(&k).is_some() {
                        keys.push(k);
                    }
                }
                Ok(Markers(keys))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut keys = Vec::new();
                while let Some(k) = seq.next_element::<Str<'de>>()? {
                    if category_name(&k).is_some() {
                        keys.push(k);
                    }
                }
                Ok(Markers(keys))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn str_borrows_in_options_and_vecs() {
        #[derive(serde::Deserialize)]
        struct T<'a> {
            #[serde(borrow)]
            a: Option<Str<'a>>,
            #[serde(borrow)]
            b: Vec<Str<'a>>,
        }
        let t: T<'_> = serde_json::from_str(r#"{"a":"x","b":["y","z\\n"]}"#).unwrap();
        assert!(matches!(t.a.unwrap().0, Cow::Borrowed("x")));
        assert!(matches!(t.b[0].0, Cow::Borrowed("y")));
        assert!(matches!(&t.b[1].0, Cow::Owned(s) if s == "z\\n"));
    }

    #[test]
    fn nodeids_split_outside_parameter_brackets() {
        let t = test_from_nodeid("a/t.py::C::test_x[p::q]", Status::Passed);
        assert_eq!(t.suite.as_deref(), Some("a/t.py::C"));
        assert_eq!(t.name, "test_x[p::q]");
        assert_eq!(t.id, "a/t.py::C::test_x[p::q]");
        assert_eq!(t.file.as_deref(), Some("a/t.py"));
        let t = test_from_nodeid("t.py", Status::Passed);
        assert_eq!((t.suite, t.name.as_str()), (None, "t.py"));
    }

    #[test]
    fn borrowed_nodeid_tests_copy_to_the_owned_ones() {
        for id in [
            "a/t.py::C::test_x[p::q]",
            "t.py",
            "t.py::test_a",
            "::odd",
            "",
        ] {
            let parts = NodeId::split(id);
            let owned = test_from_nodeid(id, Status::Failed);
            assert_eq!(
                parts.test_ref(id, Status::Failed).to_test_case(),
                owned,
                "{id}"
            );
        }
        let parts = NodeId::split("::odd");
        assert_eq!(
            (parts.suite, parts.name, parts.file),
            (Some(""), "odd", None)
        );
    }

    #[test]
    fn markers_set_categories_but_node_names_do_not() {
        let id = "tests/security/test_a.py::test_x[edge_case]";
        assert_eq!(category_from_keyword(id, "security"), None);
        assert_eq!(category_from_keyword(id, "edge_case"), None);
        assert_eq!(
            category_from_keyword(id, "error_handling"),
            Some(Category::ErrorHandling)
        );
        assert_eq!(category_from_keyword(id, "error"), None);
        assert_eq!(
            category_from_keyword("t.py::test_a", "Edge-Case"),
            Some(Category::EdgeCase)
        );
    }

    #[test]
    fn skip_reasons_lose_their_tuple() {
        assert_eq!(
            skip_reason("('/p/t.py', 31, 'Skipped: requires network access')"),
            "Skipped: requires network access"
        );
        assert_eq!(skip_reason("plain"), "plain");
        assert_eq!(skip_reason("()"), "()");
    }

    #[test]
    fn output_is_capped_on_a_char_boundary() {
        let mut out = None;
        push_output(&mut out, &"é".repeat(40 * 1024));
        push_output(&mut out, "more");
        let o = out.unwrap();
        assert!(o.ends_with("[gapscore: cut at 64 KiB]"));
        assert!(o.len() < 65 * 1024);
    }

    #[test]
    fn output_filled_exactly_then_more_gets_the_note() {
        let mut out = None;
        push_output(&mut out, &"x".repeat(64 * 1024));
        assert!(!out.as_deref().unwrap_or("").contains("[gapscore"));
        push_output(&mut out, "more");
        let o = out.unwrap();
        assert!(o.ends_with("[gapscore: cut at 64 KiB]"));
        assert!(!o.contains("more"));
    }
}
