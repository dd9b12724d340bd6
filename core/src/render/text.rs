//! Shortening text for the human formats.

/// The first line of `s`, with ` …` when more lines follow.
pub(super) fn one_line(s: &str) -> String {
    let first = s.lines().next().unwrap_or("");
    if s.lines().nth(1).is_some() {
        format!("{first} …")
    } else {
        first.to_owned()
    }
}

/// `s` cut after `max` bytes (on a char boundary) with a note of how much was left out.
pub(super) fn cut(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if s.len() <= max {
        return s.into();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let left = s[end..].chars().count();
    format!("{}… [cut: {left} more characters]", &s[..end]).into()
}
