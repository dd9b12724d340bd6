//! Text helpers shared by readers and the core: ANSI escape sequences out of runner output, and
//! the cap on kept text ([`TEXT_CAP`], [`CUT_NOTE`]) that the adapter SDK's `push_capped` applies
//! and the [`Normalizer`](crate::Normalizer) counts ([`is_cut`]) to warn once per input.

use std::borrow::Cow;

/// Kept text per field (message, output) stops at this many bytes; the note comes after.
pub const TEXT_CAP: usize = 64 * 1024;

/// The note that ends a text cut at [`TEXT_CAP`].
pub const CUT_NOTE: &str = "\n[gapscore: cut at 64 KiB]";

/// True when `text` was cut at [`TEXT_CAP`]: it ends with [`CUT_NOTE`] (a trim at the end keeps it).
pub fn is_cut(text: &str) -> bool {
    text.ends_with(CUT_NOTE)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_csi_and_osc_and_borrows_plain_text() {
        assert_eq!(
            strip_ansi("\u{1b}[31mred\u{1b}[0m \u{1b}]0;title\u{7}x"),
            "red x"
        );
        assert!(matches!(strip_ansi("plain"), Cow::Borrowed("plain")));
    }
}
