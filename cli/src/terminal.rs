//! The one place that decides how human text looks on standard output: colour or not, emoji
//! marks or ASCII ones. Colour only on a terminal (or with `--color always`), never in a file or
//! a pipe unless forced; `NO_COLOR` turns it off and `CLICOLOR_FORCE` on (`--color` beats
//! both), `TERM=dumb` off. ASCII marks with `--ascii`, or on a terminal whose locale
//! (`LC_ALL`, `LC_CTYPE`, `LANG`, the first set) is not UTF-8. Only the human text formats
//! (`--format summary`, `check`'s text) are painted; JSON, CSV, JUnit, Markdown and the
//! GitHub formats never change.

use std::ffi::OsString;
use std::io::IsTerminal as _;
use std::sync::OnceLock;

use anstyle::{AnsiColor, Style};
use clap::ValueEnum;

/// `--color`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    /// On a terminal, unless `NO_COLOR` is set or `TERM=dumb` (`CLICOLOR_FORCE` forces it).
    #[default]
    Auto,
    /// Always, even into a file or pipe.
    Always,
    /// Never.
    Never,
}

/// How the human text on standard output looks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Look {
    /// Colour codes around the marks.
    pub color: bool,
    /// ASCII marks instead of emoji.
    pub ascii: bool,
}

/// A mark gapscore prints, its ASCII stand-in and its colour.
///
/// `check`'s own marks, ASCII already and only coloured, come first: an ASCII stand-in put in
/// later (`[ok]`) is not coloured twice.
const MARKS: [(&str, &str, AnsiColor); 11] = [
    ("[X ]", "[X ]", AnsiColor::Red),
    ("[ok]", "[ok]", AnsiColor::Green),
    ("[~ ]", "[~ ]", AnsiColor::Yellow),
    ("✅", "[ok]", AnsiColor::Green),
    ("❌", "[x]", AnsiColor::Red),
    ("🟢", "[+]", AnsiColor::Green),
    ("🟡", "[~]", AnsiColor::Yellow),
    ("🟠", "[-]", AnsiColor::Yellow),
    ("🔴", "[!]", AnsiColor::Red),
    ("⚠\u{fe0f}", "[!]", AnsiColor::Yellow),
    ("⚠", "[!]", AnsiColor::Yellow),
];

/// Punctuation a non-UTF-8 terminal cannot show, in the ASCII look.
const PUNCTUATION: [(&str, &str); 4] = [("→", "->"), ("—", "-"), ("…", "..."), ("·", "-")];

static STDOUT_LOOK: OnceLock<Look> = OnceLock::new();

/// Decides standard output's look once, from the flags and the environment.
pub fn init(color: ColorArg, ascii: bool) {
    let env = |k: &str| std::env::var_os(k);
    let _ = STDOUT_LOOK.set(Look::decide(
        color,
        ascii,
        &env,
        std::io::stdout().is_terminal(),
    ));
}

/// Standard output's look ([`init`]; plain before it).
pub fn stdout_look() -> Look {
    STDOUT_LOOK.get().copied().unwrap_or_default()
}

impl Look {
    /// The look for `--color`, `--ascii`, the environment and whether stdout is a terminal.
    pub fn decide(
        color: ColorArg,
        ascii: bool,
        env: &dyn Fn(&str) -> Option<OsString>,
        terminal: bool,
    ) -> Look {
        let set = |k: &str| env(k).is_some_and(|v| !v.is_empty());
        let dumb = env("TERM").is_some_and(|t| t == "dumb");
        let color = match color {
            ColorArg::Always => true,
            ColorArg::Never => false,
            ColorArg::Auto if set("NO_COLOR") => false,
            ColorArg::Auto
                if set("CLICOLOR_FORCE") && env("CLICOLOR_FORCE") != Some("0".into()) =>
            {
                true
            }
            ColorArg::Auto => terminal && !dumb,
        };
        let ascii = ascii || (terminal && !utf8_locale(env));
        Look { color, ascii }
    }

    /// Whether text comes out as it was written.
    pub fn is_plain(self) -> bool {
        !self.color && !self.ascii
    }

    /// `text` in this look: marks swapped for ASCII ones and coloured as asked.
    pub fn paint(self, text: &str) -> String {
        if self.is_plain() {
            return text.to_owned();
        }
        let mut out = text.to_owned();
        for (mark, ascii, colour) in MARKS {
            if !out.contains(mark) {
                continue;
            }
            let shown = if self.ascii { ascii } else { mark };
            let with = if self.color {
                let style = Style::new().fg_color(Some(colour.into())).bold();
                format!("{style}{shown}{style:#}")
            } else {
                shown.to_owned()
            };
            out = out.replace(mark, &with);
        }
        if self.ascii {
            for (from, to) in PUNCTUATION {
                out = out.replace(from, to);
            }
        }
        out
    }
}

/// Whether the locale (the first of `LC_ALL`, `LC_CTYPE`, `LANG` that is set and not empty)
/// is UTF-8; none set is the POSIX locale, which is not.
fn utf8_locale(env: &dyn Fn(&str) -> Option<OsString>) -> bool {
    ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .filter_map(|k| env(k))
        .find(|v| !v.is_empty())
        .is_some_and(|v| {
            let v = v.to_string_lossy().to_ascii_lowercase();
            v.contains("utf-8") || v.contains("utf8")
        })
}

/// Text someone else chose (test names, messages, file names) as a person's terminal shows it:
/// every control character a terminal would obey (ESC and with it every escape sequence, CR,
/// backspace, the C1 controls such as U+009B, DEL; all but LF and TAB) is shown in caret
/// notation (`^[`, `^M`, `<U+009B>`) instead, so nothing in a report can move the cursor, clear
/// the screen or conceal what gapscore printed (found by an attack on the build: a failure
/// message redrew the score line as 0.0%). gapscore's own colour is added after this.
pub fn inert_text(text: &str) -> std::borrow::Cow<'_, str> {
    let obeyed = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(obeyed) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            c if !obeyed(c) => out.push(c),
            '\u{7f}' => out.push_str("^?"),
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            c => out.push_str(&format!("<U+{:04X}>", c as u32)),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn colour_only_on_a_terminal_unless_forced() {
        let utf8 = env_of(&[("LANG", "en_US.UTF-8")]);
        assert!(Look::decide(ColorArg::Auto, false, &utf8, true).color);
        assert!(!Look::decide(ColorArg::Auto, false, &utf8, false).color);
        assert!(Look::decide(ColorArg::Always, false, &utf8, false).color);
        assert!(!Look::decide(ColorArg::Never, false, &utf8, true).color);
    }

    #[test]
    fn no_color_and_dumb_turn_it_off_and_the_flag_beats_them() {
        let no = env_of(&[("LANG", "C.UTF-8"), ("NO_COLOR", "1")]);
        assert!(!Look::decide(ColorArg::Auto, false, &no, true).color);
        assert!(Look::decide(ColorArg::Always, false, &no, true).color);
        let dumb = env_of(&[("LANG", "C.UTF-8"), ("TERM", "dumb")]);
        assert!(!Look::decide(ColorArg::Auto, false, &dumb, true).color);
        let forced = env_of(&[("CLICOLOR_FORCE", "1")]);
        assert!(Look::decide(ColorArg::Auto, false, &forced, false).color);
        let both = env_of(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
        assert!(!Look::decide(ColorArg::Auto, false, &both, false).color);
    }

    #[test]
    fn ascii_on_a_terminal_without_utf8_or_when_asked() {
        let c = env_of(&[("LANG", "en_US.UTF-8"), ("LC_ALL", "C")]);
        assert!(Look::decide(ColorArg::Never, false, &c, true).ascii);
        assert!(!Look::decide(ColorArg::Never, false, &c, false).ascii);
        let utf8 = env_of(&[("LC_CTYPE", "en_US.utf8")]);
        assert!(!Look::decide(ColorArg::Never, false, &utf8, true).ascii);
        assert!(Look::decide(ColorArg::Never, true, &utf8, false).ascii);
    }

    #[test]
    fn paint_swaps_and_colours_marks() {
        let ascii = Look {
            color: false,
            ascii: true,
        };
        assert_eq!(ascii.paint("  ❌ a: b → c"), "  [x] a: b -> c");
        assert_eq!(ascii.paint("11.1% 🟢 (minor)"), "11.1% [+] (minor)");
        let colour = Look {
            color: true,
            ascii: false,
        };
        assert_eq!(colour.paint("❌ a"), "\u{1b}[1m\u{1b}[31m❌\u{1b}[0m a");
        assert_eq!(Look::default().paint("❌ a"), "❌ a");
    }

    #[test]
    fn control_characters_are_shown_never_obeyed() {
        let t = "a\u{1b}[2J\u{1b}[1A\rb\u{9b}31mc\u{7f}\td\n";
        assert_eq!(inert_text(t), "a^[[2J^[[1A^Mb<U+009B>31mc^?\td\n");
        assert!(matches!(
            inert_text("plain\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
