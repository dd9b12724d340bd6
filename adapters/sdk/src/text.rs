//! Capped text: the messages and captured output an adapter keeps per test are cut at
//! [`TEXT_CAP`] bytes, with [`CUT_NOTE`] at the end, so one test that prints gigabytes cannot
//! make a run's memory grow with its output, and a reader of the report sees that text was lost.
//!
//! [`push_capped`] is the one way to build such a text piece by piece: it keeps up to the cap on
//! a char boundary and adds the note once, the first time anything is lost, including when an
//! earlier piece filled the text exactly to the cap. [`strip_ansi`] takes colour codes out of
//! runner output (adapters, the runner's failure lines, the core's feedback scrubber and the
//! checker's leak rule share it). The cap and the note live in the model crate, whose
//! `Normalizer` counts the texts cut in one input and warns once for them all.

use std::borrow::Cow;

pub use gapscore_model::text::{CUT_NOTE, TEXT_CAP, is_cut};

/// Appends `text` to `dst`, keeping `dst` within [`TEXT_CAP`] bytes (plus the note).
///
/// What does not fit is dropped at a char boundary and [`CUT_NOTE`] is appended, once: a text
/// that already ends in the note past the cap takes nothing more. When `dst` is exactly full
/// (an earlier piece ended at the cap) the next non-empty piece adds the note. Returns `true`
/// when some of `text` was lost (now or because `dst` was already cut).
pub fn push_capped(dst: &mut String, text: &str) -> bool {
    if text.is_empty() {
        return false;
    }
    if dst.len() >= TEXT_CAP {
        // Full to the byte without a note so far: this text is the first one lost.
        if !dst.ends_with(CUT_NOTE) {
            dst.push_str(CUT_NOTE);
        }
        return true;
    }
    let room = TEXT_CAP - dst.len();
    if text.len() <= room {
        dst.push_str(text);
        return false;
    }
    let mut cut = room;
    while cut > 0 && !text.is_char_boundary(cut) {
        cut -= 1;
    }
    dst.push_str(text.get(..cut).unwrap_or_default());
    dst.push_str(CUT_NOTE);
    true
}

/// Removes ANSI escape sequences (colours, cursor movement, OSC titles); borrowed when the text
/// has none (the common case).
pub fn strip_ansi(text: &str) -> Cow<'_, str> {
    if !text.contains('\u{1b}') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                // CSI: parameters and intermediates, then one final byte in @..~.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                chars.next();
                // OSC: up to BEL or ESC \.
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            Some(_) => {
                chars.next();
            }
            None => {}
        }
    }
    Cow::Owned(out)
}

/// The non-empty lines of a text as a source reader sees them: ended by `\n`, `\r\n` or a lone `\r` (an
/// old Mac file is one `\r`-separated text, which [`str::lines`] would read as one line).
pub fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n')
        .flat_map(|l| l.split('\r'))
        .filter(|l| !l.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_whole() {
        let mut s = String::from("a");
        assert!(!push_capped(&mut s, "bc"));
        assert!(!push_capped(&mut s, ""));
        assert_eq!(s, "abc");
    }

    #[test]
    fn cut_on_a_char_boundary_with_one_note() {
        let mut s = String::new();
        assert!(push_capped(&mut s, &"é".repeat(40 * 1024)));
        assert!(s.ends_with(CUT_NOTE));
        let body = s.len() - CUT_NOTE.len();
        assert!(body <= TEXT_CAP && body > TEXT_CAP - 4);
        let before = s.clone();
        assert!(push_capped(&mut s, "more"));
        assert_eq!(s, before, "nothing more and no second note once cut");
    }

    #[test]
    fn exactly_full_then_more_adds_the_note() {
        let mut s = String::new();
        assert!(!push_capped(&mut s, &"x".repeat(TEXT_CAP)));
        assert_eq!(s.len(), TEXT_CAP);
        assert!(!push_capped(&mut s, ""), "an empty piece loses nothing");
        assert_eq!(s.len(), TEXT_CAP);
        assert!(push_capped(&mut s, "y"));
        assert_eq!(s.len(), TEXT_CAP + CUT_NOTE.len());
        assert!(s.ends_with(CUT_NOTE));
        assert!(push_capped(&mut s, "z"));
        assert_eq!(s.len(), TEXT_CAP + CUT_NOTE.len());
    }

    #[test]
    fn exactly_filling_piece_has_no_note() {
        let mut s = String::from("ab");
        assert!(!push_capped(&mut s, &"x".repeat(TEXT_CAP - 2)));
        assert_eq!(s.len(), TEXT_CAP);
        assert!(!s.ends_with(CUT_NOTE));
    }

    #[test]
    fn strips_csi_and_osc_and_borrows_plain_text() {
        assert_eq!(
            strip_ansi("\u{1b}[31mred\u{1b}[0m \u{1b}]0;title\u{7}x"),
            "red x"
        );
        assert!(matches!(strip_ansi("plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn lines_end_at_lf_crlf_or_a_lone_cr() {
        let lines: Vec<&str> = split_lines("a\r\nb\rc\n\nd").collect();
        assert_eq!(lines, ["a", "b", "c", "d"]);
    }
}
