//! HTML: self-contained pages through maud templates, which escape every value they insert at
//! compile time, so no output builds markup by formatting strings.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::level::Level;

/// A page loads nothing: no network, no other file; only its own inline style and script run.
const CONTENT_SECURITY_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'";

/// A whole page: `title`, the inline `style` sheet (ours, not escaped) and the `body`, with the
/// [`CONTENT_SECURITY_POLICY`] that keeps it self-contained. One element a line at the top
/// level, as a person would write it.
pub fn self_contained_page(title: &str, style: &str, body: Markup) -> String {
    html! {
        (DOCTYPE) "\n"
        html lang="en" {
            "\n"
            head {
                "\n"
                meta charset="utf-8";
                "\n"
                meta http-equiv="Content-Security-Policy" content=(CONTENT_SECURITY_POLICY);
                "\n"
                title { (title) }
                "\n"
                style { (PreEscaped(style)) }
                "\n"
            }
            "\n"
            body { "\n" (body) }
            "\n"
        }
        "\n"
    }
    .into_string()
}

/// The colour a level is shown in (grey for no level: a repository that could not be scored).
pub fn level_color(level: Option<Level>) -> &'static str {
    match level {
        Some(Level::Perfect) => "#2e7d32",
        Some(Level::Minor) => "#7cb342",
        Some(Level::Moderate) => "#fbc02d",
        Some(Level::Significant) => "#f57c00",
        Some(Level::Critical) => "#c62828",
        None => "#757575",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_escapes_its_title_and_body_values_but_not_its_own_style() {
        let name = "<b>\"x\" & y</b>";
        let page = self_contained_page(name, "a>b{c:d}", html! { p { (name) } });
        assert!(page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"));
        assert!(page.contains("<title>&lt;b&gt;&quot;x&quot; &amp; y&lt;/b&gt;</title>"));
        assert!(page.contains("<p>&lt;b&gt;&quot;x&quot; &amp; y&lt;/b&gt;</p>"));
        assert!(page.contains("<style>a>b{c:d}</style>"));
        assert!(page.contains("content=\"default-src 'none'; style-src 'unsafe-inline'"));
        assert!(page.ends_with("</body>\n</html>\n"));
    }
}
