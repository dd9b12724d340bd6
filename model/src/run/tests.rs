use super::*;

#[test]
fn categories_from_title_tags() {
    assert_eq!(
        Category::from_title("[security] rejects a forged token"),
        Some(Category::Security)
    );
    assert_eq!(
        Category::from_title("test_square[2-4] [Edge-Case] big"),
        Some(Category::EdgeCase)
    );
    assert_eq!(
        Category::from_title("parses [error handling] input"),
        Some(Category::ErrorHandling)
    );
    assert_eq!(
        Category::from_title("[unknown] x [happy_path]"),
        Some(Category::HappyPath)
    );
    assert_eq!(Category::from_title("no tag [1-2] [ ]"), None);
    assert_eq!(Category::from_title("unclosed [security"), None);
}

#[test]
fn status_spellings_are_case_insensitive() {
    for (s, want) in [
        ("FAILED", Status::Failed),
        ("Failed", Status::Failed),
        ("error", Status::Errored),
        ("Error", Status::Errored),
        ("PASS", Status::Passed),
        ("xFail", Status::Xfailed),
        ("pending", Status::Skipped),
        ("TODO", Status::Todo),
    ] {
        assert_eq!(s.parse::<Status>(), Ok(want), "{s}");
    }
}

#[test]
fn unknown_status_is_an_error() {
    for s in ["", "ok", "broken", " passed", "passed "] {
        assert!(s.parse::<Status>().is_err(), "{s:?} must not parse");
    }
}

#[test]
fn category_accepts_spec_example_plural() {
    assert_eq!(
        Category::parse_lenient("edge_cases"),
        Some(Category::EdgeCase)
    );
    assert_eq!(
        Category::parse_lenient("Error-Handling"),
        Some(Category::ErrorHandling)
    );
    assert_eq!(Category::parse_lenient("performance"), None);
}

#[test]
fn flaky_needs_a_failed_attempt_then_a_pass() {
    let mut t = TestCase::new(None, "t", Status::Passed);
    assert!(!t.is_flaky());
    t.attempts.push(Attempt::new(Status::Failed));
    assert!(t.is_flaky());
    t.status = Status::Failed;
    assert!(!t.is_flaky());
}

#[test]
fn problem_kind_names_round_trip() {
    for k in ProblemKind::ALL {
        let json = serde_json::to_string(&k).unwrap();
        assert_eq!(json, format!("\"{}\"", k.as_str()));
        let back: ProblemKind = serde_json::from_str(&json).unwrap();
        assert_eq!(back, k);
    }
}
