//! Which program wrote the file, from the marks each leaves (issue 18): rules keyed on the
//! producer (Go parent tests, gotestsum's rerun merging, how declared counts are read) must
//! apply to that producer's files only.
//!
//! | producer | marks |
//! |---|---|
//! | `go-junit-report` | a `<testsuite>` opening with `name`, with `id` and `hostname` and no `package` (v2; v2 also writes a `go.version` property); a `[build failed]` pseudo-testcase |
//! | `gotestsum` | a `go.version` property in a suite without `id`; or a `<testsuite>` opening with `tests` that has a `timestamp`, no `id`, and a name without spaces (Go's encoding/xml writes gotestsum's fields in that order) |
//! | `ant` | a `<testsuite>` opening with `errors` with a `hostname` (Ant's XML formatter and junitreport write attributes in alphabetical order; Eclipse's and ScalaTest's reports copy the shape) |
//! | `tap2junit` | a `<testsuite>` opening with `failures` with an `id` (Perl tap2junit); its pseudo-suite `…Test_Summary_Report` |
//! | `maven-surefire` | a surefire schema location; otherwise a `java.version` property in a file not already known |
//! | `ginkgo` | a `SuiteSucceeded` property |
//! | `googletest` | root `<testsuites name="AllTests">`, or a testcase with a `result` attribute |
//! | `tst` | a testcase with `status="disabled"` in a file not already known |
//! | `pytest`, `jest-junit`, `mocha-junit-reporter`, `cargo-nextest`, `bats`, `node` | root or suite names, as before |

use quick_xml::XmlVersion;
use quick_xml::events::BytesStart;

/// The marks of a `<testsuite>` start tag that tell producers apart.
#[derive(Debug, Default, Clone)]
pub(super) struct SuiteMarks {
    /// The first attribute's name.
    pub first: Option<String>,
    pub id: bool,
    pub hostname: bool,
    pub package: bool,
    pub timestamp: bool,
    pub schema_surefire: bool,
}

impl SuiteMarks {
    /// Reads the marks of a start tag (attribute names only, and the schema location).
    pub fn of(e: &BytesStart<'_>) -> Result<Self, quick_xml::Error> {
        let mut m = SuiteMarks::default();
        for a in e.attributes().with_checks(false) {
            let a = a.map_err(quick_xml::Error::from)?;
            let key = a.key.as_ref();
            if m.first.is_none() && !key.starts_with("xmlns") && !key.starts_with("xsi:") {
                m.first = Some(key.to_owned());
            }
            match key {
                "id" => m.id = true,
                "hostname" => m.hostname = true,
                "package" => m.package = true,
                "timestamp" => m.timestamp = true,
                "xsi:noNamespaceSchemaLocation" => {
                    m.schema_surefire = a
                        .normalized_value(XmlVersion::Implicit1_0)?
                        .contains("surefire");
                }
                _ => {}
            }
        }
        Ok(m)
    }
}

/// The producer a `<testsuite>` start tag names, if any.
pub(super) fn from_suite(name: Option<&str>, m: &SuiteMarks) -> Option<&'static str> {
    let first = m.first.as_deref();
    match name {
        Some("pytest") => return Some("pytest"),
        Some(n) if n.ends_with(".bats") => return Some("bats"),
        _ => {}
    }
    if m.schema_surefire {
        return Some("maven-surefire");
    }
    if first == Some("name") && m.id && m.hostname && !m.package {
        return Some("go-junit-report");
    }
    if first == Some("tests")
        && m.timestamp
        && !m.id
        && name.is_some_and(|n| !n.is_empty() && !n.contains(char::is_whitespace))
    {
        return Some("gotestsum");
    }
    if first == Some("errors") && m.hostname {
        return Some("ant");
    }
    if first == Some("failures") && m.id && !m.hostname {
        return Some("tap2junit");
    }
    None
}

/// The producer a `<testsuites>` root's name gives, if any.
pub(super) fn from_root(name: Option<&str>) -> Option<&'static str> {
    match name {
        Some("pytest tests") => Some("pytest"),
        Some("jest tests") => Some("jest-junit"),
        Some("Mocha Tests") => Some("mocha-junit-reporter"),
        Some("nextest-run") => Some("cargo-nextest"),
        Some("AllTests") => Some("googletest"),
        _ => None,
    }
}

/// True for the Go producers, whose `TestA/b` names are subtests of `TestA`.
pub(super) fn is_go(producer: Option<&str>) -> bool {
    matches!(producer, Some("go-junit-report" | "gotestsum"))
}
